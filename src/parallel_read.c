/*
 * parallel_read.c — a table's points read by parallel workers into shared
 * memory (see parallel_read.h).
 *
 * The leader sizes the arrays from the relation's size estimate
 * (estimate_rel_size, what the planner uses; with quals, from twice the
 * planner's estimate of the rows they keep where that is fewer), creates one DSM segment for
 * them beside the ParallelContext's own (so that they outlive the parallel
 * context: the leader leaves parallel mode before it emits rows, and a query
 * above it may write), launches the workers and scans with them, as
 * PostgreSQL's parallel B-tree build does.  Each participant claims slots in
 * blocks of SCAN_CLAIM and records runs: (first heap block, first slot,
 * rows) for rows of consecutive blocks in consecutive slots.  A block's rows
 * are all read by one participant, in line-pointer order, so the runs sorted
 * by block give the heap order.  Synchronized scanning is off, so the order
 * starts at block 0 whatever other scans do.
 *
 * When the estimate was short (stale statistics), participants stop storing
 * but go on counting, and the leader scans again with arrays of the counted
 * size: growth costs a second scan, never a copy of what was read.
 *
 * Each participant populates the pages of the slots it claims in one call
 * (prefault.h) before it writes them.  With share_with_gpu, the arrays the
 * caller gets (the read's own, or the copy in heap order) are in a DSM
 * segment shared with the GPU worker (gpu_worker.h), which then clusters
 * them in place instead of getting a copy.  The read's common SRID is the
 * first one a participant stores (a compare-and-swap); rows with another
 * are marked and keep theirs.
 */
#include "postgres.h"

#include "gd_core.h"

#include <math.h>
#include <sys/mman.h>
#include <unistd.h>

#include "access/parallel.h"
#include "access/relscan.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "catalog/pg_type.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "optimizer/planmain.h"
#include "optimizer/plancat.h"
#include "port/atomics.h"
#include "storage/bufmgr.h"
#include "utils/array.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "gpu_worker.h"
#include "gserialized_points.h"
#include "memory_budget.h"
#include "parallel_read.h"
#include "prefault.h"
#include "shm_room.h"

PGDLLEXPORT void gd_parallel_read_main(dsm_segment *seg, shm_toc *toc);

/* Rows parallel_read_array_dims looks at for a non-NULL value. */
#define ARRAY_DIMS_PEEK 1000

/* Slots a participant claims at a time. */
#define SCAN_CLAIM 4096

/* The keys of the parallel context's table of contents. */
#define KEY_SHARED UINT64CONST(0xD85CA0000001)
#define KEY_PSCAN UINT64CONST(0xD85CA0000002)
#define KEY_QUALS UINT64CONST(0xD85CA0000003)

/* Rows of consecutive heap blocks in consecutive slots. */
typedef struct ScanRun
{
	BlockNumber block;			/* the first row's block */
	uint64		start;			/* the first row's slot */
	uint64		count;
} ScanRun;

/* What the participants share: the request, the sizes, the counters. */
typedef struct ScanShared
{
	Oid			relid;
	AttrNumber	geom_attno;
	int			ncolumns;
	AttrNumber	columns[SCAN_MAX_COLUMNS];
	bool		need_tids;
	int			ncoords;		/* 2, 3 (read_z) or array_dims */
	bool		read_array;		/* geom_attno is a float8[] column */
	bool		geography;		/* geography values */
	dsm_handle	data_handle;	/* the arrays' segment */
	uint64		capacity;		/* slots */
	uint64		runs_capacity;
	pg_atomic_uint64 next_slot; /* the next unclaimed slot */
	pg_atomic_uint64 nruns;
	pg_atomic_uint64 nseen;		/* rows that passed the quals, stored or not */
	pg_atomic_uint32 overflow;	/* a participant found no room */
	pg_atomic_uint64 srid;		/* 0, or SRID_SET | the common SRID (uint32) */
} ScanShared;

#define SRID_SET (UINT64CONST(1) << 32)

/* The arrays in one allocation (a DSM segment or palloc'd memory). */
typedef struct ScanArrays
{
	dsm_segment *segment;		/* NULL: palloc'd, from kind on */
	uint8	   *kind;
	double	   *coord[GD_ND_MAX_DIMS];	/* the first ncoords */
	int32	   *odd_srid;
	ItemPointerData *tid;
	Datum	   *values[SCAN_MAX_COLUMNS];
	bool	   *isnull[SCAN_MAX_COLUMNS];
	ScanRun    *runs;
	GdCharge   *charge;			/* palloc'd: its charge (a segment's goes with it) */
} ScanArrays;

