--
-- errors: bad parameters (PostGIS's own messages), NaN eps, mixed SRIDs,
-- NaN and infinite coordinates, an unusable GPU.  The session goes on after
-- every error.
--

CREATE TEMP TABLE pts (id int, geom geometry);
INSERT INTO pts VALUES (1, 'POINT (0 0)'), (2, 'POINT (0 1)'), (3, 'POINT (5 5)');

-- eps < 0 or NULL, minpoints < 0 or NULL: the messages of ST_ClusterDBSCAN
SELECT gpu_dbscan(geom, -1, 1) OVER () FROM pts;
SELECT ST_ClusterDBSCAN(geom, -1, 1) OVER () FROM pts;
SELECT gpu_dbscan(geom, NULL, 1) OVER () FROM pts;
SELECT ST_ClusterDBSCAN(geom, NULL, 1) OVER () FROM pts;
SELECT gpu_dbscan(geom, 1, -1) OVER () FROM pts;
SELECT ST_ClusterDBSCAN(geom, 1, -1) OVER () FROM pts;
SELECT gpu_dbscan(geom, 1, NULL) OVER () FROM pts;
SELECT ST_ClusterDBSCAN(geom, 1, NULL) OVER () FROM pts;
-- eps is checked first
SELECT gpu_dbscan(geom, -1, -1) OVER () FROM pts;
SELECT ST_ClusterDBSCAN(geom, -1, -1) OVER () FROM pts;
SELECT gpu_dbscan(geom, '-Infinity', 1) OVER () FROM pts;

-- NaN eps: PostGIS clusters nonsense (every point alone, or all noise); an error here
SELECT gpu_dbscan(geom, 'NaN', 1) OVER () FROM pts;
-- a bad minpoints is reported first, as PostGIS would
SELECT gpu_dbscan(geom, 'NaN', -1) OVER () FROM pts;

-- -0 is not negative
SELECT id, gpu_dbscan(geom, '-0', 1) OVER (ORDER BY id) FROM pts;

-- only the first row's parameters are checked
SELECT id, gpu_dbscan(geom, CASE WHEN id = 1 THEN 1 ELSE -1 END, 1) OVER (ORDER BY id) FROM pts;
SELECT id, gpu_dbscan(geom, CASE WHEN id = 1 THEN -1 ELSE 1 END, 1) OVER (ORDER BY id) FROM pts;

-- the session goes on
SELECT id, gpu_dbscan(geom, 1.5, 2) OVER (ORDER BY id) FROM pts;

-- an error in one partition stops the query
SELECT p, id, gpu_dbscan(geom, e, 1) OVER (PARTITION BY p ORDER BY id)
FROM (SELECT 1 AS p, 1.0 AS e, * FROM pts UNION ALL SELECT 2, -1.0, * FROM pts) s;

-- mixed SRIDs among the non-NULL rows of a partition (ST_ClusterDBSCAN
-- silently mixes coordinate systems)
SELECT gpu_dbscan(g, 1, 1) OVER (ORDER BY id)
FROM (VALUES (1, 'SRID=4326;POINT (0 0)'::geometry), (2, 'POINT (0 0.5)')) t(id, g);
SELECT gpu_dbscan(g, 1, 1) OVER (ORDER BY id)
FROM (VALUES (1, 'SRID=4326;POINT (0 0)'::geometry), (2, NULL), (3, 'SRID=3857;POINT EMPTY')) t(id, g);
SELECT gpu_dbscan(g, 1, 1) OVER (ORDER BY id)
FROM (VALUES (1, 'SRID=4326;POINT (0 0)'::geometry), (2, 'SRID=3857;LINESTRING (0 0, 1 1)')) t(id, g);
-- the same SRID everywhere, NULLs aside, is fine
SELECT id, gpu_dbscan(g, 1, 1) OVER (ORDER BY id)
FROM (VALUES (1, 'SRID=4326;POINT (0 0)'::geometry), (2, NULL), (3, 'SRID=4326;POINT EMPTY'),
             (4, 'SRID=4326;POINT (0 0.5)')) t(id, g);
-- different SRIDs in different partitions are fine
SELECT s, gpu_dbscan(g, 1, 1) OVER (PARTITION BY s)
FROM (VALUES (4326, 'SRID=4326;POINT (0 0)'::geometry), (3857, 'SRID=3857;POINT (0 0)')) t(s, g)
ORDER BY s;

-- NaN or infinite x or y
SELECT gpu_dbscan(g, 1, 1) OVER (ORDER BY id)
FROM (VALUES (1, 'POINT (0 0)'::geometry), (2, ST_MakePoint('NaN', 0))) t(id, g);
SELECT gpu_dbscan(g, 1, 1) OVER (ORDER BY id)
FROM (VALUES (1, ST_MakePoint(0, 'Infinity')), (2, 'POINT (0 0)'::geometry)) t(id, g);
SELECT gpu_dbscan(g, 1, 1) OVER (ORDER BY id)
FROM (VALUES (1, ST_MakePoint(0, 0)), (2, ST_MakeLine(ST_MakePoint(0, 0), ST_MakePoint('-Infinity', 1)))) t(id, g);
SELECT gpu_dbscan(g, 1, 1) OVER (ORDER BY id)
FROM (VALUES (1, ST_MakePoint(0, 0)),
             (2, ST_MakePolygon(ST_MakeLine(ARRAY[ST_MakePoint(0, 0), ST_MakePoint(1, 'NaN'),
                                                  ST_MakePoint(1, 1), ST_MakePoint(0, 0)])))) t(id, g);
-- the read floor checks the same
SELECT gpu_dbscan_read_floor(g) OVER ()
FROM (VALUES (ST_MakePoint('NaN', 'NaN'))) t(g);
-- NaN in Z or M does not matter: only x and y are read
SELECT gpu_dbscan(g, 1, 1) OVER (ORDER BY id)
FROM (VALUES (1, ST_MakePoint(0, 0, 'NaN')), (2, ST_MakePointM(0, 0.5, 'Infinity'))) t(id, g);

-- gpu_dbscan.backend = gpu: the GPU, or a clear error when there is none
DO $$
BEGIN
  SET LOCAL gpu_dbscan.backend = 'gpu';
  PERFORM gpu_dbscan(geom, 1, 1) OVER () FROM pts;
  RAISE NOTICE 'backend gpu: ran on the GPU or said why not';
EXCEPTION WHEN object_not_in_prerequisite_state THEN
  IF SQLERRM LIKE 'gpu_dbscan.backend is "gpu" but no usable GPU: _%' THEN
    RAISE NOTICE 'backend gpu: ran on the GPU or said why not';
  ELSE
    RAISE;
  END IF;
END $$;
-- auto with no row threshold: the GPU if there is one, else the CPU, same answer
SET gpu_dbscan.gpu_min_rows = 0;
SELECT id, gpu_dbscan(geom, 1.5, 2) OVER (ORDER BY id) FROM pts;
SELECT backend IN ('cpu', 'gpu') AS backend_ok FROM gpu_dbscan_last_run();
RESET gpu_dbscan.gpu_min_rows;
SET gpu_dbscan.backend = 'cpu';
SELECT id, gpu_dbscan(geom, 1.5, 2) OVER (ORDER BY id) FROM pts;
SELECT backend FROM gpu_dbscan_last_run();
RESET gpu_dbscan.backend;

-- and the session is still fine
SELECT id, gpu_dbscan(geom, 1.5, 2) OVER (ORDER BY id) FROM pts;
