-- 96_forms_fast_path: gpu_dbscan_sweep(geometry, eps, minpoints int[]) and
-- gpu_dbscan_point_type(geometry, eps, minpoints) OVER (...) with constant
-- parameters planned as the custom scan GpuDbscanWindow (the fast path of
-- 91_fast_path: parallel read, clustering, rows in the window's order; a
-- sweep's row as an int[], a point type's as 'core', 'border', 'noise' or
-- NULL) give the window functions' rows and errors:
--   for each form, one case per data set of 10_equivalence_random (uniform,
--   blobs, duplicates, lattices, lon/lat, partitions, NULL and EMPTY rows,
--   non-point shapes, rounding; a sweep's values around the set's
--   minpoints), ORDER BY id, id DESC or none, the leader alone and with two
--   workers;
--   the forms beside gpu_dbscan and each other in one window;
--   every parameter error, a row's error, a query over no rows;
--   the query limit on a sweep's ids;
--   what the node does not serve (a float8[] expression, a POINT Z form
--   beside a 2D one, a sub-query's array, another window function) plans
--   as before;
--   the partial path under an outer query, with and without the leader;
--   the planner support functions.
\ir lib/prelude.sql
\ir lib/fast_path.sql
\ir lib/equivalence_sets.sql

SELECT plan(41 + 4 * (SELECT count(DISTINCT ds)::int FROM gd_test.cases));

-- A case over set ds as a query of form 'sweep' (its values around
-- minpoints) or 'point_type', ORDER BY id, id DESC or none (by ds), the
-- set's partitions, columns id and c.
CREATE FUNCTION gd_test.form_query(form text, set_id int, eps float8, minpoints int, part_expr text)
RETURNS text LANGUAGE sql IMMUTABLE AS $$
	SELECT format('SELECT id, %s OVER (%s %s) AS c FROM gd_test.pts WHERE ds = %s',
				  CASE form
					  WHEN 'sweep' THEN format('gpu_dbscan_sweep(geom, %s::float8, %L)', quote_literal(eps),
											   ARRAY[minpoints + 3, minpoints, greatest(minpoints - 1, 0), 1,
													 2 * minpoints + 1]::text)
					  ELSE format('gpu_dbscan_point_type(geom, %s::float8, %s)', quote_literal(eps), minpoints)
				  END,
				  CASE WHEN part_expr = 'NULL::int' THEN '' ELSE 'PARTITION BY ' || part_expr END,
				  (ARRAY['ORDER BY id', 'ORDER BY id DESC', ''])[1 + set_id % 3],
				  set_id)
$$;

-- 1. one case of every set and form, the leader alone
SELECT is(gd_test.fast_diff(gd_test.form_query(form, ds, eps, minpoints, part_expr), 0), NULL,
		  format('%s, leader alone: ds %s %s eps %s minpoints %s %s', form, ds, family, eps, minpoints, part_expr))
FROM (SELECT DISTINCT ON (ds) * FROM gd_test.cases ORDER BY ds, case_id) c, (VALUES ('sweep'), ('point_type')) f(form)
ORDER BY form, ds;

-- 2. another case of every set and form, two workers
SELECT is(gd_test.fast_diff(gd_test.form_query(form, ds, eps, minpoints, part_expr), 2), NULL,
		  format('%s, 2 workers: ds %s %s eps %s minpoints %s %s', form, ds, family, eps, minpoints, part_expr))
FROM (SELECT DISTINCT ON (ds) * FROM gd_test.cases ORDER BY ds, case_id DESC) c, (VALUES ('sweep'), ('point_type')) f(form)
ORDER BY form, ds;

-- 3. with other functions of the window
SELECT is(gd_test.fast_diff($$SELECT format('%s/%s', gpu_dbscan(geom, 1, 3) OVER w, gpu_dbscan_sweep(geom, 1, '{3,2,5}') OVER w) AS c, id
								FROM gd_test.pts WHERE ds = 47 WINDOW w AS (PARTITION BY part ORDER BY id)$$, 2),
		  NULL, 'a sweep beside gpu_dbscan, partitions: the WindowAgg''s rows');
SELECT is(gd_test.fast_diff($$SELECT gpu_dbscan_sweep(geom, 2, '{4}') OVER w::text || gpu_dbscan_sweep(geom, 0.5, '{1,2}') OVER w::text AS c, id
								FROM gd_test.pts WHERE ds = 14 WINDOW w AS (ORDER BY id DESC)$$, 0),
		  NULL, 'two sweeps of one value and two: the WindowAgg''s rows');
SELECT is(gd_test.fast_diff($$SELECT id, gpu_dbscan_sweep(geom, 1, ARRAY[2, 3, 8]) OVER (ORDER BY id) AS c FROM gd_test.pts WHERE ds = 2$$, 0),
		  NULL, 'ARRAY[2, 3, 8] (folded into a constant): the WindowAgg''s rows');
SELECT is(gd_test.fast_diff($$SELECT id, gpu_dbscan_sweep(geom, 1, '{5,5,2,2}') OVER (ORDER BY id) AS c FROM gd_test.pts WHERE ds = 3$$, 0),
		  NULL, 'repeated values: the WindowAgg''s rows');
SELECT is(gd_test.fast_diff($$SELECT id, gpu_dbscan_sweep(ST_Translate(geom, 0.25, 0), 1, '{2,4}') OVER (ORDER BY id) AS c FROM gd_test.pts WHERE ds = 5$$, 2),
		  NULL, 'a geometry expression, two workers: the WindowAgg''s rows');
SELECT is(gd_test.fast_diff($$SELECT format('%s/%s/%s', gpu_dbscan(geom, 1, 3) OVER w, gpu_dbscan_point_type(geom, 1, 3) OVER w,
												 gpu_dbscan_sweep(geom, 1, '{3,2}') OVER w) AS c, id
								FROM gd_test.pts WHERE ds = 47 WINDOW w AS (PARTITION BY part ORDER BY id)$$, 2),
		  NULL, 'a point type beside gpu_dbscan and a sweep, partitions: the WindowAgg''s rows');
SELECT is(gd_test.fast_diff($$SELECT id, gpu_dbscan_point_type(geom, 1, 2) OVER w || gpu_dbscan_point_type(geom, 3, 9) OVER w AS c
								FROM gd_test.pts WHERE ds = 14 WINDOW w AS (ORDER BY id DESC)$$, 0),
		  NULL, 'two point types: the WindowAgg''s rows');

-- 4. errors: the same error, the same row
SELECT is(gd_test.fast_diff($$SELECT id, gpu_dbscan_sweep(geom, 1, NULL::int[]) OVER () AS c FROM gd_test.pts WHERE ds = 3$$, 0),
		  NULL, 'a NULL array: the same error');
SELECT is(gd_test.fast_diff($$SELECT id, gpu_dbscan_sweep(geom, 1, '{}') OVER () AS c FROM gd_test.pts WHERE ds = 3$$, 0),
		  NULL, 'an empty array: the same error');
SELECT is(gd_test.fast_diff($$SELECT id, gpu_dbscan_sweep(geom, 1, '{2,NULL}') OVER () AS c FROM gd_test.pts WHERE ds = 3$$, 0),
		  NULL, 'a NULL value: the same error');
SELECT is(gd_test.fast_diff($$SELECT id, gpu_dbscan_sweep(geom, 1, '{2,-1}') OVER () AS c FROM gd_test.pts WHERE ds = 3$$, 0),
		  NULL, 'a negative value: the same error');
SELECT is(gd_test.fast_diff($$SELECT id, gpu_dbscan_sweep(geom, 1, '{{2,3},{4,5}}') OVER () AS c FROM gd_test.pts WHERE ds = 3$$, 0),
		  NULL, 'a two-dimensional array: the same error');
SELECT is(gd_test.fast_diff($$SELECT id, gpu_dbscan_sweep(geom, 'NaN', '{2}') OVER () AS c FROM gd_test.pts WHERE ds = 3$$, 0),
		  NULL, 'eps NaN: the same error');
SELECT is(gd_test.fast_diff($$SELECT id, gpu_dbscan_sweep(geom, NULL, '{2}') OVER () AS c FROM gd_test.pts WHERE ds = 3$$, 0),
		  NULL, 'eps NULL: the same error');
SELECT is(gd_test.fast_diff($$SELECT id, gpu_dbscan_sweep(geom, -1, NULL::int[]) OVER () AS c FROM gd_test.pts WHERE ds = 3 AND id < 0$$, 0),
		  NULL, 'bad parameters over no rows: no error, no rows');
SELECT is(gd_test.fast_diff($$SELECT id, gpu_dbscan_point_type(geom, 1, NULL) OVER () AS c FROM gd_test.pts WHERE ds = 3$$, 0),
		  NULL, 'a point type''s NULL minpoints: the same error');
SELECT is(gd_test.fast_diff($$SELECT id, gpu_dbscan_point_type(geom, -1, 2) OVER () AS c FROM gd_test.pts WHERE ds = 3$$, 0),
		  NULL, 'a point type''s negative eps: the same error');
SELECT is(gd_test.fast_diff($$SELECT id, gpu_dbscan_point_type(geom, 'NaN', 2) OVER () AS c FROM gd_test.pts WHERE ds = 3$$, 0),
		  NULL, 'a point type''s eps NaN: the same error');
CREATE TABLE gd_test.bad AS
SELECT i AS id, i % 3 AS part,
	   CASE WHEN i = 700 THEN ST_MakePoint('NaN'::float8, 1)
			WHEN i = 400 THEN 'MULTIPOINT(EMPTY, 1 1)'::geometry
			ELSE ST_MakePoint(i % 100, i / 100) END AS geom
FROM generate_series(1, 3000) i;
SELECT is(gd_test.fast_diff($$SELECT id, gpu_dbscan_sweep(geom, 1, '{2,3}') OVER (ORDER BY id) AS c FROM gd_test.bad WHERE id > 400$$, 2),
		  NULL, 'a NaN coordinate: the same error and row number');
SELECT is(gd_test.fast_diff($$SELECT id, gpu_dbscan_sweep(geom, 1, '{2,3}') OVER (PARTITION BY part ORDER BY id DESC) AS c FROM gd_test.bad$$, 2),
		  NULL, 'a malformed value in a partition: the same error and row number');
SELECT is(gd_test.fast_diff($$SELECT id, gpu_dbscan_point_type(geom, 1, 2) OVER (ORDER BY id) AS c FROM gd_test.bad WHERE id > 400$$, 2),
		  NULL, 'a point type, a NaN coordinate: the same error and row number');
SELECT is(gd_test.fast_diff($$SELECT id, gpu_dbscan_sweep(geom, 1, '{3,2}') OVER (PARTITION BY part ORDER BY id) AS c FROM gd_test.bad WHERE id NOT IN (400, 700)$$, 2),
		  NULL, 'the next query after the errors: the same rows');
SELECT is(gd_test.fast_diff($$SELECT id, gpu_dbscan_point_type(geom, 1, 3) OVER (PARTITION BY part ORDER BY id) AS c FROM gd_test.bad WHERE id NOT IN (400, 700)$$, 2),
		  NULL, 'and the point type''s');

-- 5. the query limit holds the fast path's ids too, and nothing stays charged
-- (the read of the 25,200 rows the WHERE clause keeps, sized for twice the
-- planner's guess, fits; their ids for 40 values, 4 MB, do not)
SET LOCAL gpu_dbscan.max_query_memory = '4MB';
SELECT gd_test.use_fast_path(true, 0);
SELECT matches(gd_test.error_of($$SELECT max(c[1]) FROM (SELECT gpu_dbscan_sweep(geom, 1, '{2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,33,34,35,36,37,38,39,40,41}') OVER () c FROM gd_test.pts WHERE ds <= 18) s$$),
			   '^53200 gpu_dbscan: out of memory: the sweep''s ids .*past gpu_dbscan\.max_query_memory \(4 MB\)',
			   'a sweep''s ids past max_query_memory: out of memory naming it');
SELECT is((SELECT session_bytes FROM gpu_dbscan_memory()), 0::bigint, 'nothing stays charged after the error');
SELECT is(gd_test.fast_diff($$SELECT id, gpu_dbscan_sweep(geom, 1, '{2,3}') OVER (ORDER BY id) AS c FROM gd_test.pts WHERE ds = 4$$, 0),
		  NULL, 'a sweep within the limit runs: the WindowAgg''s rows');
RESET gpu_dbscan.max_query_memory;

-- 6. what the node does not serve plans as before
SELECT is(gd_test.fast_diff($$SELECT id, gpu_dbscan_sweep(geom::geography, 1000, '{2,3}') OVER () AS c FROM gd_test.pts WHERE ds = 50$$, 2),
		  NULL, 'a geography sweep: the fast path (99_geography_fast_path), the WindowAgg''s rows');
SELECT is(gd_test.fallback_diff($$SELECT id, gpu_dbscan_sweep(ARRAY[ST_X(geom), ST_Y(geom)], 1, '{2,3}') OVER (ORDER BY id) AS c FROM gd_test.pts WHERE ds = 3$$),
		  NULL, 'a float8[] sweep over an expression: today''s path (98_array_fast_path: a column)');
SELECT is(gd_test.fallback_diff($$SELECT id, format('%s/%s', gpu_dbscan_sweep_3d(ST_Force3DZ(geom), 1, '{2,3}') OVER w, gpu_dbscan_sweep(geom, 1, '{2,3}') OVER w) AS c
								   FROM gd_test.pts WHERE ds = 3 WINDOW w AS (ORDER BY id)$$),
		  NULL, 'a POINT Z sweep beside a 2D one: today''s path (97_point_z_fast_path: POINT Z alone)');
SELECT is(gd_test.fallback_diff($$SELECT id, gpu_dbscan_sweep(geom, 1, ARRAY(SELECT generate_series(2, 4))) OVER (ORDER BY id) AS c FROM gd_test.pts WHERE ds = 3$$),
		  NULL, 'values from a sub-query: today''s path');
SELECT is(gd_test.fallback_diff($$SELECT id, gpu_dbscan_sweep(geom, 1, '{2,3}') OVER w || row_number() OVER w::int AS c FROM gd_test.pts WHERE ds = 3 WINDOW w AS (ORDER BY id)$$),
		  NULL, 'another window function in the window: today''s path');
SELECT is(gd_test.fast_diff($$SELECT id, gpu_dbscan_point_type(geom::geography, 1000, 2) OVER () AS c FROM gd_test.pts WHERE ds = 50$$, 0),
		  NULL, 'a geography point type: the fast path, the WindowAgg''s rows');
SELECT is(gd_test.fallback_diff($$SELECT id, gpu_dbscan_point_type(ARRAY[ST_X(geom), ST_Y(geom)], 1, 2) OVER (ORDER BY id) AS c FROM gd_test.pts WHERE ds = 3$$),
		  NULL, 'a float8[] point type over an expression: today''s path');
SELECT is(gd_test.fallback_diff($$SELECT id, format('%s/%s', gpu_dbscan_point_type_3d(ST_Force3DZ(geom), 1, 2) OVER w, gpu_dbscan_point_type(geom, 1, 2) OVER w) AS c
								   FROM gd_test.pts WHERE ds = 3 WINDOW w AS (ORDER BY id)$$),
		  NULL, 'a POINT Z point type beside a 2D one: today''s path');

-- 7. the partial path under an outer query (each participant returns a
-- share of the rows, every value of each row from the shared output), with
-- and without the leader
SELECT is(gd_test.partial_diff($$SELECT id, gpu_dbscan_sweep(geom, 1, '{2,3}') OVER () AS c FROM gd_test.pts WHERE ds = 10$$),
		  NULL, 'the partial path, OVER (): the window function''s rows');
-- more rows than a participant claims at a time (16,384), so that several emit
CREATE TABLE gd_test.big AS
SELECT i AS id, i % 4 AS part,
	   CASE WHEN i % 5000 = 0 THEN NULL
			ELSE ST_MakePoint((i::bigint * 7919) % 1000 / 10.0, (i::bigint * 104729) % 1009 / 10.0) END AS geom
FROM generate_series(1, 80000) i;
SELECT is(gd_test.partial_diff($$SELECT id, format('%s/%s', gpu_dbscan_sweep(geom, 0.3, '{5,2,3}') OVER w, gpu_dbscan(geom, 0.3, 4) OVER w) AS c
								  FROM gd_test.big WINDOW w AS (PARTITION BY part ORDER BY id)$$, false),
		  NULL, 'the partial path without the leader, a sweep beside gpu_dbscan, partitions: the window function''s rows');
SELECT is(gd_test.partial_diff($$SELECT id, gpu_dbscan(geom, 0.3, 2) OVER () || '/' || gpu_dbscan_sweep(geom, 0.3, '{4,3}') OVER ()::text AS c
								  FROM gd_test.big$$),
		  NULL, 'the partial path, gpu_dbscan beside a sweep, OVER (): the window function''s rows');
SELECT is(gd_test.partial_diff($$SELECT id, gpu_dbscan_point_type(geom, 0.3, 3) OVER () AS c FROM gd_test.big$$),
		  NULL, 'the partial path, a point type, OVER (), NULL rows: the window function''s rows');
SELECT is(gd_test.partial_diff($$SELECT id, format('%s/%s', gpu_dbscan_sweep(geom, 0.3, '{4,2}') OVER w, gpu_dbscan_point_type(geom, 0.3, 4) OVER w) AS c
								  FROM gd_test.big WINDOW w AS (PARTITION BY part ORDER BY id)$$, false),
		  NULL, 'the partial path without the leader, a point type beside a sweep, partitions: the window function''s rows');

-- 8. the planner support function loads the module for both forms
SELECT is((SELECT prosupport::regproc::text FROM pg_proc
		   WHERE oid = 'gpu_dbscan_sweep(geometry, float8, int[])'::regprocedure),
		  'gpu_dbscan_support', 'gpu_dbscan_sweep(geometry, ...) has the planner support function');
SELECT is((SELECT prosupport::regproc::text FROM pg_proc
		   WHERE oid = 'gpu_dbscan_point_type(geometry, float8, int)'::regprocedure),
		  'gpu_dbscan_support', 'gpu_dbscan_point_type(geometry, ...) has the planner support function');

SELECT * FROM finish();
ROLLBACK;
