/*
 * window.c — the window functions gpu_dbscan() and gpu_dbscan_read_floor().
 *
 * At the first row of a partition gpu_dbscan reads every row once, decodes
 * the geometries from their serialized form, clusters the partition through
 * the core, and keeps one int32 id per row (-1 for NULL) in memory hung off
 * the partition-local memory; every row then returns its id.
 *
 * A partition of points (and NULL/EMPTY rows) goes to gd_cluster_points.  A
 * partition with any other geometry goes through candidate pairs from
 * bounding boxes (gd_candidate_pairs), PostGIS's own st_dwithin as the exact
 * test, and gd_cluster_graph: the same neighbour test ST_ClusterDBSCAN uses.
 */
#include "gd_core.h"			/* before postgres.h: see core_bridge.h */

#include "postgres.h"

#include <float.h>
#include <limits.h>
#include <math.h>

#include "miscadmin.h"
#include "portability/instr_time.h"
#include "utils/memutils.h"
#include "windowapi.h"

#include "core_bridge.h"
#include "gserialized_points.h"
#include "partition_rows.h"
#include "postgis_fn.h"
#include "window_common.h"

StaticAssertDecl((int) GEOM_POINT == (int) GD_ROW_POINT &&
				 (int) GEOM_EMPTY == (int) GD_ROW_EMPTY &&
				 (int) GEOM_NULL == (int) GD_ROW_NULL &&
				 (int) GEOM_OTHER == (int) GD_ROW_OTHER,
				 "GeomKind must match gd_row_kind");

/* What a call site keeps across partitions (flinfo->fn_extra). */
typedef struct CallCache
{
	PostgisFns	fns;
} CallCache;

/* The call site's cache, created on first use. */
static CallCache *
get_call_cache(FunctionCallInfo fcinfo)
{
	CallCache  *cache = (CallCache *) fcinfo->flinfo->fn_extra;

	if (cache == NULL)
	{
		Oid			geometry_type = get_fn_expr_argtype(fcinfo->flinfo, 0);

		if (!OidIsValid(geometry_type))
			elog(ERROR, "gpu_dbscan: could not determine the type of the geometry argument");
		cache = MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(CallCache));
		postgis_fns_init(&cache->fns, geometry_type, fcinfo->flinfo->fn_mcxt);
		fcinfo->flinfo->fn_extra = cache;
	}
	return cache;
}

/*
 * PostGIS's candidate filter (lwgeom_geos_cluster.c): the STRtree query
 * envelope of p, its box grown by eps in double, meets q's box.  Together
 * with the exact test this is the neighbour relation of ST_ClusterDBSCAN,
 * including where rounding or underflow makes the distance alone say
 * otherwise (two points 1e-300 apart are not neighbours at eps 0).
 */
static inline bool
envelope_reaches(const gd_box *p, const gd_box *q, double eps)
{
	return q->xmin <= p->xmax + eps && q->xmax >= p->xmin - eps &&
		q->ymin <= p->ymax + eps && q->ymax >= p->ymin - eps;
}

/* Row i's box as PostGIS sees it: a point's coordinates, or the decoded box. */
static void
fill_boxes(const PartitionRows *rows, gd_box *boxes)
{
	int64		i;

	for (i = 0; i < rows->nrows; i++)
	{
		boxes[i].xmin = boxes[i].xmax = rows->x[i];
		boxes[i].ymin = boxes[i].ymax = rows->y[i];
	}
	for (i = 0; i < rows->nother; i++)
		boxes[rows->other_row[i]] = rows->other_box[i];
}

/*
 * Grows each box by a few ulps of its coordinates and eps, so that the
 * core's candidate pairs (box gap <= eps, however it rounds) include every
 * pair that envelope_reaches() lets through.
 */
static void
grow_boxes(gd_box *boxes, int64 n, double eps)
{
	int64		i;

	if (isinf(eps))
		return;
	for (i = 0; i < n; i++)
	{
		gd_box	   *b = &boxes[i];
		double		m;

		m = Max(Max(fabs(b->xmin), fabs(b->xmax)), Max(fabs(b->ymin), fabs(b->ymax)));
		m = (m + eps) * 1e-14 + DBL_MIN;
		b->xmin -= m;
		b->ymin -= m;
		b->xmax += m;
		b->ymax += m;
	}
}