/* Lays the arrays out from base (NULL: only counts); returns the bytes they take. */
static Size
layout_arrays(const ScanShared *sh, char *base, ScanArrays *a)
{
	Size		off = 0;
	uint64		n = sh->capacity;
	int			c;

#define PLACE(field, bytes) \
	do { \
		if (base) (field) = (void *) (base + off); \
		off += MAXALIGN(bytes); \
	} while (0)

	PLACE(a->kind, n * sizeof(uint8));
	for (int d = 0; d < sh->ncoords; d++)
		PLACE(a->coord[d], n * sizeof(double));
	PLACE(a->odd_srid, n * sizeof(int32));
	PLACE(a->tid, n * sizeof(ItemPointerData));
	for (c = 0; c < sh->ncolumns; c++)
	{
		PLACE(a->values[c], n * sizeof(Datum));
		PLACE(a->isnull[c], n * sizeof(bool));
	}
	PLACE(a->runs, sh->runs_capacity * sizeof(ScanRun));
#undef PLACE
	return off;
}

/*
 * Populates the pages of slots [start, end) of the arrays written for every
 * row (prefault.h): not odd_srid, nor tid unless every row's is kept.
 */
static void
prefault_slots(const ScanShared *sh, ScanArrays *a, uint64 start, uint64 end)
{
	uint64		n = end - start;
	int			c;

	prefault_write(a->kind + start, n * sizeof(uint8));
	for (int d = 0; d < sh->ncoords; d++)
		prefault_write(a->coord[d] + start, n * sizeof(double));
	if (sh->need_tids)
		prefault_write(a->tid + start, n * sizeof(ItemPointerData));
	for (c = 0; c < sh->ncolumns; c++)
	{
		prefault_write(a->values[c] + start, n * sizeof(Datum));
		prefault_write(a->isnull[c] + start, n * sizeof(bool));
	}
}

/* A participant's place: its claimed slots and its current run. */
typedef struct Participant
{
	uint64		cur;			/* the next slot to fill */
	uint64		end;			/* the end of the claimed slots */
	int64		run;			/* index of the current run, -1 for none */
	BlockNumber block;			/* the last stored row's block */
	bool		full;			/* no room left: count only */
	bool		have_srid;		/* srid is the read's common SRID */
	int32		srid;
} Participant;

/* Claims slots for the next row; false when there is no room. */
static bool
claim_slot(ScanShared *sh, ScanArrays *a, Participant *p, BlockNumber block)
{
	if (p->cur == p->end)
	{
		uint64		start = pg_atomic_fetch_add_u64(&sh->next_slot, SCAN_CLAIM);

		if (start >= sh->capacity)
			return false;
		p->cur = start;
		p->end = Min(start + SCAN_CLAIM, sh->capacity);
		p->run = -1;
		prefault_slots(sh, a, p->cur, p->end);
	}
	if (p->run < 0 || (block != p->block && block != p->block + 1))
	{
		uint64		run = pg_atomic_fetch_add_u64(&sh->nruns, 1);

		if (run >= sh->runs_capacity)
			return false;
		a->runs[run].block = block;
		a->runs[run].start = p->cur;
		a->runs[run].count = 0;
		p->run = (int64) run;
	}
	p->block = block;
	return true;
}

/* The read's common SRID, set to srid when no participant has set it yet. */
static int32
common_srid(ScanShared *sh, int32 srid)
{
	uint64		expected = 0;

	if (!pg_atomic_compare_exchange_u64(&sh->srid, &expected, SRID_SET | (uint32) srid))
		return (int32) (uint32) expected;	/* another participant's */
	return srid;
}

/*
 * A float8[] value's kind: GEOM_POINT with its coordinates in slot i when it
 * is a point of ncoords finite ones, else marked bad (fetched again).
 */
static uint8
store_array(ScanShared *sh, ScanArrays *a, uint64 i, Datum value)
{
	ArrayType  *arr = DatumGetArrayTypeP(value);	/* detoasted in the tuple's context */
	const double *elems = (const double *) ARR_DATA_PTR(arr);

	if (ARR_NDIM(arr) != 1 || ARR_HASNULL(arr) || ARR_ELEMTYPE(arr) != FLOAT8OID ||
		ARR_DIMS(arr)[0] != sh->ncoords)
		return GEOM_POINT | SCAN_ROW_BAD;
	for (int d = 0; d < sh->ncoords; d++)
	{
		if (!isfinite(elems[d]))
			return GEOM_POINT | SCAN_ROW_BAD;
		a->coord[d][i] = elems[d];
	}
	return GEOM_POINT;
}

