/*
 * inscy.c — subspace clustering (GPU-INSCY's cluster model) as an aggregate:
 *
 *   gpu_inscy(features float8[], eps, mu, min_size, density_factor, redundancy
 *             ORDER BY ...) -> gpu_inscy_cluster[]
 *
 * Each element is (dims int[], members int[]): the subspace's 1-based column
 * positions and the cluster's 1-based row positions in the aggregate's input
 * order, both ascending; the array is sorted by dims (shorter first, then
 * lexicographically) and then by first member.  docs/subspace.md states the
 * definition; the core (core/gd_inscy.h) computes it, on the back end
 * gpu_dbscan.backend chooses (core_call.c).
 *
 * The transition function checks each row and appends it to a flat array of
 * doubles in the aggregate's memory, and keeps the first row's parameters
 * (every row must repeat them); the final function clusters the rows.
 */
#include "postgres.h"

#include <math.h>

#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "fmgr.h"
#include "funcapi.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/typcache.h"

#include "core_call.h"

typedef struct InscyState
{
	MemoryContext cxt;			/* the aggregate's memory: all of the state */
	gd_inscy_params params;		/* the first row's */
	int			d;				/* features per row, from the first row */
	int64		n;
	int64		cap;			/* rows rows can hold */
	double	   *rows;			/* n x d, row-major */
} InscyState;

/* The parameters of one row, checked. */
static gd_inscy_params
read_params(FunctionCallInfo fcinfo)
{
	gd_inscy_params p;
	static const char *const names[] = {"eps", "mu", "min_size", "density_factor", "redundancy"};
	int			i;

	for (i = 0; i < 5; i++)
		if (PG_ARGISNULL(i + 2))
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("gpu_inscy: %s must not be NULL", names[i])));
	p.eps = PG_GETARG_FLOAT8(2);
	p.mu = PG_GETARG_INT32(3);
	p.min_size = PG_GETARG_INT32(4);
	p.density_factor = PG_GETARG_FLOAT8(5);
	p.redundancy = PG_GETARG_FLOAT8(6);
	if (!(p.eps > 0) || isinf(p.eps))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("gpu_inscy: eps must be a positive finite number, not %g", p.eps)));
	if (p.mu < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("gpu_inscy: mu must be at least 1, not %lld", (long long) p.mu)));
	if (p.min_size < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("gpu_inscy: min_size must be at least 1, not %lld", (long long) p.min_size)));
	if (!(p.density_factor > 0) || isinf(p.density_factor))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("gpu_inscy: density_factor must be a positive finite number, not %g",
						p.density_factor)));
	if (!(p.redundancy > 0) || isinf(p.redundancy))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("gpu_inscy: redundancy must be a positive finite number, not %g",
						p.redundancy)));
	return p;
}

static bool
same_params(const gd_inscy_params *a, const gd_inscy_params *b)
{
	return a->eps == b->eps && a->mu == b->mu && a->min_size == b->min_size &&
		a->density_factor == b->density_factor && a->redundancy == b->redundancy;
}

/* Appends one row's features, checked, to the state. */
static void
append_row(InscyState *st, ArrayType *a)
{
	int			n = ArrayGetNItems(ARR_NDIM(a), ARR_DIMS(a));
	long long	row = (long long) st->n + 1;
	const double *v;
	int			k;

	if (ARR_ELEMTYPE(a) != FLOAT8OID)
		elog(ERROR, "gpu_inscy: expected float8[] features, got element type %u", ARR_ELEMTYPE(a));
	if (ARR_NDIM(a) > 1)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("gpu_inscy: features must be a one-dimensional array, not %d-dimensional",
						ARR_NDIM(a)),
				 errdetail("Row %lld of the aggregate's input.", row)));
	if (st->d == 0)
	{
		if (n < GD_INSCY_MIN_DIMS || n > GD_INSCY_MAX_DIMS)
			ereport(ERROR,
					(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
					 errmsg("gpu_inscy: features must have %d to %d values, not %d",
							GD_INSCY_MIN_DIMS, GD_INSCY_MAX_DIMS, n),
					 errdetail("Row %lld of the aggregate's input.", row)));
		st->d = n;
	}
	else if (n != st->d)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("gpu_inscy: row %lld has %d features, the first row has %d", row, n, st->d),
				 errhint("Every row must have the same number of features.")));
	if (ARR_HASNULL(a))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("gpu_inscy: features must not be NULL"),
				 errdetail("Row %lld of the aggregate's input has a NULL feature.", row)));
	v = (const double *) ARR_DATA_PTR(a);
	for (k = 0; k < n; k++)
		if (!isfinite(v[k]))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("gpu_inscy: feature %d of row %lld is NaN or infinite", k + 1, row)));
	if (st->n == st->cap)
	{
		int64		cap = st->cap ? st->cap * 2 : 1024;

		if (cap > (int64) PG_INT32_MAX)
			cap = PG_INT32_MAX;
		if (st->n >= cap)
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("gpu_inscy: at most %d rows are supported", PG_INT32_MAX)));
		st->rows = st->rows
			? repalloc_huge(st->rows, (Size) cap * st->d * sizeof(double))
			: MemoryContextAllocHuge(st->cxt, (Size) cap * st->d * sizeof(double));
		st->cap = cap;
	}
	memcpy(st->rows + st->n * st->d, v, sizeof(double) * n);
	st->n++;
}

