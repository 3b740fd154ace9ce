/*
 * parallel_read.h — reading a table's points in parallel, straight into
 * shared memory (issue 9): parallel workers and the leader scan the heap
 * (table_beginscan_parallel), evaluate the WHERE quals, decode each row's
 * geometry or geography from its serialized form (gserialized_decode, as
 * the window function does; or a float8[] point) and store it with a few by-value columns (ORDER BY,
 * PARTITION BY and output columns) and the row's TID in arrays that the
 * leader then hands to the core without a per-row datum copy.
 *
 * The rows come back in heap order (block, then line pointer): what a serial
 * sequential scan that starts at block 0 returns.  No row rule lives here:
 * the errors that depend on a row's place in the window (a NaN coordinate, a
 * malformed value, a second SRID) are only marked (SCAN_ROW_BAD,
 * SCAN_ROW_SRID), and raised by the caller in its window order
 * (rows_check_geometry).
 *
 * Each array the read writes whole is one more page fault per page of fresh
 * memory, costly on virtual machines (prefault.h): a row costs 17 bytes
 * (kind, x, y; 8 more a coordinate beyond) and its carried columns.  An SRID is kept only where it
 * differs from the read's common one, a TID only for a row that the caller
 * must fetch again (a non-point, a bad value, an odd SRID) unless every
 * row's is asked for (need_tids, for ctid).
 */
#ifndef GPU_DBSCAN_PARALLEL_READ_H
#define GPU_DBSCAN_PARALLEL_READ_H

#include "gd_core.h"

#include "access/attnum.h"
#include "nodes/pg_list.h"
#include "nodes/primnodes.h"
#include "storage/dsm.h"
#include "storage/itemptr.h"
#include "utils/snapshot.h"

/*
 * A row's GeomKind (low bits) and these flags: malformed or not finite; an
 * SRID other than the read's common one (ScanResult.common_srid).  A caller
 * clears the flags before the kinds go to the core (gd_row_kind).
 */
#define SCAN_ROW_KIND_MASK 0x03
#define SCAN_ROW_SRID 0x40
#define SCAN_ROW_BAD 0x80
#define SCAN_ROW_FLAGS (SCAN_ROW_SRID | SCAN_ROW_BAD)

/* What the read's arrays are charged as (gpu_dbscan.max_query_memory). */
#define SCAN_READ_CHARGE "the fast path's read of the table"

/* At most this many by-value columns travel with the points. */
#define SCAN_MAX_COLUMNS 16

/* What to read. */
typedef struct ScanRequest
{
	Oid			relid;
	AttrNumber	geom_attno;		/* a geometry column, or 0: */
	Expr	   *geom_expr;		/* a geometry expression over the relation's columns */
	int			ncolumns;		/* by-value columns of at most 8 bytes */
	AttrNumber	columns[SCAN_MAX_COLUMNS];
	List	   *quals;			/* implicitly ANDed, over the relation's columns */
	double		est_rows;		/* the planner's estimate of the rows they keep (0: none) */
	int			nworkers;		/* parallel workers to ask for (0: the leader alone) */
	bool		need_tids;		/* every row's TID (ctid), not only those fetched again */
	bool		read_z;			/* POINT Z: each point's Z too (a point without one, or
								 * with a NaN or infinite one, marked SCAN_ROW_BAD) */
	int			array_dims;		/* > 0: geom_attno is a float8[] column, each row a
								 * point of this many coordinates (GEOM_POINT); any
								 * other non-NULL value marked SCAN_ROW_BAD */
	bool		geography;		/* the column or expression is geography: each point's
								 * longitude and latitude (a row of any other kind is
								 * kept as GEOM_OTHER, to be fetched and refused) */
	bool		heap_order;		/* the slots in heap order (ScanResult.order NULL) */
	bool		share_with_gpu; /* the arrays where the GPU worker reads them in place */
	bool		gather;			/* read by a parallel plan's participants (a Gather's), not
								 * by workers of the node's own */
	Snapshot	snapshot;
} ScanRequest;

/*
 * What was read: nrows rows in heap order (row r at slot order[r], or r when
 * order is NULL).  When workers wrote the rows out of heap order, heap_order
 * asks the leader to copy them into heap order (a copy by runs of rows, the
 * shared memory freed at once), else the order is given by order.
 */