/* Decodes the row's geometry (geom) into slot number i of the arrays, with its columns. */
static inline void
store_row(ScanShared *sh, ScanArrays *a, Participant *p, uint64 i, TupleTableSlot *slot,
		  Datum geom, bool geom_null)
{
	GeomInfo	g;
	uint8		kind;
	int			c;

	for (int d = 0; d < sh->ncoords; d++)
		a->coord[d][i] = 0.0;
	if (geom_null)
		kind = GEOM_NULL;
	else if (sh->read_array)
		kind = store_array(sh, a, i, geom);
	else
	{
		memset(&g, 0, sizeof(g));
		if (sh->geography)
			gserialized_decode_geography(geom, &g);
		else
			gserialized_decode(geom, NULL, &g);
		kind = (uint8) g.kind;
		/* POINT Z: a point without Z, or with a NaN or infinite one, is checked again */
		if (g.malformed || !g.finite ||
			(sh->ncoords == 3 && g.kind == GEOM_POINT && (!g.has_z || !isfinite(g.z))))
			kind |= SCAN_ROW_BAD;
		else
		{
			if (!p->have_srid)
			{
				p->srid = common_srid(sh, g.srid);
				p->have_srid = true;
			}
			if (g.srid != p->srid)
			{
				kind |= SCAN_ROW_SRID;
				a->odd_srid[i] = g.srid;
			}
		}
		if (g.kind == GEOM_POINT && !(kind & SCAN_ROW_BAD))
		{
			a->coord[0][i] = g.x;
			a->coord[1][i] = g.y;
			if (sh->ncoords == 3)
				a->coord[2][i] = g.z;
		}
	}
	a->kind[i] = kind;
	if (sh->need_tids || scan_kind_fetched(kind))
		a->tid[i] = slot->tts_tid;
	for (c = 0; c < sh->ncolumns; c++)
	{
		int			at = sh->columns[c] - 1;

		a->values[c][i] = slot->tts_values[at];
		a->isnull[c][i] = slot->tts_isnull[at];
	}
}

/* The highest attribute number the rows need. */
static AttrNumber
max_attno(const ScanShared *sh)
{
	AttrNumber	m = sh->geom_attno;
	int			c;

	for (c = 0; c < sh->ncolumns; c++)
		m = Max(m, sh->columns[c]);
	return m;
}

/* One participant's share of the scan: every row it gets, the quals, the decoding. */
static void
scan_rows(ScanShared *sh, ScanArrays *a, Relation rel, TableScanDesc scan, List *quals,
		  Expr *geom_expr)
{
	EState	   *estate = CreateExecutorState();
	ExprContext *econtext = CreateExprContext(estate);
	ExprState  *qual = quals ? ExecPrepareQual(quals, estate) : NULL;
	ExprState  *geom_state = geom_expr ? ExecPrepareExpr(geom_expr, estate) : NULL;
	TupleTableSlot *slot = table_slot_create(rel, NULL);
	AttrNumber	natts = max_attno(sh);
	Participant p;
	uint64		seen = 0;
	MemoryContext old;

	memset(&p, 0, sizeof(p));
	p.run = -1;
	econtext->ecxt_scantuple = slot;
	old = MemoryContextSwitchTo(econtext->ecxt_per_tuple_memory);
	while (table_scan_getnextslot(scan, ForwardScanDirection, slot))
	{
		CHECK_FOR_INTERRUPTS();
		ResetExprContext(econtext);
		if (qual && !ExecQual(qual, econtext))
			continue;
		seen++;
		if (p.full)
			continue;
		if (!claim_slot(sh, a, &p, ItemPointerGetBlockNumber(&slot->tts_tid)))
		{
			p.full = true;
			pg_atomic_write_u32(&sh->overflow, 1);
			continue;
		}
		slot_getsomeattrs(slot, natts);
		if (geom_state)
		{
			bool		isnull;
			Datum		geom = ExecEvalExpr(geom_state, econtext, &isnull);

			store_row(sh, a, &p, p.cur, slot, geom, isnull);
		}
		else
			store_row(sh, a, &p, p.cur, slot, slot->tts_values[sh->geom_attno - 1],
					  slot->tts_isnull[sh->geom_attno - 1]);
		a->runs[p.run].count++;
		p.cur++;
	}
	MemoryContextSwitchTo(old);
	pg_atomic_fetch_add_u64(&sh->nseen, seen);
	ExecDropSingleTupleTableSlot(slot);
	FreeExecutorState(estate);
}

/* A parallel worker: its share of the scan (the entry point CreateParallelContext names). */
void
gd_parallel_read_main(dsm_segment *seg, shm_toc *toc)
{
	ScanShared *sh = shm_toc_lookup(toc, KEY_SHARED, false);
	ParallelTableScanDesc pscan = shm_toc_lookup(toc, KEY_PSCAN, false);
	char	   *exprs_text = shm_toc_lookup(toc, KEY_QUALS, false);
	List	   *exprs = (List *) stringToNode(exprs_text);	/* quals, geometry expression */
	List	   *quals = (List *) linitial(exprs);
	Expr	   *geom_expr = (Expr *) lsecond(exprs);
	dsm_segment *data = dsm_attach(sh->data_handle);
	ScanArrays	a;
	Relation	rel;
	TableScanDesc scan;

	if (data == NULL)
		elog(ERROR, "gpu_dbscan: could not map the parallel read's shared memory");
	memset(&a, 0, sizeof(a));
	layout_arrays(sh, dsm_segment_address(data), &a);
	rel = table_open(sh->relid, AccessShareLock);
	scan = table_beginscan_parallel(rel, pscan);
	scan_rows(sh, &a, rel, scan, quals, geom_expr);
	table_endscan(scan);
	table_close(rel, AccessShareLock);
	dsm_detach(data);
}

/* Runs ordered by heap block, then slot (a block split between two claims). */
static int
compare_runs(const void *pa, const void *pb)
{
	const ScanRun *a = (const ScanRun *) pa;
	const ScanRun *b = (const ScanRun *) pb;

	if (a->block != b->block)
		return a->block < b->block ? -1 : 1;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return 0;
}

