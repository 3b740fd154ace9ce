--
-- flags: gpu_dbscan_point_type(geom, eps, minpoints) OVER (...): core,
-- border or noise, NULL for a NULL geometry; EMPTY rows; non-point
-- geometries; partitions; bad arguments.
--

\i sql/include/small_rows.sql

-- each row's type next to its id and its neighbour count
SELECT id, gpu_dbscan(geom, 0.8, 3) OVER w AS cid,
       gpu_dbscan_point_type(geom, 0.8, 3) OVER w AS type,
       (SELECT count(*) FROM pts q WHERE ST_DWithin(p.geom, q.geom, 0.8)) AS neighbours
FROM pts p WINDOW w AS (ORDER BY id) ORDER BY id;

-- minpoints 0 and 1: every row with a geometry is core (EMPTY too)
SELECT id, gpu_dbscan_point_type(geom, 0.8, 0) OVER w AS m0,
       gpu_dbscan_point_type(geom, 0.8, 1) OVER w AS m1,
       gpu_dbscan_point_type(geom, 0.8, 2) OVER w AS m2,
       gpu_dbscan_point_type(geom, 0.8, 100) OVER w AS m100
FROM pts WINDOW w AS (ORDER BY id) ORDER BY id;

-- a border point between two clusters: border, whichever cluster claims it
CREATE TEMP TABLE bridge (id int, geom geometry);
INSERT INTO bridge VALUES
(1, 'POINT (0 0)'), (2, 'POINT (0 0.1)'), (3, 'POINT (0.1 0)'), (4, 'POINT (0 -0.1)'), (5, 'POINT (0.1 0.1)'),
(6, 'POINT (1 0)'),
(7, 'POINT (2 0)'), (8, 'POINT (2 0.1)'), (9, 'POINT (1.9 0)'), (10, 'POINT (2 -0.1)'), (11, 'POINT (1.9 0.1)');
SELECT id, gpu_dbscan(geom, 0.95, 6) OVER w AS cid, gpu_dbscan_point_type(geom, 0.95, 6) OVER w AS type,
       gpu_dbscan(geom, 0.95, 6) OVER r AS cid_reversed, gpu_dbscan_point_type(geom, 0.95, 6) OVER r AS type_reversed
FROM bridge WINDOW w AS (ORDER BY id), r AS (ORDER BY id DESC) ORDER BY id;

-- non-point geometries
SELECT id, gpu_dbscan_point_type(g, 0.5, 2) OVER (ORDER BY id)
FROM (VALUES (1, 'LINESTRING (0 0, 2 0)'::geometry), (2, 'POINT (2.5 0)'),
             (3, 'POLYGON ((3 -1, 4 -1, 4 1, 3 1, 3 -1))'), (4, 'POINT (10 10)'),
             (5, NULL)) v(id, g);

-- partitions
SELECT id % 2 AS part, id, gpu_dbscan_point_type(geom, 1.2, 2) OVER (PARTITION BY id % 2 ORDER BY id)
FROM pts ORDER BY 1, 2;

-- the counts of each type
SELECT type, count(*)
FROM (SELECT gpu_dbscan_point_type(ST_MakePoint(i % 30, i / 30), 1, 5) OVER () AS type
      FROM generate_series(0, 899) i WHERE (i * 7) % 11 <> 0) s
GROUP BY type ORDER BY type;

-- bad arguments: gpu_dbscan's messages
SELECT gpu_dbscan_point_type(geom, -1, 1) OVER () FROM pts;
SELECT gpu_dbscan_point_type(geom, NULL, 1) OVER () FROM pts;
SELECT gpu_dbscan_point_type(geom, 1, -1) OVER () FROM pts;
SELECT gpu_dbscan_point_type(geom, 1, NULL) OVER () FROM pts;
SELECT gpu_dbscan_point_type(geom, 'NaN', 1) OVER () FROM pts;
SELECT gpu_dbscan_point_type(ST_MakePoint('Infinity', 0), 1, 1) OVER ();
-- the session goes on
SELECT count(*) FROM (SELECT gpu_dbscan_point_type(geom, 1, 1) OVER () FROM pts) s;