PG_FUNCTION_INFO_V1(gpu_inscy_transfn);

/* gpu_inscy's transition function: checks the row and keeps it. */
Datum
gpu_inscy_transfn(PG_FUNCTION_ARGS)
{
	MemoryContext cxt;
	MemoryContext old;
	InscyState *st;
	gd_inscy_params p;

	if (!AggCheckCallContext(fcinfo, &cxt))
		elog(ERROR, "gpu_inscy_transfn called outside an aggregate");
	st = PG_ARGISNULL(0) ? NULL : (InscyState *) PG_GETARG_POINTER(0);
	p = read_params(fcinfo);
	if (st == NULL)
	{
		st = MemoryContextAllocZero(cxt, sizeof(InscyState));
		st->cxt = cxt;
		st->params = p;
	}
	else if (!same_params(&st->params, &p))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("gpu_inscy: the parameters must be the same in every row"),
				 errdetail("Row %lld differs from the first row.", (long long) st->n + 1)));
	if (PG_ARGISNULL(1))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("gpu_inscy: features must not be NULL"),
				 errdetail("Row %lld of the aggregate's input is NULL.", (long long) st->n + 1)));
	old = MemoryContextSwitchTo(cxt);
	append_row(st, PG_GETARG_ARRAYTYPE_P(1));
	MemoryContextSwitchTo(old);
	PG_RETURN_POINTER(st);
}

/* An int[] of count values, each plus one (0-based positions to 1-based). */
static Datum
one_based_array(const int32_t *values, int64 count, int32 add)
{
	Datum	   *d = palloc(sizeof(Datum) * Max(count, 1));
	int64		i;

	for (i = 0; i < count; i++)
		d[i] = Int32GetDatum(values[i] + add);
	return PointerGetDatum(construct_array(d, (int) count, INT4OID, sizeof(int32), true,
										   TYPALIGN_INT));
}

/* The clusters as gpu_inscy_cluster[] (element type elemtype). */
static Datum
result_array(const gd_inscy_result *res, Oid elemtype)
{
	TupleDesc	td = BlessTupleDesc(lookup_rowtype_tupdesc_copy(elemtype, -1));
	Datum	   *elems = palloc(sizeof(Datum) * Max(res->nclusters, 1));
	int16		typlen;
	bool		typbyval;
	char		typalign;
	int64		c;

	if (td->natts != 2)
		elog(ERROR, "gpu_inscy: gpu_inscy_cluster must have two attributes");
	for (c = 0; c < res->nclusters; c++)
	{
		const gd_inscy_cluster *cl = &res->clusters[c];
		int32_t		dims[GD_INSCY_MAX_DIMS];
		int			nd = 0;
		int			j;
		Datum		values[2];
		bool		nulls[2] = {false, false};

		for (j = 0; j < GD_INSCY_MAX_DIMS; j++)
			if (cl->dims >> j & 1)
				dims[nd++] = j;
		values[0] = one_based_array(dims, nd, 1);
		values[1] = one_based_array(res->members + cl->first, cl->size, 1);
		elems[c] = HeapTupleGetDatum(heap_form_tuple(td, values, nulls));
	}
	get_typlenbyvalalign(elemtype, &typlen, &typbyval, &typalign);
	return PointerGetDatum(construct_array(elems, (int) res->nclusters, elemtype, typlen, typbyval,
										   typalign));
}

PG_FUNCTION_INFO_V1(gpu_inscy_finalfn);

/* gpu_inscy's final function: the subspace clusters of the rows. */
Datum
gpu_inscy_finalfn(PG_FUNCTION_ARGS)
{
	InscyState *st = PG_ARGISNULL(0) ? NULL : (InscyState *) PG_GETARG_POINTER(0);
	Oid			arraytype = get_fn_expr_rettype(fcinfo->flinfo);
	Oid			elemtype = OidIsValid(arraytype) ? get_element_type(arraytype) : InvalidOid;
	gd_inscy_result res;
	Datum		out;

	if (!OidIsValid(elemtype))
		elog(ERROR, "gpu_inscy: cannot tell the result's element type");
	memset(&res, 0, sizeof(res));
	if (st == NULL || st->n == 0)
		return result_array(&res, elemtype);

	core_inscy(st->rows, st->n, st->d, &st->params, &res);
	PG_TRY();
	{
		out = result_array(&res, elemtype);
	}
	PG_FINALLY();
	{
		gd_inscy_result_free(&res);
	}
	PG_END_TRY();
	PG_RETURN_DATUM(out);
}
