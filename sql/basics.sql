--
-- basics: PostGIS's own ST_ClusterDBSCAN cases (regress/core/cluster.sql
-- t101-t103), id numbering, PARTITION BY, Z/M, the helper functions, the
-- settings, and the function declarations.
--

\i sql/include/same_clusters.sql

CREATE TEMP TABLE dbscan_inputs (id int, geom geometry);
INSERT INTO dbscan_inputs VALUES
(1, 'POINT (0 0)'),
(2, 'POINT (0 1)'),
(3, 'POINT (-0.5 0.5)'),
(4, 'POINT (1 0)'),
(5, 'POINT (1 1)'),
(6, 'POINT (1.0 0.5)');

-- t101: minpoints = 1, equivalent to ST_ClusterWithin
SELECT 't101', id, gpu_dbscan(geom, eps := 0.8, minpoints := 1) OVER w,
       ST_ClusterDBSCAN(geom, eps := 0.8, minpoints := 1) OVER w
FROM dbscan_inputs WINDOW w AS (ORDER BY id);

-- t102: minpoints = 4, no clusters
SELECT 't102', id, gpu_dbscan(geom, eps := 0.8, minpoints := 4) OVER w,
       ST_ClusterDBSCAN(geom, eps := 0.8, minpoints := 4) OVER w
FROM dbscan_inputs WINDOW w AS (ORDER BY id);

-- t103: minpoints = 3, but eps too small to form the cluster on the left
SELECT 't103', id, gpu_dbscan(geom, eps := 0.6, minpoints := 3) OVER w,
       ST_ClusterDBSCAN(geom, eps := 0.6, minpoints := 3) OVER w
FROM dbscan_inputs WINDOW w AS (ORDER BY id);

-- positional arguments, and OVER () takes the rows in input order
SELECT id, gpu_dbscan(geom, 0.8, 1) OVER () FROM (SELECT * FROM dbscan_inputs ORDER BY id) s;

-- ids are 0..k-1, numbered by each cluster's first row in partition order
-- (ST_ClusterDBSCAN numbers differently; the clusters are the same)
SELECT id, gpu_dbscan(geom, 0.8, 1) OVER w AS gpu,
       ST_ClusterDBSCAN(geom, 0.8, 1) OVER w AS postgis
FROM dbscan_inputs WINDOW w AS (ORDER BY id DESC) ORDER BY id DESC;

-- PARTITION BY: each partition is clustered alone, ids restart at 0
SELECT part, id, gpu_dbscan(geom, 0.8, 2) OVER w,
       ST_ClusterDBSCAN(geom, 0.8, 2) OVER w
FROM (SELECT id % 2 AS part, id, geom FROM dbscan_inputs) s
WINDOW w AS (PARTITION BY part ORDER BY id) ORDER BY part, id;

-- several partitions, compared with ST_ClusterDBSCAN
SELECT part, pg_temp.same_clusters(array_agg(a ORDER BY id), array_agg(b ORDER BY id))
FROM (SELECT part, id, gpu_dbscan(geom, 1.5, 3) OVER w AS a, ST_ClusterDBSCAN(geom, 1.5, 3) OVER w AS b
      FROM (SELECT i % 3 AS part, i AS id,
                   ST_MakePoint((i * 7919) % 101 / 10.0, (i * 104729) % 97 / 10.0) AS geom
            FROM generate_series(1, 300) i) s
      WINDOW w AS (PARTITION BY part ORDER BY id)) r
GROUP BY part ORDER BY part;

-- Z and M are ignored: only x and y count
SELECT id, gpu_dbscan(g, 0.6, 2) OVER w, ST_ClusterDBSCAN(g, 0.6, 2) OVER w
FROM (VALUES (1, 'POINT Z (0 0 100)'::geometry), (2, 'POINT M (0 0.5 -100)'),
             (3, 'POINT ZM (0.5 0.5 1 2)'), (4, 'POINT (3 3)'), (5, 'POINT Z (3 3.5 1e300)')) t(id, g)
WINDOW w AS (ORDER BY id);

-- parameters come from the partition's first row
SELECT id, gpu_dbscan(geom, e, m) OVER w, ST_ClusterDBSCAN(geom, e, m) OVER w
FROM (SELECT id, geom, CASE WHEN id = 1 THEN 0.8 ELSE 0.1 END AS e,
             CASE WHEN id = 1 THEN 1 ELSE 100 END AS m FROM dbscan_inputs) s
