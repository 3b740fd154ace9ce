/*
 * aggregate.c — gpu_dbscan as aggregates:
 *
 *   gpu_dbscan_agg(geom, eps, minpoints) -> int[]: each input row's cluster
 *     id (NULL for noise and NULL geometries) in the aggregate's input order;
 *   gpu_dbscan_collect(geom, eps, minpoints) -> geometry[]: one
 *     GEOMETRYCOLLECTION per cluster (as ST_ClusterWithin returns them),
 *     noise left out;
 *   gpu_dbscan_params(geom, eps[], minpoints[]) -> gpu_dbscan_params_row[]:
 *     for every (eps, minpoints) pair the number of clusters, the noise
 *     fraction and the largest cluster, from one sweep per eps.
 *
 * The transition function decodes each row into a PartitionRows in the
 * aggregate's memory (the geometry values too, for gpu_dbscan_collect) and
 * keeps the first row's eps and minpoints; the final function checks them
 * as the window function does and clusters the rows in input order, with
 * the same ids as gpu_dbscan over the same rows in the same order.  For
 * parallel aggregation, states are serialized to bytea and combined by
 * appending the second state's rows after the first's.
 */
#include "gd_core.h"			/* before postgres.h: see core_bridge.h */

#include "postgres.h"

#include <math.h>

#include "access/htup_details.h"
#include "miscadmin.h"
#include "catalog/pg_type.h"
#include "funcapi.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/typcache.h"

#include "memory_budget.h"

#include "gserialized_points.h"
#include "partition_rows.h"
#include "postgis_fn.h"
#include "progress.h"
#include "window_common.h"

/* The first row's eps and minpoints: one value each, or the arrays. */
typedef struct AggParams
{
	bool		have;			/* the first row has been seen */
	int			neps;
	double	   *eps;
	bool	   *eps_null;
	int			nminpoints;
	int32	   *minpoints;
	bool	   *minpoints_null;
} AggParams;

typedef struct DbscanAggState
{
	MemoryContext cxt;			/* the aggregate's memory: all of the state */
	Oid			geometry_type;
	PostgisFns	fns;
	PartitionRows rows;
	bool		keep_geoms;		/* gpu_dbscan_collect: every row's value */
	Datum	   *geoms;			/* per row, 0 for NULL; rows.cap long */
	int64		geoms_cap;
	AggParams	params;
} DbscanAggState;

/* The aggregate's memory context; an error outside an aggregate. */
static MemoryContext
aggregate_context(FunctionCallInfo fcinfo)
{
	MemoryContext cxt;

	if (!AggCheckCallContext(fcinfo, &cxt))
		elog(ERROR, "gpu_dbscan aggregate support function called outside an aggregate");
	return cxt;
}

static DbscanAggState *
new_state(MemoryContext cxt, Oid geometry_type, bool keep_geoms)
{
	DbscanAggState   *st = MemoryContextAllocZero(cxt, sizeof(DbscanAggState));

	st->cxt = cxt;
	st->geometry_type = geometry_type;
	st->keep_geoms = keep_geoms;
	postgis_fns_init(&st->fns, geometry_type, cxt);
	partition_rows_init(&st->rows, 1024, cxt);
	return st;
}

/* Keeps value (a copy, or 0 for NULL) as row's geometry. */
static void
set_geometry(DbscanAggState *st, int64 row, Datum value, bool isnull)
{
	if (row >= st->geoms_cap)
	{
		int64		cap = Max(st->rows.cap, row + 1);

		st->geoms = st->geoms == NULL ?
			MemoryContextAllocHuge(st->cxt, cap * sizeof(Datum)) :
			repalloc_huge(st->geoms, cap * sizeof(Datum));
		st->geoms_cap = cap;
	}
	if (isnull)
		st->geoms[row] = (Datum) 0;
	else
	{
		MemoryContext old = MemoryContextSwitchTo(st->cxt);

		st->geoms[row] = PointerGetDatum(PG_DETOAST_DATUM_COPY(value));
		MemoryContextSwitchTo(old);
	}
}

