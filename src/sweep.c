/*
 * sweep.c — gpu_dbscan_sweep(input, eps, minpoints int[]) OVER (...) over
 * geometry, float8[] and geography, and gpu_dbscan_sweep_3d over POINT Z:
 * each row's cluster id for every minpoints value, as an int[] in the order
 * of the values (NULL elements for noise; every element NULL for a NULL
 * row).  Element k is exactly what gpu_dbscan(input, eps, minpoints[k])
 * gives over the same window; the neighbour search is done once for all
 * values (see core/cpu_sweep.cpp).
 */
#include "postgres.h"

#include "fmgr.h"

#include "window.h"

PG_FUNCTION_INFO_V1(gpu_dbscan_sweep);

/* gpu_dbscan_sweep(geometry | float8[] | geography, eps, minpoints int[]) OVER (...). */
Datum
gpu_dbscan_sweep(PG_FUNCTION_ARGS)
{
	return window_function(fcinfo, WINDOW_SWEEP, false);
}

PG_FUNCTION_INFO_V1(gpu_dbscan_sweep_3d);

/* gpu_dbscan_sweep_3d(geom, eps, minpoints int[]) OVER (...): POINT Z, 3D distance. */
Datum
gpu_dbscan_sweep_3d(PG_FUNCTION_ARGS)
{
	return window_function(fcinfo, WINDOW_SWEEP, true);
}
