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
-- ---- Citus: a distributed table clustered as one (dist_tiles.c,
-- dist_window.c, dist_merge.c; README.md "On a Citus cluster").

CREATE FUNCTION gpu_dbscan_tiles(geom geometry, srid int, x0 float8, y0 float8, side float8,
    nx int, ny int, depth int[], tile_offset bigint[], margin float8,
    OUT tile bigint, OUT ghost boolean, OUT copies int)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'gpu_dbscan_tiles'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION gpu_dbscan_tiles(geometry, int, float8, float8, float8, int, int, int[], bigint[], float8) IS
'For gpu_dbscan_distributed: the tile that owns a point (ghost false) and the tiles within margin of it that hold a ghost copy; copies is the number of rows';

CREATE FUNCTION gpu_dbscan_id_core(geom geometry, eps float8, minpoints int)
RETURNS bigint
AS 'MODULE_PATHNAME', 'gpu_dbscan_id_core'
LANGUAGE C IMMUTABLE PARALLEL SAFE WINDOW;

COMMENT ON FUNCTION gpu_dbscan_id_core(geometry, float8, int) IS
'Cluster id and core flag of each row of the window partition from one clustering: 2 * id + 1 for a core row, 2 * id for a border row, NULL for noise';

CREATE FUNCTION gpu_dbscan_one_sided(xs float8[], ys float8[], ghost boolean[], eps float8)
RETURNS boolean
AS 'MODULE_PATHNAME', 'gpu_dbscan_one_sided'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION gpu_dbscan_one_sided(float8[], float8[], boolean[], float8) IS
'For gpu_dbscan_distributed: whether two of these points, one of them a ghost, are neighbours one way only (PostGIS''s test at the last bit)';

CREATE FUNCTION gpu_dbscan_merge(nodes bigint[], first_rows bigint[], edge_a bigint[], edge_b bigint[],
    OUT node bigint, OUT cluster_id int)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'gpu_dbscan_merge'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION gpu_dbscan_merge(bigint[], bigint[], bigint[], bigint[]) IS
'For gpu_dbscan_distributed: local clusters joined by their edges, numbered 0..k-1 by each joined cluster''s first row';

CREATE PROCEDURE gpu_dbscan_distributed(source regclass, eps float8, minpoints int, result text,
    id_column name DEFAULT 'id', geom_column name DEFAULT 'geom', tile_points bigint DEFAULT NULL,
    report boolean DEFAULT false)
LANGUAGE plpgsql
AS $proc$
DECLARE
    margin float8 := 2 * eps;       -- exact core flags and claimers for every owned point
    id_type regtype;
    geom_type regtype;
    res_parts text[];
    res_name text;
    dist_col name;
    n bigint; n_ids bigint; n_distinct bigint; n_other bigint;
    xmin float8; xmax float8; ymin float8; ymax float8; srid_lo int; srid_hi int;
    workers int;
    target bigint;
    side float8; nx int; ny int; max_depth int;
    depth int[]; offs bigint[]; ntiles bigint;
    pfx text := format('gd_dist_%s_%s', pg_backend_pid(), (extract(epoch from clock_timestamp()) * 1000)::bigint);
    t_tiles text; t_labels text; t_map text;
    one_sided bigint := 0;
    copies bigint; edges bigint; nodes bigint; clusters bigint;
    t0 timestamptz; t_all timestamptz := clock_timestamp();
    ms jsonb := '{}';
    r record;
    q text;