/*
 * The state after one more row: created at the first row (which also gives
 * the parameters, through read_params), the row decoded and appended.
 */
static DbscanAggState *
transition(FunctionCallInfo fcinfo, bool keep_geoms,
		   void (*read_params) (FunctionCallInfo fcinfo, AggParams *params, MemoryContext cxt))
{
	MemoryContext cxt = aggregate_context(fcinfo);
	DbscanAggState   *st;
	Datum		value = PG_GETARG_DATUM(1);
	bool		isnull = PG_ARGISNULL(1);

	if (PG_ARGISNULL(0))
	{
		Oid			geometry_type = get_fn_expr_argtype(fcinfo->flinfo, 1);

		if (!OidIsValid(geometry_type))
			elog(ERROR, "gpu_dbscan: could not determine the type of the geometry argument");
		st = new_state(cxt, geometry_type, keep_geoms);
	}
	else
		st = (DbscanAggState *) PG_GETARG_POINTER(0);

	if (!st->params.have)
	{
		read_params(fcinfo, &st->params, st->cxt);
		st->params.have = true;
	}
	partition_rows_add(&st->rows, &st->fns, value, isnull);
	if (st->keep_geoms)
		set_geometry(st, st->rows.nrows - 1, value, isnull);
	return st;
}

/* eps float8 and minpoints int: one value each, NULL kept as NULL. */
static void
read_scalar_params(FunctionCallInfo fcinfo, AggParams *params, MemoryContext cxt)
{
	params->neps = 1;
	params->eps = MemoryContextAllocZero(cxt, sizeof(double));
	params->eps_null = MemoryContextAllocZero(cxt, sizeof(bool));
	params->eps_null[0] = PG_ARGISNULL(2);
	if (!PG_ARGISNULL(2))
		params->eps[0] = PG_GETARG_FLOAT8(2);

	params->nminpoints = 1;
	params->minpoints = MemoryContextAllocZero(cxt, sizeof(int32));
	params->minpoints_null = MemoryContextAllocZero(cxt, sizeof(bool));
	params->minpoints_null[0] = PG_ARGISNULL(3);
	if (!PG_ARGISNULL(3))
		params->minpoints[0] = PG_GETARG_INT32(3);
}

/*
 * The elements of array argument argno (float8[] or int[]), in storage
 * order, copied into cxt; a NULL array reads as one NULL element.
 */
static int
read_array_arg(FunctionCallInfo fcinfo, int argno, Oid elemtype, void **values, bool **nulls,
			   MemoryContext cxt)
{
	size_t		width = elemtype == FLOAT8OID ? sizeof(double) : sizeof(int32);
	ArrayType  *a;
	Datum	   *elems;
	bool	   *elem_nulls;
	int			n;
	int			i;

	if (PG_ARGISNULL(argno))
	{
		*values = MemoryContextAllocZero(cxt, width);
		*nulls = MemoryContextAllocZero(cxt, sizeof(bool));
		(*nulls)[0] = true;
		return 1;
	}
	a = PG_GETARG_ARRAYTYPE_P(argno);
	if (ARR_ELEMTYPE(a) != elemtype)
		elog(ERROR, "gpu_dbscan: unexpected array element type %u", ARR_ELEMTYPE(a));
	param_check_one_dimensional(ARR_NDIM(a), "gpu_dbscan_params",
								elemtype == FLOAT8OID ? "eps" : "minpoints");
	deconstruct_array(a, elemtype, elemtype == FLOAT8OID ? 8 : 4, elemtype == FLOAT8OID ?
					  FLOAT8PASSBYVAL : true, elemtype == FLOAT8OID ? TYPALIGN_DOUBLE :
					  TYPALIGN_INT, &elems, &elem_nulls, &n);
	*values = MemoryContextAllocZero(cxt, Max(n, 1) * width);
	*nulls = MemoryContextAllocZero(cxt, Max(n, 1) * sizeof(bool));
	for (i = 0; i < n; i++)
	{
		(*nulls)[i] = elem_nulls[i];
		if (elem_nulls[i])
			continue;
		if (elemtype == FLOAT8OID)
			((double *) *values)[i] = DatumGetFloat8(elems[i]);
		else
			((int32 *) *values)[i] = DatumGetInt32(elems[i]);
	}
	return n;
}

