/*
 * aggregates.c — gpu_dbscan as aggregates, over every input kind:
 *
 *   gpu_dbscan_agg(input, eps, minpoints) -> int[] (gpu_dbscan_agg_3d over
 *     POINT Z): each input row's cluster id (NULL for noise and NULL rows)
 *     in the aggregate's input order;
 *   gpu_dbscan_collect(geom, eps, minpoints) -> geometry[]: one
 *     GEOMETRYCOLLECTION per cluster (as ST_ClusterWithin returns them),
 *     noise left out;
 *   gpu_dbscan_params(input, eps[], minpoints[]) -> gpu_dbscan_params_row[]
 *     (gpu_dbscan_params_3d over POINT Z): for every (eps, minpoints) pair
 *     the number of clusters, the noise fraction and the largest cluster,
 *     from one sweep per eps.
 *
 * The transition function reads each row into a Rows container in the
 * aggregate's memory (the values too, for gpu_dbscan_collect) and keeps the
 * first row's eps and minpoints; the final function checks them as the
 * window functions do and clusters the rows in input order, with the same
 * ids as the window function over the same rows in the same order.  For
 * parallel aggregation, states are serialized to bytea and combined by
 * appending the second state's rows after the first's.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/typcache.h"

#include "aggregates.h"
#include "cluster.h"
#include "gserialized_points.h"
#include "memory_budget.h"
#include "params.h"
#include "progress.h"
#include "rows.h"

typedef struct DbscanState
{
	MemoryContext cxt;			/* the aggregate's memory: all of the state */
	RowsFns		fns;
	Rows		rows;
	bool		have_params;	/* the first row has been seen */
	Params		params;
} DbscanState;

/* The aggregate's memory context; an error outside an aggregate. */
static MemoryContext
aggregate_context(FunctionCallInfo fcinfo)
{
	MemoryContext cxt;

	if (!AggCheckCallContext(fcinfo, &cxt))
		elog(ERROR, "gpu_dbscan aggregate support function called outside an aggregate");
	return cxt;
}

static DbscanState *
new_state(MemoryContext cxt, Oid type, RowsInput input, bool keep_values)
{
	DbscanState *st = MemoryContextAllocZero(cxt, sizeof(DbscanState));

	st->cxt = cxt;
	rows_fns_init(&st->fns, type, cxt);
	rows_init(&st->rows, input, &st->fns, 1024, keep_values, cxt);
	return st;
}

/* The name of aggregate base over st's rows, for errors and progress. */
static const char *
agg_name(const DbscanState *st, const char *base)
{
	return st->rows.input == ROWS_POINT_Z ? psprintf("%s_3d", base) : base;
}

/*
 * The state after one more row: created at the first row (which also gives
 * the parameters, arrays of them when arrays), the row read and appended.
 */
static DbscanState *
transition(FunctionCallInfo fcinfo, const char *base, bool point_z, bool arrays, bool keep_values)
{
	MemoryContext cxt = aggregate_context(fcinfo);
	DbscanState *st;

	if (PG_ARGISNULL(0))
	{
		Oid			type = get_fn_expr_argtype(fcinfo->flinfo, 1);

		if (!OidIsValid(type))
			elog(ERROR, "gpu_dbscan: could not determine the type of the input argument");
		st = new_state(cxt, type, rows_input_of_type(type, point_z), keep_values);
	}
	else
		st = (DbscanState *) PG_GETARG_POINTER(0);

	if (!st->have_params)
	{
		params_read_args(fcinfo, arrays, agg_name(st, base), &st->params, st->cxt);
		st->have_params = true;
	}
	rows_add(&st->rows, PG_GETARG_DATUM(1), PG_ARGISNULL(1));
	return st;
}

PG_FUNCTION_INFO_V1(gpu_dbscan_agg_transfn);

/* Transition of gpu_dbscan_agg: (state, input, eps, minpoints). */
Datum
gpu_dbscan_agg_transfn(PG_FUNCTION_ARGS)
{
	PG_RETURN_POINTER(transition(fcinfo, "gpu_dbscan_agg", false, false, false));
}

PG_FUNCTION_INFO_V1(gpu_dbscan_agg_3d_transfn);

