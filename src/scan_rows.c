/*
 * scan_rows.c — the rows of a parallel read as a Rows container, and their
 * checks (see scan_rows.h).
 */
#include "postgres.h"

#include "access/table.h"
#include "access/tableam.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "utils/memutils.h"

#include "gpu_worker.h"
#include "gserialized_points.h"
#include "memory_budget.h"
#include "prefault.h"
#include "scan_rows.h"

/* Rows of a partition from which its copy is made in memory shared with the GPU worker. */
#define SHARE_MIN_ROWS 65536

/* f on the read's relation (see scan_rows.h). */
void
scan_fetch_open(ScanFetch *f, const ScanRequest *req, ExprState *geom_state,
				ExprContext *econtext)
{
	f->rel = table_open(req->relid, AccessShareLock);
	f->tslot = table_slot_create(f->rel, NULL);
	f->snapshot = req->snapshot;
	f->geom_attno = req->geom_attno;
	f->geom_state = geom_state;
	f->geom_econtext = econtext;
}

void
scan_fetch_close(ScanFetch *f)
{
	ExecDropSingleTupleTableSlot(f->tslot);
	table_close(f->rel, NoLock);
}

/* The value of the row at tid (see scan_rows.h). */
Datum
scan_fetch_value(ScanFetch *f, const ItemPointerData *tid)
{
	ItemPointerData t = *tid;
	bool		isnull;
	Datum		value;

	if (!table_tuple_fetch_row_version(f->rel, &t, f->snapshot, f->tslot))
		elog(ERROR, "gpu_dbscan: could not fetch a row of the fast path again");
	if (f->geom_state)
	{
		ResetExprContext(f->geom_econtext);
		f->geom_econtext->ecxt_scantuple = f->tslot;
		value = ExecEvalExprSwitchContext(f->geom_state, f->geom_econtext, &isnull);
	}
	else
		value = slot_getattr(f->tslot, f->geom_attno, &isnull);
	if (isnull)
		elog(ERROR, "gpu_dbscan: a row of the fast path changed between reads");
	return PointerGetDatum(PG_DETOAST_DATUM_COPY(value));
}

/* Whether the read's rows must be points or EMPTY (POINT Z, geography). */
static inline bool
scan_points_only(const ScanResult *res)
{
	return res->geography || (!res->read_array && res->ncoords == 3);
}

/* The checks rows_add makes of a decoded value of the read's input kind. */
static void
scan_check_value(const ScanResult *res, SridCheck *srids, int64 row, const GeomInfo *g)
{
	if (res->geography)
		rows_check_geography(srids, row, g);
	else if (res->ncoords == 3)
		rows_check_point_z(srids, row, g);
	else
		rows_check_geometry(srids, row, g);
}

/* rows_add's checks of one row (see scan_rows.h). */
void
scan_check_row(ScanFetch *f, const ScanResult *res, RowsFns *fns, SridCheck *srids,
			   DimsCheck *dims, int64 slot, int64 row)
{
	uint8		kind = res->kind[slot];
	GeomInfo	g;

	if ((kind & SCAN_ROW_KIND_MASK) == GEOM_NULL)
		return;
	if (res->read_array)
	{
		Datum		value;

		/* a point of the read's count where it is the first's; else the array again */
		if (!(kind & SCAN_ROW_BAD) && (dims->dims == 0 || dims->dims == res->ncoords))
		{
			if (dims->dims == 0)
			{
				dims->dims = res->ncoords;
				dims->row = row;
			}
			return;
		}
		value = scan_fetch_value(f, &res->tid[slot]);	/* detoasted */
		(void) rows_check_array(dims, row, value);
		pfree(DatumGetPointer(value));	/* a group's every row may come here */
		return;
	}
	/*
	 * A value marked bad, or a non-point where only points may be (POINT Z,
	 * geography), gets its checks again from the value itself; any other row
	 * the checks of what the read found.
	 */
	memset(&g, 0, sizeof(g));
	if ((kind & SCAN_ROW_BAD) ||
		(scan_points_only(res) && (kind & SCAN_ROW_KIND_MASK) == GEOM_OTHER))
	{
		Datum		value = scan_fetch_value(f, &res->tid[slot]);

		if (res->geography)
			gserialized_decode_geography(value, &g);
		else
			gserialized_decode(value, res->ncoords == 3 ? NULL : &fns->geometry, &g);
		scan_check_value(res, srids, row, &g);
		elog(ERROR, "gpu_dbscan: a row of the fast path changed between reads");
	}
	g.kind = (GeomKind) (kind & SCAN_ROW_KIND_MASK);
	g.has_z = true;				/* POINT Z: the read kept it */
	g.finite = true;
	g.srid = scan_row_srid(res, slot);
	scan_check_value(res, srids, row, &g);
}

