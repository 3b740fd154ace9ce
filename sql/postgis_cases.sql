--
-- postgis_cases: tickets and rules of ST_ClusterDBSCAN found by running
-- PostGIS 3.3.2, each compared with ST_ClusterDBSCAN in the same query.
--

\i sql/include/same_clusters.sql

-- #3612: polygons with M in SRID 4326, eps 20.1, minpoints 5: two rows, noise
SELECT '#3612a', gpu_dbscan(the_geom, 20.1, 5) OVER w, ST_ClusterDBSCAN(the_geom, 20.1, 5) OVER w
FROM (VALUES (1, ST_GeomFromEWKT('SRID=4326;POLYGONM((-71.1319 42.2503 1,-71.132 42.2502 3,-71.1323 42.2504 -2,-71.1322 42.2505 1,-71.1319 42.2503 0))')),
             (2, ST_GeomFromEWKT('SRID=4326;POLYGONM((-71.1319 42.2512 0,-71.1318 42.2511 20,-71.1317 42.2511 -20,-71.1317 42.251 5,-71.1317 42.2509 4,-71.132 42.2511 6,-71.1319 42.2512 30))'))
     ) AS g(id, the_geom)
WINDOW w AS (ORDER BY id);
-- the same polygons with minpoints 1 and 2: one cluster
SELECT '#3612a', m, gpu_dbscan(the_geom, 20.1, m) OVER w, ST_ClusterDBSCAN(the_geom, 20.1, m) OVER w
FROM (VALUES (1, ST_GeomFromEWKT('SRID=4326;POLYGONM((-71.1319 42.2503 1,-71.132 42.2502 3,-71.1323 42.2504 -2,-71.1322 42.2505 1,-71.1319 42.2503 0))')),
             (2, ST_GeomFromEWKT('SRID=4326;POLYGONM((-71.1319 42.2512 0,-71.1318 42.2511 20,-71.1317 42.2511 -20,-71.1317 42.251 5,-71.1317 42.2509 4,-71.132 42.2511 6,-71.1319 42.2512 30))'))
     ) AS g(id, the_geom), (VALUES (1), (2)) AS p(m)
WINDOW w AS (PARTITION BY m ORDER BY id) ORDER BY m, id;
SELECT '#3612b', gpu_dbscan(ST_Point(1, 1), 20.1, 5) OVER (), ST_ClusterDBSCAN(ST_Point(1, 1), 20.1, 5) OVER ();

-- #3572: a border point never bridges two clusters.  (-1 0) and (1 0) are
-- core (4 neighbours, themselves included); (0 0) is within eps of both but
-- has only 3 neighbours: a border point, which joins one cluster only.
CREATE TEMP TABLE bridge (id int, geom geometry);
INSERT INTO bridge VALUES
(1, 'POINT (-2 0)'), (2, 'POINT (-1.9 0)'), (3, 'POINT (-1 0)'),
(4, 'POINT (0 0)'),
(5, 'POINT (1 0)'), (6, 'POINT (1.9 0)'), (7, 'POINT (2 0)');
SELECT '#3572', id, gpu_dbscan(geom, 1, 4) OVER w, ST_ClusterDBSCAN(geom, 1, 4) OVER w
FROM bridge WINDOW w AS (ORDER BY id);

-- The border point joins the cluster of its core neighbour that comes first
-- in partition order: reversing ORDER BY moves (0 0) to the other cluster.
SELECT 'asc', id, gpu_dbscan(geom, 1, 4) OVER w AS gpu, ST_ClusterDBSCAN(geom, 1, 4) OVER w AS postgis
FROM bridge WINDOW w AS (ORDER BY id) ORDER BY id;
SELECT 'desc', id, gpu_dbscan(geom, 1, 4) OVER w AS gpu, ST_ClusterDBSCAN(geom, 1, 4) OVER w AS postgis
FROM bridge WINDOW w AS (ORDER BY id DESC) ORDER BY id;
-- which core point shares the border point's cluster, in each order
WITH r AS (SELECT 'asc' AS o, id, geom, gpu_dbscan(geom, 1, 4) OVER (ORDER BY id) AS c FROM bridge
           UNION ALL
           SELECT 'desc', id, geom, gpu_dbscan(geom, 1, 4) OVER (ORDER BY id DESC) FROM bridge)
SELECT o, (SELECT string_agg(ST_AsText(geom), ' ' ORDER BY id) FROM r r2
           WHERE r2.o = r.o AND r2.c = r.c AND r2.id IN (3, 5)) AS joined
FROM r WHERE id = 4 ORDER BY o;
-- equivalently, with ST_ClusterDBSCAN
WITH r AS (SELECT 'asc' AS o, id, geom, ST_ClusterDBSCAN(geom, 1, 4) OVER (ORDER BY id) AS c FROM bridge
           UNION ALL
           SELECT 'desc', id, geom, ST_ClusterDBSCAN(geom, 1, 4) OVER (ORDER BY id DESC) FROM bridge)
SELECT o, (SELECT string_agg(ST_AsText(geom), ' ' ORDER BY id) FROM r r2
           WHERE r2.o = r.o AND r2.c = r.c AND r2.id IN (3, 5)) AS joined
FROM r WHERE id = 4 ORDER BY o;