/* Transition of gpu_dbscan_agg_3d: (state, POINT Z, eps, minpoints). */
Datum
gpu_dbscan_agg_3d_transfn(PG_FUNCTION_ARGS)
{
	PG_RETURN_POINTER(transition(fcinfo, "gpu_dbscan_agg", true, false, false));
}

PG_FUNCTION_INFO_V1(gpu_dbscan_collect_transfn);

/* Transition of gpu_dbscan_collect: gpu_dbscan_agg's, keeping the values. */
Datum
gpu_dbscan_collect_transfn(PG_FUNCTION_ARGS)
{
	PG_RETURN_POINTER(transition(fcinfo, "gpu_dbscan_collect", false, false, true));
}

PG_FUNCTION_INFO_V1(gpu_dbscan_params_transfn);

/* Transition of gpu_dbscan_params: (state, input, eps[], minpoints[]). */
Datum
gpu_dbscan_params_transfn(PG_FUNCTION_ARGS)
{
	PG_RETURN_POINTER(transition(fcinfo, "gpu_dbscan_params", false, true, false));
}

PG_FUNCTION_INFO_V1(gpu_dbscan_params_3d_transfn);

/* Transition of gpu_dbscan_params_3d: (state, POINT Z, eps[], minpoints[]). */
Datum
gpu_dbscan_params_3d_transfn(PG_FUNCTION_ARGS)
{
	PG_RETURN_POINTER(transition(fcinfo, "gpu_dbscan_params", true, true, false));
}

PG_FUNCTION_INFO_V1(gpu_dbscan_agg_combinefn);

/*
 * Combines two partial states: the second's rows after the first's, the
 * first state's parameters (the second's when the first has none).
 */
Datum
gpu_dbscan_agg_combinefn(PG_FUNCTION_ARGS)
{
	MemoryContext cxt = aggregate_context(fcinfo);
	DbscanState *a = PG_ARGISNULL(0) ? NULL : (DbscanState *) PG_GETARG_POINTER(0);
	DbscanState *b = PG_ARGISNULL(1) ? NULL : (DbscanState *) PG_GETARG_POINTER(1);

	if (b == NULL)
	{
		if (a == NULL)
			PG_RETURN_NULL();
		PG_RETURN_POINTER(a);
	}
	if (a == NULL)
		a = new_state(cxt, b->fns.type, b->rows.input, b->rows.keep_values);
	rows_append(&a->rows, &b->rows);
	if (!a->have_params && b->have_params)
	{
		params_copy(&a->params, &b->params, a->cxt);
		a->have_params = true;
	}
	PG_RETURN_POINTER(a);
}

/* ---- serialization: the state as bytea between parallel workers ---- */

#define AGG_STATE_MAGIC 0x67644148	/* "HAdg" */

typedef struct SerialHeader
{
	uint32		magic;
	Oid			type;
	int32		input;
	bool		keep_values;
	bool		have_params;
	int32		neps;
	int32		nminpoints;
} SerialHeader;

/* The state's bytes at buf (NULL: only measured); returns their number. */
static Size
write_state(const DbscanState *st, char *buf)
{
	SerialHeader h;
	Size		pos = 0;

	memset(&h, 0, sizeof(h));
	h.magic = AGG_STATE_MAGIC;
	h.type = st->fns.type;
	h.input = st->rows.input;
	h.keep_values = st->rows.keep_values;
	h.have_params = st->have_params;
	h.neps = st->have_params ? st->params.neps : 0;
	h.nminpoints = st->have_params ? st->params.nminpoints : 0;
#define PUT(data, n) do { if (buf && (n) > 0) memcpy(buf + pos, (data), (n)); pos += (n); } while (0)
	PUT(&h, sizeof(h));
	PUT(st->params.eps, h.neps * sizeof(double));
	PUT(st->params.eps_null, h.neps * sizeof(bool));
	PUT(st->params.minpoints, h.nminpoints * sizeof(int32));
	PUT(st->params.minpoints_null, h.nminpoints * sizeof(bool));
#undef PUT
	rows_write(&st->rows, buf, &pos);
	return pos;
}

