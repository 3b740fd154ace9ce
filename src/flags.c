/*
 * flags.c — gpu_dbscan_point_type(geom, eps, minpoints) OVER (...): what
 * DBSCAN makes of each row of the partition: 'core' (at least minpoints
 * neighbours, itself included), 'border' (not core, in the cluster of a core
 * neighbour) or 'noise'; NULL for a NULL geometry.  The same clustering as
 * gpu_dbscan over the same window (an EMPTY geometry is 'core' when
 * minpoints <= 1, where it is a cluster of its own, else 'noise').
 */
#include "gd_core.h"			/* before postgres.h: see core_bridge.h */

#include "postgres.h"

#include "utils/builtins.h"
#include "utils/memutils.h"
#include "windowapi.h"

#include "partition_rows.h"
#include "window_common.h"

/* The answer for one partition, in its partition-local memory. */
typedef struct TypeResult
{
	bool		done;
	int64		nrows;
	uint8	   *types;			/* gd_point_type, or POINT_TYPE_NULL_ROW */
} TypeResult;

/* Clusters the current partition into res. */
static void
type_partition(FunctionCallInfo fcinfo, WindowObject win, TypeResult *res)
{
	double		eps;
	int32		minpoints;
	int64		minpoints64;
	int64		nrows;
	ClusterJob	job;

	window_read_parameters(win, &eps, &minpoints);
	minpoints64 = minpoints;
	nrows = window_partition_rows(win);
	res->types = MemoryContextAllocHuge(GetMemoryChunkContext(res), Max(nrows, 1));

	memset(&job, 0, sizeof(job));
	job.eps = eps;
	job.minpoints = &minpoints64;
	job.nminpoints = 1;
	job.ids = MemoryContextAllocHuge(CurrentMemoryContext, Max(nrows, 1) * sizeof(int32));
	job.types = res->types;
	window_cluster_job(fcinfo, win, nrows, &job);
	pfree(job.ids);

	res->nrows = nrows;
	res->done = true;
}

PG_FUNCTION_INFO_V1(gpu_dbscan_point_type);

/* gpu_dbscan_point_type(geom, eps, minpoints) OVER (...): see the file comment. */
Datum
gpu_dbscan_point_type(PG_FUNCTION_ARGS)
{
	WindowObject win = PG_WINDOW_OBJECT();
	TypeResult *res;
	int64		row;

	res = (TypeResult *) WinGetPartitionLocalMemory(win, sizeof(TypeResult));
	if (!res->done)
		type_partition(fcinfo, win, res);

	row = WinGetCurrentPosition(win);
	if (row < 0 || row >= res->nrows)
		elog(ERROR, "gpu_dbscan_point_type: row %lld outside its partition of %lld rows",
			 (long long) row, (long long) res->nrows);
	switch (res->types[row])
	{
		case GD_POINT_CORE:
			PG_RETURN_TEXT_P(cstring_to_text("core"));
		case GD_POINT_BORDER:
			PG_RETURN_TEXT_P(cstring_to_text("border"));
		case GD_POINT_NOISE:
			PG_RETURN_TEXT_P(cstring_to_text("noise"));
		default:
			PG_RETURN_NULL();
	}
}
