/*
 * cluster_ids.c — the cluster id window functions: gpu_dbscan over geometry,
 * float8[] and geography, gpu_dbscan_3d over POINT Z, and
 * gpu_dbscan_read_floor (the rows read, nothing clustered).
 */
#include "postgres.h"

#include "fmgr.h"

#include "window.h"

PG_FUNCTION_INFO_V1(gpu_dbscan_window);

/*
 * gpu_dbscan(geom, eps, minpoints) OVER (...): the DBSCAN cluster id of the
 * row, NULL for noise; the clusters of ST_ClusterDBSCAN, ids 0..k-1 numbered
 * by each cluster's first row.
 */
Datum
gpu_dbscan_window(PG_FUNCTION_ARGS)
{
	return window_function(fcinfo, WINDOW_IDS, false);
}

PG_FUNCTION_INFO_V1(gpu_dbscan_array_window);

/* gpu_dbscan(point float8[], eps, minpoints) OVER (...): ids of points of 2 to 8 coordinates. */
Datum
gpu_dbscan_array_window(PG_FUNCTION_ARGS)
{
	return window_function(fcinfo, WINDOW_IDS, false);
}

PG_FUNCTION_INFO_V1(gpu_dbscan_geography_window);

/* gpu_dbscan(geog geography, eps_m, minpoints) OVER (...): ids of geography points, eps in metres. */
Datum
gpu_dbscan_geography_window(PG_FUNCTION_ARGS)
{
	return window_function(fcinfo, WINDOW_IDS, false);
}

PG_FUNCTION_INFO_V1(gpu_dbscan_3d_window);

/* gpu_dbscan_3d(geom, eps, minpoints) OVER (...): ids of POINT Z rows, 3D distance. */
Datum
gpu_dbscan_3d_window(PG_FUNCTION_ARGS)
{
	return window_function(fcinfo, WINDOW_IDS, true);
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
	return window_function(fcinfo, WINDOW_READ_FLOOR, false);
}