/* read_partition's row reader: one row into the PartitionRows. */
typedef struct RowReader
{
	PartitionRows *rows;
	PostgisFns *fns;
} RowReader;

static void
read_row(void *arg, int64 row, Datum value, bool isnull)
{
	RowReader  *r = (RowReader *) arg;

	partition_rows_add(r->rows, r->fns, value, isnull);
}

/*
 * Reads every row of the partition once, in order, into *rows (allocated in
 * the current memory context).  Raises an error for a NaN or infinite
 * coordinate and for SRIDs that differ between non-NULL rows.
 */
static void
read_partition(WindowObject win, PostgisFns *fns, int64 nrows, PartitionRows *rows)
{
	RowReader	reader = {rows, fns};

	partition_rows_init(rows, nrows, CurrentMemoryContext);
	window_read_rows(win, nrows, read_row, &reader);
}

/* What the exact test of a candidate pair needs. */
typedef struct ExactTest
{
	PostgisFns *fns;
	const PartitionRows *rows;
	gd_box	   *boxes;			/* PostGIS's own boxes */
	Datum	   *geoms;			/* each non-point row's copy, by row */
	double		eps;
} ExactTest;

/*
 * Whether a candidate pair is a pair of neighbours, and which end finds the
 * other (PairTestFn): PostGIS's envelope filter each way (i's query box
 * meets j's box: i sees j), then the point predicate for two points,
 * st_dwithin otherwise (symmetric).  Runs in a memory context the caller
 * resets.
 */
static uint8
exact_test(void *arg, gd_pair p)
{
	ExactTest  *t = (ExactTest *) arg;
	const PartitionRows *rows = t->rows;
	Datum		a,
				b;
	uint8		dir = 0;

	if (envelope_reaches(&t->boxes[p.i], &t->boxes[p.j], t->eps))
		dir |= GD_EDGE_I_SEES_J;
	if (envelope_reaches(&t->boxes[p.j], &t->boxes[p.i], t->eps))
		dir |= GD_EDGE_J_SEES_I;
	if (dir == 0)
		return 0;
	if (rows->kind[p.i] == GEOM_POINT && rows->kind[p.j] == GEOM_POINT)
		return gd_within_distance(rows->x[p.i], rows->y[p.i], rows->x[p.j], rows->y[p.j], t->eps) ?
			dir : 0;

	/* a point's value: a 2D point of the partition's SRID */
	a = t->geoms[p.i] ? t->geoms[p.i] :
		gserialized_make_point(rows->x[p.i], rows->y[p.i], rows->srids.srid);
	b = t->geoms[p.j] ? t->geoms[p.j] :
		gserialized_make_point(rows->x[p.j], rows->y[p.j], rows->srids.srid);
	return postgis_dwithin(t->fns, a, b, t->eps) ? dir : 0;
}

/*
 * Clusters a partition that holds non-point geometries: candidate pairs from
 * boxes, the exact test (the point predicate for two points, st_dwithin
 * otherwise), then the neighbour graph.
 */
static void
cluster_geometries(PostgisFns *fns, const PartitionRows *rows, const ClusterJob *job)
{
	double		eps = job->eps;
	int64		n = rows->nrows;
	ExactTest	test;
	gd_pair_list list;
	instr_time	start;
	int64		k;

	INSTR_TIME_SET_CURRENT(start);

	/* each non-point row's copy, by row */
	test.geoms = MemoryContextAllocHuge(CurrentMemoryContext, Max(n, 1) * sizeof(Datum));
	memset(test.geoms, 0, Max(n, 1) * sizeof(Datum));
	for (k = 0; k < rows->nother; k++)
		test.geoms[rows->other_row[k]] = rows->other_geom[k];
	test.fns = fns;
	test.rows = rows;
	test.eps = eps;

	/* one box per row (a point is a box with min == max), grown for the core */
	test.boxes = MemoryContextAllocHuge(CurrentMemoryContext, Max(n, 1) * sizeof(gd_box));
	fill_boxes(rows, test.boxes);
	grow_boxes(test.boxes, n, eps);
	bridge_candidate_pairs(test.boxes, rows->kind, n, eps, &list);

	/* PostGIS's own boxes again, for the exact filter (nothing here can fail) */
	fill_boxes(rows, test.boxes);

	window_cluster_pairs_job(&list, exact_test, &test, rows->kind, n,
							 rows->npoints + rows->nother, job, start);
}

