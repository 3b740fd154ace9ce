-- 99_geography_fast_path: gpu_dbscan, gpu_dbscan_sweep and
-- gpu_dbscan_point_type(geography, ...) OVER (...), planned as the custom
-- scan GpuDbscanWindow (the fast path of 91_fast_path, reading each point's
-- longitude and latitude), and gpu_dbscan_agg and gpu_dbscan_params over a
-- geography column, planned as GpuDbscanAgg, give the window functions'
-- and the Agg's rows and errors:
--   seeded sets (uniform, blobs over the globe with noise, exact copies,
--   points along the equator at exactly eps, across the antimeridian and
--   near a pole, SRID 4269), NULL and EMPTY rows in each, partitions; each
--   form ORDER BY id, id DESC or none, the leader alone and two workers;
--   the three forms in one window, minpoints 0, a geometry column cast to
--   geography (an expression);
--   every row error (a line, a polygon, a multipoint, another SRID, a NaN
--   longitude or latitude) at its row, in a partition, with two workers;
--   20,000 rows read by two workers, with bad rows among them;
--   parameter errors; what plans as before; the partial path;
--   the aggregates by group, with every row error at its row in its group;
--   the planner support functions.
\ir lib/prelude.sql
\ir lib/fast_path.sql

SELECT plan(133);

