-- 97_point_type_fast_path: gpu_dbscan_point_type(geometry, eps, minpoints)
-- OVER (...) with constant parameters planned as the custom scan
-- GpuDbscanWindow (the fast path of 91_fast_path) gives the window
-- function's rows ('core', 'border', 'noise', NULL for a NULL row) and
-- errors:
--   one case per data set of 10_equivalence_random (uniform, blobs,
--   duplicates, lattices, lon/lat, partitions, NULL and EMPTY rows,
--   non-point shapes, rounding), ORDER BY id, id DESC or none, the leader
--   alone and with two workers;
--   beside gpu_dbscan and a sweep in one window;
--   the parameter errors and a row's error;
--   the partial path under an outer query, with and without the leader;
--   float8[], geography and POINT Z plan as before;
--   the planner support function.
\ir lib/prelude.sql
\ir lib/fast_path.sql
\ir lib/equivalence_sets.sql

SELECT plan(13 + 2 * (SELECT count(DISTINCT ds)::int FROM gd_test.cases));

-- A case over set ds as a point type query, ORDER BY id, id DESC or none (by ds).
CREATE FUNCTION gd_test.type_query(set_id int, eps float8, minpoints int, part_expr text)
RETURNS text LANGUAGE sql IMMUTABLE AS $$
	SELECT format('SELECT id, gpu_dbscan_point_type(geom, %s::float8, %s) OVER (%s %s) AS c FROM gd_test.pts WHERE ds = %s',
				  quote_literal(eps), minpoints,
				  CASE WHEN part_expr = 'NULL::int' THEN '' ELSE 'PARTITION BY ' || part_expr END,
				  (ARRAY['ORDER BY id', 'ORDER BY id DESC', ''])[1 + set_id % 3],
				  set_id)
$$;

-- 1. one case of every set, the leader alone
SELECT is(gd_test.fast_diff(gd_test.type_query(ds, eps, minpoints, part_expr), 0), NULL,
		  format('leader alone: ds %s %s eps %s minpoints %s %s', ds, family, eps, minpoints, part_expr))
FROM (SELECT DISTINCT ON (ds) * FROM gd_test.cases ORDER BY ds, case_id) c
ORDER BY ds;

-- 2. another case of every set, two workers
SELECT is(gd_test.fast_diff(gd_test.type_query(ds, eps, minpoints, part_expr), 2), NULL,
		  format('2 workers: ds %s %s eps %s minpoints %s %s', ds, family, eps, minpoints, part_expr))
FROM (SELECT DISTINCT ON (ds) * FROM gd_test.cases ORDER BY ds, case_id DESC) c
ORDER BY ds;

-- 3. with other functions of the window
SELECT is(gd_test.fast_diff($$SELECT format('%s/%s/%s', gpu_dbscan(geom, 1, 3) OVER w, gpu_dbscan_point_type(geom, 1, 3) OVER w,
												 gpu_dbscan_sweep(geom, 1, '{3,2}') OVER w) AS c, id
								FROM gd_test.pts WHERE ds = 47 WINDOW w AS (PARTITION BY part ORDER BY id)$$, 2),
		  NULL, 'a point type beside gpu_dbscan and a sweep, partitions: the WindowAgg''s rows');
SELECT is(gd_test.fast_diff($$SELECT id, gpu_dbscan_point_type(geom, 1, 2) OVER w || gpu_dbscan_point_type(geom, 3, 9) OVER w AS c
								FROM gd_test.pts WHERE ds = 14 WINDOW w AS (ORDER BY id DESC)$$, 0),
		  NULL, 'two point types: the WindowAgg''s rows');

-- 4. errors: the same error, the same row
SELECT is(gd_test.fast_diff($$SELECT id, gpu_dbscan_point_type(geom, 1, NULL) OVER () AS c FROM gd_test.pts WHERE ds = 3$$, 0),
		  NULL, 'a NULL minpoints: the same error');
