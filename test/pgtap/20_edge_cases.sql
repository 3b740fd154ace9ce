-- Hand-written edge cases: exact ids where the rules decide them (border
-- points, the nrows <= minpoints rule, NULL and EMPTY rows, eps 0 and
-- infinite eps, eps and minpoints from the first row), each also checked
-- against ST_ClusterDBSCAN where PostGIS gives an answer.
\ir lib/prelude.sql

SELECT plan(69);

-- Two clusters A (around 0 0) and B (around 2 0) and a border point P at
-- (1 0), exactly eps = 1 from A's (0 0) and B's (2 0); minpoints 4.  P joins
-- the cluster of its core neighbour with the smallest row index.
CREATE TEMP TABLE parts (name text, wkt text[]);
INSERT INTO parts VALUES
	('A', ARRAY['POINT(0 0)', 'POINT(-0.1 0)', 'POINT(-0.2 0)', 'POINT(-0.1 0.1)', 'POINT(-0.1 -0.1)']),
	('A_tail_first', ARRAY['POINT(-0.1 0)', 'POINT(-0.2 0)', 'POINT(-0.1 0.1)', 'POINT(-0.1 -0.1)']),
	('B', ARRAY['POINT(2 0)', 'POINT(2.1 0)', 'POINT(2.2 0)', 'POINT(2.1 0.1)', 'POINT(2.1 -0.1)']),
	('P', ARRAY['POINT(1 0)']),
	('A0', ARRAY['POINT(0 0)']);
CREATE FUNCTION pg_temp.rows(VARIADIC names text[]) RETURNS text[]
LANGUAGE sql AS $$
	SELECT array_agg(w ORDER BY n.i, u.j)
	FROM unnest(names) WITH ORDINALITY AS n(name, i)
	JOIN parts p USING (name), unnest(p.wkt) WITH ORDINALITY AS u(w, j)
$$;

SELECT is(gd_test.run(pg_temp.rows('A', 'B', 'P'), 1, 4),
		  ARRAY[0,0,0,0,0, 1,1,1,1,1, 0], 'border: A, B, P -> P joins A');
SELECT is(gd_test.run(pg_temp.rows('B', 'A', 'P'), 1, 4),
		  ARRAY[0,0,0,0,0, 1,1,1,1,1, 0], 'border: B, A, P -> P joins B');
SELECT is(gd_test.run(pg_temp.rows('P', 'B', 'A'), 1, 4),
		  ARRAY[0, 0,0,0,0,0, 1,1,1,1,1], 'border: P first -> its cluster (B, nearest core row) is id 0');
SELECT is(gd_test.run(pg_temp.rows('A', 'P', 'B'), 1, 4),
		  ARRAY[0,0,0,0,0, 0, 1,1,1,1,1], 'border: A, P, B -> P joins A');
SELECT is(gd_test.run(pg_temp.rows('A_tail_first', 'B', 'A0', 'P'), 1, 4),
		  ARRAY[0,0,0,0, 1,1,1,1,1, 0, 1],
		  'border: B''s core row comes before A''s core neighbour -> P joins B although A has id 0');
SELECT ok(gd_test.same_clusters(gd_test.run(pg_temp.rows(VARIADIC o), 1, 4),
								gd_test.run_postgis(pg_temp.rows(VARIADIC o), 1, 4)),
		  'border: same as ST_ClusterDBSCAN for order ' || array_to_string(o, ', '))
FROM (VALUES (ARRAY['A', 'B', 'P']), (ARRAY['B', 'A', 'P']), (ARRAY['P', 'B', 'A']),
			 (ARRAY['A', 'P', 'B']), (ARRAY['A_tail_first', 'B', 'A0', 'P'])) v(o);

-- minpoints 0 and 1: single linkage, nothing is noise; EMPTY is a cluster of
-- its own, NULL stays NULL.
SELECT is(gd_test.run(ARRAY['POINT(0 0)', 'POINT EMPTY', NULL, 'POINT(0.5 0)', 'POINT EMPTY', 'POINT(5 5)'], 1, 1),
		  ARRAY[0, 1, NULL, 0, 2, 3], 'minpoints 1: EMPTY rows are clusters of their own, NULL is NULL');
SELECT is(gd_test.run(ARRAY['POINT(0 0)', 'POINT EMPTY', NULL, 'POINT(0.5 0)', 'POINT EMPTY', 'POINT(5 5)'], 1, 0),
		  ARRAY[0, 1, NULL, 0, 2, 3], 'minpoints 0: same as 1');
SELECT is(gd_test.run(ARRAY['POINT(0 0)', 'POINT EMPTY', NULL, 'POINT(0.5 0)', 'POINT EMPTY', 'POINT(5 5)'], 1, 2),
		  ARRAY[0, NULL, NULL, 0, NULL, NULL], 'minpoints 2: EMPTY and lone points are noise');
