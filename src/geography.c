/*
 * geography.c — clustering geography points (every gpu_dbscan* function
 * over geography) with eps in metres on the sphere.  Two rows i < j are
 * neighbours when PostGIS's st_dwithin(geog_i, geog_j, eps, false) says so;
 * the rules and ids are those of gpu_dbscan.
 *
 * Each point goes to the unit sphere (x, y, z).  Every pair within eps has
 * its chord within 2 sin(theta / 2), theta = eps / R widened by a margin
 * (outer_chord), R the radius of the sphere PostGIS uses for the
 * partition's SRID; every pair whose chord is within theta narrowed by the
 * same kind of margin (inner_chord) is within eps.  Only the pairs between
 * the two chords need PostGIS's own st_dwithin(geography, geography,
 * float8, boolean) with use_spheroid false, called through fmgr.  Where the
 * pairs within the outer chord are few (GEOG_LIST_PAIRS a point), the core
 * lists them, st_dwithin decides those outside the inner chord, and the
 * core's graph clustering runs the job on the pairs that pass.  Where they
 * are more, or the GPU clusters, the core lists the band between the chords
 * (gd_neighbour_pairs_nd_band); where every pair of it that st_dwithin
 * takes has a shorter chord than every one it leaves (almost always: the
 * band is a millionth of eps wide or less, and PostGIS's distance grows
 * with the chord but for rounding), the relation is the chord's at one
 * threshold between them, as the core computes a chord, and the unit
 * vectors are clustered as 3-D points at it (core_cluster_points_nd: ids,
 * point types, a sweep; no list of pairs); otherwise the full list after
 * all.
 *
 * Why no pair within eps is missed: for two points PostGIS computes
 * R * atan2(a, b) (sphere_distance) and compares it with eps.  The angle it
 * computes is within about 1e-15 rad of the true angle between its two
 * points, R is read from PostGIS itself (st_distance of (0 0) and (90 0)
 * over pi / 2, good to 1e-15), and our unit vectors are within about 1e-15 of
 * PostGIS's points (same degrees-to-radians step, same folding of latitudes
 * beyond the poles).  The list widens theta by 1e-9 of itself plus 1e-12 rad
 * and the chord by 1e-12 of itself plus 1e-12: a thousand times those errors.
 * Pairs in the margin are listed and rejected by st_dwithin.  The same
 * errors bound the other side: a pair inside the narrowed chord has a true
 * angle below eps / R by more than 1e-10 rad, so PostGIS's computed distance
 * is below eps, and st_dwithin would say yes.  Longitudes
 * need no care: the antimeridian is no seam on the sphere, and a pole is one
 * point whatever its longitude.
 *
 * Only points (rows.c refuses other geographies).  The searches and the
 * clustering as points run where gpu_dbscan.backend says; the st_dwithin
 * calls and the graph of the full pair path run here, on the CPU.
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "miscadmin.h"
#include "utils/memutils.h"

#include "cluster.h"
#include "geography.h"
#include "gserialized_points.h"
#include "postgis_fn.h"

/* Fills fns (see geography.h). */
void
geography_fns_init(GeogFns *fns, Oid geography_type, MemoryContext cxt)
{
	memset(fns, 0, sizeof(*fns));
	fns->geography_type = geography_type;
	fns->cxt = cxt;
}

/* PostGIS's st_dwithin and st_distance for geography, looked up once. */
static void
lookup_fns(GeogFns *fns)
{
	Oid			dwithin_args[4];
	Oid			distance_args[3];

	if (fns->ready)
		return;
	if (!OidIsValid(fns->geography_type))
		elog(ERROR, "gpu_dbscan: could not determine the type of the geography argument");
	dwithin_args[0] = dwithin_args[1] = distance_args[0] = distance_args[1] = fns->geography_type;
	dwithin_args[2] = FLOAT8OID;
	dwithin_args[3] = distance_args[2] = BOOLOID;
	postgis_lookup_function(fns->geography_type, "st_dwithin", 4, dwithin_args, &fns->dwithin,
							fns->cxt);
	postgis_lookup_function(fns->geography_type, "st_distance", 3, distance_args, &fns->distance,
							fns->cxt);
	fns->ready = true;
}