/* Sorts the runs into heap order; true when it is the slots' own. */
static bool
sort_runs(ScanRun *runs, uint64 nruns)
{
	uint64		k;
	uint64		r = 0;

	qsort(runs, nruns, sizeof(ScanRun), compare_runs);
	for (k = 0; k < nruns; k++)
	{
		if (runs[k].start != r)
			return false;
		r += runs[k].count;
	}
	return true;
}

/* The heap order of the slots from the sorted runs, into order (nrows entries). */
static uint32 *
heap_order_into(uint32 *order, const ScanRun *runs, uint64 nruns, int64 nrows)
{
	uint64		k;
	int64		r = 0;

	prefault_write(order, nrows * sizeof(uint32));
	for (k = 0; k < nruns; k++)
	{
		uint64		j;

		for (j = 0; j < runs[k].count; j++)
			order[r++] = (uint32) (runs[k].start + j);
	}
	return order;
}

/* The heap order of the slots from the sorted runs, in new memory. */
static uint32 *
heap_order(const ScanRun *runs, uint64 nruns, int64 nrows)
{
	return heap_order_into(MemoryContextAllocHuge(CurrentMemoryContext, Max(nrows, 1) * sizeof(uint32)),
						   runs, nruns, nrows);
}

/*
 * Slots for the rows the read keeps by the planner's estimates, with room to
 * spare: the relation's rows, or with quals twice the planner's estimate of
 * the rows they keep where that is fewer (a short guess costs a second
 * scan, not a wrong answer); and each of up to participants processes may
 * end its read with most of a claim unused, so a close estimate needs that
 * much more.
 */
static uint64
estimated_rows(Relation rel, const ScanRequest *req, int participants)
{
	BlockNumber pages;
	double		tuples;
	double		allvisfrac;
	double		rows;

	estimate_rel_size(rel, NULL, &pages, &tuples, &allvisfrac);
	rows = tuples * 1.05;
	if (req->quals != NIL && req->est_rows > 0)
		rows = Min(rows, 2 * req->est_rows);
	return (uint64) rows + 1024 + (uint64) participants * SCAN_CLAIM;
}

/* See parallel_read.h. */
int
parallel_read_array_dims(const ScanRequest *req)
{
	Relation	rel = table_open(req->relid, AccessShareLock);
	TableScanDesc scan = table_beginscan_strat(rel, req->snapshot, 0, NULL, true, false);
	TupleTableSlot *slot = table_slot_create(rel, NULL);
	int			dims = 0;

	for (int seen = 0; dims == 0 && seen < ARRAY_DIMS_PEEK &&
		 table_scan_getnextslot(scan, ForwardScanDirection, slot); seen++)
	{
		bool		isnull;
		Datum		value = slot_getattr(slot, req->geom_attno, &isnull);
		ArrayType  *a;

		if (isnull)
			continue;
		a = DatumGetArrayTypeP(value);
		dims = ARR_NDIM(a) == 1 && ARR_DIMS(a)[0] >= GD_ND_MIN_DIMS &&
			ARR_DIMS(a)[0] <= GD_ND_MAX_DIMS ? ARR_DIMS(a)[0] : GD_ND_MIN_DIMS;
		if ((Pointer) a != DatumGetPointer(value))
			pfree(a);
	}
	ExecDropSingleTupleTableSlot(slot);
	table_endscan(scan);
	table_close(rel, NoLock);
	return dims > 0 ? dims : GD_ND_MIN_DIMS;
}

/* What one pass of the scan found. */
typedef struct PassResult
{
	bool		complete;		/* every row found room */
	uint64		nseen;
	uint64		nruns;
	int			nworkers_launched;
} PassResult;

/* Fills the shared header from the request and sizes. */
static void
init_shared(ScanShared *sh, const ScanRequest *req, uint64 capacity, uint64 runs_capacity)
{
	memset(sh, 0, sizeof(*sh));
	sh->relid = req->relid;
	sh->geom_attno = req->geom_attno;
	sh->ncolumns = req->ncolumns;
	memcpy(sh->columns, req->columns, sizeof(sh->columns));
	sh->need_tids = req->need_tids;
	sh->read_array = req->array_dims > 0;
	sh->geography = req->geography;
	sh->ncoords = sh->read_array ? req->array_dims : req->read_z ? 3 : 2;
	sh->capacity = capacity;
	sh->runs_capacity = runs_capacity;
	pg_atomic_init_u64(&sh->next_slot, 0);
	pg_atomic_init_u64(&sh->nruns, 0);
	pg_atomic_init_u64(&sh->nseen, 0);
	pg_atomic_init_u32(&sh->overflow, 0);
	pg_atomic_init_u64(&sh->srid, 0);
}

/*
 * Frees the shared memory pages inside [p, p + len) of a segment only this
 * process still maps (MADV_REMOVE; where it fails, they go with the segment).
 */
