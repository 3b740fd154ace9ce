-- 97_point_z_fast_path: gpu_dbscan_3d, gpu_dbscan_sweep_3d and
-- gpu_dbscan_point_type_3d(geometry, ...) OVER (...) over POINT Z rows,
-- planned as the custom scan GpuDbscanWindow (the fast path of
-- 91_fast_path, reading each point's Z too), give the window functions'
-- rows and errors:
--   seeded sets (uniform, blobs with noise, exact duplicates, a lattice at
--   exactly eps spacing, far from the origin), NULL and EMPTY rows,
--   partitions; each form ORDER BY id, id DESC or none, the leader alone
--   and two workers;
--   the three forms in one window, a geometry expression;
--   every row error (a point without Z, a non-point, a NaN or infinite Z, a
--   NaN X, another SRID) at its row, in a partition, and parameter errors
--   under the _3d names;
--   a 2D and a POINT Z function in one window plan as before;
--   the partial path under an outer query, with and without the leader;
--   gpu_dbscan_agg_3d and gpu_dbscan_params_3d through GpuDbscanAgg
--   against the Agg, grouped or not, with bad rows;
--   the planner support functions.
\ir lib/prelude.sql
\ir lib/fast_path.sql

SELECT plan(82);

SELECT setseed(0.97);
CREATE TABLE gd_test.z (ds int, id int, part int, geom geometry);
-- 1: uniform in 30 x 30 x 6; 2: 25 blobs (deviation 0.4) and a fifth
-- noise; 3: 40 sites, 60 exact copies each; 4: a lattice at spacing 1
-- (eps 1 falls on the distance), some sites left out; 5: uniform far from
-- the origin at a small scale (rounding).  NULL and EMPTY rows in each.
INSERT INTO gd_test.z
SELECT 1, i, i % 4, ST_MakePoint(random() * 30, random() * 30, random() * 6)
FROM generate_series(1, 6000) i;
INSERT INTO gd_test.z
SELECT 2, i, i % 3,
	   CASE WHEN i % 5 = 0 THEN ST_MakePoint(random() * 40, random() * 40, random() * 40)
			ELSE ST_MakePoint(c.cx + (random() - 0.5) * 0.8, c.cy + (random() - 0.5) * 0.8,
							  c.cz + (random() - 0.5) * 0.8) END
FROM generate_series(1, 6000) i,
	 LATERAL (SELECT (i * 7 % 25) * 1.6 AS cx, (i * 11 % 25) * 1.6 AS cy, (i * 13 % 25) * 1.6 AS cz) c;
INSERT INTO gd_test.z
SELECT 3, i, i % 2, ST_MakePoint((i % 40) * 0.7, (i % 40 / 8) * 0.9, (i % 40 % 3) * 0.5)
FROM generate_series(1, 2400) i;
INSERT INTO gd_test.z
SELECT 4, row_number() OVER (ORDER BY x, y, z)::int, (x + y) % 3, ST_MakePoint(x, y, z)
FROM generate_series(0, 14) x, generate_series(0, 14) y, generate_series(0, 9) z
WHERE (x * 7 + y * 3 + z) % 11 <> 0;
INSERT INTO gd_test.z
SELECT 5, i, i % 2, ST_MakePoint(1000.3 + random() * 0.05, -20.7 + random() * 0.05, 5000.1 + random() * 0.01)
FROM generate_series(1, 3000) i;
INSERT INTO gd_test.z
SELECT ds, 100000 + k, k % 2, CASE WHEN k % 2 = 0 THEN NULL ELSE 'POINT Z EMPTY'::geometry END
FROM generate_series(1, 5) ds, generate_series(1, 6) k;
ANALYZE gd_test.z;

-- Set ds's cases: eps and minpoints.
CREATE TABLE gd_test.z_cases (ds int, eps float8, minpoints int);
INSERT INTO gd_test.z_cases VALUES (1, 1, 5), (2, 0.3, 6), (3, 0.5, 3), (4, 1, 7), (5, 0.004, 4);

-- 1. every set and form, the leader alone and two workers (30 tests)
SELECT is(gd_test.fast_diff(gd_test.set_form_query('gd_test.z', 'geom', '_3d', f, ds, eps, minpoints, ds + w), w), NULL,
		  format('%s, %s workers: set %s, eps %s, minpoints %s', f, w, ds, eps, minpoints))
FROM gd_test.z_cases, (VALUES ('ids'), ('sweep'), ('point_type')) fs(f), (VALUES (0), (2)) ws(w)
ORDER BY f, w, ds;

-- the clusters are not trivial: set 2's blobs give several clusters and noise
SELECT cmp_ok((SELECT count(DISTINCT c) FROM (SELECT gpu_dbscan_3d(geom, 0.3, 6) OVER () c FROM gd_test.z WHERE ds = 2) s),
			  '>', 10::bigint, 'set 2: more than ten clusters');
SELECT ok((SELECT count(*) FILTER (WHERE c IS NULL) > 100 FROM (SELECT gpu_dbscan_3d(geom, 0.3, 6) OVER () c FROM gd_test.z WHERE ds = 2) s),
		  'set 2: noise rows');
-- Z counts: flattened, set 1's clusters are others
SELECT isnt((SELECT array_agg(c ORDER BY id) FROM (SELECT id, gpu_dbscan_3d(geom, 1, 5) OVER (ORDER BY id) c FROM gd_test.z WHERE ds = 1) s),
			(SELECT array_agg(c ORDER BY id) FROM (SELECT id, gpu_dbscan_3d(ST_Force3DZ(ST_Force2D(geom)), 1, 5) OVER (ORDER BY id) c FROM gd_test.z WHERE ds = 1) s),
			'set 1: Z changes the clusters (the fast path reads it)');

-- 2. the forms together, a geometry expression (5 tests)
SELECT is(gd_test.fast_diff($$SELECT id, format('%s/%s/%s', gpu_dbscan_3d(geom, 0.3, 6) OVER w, gpu_dbscan_sweep_3d(geom, 0.3, '{6,3}') OVER w,
												 gpu_dbscan_point_type_3d(geom, 0.3, 6) OVER w) AS c
								FROM gd_test.z WHERE ds = 2 WINDOW w AS (PARTITION BY part ORDER BY id)$$, 2),
		  NULL, 'the three forms in one window, partitions, two workers');
SELECT is(gd_test.fast_diff($$SELECT id, gpu_dbscan_3d(geom, 1, 5) OVER w::text || gpu_dbscan_3d(geom, 2, 9) OVER w::text AS c
								FROM gd_test.z WHERE ds = 1 WINDOW w AS (ORDER BY id DESC)$$, 0),
		  NULL, 'two gpu_dbscan_3d of other parameters');
SELECT is(gd_test.fast_diff($$SELECT id, gpu_dbscan_3d(ST_Translate(geom, 0.25, 0, 0.5), 1, 5) OVER (ORDER BY id) AS c FROM gd_test.z WHERE ds = 1$$, 2),
		  NULL, 'a geometry expression, two workers');
SELECT is(gd_test.fast_diff($$SELECT id, gpu_dbscan_3d(geom, 1, 0) OVER (ORDER BY id) AS c FROM gd_test.z WHERE ds = 4$$, 0),
		  NULL, 'minpoints 0');
SELECT is(gd_test.fast_diff($$SELECT id, gpu_dbscan_sweep_3d(geom, 1, '{7,7,2}') OVER (ORDER BY id) AS c FROM gd_test.z WHERE ds = 4 AND id % 5 <> 0$$, 2),
		  NULL, 'a sweep with repeated values, a WHERE clause');

-- 3. row errors: the same error at the same row (11 tests)
CREATE TABLE gd_test.zbad AS
SELECT id, part, geom FROM gd_test.z WHERE ds = 1 AND id <= 3000;
INSERT INTO gd_test.zbad VALUES
	(3001, 0, 'POINT(1 2)'), (3002, 1, 'LINESTRING Z (0 0 0, 1 1 1)'),
	(3003, 2, ST_MakePoint(1, 2, 'NaN')), (3004, 3, ST_MakePoint(1, 2, 'Infinity')),
	(3005, 0, ST_MakePoint('NaN', 2, 3)), (3006, 1, ST_SetSRID(ST_MakePoint(1, 2, 3), 4326)),
	(3007, 2, 'POINT M (1 2 3)'), (3008, 3, 'MULTIPOINT Z ((1 2 3))');
SELECT is(gd_test.fast_diff(format('SELECT id, gpu_dbscan_3d(geom, 1, 5) OVER (ORDER BY id) AS c FROM gd_test.zbad WHERE id <= 3000 OR id = %s', bad), 2),
		  NULL, format('row error %s: the same error and row number', what))
FROM (VALUES (3001, 'a point without Z'), (3002, 'a line'), (3003, 'a NaN Z'), (3004, 'an infinite Z'),
			 (3005, 'a NaN X'), (3006, 'another SRID'), (3007, 'POINT M'), (3008, 'a multipoint')) b(bad, what)
ORDER BY bad;
SELECT is(gd_test.fast_diff($$SELECT id, gpu_dbscan_sweep_3d(geom, 1, '{5,3}') OVER (PARTITION BY part ORDER BY id DESC) AS c FROM gd_test.zbad$$, 2),
		  NULL, 'the first bad row of each partition, a sweep: the same error and row number');
SELECT is(gd_test.fast_diff($$SELECT id, gpu_dbscan_point_type_3d(geom, 1, 5) OVER (ORDER BY id DESC) AS c FROM gd_test.zbad$$, 0),
		  NULL, 'the last bad row first, a point type: the same error and row number');
SELECT is(gd_test.fast_diff($$SELECT id, gpu_dbscan_3d(geom, 1, 5) OVER (PARTITION BY part ORDER BY id) AS c FROM gd_test.zbad WHERE id <= 3000$$, 2),
		  NULL, 'the next query after the errors: the same rows');

-- 4. parameter errors under the _3d names (4 tests)
SELECT is(gd_test.fast_diff($$SELECT id, gpu_dbscan_3d(geom, 'NaN', 5) OVER () AS c FROM gd_test.z WHERE ds = 3$$, 0),
		  NULL, 'gpu_dbscan_3d, eps NaN: the same error');
SELECT is(gd_test.fast_diff($$SELECT id, gpu_dbscan_sweep_3d(geom, 1, '{2,NULL}') OVER () AS c FROM gd_test.z WHERE ds = 3$$, 0),
		  NULL, 'gpu_dbscan_sweep_3d, a NULL value: the same error');
SELECT is(gd_test.fast_diff($$SELECT id, gpu_dbscan_point_type_3d(geom, -1, 2) OVER () AS c FROM gd_test.z WHERE ds = 3$$, 0),
		  NULL, 'gpu_dbscan_point_type_3d, a negative eps: the same error');
SELECT matches(gd_test.error_of($$SELECT max(c[1]) FROM (SELECT gpu_dbscan_sweep_3d(geom, 1, '{}') OVER () c FROM gd_test.z WHERE ds = 3) s$$),
			   'gpu_dbscan_sweep_3d', 'the sweep''s error names gpu_dbscan_sweep_3d');

-- 5. what the node does not serve plans as before (3 tests)
SELECT is(gd_test.fallback_diff($$SELECT id, gpu_dbscan_3d(geom, 1, 5) OVER w || '/' || gpu_dbscan(geom, 1, 5) OVER w AS c FROM gd_test.z WHERE ds = 1 WINDOW w AS (ORDER BY id)$$),
		  NULL, 'a 2D and a POINT Z function in one window: today''s path');
SELECT is(gd_test.fallback_diff($$SELECT id, gpu_dbscan_sweep_3d(geom, 1, ARRAY(SELECT generate_series(2, 4))) OVER (ORDER BY id) AS c FROM gd_test.z WHERE ds = 1$$),
		  NULL, 'a POINT Z sweep''s values from a sub-query: today''s path');
SELECT is(gd_test.fallback_diff($$SELECT id, format('%s/%s', gpu_dbscan_3d(geom, 1, 5) OVER w, row_number() OVER w) AS c FROM gd_test.z WHERE ds = 1 WINDOW w AS (ORDER BY id)$$),
		  NULL, 'another window function beside gpu_dbscan_3d: today''s path');

-- 6. the partial path under an outer query, with and without the leader (4 tests)
CREATE TABLE gd_test.zbig AS
SELECT i AS id, i % 4 AS part,
	   CASE WHEN i % 5000 = 0 THEN NULL
			ELSE ST_MakePoint((i::bigint * 7919) % 1000 / 10.0, (i::bigint * 104729) % 1009 / 10.0, (i % 7) * 0.2) END AS geom
FROM generate_series(1, 80000) i;
SELECT is(gd_test.partial_diff($$SELECT id, gpu_dbscan_3d(geom, 0.3, 3) OVER () AS c FROM gd_test.zbig$$),
		  NULL, 'the partial path, gpu_dbscan_3d OVER (), NULL rows');
SELECT is(gd_test.partial_diff($$SELECT id, format('%s/%s', gpu_dbscan_sweep_3d(geom, 0.3, '{5,2}') OVER w, gpu_dbscan_3d(geom, 0.3, 4) OVER w) AS c
								  FROM gd_test.zbig WINDOW w AS (PARTITION BY part ORDER BY id)$$, false),
		  NULL, 'the partial path without the leader, a sweep beside gpu_dbscan_3d, partitions');
SELECT is(gd_test.partial_diff($$SELECT id, gpu_dbscan_point_type_3d(geom, 0.3, 3) OVER (ORDER BY id DESC) AS c FROM gd_test.zbig$$),
		  NULL, 'the partial path, a point type, ORDER BY id DESC');
SELECT is(gd_test.partial_diff($$SELECT id, gpu_dbscan_3d(geom, 1, 3) OVER (ORDER BY id) AS c FROM gd_test.zbad$$),
		  NULL, 'the partial path, bad rows: the same error and row number');

-- 7. the aggregates' fast path (GpuDbscanAgg): gpu_dbscan_agg_3d and
-- gpu_dbscan_params_3d, grouped or not, the leader alone and two workers
-- (10 + 7 tests)
SELECT is(gd_test.agg_fast_diff(format('SELECT ds, gpu_dbscan_agg_3d(geom, %s::float8, %s) AS a FROM gd_test.z WHERE ds = %s GROUP BY ds',
									   quote_literal(eps), minpoints, ds), w),
		  NULL, format('gpu_dbscan_agg_3d, %s workers: set %s, eps %s, minpoints %s', w, ds, eps, minpoints))
FROM gd_test.z_cases, (VALUES (0), (2)) ws(w)
ORDER BY w, ds;
SELECT is(gd_test.agg_fast_diff('SELECT part, gpu_dbscan_agg_3d(geom, 0.3, 6 ORDER BY id DESC) AS a FROM gd_test.z WHERE ds = 2 GROUP BY part ORDER BY part', 2),
		  NULL, 'gpu_dbscan_agg_3d by group, ORDER BY inside, two workers');
SELECT is(gd_test.agg_fast_diff($$SELECT ds, gpu_dbscan_params_3d(geom, '{0.3,1}', '{3,6}') AS a FROM gd_test.z GROUP BY ds ORDER BY ds$$, 2),
		  NULL, 'gpu_dbscan_params_3d by set, two workers');
SELECT is(gd_test.agg_fast_diff('SELECT gpu_dbscan_agg_3d(geom, 1, 5) AS a, gpu_dbscan_params_3d(geom, ''{1}'', ''{5}'') AS p FROM gd_test.zbad WHERE id <= 3000', 0),
		  NULL, 'both _3d aggregates over one read');
SELECT is(gd_test.agg_fast_diff('SELECT part, gpu_dbscan_agg_3d(geom, 1, 5) AS a FROM gd_test.zbad GROUP BY part ORDER BY part', 2),
		  NULL, 'bad rows by group: the same error and row number');
SELECT is(gd_test.agg_fast_diff('SELECT gpu_dbscan_params_3d(geom, ''{1}'', ''{5}'') AS a FROM gd_test.zbad WHERE id <= 3000 OR id = 3003', 0),
		  NULL, 'gpu_dbscan_params_3d, a NaN Z: the same error and row number');
SELECT is(gd_test.agg_fast_diff('SELECT gpu_dbscan_agg_3d(geom, ''NaN'', 5 ORDER BY id) AS a FROM gd_test.z WHERE ds = 3', 0),
		  NULL, 'gpu_dbscan_agg_3d, eps NaN: the same error');
SELECT is(gd_test.agg_fallback_diff('SELECT gpu_dbscan_agg_3d(geom, 1, 5) AS a, gpu_dbscan_agg(geom, 1, 5) AS b FROM gd_test.z WHERE ds = 1'),
		  NULL, 'a 2D and a POINT Z aggregate together: today''s path');

-- 8. the planner support functions (5 tests)
SELECT is((SELECT prosupport::regproc::text FROM pg_proc WHERE oid = f::regprocedure),
		  'gpu_dbscan_support', format('%s has the planner support function', f))
FROM (VALUES ('gpu_dbscan_3d(geometry, float8, int)'), ('gpu_dbscan_sweep_3d(geometry, float8, int[])'),
			 ('gpu_dbscan_point_type_3d(geometry, float8, int)'),
			 ('gpu_dbscan_agg_3d_transfn(internal, geometry, float8, int)'),
			 ('gpu_dbscan_params_3d_transfn(internal, geometry, float8[], int[])')) v(f)
ORDER BY f;

SELECT * FROM finish();
ROLLBACK;