SELECT is(gd_test.run(ARRAY['LINESTRING EMPTY', 'POINT(0 0)', 'GEOMETRYCOLLECTION EMPTY', 'POLYGON EMPTY'], 0, 1),
		  ARRAY[0, 1, 2, 3], 'empty geometries of every type are EMPTY rows');
SELECT is(gd_test.run(ARRAY[NULL, NULL]::text[], 1, 0), ARRAY[NULL, NULL]::int[], 'only NULL rows: all NULL');
SELECT is(gd_test.run(ARRAY['POINT(3 4)'], 0, 1), ARRAY[0], 'one row, minpoints 1: cluster 0');
SELECT is(gd_test.run(ARRAY['POINT(3 4)'], 0, 0), ARRAY[0], 'one row, minpoints 0: cluster 0');

-- Few rows against a large minpoints.  PostGIS 3.3.2 gives up before looking
-- at the rows only when nrows < minpoints (then no row can be core anyway):
-- with nrows = minpoints, rows that are all each other's neighbours are a
-- cluster.  NULL and EMPTY rows count in nrows but are nobody's neighbour.
SELECT is(gd_test.run(ARRAY['POINT(0 0)', 'POINT(0 0)', 'POINT(0 0)'], 1, 3),
		  ARRAY[0, 0, 0], 'nrows = minpoints, all neighbours: one cluster');
SELECT is(gd_test.run(ARRAY['POINT(0 0)', 'POINT(0 0)', 'POINT(0 0)'], 1, 4),
		  ARRAY[NULL, NULL, NULL]::int[], 'nrows < minpoints: all noise');
SELECT is(gd_test.run(ARRAY['POINT(0 0)', 'POINT(0.5 0)'], 1, 2),
		  ARRAY[0, 0], 'two points, minpoints 2: one cluster');
SELECT is(gd_test.run(ARRAY['POINT(0 0)', 'POINT(0 0)', NULL], 1, 3),
		  ARRAY[NULL, NULL, NULL]::int[], 'a NULL row counts in nrows, not as a neighbour');
SELECT is(gd_test.run(ARRAY['POINT(0 0)', 'POINT(0 0)', 'POINT EMPTY'], 1, 2),
		  ARRAY[0, 0, NULL], 'an EMPTY row is noise with minpoints 2');
SELECT is(gd_test.run(ARRAY['POINT(0 0)', 'POINT(0 0)', 'POINT(0 0)'], 1, 2147483647),
		  ARRAY[NULL, NULL, NULL]::int[], 'minpoints 2^31-1: all noise');
SELECT ok(gd_test.same_clusters(gd_test.run(w, 1, m), gd_test.run_postgis(w, 1, m)),
		  format('%s rows, minpoints %s: as ST_ClusterDBSCAN', cardinality(w), m))
FROM (VALUES (ARRAY['POINT(0 0)', 'POINT(0 0)'], 2), (ARRAY['POINT(0 0)', 'POINT(1 0)', 'POINT(2 0)'], 3),
			 (ARRAY['POINT(0 0)', 'POINT(0 0)', 'POINT(0 0)'], 3), (ARRAY['POINT(0 0)', NULL, 'POINT(0 0)'], 2),
			 (ARRAY['POINT(0 0)'], 2), (ARRAY['POINT(0 0)', 'POINT(0 0)', 'POINT(0 0)', 'POINT(0 0)'], 4)) v(w, m);

-- eps 0 clusters exact duplicates only, and -0 equals 0.  PostGIS tests
-- sqrt(dx*dx + dy*dy) <= eps only for pairs its index finds within eps on
-- each axis, so a difference whose square underflows to 0 is no neighbour
-- unless it is itself <= eps.
SELECT is(gd_test.run(ARRAY['POINT(1 1)', 'POINT(1 1)', 'POINT(1 1.0000000000000002)', 'POINT(0 0)', 'POINT(-0 -0)'], 0, 2),
		  ARRAY[0, 0, NULL, 1, 1], 'eps 0: exact duplicates (and -0 = 0) only');
SELECT is(gd_test.run(ARRAY['POINT(0 0)', 'POINT(1e-170 0)', 'POINT(1e-160 0)', 'POINT(0 5e-324)'], 0, 1),
		  ARRAY[0, 1, 2, 3], 'eps 0: points 1e-170 or 5e-324 apart are not duplicates, though dx*dx underflows to 0');
SELECT is(gd_test.run(ARRAY['POINT(0 0)', 'POINT(1e-170 0)', 'POINT(1e-160 0)', 'POINT(0 5e-324)'], 5e-324, 1),
		  ARRAY[0, 1, 2, 0], 'eps 5e-324: only the point 5e-324 apart is a neighbour');