static void
release_shared(void *p, Size len)
{
#ifdef MADV_REMOVE
	uintptr_t	page = (uintptr_t) sysconf(_SC_PAGESIZE);
	uintptr_t	start = ((uintptr_t) p + page - 1) & ~(page - 1);
	uintptr_t	end = ((uintptr_t) p + len) & ~(page - 1);

	if (end > start)
		(void) madvise((void *) start, end - start, MADV_REMOVE);
#endif
}

/*
 * Memory for arrays of bytes: a segment shared with the GPU worker when
 * asked for and one can be made (*seg), else palloc'd (*seg NULL, its
 * charge *charge); charged to the query's memory either way.
 */
static char *
alloc_arrays(Size bytes, bool share, dsm_segment **seg, GdCharge **charge)
{
	char	   *base = share ? gd_gpu_worker_alloc(bytes, seg) : NULL;

	*charge = NULL;
	if (base != NULL)
		gd_charge_segment(*seg, SCAN_READ_CHARGE);
	else
	{
		*seg = NULL;
		*charge = gd_charge(CurrentMemoryContext, bytes, SCAN_READ_CHARGE);
		base = MemoryContextAllocHuge(CurrentMemoryContext, bytes);
	}
	return base;
}

/*
 * Copies one array of elements of width bytes from src (by slot) to dst (in
 * the runs' order), populating dst first; then frees src when it is shared
 * memory (capacity elements), so that the copy grows as the segment shrinks.
 */
static void
gather_array(void *dst, void *src, Size width, const ScanRun *runs, uint64 nruns, int64 nrows,
			 uint64 capacity, bool shared)
{
	uint64		k;
	uint64		r = 0;

	CHECK_FOR_INTERRUPTS();
	prefault_write(dst, nrows * width);
	for (k = 0; k < nruns; k++)
	{
		memcpy((char *) dst + r * width, (char *) src + runs[k].start * width,
			   runs[k].count * width);
		r += runs[k].count;
	}
	if (shared)
		release_shared(src, capacity * width);
}

/*
 * Copies the rows of a, in the runs' order (sorted), into the arrays to
 * (laid out already): odd_srid and tid (when not every row's is kept) for the
 * rows that have them, then the dense arrays one by one, each freed from the
 * shared memory (shared) once copied.
 */
static void
gather_runs_into(const ScanShared *sh, const ScanArrays *a, const ScanRun *runs, uint64 nruns,
				 int64 nrows, bool shared, ScanArrays *to)
{
	uint64		k;
	uint64		r = 0;
	uint64		cap = sh->capacity;
	int			c;

	for (k = 0; k < nruns; k++)
	{
		uint64		s = runs[k].start;
		uint64		n = runs[k].count;

		for (uint64 j = 0; j < n; j++)
		{
			uint8		kind = a->kind[s + j];

			if (!scan_kind_fetched(kind))
				continue;
			if (kind & SCAN_ROW_SRID)
				to->odd_srid[r + j] = a->odd_srid[s + j];
			if (!sh->need_tids)
				to->tid[r + j] = a->tid[s + j];
		}
		r += n;
	}
	if (shared)
		release_shared(a->odd_srid, cap * sizeof(int32));
	if (sh->need_tids)
		gather_array(to->tid, a->tid, sizeof(ItemPointerData), runs, nruns, nrows, cap, shared);
	else if (shared)
		release_shared(a->tid, cap * sizeof(ItemPointerData));
	gather_array(to->kind, a->kind, sizeof(uint8), runs, nruns, nrows, cap, shared);
	for (int d = 0; d < sh->ncoords; d++)
		gather_array(to->coord[d], a->coord[d], sizeof(double), runs, nruns, nrows, cap, shared);
	for (c = 0; c < sh->ncolumns; c++)
	{
		gather_array(to->values[c], a->values[c], sizeof(Datum), runs, nruns, nrows, cap, shared);
		gather_array(to->isnull[c], a->isnull[c], sizeof(bool), runs, nruns, nrows, cap, shared);
	}
}

/* gather_runs_into new arrays (one allocation, alloc_arrays's, from the start of *to). */
static void
gather_runs(const ScanShared *sh, const ScanArrays *a, const ScanRun *runs, uint64 nruns,
			int64 nrows, bool shared, bool share_with_gpu, ScanArrays *to)
{
	dsm_segment *seg;
	GdCharge   *charge;
	ScanShared	dst = *sh;
	char	   *base;

	dst.capacity = Max(nrows, 1);
	dst.runs_capacity = 0;
	memset(to, 0, sizeof(*to));
	base = alloc_arrays(layout_arrays(&dst, NULL, to), share_with_gpu, &seg, &charge);
	layout_arrays(&dst, base, to);
	to->segment = seg;
	to->charge = charge;
	gather_runs_into(sh, a, runs, nruns, nrows, shared, to);
}