/*
 * A partition of float8[] rows, one of them flagged: every row fetched again
 * and read as the window function reads it (rows_add: its coordinate count,
 * which may be another than the read's, and its errors, in the partition's
 * order).  The read's TIDs are every row's (need_tids).
 */
static void
rows_read_again(Rows *rows, RowsFns *fns, const ScanResult *res, const uint32 *slots,
				int64 b, int64 e, ScanFetch *f)
{
	MemoryContext row_cxt = AllocSetContextCreate(CurrentMemoryContext, "gpu_dbscan row",
												  ALLOCSET_SMALL_SIZES);

	rows_init(rows, ROWS_ARRAY, fns, e - b, false, CurrentMemoryContext);
	for (int64 p = b; p < e; p++)
	{
		int64		s = slots ? (int64) slots[p] : p;
		MemoryContext old;

		CHECK_FOR_INTERRUPTS();
		if ((res->kind[s] & SCAN_ROW_KIND_MASK) == GEOM_NULL)
		{
			rows_add(rows, (Datum) 0, true);
			continue;
		}
		old = MemoryContextSwitchTo(row_cxt);
		rows_add(rows, scan_fetch_value(f, &res->tid[s]), false);
		MemoryContextSwitchTo(old);
		MemoryContextReset(row_cxt);
	}
	MemoryContextDelete(row_cxt);
}