/* eps float8[] and minpoints int[]. */
static void
read_array_params(FunctionCallInfo fcinfo, AggParams *params, MemoryContext cxt)
{
	params->neps = read_array_arg(fcinfo, 2, FLOAT8OID, (void **) &params->eps,
								  &params->eps_null, cxt);
	params->nminpoints = read_array_arg(fcinfo, 3, INT4OID, (void **) &params->minpoints,
										&params->minpoints_null, cxt);
}

/*
 * Checks the parameters as gpu_dbscan does (same messages, same order:
 * tolerance, minpoints, NaN) and returns the minpoints values as int64.
 */
static int64 *
checked_params(const AggParams *params, const char *fn)
{
	int64	   *minpoints;
	int			i;

	if (params->neps == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: eps must hold at least one value", fn)));
	if (params->nminpoints == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: minpoints must hold at least one value", fn)));
	for (i = 0; i < params->neps; i++)
		param_check_eps(params->eps[i], params->eps_null[i]);
	minpoints = palloc(params->nminpoints * sizeof(int64));
	for (i = 0; i < params->nminpoints; i++)
	{
		param_check_minpoints(params->minpoints[i], params->minpoints_null[i]);
		minpoints[i] = params->minpoints[i];
	}
	for (i = 0; i < params->neps; i++)
		param_check_eps_number(params->eps[i]);
	return minpoints;
}

/* ids[nminpoints * nrows] of st's rows at eps, in a memory context of its own. */
static void
cluster_state(DbscanAggState *st, double eps, const int64 *minpoints, int nminpoints, int32 *ids)
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
	cluster_rows(&st->fns, &st->rows, &job);
	MemoryContextSwitchTo(old);
	MemoryContextDelete(work);
}

/* st's ids for its one eps and minpoints. */
static int32 *
state_ids(DbscanAggState *st, const char *fn)
{
	int64	   *minpoints = checked_params(&st->params, fn);
	int32	   *ids = MemoryContextAllocHuge(CurrentMemoryContext,
											 Max(st->rows.nrows, 1) * sizeof(int32));

	/* the rows were read by the transition function: progress from here */
	if (st->rows.nrows > WINDOW_SMALL_PARTITION_ROWS)
	{
		gd_progress_begin(fn, st->rows.nrows);
		gd_progress_rows(st->rows.nrows);
	}
	cluster_state(st, st->params.eps[0], minpoints, 1, ids);
	gd_progress_end();
	return ids;
}

PG_FUNCTION_INFO_V1(gpu_dbscan_agg_transfn);

/* Transition of gpu_dbscan_agg and gpu_dbscan_collect's rows: (state, geom, eps, minpoints). */
Datum
gpu_dbscan_agg_transfn(PG_FUNCTION_ARGS)
{
	PG_RETURN_POINTER(transition(fcinfo, false, read_scalar_params));
}

PG_FUNCTION_INFO_V1(gpu_dbscan_collect_transfn);

/* Transition of gpu_dbscan_collect: gpu_dbscan_agg's, keeping the values. */
Datum
gpu_dbscan_collect_transfn(PG_FUNCTION_ARGS)
{
	PG_RETURN_POINTER(transition(fcinfo, true, read_scalar_params));
}

PG_FUNCTION_INFO_V1(gpu_dbscan_params_transfn);

/* Transition of gpu_dbscan_params: (state, geom, eps[], minpoints[]). */
Datum
gpu_dbscan_params_transfn(PG_FUNCTION_ARGS)
{
	PG_RETURN_POINTER(transition(fcinfo, false, read_array_params));
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
	DbscanAggState   *a = PG_ARGISNULL(0) ? NULL : (DbscanAggState *) PG_GETARG_POINTER(0);
	DbscanAggState   *b = PG_ARGISNULL(1) ? NULL : (DbscanAggState *) PG_GETARG_POINTER(1);
	int64		base;
	int64		i;

	if (b == NULL)
	{
		if (a == NULL)
			PG_RETURN_NULL();
		PG_RETURN_POINTER(a);
	}
	if (a == NULL)
		a = new_state(cxt, b->geometry_type, b->keep_geoms);

	base = a->rows.nrows;
	partition_rows_append(&a->rows, &b->rows);
	if (a->keep_geoms)
		for (i = 0; i < b->rows.nrows; i++)
			set_geometry(a, base + i, b->geoms[i], b->geoms[i] == (Datum) 0);
	if (!a->params.have && b->params.have)
	{
		MemoryContext old = MemoryContextSwitchTo(a->cxt);
		AggParams  *p = &a->params;

		*p = b->params;
		p->eps = palloc(Max(p->neps, 1) * sizeof(double));
		p->eps_null = palloc(Max(p->neps, 1) * sizeof(bool));
		p->minpoints = palloc(Max(p->nminpoints, 1) * sizeof(int32));
		p->minpoints_null = palloc(Max(p->nminpoints, 1) * sizeof(bool));
		memcpy(p->eps, b->params.eps, p->neps * sizeof(double));
		memcpy(p->eps_null, b->params.eps_null, p->neps * sizeof(bool));
		memcpy(p->minpoints, b->params.minpoints, p->nminpoints * sizeof(int32));
		memcpy(p->minpoints_null, b->params.minpoints_null, p->nminpoints * sizeof(bool));
		MemoryContextSwitchTo(old);
	}
	PG_RETURN_POINTER(a);
}

/* ---- serialization: the state as bytea between parallel workers ---- */

#define AGG_STATE_MAGIC 0x67644147	/* "GAdg" */

typedef struct SerialHeader
{
	uint32		magic;
	Oid			geometry_type;
	bool		keep_geoms;
	bool		have_params;
	SridCheck	srids;
	int64		nrows;
	int64		npoints;
	int64		nother;
	int32		neps;
	int32		nminpoints;
} SerialHeader;

/* A write (buf non-NULL) or size (buf NULL) cursor. */
typedef struct Cursor
{
	char	   *buf;
	Size		pos;
	Size		len;			/* reading: the bytes available */
} Cursor;

static void
put(Cursor *c, const void *data, Size n)
{
	if (c->buf && n > 0)
		memcpy(c->buf + c->pos, data, n);
	c->pos += n;
}

static void
get(Cursor *c, void *data, Size n)
{
	if (n > c->len - c->pos || c->pos > c->len)
		elog(ERROR, "gpu_dbscan: corrupt aggregate state (%zu bytes at %zu of %zu)",
			 n, c->pos, c->len);
	if (n > 0)
		memcpy(data, c->buf + c->pos, n);
	c->pos += n;
}

/* A geometry value as its length and bytes. */
static void
put_geometry(Cursor *c, Datum value)
{
	uint32		n = value == (Datum) 0 ? 0 : VARSIZE(DatumGetPointer(value));

	put(c, &n, sizeof(n));
	if (n > 0)
		put(c, DatumGetPointer(value), n);
}

static Datum
get_geometry(Cursor *c, MemoryContext cxt)
{
	uint32		n;
	void	   *copy;

	get(c, &n, sizeof(n));
	if (n == 0)
		return (Datum) 0;
	copy = MemoryContextAllocHuge(cxt, n);
	get(c, copy, n);
	if (VARSIZE(copy) != n)
		elog(ERROR, "gpu_dbscan: corrupt aggregate state (geometry of %u bytes)", n);
	return PointerGetDatum(copy);
}

/* Everything of st through c: to measure, then to write. */
static void
put_state(Cursor *c, const DbscanAggState *st)
{
	const PartitionRows *r = &st->rows;
	SerialHeader h;
	int64		i;

	memset(&h, 0, sizeof(h));
	h.magic = AGG_STATE_MAGIC;
	h.geometry_type = st->geometry_type;
	h.keep_geoms = st->keep_geoms;
	h.have_params = st->params.have;
	h.srids = r->srids;
	h.nrows = r->nrows;
	h.npoints = r->npoints;
	h.nother = r->nother;
	h.neps = st->params.neps;
	h.nminpoints = st->params.nminpoints;
	put(c, &h, sizeof(h));
	put(c, st->params.eps, h.neps * sizeof(double));
	put(c, st->params.eps_null, h.neps * sizeof(bool));
	put(c, st->params.minpoints, h.nminpoints * sizeof(int32));
	put(c, st->params.minpoints_null, h.nminpoints * sizeof(bool));
	put(c, r->kind, r->nrows * sizeof(uint8));
	put(c, r->x, r->nrows * sizeof(double));
	put(c, r->y, r->nrows * sizeof(double));
	put(c, r->other_row, r->nother * sizeof(int64));
	put(c, r->other_box, r->nother * sizeof(gd_box));
	for (i = 0; i < r->nother; i++)
		put_geometry(c, r->other_geom[i]);
	if (st->keep_geoms)
		for (i = 0; i < r->nrows; i++)
			put_geometry(c, st->geoms[i]);
}

PG_FUNCTION_INFO_V1(gpu_dbscan_agg_serialfn);

/* The state as bytea. */
Datum
gpu_dbscan_agg_serialfn(PG_FUNCTION_ARGS)
{
	DbscanAggState   *st;
	Cursor		c = {NULL, 0, 0};
	bytea	   *out;

	aggregate_context(fcinfo);
	st = (DbscanAggState *) PG_GETARG_POINTER(0);
	put_state(&c, st);
	if (c.pos > MaxAllocSize - VARHDRSZ)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("gpu_dbscan: a partial aggregate state of %zu bytes is too large to pass between parallel workers",
						c.pos),
				 errhint("Set max_parallel_workers_per_gather = 0 for this query.")));
	out = palloc(VARHDRSZ + c.pos);
	SET_VARSIZE(out, VARHDRSZ + c.pos);
	c.buf = VARDATA(out);
	c.pos = 0;
	put_state(&c, st);
	PG_RETURN_BYTEA_P(out);
}

