/*
 * nonpoint.c — 2D geometry rows that are not all points: candidate pairs
 * from bounding boxes (gd_candidate_pairs), PostGIS's envelope filter each
 * way and its own st_dwithin as the exact test (the point predicate for two
 * points), then the neighbour graph: the same neighbour test
 * ST_ClusterDBSCAN uses.
 */
#include "postgres.h"

#include <float.h>
#include <math.h>

#include "utils/memutils.h"

#include "cluster.h"
#include "gserialized_points.h"

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
fill_boxes(const Rows *rows, gd_box *boxes)
{
	int64		i;

	for (i = 0; i < rows->nrows; i++)
	{
		boxes[i].xmin = boxes[i].xmax = rows->coord[0][i];
		boxes[i].ymin = boxes[i].ymax = rows->coord[1][i];
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

/* What the exact test of a candidate pair needs. */
typedef struct ExactTest
{
	const Rows *rows;
	gd_box	   *boxes;			/* PostGIS's own boxes */
	Datum	   *geoms;			/* each non-point row's copy, by row */
	double		eps;
} ExactTest;

/*
 * Whether a candidate pair is a pair of neighbours, and which end finds the
 * other (PairTestFn): PostGIS's envelope filter each way (i's query box
 * meets j's box: i sees j), then the point predicate for two points,
 * st_dwithin otherwise (symmetric).
 */
static uint8
exact_test(void *arg, gd_pair p)
{
	ExactTest  *t = (ExactTest *) arg;
	const Rows *rows = t->rows;
	const double *x = rows->coord[0];
	const double *y = rows->coord[1];
	Datum		a,
				b;
	uint8		dir = 0;

	if (envelope_reaches(&t->boxes[p.i], &t->boxes[p.j], t->eps))
		dir |= GD_EDGE_I_SEES_J;
	if (envelope_reaches(&t->boxes[p.j], &t->boxes[p.i], t->eps))
		dir |= GD_EDGE_J_SEES_I;
	if (dir == 0)
		return 0;
	if (rows->kind[p.i] == GD_ROW_POINT && rows->kind[p.j] == GD_ROW_POINT)
		return gd_within_distance(x[p.i], y[p.i], x[p.j], y[p.j], t->eps) ? dir : 0;

	/* a point's value: a 2D point of the partition's SRID */
	a = t->geoms[p.i] ? t->geoms[p.i] : gserialized_make_point(x[p.i], y[p.i], rows->srids.srid);
	b = t->geoms[p.j] ? t->geoms[p.j] : gserialized_make_point(x[p.j], y[p.j], rows->srids.srid);
	return postgis_dwithin(&rows->fns->geometry, a, b, t->eps) ? dir : 0;
}

/* 2D geometry rows with non-point rows (see cluster.h). */
void
cluster_geometries(const Rows *rows, const ClusterJob *job)
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
	test.rows = rows;
	test.eps = job->eps;

	/* one box per row (a point is a box with min == max), grown for the core */
	test.boxes = MemoryContextAllocHuge(CurrentMemoryContext, Max(n, 1) * sizeof(gd_box));
	fill_boxes(rows, test.boxes);
	grow_boxes(test.boxes, n, job->eps);
	core_candidate_pairs(test.boxes, rows->kind, n, job->eps, &list);

	/* PostGIS's own boxes again, for the exact filter (nothing here can fail) */
	fill_boxes(rows, test.boxes);

	cluster_pairs(&list, exact_test, &test, rows, job, start);
}
