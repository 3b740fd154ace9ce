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
    OUT total_ms float8,
    OUT slot_wait_ms float8,
    OUT strips bigint)
RETURNS record
AS 'MODULE_PATHNAME', 'gpu_dbscan_last_run'
LANGUAGE C VOLATILE PARALLEL RESTRICTED;

COMMENT ON FUNCTION gpu_dbscan_last_run() IS
'Back end (cpu or gpu), rows, clustered geometries, grid cells, batches and phase times in ms of this session''s last gpu_dbscan partition, the ms it waited for a GPU slot (gpu_dbscan.max_gpu_sessions) and the strips a GPU run larger than the device budget was split into (0: one piece); NULL before the first. For partitions with non-point geometries: sort_ms = candidate pairs, core_ms = exact st_dwithin tests, label_ms = graph clustering';

-- ---- Points of more than two coordinates, and geography (cluster_ids.c,
-- rows.c, geography.c).  The same rules and ids as gpu_dbscan(geometry, ...); the
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

-- ---- Aggregates, point types and minpoints sweeps ----------------------
--
-- The aggregates collect their rows (decoded points, and the values of
-- other geometries) into an internal state, serialized as bytea between
-- parallel workers; eps and minpoints are read from the first row, as the
-- window function reads them from its partition's first row.  The rows are
-- clustered in the aggregate's input order: with ORDER BY exactly as
-- gpu_dbscan OVER (ORDER BY ...) clusters them (PostgreSQL does not run an
-- ordered aggregate in parallel); without ORDER BY, under parallel
-- aggregation, each worker's rows in turn, in the order the leader combines
-- them.

CREATE FUNCTION gpu_dbscan_agg_transfn(internal, geometry, float8, int)
RETURNS internal
AS 'MODULE_PATHNAME', 'gpu_dbscan_agg_transfn'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION gpu_dbscan_agg_transfn(internal, geometry, float8, int) IS
'Transition of gpu_dbscan_agg: decodes the row into the state; the first row gives eps and minpoints';

CREATE FUNCTION gpu_dbscan_collect_transfn(internal, geometry, float8, int)
RETURNS internal
AS 'MODULE_PATHNAME', 'gpu_dbscan_collect_transfn'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION gpu_dbscan_collect_transfn(internal, geometry, float8, int) IS
'Transition of gpu_dbscan_collect: as gpu_dbscan_agg_transfn, keeping each row''s geometry';

CREATE FUNCTION gpu_dbscan_params_transfn(internal, geometry, float8[], int[])
RETURNS internal
AS 'MODULE_PATHNAME', 'gpu_dbscan_params_transfn'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION gpu_dbscan_params_transfn(internal, geometry, float8[], int[]) IS
'Transition of gpu_dbscan_params: decodes the row into the state; the first row gives the eps and minpoints arrays';

CREATE FUNCTION gpu_dbscan_agg_combinefn(internal, internal)
RETURNS internal
AS 'MODULE_PATHNAME', 'gpu_dbscan_agg_combinefn'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION gpu_dbscan_agg_combinefn(internal, internal) IS
'Combines two partial states of the gpu_dbscan aggregates: the second''s rows after the first''s';

CREATE FUNCTION gpu_dbscan_agg_serialfn(internal)
RETURNS bytea
AS 'MODULE_PATHNAME', 'gpu_dbscan_agg_serialfn'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION gpu_dbscan_agg_serialfn(internal) IS
'A partial state of the gpu_dbscan aggregates as bytea, for parallel aggregation';

CREATE FUNCTION gpu_dbscan_agg_deserialfn(bytea, internal)
RETURNS internal
AS 'MODULE_PATHNAME', 'gpu_dbscan_agg_deserialfn'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION gpu_dbscan_agg_deserialfn(bytea, internal) IS
'A partial state of the gpu_dbscan aggregates from its bytea';

CREATE FUNCTION gpu_dbscan_agg_finalfn(internal)
RETURNS int[]
AS 'MODULE_PATHNAME', 'gpu_dbscan_agg_finalfn'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION gpu_dbscan_agg_finalfn(internal) IS
'Final function of gpu_dbscan_agg: clusters the rows, ids in input order';

CREATE FUNCTION gpu_dbscan_collect_finalfn(internal)
RETURNS geometry[]
AS 'MODULE_PATHNAME', 'gpu_dbscan_collect_finalfn'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION gpu_dbscan_collect_finalfn(internal) IS
'Final function of gpu_dbscan_collect: clusters the rows, one GEOMETRYCOLLECTION per cluster';

