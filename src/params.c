/*
 * params.c — eps and minpoints, read and checked (see params.h).
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "utils/array.h"

#include "params.h"

/* An array parameter must be one-dimensional (its elements would be read flattened). */
static void
check_one_dimensional(ArrayType *a, const char *fn, const char *what)
{
	if (ARR_NDIM(a) > 1)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("%s: %s must be a one-dimensional array, not %d-dimensional",
						fn, what, ARR_NDIM(a))));
}

/*
 * The values of one parameter (float8 or int4 elemtype) into *values and
 * *nulls in cxt: the scalar d, or the elements of the array d when array; a
 * NULL is one NULL value.
 */
static int
read_param(Datum d, bool isnull, bool array, Oid elemtype, const char *fn, const char *what,
		   void **values, bool **nulls, MemoryContext cxt)
{
	size_t		width = elemtype == FLOAT8OID ? sizeof(double) : sizeof(int32);
	Datum	   *elems = &d;
	bool	   *elem_nulls = &isnull;
	int			n = 1;
	int			i;

	if (array && !isnull)
	{
		ArrayType  *a = DatumGetArrayTypeP(d);

		if (ARR_ELEMTYPE(a) != elemtype)
			elog(ERROR, "gpu_dbscan: unexpected array element type %u", ARR_ELEMTYPE(a));
		check_one_dimensional(a, fn, what);
		deconstruct_array(a, elemtype, (int) width, elemtype == FLOAT8OID ? FLOAT8PASSBYVAL : true,
						  elemtype == FLOAT8OID ? TYPALIGN_DOUBLE : TYPALIGN_INT,
						  &elems, &elem_nulls, &n);
	}
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

/* eps and minpoints from the partition's first row (see params.h). */
void
params_read_window(WindowObject win, bool minpoints_array, const char *fn, Params *params)
{
	bool		isnull;
	Datum		d;

	d = WinGetFuncArgInPartition(win, 1, 0, WINDOW_SEEK_HEAD, false, &isnull, NULL);
	params->neps = read_param(d, isnull, false, FLOAT8OID, fn, "eps",
							  (void **) &params->eps, &params->eps_null, CurrentMemoryContext);
	d = WinGetFuncArgInPartition(win, 2, 0, WINDOW_SEEK_HEAD, false, &isnull, NULL);
	params->nminpoints = read_param(d, isnull, minpoints_array, INT4OID, fn, "minpoints",
									(void **) &params->minpoints, &params->minpoints_null,
									CurrentMemoryContext);
}

/* eps and minpoints of an aggregate's row (see params.h). */
void
params_read_args(FunctionCallInfo fcinfo, bool arrays, const char *fn, Params *params,
				 MemoryContext cxt)
{
	params_read_values(PG_GETARG_DATUM(2), PG_ARGISNULL(2), PG_GETARG_DATUM(3), PG_ARGISNULL(3),
					   arrays, arrays, fn, params, cxt);
}

/* eps and minpoints from their values (see params.h). */
void
params_read_values(Datum eps, bool eps_null, Datum minpoints, bool minpoints_null,
				   bool eps_array, bool minpoints_array, const char *fn, Params *params,
				   MemoryContext cxt)
{
	params->neps = read_param(eps, eps_null, eps_array, FLOAT8OID, fn, "eps",
							  (void **) &params->eps, &params->eps_null, cxt);
	params->nminpoints = read_param(minpoints, minpoints_null, minpoints_array, INT4OID, fn,
									"minpoints", (void **) &params->minpoints,
									&params->minpoints_null, cxt);
}

/* A copy of src in cxt (see params.h). */
void
params_copy(Params *dst, const Params *src, MemoryContext cxt)
{
	*dst = *src;
	dst->eps = MemoryContextAlloc(cxt, Max(src->neps, 1) * sizeof(double));
	dst->eps_null = MemoryContextAlloc(cxt, Max(src->neps, 1) * sizeof(bool));
	dst->minpoints = MemoryContextAlloc(cxt, Max(src->nminpoints, 1) * sizeof(int32));
	dst->minpoints_null = MemoryContextAlloc(cxt, Max(src->nminpoints, 1) * sizeof(bool));
	memcpy(dst->eps, src->eps, src->neps * sizeof(double));
	memcpy(dst->eps_null, src->eps_null, src->neps * sizeof(bool));
	memcpy(dst->minpoints, src->minpoints, src->nminpoints * sizeof(int32));
	memcpy(dst->minpoints_null, src->minpoints_null, src->nminpoints * sizeof(bool));
}

/* An empty parameter array is an error. */
static void
check_not_empty(int n, const char *fn, const char *what)
{
	if (n == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: %s must hold at least one value", fn, what)));
}

/* Checks params as ST_ClusterDBSCAN does (see params.h). */
int64 *
params_check(const Params *params, const char *fn)
{
	int64	   *minpoints;
	int			i;

	check_not_empty(params->neps, fn, "eps");
	for (i = 0; i < params->neps; i++)
		if (params->eps_null[i] || params->eps[i] < 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("Tolerance must be a positive number")));
	check_not_empty(params->nminpoints, fn, "minpoints");
	minpoints = palloc(params->nminpoints * sizeof(int64));
	for (i = 0; i < params->nminpoints; i++)
	{
		if (params->minpoints_null[i] || params->minpoints[i] < 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("Minpoints must be a positive number")));
		minpoints[i] = params->minpoints[i];
	}
	for (i = 0; i < params->neps; i++)
		if (isnan(params->eps[i]))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("Tolerance must be a number, not NaN")));
	return minpoints;
}
