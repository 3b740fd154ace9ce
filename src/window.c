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
#include "postgis_fn.h"
#include "window_common.h"

StaticAssertDecl((int) GEOM_POINT == (int) GD_ROW_POINT &&
				 (int) GEOM_EMPTY == (int) GD_ROW_EMPTY &&
				 (int) GEOM_NULL == (int) GD_ROW_NULL &&
				 (int) GEOM_OTHER == (int) GD_ROW_OTHER,
				 "GeomKind must match gd_row_kind");

/* Rows (or pairs) between two checks for a query cancel. */
#define INTERRUPT_CHECK_INTERVAL 4096

/* What a call site keeps across partitions (flinfo->fn_extra). */
typedef struct CallCache
{
	PostgisFns	fns;
} CallCache;

/* A partition's rows, read once. */
typedef struct PartitionRows
{
	int64		nrows;
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
	int32		srid;			/* of every non-NULL row */
} PartitionRows;

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

/* PostGIS's neighbour test for two points, bit for bit (no fused multiply-add). */
static inline bool
points_within(double px, double py, double qx, double qy, double eps)
{
	double		dx = qx - px;
	double		dy = qy - py;

	return sqrt(dx * dx + dy * dy) <= eps;
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

/*
 * Appends a non-point row to rows->other_*: its box and a detoasted copy of
 * its value (allocated in the current memory context), so that the exact
 * test needs no second read of the partition.
 */
static void
add_other(PartitionRows *rows, int64 row, const GeomInfo *g, Datum geom)
{
	if (rows->nother == rows->other_cap)
	{
		int64		cap = rows->other_cap ? rows->other_cap * 2 : 64;

		if (rows->other_row == NULL)
		{
			rows->other_row = MemoryContextAllocHuge(CurrentMemoryContext, cap * sizeof(int64));
			rows->other_box = MemoryContextAllocHuge(CurrentMemoryContext, cap * sizeof(gd_box));
			rows->other_geom = MemoryContextAllocHuge(CurrentMemoryContext, cap * sizeof(Datum));
		}
		else
		{
			rows->other_row = repalloc_huge(rows->other_row, cap * sizeof(int64));
			rows->other_box = repalloc_huge(rows->other_box, cap * sizeof(gd_box));
			rows->other_geom = repalloc_huge(rows->other_geom, cap * sizeof(Datum));
		}
		rows->other_cap = cap;
	}
	rows->other_row[rows->nother] = row;
	rows->other_box[rows->nother].xmin = g->xmin;
	rows->other_box[rows->nother].ymin = g->ymin;
	rows->other_box[rows->nother].xmax = g->xmax;
	rows->other_box[rows->nother].ymax = g->ymax;
	rows->other_geom[rows->nother] = PointerGetDatum(PG_DETOAST_DATUM_COPY(geom));
	rows->nother++;
}

/*
 * Reads every row of the partition once, in order, into *rows (allocated in
 * the current memory context).  Raises an error for a NaN or infinite
 * coordinate and for SRIDs that differ between non-NULL rows.
 */
static void
read_partition(WindowObject win, PostgisFns *fns, int64 nrows, PartitionRows *rows)
{
	MemoryContext work = CurrentMemoryContext;
	MemoryContext scratch;
	SridCheck	srids = {0};
	int64		i;

	memset(rows, 0, sizeof(*rows));
	rows->nrows = nrows;
	rows->kind = MemoryContextAllocHuge(work, Max(nrows, 1) * sizeof(uint8));
	rows->x = MemoryContextAllocHuge(work, Max(nrows, 1) * sizeof(double));
	rows->y = MemoryContextAllocHuge(work, Max(nrows, 1) * sizeof(double));

	/* argument evaluation and detoasting of one row happen here */
	scratch = AllocSetContextCreate(work, "gpu_dbscan row", ALLOCSET_SMALL_SIZES);

	for (i = 0; i < nrows; i++)
	{
		GeomInfo	g;
		bool		isnull;
		Datum		d;

		if (i % INTERRUPT_CHECK_INTERVAL == 0)
			CHECK_FOR_INTERRUPTS();

		MemoryContextSwitchTo(scratch);
		d = WinGetFuncArgInPartition(win, 0, (int) i, WINDOW_SEEK_HEAD, false, &isnull, NULL);
		if (!isnull)
			gserialized_decode(d, fns, &g);
		MemoryContextSwitchTo(work);

		rows->x[i] = 0.0;
		rows->y[i] = 0.0;
		if (isnull)
		{
			rows->kind[i] = GEOM_NULL;
			MemoryContextReset(scratch);
			continue;
		}
		rows->kind[i] = (uint8) g.kind;

		if (!g.finite)
			window_error_nonfinite(i);
		window_check_srid(&srids, g.srid, i);

		if (g.kind == GEOM_POINT)
		{
			rows->x[i] = g.x;
			rows->y[i] = g.y;
			rows->npoints++;
		}
		else if (g.kind == GEOM_OTHER)
			add_other(rows, i, &g, d);
		MemoryContextReset(scratch);
	}

	rows->srid = srids.srid;
	MemoryContextDelete(scratch);
}

/* What the exact test of a candidate pair needs. */
typedef struct ExactTest
{
	PostgisFns *fns;
	PartitionRows *rows;
	gd_box	   *boxes;			/* PostGIS's own boxes */
	Datum	   *geoms;			/* each non-point row's copy, by row */
	double		eps;
} ExactTest;

/*
 * Whether a candidate pair is a pair of neighbours: PostGIS's envelope
 * filter, then the point predicate for two points, st_dwithin otherwise.
 * Runs in a memory context the caller resets.
 */
static bool
exact_test(void *arg, gd_pair p)
{
	ExactTest  *t = (ExactTest *) arg;
	PartitionRows *rows = t->rows;
	Datum		a,
				b;

	if (!envelope_reaches(&t->boxes[p.i], &t->boxes[p.j], t->eps) &&
		!envelope_reaches(&t->boxes[p.j], &t->boxes[p.i], t->eps))
		return false;
	if (rows->kind[p.i] == GEOM_POINT && rows->kind[p.j] == GEOM_POINT)
		return points_within(rows->x[p.i], rows->y[p.i], rows->x[p.j], rows->y[p.j], t->eps);

	/* a point's value: a 2D point of the partition's SRID */
	a = t->geoms[p.i] ? t->geoms[p.i] :
		gserialized_make_point(rows->x[p.i], rows->y[p.i], rows->srid);
	b = t->geoms[p.j] ? t->geoms[p.j] :
		gserialized_make_point(rows->x[p.j], rows->y[p.j], rows->srid);
	return postgis_dwithin(t->fns, a, b, t->eps);
}

/*
 * Clusters a partition that holds non-point geometries: candidate pairs from
 * boxes, the exact test (the point predicate for two points, st_dwithin
 * otherwise), then the neighbour graph.
 */
static void
cluster_geometries(PostgisFns *fns, PartitionRows *rows, double eps, int64 minpoints,
				   int32 *ids)
{
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

	window_cluster_pairs(&list, exact_test, &test, rows->kind, n,
						 rows->npoints + rows->nother, minpoints, ids, start);
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
	double		eps;
	int32		minpoints;

	window_read_parameters(win, &eps, &minpoints);
	read_partition(win, &cache->fns, nrows, &rows);
	if (rows.nother == 0)
		bridge_cluster_points(rows.x, rows.y, rows.kind, nrows, rows.npoints,
							  eps, minpoints, ids);
	else
		cluster_geometries(&cache->fns, &rows, eps, minpoints, ids);
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
		MemoryContext work;
		MemoryContext old;
		PartitionRows rows;
		int64		nrows = window_partition_rows(win);

		work = AllocSetContextCreate(CurrentMemoryContext, "gpu_dbscan read floor",
									 ALLOCSET_DEFAULT_SIZES);
		old = MemoryContextSwitchTo(work);
		read_partition(win, &cache->fns, nrows, &rows);
		MemoryContextSwitchTo(old);
		MemoryContextDelete(work);
		res->nrows = nrows;
		res->done = true;
	}
	PG_RETURN_INT32(0);
}
