/*
 * window.c — the per-partition skeleton of every window function (see
 * window.h).
 */
#include "postgres.h"

#include <limits.h>

#include "catalog/pg_type.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "windowapi.h"

#include "cluster.h"
#include "memory_budget.h"
#include "params.h"
#include "progress.h"
#include "rows.h"
#include "window.h"

/* What a call site keeps across partitions (flinfo->fn_extra). */
typedef struct CallSite
{
	const char *name;			/* the function's name, for errors and progress */
	RowsInput	input;
	RowsFns		fns;
} CallSite;

/* What a window function keeps for its partition, in partition-local memory. */
typedef struct PartitionResult
{
	bool		done;
	int64		nrows;
	int			nvalues;		/* minpoints values (a sweep's); 1 otherwise */
	int32	   *ids;			/* value k's ids at ids[k * nrows]; -1 = NULL */
	uint8	   *types;			/* WINDOW_POINT_TYPE, _ID_CORE: gd_point_type or
								 * POINT_TYPE_NULL_ROW */
} PartitionResult;

/* The call site's cache, created on first use. */
static CallSite *
call_site(FunctionCallInfo fcinfo, bool point_z)
{
	CallSite   *site = (CallSite *) fcinfo->flinfo->fn_extra;

	if (site == NULL)
	{
		MemoryContext cxt = fcinfo->flinfo->fn_mcxt;
		Oid			type = get_fn_expr_argtype(fcinfo->flinfo, 0);
		char	   *name = get_func_name(fcinfo->flinfo->fn_oid);

		if (!OidIsValid(type))
			elog(ERROR, "gpu_dbscan: could not determine the type of the first argument");
		site = MemoryContextAllocZero(cxt, sizeof(CallSite));
		site->name = MemoryContextStrdup(cxt, name ? name : "gpu_dbscan");
		site->input = rows_input_of_type(type, point_z);
		rows_fns_init(&site->fns, type, cxt);
		fcinfo->flinfo->fn_extra = site;
	}
	return site;
}

/* The partition's row count, checked against what the window API can address. */
static int64
partition_row_count(WindowObject win)
{
	int64		nrows = WinGetPartitionRowCount(win);

	if (nrows > INT_MAX)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("gpu_dbscan: a window partition may hold at most %d rows", INT_MAX)));
	return nrows;
}

/*
 * Reads the first argument of every row into rows, in order, in a memory
 * context reset after each row (argument evaluation and detoasting happen
 * there), with a check for interrupts every few thousand rows.
 */
