/*
 * window_nd.c — the window functions that cluster points of more than two
 * coordinates:
 *
 *   gpu_dbscan_3d(geom geometry, eps, minpoints)  POINT Z rows, 3D distance
 *   gpu_dbscan(point float8[], eps, minpoints)     2 to 8 coordinates a row
 *
 * Each reads its partition once into row-major coordinates and clusters it
 * with gd_cluster_points_nd (core_bridge.c): the rules and ids of gpu_dbscan,
 * with the neighbour test over every coordinate (see gd_core.h).
 */
#include "gd_core.h"			/* before postgres.h: see core_bridge.h */

#include "postgres.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "utils/array.h"
#include "utils/memutils.h"
#include "windowapi.h"

#include "core_bridge.h"
#include "gserialized_points.h"
#include "window_common.h"

/* A partition's rows as points of dims coordinates, read once. */
typedef struct NdRows
{
	int64		nrows;
	int			dims;			/* 0 until the first non-NULL array row */
	uint8	   *kind;			/* gd_row_kind per row */
	double	   *coords;			/* dims per row; 0 for non-point rows */
	int64		npoints;
	int64		dims_row;		/* the row that fixed dims (arrays) */
	SridCheck	srids;			/* geometries */
} NdRows;

/* Allocates rows for nrows rows of at most max_dims coordinates. */
static void
nd_rows_init(NdRows *rows, int64 nrows, int max_dims)
{
	memset(rows, 0, sizeof(*rows));
	rows->nrows = nrows;
	rows->kind = MemoryContextAllocHuge(CurrentMemoryContext, Max(nrows, 1) * sizeof(uint8));
	rows->coords = MemoryContextAllocHuge(CurrentMemoryContext,
										  Max(nrows, 1) * max_dims * sizeof(double));
}

/*
 * One geometry row of gpu_dbscan_3d: a POINT Z (its x, y, z), an EMPTY
 * geometry or NULL; anything else is an error.
 */
static void
read_point_z(void *arg, int64 row, Datum value, bool isnull)
{
	NdRows	   *rows = (NdRows *) arg;
	double	   *p = rows->coords + row * 3;
	GeomInfo	g;

	p[0] = p[1] = p[2] = 0.0;
	if (isnull)
	{
		rows->kind[row] = GD_ROW_NULL;
		return;
	}
	gserialized_decode(value, NULL, &g);
	if (g.malformed)
		window_error_malformed(row, g.malformed);
	if (g.kind == GEOM_OTHER)
		window_row_error(row, ERRCODE_INVALID_PARAMETER_VALUE,
						 "gpu_dbscan_3d: only points can be clustered in 3D",
						 "Use gpu_dbscan(geom, eps, minpoints) for other geometries (2D).");
	if (g.kind == GEOM_POINT && !g.has_z)
		window_row_error(row, ERRCODE_INVALID_PARAMETER_VALUE,
						 "gpu_dbscan_3d: point has no Z coordinate",
						 "Give every point a Z (ST_Force3DZ sets it to 0), or use gpu_dbscan(geom, eps, minpoints), which ignores Z as ST_ClusterDBSCAN does.");
	if (!g.finite || (g.kind == GEOM_POINT && !isfinite(g.z)))
		window_error_nonfinite(row);
	window_check_srid(&rows->srids, g.srid, row);
	rows->kind[row] = (uint8) g.kind;
	if (g.kind == GEOM_POINT)
	{
		p[0] = g.x;
		p[1] = g.y;
		p[2] = g.z;
		rows->npoints++;
	}
}

/* Clusters a partition of POINT Z rows (see the file comment). */
static void
cluster_points_z(FunctionCallInfo fcinfo, WindowObject win, int64 nrows, int32 *ids)
{
	NdRows		rows;
	double		eps;
	int32		minpoints;

	window_read_parameters(win, &eps, &minpoints);
	nd_rows_init(&rows, nrows, 3);
	rows.dims = 3;
	window_read_rows(win, nrows, read_point_z, &rows);
	bridge_cluster_points_nd(rows.coords, 3, rows.kind, nrows, rows.npoints, eps, minpoints, ids);
}

PG_FUNCTION_INFO_V1(gpu_dbscan_3d_window);

/*
 * gpu_dbscan_3d(geom, eps, minpoints) OVER (...): DBSCAN of POINT Z rows
 * with the 3D distance; NULL for noise, ids 0..k-1 by first row.
 */
