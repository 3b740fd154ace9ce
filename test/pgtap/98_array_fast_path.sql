-- 98_array_fast_path: gpu_dbscan, gpu_dbscan_sweep and
-- gpu_dbscan_point_type(float8[], ...) OVER (...) over a float8[] column,
-- planned as the custom scan GpuDbscanWindow (the fast path of
-- 91_fast_path, reading each point's 2 to 8 coordinates), give the window
-- functions' rows and errors:
--   seeded sets in 2, 3, 5 and 8 coordinates (uniform, blobs with noise,
--   exact duplicates, lattices at exactly eps spacing, far from the origin
--   at a small scale), NULL rows in each, partitions; each form ORDER BY id,
--   id DESC or none, the leader alone and two workers;
--   the three forms in one window, minpoints 0, a sweep's repeated values;
--   partitions of different coordinate counts;
--   every row error (a count other than the first row's of the partition,
--   the first row's against later ones, a NULL coordinate, a 2-D array, 0,
--   1 or 9 coordinates, a NaN or infinite coordinate) at its row, in a
--   partition, with two workers, and parameter errors;
--   20,000 3-D rows read by two workers, with a bad row among them;
--   an array expression, a float8[] function beside a geometry one or
--   another window function, a sub-query's sweep values plan as before;
--   the partial path under an outer query, with and without the leader;
--   gpu_dbscan_agg and gpu_dbscan_params(float8[], ...) through
--   GpuDbscanAgg against the Agg: groups of different counts, ORDER BY
--   inside, every row error at its row within its group;
--   the planner support functions.
\ir lib/prelude.sql
\ir lib/fast_path.sql

SELECT plan(154);

SELECT setseed(0.98);
CREATE TABLE gd_test.a (ds int, id int, part int, p float8[], g geometry);
-- 1: uniform 2-D in 30 x 30; 2: 3-D, 25 blobs (width 0.8) and a fifth
-- noise; 3: 5-D, 40 sites 0.5 apart on a grid (eps 0.5), some moved away,
-- 60 exact copies each, and 30 lone points; 4: a 3-D lattice at spacing 1
-- (eps 1 falls on the distance), some sites left out; 5: 5-D, uniform far
-- from the origin at a small scale (rounding); 6: 8-D, 25 blobs and a
-- seventh noise; 7: an 8-D lattice {0, 0.5, 1}^8 (eps 0.5), some sites left
-- out.  Six NULL rows in each.  Set 1's points as geometry too (g).
INSERT INTO gd_test.a
SELECT 1, i, i % 4, ARRAY[x, y], ST_MakePoint(x, y)
FROM (SELECT i, random() * 30 AS x, random() * 30 AS y FROM generate_series(1, 5000) i) s;
INSERT INTO gd_test.a
SELECT 2, i, i % 3,
	   CASE WHEN i % 5 = 0 THEN ARRAY[random() * 40, random() * 40, random() * 40]
			ELSE ARRAY[c.cx + (random() - 0.5) * 0.8, c.cy + (random() - 0.5) * 0.8,
					   c.cz + (random() - 0.5) * 0.8] END
FROM generate_series(1, 5000) i,
	 LATERAL (SELECT (i * 7 % 25) * 1.6 AS cx, (i * 11 % 25) * 1.6 AS cy, (i * 13 % 25) * 1.6 AS cz) c;
INSERT INTO gd_test.a
SELECT 3, i, i % 2, ARRAY[(s % 10) * 0.5, (s / 10) * 0.5, (s / 20) * 0.7, 0.25, CASE WHEN s % 7 = 0 THEN 3 ELSE -1 END]::float8[]
FROM generate_series(1, 2400) i, LATERAL (SELECT i % 40 AS s) s;
INSERT INTO gd_test.a
SELECT 3, 2400 + i, i % 2, ARRAY[100 + i, 0, 0, 0.25, -1]::float8[]
FROM generate_series(1, 30) i;
INSERT INTO gd_test.a
SELECT 4, row_number() OVER (ORDER BY x, y, z)::int, (x + y) % 3, ARRAY[x, y, z]::float8[]
FROM generate_series(0, 14) x, generate_series(0, 14) y, generate_series(0, 9) z
WHERE (x * 7 + y * 3 + z) % 11 <> 0;
INSERT INTO gd_test.a
SELECT 5, i, i % 2, ARRAY[1000.3 + random() * 0.05, -20.7 + random() * 0.05, 5000.1 + random() * 0.01,
						  1e6 + random() * 0.01, -3e5 + random() * 0.01]
FROM generate_series(1, 3000) i;
INSERT INTO gd_test.a
SELECT 6, i, i % 3,
	   ARRAY(SELECT CASE WHEN i % 7 = 0 THEN random() * 40
						 ELSE (i % 25 * (ARRAY[7, 11, 13, 17, 19, 23, 29, 31])[j] % 25) * 1.6 + (random() - 0.5) * 0.8 END
			 FROM generate_series(1, 8) j)
FROM generate_series(1, 3000) i;
INSERT INTO gd_test.a
SELECT 7, n + 1, n % 2, ARRAY(SELECT (n / (3 ^ k)::int % 3) * 0.5 FROM generate_series(0, 7) k)::float8[]
FROM generate_series(0, 6560) n
WHERE n % 5 <> 0;
INSERT INTO gd_test.a
SELECT ds, 100000 + k, k % 2, NULL
FROM generate_series(1, 7) ds, generate_series(1, 6) k;
ANALYZE gd_test.a;

-- Set ds's case: coordinates, eps and minpoints.
CREATE TABLE gd_test.a_cases (ds int, dims int, eps float8, minpoints int);
INSERT INTO gd_test.a_cases VALUES (1, 2, 0.5, 4), (2, 3, 0.3, 6), (3, 5, 0.5, 3), (4, 3, 1, 7),
	(5, 5, 0.004, 8), (6, 8, 0.8, 5), (7, 8, 0.5, 9);

SELECT gd_test.use_fast_path(true, 0);

-- the sets are what they say: clusters and noise in each (1 test)
SELECT is((SELECT array_agg(ds ORDER BY ds)
		   FROM (SELECT ds FROM gd_test.a_cases k,
							LATERAL (SELECT gpu_dbscan(p, k.eps, k.minpoints) OVER () c FROM gd_test.a WHERE a.ds = k.ds) s
				 GROUP BY ds HAVING count(DISTINCT c) > 1 AND count(*) FILTER (WHERE c IS NULL) > 6) t),
		  ARRAY[1, 2, 3, 4, 5, 6, 7], 'every set: several clusters and noise');

-- 1. every set and form, the leader alone and two workers (42 tests)
SELECT is(gd_test.fast_diff(gd_test.set_form_query('gd_test.a', 'p', '', f, ds, eps, minpoints, ds + w), w), NULL,
		  format('%s, %s workers: set %s (%s-D), eps %s, minpoints %s', f, w, ds, dims, eps, minpoints))
FROM gd_test.a_cases, (VALUES ('ids'), ('sweep'), ('point_type')) fs(f), (VALUES (0), (2)) ws(w)
ORDER BY f, w, ds;
-- two coordinates are the geometry's point (the fast path reads them)
SELECT is((SELECT array_agg(c ORDER BY id) FROM (SELECT id, gpu_dbscan(p, 0.5, 4) OVER (ORDER BY id) c FROM gd_test.a WHERE ds = 1) s),
		  (SELECT array_agg(c ORDER BY id) FROM (SELECT id, gpu_dbscan(g, 0.5, 4) OVER (ORDER BY id) c FROM gd_test.a WHERE ds = 1) s),
		  'set 1: float8[2] points cluster as the geometry points');

-- 2. the forms together, minpoints 0, repeated sweep values (5 tests)
SELECT is(gd_test.fast_diff($$SELECT id, format('%s/%s/%s', gpu_dbscan(p, 0.8, 5) OVER w, gpu_dbscan_sweep(p, 0.8, '{5,2}') OVER w,
												 gpu_dbscan_point_type(p, 0.8, 5) OVER w) AS c
								FROM gd_test.a WHERE ds = 6 WINDOW w AS (PARTITION BY part ORDER BY id)$$, 2),
		  NULL, 'the three forms in one window, 8-D, partitions, two workers');
SELECT is(gd_test.fast_diff($$SELECT id, format('%s/%s/%s', gpu_dbscan_point_type(p, 0.5, 9) OVER (), gpu_dbscan(p, 0.5, 9) OVER (),
												 gpu_dbscan_sweep(p, 0.5, '{17,9,3}') OVER ()) AS c
								FROM gd_test.a WHERE ds = 7$$, 0),
		  NULL, 'the three forms in one window, the 8-D lattice, OVER ()');
SELECT is(gd_test.fast_diff($$SELECT id, gpu_dbscan(p, 0.3, 6) OVER w::text || '/' || gpu_dbscan(p, 1, 9) OVER w::text AS c
								FROM gd_test.a WHERE ds = 2 WINDOW w AS (ORDER BY id DESC)$$, 0),
		  NULL, 'two gpu_dbscan of other parameters');
SELECT is(gd_test.fast_diff($$SELECT id, gpu_dbscan(p, 1, 0) OVER (ORDER BY id) AS c FROM gd_test.a WHERE ds = 4$$, 2),
		  NULL, 'minpoints 0');
SELECT is(gd_test.fast_diff($$SELECT id, gpu_dbscan_sweep(p, 0.5, '{61,61,3}') OVER (ORDER BY id) AS c FROM gd_test.a WHERE ds = 3 AND id % 7 <> 0$$, 2),
		  NULL, 'a sweep with repeated values, a WHERE clause');

-- 3. partitions of different coordinate counts (8 tests)
CREATE TABLE gd_test.mixed AS
SELECT i AS id, i % 4 AS part,
	   CASE i % 4 WHEN 0 THEN ARRAY[random() * 10, random() * 10]
				  WHEN 1 THEN ARRAY(SELECT floor(random() * 3) * 0.5 FROM generate_series(1, 5 + 0 * i))
				  WHEN 2 THEN ARRAY(SELECT floor(random() * 2) * 0.5 FROM generate_series(1, 8 + 0 * i))
	   END AS p
FROM generate_series(1, 3000) i;
SELECT is(gd_test.fast_diff('SELECT id, gpu_dbscan(p, 0.5, 4) OVER (PARTITION BY ds ORDER BY id) AS c FROM gd_test.a', 2),
		  NULL, 'every set a partition (2, 3, 5 and 8 coordinates), two workers');
SELECT is(gd_test.fast_diff($$SELECT id, gpu_dbscan_sweep(p, 0.5, '{4,2}') OVER (PARTITION BY ds ORDER BY id DESC) AS c FROM gd_test.a$$, 0),
		  NULL, 'every set a partition, a sweep, ORDER BY id DESC');
SELECT is(gd_test.fast_diff('SELECT id, gpu_dbscan_point_type(p, 0.5, 4) OVER (PARTITION BY ds ORDER BY id) AS c FROM gd_test.a', 2),
		  NULL, 'every set a partition, a point type, two workers');
SELECT is(gd_test.fast_diff($$SELECT id, format('%s/%s/%s', gpu_dbscan(p, 0.5, 4) OVER w, gpu_dbscan_sweep(p, 0.5, '{4,2}') OVER w,
												 gpu_dbscan_point_type(p, 0.5, 4) OVER w) AS c
								FROM gd_test.a WINDOW w AS (PARTITION BY ds ORDER BY id DESC)$$, 2),
		  NULL, 'every set a partition, the three forms, two workers');
SELECT is(gd_test.fast_diff('SELECT id, gpu_dbscan(p, 0.5, 4) OVER (PARTITION BY part ORDER BY id) AS c FROM gd_test.mixed', 2),
		  NULL, 'interleaved partitions of 2, 5 and 8 coordinates and of NULL rows, two workers');
SELECT is(gd_test.fast_diff($$SELECT id, gpu_dbscan_sweep(p, 0.5, '{6,3}') OVER (PARTITION BY part ORDER BY id DESC) AS c FROM gd_test.mixed$$, 0),
		  NULL, 'interleaved partitions, a sweep, ORDER BY id DESC');
SELECT is(gd_test.fast_diff('SELECT id, gpu_dbscan(p, 0.5, 4) OVER () AS c FROM gd_test.mixed', 2),
		  NULL, 'the same rows in one partition: the same error and row number');
SELECT gd_test.use_fast_path(true, 2);
SELECT is(gd_test.error_of('SELECT max(c) FROM (SELECT gpu_dbscan(p, 0.5, 4) OVER (ORDER BY id) AS c FROM gd_test.mixed) s'),
		  '2202E gpu_dbscan: a point has 8 coordinates, the first of its partition (row 1) 5: Row 2 of the window partition.',
		  'the same rows in one partition: the count error names the row and the first row');

-- 4. row errors: the same error at the same row (26 tests)
-- (what: the bad rows' faults, NULL for the good ones)
CREATE TABLE gd_test.abad AS
SELECT id, part, p, NULL::text AS what FROM gd_test.a WHERE ds = 2 AND id <= 2000;
INSERT INTO gd_test.abad VALUES
	(3001, 2, '{1,2}', 'a 2-D point among 3-D ones'), (3002, 0, '{1,NULL,3}', 'a NULL coordinate'),
	(3003, 1, '{{1,2},{3,4}}', 'a 2-D array'), (3004, 2, '{1}', '1 coordinate'),
	(3005, 0, '{1,2,3,4,5,6,7,8,9}', '9 coordinates'), (3006, 1, '{1,NaN,3}', 'a NaN coordinate'),
	(3007, 2, '{1,2,Infinity}', 'an infinite coordinate'), (3008, 0, '{-Infinity,2,3}', 'a -Infinity coordinate'),
	(3009, 1, '{}', 'an empty array');
SELECT is(gd_test.fast_diff(format('SELECT id, gpu_dbscan(p, 0.3, 6) OVER (ORDER BY id) AS c FROM gd_test.abad WHERE id <= 2000 OR id = %s', bad), 2),
		  NULL, format('row error %s, ORDER BY id, two workers: the same error and row number', what))
FROM (SELECT id AS bad, what FROM gd_test.abad WHERE what IS NOT NULL) b
ORDER BY bad;
SELECT is(gd_test.fast_diff(format('SELECT id, gpu_dbscan_point_type(p, 0.3, 6) OVER () AS c FROM gd_test.abad WHERE id <= 2000 OR id = %s', bad), 0),
		  NULL, format('row error %s, OVER (), a point type: the same error and row number', what))
FROM (SELECT id AS bad, what FROM gd_test.abad WHERE what IS NOT NULL) b
ORDER BY bad;
SELECT gd_test.use_fast_path(true, 2);
SELECT is(gd_test.error_of('SELECT max(c) FROM (SELECT gpu_dbscan(p, 0.3, 6) OVER (ORDER BY id) AS c FROM gd_test.abad WHERE id <= 2000 OR id = 3001) s'),
		  '2202E gpu_dbscan: a point has 2 coordinates, the first of its partition (row 1) 3: Row 2001 of the window partition.',
		  'a 2-D point among 3-D ones: the error names its row and the first row');
SELECT is(gd_test.error_of('SELECT max(c) FROM (SELECT gpu_dbscan(p, 0.3, 6) OVER (ORDER BY id) AS c FROM gd_test.abad WHERE id <= 2000 OR id = 3006) s'),
		  '22023 gpu_dbscan: coordinate 2 of a point is NaN or infinite: Row 2001 of the window partition.',
		  'a NaN coordinate: the error names the coordinate and the row');
SELECT is(gd_test.fast_diff('SELECT id, gpu_dbscan(p, 0.3, 6) OVER (ORDER BY id DESC) AS c FROM gd_test.abad WHERE id <= 2000 OR id = 3001', 2),
		  NULL, 'the 2-D point first, 3-D points after it: the same error and row number');
SELECT gd_test.use_fast_path(true, 2);
SELECT is(gd_test.error_of('SELECT max(c) FROM (SELECT gpu_dbscan(p, 0.3, 6) OVER (ORDER BY id DESC) AS c FROM gd_test.abad WHERE id <= 2000 OR id = 3001) s'),
		  '2202E gpu_dbscan: a point has 3 coordinates, the first of its partition (row 1) 2: Row 2 of the window partition.',
		  'the 2-D point first: the error names the second row');
SELECT is(gd_test.fast_diff($$SELECT id, gpu_dbscan_sweep(p, 0.3, '{6,3}') OVER (PARTITION BY part ORDER BY id DESC) AS c FROM gd_test.abad$$, 2),
		  NULL, 'the first bad row of the first partition, a sweep: the same error and row number');
SELECT is(gd_test.fast_diff('SELECT id, gpu_dbscan(p, 0.3, 6) OVER (PARTITION BY part ORDER BY id) AS c FROM gd_test.abad WHERE id <> 3002', 0),
		  NULL, 'bad rows in partitions, ORDER BY id: the same error and row number');
SELECT is(gd_test.fast_diff('SELECT id, gpu_dbscan_point_type(p, 0.3, 6) OVER (ORDER BY id DESC) AS c FROM gd_test.abad', 0),
		  NULL, 'the last bad row first, a point type: the same error and row number');
SELECT is(gd_test.fast_diff('SELECT id, gpu_dbscan(p, 0.3, 6) OVER (PARTITION BY part ORDER BY id) AS c FROM gd_test.abad WHERE id <= 2000', 2),
		  NULL, 'the next query after the errors: the same rows');

-- 5. 20,000 3-D rows read by two workers; q as p with a 2-D point (row
-- 15000) and a NaN coordinate (row 17000) (10 tests)
CREATE TABLE gd_test.abig AS
SELECT i AS id, i % 4 AS part, p,
	   CASE i WHEN 15000 THEN '{1,2}' WHEN 17000 THEN '{1,NaN,1}' ELSE p END AS q
FROM (SELECT i, CASE WHEN i % 5000 = 0 THEN NULL
					 ELSE ARRAY[(i::bigint * 7919) % 300 / 10.0, (i::bigint * 104729) % 307 / 10.0, (i % 7) * 0.2]::float8[] END AS p
	  FROM generate_series(1, 20000) i) s;
ANALYZE gd_test.abig;
SELECT is(gd_test.fast_diff('SELECT id, gpu_dbscan(p, 0.3, 4) OVER () AS c FROM gd_test.abig', 2),
		  NULL, '20,000 rows, OVER (), two workers');
SELECT is(gd_test.fast_diff($$SELECT id, gpu_dbscan_sweep(p, 0.3, '{6,4,2}') OVER (PARTITION BY part ORDER BY id) AS c FROM gd_test.abig$$, 2),
		  NULL, '20,000 rows, a sweep, partitions, two workers');
SELECT is(gd_test.fast_diff('SELECT id, gpu_dbscan_point_type(p, 0.3, 4) OVER (ORDER BY id DESC) AS c FROM gd_test.abig', 2),
		  NULL, '20,000 rows, a point type, ORDER BY id DESC, two workers');
SELECT gd_test.use_fast_path(true, 2);
SELECT is((SELECT ARRAY[jsonb_path_query_first(j, 'lax $.**."Workers Launched"')::int, jsonb_path_query_first(j, 'lax $.**."Rows Read"')::int]
		   FROM gd_test.explain_json('SELECT max(c) FROM (SELECT gpu_dbscan(p, 0.3, 4) OVER () AS c FROM gd_test.abig) s') j),
		  ARRAY[2, 20000], '20,000 rows: two workers launched, every row read');
SELECT is(gd_test.fast_diff('SELECT id, gpu_dbscan(q, 0.3, 4) OVER (ORDER BY id) AS c FROM gd_test.abig', 2),
		  NULL, 'a 2-D point among 20,000 3-D rows, two workers: the same error and row number');
SELECT is(gd_test.fast_diff('SELECT id, gpu_dbscan(q, 0.3, 4) OVER (ORDER BY id DESC) AS c FROM gd_test.abig', 2),
		  NULL, 'a NaN coordinate among 20,000 rows, ORDER BY id DESC, two workers: the same error and row number');
SELECT is(gd_test.fast_diff($$SELECT id, gpu_dbscan_sweep(q, 0.3, '{4}') OVER (PARTITION BY part ORDER BY id) AS c FROM gd_test.abig$$, 2),
		  NULL, 'bad rows in a partition of 20,000 rows, two workers: the same error and row number');
SELECT is(gd_test.fast_diff('SELECT id, gpu_dbscan(q, 0.3, 4) OVER (PARTITION BY part ORDER BY id) AS c FROM gd_test.abig WHERE part <> 0', 2),
		  NULL, 'the partitions without the bad rows: the same rows');
-- the workers alone read, slowly (a sleep in their quals), so that one may
-- read the 2-D point before any reads the first row
SET LOCAL parallel_leader_participation = off;
SELECT is(gd_test.fast_diff('SELECT id, gpu_dbscan(q, 0.3, 4) OVER () AS c FROM gd_test.abig WHERE CASE WHEN id % 200 = 1 THEN pg_sleep(0.0001) IS NOT NULL ELSE true END', 2),
		  NULL, 'workers alone, rows interleaved, OVER (): the same error and row number');
SELECT is(gd_test.fast_diff('SELECT id, gpu_dbscan_point_type(q, 0.3, 4) OVER (ORDER BY id) AS c FROM gd_test.abig WHERE CASE WHEN id % 200 = 1 THEN pg_sleep(0.0001) IS NOT NULL ELSE true END', 2),
		  NULL, 'workers alone, rows interleaved, ORDER BY id: the same error and row number');
RESET parallel_leader_participation;

-- 6. what the node does not serve plans as before (8 tests)
SELECT is(gd_test.fallback_diff('SELECT id, gpu_dbscan(ARRAY[p[1], p[2]], 0.5, 4) OVER (ORDER BY id) AS c FROM gd_test.a WHERE ds = 1 AND p IS NOT NULL'),
		  NULL, 'ARRAY[p[1], p[2]]: today''s path');
SELECT is(gd_test.fallback_diff($$SELECT id, gpu_dbscan_sweep(p || 0.0::float8, 0.3, '{6,3}') OVER (ORDER BY id) AS c FROM gd_test.a WHERE ds = 2 AND p IS NOT NULL$$),
		  NULL, 'a sweep of p || 0.0: today''s path');
SELECT is(gd_test.fallback_diff('SELECT id, gpu_dbscan_point_type(p[1:3], 0.8, 5) OVER (PARTITION BY part ORDER BY id) AS c FROM gd_test.a WHERE ds = 6'),
		  NULL, 'a point type of p[1:3]: today''s path');
SELECT gd_test.use_fast_path(true, 2);
SELECT is((SELECT array_agg(c ORDER BY id) FROM (SELECT id, gpu_dbscan(p || 0.0::float8, 0.3, 6) OVER (ORDER BY id) c FROM gd_test.a WHERE ds = 2 AND p IS NOT NULL) s),
		  (SELECT array_agg(c ORDER BY id) FROM (SELECT id, gpu_dbscan(p, 0.3, 6) OVER (ORDER BY id) c FROM gd_test.a WHERE ds = 2 AND p IS NOT NULL) s),
		  'p || 0.0 (today''s path) clusters as p (the fast path), NULL rows left out');
SELECT is(gd_test.fallback_diff($$SELECT id, gpu_dbscan(p, 0.5, 4) OVER w || '/' || gpu_dbscan(g, 0.5, 4) OVER w AS c FROM gd_test.a WHERE ds = 1 WINDOW w AS (ORDER BY id)$$),
		  NULL, 'a float8[] and a geometry gpu_dbscan in one window: today''s path');
SELECT is(gd_test.fallback_diff($$SELECT id, format('%s/%s', gpu_dbscan_point_type(g, 0.5, 4) OVER w, gpu_dbscan_sweep(p, 0.5, '{4,2}') OVER w) AS c FROM gd_test.a WHERE ds = 1 WINDOW w AS (PARTITION BY part ORDER BY id)$$),
		  NULL, 'a geometry point type beside a float8[] sweep: today''s path');
SELECT is(gd_test.fallback_diff($$SELECT id, format('%s/%s', gpu_dbscan(p, 0.3, 6) OVER w, row_number() OVER w) AS c FROM gd_test.a WHERE ds = 2 WINDOW w AS (ORDER BY id)$$),
		  NULL, 'another window function beside gpu_dbscan(float8[]): today''s path');
SELECT is(gd_test.fallback_diff($$SELECT id, gpu_dbscan_sweep(p, 0.3, ARRAY(SELECT generate_series(2, 4))) OVER (ORDER BY id) AS c FROM gd_test.a WHERE ds = 2$$),
		  NULL, 'a float8[] sweep''s values from a sub-query: today''s path');

-- 7. the partial path under an outer query, with and without the leader (5 tests)
SELECT is(gd_test.partial_diff('SELECT id, gpu_dbscan(p, 0.3, 4) OVER () AS c FROM gd_test.abig'),
		  NULL, 'the partial path, gpu_dbscan(float8[]) OVER (), NULL rows');
SELECT is(gd_test.partial_diff($$SELECT id, format('%s/%s', gpu_dbscan_sweep(p, 0.3, '{5,2}') OVER w, gpu_dbscan(p, 0.3, 4) OVER w) AS c
								  FROM gd_test.abig WINDOW w AS (PARTITION BY part ORDER BY id)$$, false),
		  NULL, 'the partial path without the leader, a sweep beside gpu_dbscan, partitions');
SELECT is(gd_test.partial_diff('SELECT id, gpu_dbscan_point_type(p, 0.3, 3) OVER (ORDER BY id DESC) AS c FROM gd_test.abig'),
		  NULL, 'the partial path, a point type, ORDER BY id DESC');
SELECT is(gd_test.partial_diff('SELECT id, gpu_dbscan(p, 0.5, 4) OVER (PARTITION BY ds ORDER BY id) AS c FROM gd_test.a', false),
		  NULL, 'the partial path without the leader, partitions of 2, 3, 5 and 8 coordinates');
SELECT is(gd_test.partial_diff('SELECT id, gpu_dbscan(q, 0.3, 4) OVER (ORDER BY id) AS c FROM gd_test.abig'),
		  NULL, 'the partial path, bad rows: the same error and row number');

-- 8. parameter errors (11 tests)
SELECT is(gd_test.fast_diff(format('SELECT id, %s OVER () AS c FROM gd_test.a WHERE ds = 3', f), 0),
		  NULL, format('%s: the same error', what))
FROM (VALUES ('gpu_dbscan(p, NULL, 3)', 'eps NULL'), ('gpu_dbscan(p, -1, 3)', 'a negative eps'),
			 ('gpu_dbscan(p, ''NaN'', 3)', 'eps NaN'), ('gpu_dbscan(p, 0.5, NULL)', 'minpoints NULL'),
			 ('gpu_dbscan(p, 0.5, -1)', 'minpoints -1'), ('gpu_dbscan_sweep(p, 0.5, ''{2,NULL}'')', 'a NULL in a sweep''s values'),
			 ('gpu_dbscan_sweep(p, 0.5, ''{}'')', 'a sweep''s empty values'), ('gpu_dbscan_sweep(p, 0.5, NULL::int[])', 'a sweep''s NULL values'),
			 ('gpu_dbscan_sweep(p, 0.5, ''{2,-1}'')', 'a negative sweep value'),
			 ('gpu_dbscan_point_type(p, -1, 2)', 'a point type''s negative eps')) v(f, what)
ORDER BY what;
SELECT is(gd_test.fast_diff($$SELECT id, gpu_dbscan_sweep(p, -1, NULL::int[]) OVER () AS c FROM gd_test.a WHERE ds = 3 AND id < 0$$, 0),
		  NULL, 'bad parameters over no rows: no error, no rows');

-- 10. the aggregates' fast path (GpuDbscanAgg): gpu_dbscan_agg and
-- gpu_dbscan_params over the float8[] column against the Agg, grouped or
-- not, groups of different counts, every row error at its row within its
-- group (32 tests)
SELECT is(gd_test.agg_fast_diff(format('SELECT ds, gpu_dbscan_agg(p, %s::float8, %s) AS a FROM gd_test.a WHERE ds = %s GROUP BY ds',
									   quote_literal(eps), minpoints, ds), w),
		  NULL, format('gpu_dbscan_agg, %s workers: set %s (%s coordinates), eps %s, minpoints %s', w, ds, dims, eps, minpoints))
FROM gd_test.a_cases, (VALUES (0), (2)) ws(w)
WHERE ds IN (1, 2, 3, 6)
ORDER BY w, ds;
SELECT is(gd_test.agg_fast_diff('SELECT ds, gpu_dbscan_agg(p, 0.5, 4) AS a FROM gd_test.a GROUP BY ds ORDER BY ds', 2),
		  NULL, 'GROUP BY ds: groups of 2, 3, 5 and 8 coordinates, two workers');
SELECT is(gd_test.agg_fast_diff('SELECT part, gpu_dbscan_agg(p, 0.5, 4 ORDER BY id DESC) AS a FROM gd_test.mixed GROUP BY part ORDER BY part', 2),
		  NULL, 'interleaved groups of 2, 5 and 8 coordinates and of NULL rows, ORDER BY inside');
SELECT is(gd_test.agg_fast_diff('SELECT gpu_dbscan_agg(p, 0.5, 4) AS a FROM gd_test.mixed', 2),
		  NULL, 'the same rows ungrouped: the same error and row number');
SELECT is(gd_test.agg_fast_diff($$SELECT ds, gpu_dbscan_params(p, '{0.3,1}', '{3,6}') AS a FROM gd_test.a GROUP BY ds ORDER BY ds$$, 2),
		  NULL, 'gpu_dbscan_params by set, two workers');
SELECT is(gd_test.agg_fast_diff($$SELECT part, gpu_dbscan_agg(p, 0.3, 4) AS a, gpu_dbscan_params(p, '{0.3}', '{4}') AS b FROM gd_test.abig GROUP BY part ORDER BY part$$, 2),
		  NULL, 'both aggregates over one read, 20,000 rows, two workers');
SELECT is(gd_test.agg_fast_diff(format('SELECT gpu_dbscan_agg(p, 0.3, 6) AS a FROM gd_test.abad WHERE id <= 2000 OR id = %s', bad), 2),
		  NULL, format('gpu_dbscan_agg, row error %s, two workers: the same error and row number', what))
FROM (SELECT id AS bad, what FROM gd_test.abad WHERE what IS NOT NULL) b
ORDER BY bad;
SELECT is(gd_test.agg_fast_diff('SELECT part, gpu_dbscan_agg(p, 0.3, 6) AS a FROM gd_test.abad GROUP BY part ORDER BY part', 2),
		  NULL, 'bad rows by group: the same error and row number');
SELECT is(gd_test.agg_fast_diff('SELECT part, gpu_dbscan_agg(p, 0.3, 6 ORDER BY id DESC) AS a FROM gd_test.abad GROUP BY part ORDER BY part', 0),
		  NULL, 'bad rows by group, ORDER BY inside: the same error and row number');
SELECT gd_test.use_fast_path(true, 2);
SELECT is(gd_test.error_of('SELECT gpu_dbscan_agg(q, 0.3, 4) FROM gd_test.abig'),
		  '2202E gpu_dbscan: a point has 2 coordinates, the first of its partition (row 1) 3: Row 15000 of the window partition.',
		  'gpu_dbscan_agg over 20,000 rows, a 2-D point: the error names its row');
SELECT is(gd_test.agg_fast_diff('SELECT part, gpu_dbscan_agg(q, 0.3, 4) AS a FROM gd_test.abig WHERE id <> 15000 GROUP BY part ORDER BY part', 2),
		  NULL, 'by group over 20,000 rows, a NaN coordinate: the same error and row number');
SELECT is(gd_test.agg_fast_diff($$SELECT gpu_dbscan_params(p, '{0.3,NULL}', '{4}') AS a FROM gd_test.abig$$, 2),
		  NULL, 'gpu_dbscan_params, a NULL eps: the same error');
-- the row checks run over every group in heap order before any final
-- function: group 2's first row (the heap's second) of 2 coordinates
-- makes its later rows of the read's 3 (the heap's first row's) errors,
-- which come before group 1's parameter error and before group 1's bad
-- row later in the heap
CREATE TABLE gd_test.agroups AS
SELECT i AS id, 1 + (i + 1) % 2 AS part,
	   CASE i WHEN 2 THEN '{1,2}' WHEN 79 THEN '{1,NaN,1}' ELSE ARRAY[i % 10, i / 10, 0.5]::float8[] END AS p
FROM generate_series(1, 100) i;
SELECT is(gd_test.agg_fast_diff('SELECT part, gpu_dbscan_agg(p, 1.5, -1) AS a FROM gd_test.agroups WHERE id < 79 GROUP BY part ORDER BY part', 2),
		  NULL, 'a later group''s count error before an earlier group''s parameter error');
SELECT is(gd_test.agg_fast_diff('SELECT part, gpu_dbscan_agg(p, 1.5, 3) AS a FROM gd_test.agroups GROUP BY part ORDER BY part', 0),
		  NULL, 'a later group''s count error before an earlier group''s bad row later in the heap');
SELECT is(gd_test.agg_fast_diff('SELECT part, gpu_dbscan_agg(p, 1.5, 3) AS a FROM gd_test.agroups WHERE id <> 2 GROUP BY part ORDER BY part', 2),
		  NULL, 'without it: the NaN row''s error');
SELECT is(gd_test.agg_fallback_diff('SELECT gpu_dbscan_agg(p, 0.5, 4) AS a, gpu_dbscan_agg(g, 0.5, 4) AS b FROM gd_test.a WHERE ds = 1'),
		  NULL, 'a float8[] and a geometry aggregate together: today''s path');
SELECT is(gd_test.agg_fallback_diff('SELECT gpu_dbscan_agg(p || 0.0::float8, 0.3, 6) AS a FROM gd_test.a WHERE ds = 2 AND p IS NOT NULL'),
		  NULL, 'gpu_dbscan_agg over an expression: today''s path');

-- 9. the planner support function loads the module for the float8[] forms (5 tests)
SELECT is((SELECT prosupport::regproc::text FROM pg_proc WHERE oid = f::regprocedure),
		  'gpu_dbscan_support', format('%s has the planner support function', f))
FROM (VALUES ('gpu_dbscan(float8[], float8, int)'), ('gpu_dbscan_sweep(float8[], float8, int[])'),
			 ('gpu_dbscan_point_type(float8[], float8, int)'),
			 ('gpu_dbscan_agg_transfn(internal, float8[], float8, int)'),
			 ('gpu_dbscan_params_transfn(internal, float8[], float8[], int[])')) v(f)
ORDER BY f;

SELECT * FROM finish();
ROLLBACK;
