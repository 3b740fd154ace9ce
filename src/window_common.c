/*
 * window_common.c — what the window functions share (see window_common.h).
 */
#include "gd_core.h"			/* before postgres.h: see core_bridge.h */

#include "postgres.h"

#include <limits.h>
#include <math.h>

#include "miscadmin.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

#include "core_bridge.h"
#include "progress.h"
#include "window_common.h"

/* eps checked as ST_ClusterDBSCAN checks it (see window_common.h). */
void
param_check_eps(double eps, bool isnull)
{
	if (isnull || eps < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("Tolerance must be a positive number")));
}

/* minpoints checked as ST_ClusterDBSCAN checks it (see window_common.h). */
void
param_check_minpoints(int64 minpoints, bool isnull)
{
	if (isnull || minpoints < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("Minpoints must be a positive number")));
}

/* The NaN eps that ST_ClusterDBSCAN lets through (see window_common.h). */
void
param_check_eps_number(double eps)
{
	if (isnan(eps))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("Tolerance must be a number, not NaN")));
}

/* A parameter array must be one-dimensional (see window_common.h). */
void
param_check_one_dimensional(int ndim, const char *fn, const char *what)
{
	if (ndim > 1)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("%s: %s must be a one-dimensional array, not %d-dimensional",
						fn, what, ndim)));
}

/* eps and minpoints from the partition's first row (see window_common.h). */
void
window_read_parameters(WindowObject win, double *eps, int32 *minpoints)
{
	bool		isnull;
	Datum		d;

	d = WinGetFuncArgInPartition(win, 1, 0, WINDOW_SEEK_HEAD, false, &isnull, NULL);
	*eps = isnull ? 0 : DatumGetFloat8(d);
	param_check_eps(*eps, isnull);

	d = WinGetFuncArgInPartition(win, 2, 0, WINDOW_SEEK_HEAD, false, &isnull, NULL);
	*minpoints = isnull ? 0 : DatumGetInt32(d);
	param_check_minpoints(*minpoints, isnull);

	param_check_eps_number(*eps);
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
		if (nrows <= WINDOW_SMALL_PARTITION_ROWS)
			cluster(fcinfo, win, nrows, ids);
		else
		{
			/* only partitions of some size report progress: no cost on tiny ones */
			char	   *fn = get_func_name(fcinfo->flinfo->fn_oid);

			gd_progress_begin(fn ? fn : "gpu_dbscan", nrows);
			work = AllocSetContextCreate(CurrentMemoryContext, "gpu_dbscan partition",
										 ALLOCSET_DEFAULT_SIZES);
			old = MemoryContextSwitchTo(work);
			cluster(fcinfo, win, nrows, ids);
			MemoryContextSwitchTo(old);
			MemoryContextDelete(work);
			gd_progress_end();
		}

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

/* Records row's SRID (see window_common.h). */
void
window_check_srid(SridCheck *check, int32 srid, int64 row)
{
	if (!check->have)
	{
		check->have = true;
		check->srid = srid;
		check->row = row;
	}
	else if (srid != check->srid)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("gpu_dbscan: geometries of one partition have different SRIDs"),
				 errdetail("Row %lld has SRID %d, row %lld has SRID %d.",
						   (long long) check->row + 1, check->srid, (long long) row + 1, srid)));
}

/* An error about one row (see window_common.h). */
void
window_row_error(int64 row, int sqlerrcode, const char *message, const char *hint)
{
	ereport(ERROR,
			(errcode(sqlerrcode),
			 errmsg_internal("%s", message),
			 errdetail("Row %lld of the window partition.", (long long) row + 1),
			 hint ? errhint("%s", hint) : 0));
}

/* The error for a NaN or infinite coordinate (see window_common.h). */
void
window_error_nonfinite(int64 row)
{
	window_row_error(row, ERRCODE_INVALID_PARAMETER_VALUE,
					 "gpu_dbscan: geometry has a NaN or infinite coordinate", NULL);
}

/* The error for a malformed geometry (see window_common.h). */
void
window_error_malformed(int64 row, const char *what)
{
	window_row_error(row, ERRCODE_INVALID_PARAMETER_VALUE, what,
					 "PostGIS's distance functions (ST_DWithin, ST_ClusterDBSCAN) crash on "
					 "such values; remove the EMPTY part, or the row.");
}

