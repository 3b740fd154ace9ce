-- 91_fast_path: gpu_dbscan() OVER (...) planned as the custom scan
-- GpuDbscanWindow (issue 9: parallel read, clustering, rows in the window's
-- order) gives today's window function's rows, ids and errors, with the
-- leader alone and with parallel workers:
--   every case of 10_equivalence_random's data sets (PARTITION BY, ORDER BY
--   id / id DESC, and no ORDER BY: the heap order both ways), leader alone;
--   every set once more with two workers;
--   errors raised by row (NaN, malformed, second SRID: the same row number
--   in the window's order), parameters, an error inside the workers'
--   quals, a cancel; the next query right after each;
--   queries it does not serve plan as before and give today's answers;
--   what the read keeps for some rows only (an SRID other than the read's
--   first, a TID), with the rows copied into heap order after the workers.
\ir lib/prelude.sql
\ir lib/fast_path.sql
\ir lib/equivalence_sets.sql

SELECT plan(39 + (SELECT count(*)::int FROM gd_test.cases) + (SELECT count(DISTINCT ds)::int FROM gd_test.cases));

-- 1. every case, the leader alone
SELECT is(gd_test.fast_diff(gd_test.case_query(ds, eps, minpoints, part_expr, order_expr), 0), NULL,
		  format('leader alone: ds %s %s eps %s minpoints %s %s %s', ds, family, eps, minpoints,
				 part_expr, coalesce(nullif(order_expr, ''), 'no order by')))
FROM gd_test.cases c
ORDER BY case_id;

-- 2. one case of every set, two workers
SELECT is(gd_test.fast_diff(gd_test.case_query(ds, eps, minpoints, part_expr, order_expr), 2), NULL,
		  format('2 workers: ds %s %s eps %s minpoints %s %s %s', ds, family, eps, minpoints,
				 part_expr, coalesce(nullif(order_expr, ''), 'no order by')))
FROM (SELECT DISTINCT ON (ds) * FROM gd_test.cases ORDER BY ds, case_id) c
ORDER BY ds;

-- 3. errors: the same error, the same row, with workers
CREATE TABLE gd_test.bad AS
SELECT i AS id, i % 3 AS part,
	   CASE WHEN i = 700 THEN ST_MakePoint('NaN'::float8, 1)
			WHEN i = 900 THEN ST_SetSRID(ST_MakePoint(1, 1), 4326)
			WHEN i = 400 THEN 'MULTIPOINT(EMPTY, 1 1)'::geometry
			ELSE ST_MakePoint(i % 100, i / 100) END AS geom
FROM generate_series(1, 3000) i;
SELECT is(gd_test.fast_diff('SELECT id, gpu_dbscan(geom, 1, 2) OVER (ORDER BY id DESC) c FROM gd_test.bad WHERE id <> 400', 2),
		  NULL, 'a second SRID before a NaN in the window''s order: the same error and row number');
SELECT is(gd_test.fast_diff('SELECT id, gpu_dbscan(geom, 1, 2) OVER (ORDER BY id) c FROM gd_test.bad WHERE id > 400', 2),
		  NULL, 'a NaN coordinate: the same error and row number');
SELECT is(gd_test.fast_diff('SELECT id, gpu_dbscan(geom, 1, 2) OVER (PARTITION BY part ORDER BY id DESC) c FROM gd_test.bad', 2),
		  NULL, 'a malformed value in a partition: the same error and row number');
SELECT is(gd_test.fast_diff('SELECT id, gpu_dbscan(geom, -1, 2) OVER () c FROM gd_test.bad', 2),
		  NULL, 'a negative eps: the same error');
SELECT is(gd_test.fast_diff('SELECT id, gpu_dbscan(geom, ''NaN'', NULL) OVER () c FROM gd_test.bad', 0),
		  NULL, 'a NULL minpoints: the same error');
SELECT is(gd_test.fast_diff('SELECT id, gpu_dbscan(geom, 1, 2) OVER () c FROM gd_test.bad WHERE 1 / (id - 1777) > -10', 2),
		  NULL, 'division by zero in the workers'' quals: the same error');
SELECT is(gd_test.fast_diff('SELECT id, gpu_dbscan(geom, 1, 2) OVER (ORDER BY id) c FROM gd_test.bad WHERE id NOT IN (400, 700, 900)', 2),
		  NULL, 'the next query after the errors: the same rows');

-- a cancel (statement timeout) in the middle of the parallel read
-- (error_of's WHEN others does not catch a cancel)
CREATE FUNCTION pg_temp.cancel_of(q text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE q;
	RETURN NULL;
EXCEPTION WHEN query_canceled THEN
	RETURN SQLSTATE || ' ' || SQLERRM;
END
$$;
SELECT gd_test.use_fast_path(true, 2);
SET LOCAL statement_timeout = '300ms';
SELECT is(pg_temp.cancel_of($$SELECT count(*) FROM (SELECT gpu_dbscan(geom, 1, 2) OVER () c FROM gd_test.pts
												  WHERE pg_sleep(0.0001) IS NOT NULL) s$$),
		  '57014 canceling statement due to statement timeout', 'a statement timeout cancels the parallel read');
RESET statement_timeout;
SELECT is((SELECT count(*)::int FROM pg_backend_memory_contexts WHERE name LIKE 'gpu_dbscan window scan%'), 0,
		  'no memory of the fast path is left after the errors');
SELECT is(gd_test.fast_diff('SELECT id, gpu_dbscan(geom, 2, 3) OVER (ORDER BY id) c FROM gd_test.pts WHERE ds = 2', 2),
		  NULL, 'the next query after the cancel: the same rows');

-- 4. the order and partitions of every key type: NULLs, NaN, -0 and 0, infinities, extremes
CREATE TABLE gd_test.keys AS
SELECT i AS id,
	   (ARRAY['NaN', '-0', '0', 'Infinity', '-Infinity', NULL, '1.5', '-1e300'])[1 + i % 8]::float8 AS f8,
	   (ARRAY['NaN', '-0', '0', NULL, '2.5'])[1 + i % 5]::float4 AS f4,
	   CASE WHEN i % 11 = 0 THEN NULL ELSE (i * 7919 % 3001 - 1500) * 3074457345618258 END::int8 AS i8,
	   (i % 3 - 1)::int2 AS i2,
	   date '2000-01-01' + (i * 31 % 17) AS d,
	   timestamptz '2020-01-01 00:00:00+00' + (i * 13 % 29) * interval '1 hour' AS tz,
	   ST_MakePoint(i % 40, i / 40) AS geom
FROM generate_series(1, 2000) i;
SELECT is(gd_test.fast_diff('SELECT id, gpu_dbscan(geom, 1.5, 3) OVER (PARTITION BY f8, i2 ORDER BY i8 DESC NULLS LAST, id) c FROM gd_test.keys', 2),
		  NULL, 'float8 and int2 partitions (NaN, -0 = 0, infinities, NULL), int8 DESC NULLS LAST: the WindowAgg''s order');
SELECT is(gd_test.fast_diff('SELECT id, gpu_dbscan(geom, 1.5, 3) OVER (PARTITION BY f4, d ORDER BY tz NULLS FIRST, id DESC) c FROM gd_test.keys', 0),
		  NULL, 'float4 and date partitions, timestamptz and id DESC: the WindowAgg''s order');

-- 5. a geometry expression over the columns, evaluated by the workers
CREATE TABLE gd_test.xy AS
SELECT i AS id, CASE WHEN i % 50 = 0 THEN NULL ELSE (i * 7919 % 997) / 10.0 END::float8 AS x,
	   (i * 104729 % 991) / 10.0 AS y, i % 3 AS part,
	   CASE WHEN i % 400 = 0 THEN 'LINESTRING(0 0, 5 5)'::geometry ELSE ST_MakePoint(i % 30, i / 30) END AS geom
FROM generate_series(1, 3000) i;
SELECT is(gd_test.fast_diff('SELECT id, gpu_dbscan(ST_SetSRID(ST_MakePoint(x, y), 3857), 2, 4) OVER (PARTITION BY part ORDER BY id) c FROM gd_test.xy', 2),
		  NULL, 'ST_SetSRID(ST_MakePoint(x, y), 3857), NULL rows: the WindowAgg''s ids');
SELECT is(gd_test.fast_diff('SELECT id, gpu_dbscan(ST_Translate(geom, 0.5, 0), 1.2, 3) OVER (ORDER BY id DESC) c FROM gd_test.xy', 2),
		  NULL, 'ST_Translate(geom, ...) with non-point rows (fetched again, the expression evaluated again): the WindowAgg''s ids');
SELECT is(gd_test.fast_diff('SELECT id, gpu_dbscan(ST_MakePoint(x / (id - 1500), y), 2, 4) OVER (ORDER BY id) c FROM gd_test.xy', 2),
		  NULL, 'an error inside the workers'' geometry expression: the same error');

-- 6. what the read keeps for some rows only: an SRID other than the read's
-- common one (each partition its own SRID: no error), TIDs (of non-point
-- rows; of every row for ctid), with enough rows that the workers' rows come
-- out of heap order and OVER () copies them into it
CREATE TABLE gd_test.srids AS
SELECT i AS id, i % 4 AS part,
	   ST_SetSRID(CASE WHEN i % 997 = 0 THEN 'LINESTRING(0 0, 3 3)'::geometry
					   ELSE ST_MakePoint((i::bigint * 7919) % 1000 / 10.0, (i::bigint * 104729) % 1009 / 10.0) END,
				  (ARRAY[0, 4326, 0, 3857])[1 + i % 4]) AS geom
FROM generate_series(1, 60000) i;
SELECT is(gd_test.fast_diff('SELECT id, gpu_dbscan(geom, 1, 4) OVER (PARTITION BY part ORDER BY id) c FROM gd_test.srids', 2),
		  NULL, 'an SRID for each partition, other than the first row''s: the WindowAgg''s ids, no error');
SELECT is(gd_test.fast_diff('SELECT id, gpu_dbscan(geom, 1, 4) OVER (PARTITION BY part ORDER BY id DESC) c FROM gd_test.srids', 0),
		  NULL, 'an SRID for each partition, the leader alone: the WindowAgg''s ids');
-- the workers alone read, slowly (a sleep in their quals), so that their rows interleave
SET LOCAL parallel_leader_participation = off;
SELECT is(gd_test.fast_diff('SELECT id, gpu_dbscan(geom, 1, 4) OVER () c FROM gd_test.srids WHERE CASE WHEN id % 200 IN (1, 2) THEN pg_sleep(0.0001) IS NOT NULL ELSE false END', 2),
		  NULL, 'OVER () over two SRIDs, workers: the same error and row number');
SELECT is(gd_test.fast_diff('SELECT id, gpu_dbscan(geom, 8, 3) OVER () c FROM gd_test.srids WHERE CASE WHEN id % 200 IN (0, 2) OR id % 1994 = 0 THEN pg_sleep(0.0001) IS NOT NULL ELSE false END', 2),
		  NULL, 'OVER (), workers, non-point rows fetched again by TID: the WindowAgg''s ids');
SELECT is(gd_test.fast_diff('SELECT ctid::text || ''/'' || id AS id, gpu_dbscan(geom, 8, 3) OVER () c FROM gd_test.srids WHERE CASE WHEN id % 200 = 2 THEN pg_sleep(0.0001) IS NOT NULL ELSE false END', 2),
		  NULL, 'OVER (), workers, ctid: the WindowAgg''s rows');
SELECT is(gd_test.fast_diff('SELECT id, gpu_dbscan(geom, 8, 3) OVER (ORDER BY id) c FROM gd_test.srids WHERE CASE WHEN id % 200 IN (0, 2) OR id % 1994 = 0 THEN pg_sleep(0.0001) IS NOT NULL ELSE false END', 2),
		  NULL, 'OVER (ORDER BY id), workers, the rows in id order copied into heap order: the WindowAgg''s ids');
SELECT is(gd_test.fast_diff('SELECT ctid::text || ''/'' || id AS id, gpu_dbscan(geom, 8, 3) OVER (ORDER BY id DESC) c FROM gd_test.srids WHERE CASE WHEN id % 200 = 2 THEN pg_sleep(0.0001) IS NOT NULL ELSE false END', 2),
		  NULL, 'OVER (ORDER BY id DESC), workers, ctid, sorted through the order: the WindowAgg''s rows');
RESET parallel_leader_participation;
-- the scan tuple follows the node's targetlist (no projection a row): the
-- ids before the key, and columns, ctid and two functions in a mixed order
SELECT is(gd_test.fast_diff('SELECT gpu_dbscan(geom, 8, 3) OVER (ORDER BY id) AS c, id FROM gd_test.srids', 2),
		  NULL, 'OVER (ORDER BY id) with the ids first in the output: the WindowAgg''s rows');
SELECT is(gd_test.fast_diff('SELECT format(''%s/%s/%s/%s'', gpu_dbscan(geom, 8, 3) OVER w + 1, ctid, gpu_dbscan(geom, 1, 4) OVER w, part) AS c, id FROM gd_test.srids WINDOW w AS (PARTITION BY part ORDER BY id)', 2),
		  NULL, 'two functions, ctid and a key around an expression: the WindowAgg''s rows');

-- EXPLAIN ANALYZE: the node's own times whatever TIMING says, and the GPU
-- worker's lines only when it served the query (not preloaded here)
CREATE FUNCTION pg_temp.node_of(q text) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
	j	jsonb;
BEGIN
	PERFORM gd_test.use_fast_path(true, 2);
	EXECUTE 'EXPLAIN (ANALYZE, TIMING OFF, FORMAT JSON) ' || q INTO j;
	RETURN j->0->'Plan'->'Plans'->0;
END
$$;
SELECT is((SELECT ARRAY[n->>'Node Type', n->>'Custom Plan Provider', (n ? 'Read Time')::text,
						(n ? 'Order Time')::text, (n ? 'Cluster Time')::text,
						((n->>'Rows Read')::int = 60000)::text]
		   FROM pg_temp.node_of('SELECT max(c) FROM (SELECT gpu_dbscan(geom, 1, 4) OVER (PARTITION BY part ORDER BY id) c FROM gd_test.srids) s') n),
		  ARRAY['Custom Scan', 'GpuDbscanWindow', 'true', 'true', 'true', 'true'],
		  'EXPLAIN (ANALYZE, TIMING OFF): the read, order and cluster times of the node');
-- whether the GPU worker serves this session: preloaded, a usable GPU, backend not cpu
CREATE FUNCTION pg_temp.worker_serves() RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
	IF coalesce(current_setting('gpu_dbscan.gpu_worker', true), 'off') <> 'on'
	   OR current_setting('gpu_dbscan.backend') = 'cpu' THEN
		RETURN false;
	END IF;
	SET LOCAL gpu_dbscan.backend = 'gpu';
	PERFORM gpu_dbscan(geom, 1, 2) OVER () FROM (VALUES ('POINT(0 0)'::geometry), ('POINT(0 1)')) v(geom);
	RETURN true;
EXCEPTION WHEN OTHERS THEN
	RETURN false;
END
$$;
-- (points only: a partition with a non-point row takes the pair-list path, which
-- the worker does not run)
SELECT is((SELECT n ? 'GPU Worker Requests'
		   FROM pg_temp.node_of('SELECT max(c) FROM (SELECT gpu_dbscan(geom, 1, 4) OVER (PARTITION BY part) c FROM gd_test.srids WHERE id % 997 <> 0) s') n),
		  pg_temp.worker_serves(),
		  'EXPLAIN: the GPU worker''s lines exactly when the preloaded worker serves the session');

-- the read's workers where gpu_dbscan.scan_workers is -1: one per
-- min_parallel_table_scan_size of heap up to max_parallel_workers_per_gather,
-- where a parallel scan of the table gets the planner's logarithmic count;
-- the table's parallel_workers option decides alone
CREATE FUNCTION pg_temp.planned_workers(q text, per_gather int, unit text, scan_workers int DEFAULT -1)
RETURNS int LANGUAGE plpgsql AS $$
DECLARE
	j	jsonb;
BEGIN
	PERFORM gd_test.use_fast_path(true, scan_workers);
	PERFORM set_config('max_parallel_workers_per_gather', per_gather::text, true),
			set_config('min_parallel_table_scan_size', unit, true),
			set_config('parallel_setup_cost', '0', true),
			set_config('parallel_tuple_cost', '0', true);
	EXECUTE 'EXPLAIN (FORMAT JSON) ' || q INTO j;
	RETURN jsonb_path_query_first(j, 'lax $.**."Workers Planned"')::int;
END
$$;
SELECT ok(pg_relation_size('gd_test.srids') / 8192 BETWEEN 384 AND 575,
		  'gd_test.srids holds 384 to 575 pages: 6 to 8 units of 512kB, under 9 (the planner''s third worker)');
SELECT is(pg_temp.planned_workers('SELECT count(*) FROM gd_test.srids', 6, '512kB'), 2,
		  'a parallel count(*) of the table: the planner''s 2 workers');
SELECT is(pg_temp.planned_workers('SELECT id, gpu_dbscan(geom, 1, 4) OVER () c FROM gd_test.srids', 6, '512kB'), 6,
		  'scan_workers -1: one worker per 512kB of heap, up to max_parallel_workers_per_gather (6)');
SELECT is(pg_temp.planned_workers('SELECT id, gpu_dbscan(geom, 1, 4) OVER (ORDER BY id) c FROM gd_test.srids', 4, '512kB'), 4,
		  'scan_workers -1, max_parallel_workers_per_gather 4: 4 workers');
SELECT is(pg_temp.planned_workers('SELECT part, gpu_dbscan_agg(geom, 1, 4) FROM gd_test.srids GROUP BY part', 6, '512kB'), 6,
		  'the aggregate scan reads with as many');
SELECT is(pg_temp.planned_workers('SELECT id, gpu_dbscan(geom, 1, 4) OVER () c FROM gd_test.srids', 6, '8MB'), 0,
		  'scan_workers -1, a table under min_parallel_table_scan_size: no worker');
SELECT is(pg_temp.planned_workers('SELECT id, gpu_dbscan(geom, 1, 4) OVER () c FROM gd_test.srids', 6, '512kB', 3), 3,
		  'scan_workers 3: 3 workers');
ALTER TABLE gd_test.srids SET (parallel_workers = 3);
SELECT is(pg_temp.planned_workers('SELECT id, gpu_dbscan(geom, 1, 4) OVER () c FROM gd_test.srids', 6, '512kB'), 3,
		  'scan_workers -1, the table''s parallel_workers option 3: 3 workers');
ALTER TABLE gd_test.srids RESET (parallel_workers);

-- 7. what the fast path does not serve plans as before
SELECT is(gd_test.fallback_diff('SELECT id, gpu_dbscan(geom, 1, 2) OVER w + row_number() OVER w AS c FROM gd_test.pts WHERE ds = 3 WINDOW w AS (ORDER BY id)'),
		  NULL, 'another window function in the window: today''s path');
SELECT is(gd_test.fallback_diff('SELECT p.id, gpu_dbscan(p.geom, 1, 2) OVER (ORDER BY p.id) AS c FROM gd_test.pts p JOIN gd_test.cases k ON k.case_id = p.id WHERE p.ds = 3'),
		  NULL, 'a join: today''s path');
SELECT is(gd_test.fallback_diff('SELECT id, gpu_dbscan(geom, 1, 2) OVER (ORDER BY id) + (SELECT max(ds) FROM gd_test.cases) AS c FROM gd_test.pts WHERE ds = 3'),
		  NULL, 'a sub-query in the target list: today''s path');
SELECT is(gd_test.fallback_diff('SELECT id, gpu_dbscan(geom, 1, 2) OVER (ORDER BY id) + generate_series(0, 1) AS c FROM gd_test.pts WHERE ds = 3'),
		  NULL, 'a set-returning function in the target list: today''s path');
SELECT is(gd_test.fallback_diff('SELECT id, gpu_dbscan(ST_Translate(geom, 1, 1), 1, 2) OVER (ORDER BY md5(id::text)) + length(ST_AsText(geom)) AS c FROM gd_test.pts WHERE ds = 3'),
		  NULL, 'a geometry expression, a text order, the geometry in the output: today''s path');

SELECT * FROM finish();
ROLLBACK;
