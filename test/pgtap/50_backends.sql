-- Back ends and settings: the settings choose where the work runs, never the
-- answer.  backend = 'cpu' and 'auto' (and 'gpu' where a GPU is usable) give
-- identical ids; so do thread counts and device memory budgets.  Without a
-- usable GPU, backend = 'gpu' fails with a clear error.  gpu_dbscan_last_run()
-- and gpu_dbscan_read_floor() report what they should.
\ir lib/prelude.sql

SELECT plan(50);

-- A fresh session has run nothing yet (this also loads the module, so the
-- gpu_dbscan.* settings exist from here on).
SELECT is((SELECT l.backend FROM gpu_dbscan_last_run() l), NULL, 'gpu_dbscan_last_run() is NULL before any call');

-- Built-in defaults (boot values: a session may run with PGOPTIONS that set others).
SELECT is((SELECT boot_val FROM pg_settings WHERE name = 'gpu_dbscan.' || n), v,
		  format('gpu_dbscan.%s defaults to %s', n, v))
FROM (VALUES ('backend', 'auto'), ('gpu_min_rows', '10000'), ('threads', '0'), ('device', '0'),
			 ('device_memory_budget', '0')) d(n, v);

-- Sets settings (name, value, name, value, ...) for the transaction;
-- returns the previous values in the same layout, to be set back with it.
CREATE FUNCTION pg_temp.set_local(settings text[]) RETURNS text[]
LANGUAGE plpgsql AS $$
DECLARE
	saved	text[] := '{}';
BEGIN
	FOR i IN 1 .. coalesce(array_length(settings, 1), 0) BY 2 LOOP
		saved := saved || ARRAY[settings[i], current_setting(settings[i])];
		PERFORM set_config(settings[i], settings[i + 1], true);
	END LOOP;
	RETURN saved;
END
$$;

-- Runs gd_test.labels with settings in force, then puts the previous values back.
CREATE FUNCTION pg_temp.labels_with(settings text[], src text, eps float8, minpoints int,
									part text DEFAULT 'NULL::int')
RETURNS int[] LANGUAGE plpgsql AS $$
DECLARE
	saved	text[] := pg_temp.set_local(settings);
	result	int[];
BEGIN
	result := gd_test.labels(src, eps, minpoints, part);
	PERFORM pg_temp.set_local(saved);
	RETURN result;
END
$$;

-- Is a GPU usable?  Ask for it and see.
CREATE FUNCTION pg_temp.gpu_probe(OUT usable boolean, OUT message text)
LANGUAGE plpgsql SET gpu_dbscan.backend = 'gpu' AS $$
BEGIN
	PERFORM gpu_dbscan(geom, 1, 2) OVER () FROM (VALUES ('POINT(0 0)'::geometry), ('POINT(0 1)')) v(geom);
	usable := true;
EXCEPTION WHEN OTHERS THEN
	usable := false;
	message := SQLERRM;
END
$$;
SELECT usable AS gpu_usable, coalesce(message, '') AS gpu_message FROM pg_temp.gpu_probe() \gset
\if :gpu_usable
SELECT diag('a GPU is usable: the GPU path is compared with the CPU path');
SELECT skip('a GPU is usable, so backend = ''gpu'' does not fail', 4);
\else
SELECT diag('no usable GPU (' || :'gpu_message' || '): GPU comparisons are skipped');
SELECT throws_like($$SET LOCAL gpu_dbscan.backend = 'gpu';
					 SELECT gpu_dbscan(geom, 1, 2) OVER () FROM (VALUES ('POINT(0 0)'::geometry)) v(geom)$$,
				   'gpu_dbscan.backend is "gpu" but no usable GPU: %',
				   'backend = ''gpu'' without a usable GPU: a clear error');
SELECT throws_like($$SET LOCAL gpu_dbscan.backend = 'gpu';
					 SELECT gpu_dbscan_3d(geom, 1, 2) OVER () FROM (VALUES ('POINT Z (0 0 0)'::geometry)) v(geom)$$,
				   'gpu_dbscan.backend is "gpu" but no usable GPU: %',
				   'backend = ''gpu'' without a usable GPU, POINT Z rows: a clear error');
SELECT throws_like($$SET LOCAL gpu_dbscan.backend = 'gpu';
					 SELECT gpu_dbscan(g, 1000, 2) OVER () FROM (VALUES ('POINT(0 0)'::geography), ('POINT(0 0.001)')) v(g)$$,
				   'gpu_dbscan.backend is "gpu" but no usable GPU: %',
				   'backend = ''gpu'' without a usable GPU, geography (its pair search): a clear error');