PG_FUNCTION_INFO_V1(gpu_dbscan_agg_serialfn);

/* The state as bytea. */
Datum
gpu_dbscan_agg_serialfn(PG_FUNCTION_ARGS)
{
	DbscanState *st;
	Size		len;
	bytea	   *out;

	aggregate_context(fcinfo);
	st = (DbscanState *) PG_GETARG_POINTER(0);
	len = write_state(st, NULL);
	if (len > MaxAllocSize - VARHDRSZ)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("gpu_dbscan: a partial aggregate state of %zu bytes is too large to pass between parallel workers",
						len),
				 errhint("Set max_parallel_workers_per_gather = 0 for this query.")));
	out = palloc(VARHDRSZ + len);
	SET_VARSIZE(out, VARHDRSZ + len);
	write_state(st, VARDATA(out));
	PG_RETURN_BYTEA_P(out);
}

/* n bytes of buf[*pos .. len) into data; an error past len. */
static void
get(const char *buf, Size *pos, Size len, void *data, Size n)
{
	if (*pos > len || n > len - *pos)
		elog(ERROR, "gpu_dbscan: corrupt aggregate state (%zu bytes at %zu of %zu)",
			 n, *pos, len);
	if (n > 0)
		memcpy(data, buf + *pos, n);
	*pos += n;
}

PG_FUNCTION_INFO_V1(gpu_dbscan_agg_deserialfn);

/* A state from its bytea, in the aggregate's memory. */
Datum
gpu_dbscan_agg_deserialfn(PG_FUNCTION_ARGS)
{
	MemoryContext cxt = aggregate_context(fcinfo);
	bytea	   *in = PG_GETARG_BYTEA_PP(0);
	const char *buf = VARDATA_ANY(in);
	Size		len = VARSIZE_ANY_EXHDR(in);
	Size		pos = 0;
	SerialHeader h;
	DbscanState *st;
	Params	   *p;

	get(buf, &pos, len, &h, sizeof(h));
	if (h.magic != AGG_STATE_MAGIC || h.neps < 0 || h.nminpoints < 0 ||
		h.input < ROWS_GEOMETRY || h.input > ROWS_GEOGRAPHY)
		elog(ERROR, "gpu_dbscan: corrupt aggregate state header");

	st = new_state(cxt, h.type, (RowsInput) h.input, h.keep_values);
	st->have_params = h.have_params;
	p = &st->params;
	p->neps = h.neps;
	p->nminpoints = h.nminpoints;
	p->eps = MemoryContextAlloc(cxt, Max(h.neps, 1) * sizeof(double));
	p->eps_null = MemoryContextAlloc(cxt, Max(h.neps, 1) * sizeof(bool));
	p->minpoints = MemoryContextAlloc(cxt, Max(h.nminpoints, 1) * sizeof(int32));
	p->minpoints_null = MemoryContextAlloc(cxt, Max(h.nminpoints, 1) * sizeof(bool));
	get(buf, &pos, len, p->eps, h.neps * sizeof(double));
	get(buf, &pos, len, p->eps_null, h.neps * sizeof(bool));
	get(buf, &pos, len, p->minpoints, h.nminpoints * sizeof(int32));
	get(buf, &pos, len, p->minpoints_null, h.nminpoints * sizeof(bool));
	rows_read(&st->rows, buf, &pos, len);
	if (pos != len)
		elog(ERROR, "gpu_dbscan: corrupt aggregate state (%zu bytes left over)", len - pos);
	PG_RETURN_POINTER(st);
}

/* ---- final functions ---- */

/* ids[nminpoints * nrows] of rows at eps, in a memory context of its own. */
static void
cluster_in_context(const Rows *rows, double eps, const int64 *minpoints, int nminpoints,
				   int32 *ids)
{
	MemoryContext work = AllocSetContextCreate(CurrentMemoryContext, "gpu_dbscan aggregate",
											   ALLOCSET_DEFAULT_SIZES);
	MemoryContext old = MemoryContextSwitchTo(work);
	ClusterJob	job;

	memset(&job, 0, sizeof(job));
	job.eps = eps;
	job.minpoints = minpoints;
	job.nminpoints = nminpoints;
	job.ids = ids;
	cluster_rows(rows, &job);
	MemoryContextSwitchTo(old);
	MemoryContextDelete(work);
}

