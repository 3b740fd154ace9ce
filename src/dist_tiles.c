/*
 * dist_tiles.c — the tiles of gpu_dbscan_distributed (a Citus table
 * clustered as one): which tile owns a point and which tiles hold a ghost
 * copy of it, and the check for one-sided neighbour pairs at a tile's edge.
 *
 * The tiling: a base grid of square cells of side s from (x0, y0), nx by ny,
 * each cell split into 2^d by 2^d sub-tiles (d from the cell's point count,
 * so a dense cell is split further); tile numbers are offset[cell] plus the
 * sub-tile's index.  In grid units (gx = (x - x0) / s) the owner is the
 * sub-tile holding gx, gy (clamped to the grid, so the outer tiles reach to
 * infinity); a point is a ghost of every other tile whose region, widened
 * by margin / s, holds it.  The widening has slack for the rounding of gx:
 * an extra ghost costs a copy, a missing one would cost exactness.
 */
#include "postgres.h"

#include "gd_core.h"

#include <float.h>
#include <math.h>

#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/lsyscache.h"

#include "gserialized_points.h"

/* The tiling, as the procedure passes it. */
typedef struct Tiling
{
	double		x0,
				y0,
				s,
				margin;			/* in grid units, slack included */
	int32		nx,
				ny;
	int32	   *depth;			/* nx * ny, cell (i, j) at i * ny + j */
	int64	   *offset;
} Tiling;

/* One point's tiles: owner first, then ghosts. */
typedef struct TileList
{
	int			n;
	int			next;
	int64		tile[FLEXIBLE_ARRAY_MEMBER];
} TileList;

#define MAX_DEPTH 12

static int32
clamp_index(double v, int32 lo, int32 hi)
{
	if (!(v >= lo))				/* NaN too */
		return lo;
	if (v >= hi)
		return hi;
	return (int32) v;
}

static int64
tile_number(const Tiling *t, int32 i, int32 j, int32 a, int32 b)
{
	int32		d = t->depth[(int64) i * t->ny + j];

	return t->offset[(int64) i * t->ny + j] + ((int64) a << d) + b;
}

/* Sub-tile range [lo, hi] of cell index c holding grid coordinates [g0, g1]. */
static void
sub_range(double g0, double g1, int32 c, int32 d, int32 *lo, int32 *hi)
{
	int32		last = (1 << d) - 1;

	*lo = clamp_index(floor((g0 - c) * (1 << d)), 0, last);
	*hi = clamp_index(floor((g1 - c) * (1 << d)), 0, last);
}

static int32 *
int4_array(ArrayType *a, int expect, const char *what)
{
	if (ARR_NDIM(a) != 1 || ARR_HASNULL(a) || ARR_ELEMTYPE(a) != INT4OID ||
		ArrayGetNItems(ARR_NDIM(a), ARR_DIMS(a)) != expect)
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						errmsg("gpu_dbscan_tiles: %s must be an int array of %d elements without NULLs",
							   what, expect)));
	return (int32 *) ARR_DATA_PTR(a);
}

static int64 *
int8_array(ArrayType *a, int expect, const char *what)
{
	if (ARR_NDIM(a) != 1 || ARR_HASNULL(a) || ARR_ELEMTYPE(a) != INT8OID ||
		ArrayGetNItems(ARR_NDIM(a), ARR_DIMS(a)) != expect)
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						errmsg("gpu_dbscan_tiles: %s must be a bigint array of %d elements without NULLs",
							   what, expect)));
	return (int64 *) ARR_DATA_PTR(a);
}

/* The tiles of point (x, y): owner first. */
static TileList *
tiles_of_point(const Tiling *t, double x, double y)
{
	double		gx = (x - t->x0) / t->s;
	double		gy = (y - t->y0) / t->s;
	/* Slack for the rounding of gx, gy: a few ulps of the terms, in units. */
	double		slack = 1e-9 + 8 * DBL_EPSILON * (fabs(x) + fabs(t->x0) + fabs(y) + fabs(t->y0)) / t->s;
	double		m = t->margin + slack;
	int32		i = clamp_index(floor(gx), 0, t->nx - 1);
	int32		j = clamp_index(floor(gy), 0, t->ny - 1);
	int32		i0 = clamp_index(floor(gx - m), 0, t->nx - 1);
	int32		i1 = clamp_index(floor(gx + m), 0, t->nx - 1);
	int32		j0 = clamp_index(floor(gy - m), 0, t->ny - 1);
	int32		j1 = clamp_index(floor(gy + m), 0, t->ny - 1);
	int32		d,
				a,
				b,
				a0,
				a1,
				b0,
				b1;
	int64		owner;
	int			cap = 16,
				n = 0;
	TileList   *list = palloc(offsetof(TileList, tile) + cap * sizeof(int64));

	d = t->depth[(int64) i * t->ny + j];
	sub_range(gx, gx, i, d, &a, &a1);
	sub_range(gy, gy, j, d, &b, &b1);
	owner = tile_number(t, i, j, a, b);
	list->tile[n++] = owner;

	for (int32 ci = i0; ci <= i1; ci++)
		for (int32 cj = j0; cj <= j1; cj++)
		{
			d = t->depth[(int64) ci * t->ny + cj];
			sub_range(gx - m, gx + m, ci, d, &a0, &a1);
			sub_range(gy - m, gy + m, cj, d, &b0, &b1);
			for (a = a0; a <= a1; a++)
				for (b = b0; b <= b1; b++)
				{
					int64		tile = tile_number(t, ci, cj, a, b);

					if (tile == owner)
						continue;
					if (n == cap)
					{
						cap *= 2;
						list = repalloc(list, offsetof(TileList, tile) + cap * sizeof(int64));
					}
					list->tile[n++] = tile;
				}
		}
	list->n = n;
	list->next = 0;
	return list;
}

