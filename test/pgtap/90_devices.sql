-- Several GPUs: gpu_dbscan.devices and gpu_dbscan.multi_gpu_min_rows.  Bad
-- lists fail at SET time with a clear message; a valid list never changes
-- the ids.  Where a GPU is usable: a partition split over two logical
-- devices on GPU 0 ('0,0') gives the CPU's ids and gpu_dbscan_last_run_devices()
-- says where it ran; a device that does not exist is an error under
-- backend = gpu and the CPU under auto.  Without a GPU those are skipped.
\ir lib/prelude.sql

SELECT plan(27);

SELECT is((SELECT gpu_dbscan_last_run_devices()), NULL, 'gpu_dbscan_last_run_devices() is NULL before any call');
SELECT is((SELECT context || ' [' || boot_val || ']' FROM pg_settings WHERE name = 'gpu_dbscan.devices'),
		  'user []', 'gpu_dbscan.devices: a user setting, empty by default (gpu_dbscan.device alone)');
SELECT is((SELECT context || ' ' || boot_val FROM pg_settings WHERE name = 'gpu_dbscan.multi_gpu_min_rows'),
		  'user 0', 'gpu_dbscan.multi_gpu_min_rows: a user setting, 0 by default (from the budget)');

-- Syntax, at SET time.
SELECT lives_ok(format('SET LOCAL gpu_dbscan.devices = %L', v), format('devices = %L is accepted', v))
FROM unnest(ARRAY['all', 'ALL', '0', '0,1', ' 0 , 0 , 0 ', '']) v;
SELECT throws_ok(format('SET LOCAL gpu_dbscan.devices = %L', v), '22023',
				 format('invalid value for parameter "gpu_dbscan.devices": "%s"', v),
				 format('devices = %L fails at SET time', v))
FROM unnest(ARRAY['x', '0,,1', '-1', '1024', 'all,0']) v;
SELECT is(gd_test.error_of($$SET LOCAL gpu_dbscan.devices = 'gpu1'$$),
		  '22023 invalid value for parameter "gpu_dbscan.devices": "gpu1": "gpu1" is not a device ordinal: write ordinals (0, 1, ...) separated by commas, or all.',
		  'a bad item is named in the detail');

-- Synthetic points, wide along x so that strips are narrow.
CREATE TEMP TABLE dev_pts AS
SELECT i AS id, ST_MakePoint(random() * 2000, random() * 50) AS geom
FROM (SELECT setseed(0.25)) s, generate_series(1, 60000) i;

CREATE FUNCTION pg_temp.labels_with(settings text[], eps float8, minpoints int)
RETURNS int[] LANGUAGE plpgsql AS $$
DECLARE
	saved	text[] := '{}';
	result	int[];
BEGIN
	FOR i IN 1 .. coalesce(array_length(settings, 1), 0) BY 2 LOOP
		saved := saved || ARRAY[settings[i], current_setting(settings[i])];
		PERFORM set_config(settings[i], settings[i + 1], true);
	END LOOP;
	result := gd_test.labels('dev_pts', eps, minpoints);
	FOR i IN 1 .. coalesce(array_length(saved, 1), 0) BY 2 LOOP
		PERFORM set_config(saved[i], saved[i + 1], true);
	END LOOP;
	RETURN result;
END
$$;

CREATE TEMP TABLE cpu_ids AS
SELECT pg_temp.labels_with(ARRAY['gpu_dbscan.backend', 'cpu'], 1.0, 4) AS ids;
SELECT is(pg_temp.labels_with(ARRAY['gpu_dbscan.backend', 'cpu', 'gpu_dbscan.devices', '0,1023'], 1.0, 4),
		  (SELECT ids FROM cpu_ids), 'backend cpu ignores the device list');
SELECT is((SELECT gpu_dbscan_last_run_devices()), NULL, 'a CPU run has no devices');

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
SELECT diag('a GPU is usable: partitions are split over logical devices of GPU 0');
SELECT is(pg_temp.labels_with(ARRAY['gpu_dbscan.backend', 'gpu', 'gpu_dbscan.devices', '0,0',
									'gpu_dbscan.multi_gpu_min_rows', '1000'], 1.0, 4),
		  (SELECT ids FROM cpu_ids), 'devices 0,0: the split gives the CPU''s ids');
SELECT is((SELECT gpu_dbscan_last_run_devices()), '{0,0}'::int[], 'last_run_devices: both logical devices');
SELECT ok((SELECT l.backend = 'gpu' AND l.strips >= 4 FROM gpu_dbscan_last_run() l),
		  'last_run: a GPU run in strips, at least two a device');
-- Under a budget too small for one piece, the default threshold splits.
SELECT is(pg_temp.labels_with(ARRAY['gpu_dbscan.backend', 'gpu', 'gpu_dbscan.devices', '0,0,0',
									'gpu_dbscan.device_memory_budget', '2MB'], 1.0, 4),
		  (SELECT ids FROM cpu_ids), 'devices 0,0,0 under a 2 MB budget: the CPU''s ids');
SELECT is((SELECT gpu_dbscan_last_run_devices()), '{0,0,0}'::int[], 'last_run_devices: three logical devices');
SELECT is(pg_temp.labels_with(ARRAY['gpu_dbscan.backend', 'gpu', 'gpu_dbscan.devices', 'all'], 1.0, 4),
		  (SELECT ids FROM cpu_ids), 'devices all, below the threshold: one device, the CPU''s ids');
SELECT is((SELECT array_length(gpu_dbscan_last_run_devices(), 1)), 1, 'last_run_devices: one device');
SELECT throws_like($$SELECT pg_temp.labels_with(ARRAY['gpu_dbscan.backend', 'gpu', 'gpu_dbscan.devices', '0,1023'], 1.0, 4)$$,
				   '%CUDA device 1023 of gpu_dbscan.devices does not exist%',
				   'backend gpu: a device that does not exist is an error at run time');
SELECT is(pg_temp.labels_with(ARRAY['gpu_dbscan.backend', 'auto', 'gpu_dbscan.gpu_min_rows', '0',
									'gpu_dbscan.devices', '0,1023'], 1.0, 4),
		  (SELECT ids FROM cpu_ids), 'backend auto: a device that does not exist, the CPU (with a NOTICE)');
SELECT is((SELECT l.backend FROM gpu_dbscan_last_run() l), 'cpu', 'and the run is reported on the CPU');
\else
SELECT diag('no usable GPU (' || :'gpu_message' || '): the GPU parts are skipped');
SELECT skip('no usable GPU', 10);
\endif

SELECT * FROM finish();
ROLLBACK;