/* st's ids for its one eps and minpoints. */
static int32 *
state_ids(DbscanState *st, const char *fn)
{
	int64	   *minpoints = params_check(&st->params, fn);
	int32	   *ids = MemoryContextAllocHuge(CurrentMemoryContext,
											 Max(st->rows.nrows, 1) * sizeof(int32));

	/* the rows were read by the transition function: progress from here */
	if (st->rows.nrows > GD_PROGRESS_MIN_ROWS)
	{
		gd_progress_begin(fn, st->rows.nrows);
		gd_progress_rows(st->rows.nrows);
	}
	cluster_in_context(&st->rows, st->params.eps[0], minpoints, 1, ids);
	gd_progress_end();
	return ids;
}

PG_FUNCTION_INFO_V1(gpu_dbscan_agg_finalfn);

/* gpu_dbscan_agg (and _3d): int[] of the ids in input order, NULL for noise. */
Datum
gpu_dbscan_agg_finalfn(PG_FUNCTION_ARGS)
{
	DbscanState *st;
	const char *fn;
	int32	   *ids;
	Datum	   *elems;
	bool	   *nulls;
	int			dims[1];
	int			lbs[1] = {1};
	int64		i;

	aggregate_context(fcinfo);
	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	st = (DbscanState *) PG_GETARG_POINTER(0);
	fn = agg_name(st, "gpu_dbscan_agg");
	if (st->rows.nrows > MaxArraySize)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s: %lld rows do not fit in one array (at most %d)",
						fn, (long long) st->rows.nrows, (int) MaxArraySize)));
	ids = state_ids(st, fn);

	elems = MemoryContextAllocHuge(CurrentMemoryContext, Max(st->rows.nrows, 1) * sizeof(Datum));
	nulls = MemoryContextAllocHuge(CurrentMemoryContext, Max(st->rows.nrows, 1) * sizeof(bool));
	for (i = 0; i < st->rows.nrows; i++)
	{
		elems[i] = Int32GetDatum(ids[i]);
		nulls[i] = ids[i] < 0;
	}
	dims[0] = (int) st->rows.nrows;
	PG_RETURN_ARRAYTYPE_P(construct_md_array(elems, nulls, 1, dims, lbs, INT4OID,
											 sizeof(int32), true, TYPALIGN_INT));
}

/* PostGIS's st_collect(geometry[]) and st_forcecollection(geometry) (see aggregates.h). */
void
collect_fns_init(CollectFns *fns, Oid geometry_type, MemoryContext cxt)
{
	Oid			array_type = get_array_type(geometry_type);

	if (!OidIsValid(array_type))
		elog(ERROR, "gpu_dbscan: type %u has no array type", geometry_type);
	memset(fns, 0, sizeof(*fns));
	fns->geometry_type = geometry_type;
	get_typlenbyvalalign(geometry_type, &fns->typlen, &fns->typbyval, &fns->typalign);
	postgis_lookup_function(geometry_type, "st_collect", 1, &array_type, &fns->collect, cxt);
	postgis_lookup_function(geometry_type, "st_forcecollection", 1, &geometry_type,
							&fns->force_collection, cxt);
}

static CollectFns *
collect_fns(FunctionCallInfo fcinfo, Oid geometry_type)
{
	CollectFns *fns = (CollectFns *) fcinfo->flinfo->fn_extra;

	if (fns == NULL || fns->geometry_type != geometry_type)
	{
		MemoryContext cxt = fcinfo->flinfo->fn_mcxt;

		fns = MemoryContextAllocZero(cxt, sizeof(CollectFns));
		collect_fns_init(fns, geometry_type, cxt);
		fcinfo->flinfo->fn_extra = fns;
	}
	return fns;
}

/*
 * PostGIS collects only geometries of the same coordinate dimensions (its
 * error is an internal one, XX000): member i of cluster c (rows[] its input
 * rows, 0-based) must have those of member 0.
 */