/* Runs job on rows through the core (see partition_rows.h). */
void
cluster_rows(PostgisFns *fns, const PartitionRows *rows, const ClusterJob *job)
{
	int64		i;

	if (rows->nother == 0)
		bridge_cluster_points_job(rows->x, rows->y, rows->kind, rows->nrows, rows->npoints,
								  job->eps, job->minpoints, job->nminpoints, job->ids,
								  job->types);
	else
		cluster_geometries(fns, rows, job);
	if (job->types)
		for (i = 0; i < rows->nrows; i++)
			if (rows->kind[i] == GEOM_NULL)
				job->types[i] = POINT_TYPE_NULL_ROW;
}

/* The PostgisFns of a window function's call site (see partition_rows.h). */
PostgisFns *
window_postgis_fns(FunctionCallInfo fcinfo)
{
	return &get_call_cache(fcinfo)->fns;
}

/* Reads the partition and runs job on it (see partition_rows.h). */
void
window_cluster_job(FunctionCallInfo fcinfo, WindowObject win, int64 nrows,
				   const ClusterJob *job)
{
	PostgisFns *fns = window_postgis_fns(fcinfo);
	MemoryContext work = AllocSetContextCreate(CurrentMemoryContext, "gpu_dbscan partition",
											   ALLOCSET_DEFAULT_SIZES);
	MemoryContext old = MemoryContextSwitchTo(work);
	PartitionRows rows;

	read_partition(win, fns, nrows, &rows);
	cluster_rows(fns, &rows, job);
	MemoryContextSwitchTo(old);
	MemoryContextDelete(work);
}

/*
 * Clusters the current partition into ids (see the file comment); runs in
 * the partition's short-lived memory context.
 */
static void
cluster_partition(FunctionCallInfo fcinfo, WindowObject win, int64 nrows, int32 *ids)
{
	CallCache  *cache = get_call_cache(fcinfo);
	PartitionRows rows;
	int32		minpoints;
	int64		minpoints64;
	ClusterJob	job;

	memset(&job, 0, sizeof(job));
	window_read_parameters(win, &job.eps, &minpoints);
	minpoints64 = minpoints;
	job.minpoints = &minpoints64;
	job.nminpoints = 1;
	job.ids = ids;
	read_partition(win, &cache->fns, nrows, &rows);
	cluster_rows(&cache->fns, &rows, &job);
}

PG_FUNCTION_INFO_V1(gpu_dbscan_window);

/*
 * gpu_dbscan(geom, eps, minpoints) OVER (...): the DBSCAN cluster id of the
 * row, NULL for noise; the clusters of ST_ClusterDBSCAN, ids 0..k-1 numbered
 * by each cluster's first row.
 */
Datum
gpu_dbscan_window(PG_FUNCTION_ARGS)
{
	return window_cluster_id(fcinfo, cluster_partition);
}

PG_FUNCTION_INFO_V1(gpu_dbscan_read_floor);

/*
 * gpu_dbscan_read_floor(geom) OVER (...): reads and decodes every row of the
 * partition exactly as gpu_dbscan does, clusters nothing, returns 0: the
 * cost below which no clustering can go.
 */
Datum
gpu_dbscan_read_floor(PG_FUNCTION_ARGS)
{
	WindowObject win = PG_WINDOW_OBJECT();
	PartitionResult *res;

	res = (PartitionResult *) WinGetPartitionLocalMemory(win, sizeof(PartitionResult));
	if (!res->done)
	{
		CallCache  *cache = get_call_cache(fcinfo);
		MemoryContext work = NULL;
		MemoryContext old = CurrentMemoryContext;
		PartitionRows rows;
		int64		nrows = window_partition_rows(win);

		/* as window_cluster_id does */
		if (nrows > WINDOW_SMALL_PARTITION_ROWS)
		{
			work = AllocSetContextCreate(CurrentMemoryContext, "gpu_dbscan read floor",
										 ALLOCSET_DEFAULT_SIZES);
			MemoryContextSwitchTo(work);
		}
		read_partition(win, &cache->fns, nrows, &rows);
		if (work)
		{
			MemoryContextSwitchTo(old);
			MemoryContextDelete(work);
		}
		res->nrows = nrows;
		res->done = true;
	}
	PG_RETURN_INT32(0);
}
