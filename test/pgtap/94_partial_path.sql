-- 94_partial_path: GpuDbscanWindow as a partial path (issue 9): a window
-- query under an outer one (an aggregate, a filter, a join) runs under a
-- Gather whose participants read the table together, one clusters every
-- row and each emits a share (window_scan.c, WindowShared).  Against the
-- window function, as sorted rows (a Gather keeps no order):
--   one case of every data set of 10_equivalence_random (PARTITION BY,
--   ORDER BY, none), with the Gather's leader taking part and without it
--   (a worker clusters);
--   errors raised by row in the window's order, by the parameters, inside
--   the participants' quals; the next query right, no memory left;
--   non-point rows fetched again, SRIDs, a geometry expression, ctid;
--   an estimate short of the rows (the clusterer reads again alone);
--   partial aggregates over the ids; EXPLAIN's lines; the Gather rescanned;
--   gpu_dbscan_last_run() when a worker clusters.
\ir lib/prelude.sql
\ir lib/fast_path.sql
\ir lib/equivalence_sets.sql

SELECT plan(23 + 2 * (SELECT count(DISTINCT ds)::int FROM gd_test.cases));

-- 1. one case of every set, the leader taking part, then the workers alone
SELECT is(gd_test.partial_diff(gd_test.case_query(ds, eps, minpoints, part_expr, order_expr)), NULL,
		  format('partial path: ds %s %s eps %s minpoints %s %s %s', ds, family, eps, minpoints,
				 part_expr, coalesce(nullif(order_expr, ''), 'no order by')))
FROM (SELECT DISTINCT ON (ds) * FROM gd_test.cases ORDER BY ds, case_id) c
ORDER BY ds;
SELECT is(gd_test.partial_diff(gd_test.case_query(ds, eps, minpoints, part_expr, order_expr), false), NULL,
		  format('partial path, workers alone: ds %s %s eps %s minpoints %s %s %s', ds, family, eps, minpoints,
				 part_expr, coalesce(nullif(order_expr, ''), 'no order by')))
FROM (SELECT DISTINCT ON (ds) * FROM gd_test.cases ORDER BY ds, case_id DESC) c
ORDER BY ds;

-- 2. errors, the same error and row number; the next query right
CREATE TABLE gd_test.pbad AS
SELECT i AS id, i % 3 AS part,
	   CASE WHEN i = 700 THEN ST_MakePoint('NaN'::float8, 1)
			WHEN i = 900 THEN ST_SetSRID(ST_MakePoint(1, 1), 4326)
			WHEN i = 400 THEN 'MULTIPOINT(EMPTY, 1 1)'::geometry
			ELSE ST_MakePoint(i % 100, i / 100) END AS geom
FROM generate_series(1, 30000) i;
SELECT is(gd_test.partial_diff('SELECT id, gpu_dbscan(geom, 1, 2) OVER (ORDER BY id DESC) c FROM gd_test.pbad WHERE id <> 400'),
		  NULL, 'partial path: a second SRID before a NaN in the window''s order');
SELECT is(gd_test.partial_diff('SELECT id, gpu_dbscan(geom, 1, 2) OVER (PARTITION BY part ORDER BY id DESC) c FROM gd_test.pbad', false),
		  NULL, 'partial path, a worker clusters: a malformed value in a partition');
SELECT is(gd_test.partial_diff('SELECT id, gpu_dbscan(geom, -1, 2) OVER () c FROM gd_test.pbad'),
		  NULL, 'partial path: a negative eps');
SELECT is(gd_test.partial_diff('SELECT id, gpu_dbscan(geom, 1, 2) OVER () c FROM gd_test.pbad WHERE 1 / (id - 17777) > -10'),
		  NULL, 'partial path: division by zero in the participants'' quals');
SELECT is(gd_test.partial_diff('SELECT id, gpu_dbscan(geom, 1, 2) OVER (ORDER BY id) c FROM gd_test.pbad WHERE id NOT IN (400, 700, 900)'),
		  NULL, 'partial path: the next query after the errors');
SELECT is((SELECT count(*)::int FROM pg_backend_memory_contexts WHERE name LIKE 'gpu_dbscan window scan%'), 0,
		  'partial path: no memory of the node left after the errors');