PG_FUNCTION_INFO_V1(gpu_dbscan_agg_deserialfn);

/* A state from its bytea, in the aggregate's memory. */
Datum
gpu_dbscan_agg_deserialfn(PG_FUNCTION_ARGS)
{
	MemoryContext cxt = aggregate_context(fcinfo);
	bytea	   *in = PG_GETARG_BYTEA_PP(0);
	Cursor		c = {VARDATA_ANY(in), 0, VARSIZE_ANY_EXHDR(in)};
	SerialHeader h;
	DbscanAggState   *st;
	PartitionRows *r;
	MemoryContext old;
	int64		i;

	get(&c, &h, sizeof(h));
	if (h.magic != AGG_STATE_MAGIC || h.nrows < 0 || h.nother < 0 || h.nother > h.nrows ||
		h.neps < 0 || h.nminpoints < 0)
		elog(ERROR, "gpu_dbscan: corrupt aggregate state header");

	st = new_state(cxt, h.geometry_type, h.keep_geoms);
	r = &st->rows;
	old = MemoryContextSwitchTo(cxt);
	st->params.have = h.have_params;
	st->params.neps = h.neps;
	st->params.nminpoints = h.nminpoints;
	st->params.eps = palloc(Max(h.neps, 1) * sizeof(double));
	st->params.eps_null = palloc(Max(h.neps, 1) * sizeof(bool));
	st->params.minpoints = palloc(Max(h.nminpoints, 1) * sizeof(int32));
	st->params.minpoints_null = palloc(Max(h.nminpoints, 1) * sizeof(bool));
	MemoryContextSwitchTo(old);
	get(&c, st->params.eps, h.neps * sizeof(double));
	get(&c, st->params.eps_null, h.neps * sizeof(bool));
	get(&c, st->params.minpoints, h.nminpoints * sizeof(int32));
	get(&c, st->params.minpoints_null, h.nminpoints * sizeof(bool));

	partition_rows_init(r, h.nrows, cxt);
	r->srids = h.srids;
	r->nrows = h.nrows;
	r->npoints = h.npoints;
	get(&c, r->kind, h.nrows * sizeof(uint8));
	get(&c, r->x, h.nrows * sizeof(double));
	get(&c, r->y, h.nrows * sizeof(double));
	if (h.nother > 0)
	{
		r->other_cap = h.nother;
		r->other_row = MemoryContextAllocHuge(cxt, h.nother * sizeof(int64));
		r->other_box = MemoryContextAllocHuge(cxt, h.nother * sizeof(gd_box));
		r->other_geom = MemoryContextAllocHuge(cxt, h.nother * sizeof(Datum));
		get(&c, r->other_row, h.nother * sizeof(int64));
		get(&c, r->other_box, h.nother * sizeof(gd_box));
		for (i = 0; i < h.nother; i++)
			r->other_geom[i] = get_geometry(&c, cxt);
		r->nother = h.nother;
	}
	if (h.keep_geoms)
	{
		st->geoms = MemoryContextAllocHuge(cxt, Max(h.nrows, 1) * sizeof(Datum));
		st->geoms_cap = Max(h.nrows, 1);
		for (i = 0; i < h.nrows; i++)
			st->geoms[i] = get_geometry(&c, cxt);
	}
	if (c.pos != c.len)
		elog(ERROR, "gpu_dbscan: corrupt aggregate state (%zu bytes left over)", c.len - c.pos);
	PG_RETURN_POINTER(st);
}