static void
read_rows(WindowObject win, int64 nrows, Rows *rows)
{
	MemoryContext scratch = NULL;
	MemoryContext old = CurrentMemoryContext;
	int64		row;

	if (nrows > GD_PROGRESS_MIN_ROWS)
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
		rows_add(rows, value, isnull);
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

/*
 * The partition's answer into res (whose memory holds it): parameters,
 * rows, then the form's job; runs in a short-lived memory context.
 */
static void
compute(WindowObject win, const CallSite *site, WindowForm form, int64 nrows,
		PartitionResult *res)
{
	MemoryContext keep = GetMemoryChunkContext(res);
	Params		params;
	ClusterJob	job;
	Rows		rows;

	memset(&job, 0, sizeof(job));
	res->nvalues = 1;
	if (form != WINDOW_READ_FLOOR)
	{
		params_read_window(win, form == WINDOW_SWEEP, site->name, &params);
		job.minpoints = params_check(&params, site->name);
		job.nminpoints = params.nminpoints;
		job.eps = params.eps[0];
		res->nvalues = params.nminpoints;
	}
	if (form == WINDOW_SWEEP)
		res->ids = gd_alloc_charged(keep, Max(nrows, 1) * res->nvalues * sizeof(int32),
									"the sweep's ids");
	if (form == WINDOW_IDS || form == WINDOW_ID_CORE)
		res->ids = MemoryContextAllocHuge(keep, Max(nrows, 1) * sizeof(int32));
	if (form == WINDOW_POINT_TYPE || form == WINDOW_ID_CORE)
		res->types = MemoryContextAllocHuge(keep, Max(nrows, 1));
	/* point types keep no ids */
	job.ids = res->ids ? res->ids :
		MemoryContextAllocHuge(CurrentMemoryContext, Max(nrows, 1) * sizeof(int32));
	job.types = res->types;

	rows_init(&rows, site->input, (RowsFns *) &site->fns, nrows, false, CurrentMemoryContext);
	read_rows(win, nrows, &rows);
	if (form != WINDOW_READ_FLOOR)
		cluster_rows(&rows, &job);
}

/* See window.h. */
const char *
window_point_type_name(uint8 type)
{
	switch (type)
	{
		case GD_POINT_CORE:
			return "core";
		case GD_POINT_BORDER:
			return "border";
		case GD_POINT_NOISE:
			return "noise";
		default:
			return NULL;
	}
}

/*
 * See window.h.  Laid out here rather than through construct_md_array,
 * which took a third of a 1M-row sweep's output in the fast path.
 */
Datum
window_sweep_array(const int32 *ids, int64 stride, int nvalues, MemoryContext cxt)
{
	int			nnull = 0;
	Size		overhead;
	ArrayType  *a;
	bits8	   *bitmap;
	int32	   *data;

	for (int k = 0; k < nvalues; k++)
		nnull += ids[k * stride] < 0;
	overhead = nnull ? ARR_OVERHEAD_WITHNULLS(1, nvalues) : ARR_OVERHEAD_NONULLS(1);
	a = MemoryContextAllocZero(cxt, overhead + (nvalues - nnull) * sizeof(int32));
	SET_VARSIZE(a, overhead + (nvalues - nnull) * sizeof(int32));
	a->ndim = 1;
	a->dataoffset = nnull ? (int32) overhead : 0;
	a->elemtype = INT4OID;
	ARR_DIMS(a)[0] = nvalues;
	ARR_LBOUND(a)[0] = 1;
	bitmap = ARR_NULLBITMAP(a);
	data = (int32 *) ARR_DATA_PTR(a);
	for (int k = 0; k < nvalues; k++)
	{
		int32		id = ids[k * stride];

		if (id < 0)
			continue;
		*data++ = id;
		if (bitmap)
			bitmap[k / 8] |= 1 << (k % 8);
	}
	return PointerGetDatum(a);
}

/* The current row's answer. */
static Datum
row_answer(FunctionCallInfo fcinfo, const PartitionResult *res, WindowForm form, int64 row)
{
	const char *type;

	switch (form)
	{
		case WINDOW_IDS:
			if (res->ids[row] < 0)
				PG_RETURN_NULL();
			PG_RETURN_INT32(res->ids[row]);
		case WINDOW_POINT_TYPE:
			if ((type = window_point_type_name(res->types[row])) == NULL)
				PG_RETURN_NULL();
			PG_RETURN_TEXT_P(cstring_to_text(type));
		case WINDOW_ID_CORE:
			if (res->ids[row] < 0)
				PG_RETURN_NULL();
			PG_RETURN_INT64(2 * (int64) res->ids[row] + (res->types[row] == GD_POINT_CORE));
		case WINDOW_SWEEP:
			return window_sweep_array(res->ids + row, res->nrows, res->nvalues,
									  CurrentMemoryContext);
		case WINDOW_READ_FLOOR:
			break;
	}
	PG_RETURN_INT32(0);
}

/* The body of every window function (see window.h). */
Datum
window_function(FunctionCallInfo fcinfo, WindowForm form, bool point_z)
{
	WindowObject win = PG_WINDOW_OBJECT();
	CallSite   *site = call_site(fcinfo, point_z);
	PartitionResult *res;
	int64		row;

	res = (PartitionResult *) WinGetPartitionLocalMemory(win, sizeof(PartitionResult));
	if (!res->done)
	{
		int64		nrows = partition_row_count(win);

		if (nrows <= GD_PROGRESS_MIN_ROWS)
			compute(win, site, form, nrows, res);
		else
		{
			MemoryContext work = AllocSetContextCreate(CurrentMemoryContext,
													   "gpu_dbscan partition",
													   ALLOCSET_DEFAULT_SIZES);
			MemoryContext old = MemoryContextSwitchTo(work);

			gd_progress_begin(site->name, nrows);
			compute(win, site, form, nrows, res);
			MemoryContextSwitchTo(old);
			MemoryContextDelete(work);
			gd_progress_end();
		}
		res->nrows = nrows;
		res->done = true;
	}

	row = WinGetCurrentPosition(win);
	if (row < 0 || row >= res->nrows)
		elog(ERROR, "%s: row %lld outside its partition of %lld rows",
			 site->name, (long long) row, (long long) res->nrows);
	return row_answer(fcinfo, res, form, row);
}
