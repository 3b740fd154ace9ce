/*
 * geography.c — gpu_dbscan(geog geography, eps_m, minpoints) OVER (...):
 * DBSCAN of geography points with eps in metres on the sphere.  Two rows
 * i < j are neighbours when PostGIS's st_dwithin(geog_i, geog_j, eps, false)
 * says so; the rules and ids are those of gpu_dbscan.
 *
 * The pairs to test come from the core: each point goes to the unit sphere
 * (x, y, z), and gd_neighbour_pairs_nd lists the pairs whose chord is within
 * 2 sin(theta / 2), theta = eps / R widened by a margin, R the radius of the
 * sphere PostGIS uses for the partition's SRID.  Each listed pair is then
 * decided by PostGIS's own st_dwithin(geography, geography, float8, boolean)
 * with use_spheroid false, called through fmgr, and gd_cluster_graph
 * clusters the pairs that pass.
 *
 * Why no pair within eps is missed: for two points PostGIS computes
 * R * atan2(a, b) (sphere_distance) and compares it with eps.  The angle it
 * computes is within about 1e-15 rad of the true angle between its two
 * points, R is read from PostGIS itself (st_distance of (0 0) and (90 0)
 * over pi / 2, good to 1e-15), and our unit vectors are within about 1e-15 of
 * PostGIS's points (same degrees-to-radians step, same folding of latitudes
 * beyond the poles).  The list widens theta by 1e-9 of itself plus 1e-12 rad
 * and the chord by 1e-12 of itself plus 1e-12: a thousand times those errors.
 * Pairs in the margin are listed and rejected by st_dwithin.  Longitudes
 * need no care: the antimeridian is no seam on the sphere, and a pole is one
 * point whatever its longitude.
 *
 * Only points: other geographies (lines, polygons, collections) are an
 * error.  The work runs on the CPU whatever gpu_dbscan.backend says.
 */
#include "gd_core.h"			/* before postgres.h: see core_bridge.h */

#include "postgres.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "miscadmin.h"
#include "portability/instr_time.h"
#include "utils/memutils.h"
#include "windowapi.h"

#include "core_bridge.h"
#include "gserialized_points.h"
#include "postgis_fn.h"
#include "window_common.h"

/* What a call site keeps across partitions (flinfo->fn_extra). */
typedef struct GeogCache
{
	FmgrInfo	dwithin;		/* st_dwithin(geography, geography, float8, boolean) */
	FmgrInfo	distance;		/* st_distance(geography, geography, boolean) */
	int32		radius_srid;
	double		radius;			/* metres; 0 until known for radius_srid */
} GeogCache;

/* A partition's rows, read once. */
typedef struct GeogRows
{
	int64		nrows;
	uint8	   *kind;			/* gd_row_kind per row */
	double	   *lonlat;			/* degrees, 2 per row */
	int64		npoints;
	SridCheck	srids;
} GeogRows;

/* PostGIS's st_dwithin and st_distance for geography, looked up for a call site. */
static GeogCache *
new_geog_cache(FmgrInfo *flinfo)
{
	Oid			geography_type = get_fn_expr_argtype(flinfo, 0);
	GeogCache  *cache = MemoryContextAllocZero(flinfo->fn_mcxt, sizeof(GeogCache));
	Oid			dwithin_args[4];
	Oid			distance_args[3];

	if (!OidIsValid(geography_type))
		elog(ERROR, "gpu_dbscan: could not determine the type of the geography argument");
	dwithin_args[0] = dwithin_args[1] = distance_args[0] = distance_args[1] = geography_type;
	dwithin_args[2] = FLOAT8OID;
	dwithin_args[3] = distance_args[2] = BOOLOID;
	postgis_lookup_function(geography_type, "st_dwithin", 4, dwithin_args, &cache->dwithin,
							flinfo->fn_mcxt);
	postgis_lookup_function(geography_type, "st_distance", 3, distance_args, &cache->distance,
							flinfo->fn_mcxt);
	return cache;
}

/* The call site's cache (flinfo->fn_extra), created on first use. */
static GeogCache *
get_geog_cache(FunctionCallInfo fcinfo)
{
	FmgrInfo   *flinfo = fcinfo->flinfo;

	if (flinfo->fn_extra == NULL)
		flinfo->fn_extra = new_geog_cache(flinfo);
	return (GeogCache *) flinfo->fn_extra;
}

/*
 * The radius of the sphere PostGIS measures on for srid (use_spheroid
 * false): the distance from (0 0) to (90 0) over pi / 2.
 */
static double
sphere_radius(GeogCache *cache, int32 srid)
{
	void	   *a,
			   *b;
	double		r;

	if (cache->radius > 0 && cache->radius_srid == srid)
		return cache->radius;
	a = palloc(GSERIALIZED_POINT_SIZE);
	b = palloc(GSERIALIZED_POINT_SIZE);
	gserialized_write_point(a, 0, 0, srid, true);
	gserialized_write_point(b, 90, 0, srid, true);
	r = DatumGetFloat8(FunctionCall3(&cache->distance, PointerGetDatum(a), PointerGetDatum(b),
									 BoolGetDatum(false))) / M_PI_2;
	if (!(r > 0 && isfinite(r)))
		elog(ERROR, "gpu_dbscan: PostGIS gave no sphere radius for SRID %d", srid);
	cache->radius_srid = srid;
	cache->radius = r;
	return r;
}