SELECT setseed(0.99);
CREATE TABLE gd_test.gg (ds int, id int, part int, g geography, geom geometry);
-- 1: uniform in a degree square at (10, 50); 2: 25 blobs (about 6 km
-- wide) over the globe, from the antimeridian to 89 degrees north, and a
-- fifth noise; 3: 40 sites 80 m apart, 60 exact copies each, and 30 lone
-- points; 4: points along the equator 0.01 degrees apart, eps their
-- distance by PostGIS (pairs at exactly eps), some left out; 5: a cluster
-- across the antimeridian, one around the north pole, 60 points over the
-- globe; 6: set 1 in SRID 4269; 7: in SRID 4024 (a sphere 107 m larger
-- than 4326's), points along the equator 0.01 and 0.005 degrees apart, eps
-- just below the first distance (on 4326's sphere it would be above).  Six
-- NULL and two EMPTY rows in each.
-- geom holds each point as geometry (SRID 4326).
INSERT INTO gd_test.gg
SELECT 1, i, i % 4, ST_SetSRID(ST_MakePoint(x, y), 4326)::geography, ST_SetSRID(ST_MakePoint(x, y), 4326)
FROM (SELECT i, 10 + random() AS x, 50 + random() AS y FROM generate_series(1, 5000) i) s;
INSERT INTO gd_test.gg
SELECT 2, i, i % 3, ST_SetSRID(ST_MakePoint(x, y), 4326)::geography, ST_SetSRID(ST_MakePoint(x, y), 4326)
FROM (SELECT i,
			 CASE WHEN i % 5 = 0 THEN -180 + random() * 360
				  ELSE (ARRAY[-179.98, 179.98, 0, 45, -120, 10, 150, -60, 90, 30])[1 + i % 10]
					   + (i % 25 / 10) * 0.5 + (random() - 0.5) * 0.08 END AS x,
			 CASE WHEN i % 5 = 0 THEN -80 + random() * 160
				  ELSE (ARRAY[0, 30, 60, 89, -45])[1 + i % 25 / 5] + (random() - 0.5) * 0.05 END AS y
	  FROM generate_series(1, 5000) i) s;
INSERT INTO gd_test.gg
SELECT 3, i, i % 2, ST_SetSRID(ST_MakePoint(x, y), 4326)::geography, ST_SetSRID(ST_MakePoint(x, y), 4326)
FROM (SELECT i, 2 + (i % 40 % 8) * 0.001, 48 + (i % 40 / 8) * 0.00072 FROM generate_series(1, 2400) i) s(i, x, y);
INSERT INTO gd_test.gg
SELECT 3, 2400 + i, i % 2, ST_SetSRID(ST_MakePoint(x, y), 4326)::geography, ST_SetSRID(ST_MakePoint(x, y), 4326)
FROM (SELECT i, 3 + i * 0.01, 48.5 FROM generate_series(1, 30) i) s(i, x, y);
INSERT INTO gd_test.gg
SELECT 4, k, k % 3, ST_SetSRID(ST_MakePoint(k * 0.01, 0), 4326)::geography, ST_SetSRID(ST_MakePoint(k * 0.01, 0), 4326)
FROM generate_series(1, 3000) k
WHERE k % 11 <> 0 AND k % 17 <> 0;
INSERT INTO gd_test.gg
SELECT 5, i, i % 2, ST_SetSRID(ST_MakePoint(x, y), 4326)::geography, ST_SetSRID(ST_MakePoint(x, y), 4326)
FROM (SELECT i,
			 CASE WHEN i % 2 = 0 THEN 180 - random() * 0.1 ELSE -180 + random() * 0.1 END AS x,
			 -10 + random() * 0.1 AS y
	  FROM generate_series(1, 1000) i
	  UNION ALL
	  SELECT 1000 + i, random() * 360 - 180, 89.97 + random() * 0.03
	  FROM generate_series(1, 1000) i
	  UNION ALL
	  SELECT 2000 + i, random() * 360 - 180, random() * 170 - 85
	  FROM generate_series(1, 60) i) s;
INSERT INTO gd_test.gg
SELECT 6, id, part, ST_SetSRID(geom, 4269)::geography, geom FROM gd_test.gg WHERE ds = 1;
INSERT INTO gd_test.gg
SELECT 7, k, k / 100 % 2, ST_SetSRID(ST_MakePoint(x, 0), 4024)::geography, ST_SetSRID(ST_MakePoint(x, 0), 4326)
FROM (SELECT k, k * 0.01 FROM generate_series(1, 1000) k WHERE k % 11 <> 0
	  UNION ALL
	  SELECT 1000 + k, 20 + k * 0.005 FROM generate_series(1, 1000) k WHERE k % 13 <> 0) s(k, x);
INSERT INTO gd_test.gg
SELECT ds, 100000 + k, k % 2,
	   CASE WHEN k <= 6 THEN NULL WHEN k = 7 THEN 'POINT EMPTY'::geography ELSE 'GEOMETRYCOLLECTION EMPTY'::geography END,
	   NULL
FROM generate_series(1, 7) ds, generate_series(1, 8) k;
UPDATE gd_test.gg SET g = ST_SetSRID(g::geometry, CASE ds WHEN 6 THEN 4269 ELSE 4024 END)::geography
WHERE ds IN (6, 7) AND id > 100000 AND g IS NOT NULL;
ANALYZE gd_test.gg;

-- Set ds's case: eps (metres) and minpoints.
CREATE TABLE gd_test.gg_cases (ds int, eps float8, minpoints int);
INSERT INTO gd_test.gg_cases VALUES (1, 1500, 5), (2, 3000, 6), (3, 50, 3),
	(4, (SELECT ST_Distance('POINT(0.01 0)'::geography, 'POINT(0.02 0)'::geography, false)), 3),
	(5, 2000, 5), (6, 1500, 5),
	(7, (SELECT ST_Distance('SRID=4024;POINT(0.01 0)'::geography, 'SRID=4024;POINT(0.02 0)'::geography, false)) * (1 - 5e-6), 2);

SELECT gd_test.use_fast_path(true, 0);

-- the sets are what they say: clusters and noise in each (1 test)
SELECT is((SELECT array_agg(ds ORDER BY ds)
		   FROM (SELECT ds FROM gd_test.gg_cases k,
							LATERAL (SELECT gpu_dbscan(g, k.eps, k.minpoints) OVER () c FROM gd_test.gg WHERE gg.ds = k.ds) s
				 GROUP BY ds HAVING count(DISTINCT c) > 1 AND count(*) FILTER (WHERE c IS NULL) > 8) t),
		  ARRAY[1, 2, 3, 4, 5, 6, 7], 'every set: several clusters and noise');

-- 1. every set and form, the leader alone and two workers (42 tests)
SELECT is(gd_test.fast_diff(gd_test.set_form_query('gd_test.gg', 'g', '', f, ds, eps, minpoints, ds + w), w), NULL,
		  format('%s, %s workers: set %s, eps %s, minpoints %s', f, w, ds, round(eps::numeric, 3), minpoints))
FROM gd_test.gg_cases, (VALUES ('ids'), ('sweep'), ('point_type')) fs(f), (VALUES (0), (2)) ws(w)
ORDER BY f, w, ds;

-- 2. the forms together, minpoints 0, a cast of a geometry column (6 tests)
SELECT is(gd_test.fast_diff($$SELECT id, format('%s/%s/%s', gpu_dbscan(g, 3000, 6) OVER w, gpu_dbscan_sweep(g, 3000, '{6,2}') OVER w,
												 gpu_dbscan_point_type(g, 3000, 6) OVER w) AS c
								FROM gd_test.gg WHERE ds = 2 WINDOW w AS (PARTITION BY part ORDER BY id)$$, 2),
		  NULL, 'the three forms in one window, partitions, two workers');
SELECT is(gd_test.fast_diff($$SELECT id, gpu_dbscan(g, 800, 6) OVER w::text || '/' || gpu_dbscan(g, 2000, 9) OVER w::text AS c
								FROM gd_test.gg WHERE ds = 1 WINDOW w AS (ORDER BY id DESC)$$, 0),
		  NULL, 'two gpu_dbscan of other parameters');
SELECT is(gd_test.fast_diff($$SELECT id, gpu_dbscan(g, 1000, 0) OVER (ORDER BY id) AS c FROM gd_test.gg WHERE ds = 5$$, 2),
		  NULL, 'minpoints 0');
SELECT is(gd_test.fast_diff($$SELECT id, gpu_dbscan(geom::geography, 1500, 5) OVER (ORDER BY id) AS c FROM gd_test.gg WHERE ds = 1$$, 2),
		  NULL, 'geom::geography, two workers');
SELECT is(gd_test.fast_diff($$SELECT id, gpu_dbscan_sweep(geom::geography, 3000, '{9,6,2}') OVER (PARTITION BY part ORDER BY id) AS c FROM gd_test.gg WHERE ds = 2$$, 0),
		  NULL, 'a sweep of geom::geography, partitions');
SELECT is(gd_test.fast_diff('SELECT id, gpu_dbscan(g, 1500, 5) OVER (PARTITION BY ds ORDER BY id) AS c FROM gd_test.gg WHERE ds IN (1, 6)', 2),
		  NULL, 'set 1 in SRIDs 4326 and 4269 as two partitions');

-- 3. every set a partition (4 tests)
SELECT is(gd_test.fast_diff('SELECT id, gpu_dbscan(g, 2000, 4) OVER (PARTITION BY ds ORDER BY id) AS c FROM gd_test.gg WHERE ds NOT IN (6, 7)', 2),
		  NULL, 'every set of SRID 4326 a partition, two workers');
SELECT is(gd_test.fast_diff($$SELECT id, gpu_dbscan_sweep(g, 2000, '{4,2}') OVER (PARTITION BY ds ORDER BY id DESC) AS c FROM gd_test.gg$$, 0),
		  NULL, 'every set a partition, a sweep, ORDER BY id DESC');
SELECT is(gd_test.fast_diff('SELECT id, gpu_dbscan_point_type(g, 2000, 4) OVER (PARTITION BY ds, part ORDER BY id) AS c FROM gd_test.gg', 2),
		  NULL, 'every set and part a partition, a point type, two workers');
SELECT is(gd_test.fast_diff('SELECT id, gpu_dbscan(g, 2000, 4) OVER () AS c FROM gd_test.gg', 2),
		  NULL, 'every set in one partition: the same SRID error');

-- 4. row errors: the same error at the same row (24 tests)
-- (what: the bad rows' faults, NULL for the good ones)
CREATE TABLE gd_test.gbad AS
SELECT id, part, g, NULL::text AS what FROM gd_test.gg WHERE ds = 1 AND id <= 2000;
INSERT INTO gd_test.gbad VALUES
	(3001, 2, 'LINESTRING(10 50, 10.1 50.1)', 'a line'),
	(3002, 0, 'POLYGON((10 50, 10.1 50, 10.1 50.1, 10 50))', 'a polygon'),
	(3003, 1, 'MULTIPOINT((10 50), (10.1 50))', 'a multipoint'),
	(3004, 2, 'SRID=4269;POINT(10.5 50.5)', 'another SRID'),
	(3005, 0, ST_SetSRID(ST_MakePoint('NaN', 50), 4326)::geography, 'a NaN longitude'),
	(3006, 1, ST_SetSRID(ST_MakePoint(10, 'NaN'), 4326)::geography, 'a NaN latitude');
SELECT is(gd_test.fast_diff(format('SELECT id, gpu_dbscan(g, 1500, 5) OVER (ORDER BY id) AS c FROM gd_test.gbad WHERE id <= 2000 OR id = %s', bad), 2),
		  NULL, format('row error %s, ORDER BY id, two workers: the same error and row number', what))
FROM (SELECT id AS bad, what FROM gd_test.gbad WHERE what IS NOT NULL) b
ORDER BY bad;
SELECT is(gd_test.fast_diff(format('SELECT id, gpu_dbscan_point_type(g, 1500, 5) OVER () AS c FROM gd_test.gbad WHERE id <= 2000 OR id = %s', bad), 0),
		  NULL, format('row error %s, OVER (), a point type: the same error and row number', what))
FROM (SELECT id AS bad, what FROM gd_test.gbad WHERE what IS NOT NULL) b
ORDER BY bad;
SELECT is(gd_test.fast_diff(format($$SELECT id, gpu_dbscan_sweep(g, 1500, '{5,3}') OVER (ORDER BY id DESC) AS c FROM gd_test.gbad WHERE id <= 2000 OR id = %s$$, bad), 2),
		  NULL, format('row error %s, a sweep, ORDER BY id DESC: the same error and row number', what))
FROM (SELECT id AS bad, what FROM gd_test.gbad WHERE what IS NOT NULL) b
ORDER BY bad;
SELECT gd_test.use_fast_path(true, 2);
SELECT is(gd_test.error_of('SELECT max(c) FROM (SELECT gpu_dbscan(g, 1500, 5) OVER (ORDER BY id) AS c FROM gd_test.gbad WHERE id <= 2000 OR id = 3001) s'),
		  '0A000 gpu_dbscan: only geography points can be clustered: Row 2001 of the window partition.',
		  'a line: the error names its row');
SELECT is(gd_test.error_of('SELECT max(c) FROM (SELECT gpu_dbscan(g, 1500, 5) OVER (ORDER BY id DESC) AS c FROM gd_test.gbad WHERE id <= 2000 OR id = 3004) s'),
		  '22023 gpu_dbscan: geometries of one partition have different SRIDs: Row 1 has SRID 4269, row 2 has SRID 4326.',
		  'another SRID first: the error names both rows');
SELECT is(gd_test.fast_diff($$SELECT id, gpu_dbscan_sweep(g, 1500, '{5,3}') OVER (PARTITION BY part ORDER BY id DESC) AS c FROM gd_test.gbad$$, 2),
		  NULL, 'the first bad row of the first partition, a sweep: the same error and row number');
SELECT is(gd_test.fast_diff('SELECT id, gpu_dbscan(g, 1500, 5) OVER (PARTITION BY part ORDER BY id) AS c FROM gd_test.gbad WHERE id NOT IN (3002, 3005)', 0),
		  NULL, 'bad rows in partitions, ORDER BY id: the same error and row number');
SELECT is(gd_test.fast_diff('SELECT id, gpu_dbscan_point_type(g, 1500, 5) OVER (ORDER BY id DESC) AS c FROM gd_test.gbad', 0),
		  NULL, 'the last bad row first, a point type: the same error and row number');
SELECT is(gd_test.fast_diff('SELECT id, gpu_dbscan(g, 1500, 5) OVER (PARTITION BY part ORDER BY id) AS c FROM gd_test.gbad WHERE id <= 2000', 2),
		  NULL, 'the next query after the errors: the same rows');

-- 5. 20,000 rows read by two workers; q as g with a line (row 15000) and a
-- NaN latitude (row 17000) (9 tests)
CREATE TABLE gd_test.gbig AS
SELECT i AS id, i % 4 AS part, g,
	   CASE i WHEN 15000 THEN 'LINESTRING(1 1, 2 2)'::geography
			  WHEN 17000 THEN ST_SetSRID(ST_MakePoint(1, 'NaN'), 4326)::geography ELSE g END AS q
FROM (SELECT i, CASE WHEN i % 5000 = 0 THEN NULL
					 ELSE ST_SetSRID(ST_MakePoint((i::bigint * 7919) % 300 / 100.0, (i::bigint * 104729) % 307 / 100.0), 4326)::geography END AS g
	  FROM generate_series(1, 20000) i) s;
ANALYZE gd_test.gbig;
SELECT is(gd_test.fast_diff('SELECT id, gpu_dbscan(g, 2500, 4) OVER () AS c FROM gd_test.gbig', 2),
		  NULL, '20,000 rows, OVER (), two workers');
SELECT is(gd_test.fast_diff($$SELECT id, gpu_dbscan_sweep(g, 2500, '{6,4,2}') OVER (PARTITION BY part ORDER BY id) AS c FROM gd_test.gbig$$, 2),
		  NULL, '20,000 rows, a sweep, partitions, two workers');
SELECT is(gd_test.fast_diff('SELECT id, gpu_dbscan_point_type(g, 2500, 4) OVER (ORDER BY id DESC) AS c FROM gd_test.gbig', 2),
		  NULL, '20,000 rows, a point type, ORDER BY id DESC, two workers');
SELECT gd_test.use_fast_path(true, 2);
SELECT is((SELECT ARRAY[jsonb_path_query_first(j, 'lax $.**."Workers Launched"')::int, jsonb_path_query_first(j, 'lax $.**."Rows Read"')::int]
		   FROM gd_test.explain_json('SELECT max(c) FROM (SELECT gpu_dbscan(g, 2500, 4) OVER () AS c FROM gd_test.gbig) s') j),
		  ARRAY[2, 20000], '20,000 rows: two workers launched, every row read');
SELECT is(gd_test.fast_diff('SELECT id, gpu_dbscan(q, 2500, 4) OVER (ORDER BY id) AS c FROM gd_test.gbig', 2),
		  NULL, 'a line among 20,000 rows, two workers: the same error and row number');
SELECT is(gd_test.fast_diff('SELECT id, gpu_dbscan(q, 2500, 4) OVER (ORDER BY id DESC) AS c FROM gd_test.gbig', 2),
		  NULL, 'a NaN latitude among 20,000 rows, ORDER BY id DESC, two workers: the same error and row number');
SELECT is(gd_test.fast_diff('SELECT id, gpu_dbscan(q, 2500, 4) OVER (PARTITION BY part ORDER BY id) AS c FROM gd_test.gbig WHERE part <> 0', 2),
		  NULL, 'the partitions without the bad rows: the same rows');
-- the workers alone read, slowly (a sleep in their quals), so that one may
-- read a bad row before any reads the first row
SET LOCAL parallel_leader_participation = off;
SELECT is(gd_test.fast_diff('SELECT id, gpu_dbscan(q, 2500, 4) OVER () AS c FROM gd_test.gbig WHERE CASE WHEN id % 200 = 1 THEN pg_sleep(0.0001) IS NOT NULL ELSE true END', 2),
		  NULL, 'workers alone, rows interleaved, OVER (): the same error and row number');
SELECT is(gd_test.fast_diff('SELECT id, gpu_dbscan_point_type(q, 2500, 4) OVER (ORDER BY id) AS c FROM gd_test.gbig WHERE CASE WHEN id % 200 = 1 THEN pg_sleep(0.0001) IS NOT NULL ELSE true END', 2),
		  NULL, 'workers alone, rows interleaved, ORDER BY id: the same error and row number');
RESET parallel_leader_participation;

-- 6. what the node does not serve plans as before (4 tests)
SELECT is(gd_test.fallback_diff($$SELECT id, gpu_dbscan(g, 1500, 5) OVER w || '/' || gpu_dbscan(geom, 0.01, 5) OVER w AS c FROM gd_test.gg WHERE ds = 1 WINDOW w AS (ORDER BY id)$$),
		  NULL, 'a geography and a geometry gpu_dbscan in one window: today''s path');
SELECT is(gd_test.fallback_diff($$SELECT id, format('%s/%s', gpu_dbscan(g, 1500, 5) OVER w, row_number() OVER w) AS c FROM gd_test.gg WHERE ds = 1 WINDOW w AS (ORDER BY id)$$),
		  NULL, 'another window function beside gpu_dbscan(geography): today''s path');
SELECT is(gd_test.fallback_diff($$SELECT id, gpu_dbscan_sweep(g, 1500, ARRAY(SELECT generate_series(2, 4))) OVER (ORDER BY id) AS c FROM gd_test.gg WHERE ds = 1$$),
		  NULL, 'a geography sweep''s values from a sub-query: today''s path');
SELECT is(gd_test.fallback_diff($$SELECT id, gpu_dbscan(g, 1500, 5) OVER (ORDER BY id % 100, id) AS c FROM gd_test.gg WHERE ds = 1$$),
		  NULL, 'ORDER BY an expression: today''s path');

-- 7. the partial path under an outer query, with and without the leader (3 tests)
SELECT is(gd_test.partial_diff('SELECT id, gpu_dbscan(g, 2500, 4) OVER () AS c FROM gd_test.gbig'),
		  NULL, 'the partial path, gpu_dbscan(geography) OVER (), NULL rows');
SELECT is(gd_test.partial_diff($$SELECT id, format('%s/%s', gpu_dbscan_sweep(g, 2500, '{5,2}') OVER w, gpu_dbscan_point_type(g, 2500, 4) OVER w) AS c
								  FROM gd_test.gbig WINDOW w AS (PARTITION BY part ORDER BY id)$$, false),
		  NULL, 'the partial path without the leader, a sweep beside a point type, partitions');
SELECT is(gd_test.partial_diff('SELECT id, gpu_dbscan(q, 2500, 4) OVER (ORDER BY id) AS c FROM gd_test.gbig'),
		  NULL, 'the partial path, bad rows: the same error and row number');

-- 8. parameter errors (7 tests)
SELECT is(gd_test.fast_diff(format('SELECT id, %s OVER () AS c FROM gd_test.gg WHERE ds = 3', f), 0),
		  NULL, format('%s: the same error', what))
FROM (VALUES ('gpu_dbscan(g, NULL, 3)', 'eps NULL'), ('gpu_dbscan(g, -1, 3)', 'a negative eps'),
			 ('gpu_dbscan(g, ''NaN'', 3)', 'eps NaN'), ('gpu_dbscan(g, 50, -1)', 'minpoints -1'),
			 ('gpu_dbscan_sweep(g, 50, ''{2,NULL}'')', 'a NULL in a sweep''s values'),
			 ('gpu_dbscan_point_type(g, ''Infinity'', 2)', 'a point type''s infinite eps')) v(f, what)
ORDER BY what;
SELECT is(gd_test.fast_diff($$SELECT id, gpu_dbscan_sweep(g, -1, NULL::int[]) OVER () AS c FROM gd_test.gg WHERE ds = 3 AND id < 0$$, 0),
		  NULL, 'bad parameters over no rows: no error, no rows');

-- 9. the aggregates' fast path (GpuDbscanAgg) against the Agg: by set and
-- group, ORDER BY inside, every row error at its row in its group (28 tests)
SELECT is(gd_test.agg_fast_diff(format('SELECT ds, gpu_dbscan_agg(g, %s::float8, %s) AS a FROM gd_test.gg WHERE ds = %s GROUP BY ds',
									   quote_literal(eps), minpoints, ds), w),
		  NULL, format('gpu_dbscan_agg, %s workers: set %s, eps %s, minpoints %s', w, ds, round(eps::numeric, 3), minpoints))
FROM gd_test.gg_cases, (VALUES (0), (2)) ws(w)
ORDER BY w, ds;
SELECT is(gd_test.agg_fast_diff(format('SELECT ds, part, gpu_dbscan_agg(g, %s::float8, 2 ORDER BY id DESC) AS a FROM gd_test.gg GROUP BY ds, part ORDER BY ds, part',
									   quote_literal(eps)), 2),
		  NULL, 'GROUP BY ds, part (SRIDs 4326, 4269 and 4024; a group''s sphere is its own), ORDER BY inside')
FROM gd_test.gg_cases WHERE ds = 7;
SELECT is(gd_test.agg_fast_diff('SELECT gpu_dbscan_agg(g, 2000, 4) AS a FROM gd_test.gg', 2),
		  NULL, 'every set ungrouped: the same SRID error');
SELECT is(gd_test.agg_fast_diff($$SELECT ds, gpu_dbscan_params(g, '{1000,3000}', '{3,6}') AS a FROM gd_test.gg GROUP BY ds ORDER BY ds$$, 2),
		  NULL, 'gpu_dbscan_params by set, two workers');
SELECT is(gd_test.agg_fast_diff($$SELECT part, gpu_dbscan_agg(g, 2500, 4) AS a, gpu_dbscan_params(g, '{2500}', '{4}') AS b FROM gd_test.gbig GROUP BY part ORDER BY part$$, 2),
		  NULL, 'both aggregates over one read, 20,000 rows, two workers');
SELECT is(gd_test.agg_fast_diff(format('SELECT gpu_dbscan_agg(g, 1500, 5) AS a FROM gd_test.gbad WHERE id <= 2000 OR id = %s', bad), 2),
		  NULL, format('gpu_dbscan_agg, row error %s, two workers: the same error and row number', what))
FROM (SELECT id AS bad, what FROM gd_test.gbad WHERE what IS NOT NULL) b
ORDER BY bad;
SELECT is(gd_test.agg_fast_diff('SELECT part, gpu_dbscan_agg(g, 1500, 5) AS a FROM gd_test.gbad GROUP BY part ORDER BY part', 2),
		  NULL, 'bad rows by group: the same error and row number');
SELECT is(gd_test.agg_fast_diff('SELECT part, gpu_dbscan_agg(g, 1500, 5 ORDER BY id DESC) AS a FROM gd_test.gbad GROUP BY part ORDER BY part', 0),
		  NULL, 'bad rows by group, ORDER BY inside: the same error and row number');
SELECT is(gd_test.agg_fast_diff('SELECT part, gpu_dbscan_agg(q, 2500, 4) AS a FROM gd_test.gbig WHERE id <> 15000 GROUP BY part ORDER BY part', 2),
		  NULL, 'by group over 20,000 rows, a NaN latitude: the same error and row number');
SELECT gd_test.use_fast_path(true, 2);
SELECT is(gd_test.error_of('SELECT gpu_dbscan_agg(q, 2500, 4) FROM gd_test.gbig'),
		  '0A000 gpu_dbscan: only geography points can be clustered: Row 15000 of the window partition.',
		  'gpu_dbscan_agg over 20,000 rows, a line: the error names its row');

-- 10. the planner support function loads the module for the geography forms (5 tests)
SELECT is((SELECT prosupport::regproc::text FROM pg_proc WHERE oid = f::regprocedure),
		  'gpu_dbscan_support', format('%s has the planner support function', f))
FROM (VALUES ('gpu_dbscan(geography, float8, int)'), ('gpu_dbscan_sweep(geography, float8, int[])'),
			 ('gpu_dbscan_point_type(geography, float8, int)'),
			 ('gpu_dbscan_agg_transfn(internal, geography, float8, int)'),
			 ('gpu_dbscan_params_transfn(internal, geography, float8[], int[])')) v(f)
ORDER BY f;

SELECT * FROM finish();
ROLLBACK;