SELECT throws_like($$SET LOCAL gpu_dbscan.backend = 'gpu';
					 SELECT gpu_dbscan(g, 1, 1) OVER () FROM (VALUES ('LINESTRING(0 0, 1 1)'::geometry), ('POINT(0 0.001)')) v(g)$$,
				   'gpu_dbscan.backend is "gpu" but no usable GPU: %',
				   'backend = ''gpu'' without a usable GPU, lines (their pair search): a clear error');
\endif

-- Data sets for the comparisons.
INSERT INTO gd_test.pts (ds, id, geom) SELECT 1, id, geom FROM gd_test.gen_uniform(0.41, 50000, 100) g;
INSERT INTO gd_test.pts (ds, id, geom) SELECT 2, id, geom FROM gd_test.gen_blobs(0.42, 30000, 20, 1, 0.2, 100) g;
INSERT INTO gd_test.pts (ds, id, geom) SELECT 3, id, geom FROM gd_test.gen_lonlat(0.43, 20000, 2.35, 48.85, 1e-6, 400) g;
INSERT INTO gd_test.pts (ds, id, geom) SELECT 4, id, geom FROM gd_test.gen_duplicates(0.44, 10000, 40, 0.5) g;
INSERT INTO gd_test.pts (ds, id, geom) SELECT 5, id, geom FROM gd_test.gen_shapes(0.45, 600, 50, 3) g;
INSERT INTO gd_test.pts (ds, part, id, geom)
SELECT 6, p, g.id, g.geom FROM generate_series(1, 4) p, LATERAL gd_test.gen_blobs(0.46 + p / 100.0, 2500 * p, 5, 1, 0.1, 60) g;
DO $$ BEGIN PERFORM gd_test.sprinkle(ds, 0.02, 0.02) FROM (VALUES (2), (4), (6)) v(ds); END $$;
ANALYZE gd_test.pts;

CREATE TEMP TABLE runs (ds int, eps float8, minpoints int, part text DEFAULT 'NULL::int');
INSERT INTO runs (ds, eps, minpoints) VALUES (1, 0.5, 5), (2, 0.3, 10), (3, 2e-6, 3), (4, 0, 50), (5, 1, 2);
INSERT INTO runs VALUES (6, 0.4, 5, 'part');

SELECT is(pg_temp.labels_with(ARRAY['gpu_dbscan.backend', 'auto', 'gpu_dbscan.gpu_min_rows', '0'],
							  gd_test.ds(ds), eps, minpoints, part),
		  pg_temp.labels_with(ARRAY['gpu_dbscan.backend', 'cpu'], gd_test.ds(ds), eps, minpoints, part),
		  format('ds %s: backend auto (gpu_min_rows 0) and cpu give identical ids', ds))
FROM runs ORDER BY ds;

SELECT is(pg_temp.labels_with(ARRAY['gpu_dbscan.backend', 'cpu', 'gpu_dbscan.threads', t],
							  gd_test.ds(ds), eps, minpoints, part),
		  pg_temp.labels_with(ARRAY['gpu_dbscan.backend', 'cpu', 'gpu_dbscan.threads', '0'],
							  gd_test.ds(ds), eps, minpoints, part),
		  format('ds %s: %s thread(s) and every core give identical ids', ds, t))
FROM runs, (VALUES ('1'), ('3')) v(t) WHERE ds IN (1, 2) ORDER BY ds, t;

SELECT is(pg_temp.labels_with(ARRAY['gpu_dbscan.backend', 'auto', 'gpu_dbscan.gpu_min_rows', '6000'],
							  gd_test.ds(6), 0.4, 5, 'part'),
		  pg_temp.labels_with(ARRAY['gpu_dbscan.backend', 'cpu'], gd_test.ds(6), 0.4, 5, 'part'),
		  'partitions on both sides of gpu_min_rows: identical ids');

\if :gpu_usable
SELECT is(pg_temp.labels_with(ARRAY['gpu_dbscan.backend', 'gpu'], gd_test.ds(ds), eps, minpoints, part),
		  pg_temp.labels_with(ARRAY['gpu_dbscan.backend', 'cpu'], gd_test.ds(ds), eps, minpoints, part),
		  format('ds %s: backend gpu and cpu give identical ids', ds))
FROM runs ORDER BY ds;
SELECT is(pg_temp.labels_with(ARRAY['gpu_dbscan.backend', 'gpu', 'gpu_dbscan.device_memory_budget', '16MB'],
							  gd_test.ds(1), 0.5, 5),
		  pg_temp.labels_with(ARRAY['gpu_dbscan.backend', 'cpu'], gd_test.ds(1), 0.5, 5),
		  'backend gpu with a 16 MB device budget (batches) and cpu give identical ids');