/*
 * The radius of the sphere PostGIS measures on for srid (use_spheroid
 * false): the distance from (0 0) to (90 0) over pi / 2.
 */
static double
sphere_radius(GeogFns *fns, int32 srid)
{
	void	   *a,
			   *b;
	double		r;

	if (fns->radius > 0 && fns->radius_srid == srid)
		return fns->radius;
	lookup_fns(fns);
	a = palloc(GSERIALIZED_POINT_SIZE);
	b = palloc(GSERIALIZED_POINT_SIZE);
	gserialized_write_point(a, 0, 0, srid, true);
	gserialized_write_point(b, 90, 0, srid, true);
	r = DatumGetFloat8(FunctionCall3(&fns->distance, PointerGetDatum(a), PointerGetDatum(b),
									 BoolGetDatum(false))) / M_PI_2;
	if (!(r > 0 && isfinite(r)))
		elog(ERROR, "gpu_dbscan: PostGIS gave no sphere radius for SRID %d", srid);
	fns->radius_srid = srid;
	fns->radius = r;
	return r;
}

/*
 * A latitude in radians folded back into [-pi/2, pi/2] at the poles, the
 * longitude left alone: what PostGIS's geographic_point_init does with
 * latitudes beyond the poles.
 */
static double
fold_latitude(double lat)
{
	if (lat > 2.0 * M_PI)
		lat = remainder(lat, 2.0 * M_PI);
	if (lat < -2.0 * M_PI)
		lat = remainder(lat, -2.0 * M_PI);
	if (lat > M_PI)
		lat = M_PI - lat;
	if (lat < -M_PI)
		lat = -M_PI - lat;
	if (lat > M_PI_2)
		lat = M_PI - lat;
	if (lat < -M_PI_2)
		lat = -M_PI - lat;
	return lat;
}

/* Unit-sphere xyz of every point row (0 elsewhere), 3 per row. */
static double *
unit_vectors(const Rows *rows)
{
	double	   *xyz = MemoryContextAllocHuge(CurrentMemoryContext,
											 Max(rows->nrows, 1) * 3 * sizeof(double));
	int64		r;

	for (r = 0; r < rows->nrows; r++)
	{
		double		lon = M_PI * rows->coord[0][r] / 180.0;
		double		lat = fold_latitude(M_PI * rows->coord[1][r] / 180.0);

		xyz[3 * r] = cos(lat) * cos(lon);
		xyz[3 * r + 1] = cos(lat) * sin(lon);
		xyz[3 * r + 2] = sin(lat);
	}
	return xyz;
}

/* What the exact test of a candidate pair needs. */
typedef struct GeogTest
{
	FmgrInfo   *dwithin;
	const Rows *rows;			/* the points, serialized for st_dwithin when it is asked */
	char	   *pair;			/* room for two serialized points (PostGIS's cache of an
								 * argument keeps a copy, compared by its bytes) */
	double		eps;
	const double *xyz;			/* each row's unit vector (unit_vectors) */
	double		inside;			/* a chord this short is within eps (inner_chord; < 0: none) */
} GeogTest;

/*
 * The chord below which two of our unit vectors are certainly
 * within eps by PostGIS's own test, or -1 where no chord is: the mirror of
 * the widened chord of the pair list (see the file comment).  The angle is
 * narrowed by 1e-9 of itself and 1e-10 rad (a hundred thousand times the
 * two sides' errors of about 1e-15 rad together), the chord by 1e-12 of
 * itself and 1e-12, more than the rounding of a chord's square.  A
 * pair inside it is within eps without st_dwithin; the pairs between it and
 * the list's chord (about 1e-9 of eps wide) are decided by st_dwithin.
 */