BEGIN
    -- The checks, before any work.
    IF NOT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus') THEN
        RAISE EXCEPTION 'gpu_dbscan_distributed needs the citus extension'
            USING ERRCODE = 'feature_not_supported',
                  HINT = 'On a single node, use gpu_dbscan(geom, eps, minpoints) OVER (ORDER BY id).';
    END IF;
    IF source IS NULL OR result IS NULL OR id_column IS NULL OR geom_column IS NULL THEN
        RAISE EXCEPTION 'gpu_dbscan_distributed: source, result, id_column and geom_column must not be NULL'
            USING ERRCODE = 'null_value_not_allowed';
    END IF;
    IF eps IS NULL OR eps = 'NaN'::float8 OR NOT eps > 0 OR eps = 'Infinity'::float8 THEN
        RAISE EXCEPTION 'gpu_dbscan_distributed: eps must be a finite number above 0, not %', coalesce(eps::text, 'NULL')
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF minpoints IS NULL OR minpoints < 0 THEN
        RAISE EXCEPTION 'gpu_dbscan_distributed: minpoints must be 0 or more, not %', coalesce(minpoints::text, 'NULL')
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF tile_points IS NOT NULL AND tile_points < 1 THEN
        RAISE EXCEPTION 'gpu_dbscan_distributed: tile_points must be at least 1'
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    EXECUTE 'SELECT partkey IS NOT NULL AND partmethod = ''h'' FROM pg_dist_partition WHERE logicalrelid = $1'
        INTO r USING source;
    IF r IS NULL OR NOT r."?column?" THEN
        RAISE EXCEPTION 'gpu_dbscan_distributed: % is not a distributed table', source
            USING ERRCODE = 'wrong_object_type',
                  HINT = 'SELECT create_distributed_table(''' || source || ''', ''<column>'') distributes it.';
    END IF;
    SELECT atttypid::regtype INTO id_type FROM pg_attribute
        WHERE attrelid = source AND attname = id_column AND attnum > 0 AND NOT attisdropped;
    SELECT atttypid::regtype INTO geom_type FROM pg_attribute
        WHERE attrelid = source AND attname = geom_column AND attnum > 0 AND NOT attisdropped;
    IF id_type IS NULL OR geom_type IS NULL THEN
        RAISE EXCEPTION 'gpu_dbscan_distributed: % has no column %', source,
            CASE WHEN id_type IS NULL THEN id_column ELSE geom_column END
            USING ERRCODE = 'undefined_column';
    END IF;
    IF id_type NOT IN ('smallint'::regtype, 'integer'::regtype, 'bigint'::regtype) THEN
        RAISE EXCEPTION 'gpu_dbscan_distributed: the id column % must be smallint, integer or bigint, not %', id_column, id_type
            USING ERRCODE = 'datatype_mismatch';
    END IF;
    IF geom_type <> 'geometry'::regtype THEN
        RAISE EXCEPTION 'gpu_dbscan_distributed: the column % must be geometry, not %', geom_column, geom_type
            USING ERRCODE = 'datatype_mismatch';
    END IF;
    res_parts := parse_ident(result);
    res_name := array_to_string(ARRAY(SELECT quote_ident(p) FROM unnest(res_parts) p), '.');
    IF to_regclass(res_name) IS NOT NULL THEN
        RAISE EXCEPTION 'gpu_dbscan_distributed: relation % already exists', result
            USING ERRCODE = 'duplicate_table';
    END IF;
    dist_col := (SELECT column_to_column_name(logicalrelid, partkey) FROM pg_dist_partition WHERE logicalrelid = source);

    -- The caller's gpu_dbscan.* settings go with the work to the workers
    -- (Citus sends SET LOCAL on in the transaction's connections).
    PERFORM gpu_dbscan_merge('{}', '{}', '{}', '{}');  -- loads the module: its settings are real, not placeholders
    PERFORM set_config('citus.propagate_set_commands', 'local', true);
    FOR r IN SELECT s.name FROM pg_settings s WHERE s.name LIKE 'gpu\_dbscan.%' AND s.source NOT IN ('default', 'override') LOOP
        EXECUTE format('SET LOCAL %s = %L', r.name, current_setting(r.name));
    END LOOP;

    -- The data's extent and count (aggregates pushed down to the shards).
    t0 := clock_timestamp();
    EXECUTE format($q$SELECT count(*), count(%1$I), count(DISTINCT %1$I),
                            count(*) FILTER (WHERE GeometryType(%2$I) <> 'POINT'),
                            min(ST_XMin(%2$I)), max(ST_XMax(%2$I)), min(ST_YMin(%2$I)), max(ST_YMax(%2$I)),
                            min(ST_SRID(%2$I)), max(ST_SRID(%2$I))
                     FROM %3$s WHERE %2$I IS NOT NULL AND NOT ST_IsEmpty(%2$I)$q$, id_column, geom_column, source)
        INTO n, n_ids, n_distinct, n_other, xmin, xmax, ymin, ymax, srid_lo, srid_hi;
    IF n_other > 0 THEN
        RAISE EXCEPTION 'gpu_dbscan_distributed clusters points only: % rows of % hold other geometries', n_other, source
            USING ERRCODE = 'feature_not_supported';
    END IF;
    IF n_ids < n OR n_distinct < n_ids THEN
        RAISE EXCEPTION 'gpu_dbscan_distributed: the id column % must be unique and not NULL', id_column
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF srid_lo <> srid_hi THEN
        RAISE EXCEPTION 'gpu_dbscan_distributed: the geometries have different SRIDs (% and %)', srid_lo, srid_hi
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF minpoints <= 1 THEN
        EXECUTE format('SELECT count(*) FROM %s WHERE ST_IsEmpty(%I)', source, geom_column) INTO n_other;
        IF n_other > 0 THEN
            RAISE EXCEPTION 'gpu_dbscan_distributed: EMPTY geometries with minpoints 0 or 1 are not supported (each would be a cluster)'
                USING ERRCODE = 'feature_not_supported';
        END IF;
    END IF;
    ms := ms || jsonb_build_object('extent', round(extract(epoch from clock_timestamp() - t0) * 1000));

    -- The tiles: a base grid of about tile_points points per cell, a dense
    -- cell split into 4^d sub-tiles; no side below 4 margins (ghosts).
    t0 := clock_timestamp();
    SELECT count(*) INTO workers FROM pg_dist_node
        WHERE noderole = 'primary' AND isactive AND shouldhaveshards AND groupid <> 0;
    target := coalesce(tile_points, greatest(20000, least(5000000, n / greatest(16 * workers, 1))));
    IF n = 0 THEN
        xmin := 0; xmax := 0; ymin := 0; ymax := 0; srid_lo := 0;
    END IF;
    side := greatest(sqrt(greatest((xmax - xmin) * (ymax - ymin), 0) * target / greatest(n, 1)),
                     (xmax - xmin) * target / greatest(n, 1) / 1e6, (ymax - ymin) * target / greatest(n, 1) / 1e6,
                     4 * margin);
    LOOP
        nx := least(floor((xmax - xmin) / side) + 1, 2e9)::int;
        ny := least(floor((ymax - ymin) / side) + 1, 2e9)::int;
        EXIT WHEN nx::bigint * ny <= 65536;
        side := side * 2;
    END LOOP;
    max_depth := greatest(0, least(12, floor(log(2.0, (side / (4 * margin))::numeric))))::int;
    q := format($q$
        WITH c AS (
            SELECT least(greatest(floor((ST_X(%1$I) - %2$L) / %4$L), 0), %5$L - 1)::bigint * %6$L
                 + least(greatest(floor((ST_Y(%1$I) - %3$L) / %4$L), 0), %6$L - 1)::bigint AS k, count(*) AS cnt
            FROM %7$s WHERE %1$I IS NOT NULL AND NOT ST_IsEmpty(%1$I) GROUP BY 1),
        d AS (
            SELECT g.k, CASE WHEN coalesce(c.cnt, 0) <= %8$L THEN 0
                        ELSE least(%9$L, ceil(ln(c.cnt::float8 / %8$L) / ln(4)))::int END AS depth
            FROM generate_series(0, %5$L::bigint * %6$L - 1) g(k) LEFT JOIN c USING (k)),
        o AS (
            SELECT k, depth, coalesce(sum(1::bigint << (2 * depth)) OVER w, 0) AS off
            FROM d WINDOW w AS (ORDER BY k ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING))
        SELECT array_agg(depth ORDER BY k), array_agg(off ORDER BY k), sum(1::bigint << (2 * depth))
        FROM o$q$,
        geom_column, xmin, ymin, side, nx, ny, source, target, max_depth);
    EXECUTE q INTO depth, offs, ntiles;
    IF ntiles >= 2147483648 THEN
        RAISE EXCEPTION 'gpu_dbscan_distributed: % tiles are too many', ntiles USING ERRCODE = 'program_limit_exceeded';
    END IF;
    ms := ms || jsonb_build_object('plan', round(extract(epoch from clock_timestamp() - t0) * 1000));

    -- Every point to its tile, and a ghost copy to each tile within margin
    -- (a repartitioning INSERT ... SELECT: the workers send rows to the workers).
    t0 := clock_timestamp();
    t_tiles := format('%I.%I', current_schema(), pfx || '_tiles');
    t_labels := format('%I.%I', current_schema(), pfx || '_labels');
    t_map := format('%I.%I', current_schema(), pfx || '_map');
    EXECUTE format('CREATE TABLE %s (tile bigint, id bigint, ghost boolean, copies int, geom geometry)', t_tiles);
    PERFORM create_distributed_table(t_tiles, 'tile');
    EXECUTE format($q$INSERT INTO %1$s (tile, id, ghost, copies, geom)
                     SELECT t.tile, s.%2$I, t.ghost, t.copies, s.%3$I
                     FROM %4$s s, gpu_dbscan_tiles(s.%3$I, %5$L, %6$L, %7$L, %8$L, %9$L, %10$L, %11$L, %12$L, %13$L) t$q$,
                   t_tiles, id_column, geom_column, source, srid_lo, xmin, ymin, side, nx, ny, depth, offs, margin);
    EXECUTE format('SELECT count(*) FROM %s', t_tiles) INTO copies;
    ms := ms || jsonb_build_object('tiles', round(extract(epoch from clock_timestamp() - t0) * 1000));

    -- Ghosts at a tile's edge that see a neighbour one way only (PostGIS's
    -- test at the last bit) can join two clusters in that tile that the
    -- single node keeps apart; then the whole table is clustered on the
    -- coordinator instead.  minpoints <= 1 joins pairs seen either way: exact.
    t0 := clock_timestamp();
    IF minpoints > 1 THEN
        EXECUTE format($q$SELECT count(*) FROM (SELECT tile FROM %s GROUP BY tile
                          HAVING bool_or(ghost) AND gpu_dbscan_one_sided(array_agg(ST_X(geom)), array_agg(ST_Y(geom)),
                                                                         array_agg(ghost), %L)) s$q$, t_tiles, eps)
            INTO one_sided;
    END IF;
    ms := ms || jsonb_build_object('one_sided_check', round(extract(epoch from clock_timestamp() - t0) * 1000));

    IF one_sided > 0 THEN
        RAISE NOTICE 'gpu_dbscan_distributed: % tiles have a one-sided neighbour pair at their edge: clustering on the coordinator', one_sided;
        t0 := clock_timestamp();
        EXECUTE format('CREATE TABLE %s AS SELECT %I, gpu_dbscan(%I, %L, %L) OVER (ORDER BY %I) AS cluster_id FROM %s',
                       res_name, id_column, geom_column, eps, minpoints, id_column, source);
        PERFORM create_distributed_table(res_name, id_column::text);
        ms := ms || jsonb_build_object('coordinator', round(extract(epoch from clock_timestamp() - t0) * 1000));
    ELSE
        -- Local clustering per tile on the workers: id and core flag in one pass.
        t0 := clock_timestamp();
        EXECUTE format('CREATE TABLE %s (tile bigint, id bigint, ghost boolean, copies int, label bigint)', t_labels);
        PERFORM create_distributed_table(t_labels, 'tile', colocate_with => t_tiles);
        EXECUTE format($q$INSERT INTO %s SELECT tile, id, ghost, copies,
                                gpu_dbscan_id_core(geom, %L, %L) OVER (PARTITION BY tile ORDER BY id)
                         FROM %s$q$, t_labels, eps, minpoints, t_tiles);
        ms := ms || jsonb_build_object('local', round(extract(epoch from clock_timestamp() - t0) * 1000));

        -- The merge: local clusters with their first owned rows; edges from
        -- ghosts core in their tile to their owner tile's cluster.
        t0 := clock_timestamp();
        EXECUTE format('CREATE TABLE %s (tile bigint, lid bigint, cluster_id int)', t_map);
        PERFORM create_distributed_table(t_map, 'tile', colocate_with => t_tiles);
        EXECUTE format($q$
            WITH nodes AS MATERIALIZED (
                SELECT (tile << 32) | (label >> 1) AS node, min(id) AS first
                FROM %1$s WHERE NOT ghost AND label IS NOT NULL GROUP BY tile, label >> 1),
            g AS MATERIALIZED (SELECT id, (tile << 32) | (label >> 1) AS node FROM %1$s WHERE ghost AND label & 1 = 1),
            o AS MATERIALIZED (SELECT id, (tile << 32) | (label >> 1) AS node FROM %1$s
                               WHERE NOT ghost AND copies > 1 AND label & 1 = 1),
            e AS MATERIALIZED (SELECT DISTINCT g.node AS a, o.node AS b FROM g JOIN o USING (id)),
            m AS MATERIALIZED (
                SELECT x.* FROM gpu_dbscan_merge(
                    (SELECT coalesce(array_agg(node), '{}') FROM nodes), (SELECT coalesce(array_agg(first), '{}') FROM nodes),
                    (SELECT coalesce(array_agg(a), '{}') FROM e), (SELECT coalesce(array_agg(b), '{}') FROM e)) x)
            INSERT INTO %2$s SELECT node >> 32, node & 4294967295, cluster_id FROM m WHERE cluster_id >= 0$q$,
            t_labels, t_map);
        GET DIAGNOSTICS nodes = ROW_COUNT;
        EXECUTE format('SELECT count(*) FROM %s WHERE ghost AND label & 1 = 1', t_labels) INTO edges;  -- before DISTINCT
        ms := ms || jsonb_build_object('merge', round(extract(epoch from clock_timestamp() - t0) * 1000));

        -- The result: every row of the source, its id and cluster id.
        t0 := clock_timestamp();
        EXECUTE format('CREATE TABLE %s (%I %s, cluster_id integer)', res_name, id_column, id_type);
        IF dist_col = id_column THEN
            PERFORM create_distributed_table(res_name, id_column::text, colocate_with => source::text);
        ELSE
            PERFORM create_distributed_table(res_name, id_column::text);
        END IF;
        EXECUTE format($q$INSERT INTO %s SELECT l.id, m.cluster_id FROM %s l
                          LEFT JOIN %s m ON m.tile = l.tile AND m.lid = l.label >> 1 WHERE NOT l.ghost$q$,
                       res_name, t_labels, t_map);
        EXECUTE format('INSERT INTO %s SELECT %I, NULL FROM %s WHERE %I IS NULL OR ST_IsEmpty(%I)',
                       res_name, id_column, source, geom_column, geom_column);
        ms := ms || jsonb_build_object('result', round(extract(epoch from clock_timestamp() - t0) * 1000));
        EXECUTE format('DROP TABLE %s, %s', t_labels, t_map);
    END IF;
    EXECUTE format('DROP TABLE %s', t_tiles);
    IF report THEN
        EXECUTE format('SELECT count(DISTINCT cluster_id) FROM %s', res_name) INTO clusters;
        RAISE NOTICE 'gpu_dbscan_distributed: % points, % workers, % tiles (base % x % of side %, target % points), % ghost copies (% %%), % merge edges, % local clusters with ids, % clusters, one-sided tiles %, ms %, total % ms',
            n, workers, ntiles, nx, ny, side, target, copies - n,
            CASE WHEN n > 0 THEN round(100.0 * (copies - n) / n, 2) END, edges, nodes, clusters, one_sided, ms,
            round(extract(epoch from clock_timestamp() - t_all) * 1000);
    END IF;
END
$proc$;

COMMENT ON PROCEDURE gpu_dbscan_distributed(regclass, float8, int, text, name, name, bigint, boolean) IS
'Clusters a whole Citus distributed table of points as gpu_dbscan(geom, eps, minpoints) OVER (ORDER BY id) would, into a new distributed table result (id, cluster_id): tiles with ghost copies, clustering per tile on the workers, a merge on the coordinator';

-- ---- Several GPUs (gpu_dbscan.devices): where the last run went.

CREATE FUNCTION gpu_dbscan_last_run_devices()
RETURNS int[]
AS 'MODULE_PATHNAME', 'gpu_dbscan_last_run_devices'
LANGUAGE C VOLATILE PARALLEL RESTRICTED;

COMMENT ON FUNCTION gpu_dbscan_last_run_devices() IS
'GPU device ordinals this session''s last gpu_dbscan partition ran on: one device, or every entry of gpu_dbscan.devices in order for a partition split over them; NULL for a CPU run and before the first';

-- ---- The fast path of gpu_dbscan() OVER (...) over one table (issue 9,
-- window_scan.c): a planner support function that answers no request; the
-- planner's call loads the module, whose planner hook then offers the
-- custom scan GpuDbscanWindow (gpu_dbscan.fast_path).

CREATE FUNCTION gpu_dbscan_support(internal)
RETURNS internal
AS 'MODULE_PATHNAME', 'gpu_dbscan_support'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION gpu_dbscan_support(internal) IS
'Planner support of the window functions gpu_dbscan, gpu_dbscan_sweep and gpu_dbscan_point_type over geometry, geography and float8[] and their _3d forms over POINT Z, and of the transition functions of gpu_dbscan_agg and gpu_dbscan_params over geometry, geography and float8[], gpu_dbscan_collect, gpu_dbscan_agg_3d and gpu_dbscan_params_3d: loads the module while the query is planned, so that their fast paths (gpu_dbscan.fast_path) can be planned';

ALTER FUNCTION gpu_dbscan(geometry, float8, int) SUPPORT gpu_dbscan_support;
ALTER FUNCTION gpu_dbscan_sweep(geometry, float8, int[]) SUPPORT gpu_dbscan_support;
ALTER FUNCTION gpu_dbscan_point_type(geometry, float8, int) SUPPORT gpu_dbscan_support;
ALTER FUNCTION gpu_dbscan_3d(geometry, float8, int) SUPPORT gpu_dbscan_support;
ALTER FUNCTION gpu_dbscan_sweep_3d(geometry, float8, int[]) SUPPORT gpu_dbscan_support;
ALTER FUNCTION gpu_dbscan_point_type_3d(geometry, float8, int) SUPPORT gpu_dbscan_support;
ALTER FUNCTION gpu_dbscan(float8[], float8, int) SUPPORT gpu_dbscan_support;
ALTER FUNCTION gpu_dbscan_sweep(float8[], float8, int[]) SUPPORT gpu_dbscan_support;
ALTER FUNCTION gpu_dbscan_point_type(float8[], float8, int) SUPPORT gpu_dbscan_support;
ALTER FUNCTION gpu_dbscan(geography, float8, int) SUPPORT gpu_dbscan_support;
ALTER FUNCTION gpu_dbscan_sweep(geography, float8, int[]) SUPPORT gpu_dbscan_support;
ALTER FUNCTION gpu_dbscan_point_type(geography, float8, int) SUPPORT gpu_dbscan_support;

-- The aggregates' fast path (agg_scan.c, custom scan GpuDbscanAgg): the
-- planner costs gpu_dbscan_agg, gpu_dbscan_params and gpu_dbscan_collect
-- through their transition functions, whose support function loads the
-- module in time for its planner hook.
ALTER FUNCTION gpu_dbscan_agg_transfn(internal, geometry, float8, int) SUPPORT gpu_dbscan_support;
ALTER FUNCTION gpu_dbscan_params_transfn(internal, geometry, float8[], int[]) SUPPORT gpu_dbscan_support;
ALTER FUNCTION gpu_dbscan_collect_transfn(internal, geometry, float8, int) SUPPORT gpu_dbscan_support;
ALTER FUNCTION gpu_dbscan_agg_3d_transfn(internal, geometry, float8, int) SUPPORT gpu_dbscan_support;
ALTER FUNCTION gpu_dbscan_params_3d_transfn(internal, geometry, float8[], int[]) SUPPORT gpu_dbscan_support;
ALTER FUNCTION gpu_dbscan_agg_transfn(internal, float8[], float8, int) SUPPORT gpu_dbscan_support;
ALTER FUNCTION gpu_dbscan_params_transfn(internal, float8[], float8[], int[]) SUPPORT gpu_dbscan_support;
ALTER FUNCTION gpu_dbscan_agg_transfn(internal, geography, float8, int) SUPPORT gpu_dbscan_support;
ALTER FUNCTION gpu_dbscan_params_transfn(internal, geography, float8[], int[]) SUPPORT gpu_dbscan_support;

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
