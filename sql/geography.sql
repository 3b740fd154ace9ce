--
-- geography: gpu_dbscan(geography, eps_m, minpoints), neighbours by
-- ST_DWithin(geog_i, geog_j, eps_m, false): across the antimeridian, at the
-- poles, at exactly the rounded distance, NULL and EMPTY rows, SRIDs, eps
-- past half the circumference, and bad input.  Each result is shown next to
-- what ST_DWithin says.
--

-- the sphere PostGIS measures on for SRID 4326, and for 4269 (GRS 80)
SELECT round(ST_Distance('POINT(0 0)'::geography, 'POINT(90 0)'::geography, false)::numeric / (pi() / 2)::numeric, 6) AS r4326,
       round(ST_Distance('SRID=4269;POINT(0 0)'::geography, 'SRID=4269;POINT(90 0)'::geography, false)::numeric / (pi() / 2)::numeric, 6) AS r4269;

-- across the antimeridian: 179.9 and -179.9 are 22 km apart on the equator
CREATE TEMP TABLE am (id int, g geography);
INSERT INTO am VALUES
(1, 'POINT(179.9 0)'), (2, 'POINT(-179.9 0)'), (3, 'POINT(-179.8 0.05)'), (4, 'POINT(0 0)'),
(5, 'POINT(180 10)'), (6, 'POINT(-180 10)');
SELECT id, gpu_dbscan(g, 25000, 2) OVER w AS geog,
       gpu_dbscan(g::geometry, 0.25, 2) OVER w AS degrees_2d,
       round(ST_Distance(g, lag(g) OVER w, false)) AS m_from_previous
FROM am WINDOW w AS (ORDER BY id) ORDER BY id;

-- at the poles: the pole written with different longitudes is not quite one
-- point to PostGIS (cos(pi/2) is not 0): not within eps 0 of each other, but
-- within 1 micrometre; a ring of points 1.1 km from the north pole, 1.9 km
-- from each other
CREATE TEMP TABLE pole (id int, g geography);
INSERT INTO pole VALUES
(1, 'POINT(0 90)'), (2, 'POINT(123 90)'), (3, 'POINT(-45 90)'),
(4, 'POINT(0 89.99)'), (5, 'POINT(120 89.99)'), (6, 'POINT(-120 89.99)'),
(7, 'POINT(10 -90)'), (8, 'POINT(-170 -90)'), (9, 'POINT(180 -89.999)');
SELECT id, gpu_dbscan(g, 0, 2) OVER w AS eps0,
       ST_DWithin(g, first_value(g) OVER w, 0, false) AS dwithin0_row1,
       gpu_dbscan(g, 1.0e-6, 2) OVER w AS eps_1um,
       gpu_dbscan(g, 1200, 2) OVER w AS eps_1200,
       gpu_dbscan(g, 2000, 3) OVER w AS eps_2000
FROM pole WINDOW w AS (ORDER BY id) ORDER BY id;

-- eps at the rounded distance of each pair: together exactly when
-- ST_DWithin says the pair is within
CREATE TEMP TABLE pairs (k int, a geography, b geography);
INSERT INTO pairs VALUES
(1, 'POINT(0 0)', 'POINT(0.001 0)'), (2, 'POINT(179.9999 45)', 'POINT(-179.9999 45)'),
(3, 'POINT(30 89.9999)', 'POINT(-150 89.9999)'), (4, 'POINT(1 2)', 'POINT(1.3 2.4)'),
(5, 'POINT(-60 -89.5)', 'POINT(120 -89.5)'), (6, 'POINT(10 10)', 'POINT(-170 -10)');
SELECT k, eps, ST_DWithin(a, b, eps, false) AS dwithin,
       bool_and(c IS NOT NULL) AS clustered
FROM (SELECT k, a, b, eps, gpu_dbscan(g, eps, 2) OVER (PARTITION BY k ORDER BY n) AS c
      FROM (SELECT k, a, b, ST_Distance(a, b, false) AS eps FROM pairs) p,
           LATERAL (VALUES (1, a), (2, b)) v(n, g)) s
GROUP BY k, a, b, eps ORDER BY k;

