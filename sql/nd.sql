--
-- nd: gpu_dbscan_3d(geometry) for POINT Z rows and gpu_dbscan(float8[]) for
-- points of 2 to 8 coordinates: exact ids on hand-made inputs, where 3D
-- differs from 2D, distances at exactly eps, borders, NULL and EMPTY rows,
-- and every bad input.  The session goes on after every error.
--

-- Z matters to gpu_dbscan_3d only: rows 3 and 4 are 5 apart in Z
CREATE TEMP TABLE z (id int, geom geometry);
INSERT INTO z VALUES
(1, 'POINT Z (0 0 0)'), (2, 'POINT Z (0 0 0.9)'), (3, 'POINT Z (0 0 5)'),
(4, 'POINT Z (0 0.5 5)'), (5, NULL), (6, 'POINT EMPTY'), (7, 'POINT ZM (0 0.5 0.5 7)');
SELECT id, gpu_dbscan_3d(geom, 1, 2) OVER w AS d3, gpu_dbscan(geom, 1, 2) OVER w AS d2,
       ST_ClusterDBSCAN(geom, 1, 2) OVER w AS postgis
FROM z WINDOW w AS (ORDER BY id) ORDER BY id;
-- minpoints 0 and 1: no noise, an EMPTY row is a cluster of its own
SELECT id, gpu_dbscan_3d(geom, 1, 1) OVER w AS m1, gpu_dbscan_3d(geom, 1, 0) OVER w AS m0
FROM z WINDOW w AS (ORDER BY id) ORDER BY id;

-- exactly eps: (3, 4, 12) is 13 from the origin; one ulp less is not within
SELECT e, id, gpu_dbscan_3d(geom, e, 2) OVER (PARTITION BY e ORDER BY id)
FROM (VALUES (1, 'POINT Z (0 0 0)'::geometry), (2, 'POINT Z (3 4 12)')) t(id, geom),
     (VALUES (13::float8), (12.999999999999998)) e(e)
ORDER BY e, id;
-- |dz| <= eps is part of the test: dz alone beyond eps is never a neighbour
SELECT id, gpu_dbscan_3d(geom, 2, 2) OVER (ORDER BY id)
FROM (VALUES (1, 'POINT Z (0 0 0)'::geometry), (2, 'POINT Z (0 0 2)'), (3, 'POINT Z (0 0 4.0000001)')) t(id, geom);

-- a border point between two clusters joins the one of its core neighbour
-- with the smallest row, in 3D as in 2D
CREATE TEMP TABLE b3 (id int, geom geometry);
INSERT INTO b3 VALUES
(1, 'POINT Z (1 1 0)'), (2, 'POINT Z (1 1 0.25)'), (3, 'POINT Z (1 1 0.5)'), (4, 'POINT Z (1 1 0.75)'),
(5, 'POINT Z (1 1 1.75)'),                         -- exactly 1 from rows 4 and 6: border of both
(6, 'POINT Z (1 1 2.75)'), (7, 'POINT Z (1 1 3)'), (8, 'POINT Z (1 1 3.25)'), (9, 'POINT Z (1 1 3.5)');
SELECT o, id, gpu_dbscan_3d(geom, 1, 4) OVER (PARTITION BY o ORDER BY CASE o WHEN 'asc' THEN id ELSE -id END)
FROM b3, (VALUES ('asc'), ('desc')) v(o)
ORDER BY o, id;

-- partitions: ids restart at 0; eps and minpoints from each partition's first row
SELECT p, id, gpu_dbscan_3d(geom, CASE p WHEN 1 THEN 0.25 ELSE 1 END, CASE p WHEN 1 THEN 2 ELSE 5 END)
       OVER (PARTITION BY p ORDER BY id)
FROM b3, (VALUES (1), (2)) v(p)
ORDER BY p, id;

-- float8[] points: 2 coordinates are gpu_dbscan's 2D points
SELECT id, gpu_dbscan(ARRAY[ST_X(geom), ST_Y(geom)], 0.6, 2) OVER w AS arr,
       gpu_dbscan(geom, 0.6, 2) OVER w AS geom
FROM (VALUES (1, 'POINT (0 0)'::geometry), (2, 'POINT (0.5 0)'), (3, 'POINT (5 5)'), (4, 'POINT (5 5.6)'),
             (5, 'POINT (5 5.61)')) t(id, geom)
WINDOW w AS (ORDER BY id) ORDER BY id;
-- 4 and 8 coordinates; a NULL array is a NULL row
SELECT id, gpu_dbscan(p, 1, 2) OVER (ORDER BY id)
FROM (VALUES (1, '{0,0,0,0}'::float8[]), (2, '{0,0,0,1}'), (3, '{5,5,5,5}'), (4, NULL),
             (5, '{5,5,5,5.5}'), (6, '{0,0,0,2.5}')) t(id, p);
SELECT id, gpu_dbscan(p, 1, 2) OVER (ORDER BY id)
FROM (VALUES (1, '{1,1,1,1,1,1,1,1}'::float8[]), (2, '{1,1,1,1,1,1,1,1.5}'),
             (3, '{1,1,1,1,1,1,1.6,1}'), (4, '{2,2,2,2,2,2,2,2}')) t(id, p);
