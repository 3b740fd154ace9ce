/*
 * partition_rows.h — the rows of one clustering, read once: each row's kind,
 * a point's coordinates, a non-point geometry's box and value, the SRID they
 * share; and what to compute from them (a ClusterJob).
 *
 * The window functions fill one from their partition (window.c); the
 * aggregates (aggregate.c) fill one row by row in their transition function,
 * merge partial ones and ship them between parallel workers.
 */
#ifndef GPU_DBSCAN_PARTITION_ROWS_H
#define GPU_DBSCAN_PARTITION_ROWS_H

#include "gd_core.h"			/* before postgres.h: see core_bridge.h */

#include "fmgr.h"
#include "windowapi.h"

#include "postgis_fn.h"
#include "window_common.h"

typedef struct PartitionRows
{
	MemoryContext cxt;			/* where the arrays and copies live */
	int64		nrows;
	int64		cap;			/* rows the arrays hold */
	uint8	   *kind;			/* GeomKind per row */
	double	   *x,				/* GEOM_POINT rows; 0 elsewhere */
			   *y;
	int64		npoints;
	/* GEOM_OTHER rows and their boxes, in row order */
	int64		nother;
	int64		other_cap;
	int64	   *other_row;
	gd_box	   *other_box;
	Datum	   *other_geom;		/* detoasted copies, for st_dwithin */
	SridCheck	srids;			/* the SRID of every non-NULL row */
} PartitionRows;

/* Empty rows with room for capacity (grown as needed), allocated in cxt. */
extern void partition_rows_init(PartitionRows *rows, int64 capacity, MemoryContext cxt);

/*
 * Appends one row: decodes value (in the current memory context, which the
 * caller resets), raises the window function's errors for a NaN or infinite
 * coordinate and a second SRID, and keeps what clustering needs in
 * rows->cxt.
 */
extern void partition_rows_add(PartitionRows *rows, PostgisFns *fns, Datum value, bool isnull);

/* Appends copies of every row of src (its row numbers shifted after dst's). */
extern void partition_rows_append(PartitionRows *dst, const PartitionRows *src);

/* A point type of a NULL row in ClusterJob.types, after cluster_rows. */
#define POINT_TYPE_NULL_ROW 255

/*
 * Runs job on rows through the core (window.c: points to the point entry
 * points, other geometries through candidate pairs, st_dwithin and the
 * graph entry points); rows are not changed.
 */
extern void cluster_rows(PostgisFns *fns, const PartitionRows *rows, const ClusterJob *job);

/* The PostgisFns of a window function's call site (first argument's type). */
extern PostgisFns *window_postgis_fns(FunctionCallInfo fcinfo);

/*
 * Reads the window's current partition (nrows rows) and runs job on it, in a
 * memory context of its own; job's arrays are the caller's.
 */
extern void window_cluster_job(FunctionCallInfo fcinfo, WindowObject win, int64 nrows,
							   const ClusterJob *job);

#endif							/* GPU_DBSCAN_PARTITION_ROWS_H */