SELECT is(gd_test.fast_diff($$SELECT id, gpu_dbscan_point_type(geom, -1, 2) OVER () AS c FROM gd_test.pts WHERE ds = 3$$, 0),
		  NULL, 'a negative eps: the same error');
SELECT is(gd_test.fast_diff($$SELECT id, gpu_dbscan_point_type(geom, 'NaN', 2) OVER () AS c FROM gd_test.pts WHERE ds = 3$$, 0),
		  NULL, 'eps NaN: the same error');
CREATE TABLE gd_test.bad AS
SELECT i AS id, i % 3 AS part,
	   CASE WHEN i = 700 THEN ST_MakePoint('NaN'::float8, 1)
			WHEN i = 400 THEN 'MULTIPOINT(EMPTY, 1 1)'::geometry
			ELSE ST_MakePoint(i % 100, i / 100) END AS geom
FROM generate_series(1, 3000) i;
SELECT is(gd_test.fast_diff($$SELECT id, gpu_dbscan_point_type(geom, 1, 2) OVER (ORDER BY id) AS c FROM gd_test.bad WHERE id > 400$$, 2),
		  NULL, 'a NaN coordinate: the same error and row number');
SELECT is(gd_test.fast_diff($$SELECT id, gpu_dbscan_point_type(geom, 1, 3) OVER (PARTITION BY part ORDER BY id) AS c FROM gd_test.bad WHERE id NOT IN (400, 700)$$, 2),
		  NULL, 'the next query after the errors: the same rows');

-- 5. the partial path, more rows than a participant claims at a time
CREATE TABLE gd_test.type_big AS
SELECT i AS id, i % 4 AS part,
	   CASE WHEN i % 5000 = 0 THEN NULL
			ELSE ST_MakePoint((i::bigint * 7919) % 1000 / 10.0, (i::bigint * 104729) % 1009 / 10.0) END AS geom
FROM generate_series(1, 80000) i;
SELECT is(gd_test.partial_diff($$SELECT id, gpu_dbscan_point_type(geom, 0.3, 3) OVER () AS c FROM gd_test.type_big$$),
		  NULL, 'the partial path, OVER (), NULL rows: the window function''s rows');
SELECT is(gd_test.partial_diff($$SELECT id, format('%s/%s', gpu_dbscan_sweep(geom, 0.3, '{4,2}') OVER w, gpu_dbscan_point_type(geom, 0.3, 4) OVER w) AS c
								  FROM gd_test.type_big WINDOW w AS (PARTITION BY part ORDER BY id)$$, false),
		  NULL, 'the partial path without the leader, beside a sweep, partitions: the window function''s rows');

-- 6. what the node does not serve plans as before
SELECT is(gd_test.fallback_diff($$SELECT id, gpu_dbscan_point_type(geom::geography, 1000, 2) OVER (ORDER BY id) AS c FROM gd_test.pts WHERE ds = 50$$),
		  NULL, 'a geography point type: today''s path');
SELECT is(gd_test.fallback_diff($$SELECT id, gpu_dbscan_point_type(ARRAY[ST_X(geom), ST_Y(geom)], 1, 2) OVER (ORDER BY id) AS c FROM gd_test.pts WHERE ds = 3$$),
		  NULL, 'a float8[] point type: today''s path');
SELECT is(gd_test.fallback_diff($$SELECT id, gpu_dbscan_point_type_3d(ST_Force3DZ(geom), 1, 2) OVER (ORDER BY id) AS c FROM gd_test.pts WHERE ds = 3$$),
		  NULL, 'a POINT Z point type: today''s path');

-- 7. the planner support function loads the module for the point type too
SELECT is((SELECT prosupport::regproc::text FROM pg_proc
		   WHERE oid = 'gpu_dbscan_point_type(geometry, float8, int)'::regprocedure),
		  'gpu_dbscan_support', 'gpu_dbscan_point_type(geometry, ...) has the planner support function');

SELECT * FROM finish();
ROLLBACK;