CREATE TYPE gpu_dbscan_params_row AS (
    eps float8,
    minpoints int,
    clusters int,
    noise_fraction float8,
    largest_cluster int
);

COMMENT ON TYPE gpu_dbscan_params_row IS
'One (eps, minpoints) pair of gpu_dbscan_params: the number of clusters, the share of rows with a geometry that are noise, the rows of the largest cluster';

CREATE FUNCTION gpu_dbscan_params_finalfn(internal)
RETURNS gpu_dbscan_params_row[]
AS 'MODULE_PATHNAME', 'gpu_dbscan_params_finalfn'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION gpu_dbscan_params_finalfn(internal) IS
'Final function of gpu_dbscan_params: one sweep per eps, a row per (eps, minpoints)';

CREATE AGGREGATE gpu_dbscan_agg(geom geometry, eps float8, minpoints int) (
    SFUNC = gpu_dbscan_agg_transfn,
    STYPE = internal,
    FINALFUNC = gpu_dbscan_agg_finalfn,
    FINALFUNC_MODIFY = READ_ONLY,
    COMBINEFUNC = gpu_dbscan_agg_combinefn,
    SERIALFUNC = gpu_dbscan_agg_serialfn,
    DESERIALFUNC = gpu_dbscan_agg_deserialfn,
    PARALLEL = SAFE
);

COMMENT ON AGGREGATE gpu_dbscan_agg(geometry, float8, int) IS
'DBSCAN cluster id of every input row (NULL for noise and NULL geometries), in the aggregate''s input order: gpu_dbscan''s ids over the same rows in the same order';

CREATE AGGREGATE gpu_dbscan_collect(geom geometry, eps float8, minpoints int) (
    SFUNC = gpu_dbscan_collect_transfn,
    STYPE = internal,
    FINALFUNC = gpu_dbscan_collect_finalfn,
    FINALFUNC_MODIFY = READ_ONLY,
    COMBINEFUNC = gpu_dbscan_agg_combinefn,
    SERIALFUNC = gpu_dbscan_agg_serialfn,
    DESERIALFUNC = gpu_dbscan_agg_deserialfn,
    PARALLEL = SAFE
);

COMMENT ON AGGREGATE gpu_dbscan_collect(geometry, float8, int) IS
'One GEOMETRYCOLLECTION per DBSCAN cluster (as ST_ClusterWithin returns them), in cluster id order, noise left out';

CREATE AGGREGATE gpu_dbscan_params(geom geometry, eps float8[], minpoints int[]) (
    SFUNC = gpu_dbscan_params_transfn,
    STYPE = internal,
    FINALFUNC = gpu_dbscan_params_finalfn,
    FINALFUNC_MODIFY = READ_ONLY,
    COMBINEFUNC = gpu_dbscan_agg_combinefn,
    SERIALFUNC = gpu_dbscan_agg_serialfn,
    DESERIALFUNC = gpu_dbscan_agg_deserialfn,
    PARALLEL = SAFE
);

COMMENT ON AGGREGATE gpu_dbscan_params(geometry, float8[], int[]) IS
'For choosing eps and minpoints: clusters, noise fraction and largest cluster for every (eps, minpoints) pair, eps-major in the order given; one neighbour search per eps';

CREATE FUNCTION gpu_dbscan_point_type(geom geometry, eps float8, minpoints int)
RETURNS text
AS 'MODULE_PATHNAME', 'gpu_dbscan_point_type'
LANGUAGE C IMMUTABLE PARALLEL SAFE WINDOW;

COMMENT ON FUNCTION gpu_dbscan_point_type(geometry, float8, int) IS
'What DBSCAN makes of each row of the window partition: core, border or noise (NULL for a NULL geometry); the clustering of gpu_dbscan';

CREATE FUNCTION gpu_dbscan_sweep(geom geometry, eps float8, minpoints int[])
RETURNS int[]
AS 'MODULE_PATHNAME', 'gpu_dbscan_sweep'
LANGUAGE C IMMUTABLE PARALLEL SAFE WINDOW;

COMMENT ON FUNCTION gpu_dbscan_sweep(geometry, float8, int[]) IS
'Cluster id of each row for every minpoints value (element k is gpu_dbscan(geom, eps, minpoints[k]) over the same window), from one neighbour search';