PG_FUNCTION_INFO_V1(gpu_dbscan_tiles);

/*
 * gpu_dbscan_tiles(geom, srid, x0, y0, s, nx, ny, depth int[], offset
 * bigint[], margin) -> SETOF (tile bigint, ghost boolean, copies int): the
 * owner tile of a point (ghost false) and the tiles holding a ghost copy
 * (see the file comment), each row with the number of rows the point has;
 * no row for a NULL or EMPTY geometry.  margin is in the
 * coordinates' units.  A non-point geometry, a non-finite coordinate or
 * another SRID is an error.
 */
Datum
gpu_dbscan_tiles(PG_FUNCTION_ARGS)
{
	FuncCallContext *funcctx;
	TileList   *list;

	if (SRF_IS_FIRSTCALL())
	{
		MemoryContext old;
		TupleDesc	tupdesc;
		Tiling		t;
		GeomInfo	g;
		int32		srid;

		funcctx = SRF_FIRSTCALL_INIT();
		if (PG_ARGISNULL(0))
			SRF_RETURN_DONE(funcctx);
		for (int k = 1; k < 10; k++)
			if (PG_ARGISNULL(k))
				ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
								errmsg("gpu_dbscan_tiles: argument %d must not be NULL", k + 1)));
		gserialized_decode(PG_GETARG_DATUM(0), NULL, &g);
		srid = PG_GETARG_INT32(1);
		if (g.kind == GEOM_EMPTY)
			SRF_RETURN_DONE(funcctx);
		if (g.kind != GEOM_POINT || g.malformed)
			ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
							errmsg("gpu_dbscan_distributed clusters points only"),
							errdetail("A row holds a geometry that is not a non-empty point.")));
		if (!g.finite)
			ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
							errmsg("gpu_dbscan_distributed: a point has a NaN or infinite coordinate")));
		if (g.srid != srid)
			ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
							errmsg("gpu_dbscan_distributed: the geometries have different SRIDs (%d and %d)",
								   srid, g.srid)));
		t.x0 = PG_GETARG_FLOAT8(2);
		t.y0 = PG_GETARG_FLOAT8(3);
		t.s = PG_GETARG_FLOAT8(4);
		t.nx = PG_GETARG_INT32(5);
		t.ny = PG_GETARG_INT32(6);
		if (!(t.s > 0) || t.nx < 1 || t.ny < 1 || (int64) t.nx * t.ny > 100000000)
			ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
							errmsg("gpu_dbscan_tiles: bad grid (side %g, %d by %d cells)", t.s, t.nx, t.ny)));
		t.depth = int4_array(PG_GETARG_ARRAYTYPE_P(7), t.nx * t.ny, "depth");
		t.offset = int8_array(PG_GETARG_ARRAYTYPE_P(8), t.nx * t.ny, "offset");
		for (int k = 0; k < t.nx * t.ny; k++)
			if (t.depth[k] < 0 || t.depth[k] > MAX_DEPTH)
				ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
								errmsg("gpu_dbscan_tiles: depth must be between 0 and %d", MAX_DEPTH)));
		t.margin = PG_GETARG_FLOAT8(9) / t.s;
		if (!(t.margin >= 0) || t.margin > 1e6)
			ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
							errmsg("gpu_dbscan_tiles: bad margin %g", PG_GETARG_FLOAT8(9))));

		old = MemoryContextSwitchTo(funcctx->multi_call_memory_ctx);
		if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
			elog(ERROR, "gpu_dbscan_tiles: return type must be a row type");
		funcctx->tuple_desc = BlessTupleDesc(tupdesc);
		funcctx->user_fctx = tiles_of_point(&t, g.x, g.y);
		MemoryContextSwitchTo(old);
	}
	funcctx = SRF_PERCALL_SETUP();
	list = (TileList *) funcctx->user_fctx;
	if (list != NULL && list->next < list->n)
	{
		Datum		values[3];
		bool		nulls[3] = {false, false, false};
		int			k = list->next++;

		values[0] = Int64GetDatum(list->tile[k]);
		values[1] = BoolGetDatum(k > 0);
		values[2] = Int32GetDatum(list->n);
		SRF_RETURN_NEXT(funcctx, HeapTupleGetDatum(heap_form_tuple(funcctx->tuple_desc, values, nulls)));
	}
	SRF_RETURN_DONE(funcctx);
}

