/*
 * dist_window.c — gpu_dbscan_id_core(geom, eps, minpoints) OVER (...): a
 * row's cluster id and core flag in one pass, as 2 * id + 1 for a core row,
 * 2 * id for a border row, NULL for noise and NULL geometries: the ids of
 * gpu_dbscan and the flags of gpu_dbscan_point_type over the same window,
 * from one clustering.  gpu_dbscan_distributed runs it per tile.
 */
#include "gd_core.h"			/* before postgres.h: see core_bridge.h */

#include "postgres.h"

#include "utils/memutils.h"
#include "windowapi.h"

#include "partition_rows.h"
#include "window_common.h"

/* The answer for one partition, in its partition-local memory. */
typedef struct IdCoreResult
{
	bool		done;
	int64		nrows;
	int32	   *ids;			/* -1: NULL */
	uint8	   *types;
} IdCoreResult;

static void
id_core_partition(FunctionCallInfo fcinfo, WindowObject win, IdCoreResult *res)
{
	double		eps;
	int32		minpoints;
	int64		minpoints64;
	int64		nrows;
	ClusterJob	job;
	MemoryContext mine = GetMemoryChunkContext(res);

	window_read_parameters(win, &eps, &minpoints);
	minpoints64 = minpoints;
	nrows = window_partition_rows(win);
	res->types = MemoryContextAllocHuge(mine, Max(nrows, 1));
	res->ids = MemoryContextAllocHuge(mine, Max(nrows, 1) * sizeof(int32));

	memset(&job, 0, sizeof(job));
	job.eps = eps;
	job.minpoints = &minpoints64;
	job.nminpoints = 1;
	job.ids = res->ids;
	job.types = res->types;
	window_cluster_job(fcinfo, win, nrows, &job);

	res->nrows = nrows;
	res->done = true;
}

PG_FUNCTION_INFO_V1(gpu_dbscan_id_core);

/* gpu_dbscan_id_core(geom, eps, minpoints) OVER (...): see the file comment. */
Datum
gpu_dbscan_id_core(PG_FUNCTION_ARGS)
{
	WindowObject win = PG_WINDOW_OBJECT();
	IdCoreResult *res;
	int64		row;

	res = (IdCoreResult *) WinGetPartitionLocalMemory(win, sizeof(IdCoreResult));
	if (!res->done)
		id_core_partition(fcinfo, win, res);

	row = WinGetCurrentPosition(win);
	if (row < 0 || row >= res->nrows)
		elog(ERROR, "gpu_dbscan_id_core: row %lld outside its partition of %lld rows",
			 (long long) row, (long long) res->nrows);
	if (res->ids[row] < 0)
		PG_RETURN_NULL();
	PG_RETURN_INT64(2 * (int64) res->ids[row] + (res->types[row] == GD_POINT_CORE));
}