-- 200,000 points need about 9.6 MB for the sort stage alone: under a 4 MB
-- budget the GPU back end clusters them in strips (cuda/strips.cu).
CREATE TEMP TABLE wide_pts AS
SELECT i AS id, ST_MakePoint(random() * 2000, random() * 100) AS geom
FROM (SELECT setseed(0.5)) s, generate_series(1, 200000) i;
SELECT is(pg_temp.labels_with(ARRAY['gpu_dbscan.backend', 'gpu', 'gpu_dbscan.device_memory_budget', '4MB'],
							  'wide_pts', 1.0, 4),
		  pg_temp.labels_with(ARRAY['gpu_dbscan.backend', 'cpu'], 'wide_pts', 1.0, 4),
		  'backend gpu under a 4 MB budget (strips) and cpu give identical ids');
SELECT is(pg_temp.labels_with(ARRAY['gpu_dbscan.backend', 'gpu', 'gpu_dbscan.device_memory_budget', '4MB'],
							  'wide_pts', 1.0, 4) IS NOT NULL
		  AND (SELECT l.backend = 'gpu' AND l.strips >= 2 FROM gpu_dbscan_last_run() l),
		  true, 'gpu_dbscan_last_run() reports the strips');
-- Points of three and more coordinates on the GPU (cuda/nd_dbscan.cu): ids
-- and point types of POINT Z and float8[] rows, NULL and EMPTY rows among
-- them, as the CPU gives them.
CREATE TEMP TABLE nd_pts AS
SELECT i AS id,
	   CASE WHEN i % 211 = 0 THEN NULL
			WHEN i % 199 = 0 THEN 'POINT Z EMPTY'::geometry
			ELSE ST_MakePoint(c * 7 + random(), (c % 3) * 5 + random(), random() * 3) END AS geom,
	   CASE WHEN i % 211 = 0 THEN NULL
			ELSE ARRAY[c * 7 + random(), random(), random(), random(), (c % 2) * 3 + random()] END AS arr
FROM (SELECT setseed(0.6)) s, generate_series(1, 30000) i, LATERAL (SELECT i % 9 AS c) k;
-- expr over tbl with settings (name, value, ...) in force for the query.
CREATE FUNCTION pg_temp.nd_answer(settings text[], expr text, tbl text DEFAULT 'nd_pts')
RETURNS text[] LANGUAGE plpgsql AS $$
DECLARE
	saved	text[] := pg_temp.set_local(settings);
	result	text[];
BEGIN
	EXECUTE format('SELECT array_agg(c::text ORDER BY id) FROM (SELECT id, %s OVER (ORDER BY id) c FROM %I) s',
				   expr, tbl)
		INTO result;
	PERFORM pg_temp.set_local(saved);
	RETURN result;
END
$$;
SELECT is(pg_temp.nd_answer(ARRAY['gpu_dbscan.backend', 'gpu'], e),
		  pg_temp.nd_answer(ARRAY['gpu_dbscan.backend', 'cpu'], e), format('%s: backend gpu and cpu agree', e))
FROM (VALUES ('gpu_dbscan_3d(geom, 0.15, 6)'), ('gpu_dbscan_point_type_3d(geom, 0.15, 6)'),
			 ('gpu_dbscan(arr, 0.3, 4)'), ('gpu_dbscan_point_type(arr, 0.3, 4)')) v(e);
-- (the query first, in a statement of its own: last_run() is read after it)
SELECT array_length(pg_temp.nd_answer(ARRAY['gpu_dbscan.backend', 'gpu'], 'gpu_dbscan_3d(geom, 0.15, 6)'), 1)
	AS nd_rows \gset
SELECT is((SELECT format('%s rows, %s, %s points', :nd_rows, l.backend, l.points) FROM gpu_dbscan_last_run() l),
		  (SELECT format('30000 rows, gpu, %s points', count(*)) FROM nd_pts WHERE NOT ST_IsEmpty(geom)),
		  'gpu_dbscan_last_run() says a POINT Z partition ran on the GPU');
SELECT is(pg_temp.nd_answer(ARRAY['gpu_dbscan.backend', 'auto', 'gpu_dbscan.gpu_min_rows', '0',
								  'gpu_dbscan.device_memory_budget', '1MB',
								  'client_min_messages', 'warning'], 'gpu_dbscan_3d(geom, 0.15, 6)'),
		  pg_temp.nd_answer(ARRAY['gpu_dbscan.backend', 'cpu'], 'gpu_dbscan_3d(geom, 0.15, 6)'),
		  'POINT Z under a device budget too small: auto falls back to the CPU''s answer');