typedef struct XIndex
{
	double		x;
	int32		row;
} XIndex;

static int
cmp_xindex(const void *a, const void *b)
{
	double		u = ((const XIndex *) a)->x,
				v = ((const XIndex *) b)->x;

	return u < v ? -1 : u > v;
}

/*
 * Whether some pair among the n points (xs, ys) with at least one ghost is
 * one-sided: within one way only.  Such a pair can only be nearly eps apart
 * along an axis (to a few ulps): the points are sorted along that axis and
 * each ghost's partners are looked up in the two thin bands at +-eps.  Very
 * small eps (where squares underflow, and the box alone decides) answers
 * true: the caller then takes the exact path.
 */
static bool
has_one_sided_pair(const double *xs, const double *ys, const bool *ghost, int n, double eps)
{
	double		big = eps;
	XIndex	   *idx;

	if (eps < 1e-140)
		return true;
	for (int k = 0; k < n; k++)
		big = Max(big, Max(fabs(xs[k]), fabs(ys[k])));
	idx = palloc(Max(n, 1) * sizeof(XIndex));
	for (int axis = 0; axis < 2; axis++)
	{
		const double *u = axis == 0 ? xs : ys;
		/* The box edge fl(p + eps) and |fl(q - p)| are within a few ulps of big. */
		double		band = 16 * DBL_EPSILON * big;

		for (int k = 0; k < n; k++)
		{
			idx[k].x = u[k];
			idx[k].row = k;
		}
		qsort(idx, n, sizeof(XIndex), cmp_xindex);
		for (int k = 0; k < n; k++)
		{
			int			p = idx[k].row;

			if ((k & 0xffff) == 0)
				CHECK_FOR_INTERRUPTS();
			if (!ghost[p])
				continue;
			for (int side = -1; side <= 1; side += 2)
			{
				double		lo = u[p] + side * eps - band,
							hi = u[p] + side * eps + band;
				int			l = 0,
							h = n;

				while (l < h)
				{
					int			mid = l + (h - l) / 2;

					if (idx[mid].x < lo)
						l = mid + 1;
					else
						h = mid;
				}
				for (int q = l; q < n && idx[q].x <= hi; q++)
				{
					int			r = idx[q].row;

					if (gd_within(xs[p], ys[p], xs[r], ys[r], eps) != gd_within(xs[r], ys[r], xs[p], ys[p], eps))
					{
						pfree(idx);
						return true;
					}
				}
			}
		}
	}
	pfree(idx);
	return false;
}

PG_FUNCTION_INFO_V1(gpu_dbscan_one_sided);

/*
 * gpu_dbscan_one_sided(xs float8[], ys float8[], ghost boolean[], eps) ->
 * boolean: whether a pair of these points with a ghost among them sees each
 * other one way only (a tile's points near its edges, from
 * gpu_dbscan_distributed).
 */
Datum
gpu_dbscan_one_sided(PG_FUNCTION_ARGS)
{
	ArrayType  *ax,
			   *ay,
			   *ag;
	int			n;
	double		eps;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1) || PG_ARGISNULL(2) || PG_ARGISNULL(3))
		PG_RETURN_NULL();
	ax = PG_GETARG_ARRAYTYPE_P(0);
	ay = PG_GETARG_ARRAYTYPE_P(1);
	ag = PG_GETARG_ARRAYTYPE_P(2);
	eps = PG_GETARG_FLOAT8(3);
	n = ArrayGetNItems(ARR_NDIM(ax), ARR_DIMS(ax));
	if (ARR_HASNULL(ax) || ARR_HASNULL(ay) || ARR_HASNULL(ag) ||
		ARR_ELEMTYPE(ax) != FLOAT8OID || ARR_ELEMTYPE(ay) != FLOAT8OID || ARR_ELEMTYPE(ag) != BOOLOID ||
		ArrayGetNItems(ARR_NDIM(ay), ARR_DIMS(ay)) != n || ArrayGetNItems(ARR_NDIM(ag), ARR_DIMS(ag)) != n)
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						errmsg("gpu_dbscan_one_sided: xs, ys and ghost must be arrays of one length without NULLs")));
	if (n == 0)
		PG_RETURN_BOOL(false);
	PG_RETURN_BOOL(has_one_sided_pair((double *) ARR_DATA_PTR(ax), (double *) ARR_DATA_PTR(ay),
									  (bool *) ARR_DATA_PTR(ag), n, eps));
}