static double
inner_chord(double eps, double radius)
{
	double		theta = eps / radius * (1 - 1e-9) - 1e-10;
	double		chord;

	if (theta <= 0)
		return -1;
	chord = 2.0 * sin(Min(theta, M_PI) / 2) * (1 - 1e-12) - 1e-12;
	return chord > 0 ? chord : -1;
}

/*
 * st_dwithin(geog_i, geog_j, eps, false) for a candidate pair i < j, without
 * the call where the chord alone decides (inner_chord).
 */
static uint8
geog_dwithin(void *arg, gd_pair p)
{
	GeogTest   *t = (GeogTest *) arg;
	const double *a = t->xyz + 3 * (int64) p.i;
	const double *b = t->xyz + 3 * (int64) p.j;
	double		d0 = a[0] - b[0],
				d1 = a[1] - b[1],
				d2 = a[2] - b[2];

	/* a symmetric relation: both ends see each other */
	if (t->inside >= 0 && d0 * d0 + d1 * d1 + d2 * d2 <= t->inside * t->inside)
		return GD_EDGE_BOTH;
	gserialized_write_point(t->pair, t->rows->coord[0][p.i], t->rows->coord[1][p.i],
							t->rows->srids.srid, true);
	gserialized_write_point(t->pair + GSERIALIZED_POINT_SIZE, t->rows->coord[0][p.j],
							t->rows->coord[1][p.j], t->rows->srids.srid, true);
	return DatumGetBool(FunctionCall4(t->dwithin, PointerGetDatum(t->pair),
									  PointerGetDatum(t->pair + GSERIALIZED_POINT_SIZE),
									  Float8GetDatum(t->eps), BoolGetDatum(false))) ?
		GD_EDGE_BOTH : 0;
}

/*
 * Pairs a point up to which a partition's pairs are listed and tested one by
 * one on the CPU (one search and a graph of the pairs cost less than a
 * search and a whole clustering while they are few: 100,000 clumped points,
 * 4 pairs a point, 53 against 78 ms on two cores); beyond it, the band and
 * the clustering as points (no list held).  On the GPU always the band: the
 * graph of a list runs on the CPU (10M points, 4 to 16 pairs a point: 2.9 to
 * 13.4 s on the H200 host, where the device clusters them as points in a
 * fraction of a second).
 */
#define GEOG_LIST_PAIRS 16

/* The chord of the pair list: every pair within eps is within it (file comment). */
static double
outer_chord(double eps, double radius)
{
	double		theta = eps / radius * (1 + 1e-9) + 1e-12;
	double		chord = theta >= M_PI ? 2.0 : 2.0 * sin(theta / 2);

	return chord * (1 + 1e-12) + 1e-12;
}

/*
 * A pair's chord as the core's neighbour test computes it (within_eps_d,
 * core/rules/neighbour.hpp: the differences squared and summed in axis
 * order, each step rounded, then the square root).
 */
static double
core_chord(const double *xyz, gd_pair p)
{
	const double *a = xyz + 3 * (int64) p.i;
	const double *b = xyz + 3 * (int64) p.j;
	double		d0 = b[0] - a[0],
				d1 = b[1] - a[1],
				d2 = b[2] - a[2];
	double		s = d0 * d0;

	s = s + d1 * d1;
	s = s + d2 * d2;
	return sqrt(s);
}

/*
 * PostGIS's answer on each pair of band (the pairs between the two chords):
 * *taken and *left count the yes and no, *longest_in is the longest chord
 * of a yes (0 for none) and *shortest_out the shortest of a no (INFINITY
 * for none).  The list is freed.
 */