-- Geography points and non-point geometry: their pairs searched on the GPU
-- (chords on the unit sphere, cuda/nd_dbscan.cu; boxes, cuda/box_pairs.cu),
-- each decided by PostGIS as on the CPU.
CREATE TEMP TABLE pair_rows AS
SELECT i AS id,
	   CASE WHEN i % 97 = 0 THEN NULL
			ELSE ST_SetSRID(ST_MakePoint((i % 7) * 50 - 170 + random() * 0.5,
										 (i % 5) * 30 - 70 + random() * 0.5), 4326)::geography END AS geog,
	   CASE WHEN i % 89 = 0 THEN NULL
			WHEN i % 3 = 0 THEN ST_Buffer(ST_MakePoint(random() * 100, random() * 100), random() * 0.5, 2)
			WHEN i % 3 = 1 THEN ST_MakeLine(ST_MakePoint(x, y), ST_MakePoint(x + random() * 3, y + random()))
			ELSE ST_MakePoint(x, y) END AS shape
FROM (SELECT setseed(0.7)) s, generate_series(1, 20000) i,
	 LATERAL (SELECT random() * 100 + i * 0 AS x, random() * 100 + i * 0 AS y) c;
SELECT is(pg_temp.nd_answer(ARRAY['gpu_dbscan.backend', 'gpu'], e, 'pair_rows'),
		  pg_temp.nd_answer(ARRAY['gpu_dbscan.backend', 'cpu'], e, 'pair_rows'),
		  format('%s: backend gpu and cpu agree', e))
FROM (VALUES ('gpu_dbscan(geog, 2000, 4)'), ('gpu_dbscan_point_type(geog, 2000, 4)'),
			 ('gpu_dbscan_sweep(geog, 3000, ''{1,4,9}'')'),
			 -- (hundreds of pairs a point: the band, then the unit vectors as 3-D points)
			 ('gpu_dbscan(geog, 30000, 4)'), ('gpu_dbscan_sweep(geog, 30000, ''{2,50}'')'),
			 ('gpu_dbscan(shape, 0.5, 4)'), ('gpu_dbscan_point_type(shape, 0.5, 4)')) v(e);
SELECT array_length(pg_temp.nd_answer(ARRAY['gpu_dbscan.backend', 'gpu'], 'gpu_dbscan(geog, 2000, 4)',
									  'pair_rows'), 1) AS pair_rows \gset
SELECT is((SELECT format('%s rows, %s', :pair_rows, l.backend) FROM gpu_dbscan_last_run() l),
		  '20000 rows, gpu', 'gpu_dbscan_last_run() says a geography partition''s pairs were searched on the GPU');
SELECT array_length(pg_temp.nd_answer(ARRAY['gpu_dbscan.backend', 'gpu'], 'gpu_dbscan(shape, 0.5, 4)',
									  'pair_rows'), 1) AS pair_rows \gset
SELECT is((SELECT format('%s rows, %s', :pair_rows, l.backend) FROM gpu_dbscan_last_run() l),
		  '20000 rows, gpu', 'gpu_dbscan_last_run() says a non-point partition''s pairs were searched on the GPU');
\else
SELECT skip('no usable GPU', 24);
\endif

-- gpu_dbscan_last_run() describes the last partition clustered.
SELECT is(pg_temp.labels_with(ARRAY['gpu_dbscan.backend', 'cpu'], gd_test.ds(2), 0.3, 10)
		  IS NOT NULL, true, 'a CPU run');
SELECT is((SELECT format('%s, %s rows, %s points', l.backend, l.rows, l.points) FROM gpu_dbscan_last_run() l),
		  (SELECT format('cpu, %s rows, %s points', count(*), count(*) FILTER (WHERE NOT ST_IsEmpty(geom)))
		   FROM gd_test.pts WHERE ds = 2),
		  'last_run: backend cpu, rows of the partition, non-empty points');
SELECT ok((SELECT l.total_ms >= 0 AND l.cells > 0 FROM gpu_dbscan_last_run() l), 'last_run: cells and total time');
-- (gpu_min_rows set above the partition's rows: the default, 10000, is below
-- the larger data sets, and on a GPU machine auto would rightly use the GPU.)
SELECT is(pg_temp.labels_with(ARRAY['gpu_dbscan.backend', 'auto',
									'gpu_dbscan.gpu_min_rows', ((SELECT count(*) FROM gd_test.pts WHERE ds = 4) + 1)::text],
							  gd_test.ds(4), 0, 50) IS NOT NULL
		  AND (SELECT l.backend FROM gpu_dbscan_last_run() l) = 'cpu',
		  true, 'auto sends a partition below gpu_min_rows to the CPU');

-- The read floor reads every row and clusters nothing.
SELECT is((SELECT array_agg(DISTINCT f) FROM (SELECT gpu_dbscan_read_floor(geom) OVER () f
											  FROM gd_test.pts WHERE ds = 2 AND geom IS NOT NULL) s),
		  ARRAY[0], 'gpu_dbscan_read_floor() returns 0 for every row');

SELECT * FROM finish();
ROLLBACK;