typedef struct ScanResult
{
	int64		nrows;
	uint32	   *order;			/* NULL: the slots are in heap order already */
	uint8	   *kind;			/* by slot: GeomKind | SCAN_ROW_BAD | SCAN_ROW_SRID */
	bool		read_array;		/* float8[] points (ScanRequest.array_dims) */
	bool		geography;		/* geography points (ScanRequest.geography) */
	int			ncoords;		/* 2, 3 (read_z) or array_dims */
	double	   *coord[GD_ND_MAX_DIMS];	/* coord[k][slot], k < ncoords: a point's
										 * coordinates, 0 otherwise */
	int32		common_srid;	/* the SRID of every non-NULL row not marked SCAN_ROW_SRID */
	int32	   *odd_srid;		/* by slot, for the rows marked SCAN_ROW_SRID only */
	ItemPointerData *tid;		/* by slot: every row's with need_tids, else only for
								 * rows of kind GEOM_OTHER or with a flag */
	Datum	   *values[SCAN_MAX_COLUMNS];	/* by slot, for each requested column */
	bool	   *isnull[SCAN_MAX_COLUMNS];
	int			nworkers_launched;
	int			passes;			/* 2 when the estimate was short and the scan ran again */
	dsm_segment *segment;		/* holds the arrays (workers ran, or share_with_gpu); NULL:
								 * palloc'd */
	struct GdCharge *charge;	/* the palloc'd arrays' charge (memory_budget.h) */
	bool		share_with_gpu; /* the request's (scan_rows_build's copies too) */
} ScanResult;

/*
 * The coordinates of a float8[] read (ScanRequest.array_dims): those of the
 * first non-NULL value of the column in the relation, or 2 when it is no
 * point of 2 to 8 (rows of another count are marked, and their partition
 * read again by its caller).
 */
extern int	parallel_read_array_dims(const ScanRequest *req);

/*
 * Reads the rows (see the file comment); the arrays live until
 * parallel_read_release (or the end of the transaction).  Errors in workers
 * are raised here, as the leader's own.
 */
extern void parallel_read(const ScanRequest *req, ScanResult *res);

/* Frees what parallel_read holds. */
extern void parallel_read_release(ScanResult *res);

/*
 * A read shared by the participants of a parallel plan (a Gather's leader
 * and workers) for a parallel-aware node.  The leader sets it up in the
 * plan's shared memory (space, parallel_read_shared_size bytes): the arrays
 * in a DSM segment of their own, sized as parallel_read sizes them (NULL
 * when shared memory has no room); each participant maps that segment
 * (parallel_read_shared_attach) and scans its share; once every one has,
 * one finishes the read (parallel_read_shared_finish: false when there was
 * no room or the estimate was short, and the caller reads alone), the others
 * take the result (parallel_read_shared_result, from data, or from copy when
 * the finish copied).  The result's arrays are in a segment (res->segment
 * NULL: its mapping is the caller's to detach).  Where the participants'
 * slots are out of heap order, the finish copies the rows into heap order
 * in copy (a segment of data's size, made by the leader too; data's pages
 * are freed as they are copied, so every participant must take the result
 * from copy), or without copy writes the heap order of the slots into heap
 * (capacity entries).
 */
extern Size parallel_read_shared_size(const ScanRequest *req);
extern dsm_segment *parallel_read_shared_init(const ScanRequest *req, void *space);
extern void parallel_read_shared_reinit(const ScanRequest *req, void *space);
extern void parallel_read_shared_forget(void *space);	/* the leader dropped the segment */
extern dsm_segment *parallel_read_shared_attach(void *space);
extern void parallel_read_shared_scan(const ScanRequest *req, void *space, dsm_segment *data);
extern uint64 parallel_read_shared_capacity(void *space);
extern bool parallel_read_shared_finish(void *space, dsm_segment *data, dsm_segment *copy,
										uint32 *heap, bool *in_heap_order, bool *copied,
										ScanResult *res);
extern void parallel_read_shared_result(void *space, dsm_segment *data, ScanResult *res);

/* The SRID of the non-NULL row at slot. */
static inline int32
scan_row_srid(const ScanResult *res, int64 slot)
{
	return (res->kind[slot] & SCAN_ROW_SRID) ? res->odd_srid[slot] : res->common_srid;
}

/* Whether a row of this kind byte is fetched again, so its TID is kept (ScanResult.tid). */
static inline bool
scan_kind_fetched(uint8 kind)
{
	return (kind & SCAN_ROW_FLAGS) || (kind & SCAN_ROW_KIND_MASK) == GD_ROW_OTHER;
}

/* The slot of row r in heap order. */
static inline int64
scan_slot(const ScanResult *res, int64 r)
{
	return res->order ? (int64) res->order[r] : r;
}

#endif							/* GPU_DBSCAN_PARALLEL_READ_H */