static void
decide_band(gd_pair_list *band, GeogTest *test, int64 *taken, int64 *left,
			double *longest_in, double *shortest_out)
{
	MemoryContext work = CurrentMemoryContext;
	MemoryContext scratch = AllocSetContextCreate(work, "gpu_dbscan band test",
												  ALLOCSET_SMALL_SIZES);

	*taken = *left = 0;
	*longest_in = 0;
	*shortest_out = INFINITY;
	PG_TRY();
	{
		MemoryContextSwitchTo(scratch);
		for (int64 k = 0; k < band->count; k++)
		{
			double		chord = core_chord(test->xyz, band->pairs[k]);

			if (k % 1024 == 0)
			{
				CHECK_FOR_INTERRUPTS();
				MemoryContextReset(scratch);
			}
			if (geog_dwithin(test, band->pairs[k]))
			{
				(*taken)++;
				*longest_in = Max(*longest_in, chord);
			}
			else
			{
				(*left)++;
				*shortest_out = Min(*shortest_out, chord);
			}
		}
		MemoryContextSwitchTo(work);
	}
	PG_FINALLY();
	{
		gd_pair_list_free(band);
	}
	PG_END_TRY();
	MemoryContextDelete(scratch);
}

/* Geography points (see cluster.h and the file comment). */
void
cluster_geography(const Rows *rows, const ClusterJob *job)
{
	GeogFns    *fns = &rows->fns->geography;
	int64		nrows = rows->nrows;
	GeogTest	test;
	double	   *xyz;
	double		radius;
	double		outer;
	int64		taken;
	int64		left;
	double		longest_in;
	double		shortest_out;
	gd_pair_list list;
	instr_time	start;

	INSTR_TIME_SET_CURRENT(start);
	if (rows->npoints < 2)
		radius = 1;				/* no pair to test: no need to ask PostGIS */
	else
		radius = sphere_radius(fns, rows->srids.srid);

	/* Beyond half the circumference every pair is within eps. */
	if (job->eps >= radius * M_PI * (1 + 1e-9))
	{
		ClusterJob	all = *job;

		all.eps = INFINITY;
		core_cluster_points(rows->coord[0], rows->coord[1], rows->kind, nrows, rows->npoints,
							&all, false);
		return;
	}

	lookup_fns(fns);
	test.dwithin = &fns->dwithin;
	test.eps = job->eps;
	test.rows = rows;
	test.pair = palloc(2 * GSERIALIZED_POINT_SIZE);
	xyz = unit_vectors(rows);
	test.xyz = xyz;
	test.inside = inner_chord(job->eps, radius);
	outer = outer_chord(job->eps, radius);

	/* Few pairs (a few a point), on the CPU: their list, and the graph of those that pass. */
	if (!core_prefers_gpu(nrows) &&
		core_neighbour_pairs_nd(xyz, 3, rows->kind, nrows, -1, outer,
								GEOG_LIST_PAIRS * Max(rows->npoints, 1), &list))
	{
		cluster_pairs(&list, geog_dwithin, NULL, &test, rows, job, start);
		return;
	}

	/*
	 * More: where PostGIS says the same of every pair between the two chords
	 * (on data that is not built on eps, there is rarely a pair there at
	 * all), the relation is the chord's at one threshold, and the unit
	 * vectors are clustered as 3-D points, on the back end gpu_dbscan.backend
	 * chooses, with no list of pairs.
	 */
	core_neighbour_pairs_nd(xyz, 3, rows->kind, nrows, test.inside, outer, 0, &list);
	decide_band(&list, &test, &taken, &left, &longest_in, &shortest_out);
	if (left == 0 || (taken == 0 && test.inside >= 0) ||
		shortest_out - longest_in > 1e-14 * shortest_out)
	{
		ClusterJob	chords = *job;

		/*
		 * Every pair of the band that PostGIS takes is shorter than every one
		 * it leaves (by more than the core's rounding of a chord): a threshold
		 * between them is the relation, as the outer or the inner chord is
		 * where it takes all or none.
		 */
		chords.eps = left == 0 ? outer : taken == 0 && test.inside >= 0 ? test.inside :
			longest_in + (shortest_out - longest_in) / 2;
		core_cluster_points_nd(xyz, 3, rows->kind, nrows, rows->npoints, &chords);
		return;
	}
	core_neighbour_pairs_nd(xyz, 3, rows->kind, nrows, -1, outer, 0, &list);
	cluster_pairs(&list, geog_dwithin, NULL, &test, rows, job, start);
}
