/*
 * point_type.c — gpu_dbscan_point_type(input, eps, minpoints) OVER (...)
 * over geometry (2D, Z ignored as by gpu_dbscan), float8[] and geography,
 * and gpu_dbscan_point_type_3d over POINT Z: what DBSCAN makes of each row,
 * 'core' (at least minpoints neighbours, itself included), 'border' (not
 * core, in the cluster of a core neighbour) or 'noise'; NULL for a NULL
 * row.  The clustering of gpu_dbscan (gpu_dbscan_3d) over the same window:
 * an EMPTY value is 'core' when minpoints <= 1, where it is a cluster of its
 * own, else 'noise'.
 */
#include "postgres.h"

#include "fmgr.h"

#include "window.h"

PG_FUNCTION_INFO_V1(gpu_dbscan_point_type);

/* gpu_dbscan_point_type(geometry | float8[] | geography, eps, minpoints) OVER (...). */
Datum
gpu_dbscan_point_type(PG_FUNCTION_ARGS)
{
	return window_function(fcinfo, WINDOW_POINT_TYPE, false);
}

PG_FUNCTION_INFO_V1(gpu_dbscan_point_type_3d);

/* gpu_dbscan_point_type_3d(geom, eps, minpoints) OVER (...): POINT Z, 3D distance. */
Datum
gpu_dbscan_point_type_3d(PG_FUNCTION_ARGS)
{
	return window_function(fcinfo, WINDOW_POINT_TYPE, true);
}