-- Distance does not matter, only order: the border point (0.9 0) is 0.9
-- from core (0 0) and 0.6 from core (1.5 0); the one that comes first wins.
CREATE TEMP TABLE claim (id int, geom geometry);
INSERT INTO claim VALUES
(1, 'POINT (0 0)'), (2, 'POINT (-0.5 0)'), (3, 'POINT (-0.9 0)'), (4, 'POINT (-0.2 0)'),
(5, 'POINT (0.9 0)'),
(6, 'POINT (1.5 0)'), (7, 'POINT (2 0)'), (8, 'POINT (2.3 0)'), (9, 'POINT (2.4 0)');
SELECT id, ST_AsText(geom), gpu_dbscan(geom, 1, 4) OVER w, ST_ClusterDBSCAN(geom, 1, 4) OVER w
FROM claim WINDOW w AS (ORDER BY id) ORDER BY id;
SELECT id, ST_AsText(geom), gpu_dbscan(geom, 1, 4) OVER w, ST_ClusterDBSCAN(geom, 1, 4) OVER w
FROM claim WINDOW w AS (ORDER BY id DESC) ORDER BY id;

-- nrows == minpoints: PostGIS 3.3.2 does not give up (every row is core
-- here), and nrows < minpoints can have no core point anyway
SELECT id, gpu_dbscan(geom, 10, 3) OVER w, ST_ClusterDBSCAN(geom, 10, 3) OVER w
FROM (VALUES (1, 'POINT (0 0)'::geometry), (2, 'POINT (1 0)'), (3, 'POINT (2 0)')) t(id, geom)
WINDOW w AS (ORDER BY id);
SELECT id, gpu_dbscan(geom, 10, 4) OVER w, ST_ClusterDBSCAN(geom, 10, 4) OVER w
FROM (VALUES (1, 'POINT (0 0)'::geometry), (2, 'POINT (1 0)'), (3, 'POINT (2 0)')) t(id, geom)
WINDOW w AS (ORDER BY id);
-- NULL and EMPTY rows are nobody's neighbour: three points make a cluster
-- at minpoints 3, not at 4, whatever the other rows
SELECT m, id, gpu_dbscan(geom, 10, m) OVER w, ST_ClusterDBSCAN(geom, 10, m) OVER w
FROM (VALUES (1, 'POINT (0 0)'::geometry), (2, NULL), (3, 'POINT (2 0)'), (4, 'POINT EMPTY'),
             (5, 'POINT (1 1)')) t(id, geom), (VALUES (3), (4)) p(m)
WINDOW w AS (PARTITION BY m ORDER BY id) ORDER BY m, id;
-- the t101-t103 points with minpoints 6 = nrows: one cluster
SELECT id, gpu_dbscan(geom, 10, 6) OVER w, ST_ClusterDBSCAN(geom, 10, 6) OVER w
FROM (VALUES (1, 'POINT (0 0)'::geometry), (2, 'POINT (0 1)'), (3, 'POINT (-0.5 0.5)'),
             (4, 'POINT (1 0)'), (5, 'POINT (1 1)'), (6, 'POINT (1.0 0.5)')) t(id, geom)
WINDOW w AS (ORDER BY id);

-- Seeded pseudo-random points compared with ST_ClusterDBSCAN over several
-- parameters: uniform data, duplicates, and a grid of 0.1 steps where many
-- distances land on eps give or take one rounding
SELECT setseed(0.42);
CREATE TEMP TABLE rnd AS
SELECT i AS id, ST_MakePoint(round((random() * 20)::numeric, 1)::float8,
                             round((random() * 20)::numeric, 1)::float8) AS geom
FROM generate_series(1, 1500) i;
CREATE TEMP TABLE grid AS
SELECT row_number() OVER (ORDER BY random()) AS id, ST_MakePoint(x * 0.1, y * 0.1) AS geom
FROM generate_series(0, 30) x, generate_series(0, 30) y;
SELECT t, eps, m,
       pg_temp.same_clusters(array_agg(a ORDER BY id), array_agg(b ORDER BY id)) AS same,
       count(DISTINCT a) AS clusters, count(*) FILTER (WHERE a IS NULL) AS noise
FROM (SELECT 'rnd' AS t, e.eps, e.m, id,
             gpu_dbscan(geom, e.eps, e.m) OVER w AS a, ST_ClusterDBSCAN(geom, e.eps, e.m) OVER w AS b
      FROM rnd, (VALUES (0.0, 1), (0.0, 2), (0.3, 1), (0.3, 3), (0.5, 5), (1.0, 10), (2.0, 40)) e(eps, m)
      WINDOW w AS (PARTITION BY e.eps, e.m ORDER BY id)
      UNION ALL
      SELECT 'grid', e.eps, e.m, id,
             gpu_dbscan(geom, e.eps, e.m) OVER w, ST_ClusterDBSCAN(geom, e.eps, e.m) OVER w
      FROM grid, (VALUES (0.1, 3), (0.1, 4), (0.1, 5), (0.1, 6), (0.2, 9), (0.3, 13), (0.14142135623730953, 9)) e(eps, m)
      WINDOW w AS (PARTITION BY e.eps, e.m ORDER BY id)) r
GROUP BY t, eps, m ORDER BY t, eps, m;
