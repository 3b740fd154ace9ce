--
-- aggregates: gpu_dbscan_agg (ids in input order), gpu_dbscan_collect (one
-- GEOMETRYCOLLECTION per cluster), gpu_dbscan_params (a summary per eps and
-- minpoints); the same ids as the window function; NULL and EMPTY rows,
-- non-point geometries, GROUP BY, parallel plans, bad arguments.
--

\i sql/include/small_rows.sql

-- ids in the ORDER BY order, aligned with array_agg over the same order
SELECT array_agg(id ORDER BY id) AS ids,
       gpu_dbscan_agg(geom, 0.8, 1 ORDER BY id) AS minpoints_1,
       gpu_dbscan_agg(geom, 0.8, 3 ORDER BY id) AS minpoints_3,
       gpu_dbscan_agg(geom, 0.6, 3 ORDER BY id) AS eps_06
FROM pts;

-- the same ids as the window function over the same order
SELECT (SELECT array_agg(c ORDER BY id DESC)
        FROM (SELECT id, gpu_dbscan(geom, 0.8, 3) OVER (ORDER BY id DESC) AS c FROM pts) s)
       = (SELECT gpu_dbscan_agg(geom, 0.8, 3 ORDER BY id DESC) FROM pts)
       AS agg_is_window_reversed;

-- the order decides ids (numbered by first row) and border claims
SELECT gpu_dbscan_agg(geom, 0.8, 3 ORDER BY id DESC) FROM pts;

-- GROUP BY: one clustering per group
SELECT id % 2 AS grp, array_agg(id ORDER BY id), gpu_dbscan_agg(geom, 1.2, 2 ORDER BY id)
FROM pts GROUP BY 1 ORDER BY 1;

-- no rows: NULL, as array_agg
SELECT gpu_dbscan_agg(geom, 1, 2), gpu_dbscan_collect(geom, 1, 2),
       gpu_dbscan_params(geom, '{1}', '{2}')
FROM pts WHERE false;

-- only NULL geometries
SELECT gpu_dbscan_agg(geom, 1, 1), gpu_dbscan_collect(geom, 1, 1)
FROM pts WHERE geom IS NULL;

-- gpu_dbscan_collect: clusters in id order, each a GEOMETRYCOLLECTION of its
-- rows in input order, noise left out (as ST_ClusterWithin returns them)
SELECT ST_AsText(unnest(gpu_dbscan_collect(geom, 0.8, 3 ORDER BY id))) FROM pts;
SELECT ST_AsText(unnest(gpu_dbscan_collect(geom, 0.8, 1 ORDER BY id))) FROM pts;
SELECT ST_AsText(unnest(ST_ClusterWithin(geom, 0.8))) FROM (SELECT * FROM pts ORDER BY id) s;
-- all noise: an empty array
SELECT gpu_dbscan_collect(geom, 0.1, 2) FROM pts;
-- SRID and Z are kept; mixed geometry types
SELECT ST_AsEWKT(unnest(gpu_dbscan_collect(g, 1, 1 ORDER BY i)))
FROM (VALUES (1, 'SRID=4326;POINT Z (0 0 5)'::geometry), (2, 'SRID=4326;POINT Z (0.5 0 6)'),
             (3, 'SRID=4326;LINESTRING Z (3 0 1, 4 0 1)'), (4, 'SRID=4326;POINT Z (3.5 0.5 7)')) v(i, g);
-- our own error for what st_collect refuses (mixed dimensions), not PostGIS's XX000
SELECT gpu_dbscan_collect(g, 1, 1)
FROM (VALUES ('POINT Z (0 0 5)'::geometry), ('POINT (0.5 0)')) v(g);