SELECT ok(gd_test.same_clusters(gd_test.run(w, e, 1), gd_test.run_postgis(w, e, 1)),
		  format('underflowing distances, eps %s: as ST_ClusterDBSCAN', e))
FROM (SELECT ARRAY['POINT(0 0)', 'POINT(1e-170 0)', 'POINT(1e-160 0)', 'POINT(0 5e-324)',
				   'POINT(2e-160 2e-160)', 'POINT(1e-300 -1e-300)'] AS w) a,
	 (VALUES (0::float8), (5e-324), (1e-160), (1.5e-160)) v(e);

-- Coordinates of very different magnitudes: x - y is rounded.
SELECT ok(gd_test.same_clusters(gd_test.run(w, e, 1), gd_test.run_postgis(w, e, 1)),
		  format('rounded differences, eps %s: as ST_ClusterDBSCAN', e))
FROM (SELECT ARRAY['POINT(1e-17 0)', 'POINT(0.10000000000000002 0)', 'POINT(0.2 1e-17)', 'POINT(0.30000000000000004 0)',
				   'POINT(0 0.1)', 'POINT(-1e-17 0.2)', 'POINT(1e16 0)', 'POINT(10000000000000002 0)'] AS w) a,
	 (VALUES (0.1::float8), (0.09999999999999999), (2), (1.9999999999999998)) v(e);

-- Distances exactly eps are neighbours (<=); eps a hair smaller are not.
SELECT is(gd_test.run(ARRAY['POINT(0 0)', 'POINT(3 4)', 'POINT(6 8)'], 5, 1),
		  ARRAY[0, 0, 0], 'distance exactly eps (3-4-5) is a neighbour');
SELECT is(gd_test.run(ARRAY['POINT(0 0)', 'POINT(3 4)', 'POINT(6 8)'], 4.999999999999999, 1),
		  ARRAY[0, 1, 2], 'eps one ulp below the distance: not a neighbour');
SELECT ok(gd_test.same_clusters(gd_test.run(w, e, 1), gd_test.run_postgis(w, e, 1)),
		  format('0.1 + 0.2 spacing against eps %s as PostGIS', e))
FROM (SELECT ARRAY['POINT(0.1 0)', 'POINT(0.30000000000000004 0)', 'POINT(0.5 0)'] AS w) a,
	 (VALUES (0.2::float8), (0.20000000000000004), (0.19999999999999998)) v(e);

-- Infinite eps: every pair of non-empty points is a neighbour.
SELECT is(gd_test.run(ARRAY['POINT(0 0)', 'POINT(1e300 -1e300)', 'POINT EMPTY', 'POINT(-1e300 5)', NULL], 'Infinity', 2),
		  ARRAY[0, 0, NULL, 0, NULL], 'eps Infinity: one cluster; EMPTY is noise');
SELECT is(gd_test.run(ARRAY['POINT(0 0)', 'POINT(1e300 -1e300)', 'POINT EMPTY', 'POINT(-1e300 5)'], 'Infinity', 1),
		  ARRAY[0, 0, 1, 0], 'eps Infinity, minpoints 1: EMPTY on its own');
SELECT is(gd_test.compare('(SELECT id, geom FROM gd_test.gen_uniform(0.123, 700, 1e6)) s', 'Infinity', 700), NULL,
		  'eps Infinity, 700 points, minpoints 700: as ST_ClusterDBSCAN');
SELECT is(gd_test.compare('(SELECT id, geom FROM gd_test.gen_uniform(0.124, 700, 1e6)) s', 1e308, 5), NULL,
		  'eps 1e308: as ST_ClusterDBSCAN');

-- Z and M are ignored.
SELECT is(gd_test.run(ARRAY['POINT Z (0 0 0)', 'POINT Z (0 0 100)', 'POINT ZM (0.5 0 -7 3)', 'POINT M (9 9 1)'], 0.5, 1),
		  ARRAY[0, 0, 0, 1], 'Z and M ignored');
SELECT is(gd_test.compare($$(SELECT id, ST_Force3D(geom, id % 7) AS geom FROM gd_test.gen_blobs(0.125, 1500, 5, 1, 0.2, 40)) s$$, 0.5, 4),
		  NULL, 'Z coordinates: as ST_ClusterDBSCAN');

-- eps and minpoints are taken from the partition's first row.
CREATE TEMP TABLE per_row AS
SELECT g.id, g.geom, CASE WHEN g.id = 1 THEN 1.5 ELSE 100 END::float8 AS e,
	   CASE WHEN g.id = 1 THEN 3 ELSE 1 END AS m, g.id % 3 AS p
