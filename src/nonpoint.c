/*
 * nonpoint.c — 2D geometry rows that are not all points: candidate pairs
 * from bounding boxes (gd_candidate_pairs), PostGIS's envelope filter each
 * way and its own st_dwithin as the exact test (the point predicate for two
 * points), then the neighbour graph: the same neighbour test
 * ST_ClusterDBSCAN uses.  Where st_dwithin has many pairs to decide, parallel
 * workers share them (nonpoint_parallel.c).
 */
#include "postgres.h"

#include <float.h>
#include <math.h>

#include "miscadmin.h"
#include "utils/memutils.h"

#include "cluster.h"
#include "gserialized_points.h"
#include "memory_budget.h"
#include "nonpoint_parallel.h"

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
	NonpointValues values;		/* st_dwithin's arguments */
} ExactTest;

/*
 * Which end of a candidate pair finds the other by PostGIS's envelope
 * filter each way (i's query box meets j's box: i sees j); *ask, when the
 * filter passes and either end is not a point, that st_dwithin decides
 * (symmetric), else the point predicate has.
 */
static uint8
envelope_then_points(const ExactTest *t, gd_pair p, bool *ask)
{
	const Rows *rows = t->rows;
	uint8		dir = 0;

	*ask = false;
	if (envelope_reaches(&t->boxes[p.i], &t->boxes[p.j], t->values.eps))
		dir |= GD_EDGE_I_SEES_J;
	if (envelope_reaches(&t->boxes[p.j], &t->boxes[p.i], t->values.eps))
		dir |= GD_EDGE_J_SEES_I;
	if (dir == 0)
		return 0;
	if (rows->kind[p.i] == GD_ROW_POINT && rows->kind[p.j] == GD_ROW_POINT)
		return gd_within_distance(t->values.x[p.i], t->values.y[p.i], t->values.x[p.j],
								  t->values.y[p.j], t->values.eps) ? dir : 0;
	*ask = true;
	return dir;
}

/* Whether a candidate pair is a pair of neighbours, and which end finds the other (PairTestFn). */
static uint8
exact_test(void *arg, gd_pair p)
{
	ExactTest  *t = (ExactTest *) arg;
	bool		ask;
	uint8		dir = envelope_then_points(t, p, &ask);

	if (!ask)
		return dir;
	return postgis_dwithin(&t->rows->fns->geometry, nonpoint_value(&t->values, p.i),
						   nonpoint_value(&t->values, p.j), t->values.eps) ? dir : 0;
}

/*
 * exact_test on every pair, with the st_dwithin calls in parallel workers
 * where they are many (PairTestAllFn): the filter once per pair (its
 * direction kept, ASKED marking the pairs st_dwithin decides), the asked
 * pairs' answers from nonpoint_dwithin_parallel, then the pairs kept as
 * test_pairs keeps them.
 */
#define ASKED 0x80

static int64
exact_test_all(void *arg, gd_pair_list *list, uint8 *dirs)
{
	ExactTest  *t = (ExactTest *) arg;
	uint8	   *dir;
	int64		nasks = 0;
	double		cost_us = 0;
	int64		kept = 0;
	int64		a = 0;
	int			nworkers;
	gd_pair    *asks;
	uint8	   *ok;

	StaticAssertStmt((GD_EDGE_BOTH & ASKED) == 0, "ASKED is a bit of its own");
	if (!nonpoint_parallel_possible())
		return -1;
	dir = gd_alloc_charged(CurrentMemoryContext, Max(list->count, 1), "the exact tests");
	for (int64 k = 0; k < list->count; k++)
	{
		bool		ask;

		if (k % 65536 == 0)
			CHECK_FOR_INTERRUPTS();
		dir[k] = envelope_then_points(t, list->pairs[k], &ask);
		if (ask)
		{
			dir[k] |= ASKED;
			nasks++;
			cost_us += nonpoint_ask_cost(&t->values, list->pairs[k]);
		}
	}
	nworkers = nonpoint_test_workers(nasks, cost_us);
	if (nworkers == 0)
	{
		pfree(dir);
		return -1;
	}

	asks = gd_alloc_charged(CurrentMemoryContext, nasks * sizeof(gd_pair), "the exact tests");
	for (int64 k = 0; k < list->count; k++)
		if (dir[k] & ASKED)
			asks[a++] = list->pairs[k];
	t->values.dwithin = postgis_dwithin_oid(&t->rows->fns->geometry);
	ok = gd_alloc_charged(CurrentMemoryContext, nasks, "the exact tests");
	if (!nonpoint_dwithin_parallel(&t->values, asks, nasks, nworkers, ok))
	{
		pfree(dir);
		pfree(asks);
		pfree(ok);
		return -1;
	}

	a = 0;
	for (int64 k = 0; k < list->count; k++)
	{
		uint8		d = dir[k];

		if ((d & ASKED) && !ok[a++])
			d = 0;
		d &= ~ASKED;
		if (d != 0)
			keep_pair(list, dirs, &kept, k, d);
	}
	pfree(dir);
	pfree(asks);
	pfree(ok);
	return kept;
}

/* 2D geometry rows with non-point rows (see cluster.h). */
void
cluster_geometries(const Rows *rows, const ClusterJob *job)
{
	int64		n = rows->nrows;
	ExactTest	test;
	Datum	   *geoms;
	gd_pair_list list;
	instr_time	start;
	int64		k;

	INSTR_TIME_SET_CURRENT(start);

	/* each non-point row's copy, by row */
	geoms = MemoryContextAllocHuge(CurrentMemoryContext, Max(n, 1) * sizeof(Datum));
	memset(geoms, 0, Max(n, 1) * sizeof(Datum));
	for (k = 0; k < rows->nother; k++)
		geoms[rows->other_row[k]] = rows->other_geom[k];
	test.rows = rows;
	test.values.nrows = n;
	test.values.x = rows->coord[0];
	test.values.y = rows->coord[1];
	test.values.srid = rows->srids.srid;
	test.values.geoms = geoms;
	test.values.eps = job->eps;
	test.values.dwithin = InvalidOid;

	/* one box per row (a point is a box with min == max), grown for the core */
	test.boxes = MemoryContextAllocHuge(CurrentMemoryContext, Max(n, 1) * sizeof(gd_box));
	fill_boxes(rows, test.boxes);
	grow_boxes(test.boxes, n, job->eps);
	core_candidate_pairs(test.boxes, rows->kind, n, job->eps, &list);

	/* PostGIS's own boxes again, for the exact filter (nothing here can fail) */
	fill_boxes(rows, test.boxes);

	cluster_pairs(&list, exact_test, exact_test_all, &test, rows, job, start);
}