/* ---- final functions ---- */

PG_FUNCTION_INFO_V1(gpu_dbscan_agg_finalfn);

/* gpu_dbscan_agg: int[] of the ids in input order, NULL for noise. */
Datum
gpu_dbscan_agg_finalfn(PG_FUNCTION_ARGS)
{
	DbscanAggState   *st;
	int32	   *ids;
	Datum	   *elems;
	bool	   *nulls;
	int			dims[1];
	int			lbs[1] = {1};
	int64		i;

	aggregate_context(fcinfo);
	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	st = (DbscanAggState *) PG_GETARG_POINTER(0);
	if (st->rows.nrows > MaxArraySize)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("gpu_dbscan_agg: %lld rows do not fit in one array (at most %d)",
						(long long) st->rows.nrows, (int) MaxArraySize)));
	ids = state_ids(st, "gpu_dbscan_agg");

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

/* PostGIS's st_collect(geometry[]) and st_forcecollection(geometry). */
typedef struct CollectFns
{
	Oid			geometry_type;
	int16		typlen;
	bool		typbyval;
	char		typalign;
	FmgrInfo	collect;
	FmgrInfo	force_collection;
} CollectFns;

static CollectFns *
collect_fns(FunctionCallInfo fcinfo, Oid geometry_type)
{
	CollectFns *fns = (CollectFns *) fcinfo->flinfo->fn_extra;

	if (fns == NULL || fns->geometry_type != geometry_type)
	{
		MemoryContext cxt = fcinfo->flinfo->fn_mcxt;
		Oid			array_type = get_array_type(geometry_type);

		if (!OidIsValid(array_type))
			elog(ERROR, "gpu_dbscan: type %u has no array type", geometry_type);
		fns = MemoryContextAllocZero(cxt, sizeof(CollectFns));
		fns->geometry_type = geometry_type;
		get_typlenbyvalalign(geometry_type, &fns->typlen, &fns->typbyval, &fns->typalign);
		postgis_lookup_function(geometry_type, "st_collect", 1, &array_type, &fns->collect, cxt);
		postgis_lookup_function(geometry_type, "st_forcecollection", 1, &geometry_type,
								&fns->force_collection, cxt);
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
	DbscanAggState   *st;
	CollectFns *fns;
	int32	   *ids;
	int64		n;
	int32		k = 0;
	int64	   *start;
	int64	   *order;
	Datum	   *clusters;
	int64		i;
	int32		c;

	aggregate_context(fcinfo);
	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	st = (DbscanAggState *) PG_GETARG_POINTER(0);
	fns = collect_fns(fcinfo, st->geometry_type);
	ids = state_ids(st, "gpu_dbscan_collect");
	n = st->rows.nrows;

	/* rows by cluster (a counting sort keeps input order within a cluster) */
	for (i = 0; i < n; i++)
		k = Max(k, ids[i] + 1);
	if (k == 0)
		PG_RETURN_ARRAYTYPE_P(construct_empty_array(st->geometry_type));
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
			members[i] = st->geoms[order[start[c] + i]];
			check_same_dims(members, i, order + start[c], c);
		}
		arr = construct_array(members, (int) size, st->geometry_type, fns->typlen,
							  fns->typbyval, fns->typalign);
		clusters[c] = FunctionCall1(&fns->force_collection,
									FunctionCall1(&fns->collect, PointerGetDatum(arr)));
		pfree(members);
		pfree(arr);
	}
	PG_RETURN_ARRAYTYPE_P(construct_array(clusters, k, st->geometry_type, fns->typlen,
										  fns->typbyval, fns->typalign));
}