FROM gd_test.gen_blobs(0.126, 900, 6, 1, 0.2, 60) g;
SELECT is(gd_test.compare('per_row', 0, 0, 'NULL::int', 'id', 'e', 'm'), NULL,
		  'eps and minpoints columns varying by row: as ST_ClusterDBSCAN');
SELECT is(gd_test.labels('(SELECT id, geom, e, m FROM per_row) s', 1.5, 3),
		  (SELECT array_agg(c ORDER BY id) FROM (SELECT id, gpu_dbscan(geom, e, m) OVER (ORDER BY id) c FROM per_row) s),
		  'eps and minpoints columns: the first row''s values are used');
SELECT is(gd_test.compare('per_row', 0, 0, 'p', 'id DESC', 'e', 'm'), NULL,
		  'per-row eps/minpoints, partitioned, descending order: as ST_ClusterDBSCAN');

-- The window frame does not matter: the whole partition is clustered.
SELECT is(gd_test.compare('per_row', 1, 3, 'NULL::int', 'id ROWS BETWEEN CURRENT ROW AND CURRENT ROW'),
		  NULL, 'a one-row frame still clusters the whole partition');
SELECT is(gd_test.compare('per_row', 1, 3, 'p', 'id RANGE BETWEEN 5 PRECEDING AND 5 FOLLOWING'),
		  NULL, 'a RANGE frame still clusters the whole partition');

-- Many tiny partitions.
CREATE TEMP TABLE tiny AS
SELECT g.id, g.geom, g.id % 1000 AS p FROM gd_test.gen_uniform(0.127, 3000, 50) g;
SELECT is(gd_test.compare('tiny', 3, 2, 'p'), NULL, '1000 partitions of 3 rows, minpoints 2');
SELECT is(gd_test.compare('tiny', 30, 1, 'p'), NULL, '1000 partitions of 3 rows, minpoints 1');
SELECT is(gd_test.compare('tiny', 100, 3, 'p'), NULL, '1000 partitions of 3 rows, minpoints 3 (nrows <= minpoints)');

-- Two calls with different arguments in one query are independent.
SELECT is((SELECT count(*)::int FROM (
			  SELECT gpu_dbscan(geom, 1, 3) OVER w AS a, gpu_dbscan(geom, 2, 3) OVER w AS b,
					 ST_ClusterDBSCAN(geom, 1, 3) OVER w AS pa, ST_ClusterDBSCAN(geom, 2, 3) OVER w AS pb
			  FROM per_row WINDOW w AS (ORDER BY id)) s
		   WHERE (a IS NULL) <> (pa IS NULL) OR (b IS NULL) <> (pb IS NULL)),
		  0, 'two gpu_dbscan calls in one query: each has its own arguments');
SELECT is((SELECT count(*)::int FROM (SELECT gpu_dbscan(geom, 1, 3) OVER () FROM per_row WHERE false) s),
		  0, 'no rows: no output');

-- Mixed geometry types: points inside polygons, touching lines, multipoints.
SELECT is(gd_test.run(ARRAY['POLYGON((0 0, 10 0, 10 10, 0 10, 0 0))', 'POINT(5 5)', 'LINESTRING(20 0, 20 10)',
							'POINT(15 5)', 'MULTIPOINT((30 30), (40 40))', 'POINT(40.5 40)'], 0, 1),
		  ARRAY[0, 0, 1, 2, 3, 4], 'eps 0: a point inside a polygon touches it');
SELECT is(gd_test.run(ARRAY['POLYGON((0 0, 10 0, 10 10, 0 10, 0 0))', 'POINT(5 5)', 'LINESTRING(20 0, 20 10)',
							'POINT(15 5)', 'MULTIPOINT((30 30), (40 40))', 'POINT(40.5 40)'], 5, 1),
		  ARRAY[0, 0, 0, 0, 1, 1], 'eps 5: line within 5 of the point, multipoint within 0.5');
SELECT ok(gd_test.same_clusters(gd_test.run(w, e, m), gd_test.run_postgis(w, e, m)),
		  format('mixed geometries, eps %s, minpoints %s: as ST_ClusterDBSCAN', e, m))
FROM (SELECT ARRAY['POLYGON((0 0, 10 0, 10 10, 0 10, 0 0))', 'POINT(5 5)', 'LINESTRING(20 0, 20 10)',
				   'POINT(15 5)', 'MULTIPOINT((30 30), (40 40))', 'POINT(40.5 40)', 'POINT EMPTY',
				   'GEOMETRYCOLLECTION(POINT(12 12), LINESTRING(13 13, 14 14))', NULL,
				   'CIRCULARSTRING(0 20, 5 25, 10 20)', 'POINT(5 26)'] AS w) a,
	 (VALUES (0::float8, 1), (1, 2), (5, 2), (5, 3), (10, 1), (10, 4)) v(e, m);

SELECT * FROM finish();
ROLLBACK;
