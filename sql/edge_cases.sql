--
-- edge_cases: NULL and EMPTY rows, eps 0 and Infinity, single rows,
-- duplicates, distance exactly eps.
--

-- NULL is always NULL; an EMPTY geometry of any type is nobody's neighbour,
-- a cluster of its own with minpoints 0 or 1, noise otherwise
CREATE TEMP TABLE ne (id int, g geometry);
INSERT INTO ne VALUES
(1, 'POINT (0 0)'), (2, NULL), (3, 'POINT EMPTY'), (4, 'POINT (0 0)'),
(5, 'LINESTRING EMPTY'), (6, 'POINT (0 0.5)'), (7, 'GEOMETRYCOLLECTION (POINT EMPTY)'),
(8, 'POINT (5 5)');
SELECT id, ST_AsText(g),
       gpu_dbscan(g, 1, 0) OVER w AS g0, ST_ClusterDBSCAN(g, 1, 0) OVER w AS p0,
       gpu_dbscan(g, 1, 1) OVER w AS g1, ST_ClusterDBSCAN(g, 1, 1) OVER w AS p1,
       gpu_dbscan(g, 1, 2) OVER w AS g2, ST_ClusterDBSCAN(g, 1, 2) OVER w AS p2,
       gpu_dbscan(g, 1, 3) OVER w AS g3, ST_ClusterDBSCAN(g, 1, 3) OVER w AS p3,
       gpu_dbscan(g, 1, 4) OVER w AS g4, ST_ClusterDBSCAN(g, 1, 4) OVER w AS p4
FROM ne WINDOW w AS (ORDER BY id);

-- partitions of nothing but NULL, or nothing but EMPTY
SELECT id, gpu_dbscan(NULL::geometry, 1, m) OVER w, ST_ClusterDBSCAN(NULL::geometry, 1, m) OVER w
FROM generate_series(1, 3) id, (VALUES (0), (1), (2)) p(m) WINDOW w AS (PARTITION BY m ORDER BY id)
ORDER BY m, id;
SELECT m, id, gpu_dbscan('POINT EMPTY'::geometry, 1, m) OVER w,
       ST_ClusterDBSCAN('POINT EMPTY'::geometry, 1, m) OVER w
FROM generate_series(1, 3) id, (VALUES (0), (1), (2)) p(m) WINDOW w AS (PARTITION BY m ORDER BY id)
ORDER BY m, id;

-- one row
SELECT m, gpu_dbscan('POINT (1 1)'::geometry, 1, m) OVER (), ST_ClusterDBSCAN('POINT (1 1)'::geometry, 1, m) OVER ()
FROM (VALUES (0), (1), (2)) p(m);

-- eps 0 clusters exact duplicates only
SELECT id, gpu_dbscan(g, 0, 1) OVER w, ST_ClusterDBSCAN(g, 0, 1) OVER w,
       gpu_dbscan(g, 0, 2) OVER w AS m2, ST_ClusterDBSCAN(g, 0, 2) OVER w AS pm2
FROM (VALUES (1, 'POINT (0 0)'::geometry), (2, 'POINT (1e-300 0)'), (3, 'POINT (0 0)'),
             (4, 'POINT (-0 0)'), (5, 'POINT (7 7)'), (6, 'POINT (7 7.000000000000001)')) t(id, g)
WINDOW w AS (ORDER BY id);

-- eps Infinity: every pair of non-empty points are neighbours
SELECT id, gpu_dbscan(g, 'Infinity', 1) OVER w, ST_ClusterDBSCAN(g, 'Infinity', 1) OVER w,
       gpu_dbscan(g, 'Infinity', 4) OVER w AS m4, ST_ClusterDBSCAN(g, 'Infinity', 4) OVER w AS pm4,
       gpu_dbscan(g, 'Infinity', 5) OVER w AS m5, ST_ClusterDBSCAN(g, 'Infinity', 5) OVER w AS pm5
FROM (VALUES (1, 'POINT (0 0)'::geometry), (2, 'POINT (1e10 0)'), (3, NULL),
             (4, 'POINT (-1e10 5)'), (5, 'POINT EMPTY'), (6, 'POINT (1 1)')) t(id, g)
WINDOW w AS (ORDER BY id);
-- even where PostGIS gives up (distances beyond FLT_MAX), every pair is a neighbour
SELECT id, gpu_dbscan(g, 'Infinity', 2) OVER (ORDER BY id)
FROM (VALUES (1, 'POINT (1e300 0)'::geometry), (2, 'POINT (-1e300 0)'), (3, 'POINT (0 1e300)')) t(id, g);

-- distance exactly eps is a neighbour (3-4-5 triangle), a hair more is not
SELECT id, gpu_dbscan(g, 5, 2) OVER w, ST_ClusterDBSCAN(g, 5, 2) OVER w,
       gpu_dbscan(g, 4.999999999999999, 2) OVER w AS less, ST_ClusterDBSCAN(g, 4.999999999999999, 2) OVER w AS pless
FROM (VALUES (1, 'POINT (0 0)'::geometry), (2, 'POINT (3 4)'), (3, 'POINT (100 100)')) t(id, g)
WINDOW w AS (ORDER BY id);

-- large and negative coordinates, big eps
SELECT id, gpu_dbscan(g, 1e6, 2) OVER w, ST_ClusterDBSCAN(g, 1e6, 2) OVER w
FROM (VALUES (1, 'POINT (-1e15 -1e15)'::geometry), (2, 'POINT (-1e15 -999999999000000)'),
             (3, 'POINT (1e15 1e15)'), (4, 'POINT (1e15 1000000000500000)')) t(id, g)
WINDOW w AS (ORDER BY id);

-- minpoints larger than any partition
SELECT id, gpu_dbscan(g, 100, 2147483647) OVER (ORDER BY id)
FROM (VALUES (1, 'POINT (0 0)'::geometry), (2, 'POINT (0 0)')) t(id, g);

-- many duplicates of one point: one cluster, whatever minpoints up to n
SELECT m, count(DISTINCT c), count(*) FILTER (WHERE c IS NULL) AS noise,
       count(DISTINCT p), count(*) FILTER (WHERE p IS NULL) AS postgis_noise
FROM (SELECT m, gpu_dbscan('POINT (3 3)'::geometry, 0, m) OVER w AS c,
             ST_ClusterDBSCAN('POINT (3 3)'::geometry, 0, m) OVER w AS p
      FROM generate_series(1, 5000) i, (VALUES (1), (5000), (5001)) p(m)
      WINDOW w AS (PARTITION BY m)) s
GROUP BY m ORDER BY m;

-- underflow: at eps 0 (or tiny eps) the squared distance can round to 0;
-- PostGIS's index filter (the box grown by eps) still keeps such points apart
SELECT id, gpu_dbscan(g, e, 1) OVER w, ST_ClusterDBSCAN(g, e, 1) OVER w
FROM (VALUES (1, 'POINT (0 0)'::geometry), (2, 'POINT (1e-300 0)'), (3, 'POINT (0 -1e-170)'),
             (4, 'POINT (1e-170 1e-170)')) t(id, g), (VALUES (0.0), (1e-200)) p(e)
WINDOW w AS (PARTITION BY e ORDER BY id) ORDER BY e, id;
