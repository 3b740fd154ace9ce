-- gpu_dbscan 0.1 -> 0.2
\echo Use "ALTER EXTENSION gpu_dbscan UPDATE TO '0.2'" to load this file. \quit

-- What 0.2 adds to 0.1; gpu_dbscan--0.2.sql holds the same objects for a new install.
COMMENT ON FUNCTION gpu_dbscan_sweep(geometry, float8, int[]) IS
'Cluster id of each row for every minpoints value (element k is gpu_dbscan(geom, eps, minpoints[k]) over the same window), from one neighbour search';

CREATE FUNCTION gpu_dbscan_memory(
    OUT session_bytes bigint,
    OUT total_bytes bigint,
    OUT query_limit_bytes bigint,
    OUT total_limit_bytes bigint)
RETURNS record
AS 'MODULE_PATHNAME', 'gpu_dbscan_memory'
LANGUAGE C VOLATILE PARALLEL RESTRICTED;

COMMENT ON FUNCTION gpu_dbscan_memory() IS
'Host memory gpu_dbscan holds now in this session and in all sessions, and the limits gpu_dbscan.max_query_memory and gpu_dbscan.max_total_memory in bytes (NULL: none)';
