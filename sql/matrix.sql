--
-- matrix: every form over float8[], POINT Z and geography (gpu_dbscan_point_type,
-- gpu_dbscan_sweep, gpu_dbscan_agg, gpu_dbscan_params overloaded; the _3d forms
-- for POINT Z).  Two clusters of four plus a border point and noise.
--
CREATE TABLE mx (id int, a float8[], z geometry, geog geography);
INSERT INTO mx VALUES
  (1, '{0, 0, 0}', 'POINT Z (0 0 0)', 'POINT(0 0)'),
  (2, '{0.5, 0, 0}', 'POINT Z (0.5 0 0)', 'POINT(0.005 0)'),
  (3, '{0, 0.5, 0}', 'POINT Z (0 0.5 0)', 'POINT(0 0.005)'),
  (4, '{0.5, 0.5, 0}', 'POINT Z (0.5 0.5 0)', 'POINT(0.005 0.005)'),
  (5, '{1.3, 0.5, 0}', 'POINT Z (1.3 0.5 0)', 'POINT(0.013 0.005)'),
  (6, NULL, NULL, NULL),
  (7, '{5, 5, 0}', 'POINT Z (5 5 0)', 'POINT(0.05 0.05)'),
  (8, '{5.5, 5, 0}', 'POINT Z (5.5 5 9)', 'POINT(0.055 0.05)'),
  (9, '{5, 5.5, 0}', 'POINT Z (5 5.5 0)', 'POINT(0.05 0.055)'),
  (10, '{5.5, 5.5, 0}', 'POINT Z (5.5 5.5 0)', 'POINT(0.055 0.055)'),
  (11, '{9, 0, 0}', 'POINT Z EMPTY', 'POINT EMPTY');

-- window functions: float8[] (eps 0.9), POINT Z (eps 0.9: row 8 is 9 above the others), geography (eps 1000 m)
SELECT id,
       gpu_dbscan_point_type(a, 0.9, 4) OVER w AS a_type, gpu_dbscan_sweep(a, 0.9, '{1, 4, 5}') OVER w AS a_sweep,
       gpu_dbscan_point_type(z, 0.9, 4) OVER w AS z_2d, gpu_dbscan_point_type_3d(z, 0.9, 4) OVER w AS z_type,
       gpu_dbscan_sweep_3d(z, 0.9, '{1, 4}') OVER w AS z_sweep,
       gpu_dbscan_point_type(geog, 1000, 4) OVER w AS g_type, gpu_dbscan_sweep(geog, 1000, '{1, 4}') OVER w AS g_sweep
FROM mx WINDOW w AS (ORDER BY id) ORDER BY id;

-- aggregates in input order, and their summaries
SELECT gpu_dbscan_agg(a, 0.9, 4 ORDER BY id) AS a_ids, gpu_dbscan_agg_3d(z, 0.9, 4 ORDER BY id) AS z_ids,
       gpu_dbscan_agg(geog, 1000, 4 ORDER BY id) AS g_ids
FROM mx;
SELECT 'float8[]' AS input, p.* FROM unnest((SELECT gpu_dbscan_params(a, '{0.9, 10}', '{4, 5}') FROM mx)) p
UNION ALL
SELECT 'POINT Z', p.* FROM unnest((SELECT gpu_dbscan_params_3d(z, '{0.9}', '{4}') FROM mx)) p
UNION ALL
SELECT 'geography', p.* FROM unnest((SELECT gpu_dbscan_params(geog, '{1000}', '{1, 4}') FROM mx)) p;

-- errors keep the messages of gpu_dbscan and gpu_dbscan_3d
SELECT gpu_dbscan_point_type_3d('POINT(1 1)'::geometry, 1, 2) OVER ();
SELECT gpu_dbscan_agg_3d('LINESTRING Z (0 0 0, 1 1 1)'::geometry, 1, 2);
SELECT gpu_dbscan_sweep(a, 1, '{{1, 2}}') OVER () FROM mx;
SELECT gpu_dbscan_sweep_3d(z, 1, '{}') OVER () FROM mx;
SELECT gpu_dbscan_params_3d(z, '{}', '{1}') FROM mx;
SELECT gpu_dbscan_params(a, '{1}', '{-1}') FROM mx;
SELECT gpu_dbscan_point_type(geog, 'NaN', 2) OVER () FROM mx;
SELECT gpu_dbscan_agg(a, 1, 2) FROM (VALUES ('{1, 2}'::float8[]), ('{1, 2, 3}')) v(a);
SELECT gpu_dbscan_agg('LINESTRING(0 0, 1 1)'::geography, 1000, 2);

DROP TABLE mx;