/* res's arrays are a's (its first ncolumns columns). */
static void
take_arrays(ScanResult *res, const ScanArrays *a, const ScanShared *sh)
{
	int			ncolumns = sh->ncolumns;
	int			c;

	res->segment = a->segment;
	res->charge = a->charge;
	res->kind = a->kind;
	res->read_array = sh->read_array;
	res->geography = sh->geography;
	res->ncoords = sh->ncoords;
	memcpy(res->coord, a->coord, sizeof(res->coord));
	res->odd_srid = a->odd_srid;
	res->tid = a->tid;
	for (c = 0; c < ncolumns; c++)
	{
		res->values[c] = a->values[c];
		res->isnull[c] = a->isnull[c];
	}
}

/* Frees res's arrays: the workers' segment, or the one palloc'd allocation. */
static void
free_arrays(ScanResult *res)
{
	if (res->segment)
		dsm_detach(res->segment);
	else if (res->kind)
	{
		pfree(res->kind);		/* the start of the one allocation */
		gd_refund(res->charge);
	}
	res->segment = NULL;
	res->charge = NULL;
}

/*
 * Fills res's arrays from a (in shared memory, shared) and the runs, in heap
 * order when asked (see parallel_read.h).
 */
static void
finish_result(const ScanShared *sh, const ScanRequest *req, ScanArrays *a, bool shared,
			  ScanResult *res, const PassResult *pass)
{
	bool		in_order = sort_runs(a->runs, pass->nruns);
	ScanArrays	gathered;
	uint64		srid = pg_atomic_read_u64((pg_atomic_uint64 *) &sh->srid);

	res->nrows = (int64) pass->nseen;
	res->nworkers_launched = pass->nworkers_launched;
	res->share_with_gpu = req->share_with_gpu;
	res->order = NULL;
	res->common_srid = (int32) (uint32) srid;
	if (!in_order && req->heap_order)
	{
		gather_runs(sh, a, a->runs, pass->nruns, res->nrows, shared, req->share_with_gpu,
					&gathered);
		a = &gathered;
	}
	else if (!in_order)
		res->order = heap_order(a->runs, pass->nruns, res->nrows);
	take_arrays(res, a, sh);
}

/* The leader alone: palloc'd arrays, a serial scan. */
static void
read_serial(Relation rel, const ScanRequest *req, uint64 capacity, uint64 runs_capacity,
			ScanResult *res, PassResult *pass)
{
	ScanShared	sh;
	ScanArrays	a;
	TableScanDesc scan;
	char	   *base;
	dsm_segment *seg;
	GdCharge   *charge;

	init_shared(&sh, req, capacity, runs_capacity);
	memset(&a, 0, sizeof(a));
	base = alloc_arrays(layout_arrays(&sh, NULL, &a), req->share_with_gpu, &seg, &charge);
	layout_arrays(&sh, base, &a);
	a.segment = seg;
	a.charge = charge;
	/* no synchronized scan: the rows come from block 0 on */
	scan = table_beginscan_strat(rel, req->snapshot, 0, NULL, true, false);
	scan_rows(&sh, &a, rel, scan, req->quals, req->geom_expr);
	table_endscan(scan);

	pass->nseen = pg_atomic_read_u64(&sh.nseen);
	pass->nruns = Min(pg_atomic_read_u64(&sh.nruns), runs_capacity);
	pass->complete = pg_atomic_read_u32(&sh.overflow) == 0;
	pass->nworkers_launched = 0;
	if (pass->complete)
		finish_result(&sh, req, &a, false, res, pass);
	if (!pass->complete || res->kind != a.kind)
	{
		/* not read completely, or copied */
		if (seg)
			dsm_detach(seg);
		else
		{
			pfree(base);
			gd_refund(charge);
		}
	}
}

