--
-- nonpoint: lines, polygons, multipoints, collections and curves, alone and
-- mixed with points, compared with ST_ClusterDBSCAN (which tests candidates
-- from bounding boxes with the distance of ST_DWithin).
--

\i sql/include/same_clusters.sql

-- PostGIS's cluster.sql inputs (ST_ClusterWithin's t3/t4) through DBSCAN
CREATE TEMP TABLE cluster_inputs (id int, geom geometry);
INSERT INTO cluster_inputs VALUES
(1, 'LINESTRING (0 0, 1 1)'),
(2, 'LINESTRING (5 5, 4 4)'),
(3, NULL),
(4, 'LINESTRING (0 0, -1 -1)'),
(5, 'LINESTRING (6 6, 7 7)'),
(6, 'POLYGON EMPTY'),
(7, 'POLYGON ((0 0, 4 0, 4 4, 0 4, 0 0))');
SELECT e, m, id, gpu_dbscan(geom, e, m) OVER w, ST_ClusterDBSCAN(geom, e, m) OVER w
FROM cluster_inputs, (VALUES (0.0, 1), (1.4, 1), (1.5, 1), (1.5, 2), (1.5, 3), (0.0, 3)) p(e, m)
WINDOW w AS (PARTITION BY e, m ORDER BY id) ORDER BY e, m, id;

-- every kind of geometry, mixed with points
CREATE TEMP TABLE shapes (id int, geom geometry);
INSERT INTO shapes VALUES
(1, 'POINT (0 0)'),
(2, 'LINESTRING (1 0, 2 0)'),
(3, 'LINESTRING (2.5 0, 3 0, 3 1)'),
(4, 'POLYGON ((4 0, 5 0, 5 1, 4 1, 4 0), (4.2 0.2, 4.8 0.2, 4.8 0.8, 4.2 0.8, 4.2 0.2))'),
(5, 'POINT (4.5 0.5)'),
(6, 'MULTIPOINT ((6 0))'),
(7, 'MULTIPOINT ((6.5 0), (20 20))'),
(8, 'MULTILINESTRING ((7 0, 7.5 0), (30 30, 31 31))'),
(9, 'MULTIPOLYGON (((8 0, 9 0, 9 1, 8 0)))'),
(10, 'GEOMETRYCOLLECTION (POINT (9.5 0.5), LINESTRING (40 40, 41 41))'),
(11, 'GEOMETRYCOLLECTION (POINT (10 0), POINT EMPTY)'),
(12, 'CIRCULARSTRING (11 0, 11.5 0.5, 12 0)'),
(13, 'COMPOUNDCURVE (CIRCULARSTRING (12.5 0, 13 0.5, 13.5 0), (13.5 0, 14 0))'),
(14, 'CURVEPOLYGON (CIRCULARSTRING (15 0, 16 1, 17 0, 16 -1, 15 0))'),
(15, 'MULTICURVE ((17.5 0, 18 0), CIRCULARSTRING (18 0, 18.5 0.5, 19 0))'),
(16, 'MULTISURFACE (CURVEPOLYGON (CIRCULARSTRING (19.5 0, 20 0.5, 20.5 0, 20 -0.5, 19.5 0)))'),
(17, 'TRIANGLE ((21 0, 22 0, 21 1, 21 0))'),
(18, 'TIN (((23 0, 24 0, 23 1, 23 0)))'),
(19, 'POLYHEDRALSURFACE Z (((25 0 0, 26 0 0, 26 1 0, 25 0 0)))'),
(20, 'LINESTRING Z (26.5 0 7, 27 0 -7)'),
(21, 'POLYGON M ((27.5 0 1, 28 0 1, 28 1 1, 27.5 0 1))'),
(22, 'GEOMETRYCOLLECTION EMPTY'),
(23, 'MULTIPOLYGON EMPTY'),
(24, NULL),
(25, 'POINT (100 100)'),
(26, 'LINESTRING (100 101.4, 100 102)');
SELECT e, m, pg_temp.same_clusters(array_agg(a ORDER BY id), array_agg(b ORDER BY id)) AS same,
       count(DISTINCT a) AS clusters, count(*) FILTER (WHERE a IS NULL) AS nulls
FROM (SELECT e, m, id, gpu_dbscan(geom, e, m) OVER w AS a, ST_ClusterDBSCAN(geom, e, m) OVER w AS b
      FROM shapes, (VALUES (0.0, 1), (0.0, 2), (0.1, 1), (0.4, 1), (0.5, 1), (0.5, 2), (0.5, 3),
                           (1.0, 1), (1.0, 3), (1.5, 4), (3.0, 5), ('Infinity', 1), ('Infinity', 20)) p(e, m)
      WINDOW w AS (PARTITION BY e, m ORDER BY id)) r
GROUP BY e, m ORDER BY e, m;
-- the ids themselves, at eps 0.5
SELECT id, ST_GeometryType(geom), gpu_dbscan(geom, 0.5, 1) OVER w AS m1, ST_ClusterDBSCAN(geom, 0.5, 1) OVER w AS pm1,
       gpu_dbscan(geom, 0.5, 2) OVER w AS m2, ST_ClusterDBSCAN(geom, 0.5, 2) OVER w AS pm2
FROM shapes WINDOW w AS (ORDER BY id) ORDER BY id;

