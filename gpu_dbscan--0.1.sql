-- gpu_dbscan install script
\echo Use "CREATE EXTENSION gpu_dbscan" to load this file. \quit

-- The window functions depend on nothing but their input rows (the settings
-- choose where the work runs, never the answer): IMMUTABLE, as
-- ST_ClusterDBSCAN is.  Called without OVER, PostgreSQL rejects them.

CREATE FUNCTION gpu_dbscan(geom geometry, eps float8, minpoints int)
RETURNS int
AS 'MODULE_PATHNAME', 'gpu_dbscan_window'
LANGUAGE C IMMUTABLE PARALLEL SAFE WINDOW;

COMMENT ON FUNCTION gpu_dbscan(geometry, float8, int) IS
'DBSCAN cluster id of each row of the window partition (NULL for noise); same clusters as ST_ClusterDBSCAN, ids numbered 0..k-1 by first row';

CREATE FUNCTION gpu_dbscan_read_floor(geom geometry)
RETURNS int
AS 'MODULE_PATHNAME', 'gpu_dbscan_read_floor'
LANGUAGE C IMMUTABLE PARALLEL SAFE WINDOW;

COMMENT ON FUNCTION gpu_dbscan_read_floor(geometry) IS
'Reads and decodes every geometry of the window partition as gpu_dbscan does, clusters nothing and returns 0: the benchmark''s floor';

-- Session state: VOLATILE, and PARALLEL RESTRICTED because a parallel
-- worker would see its own (empty) state, not the leader's.
CREATE FUNCTION gpu_dbscan_last_run(
    OUT backend text,
    OUT rows bigint,
    OUT points bigint,
    OUT cells bigint,
    OUT batches bigint,
    OUT transfer_ms float8,
    OUT sort_ms float8,
    OUT core_ms float8,
    OUT union_ms float8,
    OUT label_ms float8,
    OUT total_ms float8)
RETURNS record
AS 'MODULE_PATHNAME', 'gpu_dbscan_last_run'
LANGUAGE C VOLATILE PARALLEL RESTRICTED;

COMMENT ON FUNCTION gpu_dbscan_last_run() IS
'Back end (cpu or gpu), rows, clustered geometries, grid cells, batches and phase times in ms of this session''s last gpu_dbscan partition; NULL before the first. For partitions with non-point geometries: sort_ms = candidate pairs, core_ms = exact st_dwithin tests, label_ms = graph clustering';

-- ---- Points of more than two coordinates, and geography (window_nd.c,
-- geography.c).  The same rules and ids as gpu_dbscan(geometry, ...); the
-- neighbour test is over every coordinate.  They run on the CPU whatever
-- gpu_dbscan.backend says (float8[] points of two coordinates excepted).

CREATE FUNCTION gpu_dbscan_3d(geom geometry, eps float8, minpoints int)
RETURNS int
AS 'MODULE_PATHNAME', 'gpu_dbscan_3d_window'
LANGUAGE C IMMUTABLE PARALLEL SAFE WINDOW;

COMMENT ON FUNCTION gpu_dbscan_3d(geometry, float8, int) IS
'DBSCAN cluster id of each POINT Z row of the window partition with the 3D distance sqrt(dx^2 + dy^2 + dz^2) (NULL for noise); ST_ClusterDBSCAN and gpu_dbscan(geometry, ...) ignore Z';

CREATE FUNCTION gpu_dbscan(point float8[], eps float8, minpoints int)
RETURNS int
AS 'MODULE_PATHNAME', 'gpu_dbscan_array_window'
LANGUAGE C IMMUTABLE PARALLEL SAFE WINDOW;

COMMENT ON FUNCTION gpu_dbscan(float8[], float8, int) IS
'DBSCAN cluster id of each row of the window partition (NULL for noise), points given as arrays of 2 to 8 coordinates, the same number in every row of a partition; Euclidean distance';

CREATE FUNCTION gpu_dbscan(geog geography, eps_m float8, minpoints int)
RETURNS int
AS 'MODULE_PATHNAME', 'gpu_dbscan_geography_window'
LANGUAGE C IMMUTABLE PARALLEL SAFE WINDOW;

COMMENT ON FUNCTION gpu_dbscan(geography, float8, int) IS
'DBSCAN cluster id of each geography point of the window partition (NULL for noise), eps in metres on the sphere: rows i < j are neighbours when ST_DWithin(geog_i, geog_j, eps_m, false)';