/* Workers and the leader: the arrays in a DSM segment of their own. */
static void
read_parallel(Relation rel, const ScanRequest *req, uint64 capacity, uint64 runs_capacity,
			  ScanResult *res, PassResult *pass)
{
	ParallelContext *pcxt;
	ScanShared *sh;
	ScanArrays	a;
	ParallelTableScanDesc pscan;
	Size		pscan_size;
	char	   *quals_text;
	char	   *quals_shared;
	dsm_segment *data;
	TableScanDesc scan;
	List	   *exprs = list_make2(copyObject(req->quals), copyObject(req->geom_expr));

	fix_opfuncids((Node *) exprs);
	quals_text = nodeToString(exprs);

	EnterParallelMode();
	pcxt = CreateParallelContext("gpu_dbscan", "gd_parallel_read_main", req->nworkers);
	pscan_size = table_parallelscan_estimate(rel, req->snapshot);
	shm_toc_estimate_chunk(&pcxt->estimator, sizeof(ScanShared));
	shm_toc_estimate_chunk(&pcxt->estimator, pscan_size);
	shm_toc_estimate_chunk(&pcxt->estimator, strlen(quals_text) + 1);
	shm_toc_estimate_keys(&pcxt->estimator, 3);
	InitializeParallelDSM(pcxt);

	sh = shm_toc_allocate(pcxt->toc, sizeof(ScanShared));
	init_shared(sh, req, capacity, runs_capacity);
	memset(&a, 0, sizeof(a));
	data = dsm_create(layout_arrays(sh, NULL, &a), 0);
	gd_charge_segment(data, SCAN_READ_CHARGE);
	layout_arrays(sh, dsm_segment_address(data), &a);
	a.segment = data;
	if (req->share_with_gpu)
		(void) gd_gpu_worker_share(data);
	sh->data_handle = dsm_segment_handle(data);
	shm_toc_insert(pcxt->toc, KEY_SHARED, sh);

	pscan = shm_toc_allocate(pcxt->toc, pscan_size);
	table_parallelscan_initialize(rel, pscan, req->snapshot);
	pscan->phs_syncscan = false;	/* the rows come from block 0 on */
	shm_toc_insert(pcxt->toc, KEY_PSCAN, pscan);

	quals_shared = shm_toc_allocate(pcxt->toc, strlen(quals_text) + 1);
	strcpy(quals_shared, quals_text);
	shm_toc_insert(pcxt->toc, KEY_QUALS, quals_shared);

	LaunchParallelWorkers(pcxt);

	/* the leader takes part, unless parallel_leader_participation is off and a worker runs */
	if (parallel_leader_participation || pcxt->nworkers_launched == 0)
	{
		scan = table_beginscan_parallel(rel, pscan);
		scan_rows(sh, &a, rel, scan, req->quals, req->geom_expr);
		table_endscan(scan);
	}

	WaitForParallelWorkersToFinish(pcxt);
	pass->nseen = pg_atomic_read_u64(&sh->nseen);
	pass->nruns = Min(pg_atomic_read_u64(&sh->nruns), runs_capacity);
	pass->complete = pg_atomic_read_u32(&sh->overflow) == 0;
	pass->nworkers_launched = pcxt->nworkers_launched;
	if (pass->complete)
		finish_result(sh, req, &a, true, res, pass);
	/* unless the rows are in it still */
	if (!pass->complete || res->segment != data)
		dsm_detach(data);
	DestroyParallelContext(pcxt);
	ExitParallelMode();
}

/*
 * Whether shared memory has room for the arrays of capacity rows (without
 * it the leader reads alone into its own memory).
 */
static bool
shared_memory_room(const ScanRequest *req, uint64 capacity, uint64 runs_capacity)
{
	ScanShared	sh;
	ScanArrays	a;

	init_shared(&sh, req, capacity, runs_capacity);
	return shm_has_room(layout_arrays(&sh, NULL, &a));
}

/* Runs' room for capacity slots of rel read by up to participants processes. */
static uint64
runs_room(Relation rel, uint64 capacity, int participants)
{
	return capacity / SCAN_CLAIM + RelationGetNumberOfBlocks(rel) + 2 * participants + 16;
}

/* Reads the rows (see parallel_read.h). */
void
parallel_read(const ScanRequest *req, ScanResult *res)
{
	Relation	rel = table_open(req->relid, AccessShareLock);
	bool		workers = req->nworkers > 0 && !IsParallelWorker() && IsUnderPostmaster &&
		max_parallel_workers > 0;
	int			participants = (workers ? req->nworkers : 0) + 1;
	uint64		capacity = estimated_rows(rel, req, participants);
	uint64		runs_capacity;
	PassResult	pass;

	memset(res, 0, sizeof(*res));
	runs_capacity = runs_room(rel, capacity, participants);
	for (res->passes = 1;; res->passes++)
	{
		memset(&pass, 0, sizeof(pass));
		if (workers && shared_memory_room(req, capacity, runs_capacity))
			read_parallel(rel, req, capacity, runs_capacity, res, &pass);
		else
			read_serial(rel, req, capacity, runs_capacity, res, &pass);
		if (pass.complete)
			break;
		/* the estimate was short: arrays of the counted size, runs to spare */
		capacity = pass.nseen + (uint64) participants * SCAN_CLAIM + 1024;
		runs_capacity *= 2;
		if (res->passes >= 4)
			elog(ERROR, "gpu_dbscan: the table kept growing during its parallel read");
	}
	if (res->nrows > (int64) PG_UINT32_MAX - 1)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("gpu_dbscan: the fast path reads at most %u rows", PG_UINT32_MAX - 1)));
	table_close(rel, NoLock);
}

/* Frees what parallel_read holds (see parallel_read.h). */
void
parallel_read_release(ScanResult *res)
{
	free_arrays(res);
	if (res->order)
		pfree(res->order);
	memset(res, 0, sizeof(*res));
}

/* ---- a read shared by a parallel plan's participants ------------------------ */

/*
 * The shared space: the header, then the parallel scan's descriptor.  The
 * arrays are in a DSM segment of their own (data_handle), made by the leader.
 */
static ScanShared *
space_shared(void *space)
{
	return (ScanShared *) space;
}

static ParallelTableScanDesc
space_pscan(void *space)
{
	return (ParallelTableScanDesc) ((char *) space + MAXALIGN(sizeof(ScanShared)));
}

Size
parallel_read_shared_size(const ScanRequest *req)
{
	Relation	rel = table_open(req->relid, AccessShareLock);
	Size		size = MAXALIGN(sizeof(ScanShared)) + table_parallelscan_estimate(rel, req->snapshot);

	table_close(rel, NoLock);
	return size;
}