static void
check_same_dims(const Datum *members, int64 i, const int64 *rows, int32 c)
{
	int			first = gserialized_dims(members[0]);
	int			dims = gserialized_dims(members[i]);

	if (dims != first)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("gpu_dbscan_collect: cluster %d holds geometries of different dimensions", c),
				 errdetail("Input row %lld is %s, input row %lld is %s.",
						   (long long) rows[0] + 1, gserialized_dims_name(first),
						   (long long) rows[i] + 1, gserialized_dims_name(dims)),
				 errhint("PostGIS collects only geometries of the same dimensions: "
						 "make them agree (ST_Force2D, ST_Force3DZ, ...) before clustering.")));
}

/* gpu_dbscan_collect's result from the ids of n rows (see aggregates.h). */
Datum
collect_clusters(CollectFns *fns, const int32 *ids, int64 n,
				 Datum (*value_of) (void *arg, int64 row), void *arg)
{
	int32		k = 0;
	int64	   *start;
	int64	   *order;
	Datum	   *clusters;
	int64		i;
	int32		c;

	/* rows by cluster (a counting sort keeps input order within a cluster) */
	for (i = 0; i < n; i++)
		k = Max(k, ids[i] + 1);
	if (k == 0)
		return PointerGetDatum(construct_empty_array(fns->geometry_type));
	start = palloc0((k + 1) * sizeof(int64));
	for (i = 0; i < n; i++)
		if (ids[i] >= 0)
			start[ids[i] + 1]++;
	for (c = 0; c < k; c++)
		start[c + 1] += start[c];
	order = MemoryContextAllocHuge(CurrentMemoryContext, Max(start[k], 1) * sizeof(int64));
	{
		int64	   *fill = palloc(k * sizeof(int64));

		memcpy(fill, start, k * sizeof(int64));
		for (i = 0; i < n; i++)
			if (ids[i] >= 0)
				order[fill[ids[i]]++] = i;
		pfree(fill);
	}

	clusters = palloc(k * sizeof(Datum));
	for (c = 0; c < k; c++)
	{
		int64		size = start[c + 1] - start[c];
		Datum	   *members = MemoryContextAllocHuge(CurrentMemoryContext, size * sizeof(Datum));
		ArrayType  *arr;

		CHECK_FOR_INTERRUPTS();
		for (i = 0; i < size; i++)
		{
			members[i] = value_of(arg, order[start[c] + i]);
			check_same_dims(members, i, order + start[c], c);
		}
		arr = construct_array(members, (int) size, fns->geometry_type, fns->typlen,
							  fns->typbyval, fns->typalign);
		clusters[c] = FunctionCall1(&fns->force_collection,
									FunctionCall1(&fns->collect, PointerGetDatum(arr)));
		pfree(members);
		pfree(arr);
	}
	return PointerGetDatum(construct_array(clusters, k, fns->geometry_type, fns->typlen,
										   fns->typbyval, fns->typalign));
}

/* A row's kept value (collect_clusters's value_of over a state). */
static Datum
state_value(void *arg, int64 row)
{
	return ((DbscanState *) arg)->rows.value[row];
}

PG_FUNCTION_INFO_V1(gpu_dbscan_collect_finalfn);

/*
 * gpu_dbscan_collect: geometry[] with one GEOMETRYCOLLECTION per cluster, in
 * id order, each holding its rows' geometries in input order (PostGIS's
 * st_collect, then st_forcecollection so that points come back as a
 * collection, as ST_ClusterWithin gives them); noise is left out.
 */
Datum
gpu_dbscan_collect_finalfn(PG_FUNCTION_ARGS)
{
	DbscanState *st;
	CollectFns *fns;
	int32	   *ids;

	aggregate_context(fcinfo);
	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	st = (DbscanState *) PG_GETARG_POINTER(0);
	fns = collect_fns(fcinfo, st->fns.type);
	ids = state_ids(st, "gpu_dbscan_collect");
	PG_RETURN_DATUM(collect_clusters(fns, ids, st->rows.nrows, state_value, st));
}

