-- gpu_dbscan 0.1 -> 0.2
\echo Use "ALTER EXTENSION gpu_dbscan UPDATE TO '0.2'" to load this file. \quit

-- What 0.2 adds to 0.1; gpu_dbscan--0.2.sql holds the same objects for a new install.

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