/* One geography row: a point, an EMPTY geography or NULL; else an error. */
static void
read_geog_point(void *arg, int64 row, Datum value, bool isnull)
{
	GeogRows   *rows = (GeogRows *) arg;
	GeomInfo	g;

	rows->lonlat[2 * row] = rows->lonlat[2 * row + 1] = 0.0;
	if (isnull)
	{
		rows->kind[row] = GD_ROW_NULL;
		return;
	}
	gserialized_decode_geography(value, &g);
	if (g.malformed)
		window_error_malformed(row, g.malformed);
	if (g.kind == GEOM_OTHER)
		window_row_error(row, ERRCODE_FEATURE_NOT_SUPPORTED,
						 "gpu_dbscan: only geography points can be clustered",
						 "Cluster a point of each shape (for example ST_PointOnSurface(geog::geometry)::geography), or cluster the shapes as geometry.");
	if (!g.finite)
		window_error_nonfinite(row);
	window_check_srid(&rows->srids, g.srid, row);
	rows->kind[row] = (uint8) g.kind;
	if (g.kind == GEOM_POINT)
	{
		rows->lonlat[2 * row] = g.x;
		rows->lonlat[2 * row + 1] = g.y;
		rows->npoints++;
	}
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
unit_vectors(const GeogRows *rows)
{
	double	   *xyz = MemoryContextAllocHuge(CurrentMemoryContext,
											 Max(rows->nrows, 1) * 3 * sizeof(double));
	int64		r;

	for (r = 0; r < rows->nrows; r++)
	{
		double		lon = M_PI * rows->lonlat[2 * r] / 180.0;
		double		lat = fold_latitude(M_PI * rows->lonlat[2 * r + 1] / 180.0);

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
	char	   *points;			/* each point row serialized, GSERIALIZED_POINT_SIZE apart */
	double		eps;
} GeogTest;

/* st_dwithin(geog_i, geog_j, eps, false) for a candidate pair i < j. */
static uint8
geog_dwithin(void *arg, gd_pair p)
{
	GeogTest   *t = (GeogTest *) arg;

	/* a symmetric relation: both ends see each other */
	return DatumGetBool(FunctionCall4(t->dwithin,
									  PointerGetDatum(t->points + (int64) p.i * GSERIALIZED_POINT_SIZE),
									  PointerGetDatum(t->points + (int64) p.j * GSERIALIZED_POINT_SIZE),
									  Float8GetDatum(t->eps), BoolGetDatum(false))) ?
		GD_EDGE_BOTH : 0;
}

/* Clusters a partition of geography points (see the file comment). */
static void
cluster_geography(FunctionCallInfo fcinfo, WindowObject win, int64 nrows, int32 *ids)
{
	GeogCache  *cache = get_geog_cache(fcinfo);
	GeogRows	rows;
	GeogTest	test;
	double		eps;
	int32		minpoints;
	double	   *xyz;
	double		radius;
	double		theta;
	double		chord;
	gd_pair_list list;
	instr_time	start;
	int64		r;

	window_read_parameters(win, &eps, &minpoints);
	memset(&rows, 0, sizeof(rows));
	rows.nrows = nrows;
	rows.kind = MemoryContextAllocHuge(CurrentMemoryContext, Max(nrows, 1) * sizeof(uint8));
	rows.lonlat = MemoryContextAllocHuge(CurrentMemoryContext, Max(nrows, 1) * 2 * sizeof(double));
	window_read_rows(win, nrows, read_geog_point, &rows);
	INSTR_TIME_SET_CURRENT(start);
	xyz = unit_vectors(&rows);
	if (rows.npoints < 2)
		radius = 1;				/* no pair to test: no need to ask PostGIS */
	else
		radius = sphere_radius(cache, rows.srids.srid);

	/* Beyond half the circumference every pair is within eps. */
	if (eps >= radius * M_PI * (1 + 1e-9))
	{
		bridge_cluster_points_nd(xyz, 3, rows.kind, nrows, rows.npoints, INFINITY, minpoints, ids);
		return;
	}

	/* each point row as a serialized 2D geography point of its SRID */
	test.dwithin = &cache->dwithin;
	test.eps = eps;
	test.points = MemoryContextAllocHuge(CurrentMemoryContext,
										 Max(nrows, 1) * GSERIALIZED_POINT_SIZE);
	for (r = 0; r < nrows; r++)
		if (rows.kind[r] == GD_ROW_POINT)
			gserialized_write_point(test.points + r * GSERIALIZED_POINT_SIZE, rows.lonlat[2 * r],
									rows.lonlat[2 * r + 1], rows.srids.srid, true);

	theta = eps / radius * (1 + 1e-9) + 1e-12;
	chord = theta >= M_PI ? 2.0 : 2.0 * sin(theta / 2);
	chord = chord * (1 + 1e-12) + 1e-12;
	bridge_neighbour_pairs_nd(xyz, 3, rows.kind, nrows, chord, &list);
	window_cluster_pairs(&list, geog_dwithin, &test, rows.kind, nrows, rows.npoints,
						 minpoints, ids, start);
}

PG_FUNCTION_INFO_V1(gpu_dbscan_geography_window);

/*
 * gpu_dbscan(geog, eps_m, minpoints) OVER (...): DBSCAN of geography points,
 * neighbours by st_dwithin(geog, geog, eps_m, false); NULL for noise, ids
 * 0..k-1 by first row.
 */
Datum
gpu_dbscan_geography_window(PG_FUNCTION_ARGS)
{
	return window_cluster_id(fcinfo, cluster_geography);
}
