--
-- sweep: gpu_dbscan_sweep(geom, eps, minpoints int[]) OVER (...): each
-- row's id for every minpoints value, element k exactly gpu_dbscan with
-- minpoints[k]; repeated and unordered values, 0 and 1, NULL and EMPTY rows,
-- non-point geometries, partitions, bad arguments.
--

\i sql/include/small_rows.sql

SELECT id, gpu_dbscan_sweep(geom, 0.8, '{4, 1, 3, 0, 3, 2, 100}') OVER w AS sweep,
       ARRAY[gpu_dbscan(geom, 0.8, 4) OVER w, gpu_dbscan(geom, 0.8, 1) OVER w,
             gpu_dbscan(geom, 0.8, 3) OVER w, gpu_dbscan(geom, 0.8, 0) OVER w,
             gpu_dbscan(geom, 0.8, 3) OVER w, gpu_dbscan(geom, 0.8, 2) OVER w,
             gpu_dbscan(geom, 0.8, 100) OVER w] AS one_by_one
FROM pts WINDOW w AS (ORDER BY id) ORDER BY id;

-- one value
SELECT id, gpu_dbscan_sweep(geom, 0.8, '{3}') OVER (ORDER BY id DESC) FROM pts ORDER BY id;

-- a border point claimed by the first core point, at each minpoints
CREATE TEMP TABLE bridge (id int, geom geometry);
INSERT INTO bridge VALUES
(1, 'POINT (0 0)'), (2, 'POINT (0 0.1)'), (3, 'POINT (0.1 0)'), (4, 'POINT (0 -0.1)'), (5, 'POINT (0.1 0.1)'),
(6, 'POINT (1 0)'),
(7, 'POINT (2 0)'), (8, 'POINT (2 0.1)'), (9, 'POINT (1.9 0)'), (10, 'POINT (2 -0.1)'), (11, 'POINT (1.9 0.1)');
SELECT id, gpu_dbscan_sweep(geom, 0.95, '{2, 5, 6, 7}') OVER (ORDER BY id) FROM bridge ORDER BY id;
SELECT id, gpu_dbscan_sweep(geom, 0.95, '{2, 5, 6, 7}') OVER (ORDER BY id DESC) FROM bridge ORDER BY id;

-- non-point geometries
SELECT id, gpu_dbscan_sweep(g, 0.5, '{1, 2, 3}') OVER w,
       ARRAY[gpu_dbscan(g, 0.5, 1) OVER w, gpu_dbscan(g, 0.5, 2) OVER w, gpu_dbscan(g, 0.5, 3) OVER w]
FROM (VALUES (1, 'LINESTRING (0 0, 2 0)'::geometry), (2, 'POINT (2.5 0)'),
             (3, 'POLYGON ((3 -1, 4 -1, 4 1, 3 1, 3 -1))'), (4, 'POINT (2.2 0.3)'),
             (5, NULL)) v(id, g)
WINDOW w AS (ORDER BY id) ORDER BY id;

-- partitions: ids restart at 0 in each
SELECT id % 2 AS part, id, gpu_dbscan_sweep(geom, 1.2, '{1, 2}') OVER (PARTITION BY id % 2 ORDER BY id)
FROM pts ORDER BY 1, 2;

-- a lattice with every value from 1 to 10: each element equals gpu_dbscan
SELECT k, bool_and(s[k] IS NOT DISTINCT FROM one[k]) AS same
FROM (SELECT i, gpu_dbscan_sweep(g, 1, '{1,2,3,4,5,6,7,8,9,10}') OVER (ORDER BY i) AS s,
             ARRAY[gpu_dbscan(g, 1, 1) OVER w, gpu_dbscan(g, 1, 2) OVER w, gpu_dbscan(g, 1, 3) OVER w,
                   gpu_dbscan(g, 1, 4) OVER w, gpu_dbscan(g, 1, 5) OVER w, gpu_dbscan(g, 1, 6) OVER w,
                   gpu_dbscan(g, 1, 7) OVER w, gpu_dbscan(g, 1, 8) OVER w, gpu_dbscan(g, 1, 9) OVER w,
                   gpu_dbscan(g, 1, 10) OVER w] AS one
      FROM (SELECT i, ST_MakePoint(i % 20 + (i / 97) * 0.3, i / 20) AS g
            FROM generate_series(0, 399) i WHERE (i * 13) % 7 <> 0) p
      WINDOW w AS (ORDER BY i)) s, generate_series(1, 10) k
GROUP BY k ORDER BY k;

-- bad arguments: gpu_dbscan's messages, element by element
SELECT gpu_dbscan_sweep(geom, -1, '{1}') OVER () FROM pts;
SELECT gpu_dbscan_sweep(geom, NULL, '{1}') OVER () FROM pts;
SELECT gpu_dbscan_sweep(geom, 1, '{1, -1}') OVER () FROM pts;
SELECT gpu_dbscan_sweep(geom, 1, '{1, NULL}') OVER () FROM pts;
SELECT gpu_dbscan_sweep(geom, 1, NULL) OVER () FROM pts;
SELECT gpu_dbscan_sweep(geom, 1, '{}') OVER () FROM pts;
SELECT gpu_dbscan_sweep(geom, 'NaN', '{1}') OVER () FROM pts;
SELECT gpu_dbscan_sweep(geom, 'NaN', '{-1}') OVER () FROM pts;
-- the session goes on
SELECT count(*) FROM (SELECT gpu_dbscan_sweep(geom, 1, '{1}') OVER () FROM pts) s;
