/*
 * sort_keys.h — the window's PARTITION BY / ORDER BY order for the fast
 * path (window_scan.c), on columns of by-value types whose default B-tree
 * order a normalized unsigned 64-bit key gives exactly: int2, int4, int8,
 * date, timestamp, timestamptz (integer order), float4, float8 (-0 = 0,
 * NaN = NaN and above every number, as float8_cmp_internal orders them).
 *
 * The sort is stable: rows with equal keys stay in the order given (heap
 * order), where the executor's sort leaves ties in an order of its own.
 */
#ifndef GPU_DBSCAN_SORT_KEYS_H
#define GPU_DBSCAN_SORT_KEYS_H

#include "postgres.h"

/* One column of the order: its values by slot, and how it sorts. */
typedef struct SortKeyColumn
{
	const Datum *values;
	const bool *isnull;
	Oid			type;
	bool		descending;
	bool		nulls_first;
} SortKeyColumn;

/*
 * Whether a column of type sorted by operator sortop has a normalized key:
 * sortop must be the type's default "<" (ascending) or ">" (*descending).
 */
extern bool sort_key_supported(Oid type, Oid sortop, bool *descending);

/* Whether the slots order[0..n) (order NULL: 0..n-1) are sorted by the columns already. */
extern bool sort_slots_sorted(const uint32 *order, int64 n, const SortKeyColumn *cols, int ncols);

/* Sorts order[0..n) (slots) by the columns, first column first, stably. */
extern void sort_slots(uint32 *order, int64 n, const SortKeyColumn *cols, int ncols);

/* Whether the rows at slots a and b are equal in every column (the window's peers). */
extern bool sort_slots_equal(const SortKeyColumn *cols, int ncols, uint32 a, uint32 b);

#endif							/* GPU_DBSCAN_SORT_KEYS_H */
