/*
 * dist_window.c — gpu_dbscan_id_core(geom, eps, minpoints) OVER (...): a
 * row's cluster id and core flag in one pass, as 2 * id + 1 for a core row,
 * 2 * id for a border row, NULL for noise and NULL geometries: the ids of
 * gpu_dbscan and the flags of gpu_dbscan_point_type over the same window,
 * from one clustering.  gpu_dbscan_distributed runs it per tile.
 */
#include "postgres.h"

#include "fmgr.h"

#include "window.h"

PG_FUNCTION_INFO_V1(gpu_dbscan_id_core);

/* gpu_dbscan_id_core(geom, eps, minpoints) OVER (...): see the file comment. */
Datum
gpu_dbscan_id_core(PG_FUNCTION_ARGS)
{
	return window_function(fcinfo, WINDOW_ID_CORE, false);
}