Datum
gpu_dbscan_3d_window(PG_FUNCTION_ARGS)
{
	return window_cluster_id(fcinfo, cluster_points_z);
}

/*
 * One float8[] row: a point of 2 to 8 finite coordinates, as many as the
 * partition's first non-NULL row has, or NULL.
 */
static void
read_array_point(void *arg, int64 row, Datum value, bool isnull)
{
	NdRows	   *rows = (NdRows *) arg;
	ArrayType  *a;
	int			n;
	const double *elems;
	int			k;

	if (isnull)
	{
		rows->kind[row] = GD_ROW_NULL;
		return;
	}
	a = DatumGetArrayTypeP(value);
	if (ARR_ELEMTYPE(a) != FLOAT8OID)
		elog(ERROR, "gpu_dbscan: expected a float8[] point, got element type %u", ARR_ELEMTYPE(a));
	n = ArrayGetNItems(ARR_NDIM(a), ARR_DIMS(a));
	if (ARR_NDIM(a) > 1)
		window_row_error(row, ERRCODE_ARRAY_SUBSCRIPT_ERROR,
						 psprintf("gpu_dbscan: a point must be a one-dimensional array, not %d-dimensional",
								  ARR_NDIM(a)), NULL);
	if (n < GD_ND_MIN_DIMS || n > GD_ND_MAX_DIMS)
		window_row_error(row, ERRCODE_ARRAY_SUBSCRIPT_ERROR,
						 psprintf("gpu_dbscan: a point must have %d to %d coordinates, not %d",
								  GD_ND_MIN_DIMS, GD_ND_MAX_DIMS, n), NULL);
	if (rows->dims == 0)
	{
		rows->dims = n;
		rows->dims_row = row;
	}
	else if (n != rows->dims)
		window_row_error(row, ERRCODE_ARRAY_SUBSCRIPT_ERROR,
						 psprintf("gpu_dbscan: a point has %d coordinates, the first of its partition (row %lld) %d",
								  n, (long long) rows->dims_row + 1, rows->dims),
						 "The points of one partition must have the same number of coordinates.");
	if (ARR_HASNULL(a))
		window_row_error(row, ERRCODE_NULL_VALUE_NOT_ALLOWED,
						 "gpu_dbscan: a point's coordinates must not be NULL", NULL);

	elems = (const double *) ARR_DATA_PTR(a);
	for (k = 0; k < n; k++)
	{
		if (!isfinite(elems[k]))
			window_row_error(row, ERRCODE_INVALID_PARAMETER_VALUE,
							 psprintf("gpu_dbscan: coordinate %d of a point is NaN or infinite",
									  k + 1), NULL);
		rows->coords[row * GD_ND_MAX_DIMS + k] = elems[k];
	}
	rows->kind[row] = GD_ROW_POINT;
	rows->npoints++;
}

/* Clusters a partition of float8[] rows (see the file comment). */
static void
cluster_arrays(FunctionCallInfo fcinfo, WindowObject win, int64 nrows, int32 *ids)
{
	NdRows		rows;
	double		eps;
	int32		minpoints;
	int64		r;

	window_read_parameters(win, &eps, &minpoints);

	/* rows at a stride of GD_ND_MAX_DIMS until dims is known, then packed */
	nd_rows_init(&rows, nrows, GD_ND_MAX_DIMS);
	window_read_rows(win, nrows, read_array_point, &rows);
	if (rows.dims == 0)
		rows.dims = GD_ND_MIN_DIMS;	/* only NULL rows */
	for (r = 0; r < nrows; r++)
	{
		int			k;

		for (k = 0; k < rows.dims; k++)
			rows.coords[r * rows.dims + k] =
				rows.kind[r] == GD_ROW_POINT ? rows.coords[r * GD_ND_MAX_DIMS + k] : 0.0;
	}
	bridge_cluster_points_nd(rows.coords, rows.dims, rows.kind, nrows, rows.npoints,
							 eps, minpoints, ids);
}

PG_FUNCTION_INFO_V1(gpu_dbscan_array_window);

/*
 * gpu_dbscan(point float8[], eps, minpoints) OVER (...): DBSCAN of points
 * given as arrays of 2 to 8 coordinates; NULL for noise and NULL arrays,
 * ids 0..k-1 by first row.
 */
Datum
gpu_dbscan_array_window(PG_FUNCTION_ARGS)
{
	return window_cluster_id(fcinfo, cluster_arrays);
}