-- non-point geometries: the window function's clusters
CREATE TEMP TABLE shapes (id int, geom geometry);
INSERT INTO shapes VALUES
(1, 'LINESTRING (0 0, 2 0)'),
(2, 'POINT (2.5 0)'),
(3, 'POLYGON ((3 -1, 4 -1, 4 1, 3 1, 3 -1))'),
(4, 'POINT (10 10)'),
(5, 'MULTIPOINT ((10 11), (20 20))'),
(6, 'POINT (4.4 0)');
SELECT gpu_dbscan_agg(geom, 0.5, 2 ORDER BY id) AS agg,
       (SELECT array_agg(c ORDER BY id)
        FROM (SELECT id, gpu_dbscan(geom, 0.5, 2) OVER (ORDER BY id) AS c FROM shapes) s) AS win
FROM shapes;
SELECT ST_AsText(unnest(gpu_dbscan_collect(geom, 0.5, 2 ORDER BY id))) FROM shapes;

-- gpu_dbscan_params: eps-major, in the order given
SELECT p.* FROM (SELECT gpu_dbscan_params(geom, '{0.8, 0.6, 100}', '{3, 1, 0, 8}') AS a FROM pts) s,
     unnest(s.a) p;
-- each pair as gpu_dbscan_agg gives it
SELECT e, m, (SELECT count(DISTINCT c) FROM unnest(gpu_dbscan_agg(geom, e, m)) c) AS clusters
FROM pts, (VALUES (0.8::float8), (0.6), (100)) ev(e), (VALUES (3), (1), (0), (8)) mv(m)
GROUP BY e, m ORDER BY e DESC, m;
-- no geometry at all: noise_fraction NULL
SELECT (unnest(gpu_dbscan_params(geom, '{1}', '{1, 2}'))).* FROM pts WHERE geom IS NULL;

-- parallel plans: partial states serialized, combined, finalized (the Agg's:
-- the fast path, GpuDbscanAgg, reads the table instead; below)
SET gpu_dbscan.fast_path = off;
CREATE TABLE agg_grid AS
SELECT i AS id, ST_MakePoint((i % 100) * 0.5 + (i / 5000) * 100, ((i / 100) % 50) * 0.5) AS geom
FROM generate_series(0, 19999) i;
ALTER TABLE agg_grid SET (parallel_workers = 2);
ANALYZE agg_grid;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF) SELECT gpu_dbscan_agg(geom, 0.5, 5) FROM agg_grid;
EXPLAIN (COSTS OFF) SELECT gpu_dbscan_collect(geom, 0.5, 5) FROM agg_grid;
EXPLAIN (COSTS OFF) SELECT gpu_dbscan_params(geom, '{0.5}', '{5}') FROM agg_grid;
-- an ordered aggregate is not parallelised by PostgreSQL
EXPLAIN (COSTS OFF) SELECT gpu_dbscan_agg(geom, 0.5, 5 ORDER BY id) FROM agg_grid;
-- the answers do not depend on the plan (without ORDER BY only the order of
-- rows may differ: counts, sizes, and the parameters, which every row shares)
SELECT cardinality(a), (SELECT count(DISTINCT c) FROM unnest(a) c) AS clusters,
       (SELECT count(*) FROM unnest(a) c WHERE c IS NULL) AS noise
FROM (SELECT gpu_dbscan_agg(geom, 0.5, 5) AS a FROM agg_grid) s;
SELECT cardinality(a), (SELECT sum(ST_NumGeometries(g)) FROM unnest(a) g) AS clustered
FROM (SELECT gpu_dbscan_collect(geom, 0.5, 5) AS a FROM agg_grid) s;
SELECT (unnest(gpu_dbscan_params(geom, '{0.5, 0.7}', '{5, 6}'))).* FROM agg_grid;
SET max_parallel_workers_per_gather = 0;
SELECT cardinality(a), (SELECT count(DISTINCT c) FROM unnest(a) c) AS clusters,
       (SELECT count(*) FROM unnest(a) c WHERE c IS NULL) AS noise