/* Rows over the read's rows at slots[b .. e) (see scan_rows.h). */
void
scan_rows_build(Rows *rows, RowsFns *fns, const ScanResult *res, const uint32 *slots,
				int64 b, int64 e, ScanFetch *f, bool check)
{
	int64		n = e - b;
	int64		nkind[SCAN_ROW_KIND_MASK + 1] = {0};
	int64		nflagged = 0;
	int64		p;
	bool		point_z = !res->read_array && !res->geography && res->ncoords == 3;
	bool		points_only = scan_points_only(res);	/* any other row an error */
	double	   *const *src = res->coord;	/* the read's coordinates */
	int			dims = res->ncoords;
	int			d;
	bool		in_place = false;

	if (res->read_array)
	{
		for (p = b; p < e; p++)
			if (res->kind[slots ? (int64) slots[p] : p] & SCAN_ROW_FLAGS)
			{
				rows_read_again(rows, fns, res, slots, b, e, f);
				return;
			}
	}
	memset(rows, 0, sizeof(*rows));
	rows->input = res->read_array ? ROWS_ARRAY : point_z ? ROWS_POINT_Z :
		res->geography ? ROWS_GEOGRAPHY : ROWS_GEOMETRY;
	rows->fns = fns;
	rows->cxt = CurrentMemoryContext;
	rows->nrows = rows->cap = n;
	rows->dims = dims;
	/* the reader's flags must not reach the core: in place only without them */
	if (slots == NULL)
	{
		for (p = 0; p < n; p++)
			if (res->kind[b + p] & SCAN_ROW_FLAGS)
				break;
		in_place = p == n;
	}
	if (in_place)
	{
		rows->kind = res->kind + b;
		for (d = 0; d < dims; d++)
			rows->coord[d] = src[d] + b;
	}
	else
	{
		/* a big partition's copy where the GPU worker reads it in place */
		Size		bytes = n * (dims * sizeof(double) + sizeof(uint8));
		char	   *shared;

		gd_charge_with(rows->cxt, bytes, "a partition's rows");
		shared = res->share_with_gpu && n >= SHARE_MIN_ROWS ?
			gd_gpu_worker_alloc_in(rows->cxt, bytes) : NULL;

		for (d = 0; d < dims; d++)
		{
			rows->coord[d] = shared ? (double *) shared + d * n :
				MemoryContextAllocHuge(rows->cxt, Max(n, 1) * sizeof(double));
			prefault_write(rows->coord[d], n * sizeof(double));
		}
		rows->kind = shared ? (uint8 *) ((double *) shared + dims * n) :
			MemoryContextAllocHuge(rows->cxt, Max(n, 1) * sizeof(uint8));
		prefault_write(rows->kind, n * sizeof(uint8));
		for (p = 0; p < n; p++)
		{
			int64		s = slots ? (int64) slots[b + p] : b + p;

			if ((p & 0xFFFF) == 0)
				CHECK_FOR_INTERRUPTS();
			rows->kind[p] = res->kind[s];
			for (d = 0; d < dims; d++)
				rows->coord[d][p] = src[d][s];
		}
	}
	for (p = 0; p < n; p++)
	{
		uint8		k = rows->kind[p];

		nkind[k & SCAN_ROW_KIND_MASK]++;
		/* POINT Z, geography: a non-point is an error, which the checks below raise */
		nflagged += (k & SCAN_ROW_FLAGS) != 0 ||
			(points_only && (k & SCAN_ROW_KIND_MASK) == GEOM_OTHER);
	}
	if (check && nflagged > 0)
	{
		/* a bad value or another SRID: the checks row by row, in this order */
		for (p = 0; p < n; p++)
		{
			if ((p & 0xFFFF) == 0)
				CHECK_FOR_INTERRUPTS();
			scan_check_row(f, res, fns, &rows->srids, NULL, slots ? (int64) slots[b + p] : b + p, p);
		}
	}
	else if (nkind[GEOM_NULL] < n && !res->read_array)
	{
		/*
		 * Checked before (a group of the aggregates), or no row flagged: every
		 * non-NULL row has the first's SRID, what the checks would find (and
		 * geography's sphere)
		 */
		for (p = 0; (rows->kind[p] & SCAN_ROW_KIND_MASK) == GEOM_NULL; p++)
			;
		rows->srids.have = true;
		rows->srids.srid = scan_row_srid(res, slots ? (int64) slots[b + p] : b + p);
		rows->srids.row = p;
	}
	if (nflagged > 0)
		for (p = 0; p < n; p++)
			rows->kind[p] &= SCAN_ROW_KIND_MASK;
	rows->npoints = nkind[GEOM_POINT];
	rows->nother = nkind[GEOM_OTHER];
	if (res->read_array)
		for (rows->dims_row = 0; rows->dims_row < n &&
			 rows->kind[rows->dims_row] == GEOM_NULL; rows->dims_row++)
			;					/* the first point's row: the partition's count */
	if (points_only && rows->nother > 0)
		elog(ERROR, "gpu_dbscan: POINT Z or geography rows of the fast path left unchecked");
	if (rows->nother > 0)
	{
		int64		k = 0;

		rows->other_cap = rows->nother;
		rows->other_row = MemoryContextAllocHuge(rows->cxt, rows->nother * sizeof(int64));
		rows->other_box = MemoryContextAllocHuge(rows->cxt, rows->nother * sizeof(gd_box));
		rows->other_geom = MemoryContextAllocHuge(rows->cxt, rows->nother * sizeof(Datum));
		for (p = 0; p < n; p++)
		{
			GeomInfo	g;
			Datum		value;

			if (rows->kind[p] != GEOM_OTHER)
				continue;
			CHECK_FOR_INTERRUPTS();
			value = scan_fetch_value(f, &res->tid[slots ? slots[b + p] : b + p]);
			memset(&g, 0, sizeof(g));
			gserialized_decode(value, &fns->geometry, &g);
			rows_set_other(rows, k++, p, &g, value);
		}
	}
}