/*
 * gpu_dbscan_params's result over rows (see aggregates.h): for each eps (in
 * the order given), one sweep over every minpoints value (in the order
 * given), and for each pair a row (eps, minpoints, clusters,
 * noise_fraction, largest_cluster): the number of clusters, the share of
 * rows with a geometry that are noise (NULL when no row has one), and the
 * rows of the largest cluster.
 */
Datum
params_summary(const Rows *rows, const Params *params, const char *fn, Oid row_type)
{
	int64	   *minpoints = params_check(params, fn);
	TupleDesc	tupdesc;
	int64		n = rows->nrows;
	int64		with_geometry = 0;
	MemoryContext ids_cxt;
	int32	   *ids;
	int64	   *sizes;
	Datum	   *out;
	int			nout = 0;
	int			e;
	int			m;
	int64		i;

	for (i = 0; i < n; i++)
		with_geometry += rows->kind[i] != GD_ROW_NULL;

	if (!OidIsValid(row_type))
		elog(ERROR, "gpu_dbscan_params: return type must be an array of a row type");
	tupdesc = lookup_rowtype_tupdesc_copy(row_type, -1);
	if (tupdesc->natts != 5)
		elog(ERROR, "gpu_dbscan_params: return row type must have 5 columns");

	/* rows x values ids, charged to the memory ledger until ids_cxt goes */
	ids_cxt = AllocSetContextCreate(CurrentMemoryContext, "gpu_dbscan_params ids",
									ALLOCSET_SMALL_SIZES);
	ids = gd_alloc_charged(ids_cxt, Max(n, 1) * params->nminpoints * sizeof(int32),
						   "gpu_dbscan_params's ids");
	sizes = MemoryContextAllocHuge(CurrentMemoryContext, Max(n, 1) * sizeof(int64));
	/* one row per pair: their number in 64 bits (two int counts can pass INT_MAX) */
	if ((int64) params->neps * params->nminpoints > (int64) (MaxAllocSize / sizeof(Datum)))
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("gpu_dbscan_params: too many (eps, minpoints) pairs"),
				 errdetail("%d eps values times %d minpoints values is more than %lld rows.",
						   params->neps, params->nminpoints,
						   (long long) (MaxAllocSize / sizeof(Datum)))));
	out = palloc((Size) params->neps * params->nminpoints * sizeof(Datum));
	for (e = 0; e < params->neps; e++)
	{
		cluster_in_context(rows, params->eps[e], minpoints, params->nminpoints, ids);
		for (m = 0; m < params->nminpoints; m++)
		{
			const int32 *v = ids + m * n;
			int32		k = 0;
			int64		noise = 0;
			int64		largest = 0;
			Datum		values[5];
			bool		nulls[5] = {false, false, false, false, false};

			memset(sizes, 0, Max(n, 1) * sizeof(int64));
			for (i = 0; i < n; i++)
			{
				if (v[i] >= 0)
				{
					int64		size = ++sizes[v[i]];

					k = Max(k, v[i] + 1);
					largest = Max(largest, size);
				}
				else if (rows->kind[i] != GD_ROW_NULL)
					noise++;
			}
			values[0] = Float8GetDatum(params->eps[e]);
			values[1] = Int32GetDatum((int32) minpoints[m]);
			values[2] = Int32GetDatum(k);
			if (with_geometry > 0)
				values[3] = Float8GetDatum((double) noise / (double) with_geometry);
			else
				nulls[3] = true;
			values[4] = Int32GetDatum((int32) largest);
			out[nout++] = HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls));
		}
	}
	MemoryContextDelete(ids_cxt);
	return PointerGetDatum(construct_array(out, nout, row_type, -1, false, TYPALIGN_DOUBLE));
}

PG_FUNCTION_INFO_V1(gpu_dbscan_params_finalfn);

/* gpu_dbscan_params: params_summary over the state's rows. */
Datum
gpu_dbscan_params_finalfn(PG_FUNCTION_ARGS)
{
	DbscanState *st;

	aggregate_context(fcinfo);
	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	st = (DbscanState *) PG_GETARG_POINTER(0);
	PG_RETURN_DATUM(params_summary(&st->rows, &st->params, agg_name(st, "gpu_dbscan_params"),
								   get_element_type(get_fn_expr_rettype(fcinfo->flinfo))));
}