FROM (SELECT gpu_dbscan_agg(geom, 0.5, 5) AS a FROM agg_grid) s;
SELECT (unnest(gpu_dbscan_params(geom, '{0.5, 0.7}', '{5, 6}'))).* FROM agg_grid;
-- the fast path: one custom scan reads the table (two workers), the same
-- answers; a GROUP BY expression plans as before
RESET gpu_dbscan.fast_path;
RESET max_parallel_workers_per_gather;
EXPLAIN (COSTS OFF) SELECT gpu_dbscan_agg(geom, 0.5, 5 ORDER BY id) FROM agg_grid;
EXPLAIN (COSTS OFF) SELECT id / 5000 AS g, gpu_dbscan_collect(geom, 0.5, 5) FROM agg_grid GROUP BY g;
SELECT cardinality(a), (SELECT count(DISTINCT c) FROM unnest(a) c) AS clusters,
       (SELECT count(*) FROM unnest(a) c WHERE c IS NULL) AS noise
FROM (SELECT gpu_dbscan_agg(geom, 0.5, 5) AS a FROM agg_grid) s;
SELECT cardinality(a), (SELECT sum(ST_NumGeometries(g)) FROM unnest(a) g) AS clustered
FROM (SELECT gpu_dbscan_collect(geom, 0.5, 5) AS a FROM agg_grid) s;
SELECT (unnest(gpu_dbscan_params(geom, '{0.5, 0.7}', '{5, 6}'))).* FROM agg_grid;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
DROP TABLE agg_grid;

-- as a window aggregate: the frame's rows
SELECT id, gpu_dbscan_agg(geom, 0.8, 1) OVER (ORDER BY id ROWS BETWEEN 1 PRECEDING AND CURRENT ROW)
FROM pts ORDER BY id;

-- bad arguments: the window function's messages, from the first row
SELECT gpu_dbscan_agg(geom, -1, 1) FROM pts;
SELECT gpu_dbscan_agg(geom, NULL, 1) FROM pts;
SELECT gpu_dbscan_agg(geom, 1, -1) FROM pts;
SELECT gpu_dbscan_agg(geom, 1, NULL) FROM pts;
SELECT gpu_dbscan_agg(geom, 'NaN', 1) FROM pts;
SELECT gpu_dbscan_agg(geom, 'NaN', -1) FROM pts;
SELECT gpu_dbscan_collect(geom, -1, 1) FROM pts;
SELECT gpu_dbscan_params(geom, '{1, NULL}', '{1}') FROM pts;
SELECT gpu_dbscan_params(geom, '{1, -2}', '{1}') FROM pts;
SELECT gpu_dbscan_params(geom, '{1}', '{1, NULL}') FROM pts;
SELECT gpu_dbscan_params(geom, '{1}', '{-1}') FROM pts;
SELECT gpu_dbscan_params(geom, '{NaN}', '{1}') FROM pts;
SELECT gpu_dbscan_params(geom, NULL, '{1}') FROM pts;
SELECT gpu_dbscan_params(geom, '{1}', NULL) FROM pts;
SELECT gpu_dbscan_params(geom, '{}', '{1}') FROM pts;
SELECT gpu_dbscan_params(geom, '{1}', '{}') FROM pts;
-- only the first row's parameters count (as in the window function)
SELECT gpu_dbscan_agg(geom, CASE WHEN id = 1 THEN 0.8 ELSE -1 END, 1 ORDER BY id) FROM pts;
SELECT gpu_dbscan_agg(geom, CASE WHEN id = 1 THEN -1 ELSE 0.8 END, 1 ORDER BY id) FROM pts;
-- coordinates and SRIDs: the window function's errors
SELECT gpu_dbscan_agg(g, 1, 1) FROM (VALUES ('POINT (0 0)'::geometry), ('POINT (NaN 0)')) v(g);
SELECT gpu_dbscan_agg(g, 1, 1) FROM (VALUES ('SRID=4326;POINT (0 0)'::geometry), ('SRID=3857;POINT (0 0)')) v(g);
-- the session goes on
SELECT gpu_dbscan_agg(geom, 0.8, 1 ORDER BY id) FROM pts;