-- PostGIS 3.3.2 measures no distance to a collection that starts with an
-- EMPTY part (ST_Distance is NULL, ST_DWithin false) and ST_ClusterDBSCAN
-- fails; gpu_dbscan takes ST_DWithin's answer
SELECT ST_DWithin('MULTIPOINT ((6.5 0), (20 20))', 'GEOMETRYCOLLECTION (POINT EMPTY, POINT (10 0))', 100);
SELECT id, gpu_dbscan(geom, 100, 1) OVER w
FROM (VALUES (1, 'MULTIPOINT ((6.5 0), (20 20))'::geometry),
             (2, 'GEOMETRYCOLLECTION (POINT EMPTY, POINT (10 0))')) t(id, geom)
WINDOW w AS (ORDER BY id);
SELECT id, ST_ClusterDBSCAN(geom, 100, 1) OVER w
FROM (VALUES (1, 'MULTIPOINT ((6.5 0), (20 20))'::geometry),
             (2, 'GEOMETRYCOLLECTION (POINT EMPTY, POINT (10 0))')) t(id, geom)
WINDOW w AS (ORDER BY id);

-- a circular arc bulges beyond its vertices: the box must follow the arc
SELECT id, gpu_dbscan(geom, 0.2, 1) OVER w, ST_ClusterDBSCAN(geom, 0.2, 1) OVER w
FROM (VALUES (1, 'CIRCULARSTRING (0 0, 1 1, 2 0)'::geometry), (2, 'POINT (1 1.15)'),
             (3, 'POINT (1 -0.15)')) t(id, geom)
WINDOW w AS (ORDER BY id);

-- a polygon contains a far-away point of its own interior: distance 0
SELECT id, gpu_dbscan(geom, 0.1, 2) OVER w, ST_ClusterDBSCAN(geom, 0.1, 2) OVER w
FROM (VALUES (1, 'POLYGON ((0 0, 100 0, 100 100, 0 100, 0 0))'::geometry), (2, 'POINT (50 50)'),
             (3, 'POINT (200 200)'), (4, 'POINT (50 50.05)')) t(id, geom)
WINDOW w AS (ORDER BY id);

-- border rules with non-points: the first core neighbour claims the border
SELECT id, gpu_dbscan(geom, 1, 3) OVER w, ST_ClusterDBSCAN(geom, 1, 3) OVER w
FROM (VALUES (1, 'LINESTRING (-3 0, -2 0)'::geometry), (2, 'POINT (-2.5 0.5)'), (3, 'POINT (-1.5 0)'),
             (4, 'POINT (-0.7 0)'),
             (5, 'POINT (0.2 0)'), (6, 'POLYGON ((0.5 -1, 2 -1, 2 1, 0.5 1, 0.5 -1))'), (7, 'POINT (2.5 0)')) t(id, geom)
WINDOW w AS (ORDER BY id);

-- seeded random lines and points
SELECT setseed(0.17);
CREATE TEMP TABLE rnd_lines AS
SELECT i AS id,
       CASE WHEN i % 3 = 0 THEN ST_MakePoint(x, y)
            ELSE ST_MakeLine(ST_MakePoint(x, y), ST_MakePoint(x + random() - 0.5, y + random() - 0.5)) END AS geom
FROM (SELECT i, random() * 30 AS x, random() * 30 AS y FROM generate_series(1, 600) i) s;
SELECT e, m, pg_temp.same_clusters(array_agg(a ORDER BY id), array_agg(b ORDER BY id)) AS same,
       count(DISTINCT a) AS clusters, count(*) FILTER (WHERE a IS NULL) AS noise
FROM (SELECT e, m, id, gpu_dbscan(geom, e, m) OVER w AS a, ST_ClusterDBSCAN(geom, e, m) OVER w AS b
      FROM rnd_lines, (VALUES (0.0, 1), (0.3, 1), (0.3, 3), (0.8, 4), (1.5, 8)) p(e, m)
      WINDOW w AS (PARTITION BY e, m ORDER BY id)) r
GROUP BY e, m ORDER BY e, m;
-- (the pair search runs where gpu_dbscan.backend says; auto: the CPU below gpu_min_rows)
SELECT backend = CASE current_setting('gpu_dbscan.backend') WHEN 'gpu' THEN 'gpu' ELSE 'cpu' END
       AS backend_as_set, rows, points
FROM gpu_dbscan_last_run();

-- st_dwithin is found in PostGIS's schema whatever search_path says
SET search_path = pg_catalog;
SELECT id, public.gpu_dbscan(geom, 1.5, 1) OVER (ORDER BY id) FROM pg_temp.cluster_inputs;
RESET search_path;

-- toasted (compressed, and out-of-line) geometries are read like any other
CREATE TEMP TABLE big (id int, geom geometry);
ALTER TABLE big ALTER COLUMN geom SET STORAGE EXTERNAL;
INSERT INTO big
SELECT 1, ST_MakeLine(array_agg(ST_MakePoint(i * 0.001, sin(i * 0.01)) ORDER BY i)) FROM generate_series(1, 5000) i
UNION ALL SELECT 2, 'POINT (5.5 0)'
UNION ALL SELECT 3, ST_Buffer('POINT (20 0)'::geometry, 3, 2000)
UNION ALL SELECT 4, 'POINT (16.5 0)';
SELECT id, pg_column_size(geom) > 2000 AS large, gpu_dbscan(geom, 0.6, 1) OVER w, ST_ClusterDBSCAN(geom, 0.6, 1) OVER w
FROM big WINDOW w AS (ORDER BY id) ORDER BY id;