-- NULL and EMPTY rows; minpoints 1 makes an EMPTY row a cluster of its own
SELECT id, gpu_dbscan(g, 30000, 2) OVER w AS m2, gpu_dbscan(g, 30000, 1) OVER w AS m1
FROM (VALUES (1, 'POINT(179.9 0)'::geography), (2, NULL), (3, 'POINT EMPTY'), (4, 'POINT(-179.9 0)'),
             (5, 'POINT(100 0)')) t(id, g)
WINDOW w AS (ORDER BY id) ORDER BY id;

-- Z and M are ignored (ST_DWithin ignores them)
SELECT id, gpu_dbscan(g, 20000, 2) OVER (ORDER BY id)
FROM (VALUES (1, 'POINT Z (179.9 0 100000)'::geography), (2, 'POINT M (-179.95 0 5)'),
             (3, 'POINT(-179.7 0)')) t(id, g);

-- another SRID: its own sphere; SRIDs of different partitions may differ
SELECT s, id, gpu_dbscan(g, 22300, 2) OVER (PARTITION BY s ORDER BY id)
FROM (VALUES (4326, 1, 'SRID=4326;POINT(179.9 0)'::geography), (4326, 2, 'SRID=4326;POINT(-179.9 0)'),
             (4269, 1, 'SRID=4269;POINT(179.9 0)'), (4269, 2, 'SRID=4269;POINT(-179.9 0)')) t(s, id, g)
ORDER BY s, id;
SELECT round(ST_Distance('SRID=4326;POINT(179.9 0)'::geography, 'SRID=4326;POINT(-179.9 0)', false)::numeric, 3) AS m4326,
       round(ST_Distance('SRID=4269;POINT(179.9 0)'::geography, 'SRID=4269;POINT(-179.9 0)', false)::numeric, 3) AS m4269;

-- half the circumference is pi R = 20,015,114.35 m: from there on every
-- pair is within, antipodes too; just below it antipodes are not (rows 1
-- and 2 are antipodes, and so are rows 3 and 4)
SELECT ST_DWithin('POINT(10 10)'::geography, 'POINT(-170 -10)', 20015114, false) AS below,
       ST_DWithin('POINT(10 10)'::geography, 'POINT(-170 -10)', 20015115, false) AS above;
SELECT e, id, gpu_dbscan(g, e, 2) OVER (PARTITION BY e ORDER BY id)
FROM (VALUES (1, 'POINT(10 10)'::geography), (2, 'POINT(-170 -10)'), (3, 'POINT(0 90)'), (4, 'POINT(0 -90)')) t(id, g),
     (VALUES (10000000::float8), (20015114), (20015115), ('Infinity')) v(e)
ORDER BY e, id;

-- where it ran
SELECT id, gpu_dbscan(g, 25000, 2) OVER (ORDER BY id) FROM am ORDER BY id;
-- (the pair search runs where gpu_dbscan.backend says; auto: the CPU below gpu_min_rows)
SELECT backend = CASE current_setting('gpu_dbscan.backend') WHEN 'gpu' THEN 'gpu' ELSE 'cpu' END
       AS backend_as_set, rows, points
FROM gpu_dbscan_last_run();

-- bad input: clear errors
SELECT gpu_dbscan(g, 1000, 2) OVER (ORDER BY id)
FROM (VALUES (1, 'POINT(0 0)'::geography), (2, 'LINESTRING(0 0, 1 1)')) t(id, g);
SELECT gpu_dbscan(g, 1000, 2) OVER ()
FROM (VALUES ('POLYGON((0 0, 1 0, 1 1, 0 0))'::geography)) t(g);
SELECT gpu_dbscan(g, 1000, 2) OVER ()
FROM (VALUES ('MULTIPOINT((0 0), (1 1))'::geography)) t(g);
SELECT gpu_dbscan(g, 1000, 2) OVER (ORDER BY id)
FROM (VALUES (1, 'SRID=4326;POINT(0 0)'::geography), (2, 'SRID=4269;POINT(0 0)')) t(id, g);
SELECT gpu_dbscan(g, -1, 2) OVER () FROM am;
SELECT gpu_dbscan(g, NULL, 2) OVER () FROM am;
SELECT gpu_dbscan(g, 'NaN', 2) OVER () FROM am;
SELECT gpu_dbscan(g, 1000, -1) OVER () FROM am;

-- the session goes on
SELECT id, gpu_dbscan(g, 25000, 2) OVER (ORDER BY id) FROM am ORDER BY id;