-- eps 0: exact duplicates; eps Infinity: one cluster
SELECT id, gpu_dbscan(p, 0, 2) OVER w AS e0, gpu_dbscan(p, 'Infinity', 2) OVER w AS einf
FROM (VALUES (1, '{1,2,3}'::float8[]), (2, '{1,2,3.0000000000000004}'), (3, '{1,2,3}'), (4, '{-1e300,0,1e300}')) t(id, p)
WINDOW w AS (ORDER BY id) ORDER BY id;
-- too few points for minpoints: all noise
SELECT id, gpu_dbscan(p, 100, 4) OVER (ORDER BY id)
FROM (VALUES (1, '{0,0,0}'::float8[]), (2, '{1,1,1}'), (3, '{2,2,2}'), (4, NULL)) t(id, p);
-- only NULL rows
SELECT gpu_dbscan(p, 1, 1) OVER () FROM (VALUES (NULL::float8[]), (NULL)) t(p);

-- where it ran: gpu_dbscan_last_run() names the back end (n-D runs on the
-- GPU are compared with the CPU's in pgTAP 50_backends, skipped without one)
SET gpu_dbscan.backend = 'cpu';
SELECT id, gpu_dbscan(p, 1, 2) OVER (ORDER BY id)
FROM (VALUES (1, '{0,0,0}'::float8[]), (2, '{0,0,1}')) t(id, p);
SELECT backend, rows, points FROM gpu_dbscan_last_run();
SELECT id, gpu_dbscan_3d(geom, 1, 2) OVER (ORDER BY id) FROM b3 WHERE id <= 2;
SELECT backend, rows, points FROM gpu_dbscan_last_run();
RESET gpu_dbscan.backend;

-- bad input: clear errors
-- a point without Z, a line, NaN or infinite Z, mixed SRIDs
SELECT gpu_dbscan_3d(geom, 1, 1) OVER () FROM (VALUES ('POINT (0 0)'::geometry)) t(geom);
SELECT gpu_dbscan_3d(geom, 1, 1) OVER () FROM (VALUES ('POINT M (0 0 1)'::geometry)) t(geom);
SELECT gpu_dbscan_3d(geom, 1, 1) OVER (ORDER BY id)
FROM (VALUES (1, 'POINT Z (0 0 0)'::geometry), (2, 'LINESTRING Z (0 0 0, 1 1 1)')) t(id, geom);
SELECT gpu_dbscan_3d(geom, 1, 1) OVER () FROM (VALUES (ST_MakePoint(0, 0, 'NaN'))) t(geom);
SELECT gpu_dbscan_3d(geom, 1, 1) OVER () FROM (VALUES (ST_MakePoint(0, 0, '-Infinity'))) t(geom);
SELECT gpu_dbscan_3d(geom, 1, 1) OVER (ORDER BY id)
FROM (VALUES (1, 'SRID=4326;POINT Z (0 0 0)'::geometry), (2, 'POINT Z (0 0 0)')) t(id, geom);
-- eps and minpoints: the messages of ST_ClusterDBSCAN
SELECT gpu_dbscan_3d(geom, -1, 1) OVER () FROM z;
SELECT gpu_dbscan_3d(geom, 'NaN', 1) OVER () FROM z;
SELECT gpu_dbscan_3d(geom, 1, NULL) OVER () FROM z;
SELECT gpu_dbscan(p, NULL, 1) OVER () FROM (VALUES ('{1,2,3}'::float8[])) t(p);
SELECT gpu_dbscan(p, 1, -2) OVER () FROM (VALUES ('{1,2,3}'::float8[])) t(p);
-- arrays: too few or too many coordinates, empty, 2-D, NULL element, NaN, Infinity, mixed lengths
SELECT gpu_dbscan(p, 1, 1) OVER () FROM (VALUES ('{1}'::float8[])) t(p);
SELECT gpu_dbscan(p, 1, 1) OVER () FROM (VALUES ('{1,2,3,4,5,6,7,8,9}'::float8[])) t(p);
SELECT gpu_dbscan(p, 1, 1) OVER () FROM (VALUES ('{}'::float8[])) t(p);
SELECT gpu_dbscan(p, 1, 1) OVER () FROM (VALUES ('{{1,2},{3,4}}'::float8[])) t(p);
SELECT gpu_dbscan(p, 1, 1) OVER () FROM (VALUES ('{1,NULL,3}'::float8[])) t(p);
SELECT gpu_dbscan(p, 1, 1) OVER () FROM (VALUES ('{1,NaN,3}'::float8[])) t(p);
SELECT gpu_dbscan(p, 1, 1) OVER () FROM (VALUES ('{1,2,Infinity}'::float8[])) t(p);
SELECT gpu_dbscan(p, 1, 1) OVER (ORDER BY id)
FROM (VALUES (1, '{1,2,3}'::float8[]), (2, NULL), (3, '{1,2}')) t(id, p);
-- an untyped first argument names no single function
SELECT gpu_dbscan(NULL, 1, 1) OVER ();

-- the session goes on
SELECT id, gpu_dbscan_3d(geom, 1, 2) OVER (ORDER BY id) FROM z ORDER BY id;
