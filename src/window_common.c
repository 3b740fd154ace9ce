/*
 * window_common.c — what the window functions share (see window_common.h).
 */
#include "postgres.h"

#include <limits.h>
#include <math.h>

#include "utils/memutils.h"

#include "window_common.h"

/* eps and minpoints from the partition's first row (see window_common.h). */
void
window_read_parameters(WindowObject win, double *eps, int32 *minpoints)
{
	bool		isnull;
	Datum		d;

	d = WinGetFuncArgInPartition(win, 1, 0, WINDOW_SEEK_HEAD, false, &isnull, NULL);
	*eps = isnull ? 0 : DatumGetFloat8(d);
	if (isnull || *eps < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("Tolerance must be a positive number")));

	d = WinGetFuncArgInPartition(win, 2, 0, WINDOW_SEEK_HEAD, false, &isnull, NULL);
	*minpoints = isnull ? 0 : DatumGetInt32(d);
	if (isnull || *minpoints < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("Minpoints must be a positive number")));

	if (isnan(*eps))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("Tolerance must be a number, not NaN")));
}

/* The partition's row count (see window_common.h). */
int64
window_partition_rows(WindowObject win)
{
	int64		nrows = WinGetPartitionRowCount(win);

	if (nrows > INT_MAX)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("gpu_dbscan: a window partition may hold at most %d rows", INT_MAX)));
	return nrows;
}

/* Clusters the partition once, returns the current row's id (see window_common.h). */
Datum
window_cluster_id(FunctionCallInfo fcinfo, WindowClusterFn cluster)
{
	WindowObject win = PG_WINDOW_OBJECT();
	PartitionResult *res;
	int64		row;

	res = (PartitionResult *) WinGetPartitionLocalMemory(win, sizeof(PartitionResult));
	if (!res->done)
	{
		int64		nrows = window_partition_rows(win);
		int32	   *ids;
		MemoryContext work;
		MemoryContext old;

		ids = MemoryContextAllocHuge(GetMemoryChunkContext(res), Max(nrows, 1) * sizeof(int32));
		work = AllocSetContextCreate(CurrentMemoryContext, "gpu_dbscan partition",
									 ALLOCSET_DEFAULT_SIZES);
		old = MemoryContextSwitchTo(work);
		cluster(fcinfo, win, nrows, ids);
		MemoryContextSwitchTo(old);
		MemoryContextDelete(work);

		res->ids = ids;
		res->nrows = nrows;
		res->done = true;
	}

	row = WinGetCurrentPosition(win);
	if (row < 0 || row >= res->nrows)
		elog(ERROR, "gpu_dbscan: row %lld outside its partition of %lld rows",
			 (long long) row, (long long) res->nrows);
	if (res->ids[row] < 0)
		PG_RETURN_NULL();
	PG_RETURN_INT32(res->ids[row]);
}
