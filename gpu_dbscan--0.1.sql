-- gpu_dbscan install script
\echo Use "CREATE EXTENSION gpu_dbscan" to load this file. \quit

CREATE FUNCTION gpu_dbscan(geom geometry, eps float8, minpoints int)
RETURNS int
AS 'MODULE_PATHNAME', 'gpu_dbscan_window'
LANGUAGE C IMMUTABLE PARALLEL SAFE WINDOW;

COMMENT ON FUNCTION gpu_dbscan(geometry, float8, int) IS
'DBSCAN cluster id of each row of the window partition (NULL for noise); same clusters as ST_ClusterDBSCAN, ids numbered 0..k-1 by first row';