WINDOW w AS (ORDER BY id);

-- the read floor reads every row and returns 0
SELECT id, gpu_dbscan_read_floor(geom) OVER (ORDER BY id) FROM dbscan_inputs;
SELECT count(*), sum(f)
FROM (SELECT gpu_dbscan_read_floor(g) OVER () AS f
      FROM (SELECT ST_MakePoint(i, i) AS g FROM generate_series(1, 10000) i
            UNION ALL SELECT NULL UNION ALL SELECT 'POINT EMPTY'
            UNION ALL SELECT 'LINESTRING(0 0, 1 1)') s) r;

-- gpu_dbscan_last_run(): the last partition clustered in this session
SELECT count(c) FROM (SELECT gpu_dbscan(geom, 0.8, 1) OVER () AS c FROM dbscan_inputs) s;
SELECT backend IN ('cpu', 'gpu') AS backend_ok, rows, points,
       total_ms >= 0 AS timed, transfer_ms >= 0 AND sort_ms >= 0 AND core_ms >= 0
       AND union_ms >= 0 AND label_ms >= 0 AS phases_ok
FROM gpu_dbscan_last_run();

-- the settings and their defaults (gpu_dbscan.gpu_worker exists only where
-- the library is preloaded)
SELECT name, boot_val, unit, context, vartype, enumvals
FROM pg_settings WHERE name LIKE 'gpu\_dbscan.%' AND name <> 'gpu_dbscan.gpu_worker' ORDER BY name;
SET gpu_dbscan.device_memory_budget = '2GB';
SHOW gpu_dbscan.device_memory_budget;
RESET gpu_dbscan.device_memory_budget;
SET gpu_dbscan.backend = 'tpu';
SET gpu_dbscan.threads = -1;
SET gpu_dbscan.no_such_setting = 1;

-- the answer does not depend on the CPU thread count
SET gpu_dbscan.backend = 'cpu';
SET gpu_dbscan.threads = 1;
SELECT pg_temp.same_clusters(array_agg(a ORDER BY id), array_agg(b ORDER BY id))
FROM (SELECT id, gpu_dbscan(g, 0.5, 4) OVER w AS a, ST_ClusterDBSCAN(g, 0.5, 4) OVER w AS b
      FROM (SELECT i AS id, ST_MakePoint((i * 7919) % 211 / 10.0, (i * 104729) % 199 / 10.0) AS g
            FROM generate_series(1, 2000) i) s WINDOW w AS (ORDER BY id)) r;
SET gpu_dbscan.threads = 3;
SELECT pg_temp.same_clusters(array_agg(a ORDER BY id), array_agg(b ORDER BY id))
FROM (SELECT id, gpu_dbscan(g, 0.5, 4) OVER w AS a, ST_ClusterDBSCAN(g, 0.5, 4) OVER w AS b
      FROM (SELECT i AS id, ST_MakePoint((i * 7919) % 211 / 10.0, (i * 104729) % 199 / 10.0) AS g
            FROM generate_series(1, 2000) i) s WINDOW w AS (ORDER BY id)) r;
RESET gpu_dbscan.threads;
RESET gpu_dbscan.backend;

-- declarations: window functions, volatility, parallel safety, comments
SELECT p.proname, p.prokind, p.provolatile, p.proparallel, p.proisstrict,
       p.proargtypes::regtype[] AS args, p.prorettype::regtype AS returns,
       obj_description(p.oid, 'pg_proc') IS NOT NULL AS has_comment
FROM pg_proc p JOIN pg_depend d ON d.objid = p.oid AND d.classid = 'pg_proc'::regclass
JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'gpu_dbscan'
ORDER BY p.proname, p.proargtypes::regtype[]::text COLLATE "C";

-- a window function needs OVER: PostgreSQL's own error
SELECT gpu_dbscan(geom, 0.8, 1) FROM dbscan_inputs;
SELECT gpu_dbscan_read_floor(geom) FROM dbscan_inputs;
-- and the session goes on
SELECT count(c) FROM (SELECT gpu_dbscan(geom, 0.8, 1) OVER () AS c FROM dbscan_inputs) s;