-- 3. non-point rows (fetched again by TID), an SRID per partition, a
-- geometry expression, ctid
CREATE TABLE gd_test.psrids AS
SELECT i AS id, i % 4 AS part,
	   ST_SetSRID(CASE WHEN i % 997 = 0 THEN 'LINESTRING(0 0, 3 3)'::geometry
					   ELSE ST_MakePoint((i::bigint * 7919) % 1000 / 10.0, (i::bigint * 104729) % 1009 / 10.0) END,
				  (ARRAY[0, 4326, 0, 3857])[1 + i % 4]) AS geom
FROM generate_series(1, 60000) i;
SELECT is(gd_test.partial_diff('SELECT id, gpu_dbscan(geom, 1, 4) OVER (PARTITION BY part ORDER BY id) c FROM gd_test.psrids'),
		  NULL, 'partial path: an SRID for each partition, non-point rows');
SELECT is(gd_test.partial_diff('SELECT id, gpu_dbscan(geom, 8, 3) OVER () c FROM gd_test.psrids WHERE part <> 1', false),
		  NULL, 'partial path, a worker clusters: OVER () over two SRIDs, the same error');
SELECT is(gd_test.partial_diff('SELECT id, gpu_dbscan(geom, 8, 3) OVER () c FROM gd_test.psrids WHERE part = 1'),
		  NULL, 'partial path: OVER (), non-point rows fetched again');
SELECT is(gd_test.partial_diff('SELECT ctid::text || ''/'' || id AS id, gpu_dbscan(ST_Translate(geom, 0.5, 0), 8, 3) OVER (ORDER BY id DESC) c FROM gd_test.psrids WHERE part = 3'),
		  NULL, 'partial path: ctid and a geometry expression');