-- Subspace clustering (GPU-INSCY's cluster model): docs/subspace.md.
CREATE TYPE gpu_inscy_cluster AS (
    dims int[],
    members int[]
);

COMMENT ON TYPE gpu_inscy_cluster IS
'A subspace cluster of gpu_inscy: its subspace (1-based column positions, ascending) and its rows (1-based positions in the aggregate''s input order, ascending)';

CREATE FUNCTION gpu_inscy_transfn(internal, float8[], float8, int, int, float8, float8)
RETURNS internal
AS 'MODULE_PATHNAME', 'gpu_inscy_transfn'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION gpu_inscy_transfn(internal, float8[], float8, int, int, float8, float8) IS
'Transition of gpu_inscy: checks the row and appends its features to the state; the first row gives the parameters, which every row must repeat';

CREATE FUNCTION gpu_inscy_finalfn(internal)
RETURNS gpu_inscy_cluster[]
AS 'MODULE_PATHNAME', 'gpu_inscy_finalfn'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION gpu_inscy_finalfn(internal) IS
'Final function of gpu_inscy: the subspace clusters of the rows, row positions in input order';

CREATE AGGREGATE gpu_inscy(features float8[], eps float8, mu int, min_size int,
                           density_factor float8, redundancy float8) (
    SFUNC = gpu_inscy_transfn,
    STYPE = internal,
    FINALFUNC = gpu_inscy_finalfn,
    FINALFUNC_MODIFY = READ_ONLY,
    PARALLEL = SAFE
);

COMMENT ON AGGREGATE gpu_inscy(float8[], float8, int, int, float8, float8) IS
'Density-based subspace clusters (GPU-INSCY''s model, exact; docs/subspace.md) of rows of 2 to 64 features, normalised per column: every kept cluster with its subspace, sorted by subspace then first row; use ORDER BY to fix the row positions';

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

-- ---- Progress of long runs (progress.c): what every session that is
-- clustering a partition of more than 64 rows is doing now.

CREATE FUNCTION gpu_dbscan_progress(
    OUT pid int,
    OUT backend_start timestamptz,
    OUT function text,
    OUT phase text,
    OUT rows_read bigint,
    OUT rows_total bigint,
    OUT partitions_done bigint,
    OUT partition_ms float8,
    OUT phase_ms float8,
    OUT datid oid,
    OUT step bigint,
    OUT steps bigint)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'gpu_dbscan_progress'
LANGUAGE C VOLATILE PARALLEL RESTRICTED;

COMMENT ON FUNCTION gpu_dbscan_progress() IS
'A row per session clustering now (a partition of more than 64 rows, or an aggregate''s rows): function, phase, rows read of the partition''s rows, partitions done in the transaction, time in the partition and the phase, step of steps of a run split into steps (strips on the GPU); other roles'' sessions only for members of pg_read_all_stats';

-- ---- issue 10: every form over every input kind (src/point_type.c,
-- src/sweep.c, src/aggregates.c).  The existing names overloaded on the
-- input type (float8[] points, geography points); POINT Z, whose type is
-- 2D geometry's, under the _3d suffix.  Same rules and ids as
-- gpu_dbscan(input, ...) and gpu_dbscan_3d over the same rows.

CREATE FUNCTION gpu_dbscan_point_type(point float8[], eps float8, minpoints int)
RETURNS text
AS 'MODULE_PATHNAME', 'gpu_dbscan_point_type'
LANGUAGE C IMMUTABLE PARALLEL SAFE WINDOW;

COMMENT ON FUNCTION gpu_dbscan_point_type(float8[], float8, int) IS
'What DBSCAN makes of each float8[] point of the window partition: core, border or noise (NULL for a NULL array); the clustering of gpu_dbscan(float8[], ...)';

CREATE FUNCTION gpu_dbscan_point_type(geog geography, eps_m float8, minpoints int)
RETURNS text
AS 'MODULE_PATHNAME', 'gpu_dbscan_point_type'
LANGUAGE C IMMUTABLE PARALLEL SAFE WINDOW;

COMMENT ON FUNCTION gpu_dbscan_point_type(geography, float8, int) IS
'What DBSCAN makes of each geography point of the window partition: core, border or noise (NULL for a NULL value); the clustering of gpu_dbscan(geography, ...), eps in metres';

CREATE FUNCTION gpu_dbscan_point_type_3d(geom geometry, eps float8, minpoints int)
RETURNS text
AS 'MODULE_PATHNAME', 'gpu_dbscan_point_type_3d'
LANGUAGE C IMMUTABLE PARALLEL SAFE WINDOW;

COMMENT ON FUNCTION gpu_dbscan_point_type_3d(geometry, float8, int) IS
'What DBSCAN makes of each POINT Z row of the window partition with the 3D distance: core, border or noise (NULL for a NULL geometry); the clustering of gpu_dbscan_3d (gpu_dbscan_point_type(geometry, ...) ignores Z)';

CREATE FUNCTION gpu_dbscan_sweep(point float8[], eps float8, minpoints int[])
RETURNS int[]
AS 'MODULE_PATHNAME', 'gpu_dbscan_sweep'
LANGUAGE C IMMUTABLE PARALLEL SAFE WINDOW;

COMMENT ON FUNCTION gpu_dbscan_sweep(float8[], float8, int[]) IS
'Cluster id of each float8[] point for every minpoints value (element k is gpu_dbscan(point, eps, minpoints[k]) over the same window)';

CREATE FUNCTION gpu_dbscan_sweep(geog geography, eps_m float8, minpoints int[])
RETURNS int[]
AS 'MODULE_PATHNAME', 'gpu_dbscan_sweep'
LANGUAGE C IMMUTABLE PARALLEL SAFE WINDOW;

COMMENT ON FUNCTION gpu_dbscan_sweep(geography, float8, int[]) IS
'Cluster id of each geography point for every minpoints value (element k is gpu_dbscan(geog, eps_m, minpoints[k]) over the same window), from one pair search';

CREATE FUNCTION gpu_dbscan_sweep_3d(geom geometry, eps float8, minpoints int[])
RETURNS int[]
AS 'MODULE_PATHNAME', 'gpu_dbscan_sweep_3d'
LANGUAGE C IMMUTABLE PARALLEL SAFE WINDOW;

COMMENT ON FUNCTION gpu_dbscan_sweep_3d(geometry, float8, int[]) IS
'Cluster id of each POINT Z row for every minpoints value (element k is gpu_dbscan_3d(geom, eps, minpoints[k]) over the same window), from one pair search';

CREATE FUNCTION gpu_dbscan_agg_transfn(internal, float8[], float8, int)
RETURNS internal
AS 'MODULE_PATHNAME', 'gpu_dbscan_agg_transfn'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION gpu_dbscan_agg_transfn(internal, float8[], float8, int) IS
'Transition of gpu_dbscan_agg(float8[], ...): reads the row into the state; the first row gives eps and minpoints';

CREATE FUNCTION gpu_dbscan_agg_transfn(internal, geography, float8, int)
RETURNS internal
AS 'MODULE_PATHNAME', 'gpu_dbscan_agg_transfn'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION gpu_dbscan_agg_transfn(internal, geography, float8, int) IS
'Transition of gpu_dbscan_agg(geography, ...): reads the row into the state; the first row gives eps and minpoints';

CREATE FUNCTION gpu_dbscan_agg_3d_transfn(internal, geometry, float8, int)
RETURNS internal
AS 'MODULE_PATHNAME', 'gpu_dbscan_agg_3d_transfn'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION gpu_dbscan_agg_3d_transfn(internal, geometry, float8, int) IS
'Transition of gpu_dbscan_agg_3d: reads the POINT Z row into the state; the first row gives eps and minpoints';

CREATE FUNCTION gpu_dbscan_params_transfn(internal, float8[], float8[], int[])
RETURNS internal
AS 'MODULE_PATHNAME', 'gpu_dbscan_params_transfn'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION gpu_dbscan_params_transfn(internal, float8[], float8[], int[]) IS
'Transition of gpu_dbscan_params(float8[], ...): reads the row into the state; the first row gives the eps and minpoints arrays';

CREATE FUNCTION gpu_dbscan_params_transfn(internal, geography, float8[], int[])
RETURNS internal
AS 'MODULE_PATHNAME', 'gpu_dbscan_params_transfn'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION gpu_dbscan_params_transfn(internal, geography, float8[], int[]) IS
'Transition of gpu_dbscan_params(geography, ...): reads the row into the state; the first row gives the eps and minpoints arrays';

CREATE FUNCTION gpu_dbscan_params_3d_transfn(internal, geometry, float8[], int[])
RETURNS internal
AS 'MODULE_PATHNAME', 'gpu_dbscan_params_3d_transfn'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION gpu_dbscan_params_3d_transfn(internal, geometry, float8[], int[]) IS
'Transition of gpu_dbscan_params_3d: reads the POINT Z row into the state; the first row gives the eps and minpoints arrays';

CREATE AGGREGATE gpu_dbscan_agg(point float8[], eps float8, minpoints int) (
    SFUNC = gpu_dbscan_agg_transfn,
    STYPE = internal,
    FINALFUNC = gpu_dbscan_agg_finalfn,
    FINALFUNC_MODIFY = READ_ONLY,
    COMBINEFUNC = gpu_dbscan_agg_combinefn,
    SERIALFUNC = gpu_dbscan_agg_serialfn,
    DESERIALFUNC = gpu_dbscan_agg_deserialfn,
    PARALLEL = SAFE
);

COMMENT ON AGGREGATE gpu_dbscan_agg(float8[], float8, int) IS
'Cluster id of each input float8[] point in the aggregate''s input order (NULL for noise): the ids gpu_dbscan(float8[], ...) gives over the same rows in the same order';

CREATE AGGREGATE gpu_dbscan_agg(geog geography, eps_m float8, minpoints int) (
    SFUNC = gpu_dbscan_agg_transfn,
    STYPE = internal,
    FINALFUNC = gpu_dbscan_agg_finalfn,
    FINALFUNC_MODIFY = READ_ONLY,
    COMBINEFUNC = gpu_dbscan_agg_combinefn,
    SERIALFUNC = gpu_dbscan_agg_serialfn,
    DESERIALFUNC = gpu_dbscan_agg_deserialfn,
    PARALLEL = SAFE
);

COMMENT ON AGGREGATE gpu_dbscan_agg(geography, float8, int) IS
'Cluster id of each input geography point in the aggregate''s input order (NULL for noise), eps in metres: the ids gpu_dbscan(geography, ...) gives over the same rows in the same order';

CREATE AGGREGATE gpu_dbscan_agg_3d(geom geometry, eps float8, minpoints int) (
    SFUNC = gpu_dbscan_agg_3d_transfn,
    STYPE = internal,
    FINALFUNC = gpu_dbscan_agg_finalfn,
    FINALFUNC_MODIFY = READ_ONLY,
    COMBINEFUNC = gpu_dbscan_agg_combinefn,
    SERIALFUNC = gpu_dbscan_agg_serialfn,
    DESERIALFUNC = gpu_dbscan_agg_deserialfn,
    PARALLEL = SAFE
);

COMMENT ON AGGREGATE gpu_dbscan_agg_3d(geometry, float8, int) IS
'Cluster id of each input POINT Z row in the aggregate''s input order (NULL for noise), 3D distance: the ids gpu_dbscan_3d gives over the same rows in the same order';

CREATE AGGREGATE gpu_dbscan_params(point float8[], eps float8[], minpoints int[]) (
    SFUNC = gpu_dbscan_params_transfn,
    STYPE = internal,
    FINALFUNC = gpu_dbscan_params_finalfn,
    FINALFUNC_MODIFY = READ_ONLY,
    COMBINEFUNC = gpu_dbscan_agg_combinefn,
    SERIALFUNC = gpu_dbscan_agg_serialfn,
    DESERIALFUNC = gpu_dbscan_agg_deserialfn,
    PARALLEL = SAFE
);

COMMENT ON AGGREGATE gpu_dbscan_params(float8[], float8[], int[]) IS
'For choosing eps and minpoints over float8[] points: clusters, noise fraction and largest cluster for every (eps, minpoints) pair, eps-major in the order given';

CREATE AGGREGATE gpu_dbscan_params(geog geography, eps_m float8[], minpoints int[]) (
    SFUNC = gpu_dbscan_params_transfn,
    STYPE = internal,
    FINALFUNC = gpu_dbscan_params_finalfn,
    FINALFUNC_MODIFY = READ_ONLY,
    COMBINEFUNC = gpu_dbscan_agg_combinefn,
    SERIALFUNC = gpu_dbscan_agg_serialfn,
    DESERIALFUNC = gpu_dbscan_agg_deserialfn,
    PARALLEL = SAFE
);

COMMENT ON AGGREGATE gpu_dbscan_params(geography, float8[], int[]) IS
'For choosing eps (metres) and minpoints over geography points: clusters, noise fraction and largest cluster for every (eps, minpoints) pair, eps-major in the order given';

CREATE AGGREGATE gpu_dbscan_params_3d(geom geometry, eps float8[], minpoints int[]) (
    SFUNC = gpu_dbscan_params_3d_transfn,
    STYPE = internal,
    FINALFUNC = gpu_dbscan_params_finalfn,
    FINALFUNC_MODIFY = READ_ONLY,
    COMBINEFUNC = gpu_dbscan_agg_combinefn,
    SERIALFUNC = gpu_dbscan_agg_serialfn,
    DESERIALFUNC = gpu_dbscan_agg_deserialfn,
    PARALLEL = SAFE
);

COMMENT ON AGGREGATE gpu_dbscan_params_3d(geometry, float8[], int[]) IS
'For choosing eps and minpoints over POINT Z rows (3D distance): clusters, noise fraction and largest cluster for every (eps, minpoints) pair, eps-major in the order given';

-- ---- The fast path of gpu_dbscan() OVER (...) over one table (issue 9,
-- window_scan.c): a planner support function that answers no request; the
-- planner's call loads the module, whose planner hook then offers the
-- custom scan GpuDbscanWindow (gpu_dbscan.fast_path).

CREATE FUNCTION gpu_dbscan_support(internal)
RETURNS internal
AS 'MODULE_PATHNAME', 'gpu_dbscan_support'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION gpu_dbscan_support(internal) IS
'Planner support of gpu_dbscan(geometry, float8, int): loads the module while the query is planned, so that its fast path (gpu_dbscan.fast_path) can be planned';

ALTER FUNCTION gpu_dbscan(geometry, float8, int) SUPPORT gpu_dbscan_support;

-- ---- Table-level entry points (issue 9): a whole table (or a column of
-- it) clustered as gpu_dbscan() OVER ([PARTITION BY partition_by] [ORDER BY
-- order_by]) clusters it, through the fast path where it applies (the
-- parallel read), today's window function otherwise; the same ids.

CREATE FUNCTION gpu_dbscan_table(tab regclass, geom_column name, eps float8, minpoints int,
                                 order_by name DEFAULT NULL, partition_by name DEFAULT NULL,
                                 OUT row_ctid tid, OUT cluster_id int)
RETURNS SETOF record
LANGUAGE plpgsql VOLATILE
AS $$
BEGIN
    RETURN QUERY EXECUTE format(
        'SELECT ctid, gpu_dbscan(%I, %s::float8, %s::int) OVER (%s %s) FROM %s',
        geom_column, quote_nullable(eps), quote_nullable(minpoints),
        CASE WHEN partition_by IS NULL THEN '' ELSE format('PARTITION BY %I', partition_by) END,
        CASE WHEN order_by IS NULL THEN '' ELSE format('ORDER BY %I', order_by) END,
        tab);
END
$$;

COMMENT ON FUNCTION gpu_dbscan_table(regclass, name, float8, int, name, name) IS
'Each row''s ctid and cluster id (NULL for noise) as gpu_dbscan(geom_column, eps, minpoints) OVER ([PARTITION BY partition_by] [ORDER BY order_by]) gives them, in the window''s order';

CREATE FUNCTION gpu_dbscan_table_update(tab regclass, geom_column name, id_column name,
                                        eps float8, minpoints int,
                                        order_by name DEFAULT NULL, partition_by name DEFAULT NULL)
RETURNS bigint
LANGUAGE plpgsql VOLATILE
AS $$
DECLARE
    n bigint;
BEGIN
    EXECUTE format(
        'UPDATE %s AS t SET %I = s.c FROM (SELECT ctid AS tid, gpu_dbscan(%I, %s::float8, %s::int) '
        'OVER (%s %s) AS c FROM %s) AS s WHERE t.ctid = s.tid',
        tab, id_column, geom_column, quote_nullable(eps), quote_nullable(minpoints),
        CASE WHEN partition_by IS NULL THEN '' ELSE format('PARTITION BY %I', partition_by) END,
        CASE WHEN order_by IS NULL THEN '' ELSE format('ORDER BY %I', order_by) END,
        tab);
    GET DIAGNOSTICS n = ROW_COUNT;
    RETURN n;
END
$$;

COMMENT ON FUNCTION gpu_dbscan_table_update(regclass, name, name, float8, int, name, name) IS
'Writes each row''s cluster id (NULL for noise) into id_column, as gpu_dbscan(geom_column, eps, minpoints) OVER ([PARTITION BY partition_by] [ORDER BY order_by]) gives them; returns the rows written';