PG_FUNCTION_INFO_V1(gpu_dbscan_params_finalfn);

/*
 * gpu_dbscan_params: for each eps (in the order given), one sweep over every
 * minpoints value (in the order given), and for each pair a row (eps,
 * minpoints, clusters, noise_fraction, largest_cluster): the number of
 * clusters, the share of rows with a geometry that are noise (NULL when no
 * row has one), and the rows of the largest cluster.
 */
Datum
gpu_dbscan_params_finalfn(PG_FUNCTION_ARGS)
{
	DbscanAggState   *st;
	int64	   *minpoints;
	Oid			row_type;
	TupleDesc	tupdesc;
	int64		n;
	int64		with_geometry = 0;
	MemoryContext ids_cxt;
	int32	   *ids;
	int64	   *sizes;
	Datum	   *out;
	int			nout = 0;
	int			e;
	int			m;
	int64		i;

	aggregate_context(fcinfo);
	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	st = (DbscanAggState *) PG_GETARG_POINTER(0);
	minpoints = checked_params(&st->params, "gpu_dbscan_params");
	n = st->rows.nrows;
	for (i = 0; i < n; i++)
		with_geometry += st->rows.kind[i] != GD_ROW_NULL;

	row_type = get_element_type(get_fn_expr_rettype(fcinfo->flinfo));
	if (!OidIsValid(row_type))
		elog(ERROR, "gpu_dbscan_params: return type must be an array of a row type");
	tupdesc = lookup_rowtype_tupdesc_copy(row_type, -1);
	if (tupdesc->natts != 5)
		elog(ERROR, "gpu_dbscan_params: return row type must have 5 columns");

	/* rows x values ids, charged to the memory ledger until ids_cxt goes */
	ids_cxt = AllocSetContextCreate(CurrentMemoryContext, "gpu_dbscan_params ids",
									ALLOCSET_SMALL_SIZES);
	ids = gd_alloc_charged(ids_cxt, Max(n, 1) * st->params.nminpoints * sizeof(int32),
						   "gpu_dbscan_params's ids");
	sizes = MemoryContextAllocHuge(CurrentMemoryContext, Max(n, 1) * sizeof(int64));
	/* one row per pair: their number in 64 bits (two int counts can pass INT_MAX) */
	if ((int64) st->params.neps * st->params.nminpoints > (int64) (MaxAllocSize / sizeof(Datum)))
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("gpu_dbscan_params: too many (eps, minpoints) pairs"),
				 errdetail("%d eps values times %d minpoints values is more than %lld rows.",
						   st->params.neps, st->params.nminpoints,
						   (long long) (MaxAllocSize / sizeof(Datum)))));
	out = palloc((Size) st->params.neps * st->params.nminpoints * sizeof(Datum));
	for (e = 0; e < st->params.neps; e++)
	{
		cluster_state(st, st->params.eps[e], minpoints, st->params.nminpoints, ids);
		for (m = 0; m < st->params.nminpoints; m++)
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
				else if (st->rows.kind[i] != GD_ROW_NULL)
					noise++;
			}
			values[0] = Float8GetDatum(st->params.eps[e]);
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
	PG_RETURN_ARRAYTYPE_P(construct_array(out, nout, row_type, -1, false, TYPALIGN_DOUBLE));
}
