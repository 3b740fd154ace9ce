-- 95_parallel_exact_tests: PostGIS's exact test of non-point geometries'
-- candidate pairs in parallel workers (nonpoint_parallel.c,
-- gpu_dbscan.exact_test_workers).  Against the backend alone and against
-- ST_ClusterDBSCAN:
--   lines, boxes, multipoints and points (gen_shapes), NULL and EMPTY rows,
--   partitions and orders, several eps and minpoints, workers forced and
--   by the pairs' number;
--   that workers took part (a test-only counter), and that none do with the
--   setting at 0 or max_parallel_workers at 0;
--   inside a query under a Gather (the backend already in parallel mode),
--   inside a parallel worker that clusters (no workers of its own), in a
--   statement that has written rows (INSERT ... SELECT over partitions);
--   a statement timeout during the workers' tests: a clean cancel, and the
--   next query right.
\ir lib/prelude.sql
\ir lib/fast_path.sql

SELECT plan(22);

CREATE FUNCTION gd_test.exact_test_runs() RETURNS bigint
	AS '$libdir/gpu_dbscan', 'gpu_dbscan_exact_test_runs' LANGUAGE C VOLATILE;

-- 12,000 rows of four shapes in 3 partitions, some NULL and some EMPTY
CREATE TABLE gd_test.shapes AS
SELECT id, id % 3 AS part,
	   CASE WHEN id % 101 = 0 THEN NULL
			WHEN id % 103 = 0 THEN 'GEOMETRYCOLLECTION EMPTY'::geometry
			WHEN id % 107 = 0 THEN ST_Collect(geom, 'POINT EMPTY'::geometry)
			ELSE geom END AS geom
FROM gd_test.gen_shapes(0.95, 12000, 120, 1.5);
ANALYZE gd_test.shapes;

