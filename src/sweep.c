/*
 * sweep.c — gpu_dbscan_sweep(geom, eps, minpoints int[]) OVER (...): each
 * row's cluster id for every minpoints value, as an int[] in the order of
 * the values (NULL elements for noise; every element NULL for a NULL
 * geometry).  Element k is exactly what gpu_dbscan(geom, eps, minpoints[k])
 * gives over the same window; the neighbour search is done once for all
 * values (see core/cpu_sweep.cpp).
 */
#include "gd_core.h"			/* before postgres.h: see core_bridge.h */

#include "postgres.h"

#include "catalog/pg_type.h"
#include "utils/array.h"
#include "utils/memutils.h"
#include "windowapi.h"

#include "memory_budget.h"
#include "partition_rows.h"
#include "window_common.h"

/* The answer for one partition, in its partition-local memory. */
typedef struct SweepResult
{
	bool		done;
	int64		nrows;
	int			nvalues;
	int32	   *ids;			/* value k's ids at ids[k * nrows]; -1 = NULL */
} SweepResult;

/*
 * eps and the minpoints values from the partition's first row, checked as
 * gpu_dbscan checks them (tolerance, minpoints, NaN), each element as a
 * minpoints; an empty array is an error.
 */
static int64 *
read_sweep_parameters(WindowObject win, double *eps, int *nvalues)
{
	bool		eps_null;
	bool		isnull;
	Datum		d;
	Datum	   *elems = NULL;
	bool	   *nulls = NULL;
	int			n = 1;
	int64	   *values;
	int			i;

	d = WinGetFuncArgInPartition(win, 1, 0, WINDOW_SEEK_HEAD, false, &eps_null, NULL);
	*eps = eps_null ? 0 : DatumGetFloat8(d);
	param_check_eps(*eps, eps_null);

	d = WinGetFuncArgInPartition(win, 2, 0, WINDOW_SEEK_HEAD, false, &isnull, NULL);
	if (!isnull)
	{
		param_check_one_dimensional(ARR_NDIM(DatumGetArrayTypeP(d)), "gpu_dbscan_sweep", "minpoints");
		deconstruct_array(DatumGetArrayTypeP(d), INT4OID, sizeof(int32), true, TYPALIGN_INT,
						  &elems, &nulls, &n);
		if (n == 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("gpu_dbscan_sweep: minpoints must hold at least one value")));
	}
	values = palloc(n * sizeof(int64));
	for (i = 0; i < n; i++)
	{
		bool		null = isnull || nulls[i];
		int32		v = null ? 0 : DatumGetInt32(elems[i]);

		param_check_minpoints(v, null);
		values[i] = v;
	}
	param_check_eps_number(*eps);
	*nvalues = n;
	return values;
}

/* Clusters the current partition for every value into res. */
static void
sweep_partition(FunctionCallInfo fcinfo, WindowObject win, SweepResult *res)
{
	double		eps;
	int			nvalues;
	int64	   *values = read_sweep_parameters(win, &eps, &nvalues);
	int64		nrows = window_partition_rows(win);
	ClusterJob	job;

	res->ids = gd_alloc_charged(GetMemoryChunkContext(res),
								Max(nrows, 1) * nvalues * sizeof(int32), "the sweep's ids");
	memset(&job, 0, sizeof(job));
	job.eps = eps;
	job.minpoints = values;
	job.nminpoints = nvalues;
	job.ids = res->ids;
	window_cluster_job(fcinfo, win, nrows, &job);

	res->nrows = nrows;
	res->nvalues = nvalues;
	res->done = true;
}

PG_FUNCTION_INFO_V1(gpu_dbscan_sweep);

/* gpu_dbscan_sweep(geom, eps, minpoints int[]) OVER (...): see the file comment. */
Datum
gpu_dbscan_sweep(PG_FUNCTION_ARGS)
{
	WindowObject win = PG_WINDOW_OBJECT();
	SweepResult *res;
	int64		row;
	Datum	   *elems;
	bool	   *nulls;
	int			dims[1];
	int			lbs[1] = {1};
	int			k;

	res = (SweepResult *) WinGetPartitionLocalMemory(win, sizeof(SweepResult));
	if (!res->done)
		sweep_partition(fcinfo, win, res);

	row = WinGetCurrentPosition(win);
	if (row < 0 || row >= res->nrows)
		elog(ERROR, "gpu_dbscan_sweep: row %lld outside its partition of %lld rows",
			 (long long) row, (long long) res->nrows);
	elems = palloc(res->nvalues * sizeof(Datum));
	nulls = palloc(res->nvalues * sizeof(bool));
	for (k = 0; k < res->nvalues; k++)
	{
		int32		id = res->ids[k * res->nrows + row];

		elems[k] = Int32GetDatum(id);
		nulls[k] = id < 0;
	}
	dims[0] = res->nvalues;
	PG_RETURN_ARRAYTYPE_P(construct_md_array(elems, nulls, 1, dims, lbs, INT4OID,
											 sizeof(int32), true, TYPALIGN_INT));
}
