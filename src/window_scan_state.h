/*
 * window_scan_state.h — the executor state of GpuDbscanWindow, shared by
 * window_scan.c (the node alone) and window_partial.c (the node as a
 * partial path under a Gather).
 */
#ifndef GPU_DBSCAN_WINDOW_SCAN_STATE_H
#define GPU_DBSCAN_WINDOW_SCAN_STATE_H

#include "postgres.h"

#include "nodes/execnodes.h"
#include "nodes/pathnodes.h"
#include "storage/dsm.h"

#include "rows.h"
#include "scan_plan.h"
#include "sort_keys.h"

/*
 * The window functions the node serves, all over geometry: 2D, or POINT Z
 * for the _3d ones (gpu_dbscan_3d, ...; then every function of the node).
 */
typedef enum ScanForm
{
	SCAN_IDS = 0,				/* gpu_dbscan(geom, eps, minpoints) */
	SCAN_SWEEP,					/* gpu_dbscan_sweep(geom, eps, minpoints[]) */
	SCAN_POINT_TYPE				/* gpu_dbscan_point_type(geom, eps, minpoints) */
} ScanForm;

/*
 * One window function of the node: its parameters, the plan's constants
 * (read and checked by each partition, as the window function reads them),
 * and the ids in output order (for a point type, its gd_point_type, or
 * POINT_TYPE_NULL_ROW).  A sweep has nvalues ids a row: value k's at
 * ids[k * ids_stride + p].  In a block of ids for every function (the
 * partial path's output), its values' come after ids_first others.
 */
typedef struct ScanFunction
{
	Datum		eps;			/* float8 */
	bool		eps_null;
	Datum		minpoints;		/* int, or a sweep's int[] */
	bool		minpoints_null;
	ScanForm	form;
	const char *name;			/* its SQL name, for its errors */
	int			nvalues;		/* 1, or the sweep's array's elements */
	int			ids_first;
	int32	   *ids;
	int64		ids_stride;
} ScanFunction;

typedef struct WindowScanState
{
	ScanNode	scan;			/* first: the read, the context, the times */
	Oid			geom_type;
	RowsFns		fns;			/* the geometry's PostGIS functions */
	ExprState  *geom_state;		/* the geometry expression, evaluated again on a fetched row */
	ExprContext *geom_econtext;
	int			ntlcolumns;		/* carried columns (canon's first entries, scan_tuple_order) */
	int			colmap[SCAN_MAX_COLUMNS];	/* carried column -> reader column, -1: ctid */
	int			natts;			/* the scan tuple's */
	int		   *slot_src;		/* scan tuple entry -> canon's: a column, then function */
	int			npartkeys;
	int			nkeys;
	int			key_column[SCAN_MAX_COLUMNS];
	SortKeyColumn keys[SCAN_MAX_COLUMNS];
	int			nfuncs;
	ScanFunction *funcs;
	int			nids;			/* ids a row, every function's values */
	text	   *type_names[3];	/* a point type's answers, by gd_point_type */
	uint32	   *order;			/* output position -> slot; NULL: the identity */
	int64		pos;			/* the next output position to emit */
	int64		end;			/* the end of the positions this process emits now */
	int64		npartitions;
	/* the partial path's (NULL otherwise): see window_partial.c */
	struct WindowShared *shared;	/* in the parallel plan's shared memory */
	dsm_segment *data_seg;		/* the shared read's arrays */
	dsm_segment *out_seg;		/* the output order, then each function's ids */
	dsm_segment *copy_seg;		/* the read's rows copied into heap order */
	bool		res_shared;		/* scan.res's arrays are data_seg's */
	bool		segs_shared;	/* the segments named to the GPU worker */
} WindowScanState;

/*
 * Puts the read's rows in the window's order and clusters each partition:
 * st->order from heap (the slots in heap order; NULL: the identity) sorted
 * stably by the keys, in order_room (NULL: new memory) when not heap itself;
 * the functions' ids in ids_room (room for st->nids blocks of capacity
 * entries; each function's from its ids_first block of the rows' count;
 * NULL: new memory).  Sets pos and end to every output position.
 */
extern void window_order_and_cluster(WindowScanState *st, uint32 *heap, uint32 *order_room,
									 int32 *ids_room, int64 capacity);

/* Reads every row alone (with workers of the node's own), orders and clusters them. */
extern void window_run_alone(WindowScanState *st);

/* EndCustomScan: the read's memory, the node's context, the partial path's segments. */
extern void window_scan_end(CustomScanState *node);

/* ---- window_partial.c ---- */

/* Adds the partial path beside path (window_rel's custom path) where it can run. */
extern void window_partial_path(PlannerInfo *root, RelOptInfo *input_rel, RelOptInfo *window_rel,
								List *wfuncs, CustomPath *path);

/* The partial path's first call in a participant. */
extern void window_partial_run(WindowScanState *st);

/*
 * Claims the next output positions to emit: false once this process's are
 * out, unless the partial path's participants share them.
 */
extern bool window_partial_claim(WindowScanState *st);

/* Forgets the partial path's result in this process (its arrays are the segments'). */
extern void window_partial_forget(WindowScanState *st);

/* The node's callbacks of a parallel plan (shared memory, workers, shutdown). */
extern void window_partial_methods(CustomExecMethods *methods);

#endif							/* GPU_DBSCAN_WINDOW_SCAN_STATE_H */