-- 4. an estimate short of the rows: analyzed with wide rows, then narrow
-- ones added (the planner's density), the clusterer reads again alone
CREATE TABLE gd_test.grown (id int, geom geometry, pad text) WITH (autovacuum_enabled = off);
INSERT INTO gd_test.grown SELECT i, ST_MakePoint(i % 50, i / 50), repeat('x', 900) FROM generate_series(1, 500) i;
ANALYZE gd_test.grown;
INSERT INTO gd_test.grown SELECT i, ST_MakePoint(i % 50, i / 50), NULL FROM generate_series(501, 100000) i;
SELECT is(gd_test.partial_diff('SELECT id, gpu_dbscan(geom, 1.5, 4) OVER (ORDER BY id) c FROM gd_test.grown'),
		  NULL, 'partial path, the estimate short: the rows read again alone');
SELECT gd_test.use_partial_path();
SELECT is((SELECT (j->0->'Plan'->'Plans'->0->'Plans'->0->'Plans'->0->>'Read Passes')
		   FROM (SELECT gd_test.explain_json('SELECT max(c) FROM (SELECT gpu_dbscan(geom, 1.5, 4) OVER () c FROM gd_test.grown) s') j) e),
		  '2', 'partial path, the estimate short: EXPLAIN says Read Passes: 2');

-- 5. aggregates over the ids in parallel, and EXPLAIN
SELECT is((SELECT array_agg(n ORDER BY c IS NULL, n) FROM (SELECT c, count(*) n FROM (SELECT gpu_dbscan(geom, 0.8, 4) OVER () c FROM gd_test.psrids WHERE part = 1) s GROUP BY c) g),
		  (SELECT array_agg(n ORDER BY c IS NULL, n) FROM (SELECT c, count(*) n FROM (SELECT ST_ClusterDBSCAN(geom, 0.8, 4) OVER () c FROM gd_test.psrids WHERE part = 1) s GROUP BY c) g),
		  'partial path: cluster sizes and noise (a partial aggregate in each participant) are ST_ClusterDBSCAN''s');
SELECT gd_test.use_partial_path();
SELECT is((SELECT ARRAY[n->>'Node Type', n->>'Parallel Aware', (n->>'Rows Read'), (n ? 'Workers Planned')::text, (n ? 'Cluster Time')::text]
		   FROM (SELECT gd_test.explain_json('SELECT max(c) FROM (SELECT gpu_dbscan(geom, 8, 3) OVER () c FROM gd_test.psrids WHERE part IN (0, 2)) s')->0->'Plan'->'Plans'->0->'Plans'->0->'Plans'->0 n) e),
		  ARRAY['Custom Scan', 'true', '30000', 'false', 'true'],
		  'partial path: EXPLAIN ANALYZE: the Gather''s workers, every row read, the times');
CREATE TEMP TABLE psum AS
SELECT sum(c::bigint * id)::bigint AS s, count(DISTINCT c) AS k FROM (SELECT id, gpu_dbscan(geom, 0.8, 4) OVER (ORDER BY id) c FROM gd_test.psrids WHERE part = 1) s;
SELECT is((SELECT ARRAY[s, k] FROM psum), ARRAY[270183007894, 1544]::bigint[],
		  'partial path: sum(id * c) in parallel over 1544 clusters');
SET LOCAL gpu_dbscan.fast_path = off;
SELECT is((SELECT sum(c::bigint * id)::bigint FROM (SELECT id, gpu_dbscan(geom, 0.8, 4) OVER (ORDER BY id) c FROM gd_test.psrids WHERE part = 1) s),
		  (SELECT s FROM psum),
		  'partial path: sum(id * c) in parallel is the window function''s (ids by first row in id order)');

-- 6. the Gather rescanned (the inner side of a nested loop, once per outer
-- row): the shared state starts over each time (ReInitializeDSMCustomScan)
CREATE TABLE gd_test.prescan AS
SELECT i AS id, ST_MakePoint((i / 4 % 100) * 0.5 + (i % 4) * 1000, (i / 400) * 0.5) AS geom FROM generate_series(1, 20000) i;
CREATE TABLE gd_test.outer_g AS SELECT g FROM generate_series(0, 4) g;
ANALYZE gd_test.prescan, gd_test.outer_g;
CREATE FUNCTION pg_temp.rescan_counts() RETURNS text LANGUAGE sql AS $$
	SELECT string_agg(g || ':' || n, ' ' ORDER BY g)
	FROM (SELECT g, count(*) n FROM gd_test.outer_g o, (SELECT id, gpu_dbscan(geom, 1.5, 4) OVER () c FROM gd_test.prescan) s
		  WHERE s.c = o.g GROUP BY g) r
$$;
SELECT gd_test.use_partial_path();
SET LOCAL enable_hashjoin = off;
SET LOCAL enable_mergejoin = off;
SET LOCAL enable_material = off;
SELECT matches(gd_test.plan_of('SELECT g, count(*) FROM gd_test.outer_g o, (SELECT id, gpu_dbscan(geom, 1.5, 4) OVER () c FROM gd_test.prescan) s WHERE s.c = o.g GROUP BY g'),
			   'Nested Loop.*Seq Scan on outer_g.*Gather.*Parallel Custom Scan \(GpuDbscanWindow\)',
			   'partial path: the Gather on the inner side of a nested loop');
CREATE TEMP TABLE rescanned AS SELECT pg_temp.rescan_counts() AS counts;
-- (a shared read not started over would find its slots taken and fall back
-- to the clusterer reading alone: Read Passes 2, the same rows)
SELECT is(jsonb_path_query_first(gd_test.explain_json('SELECT g, count(*) FROM gd_test.outer_g o, (SELECT id, gpu_dbscan(geom, 1.5, 4) OVER () c FROM gd_test.prescan) s WHERE s.c = o.g GROUP BY g'),
								 'lax $.** ? (@."Custom Plan Provider" == "GpuDbscanWindow")."Read Passes"'),
		  NULL, 'partial path rescanned: each scan one read pass (the shared read started over)');
SET LOCAL gpu_dbscan.fast_path = off;
SELECT is((SELECT counts FROM rescanned), '0:5000 1:5000 2:5000 3:5000',
		  'partial path rescanned once per outer row: four clusters of 5000 rows');
SELECT is((SELECT counts FROM rescanned), pg_temp.rescan_counts(),
		  'partial path rescanned once per outer row: the window function''s rows each time');
RESET enable_hashjoin;
RESET enable_mergejoin;
RESET enable_material;

-- 7. a worker clusters (the leader takes no part): gpu_dbscan_last_run() in
-- the leader's session tells that run, not the session's run before it
SELECT gd_test.use_partial_path(false);
SELECT max(c) FROM (SELECT gpu_dbscan(ST_MakePoint(0, 0), 1, 1) OVER () c) s;
SELECT is((SELECT rows FROM gpu_dbscan_last_run()), 1::bigint, 'a run of one row first');
SELECT is((SELECT max(c) FROM (SELECT gpu_dbscan(geom, 1.5, 4) OVER () c FROM gd_test.prescan) s), 3,
		  'partial path, workers alone: four clusters');
SELECT is((SELECT rows FROM gpu_dbscan_last_run()), 20000::bigint,
		  'partial path, a worker clusters: gpu_dbscan_last_run() in the leader''s session tells its 20000 rows');

SELECT * FROM finish();
ROLLBACK;