-- the ids of q with the exact tests given workers (NULL: the setting's default)
CREATE FUNCTION pg_temp.ids(q text, workers int) RETURNS text[] LANGUAGE plpgsql AS $$
DECLARE
	result	text[];
BEGIN
	PERFORM set_config('gpu_dbscan.exact_test_workers', coalesce(workers, -1)::text, true),
			set_config('max_parallel_workers_per_gather', '2', true),
			set_config('gpu_dbscan.fast_path', 'off', true);
	EXECUTE format('SELECT array_agg(format(''%%s:%%s'', id, c) ORDER BY id) FROM (%s) s', q) INTO result;
	RETURN result;
END
$$;
-- q's ids with 2 workers forced against the backend alone, and whether a worker took part
CREATE FUNCTION pg_temp.parallel_diff(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	before	bigint := gd_test.exact_test_runs();
	diff	text := gd_test.rows_diff(pg_temp.ids(q, 2), pg_temp.ids(q, 0), 'workers', 'backend alone');
BEGIN
	IF diff IS NOT NULL THEN
		RETURN diff;
	END IF;
	IF gd_test.exact_test_runs() = before THEN
		RETURN 'no parallel worker took part';
	END IF;
	RETURN NULL;
END
$$;

-- 1. the same ids with workers as without, over the shapes' variety
SELECT is(pg_temp.parallel_diff(format('SELECT id, gpu_dbscan(geom, %s, %s) OVER (%s) c FROM gd_test.shapes', eps, mp, w)),
		  NULL, format('eps %s minpoints %s OVER (%s): workers'' ids are the backend''s', eps, mp, w))
FROM (VALUES (0.5, 2, 'ORDER BY id'), (1.0, 4, 'PARTITION BY part ORDER BY id'),
			 (2.0, 6, 'ORDER BY id DESC'), (0.0, 1, 'ORDER BY id'),
			 (3.0, 3, 'PARTITION BY part ORDER BY id DESC')) v(eps, mp, w);
SELECT is(pg_temp.parallel_diff('SELECT id, gpu_dbscan_point_type(geom, 1.5, 4) OVER (ORDER BY id) AS c FROM gd_test.shapes'),
		  NULL, 'gpu_dbscan_point_type: workers'' types are the backend''s');

-- 2. against ST_ClusterDBSCAN, with workers
SET LOCAL gpu_dbscan.exact_test_workers = 2;
SET LOCAL max_parallel_workers_per_gather = 2;
SELECT is(gd_test.compare('gd_test.shapes', 1.0, 4, 'part'), NULL,
		  'workers, PARTITION BY part, eps 1 minpoints 4: ST_ClusterDBSCAN''s clusters');
SELECT is(gd_test.compare('gd_test.shapes', 2.5, 8), NULL,
		  'workers, eps 2.5 minpoints 8: ST_ClusterDBSCAN''s clusters');

-- 3. who takes part
CREATE FUNCTION pg_temp.took_part(q text) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
	before	bigint := gd_test.exact_test_runs();
	result	text;
BEGIN
	EXECUTE q INTO result;		/* INTO: a plan that may run in parallel */
	RETURN gd_test.exact_test_runs() > before;
END
$$;
SET LOCAL gpu_dbscan.exact_test_workers = -1;
SELECT ok(pg_temp.took_part('SELECT count(c) FROM (SELECT gpu_dbscan(geom, 2.0, 4) OVER (ORDER BY id) c FROM gd_test.shapes) s'),
		  'exact_test_workers -1: a worker for a partition of ~97,000 pairs to ask st_dwithin (over 20 ms of estimated work)');
SELECT ok(NOT pg_temp.took_part('SELECT count(c) FROM (SELECT gpu_dbscan(geom, 2.0, 4) OVER (ORDER BY id) c FROM gd_test.shapes WHERE id < 600) s'),
		  'exact_test_workers -1: the backend alone for a partition of a few hundred pairs');
SET LOCAL gpu_dbscan.exact_test_workers = 0;
SELECT ok(NOT pg_temp.took_part('SELECT count(c) FROM (SELECT gpu_dbscan(geom, 2.0, 4) OVER (ORDER BY id) c FROM gd_test.shapes) s'),
		  'exact_test_workers 0: the backend alone');
SET LOCAL gpu_dbscan.exact_test_workers = 2;
SET LOCAL max_parallel_workers = 0;
SELECT ok(NOT pg_temp.took_part('SELECT count(c) FROM (SELECT gpu_dbscan(geom, 2.0, 4) OVER (ORDER BY id) c FROM gd_test.shapes) s'),
		  'max_parallel_workers 0: the backend alone');
RESET max_parallel_workers;
SELECT is(pg_temp.ids('SELECT id, gpu_dbscan(geom, 2.0, 4) OVER (ORDER BY id) c FROM gd_test.shapes', 2)
			  = pg_temp.ids('SELECT id, gpu_dbscan(geom, 2.0, 4) OVER (ORDER BY id) c FROM gd_test.shapes', 0), true,
		  'after the backend alone, workers again: the same ids');

-- 4. where the backend is already in parallel mode (under a Gather: the
-- partial path's leader clusters) and where a parallel worker clusters (the
-- leader does not take part: that worker tests alone)
SET LOCAL gpu_dbscan.exact_test_workers = 2;
SELECT is(gd_test.partial_diff('SELECT id, gpu_dbscan(geom, 1.5, 4) OVER (PARTITION BY part ORDER BY id) c FROM gd_test.shapes'),
		  NULL, 'under a Gather, the leader clustering with workers of its own: the window function''s ids');
SELECT gd_test.use_partial_path(true);
SELECT ok(pg_temp.took_part(gd_test.outer_query('SELECT id, gpu_dbscan(geom, 1.5, 4) OVER (PARTITION BY part ORDER BY id) c FROM gd_test.shapes')),
		  'under a Gather, the leader clustering: workers of its own took part');
SELECT is(gd_test.partial_diff('SELECT id, gpu_dbscan(geom, 1.5, 4) OVER (PARTITION BY part ORDER BY id) c FROM gd_test.shapes', false),
		  NULL, 'under a Gather, a worker clustering: the window function''s ids');
SET LOCAL gpu_dbscan.exact_test_workers = 2;
SET LOCAL gpu_dbscan.fast_path = off;

-- 5. in a statement that has written rows before the next partition is clustered
CREATE TABLE gd_test.shape_ids (id int, c int);
SELECT gd_test.exact_test_runs() AS runs_before \gset
INSERT INTO gd_test.shape_ids
SELECT id, gpu_dbscan(geom, 1.0, 4) OVER (PARTITION BY part ORDER BY id) FROM gd_test.shapes;
SELECT is((SELECT array_agg(format('%s:%s', id, c) ORDER BY id) FROM gd_test.shape_ids),
		  pg_temp.ids('SELECT id, gpu_dbscan(geom, 1.0, 4) OVER (PARTITION BY part ORDER BY id) c FROM gd_test.shapes', 0),
		  'INSERT ... SELECT over three partitions, workers: the backend''s ids');
SELECT is((SELECT count(*) FROM gd_test.shape_ids), 12000::bigint, 'every row inserted');
SELECT cmp_ok(gd_test.exact_test_runs(), '>', :runs_before::bigint, 'the INSERT''s clusterings had workers');

-- 6. a statement timeout while the workers test (heavier shapes: each
-- st_dwithin compares polygons of 64 vertices with long lines): a clean
-- cancel, and the next query right
CREATE TABLE gd_test.heavy AS
SELECT i AS id, CASE WHEN i % 2 = 0 THEN ST_Buffer(ST_MakePoint(x, y), 0.3, 16)
					 ELSE ST_Segmentize(ST_MakeLine(ST_MakePoint(x, y), ST_MakePoint(x + 2, y + 1)), 0.05) END AS geom
FROM (SELECT i, (hashint4(i) & 65535) / 65536.0 * 150 AS x,
			 (hashint4(i + 7777777) & 65535) / 65536.0 * 150 AS y
	  FROM generate_series(1, 20000) i) s;
SET LOCAL gpu_dbscan.backend = cpu;
SET LOCAL statement_timeout = '300ms';
SELECT outcome AS cancel_outcome, seconds AS cancel_seconds
FROM gd_test.until_cancelled($$SELECT count(c) FROM (SELECT gpu_dbscan(geom, 1, 5) OVER (ORDER BY id) c FROM gd_test.heavy) s$$) \gset
SET LOCAL statement_timeout = 0;
SELECT ok(:'cancel_outcome' = '57014: canceling statement due to statement timeout' OR :cancel_seconds < 0.3,
		  format('statement_timeout (300 ms) during the workers'' tests: %s after %s s',
				 :'cancel_outcome', round(:cancel_seconds::numeric, 2)));
SELECT cmp_ok(:cancel_seconds, '<', 2.0, 'the cancel took effect within 2 s');
SELECT is(pg_temp.ids('SELECT id, gpu_dbscan(geom, 0.5, 3) OVER (ORDER BY id) c FROM gd_test.heavy WHERE id <= 4000', 2),
		  pg_temp.ids('SELECT id, gpu_dbscan(geom, 0.5, 3) OVER (ORDER BY id) c FROM gd_test.heavy WHERE id <= 4000', 0),
		  'after the cancel: workers'' ids are the backend''s');

SELECT * FROM finish();
ROLLBACK;
