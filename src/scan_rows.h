/*
 * scan_rows.h — the rows of a parallel read (parallel_read.h) as a Rows
 * container for the core, and the row checks of rows_add on them: what the
 * fast paths' nodes do with what they read (agg_scan.c).
 *
 * The reader keeps a point's coordinates, a row's kind, its SRID where it
 * differs from the read's common one (scan_row_srid) and the TID of a row
 * fetched again (every row's with ScanRequest.need_tids): a non-point
 * geometry (its box and value) and a value marked bad (to name its fault)
 * are fetched again from the table by TID.  The one home of these steps for
 * both fast paths (window_scan.c, agg_scan.c).
 */
#ifndef GPU_DBSCAN_SCAN_ROWS_H
#define GPU_DBSCAN_SCAN_ROWS_H

#include "postgres.h"

#include "executor/tuptable.h"
#include "nodes/execnodes.h"
#include "utils/relcache.h"
#include "utils/snapshot.h"

#include "parallel_read.h"
#include "rows.h"

/* Fetching a row's geometry again by its TID. */
typedef struct ScanFetch
{
	Relation	rel;
	TupleTableSlot *tslot;		/* a slot of rel */
	Snapshot	snapshot;		/* the read's */
	AttrNumber	geom_attno;		/* the geometry column */
	ExprState  *geom_state;		/* or an expression over the row (NULL: the column) */
	ExprContext *geom_econtext; /* with geom_state */
} ScanFetch;

/*
 * Opens f on the read's relation (req) with its snapshot and geometry column,
 * or geom_state (with econtext) over the row; scan_fetch_close ends it.
 */
extern void scan_fetch_open(ScanFetch *f, const ScanRequest *req, ExprState *geom_state,
							ExprContext *econtext);
extern void scan_fetch_close(ScanFetch *f);

/* The geometry (or float8[]) of the row at tid, detoasted, in the current memory context. */
extern Datum scan_fetch_value(ScanFetch *f, const ItemPointerData *tid);

/*
 * rows_add's checks of the read's row at slot, row number row (0-based)
 * of its rows: a malformed value, a NaN or infinite coordinate (the value
 * fetched again to name the fault), an SRID that differs from the first
 * row's (srids); POINT Z's and geography's their own (a non-point an
 * error); for float8[], rows_check_array's (dims), the array
 * fetched again where it is flagged or its count is not the first's.
 */
extern void scan_check_row(ScanFetch *f, const ScanResult *res, RowsFns *fns, SridCheck *srids,
						   DimsCheck *dims, int64 slot, int64 row);

/*
 * rows (ROWS_GEOMETRY; ROWS_POINT_Z when the read kept Z, its rows checked
 * as the _3d functions check them; ROWS_GEOGRAPHY for a geography read) over the read's rows at slots[b .. e) (slots NULL:
 * slots b .. e, used in place when no row carries a reader's flag),
 * non-point rows fetched again; the arrays in the current memory context.
 * check: rows_add's checks too, in that order, row by row only where some
 * row is flagged (else every non-NULL row has the read's common SRID, which
 * is all they would find); without it the rows must have been checked.
 * float8[] rows of which one is flagged are fetched again and read by
 * rows_add (their own count, and with check its errors).
 */
extern void scan_rows_build(Rows *rows, RowsFns *fns, const ScanResult *res, const uint32 *slots,
							int64 b, int64 e, ScanFetch *f, bool check);

#endif							/* GPU_DBSCAN_SCAN_ROWS_H */