/* Reads the first argument of every row (see window_common.h). */
void
window_read_rows(WindowObject win, int64 nrows, WindowRowFn read_row, void *arg)
{
	MemoryContext scratch = NULL;
	MemoryContext old = CurrentMemoryContext;
	int64		row;

	if (nrows > WINDOW_SMALL_PARTITION_ROWS)
	{
		scratch = AllocSetContextCreate(CurrentMemoryContext, "gpu_dbscan row",
										ALLOCSET_SMALL_SIZES);
		MemoryContextSwitchTo(scratch);
	}
	for (row = 0; row < nrows; row++)
	{
		bool		isnull;
		Datum		value;

		if ((row & 4095) == 0)
		{
			CHECK_FOR_INTERRUPTS();
			gd_progress_rows(row);
		}
		value = WinGetFuncArgInPartition(win, 0, (int) row, WINDOW_SEEK_HEAD, false,
										 &isnull, NULL);
		read_row(arg, row, value, isnull);
		if (scratch)
			MemoryContextReset(scratch);
	}
	gd_progress_rows(nrows);
	if (scratch)
	{
		MemoryContextSwitchTo(old);
		MemoryContextDelete(scratch);
	}
}

/* Seconds since start (see window_common.h). */
double
window_seconds_since(instr_time start)
{
	instr_time	now;

	INSTR_TIME_SET_CURRENT(now);
	INSTR_TIME_SUBTRACT(now, start);
	return INSTR_TIME_GET_DOUBLE(now);
}

/* Exact test of the candidate pairs, then the graph (see window_common.h). */
void
window_cluster_pairs(gd_pair_list *list, PairTestFn test, void *arg, const uint8 *kind,
					 int64 nrows, int64 ngeoms, int64 minpoints, int32 *ids,
					 instr_time start)
{
	ClusterJob	job;

	memset(&job, 0, sizeof(job));
	job.minpoints = &minpoints;
	job.nminpoints = 1;
	job.ids = ids;
	window_cluster_pairs_job(list, test, arg, kind, nrows, ngeoms, &job, start);
}

/* The same for a ClusterJob (see window_common.h). */
void
window_cluster_pairs_job(gd_pair_list *list, PairTestFn test, void *arg, const uint8 *kind,
						 int64 nrows, int64 ngeoms, const ClusterJob *job, instr_time start)
{
	MemoryContext work = CurrentMemoryContext;
	MemoryContext scratch;
	double		t_pairs = window_seconds_since(start);
	double		t_exact = 0;
	double		t_graph = 0;

	/* the core's pair list is malloc'd: free it whatever happens */
	PG_TRY();
	{
		instr_time	phase;
		int64		kept = 0;
		int64		k;
		uint8	   *dirs;

		dirs = MemoryContextAllocHuge(work, Max(list->count, 1) * sizeof(uint8));
		scratch = AllocSetContextCreate(work, "gpu_dbscan exact test", ALLOCSET_SMALL_SIZES);
		INSTR_TIME_SET_CURRENT(phase);
		MemoryContextSwitchTo(scratch);
		for (k = 0; k < list->count; k++)
		{
			uint8		dir;

			if (k % 1024 == 0)
			{
				CHECK_FOR_INTERRUPTS();
				MemoryContextReset(scratch);
			}
			dir = test(arg, list->pairs[k]);
			if (dir != 0)
			{
				dirs[kept] = dir;
				list->pairs[kept++] = list->pairs[k];
			}
		}
		MemoryContextSwitchTo(work);
		MemoryContextDelete(scratch);
		t_exact = window_seconds_since(phase);

		INSTR_TIME_SET_CURRENT(phase);
		bridge_cluster_graph_job(kind, nrows, list->pairs, dirs, kept, job->minpoints,
								 job->nminpoints, job->ids, job->types);
		t_graph = window_seconds_since(phase);
	}
	PG_FINALLY();
	{
		gd_pair_list_free(list);
	}
	PG_END_TRY();

	bridge_record_graph_run(nrows, ngeoms, t_pairs, t_exact, t_graph,
							window_seconds_since(start));
}