dsm_segment *
parallel_read_shared_init(const ScanRequest *req, void *space)
{
	Relation	rel = table_open(req->relid, AccessShareLock);
	ScanShared *sh = space_shared(space);
	ParallelTableScanDesc pscan = space_pscan(space);
	uint64		capacity = estimated_rows(rel, req, max_worker_processes + 1);
	ScanArrays	a;
	Size		bytes;
	dsm_segment *data = NULL;

	init_shared(sh, req, capacity, runs_room(rel, capacity, max_worker_processes + 1));
	bytes = layout_arrays(sh, NULL, &a);
	if (shm_has_room(bytes))
		data = dsm_create(bytes, DSM_CREATE_NULL_IF_MAXSEGMENTS);
	if (data)
		gd_charge_segment(data, SCAN_READ_CHARGE);
	sh->data_handle = data ? dsm_segment_handle(data) : DSM_HANDLE_INVALID;
	table_parallelscan_initialize(rel, pscan, req->snapshot);
	pscan->phs_syncscan = false;	/* the rows come from block 0 on */
	table_close(rel, NoLock);
	return data;
}

void
parallel_read_shared_reinit(const ScanRequest *req, void *space)
{
	ScanShared *sh = space_shared(space);
	dsm_handle	data = sh->data_handle;
	Relation	rel = table_open(req->relid, AccessShareLock);

	/* the header as parallel_read_shared_init made it, over the same arrays */
	init_shared(sh, req, sh->capacity, sh->runs_capacity);
	sh->data_handle = data;
	table_parallelscan_reinitialize(rel, space_pscan(space));
	table_close(rel, NoLock);
}

dsm_segment *
parallel_read_shared_attach(void *space)
{
	ScanShared *sh = space_shared(space);
	dsm_segment *data;

	if (sh->data_handle == DSM_HANDLE_INVALID)
		return NULL;
	data = dsm_attach(sh->data_handle);
	if (data == NULL)
		elog(ERROR, "gpu_dbscan: could not map the parallel read's shared memory");
	return data;
}

void
parallel_read_shared_scan(const ScanRequest *req, void *space, dsm_segment *data)
{
	ScanShared *sh = space_shared(space);
	ScanArrays	a;
	Relation	rel;
	TableScanDesc scan;

	if (data == NULL)
		return;					/* no room: the clusterer reads alone */
	memset(&a, 0, sizeof(a));
	layout_arrays(sh, dsm_segment_address(data), &a);
	rel = table_open(req->relid, AccessShareLock);
	scan = table_beginscan_parallel(rel, space_pscan(space));
	scan_rows(sh, &a, rel, scan, req->quals, req->geom_expr);
	table_endscan(scan);
	table_close(rel, NoLock);
}

void
parallel_read_shared_forget(void *space)
{
	space_shared(space)->data_handle = DSM_HANDLE_INVALID;
}

uint64
parallel_read_shared_capacity(void *space)
{
	return space_shared(space)->capacity;
}

void
parallel_read_shared_result(void *space, dsm_segment *data, ScanResult *res)
{
	ScanShared *sh = space_shared(space);
	ScanArrays	a;

	memset(res, 0, sizeof(*res));
	memset(&a, 0, sizeof(a));
	layout_arrays(sh, dsm_segment_address(data), &a);
	take_arrays(res, &a, sh);
	res->segment = NULL;		/* the caller's */
	res->nrows = (int64) pg_atomic_read_u64(&sh->nseen);
	res->common_srid = (int32) (uint32) pg_atomic_read_u64(&sh->srid);
	res->passes = 1;
}

bool
parallel_read_shared_finish(void *space, dsm_segment *data, dsm_segment *copy, uint32 *heap,
							bool *in_heap_order, bool *copied, ScanResult *res)
{
	ScanShared *sh = space_shared(space);
	ScanArrays	a;
	ScanArrays	to;
	uint64		nruns;
	int64		nrows;

	*copied = false;
	if (data == NULL || pg_atomic_read_u32(&sh->overflow) != 0)
		return false;
	memset(&a, 0, sizeof(a));
	layout_arrays(sh, dsm_segment_address(data), &a);
	nruns = Min(pg_atomic_read_u64(&sh->nruns), sh->runs_capacity);
	nrows = (int64) pg_atomic_read_u64(&sh->nseen);
	*in_heap_order = sort_runs(a.runs, nruns);
	if (!*in_heap_order && copy != NULL)
	{
		/* into heap order in copy, data's pages freed as they are copied */
		memset(&to, 0, sizeof(to));
		layout_arrays(sh, dsm_segment_address(copy), &to);
		gather_runs_into(sh, &a, a.runs, nruns, nrows, true, &to);
		*in_heap_order = *copied = true;
	}
	else if (!*in_heap_order)
		heap_order_into(heap, a.runs, nruns, nrows);
	parallel_read_shared_result(space, *copied ? copy : data, res);
	return true;
}
