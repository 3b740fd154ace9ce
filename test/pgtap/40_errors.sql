-- Every bad input gets its error, and the server stays up: the
-- checkpointer's pid (lib/server_watch.sql) and this backend's pid are the
-- same at the end.
\ir lib/prelude.sql

\ir lib/server_watch.sql

SELECT plan(43);

CREATE TEMP TABLE ok_rows AS
SELECT * FROM (VALUES (1, 'POINT(0 0)'::geometry), (2, 'POINT(0.5 0)'), (3, 'POINT(9 9)')) v(id, geom);

CREATE FUNCTION pg_temp.q(geoms text, eps text, minpoints text, fn text DEFAULT 'gpu_dbscan')
RETURNS text LANGUAGE sql AS $$
	SELECT format('SELECT %s(geom, %s, %s) OVER (ORDER BY id) FROM (%s) s(id, geom)',
				  fn, eps, minpoints, geoms)
$$;

-- eps and minpoints: PostGIS's own messages (and its checks: negative or NULL).
SELECT throws_ok(pg_temp.q('TABLE ok_rows', '-1', '2'), '22023', 'Tolerance must be a positive number',
				 'negative eps');
SELECT throws_ok(pg_temp.q('TABLE ok_rows', '-1e-300', '2'), '22023', 'Tolerance must be a positive number',
				 'tiny negative eps');
SELECT throws_ok(pg_temp.q('TABLE ok_rows', '''-Infinity''', '2'), '22023', 'Tolerance must be a positive number',
				 '-Infinity eps');
SELECT throws_ok(pg_temp.q('TABLE ok_rows', 'NULL', '2'), '22023', 'Tolerance must be a positive number',
				 'NULL eps');
SELECT throws_ok(pg_temp.q('TABLE ok_rows', '1', '-1'), '22023', 'Minpoints must be a positive number',
				 'negative minpoints');
SELECT throws_ok(pg_temp.q('TABLE ok_rows', '1', 'NULL'), '22023', 'Minpoints must be a positive number',
				 'NULL minpoints');
SELECT throws_ok(pg_temp.q('TABLE ok_rows', '1', '-2147483648'), '22023', 'Minpoints must be a positive number',
				 'minpoints -2^31');
SELECT throws_ok(pg_temp.q('TABLE ok_rows', '-1', '2', 'ST_ClusterDBSCAN'), 'Tolerance must be a positive number',
				 'ST_ClusterDBSCAN has the same message for a negative eps');
SELECT throws_ok(pg_temp.q('TABLE ok_rows', '1', 'NULL', 'ST_ClusterDBSCAN'), 'Minpoints must be a positive number',
				 'ST_ClusterDBSCAN has the same message for a NULL minpoints');
SELECT throws_ok(pg_temp.q('TABLE ok_rows', '''NaN''', '2'), '22023', 'Tolerance must be a number, not NaN',
				 'NaN eps');
SELECT throws_ok(pg_temp.q('TABLE ok_rows', '''NaN''', '0'), '22023', 'Tolerance must be a number, not NaN',
				 'NaN eps, minpoints 0');
-- eps and minpoints of the first row decide: a bad value later is not read.
SELECT lives_ok($$SELECT gpu_dbscan(geom, CASE WHEN id = 1 THEN 1 ELSE -1 END, CASE WHEN id = 1 THEN 2 END)
					OVER (ORDER BY id) FROM ok_rows$$,
				'a negative eps or NULL minpoints after the first row is never read');
SELECT throws_ok($$SELECT gpu_dbscan(geom, CASE WHEN id = 1 THEN -1 ELSE 1 END, 2)
					 OVER (ORDER BY id) FROM ok_rows$$, '22023', 'Tolerance must be a positive number',
				 'a negative eps in the first row');
SELECT throws_ok($$SELECT gpu_dbscan(geom, 1, 2) OVER (PARTITION BY id > 1 ORDER BY id)
					 FROM (SELECT 1, 'POINT(0 0)'::geometry UNION ALL SELECT 2, ST_MakePoint('NaN', 1)) s(id, geom)$$,
				 '22023', 'gpu_dbscan: geometry has a NaN or infinite coordinate',
				 'a bad row in the second partition');

-- Coordinates.
SELECT throws_ok(pg_temp.q($$VALUES (1, 'POINT(0 0)'::geometry), (2, ST_MakePoint('NaN', 0))$$, '1', '1'),
				 '22023', 'gpu_dbscan: geometry has a NaN or infinite coordinate', 'NaN x');
SELECT throws_ok(pg_temp.q($$VALUES (1, ST_MakePoint(0, 'NaN'))$$, '1', '0'),
				 '22023', 'gpu_dbscan: geometry has a NaN or infinite coordinate', 'NaN y, one row');
SELECT throws_ok(pg_temp.q($$VALUES (1, 'POINT(0 0)'::geometry), (2, ST_MakePoint('Infinity', 0))$$, '1', '2'),
				 '22023', 'gpu_dbscan: geometry has a NaN or infinite coordinate', 'infinite x');
SELECT throws_ok(pg_temp.q($$VALUES (1, 'POINT(0 0)'::geometry), (2, ST_MakePoint(0, '-Infinity'))$$, '1', '2'),
				 '22023', 'gpu_dbscan: geometry has a NaN or infinite coordinate', '-infinite y');
SELECT throws_ok(pg_temp.q($$VALUES (1, 'POINT(0 0)'::geometry), (2, ST_MakeLine(ST_MakePoint(0, 0), ST_MakePoint('NaN', 1)))$$, '1', '2'),
				 '22023', 'gpu_dbscan: geometry has a NaN or infinite coordinate', 'NaN in a line');
SELECT throws_ok(pg_temp.q($$VALUES (1, 'POINT(0 0)'::geometry), (2, ST_Collect(ST_MakePoint(0, 0), ST_MakePoint(1, 'Infinity')))$$, '1', '2'),
				 '22023', 'gpu_dbscan: geometry has a NaN or infinite coordinate', 'infinity in a multipoint');
SELECT lives_ok(pg_temp.q($$VALUES (1, ST_MakePoint(0, 0, 'NaN')), (2, 'POINT(0 0)'::geometry)$$, '1', '2'),
				'a NaN Z is ignored like every Z');

-- SRIDs.
SELECT throws_ok(pg_temp.q($$VALUES (1, 'SRID=4326;POINT(0 0)'::geometry), (2, 'SRID=3857;POINT(0 0)')$$, '1', '2'),
				 '22023', 'gpu_dbscan: geometries of one partition have different SRIDs', 'mixed SRIDs');
SELECT throws_ok(pg_temp.q($$VALUES (1, 'POINT(0 0)'::geometry), (2, NULL), (3, 'SRID=4326;LINESTRING(0 0, 1 1)')$$, '1', '1'),
				 '22023', 'gpu_dbscan: geometries of one partition have different SRIDs', 'SRID 0 and 4326, a line');
SELECT lives_ok($$SELECT gpu_dbscan(geom, 1, 2) OVER (PARTITION BY ST_SRID(geom) ORDER BY id)
				  FROM (VALUES (1, 'SRID=4326;POINT(0 0)'::geometry), (2, 'SRID=3857;POINT(0 0)')) s(id, geom)$$,
				'one SRID per partition is fine');

-- Calls PostgreSQL itself rejects.
SELECT throws_ok('SELECT gpu_dbscan(geom, 1, 2) FROM ok_rows', '42809', NULL, 'no OVER clause');
SELECT throws_ok($$SELECT gpu_dbscan(geom, 'one', 2) OVER () FROM ok_rows$$, '22P02', NULL, 'eps not a number');
SELECT throws_ok($$SELECT gpu_dbscan(ST_MakeLine(geom, 'POINT(1 1)')::geography, 1, 2) OVER () FROM ok_rows$$,
				 '0A000', 'gpu_dbscan: only geography points can be clustered',
				 'geography: points only (gpu_dbscan(geography) is in 71_geography.sql)');
SELECT throws_ok($$SELECT gpu_dbscan(geom, 1) OVER () FROM ok_rows$$, '42883', NULL,
				 'two arguments: no such function');

-- Settings.
SELECT throws_ok($$SET gpu_dbscan.backend = 'tpu'$$, '22023', NULL, 'backend must be auto, cpu or gpu');
SELECT throws_ok($$SET gpu_dbscan.threads = -1$$, '22023', NULL, 'threads must not be negative');
SELECT throws_ok($$SET gpu_dbscan.gpu_min_rows = -5$$, '22023', NULL, 'gpu_min_rows must not be negative');
SELECT throws_ok($$SET gpu_dbscan.device = -1$$, '22023', NULL, 'device must not be negative');
SELECT throws_ok($$SET gpu_dbscan.device_memory_budget = '-1MB'$$, '22023', NULL,
				 'device_memory_budget must not be negative');
SELECT throws_ok($$SET gpu_dbscan.no_such_setting = 1$$, '42602', NULL, 'the gpu_dbscan. prefix is reserved');

-- Cancellation: a statement timeout stops a long clustering promptly.  (A
-- cancel cannot be caught by throws_ok: PL/pgSQL's OTHERS leaves it out.)
-- 30,000 points in a 2 x 2 square, eps 1, minpoints 15,000: most points
-- have thousands of neighbours and few cells are all core, so counting takes
-- a while (seconds when this was written); if a faster core finishes before
-- the timeout, cancellation is not exercised and the test says so.
CREATE TEMP TABLE big AS SELECT id, geom FROM gd_test.gen_uniform(0.31, 30000, 2) g;
SET LOCAL statement_timeout = '200ms';
SELECT outcome AS cancel_outcome, seconds AS cancel_seconds
FROM gd_test.until_cancelled($$SELECT count(c) FROM (SELECT gpu_dbscan(geom, 1, 15000) OVER () c FROM big) s$$) \gset
SET LOCAL statement_timeout = 0;
SELECT ok(:'cancel_outcome' = '57014: canceling statement due to statement timeout' OR :cancel_seconds < 0.2,
		  format('statement_timeout (200 ms) cancels a long clustering: %s after %s s',
				 :'cancel_outcome', round(:cancel_seconds::numeric, 2)));
SELECT cmp_ok(:cancel_seconds, '<', 2.0, 'the cancel took effect within 2 s');

-- Issue 11: our errors, not PostGIS's internal one or a silent flattening.
SELECT throws_ok($$SELECT gpu_dbscan_collect(g, 1, 1) FROM (VALUES ('POINT(0 0)'::geometry), ('POINT Z (0.5 0 1)')) t(g)$$,
				 '22023', 'gpu_dbscan_collect: cluster 0 holds geometries of different dimensions',
				 'gpu_dbscan_collect: a cluster mixing 2D and 3D geometries is our error, not XX000');
SELECT throws_ok($$SELECT gpu_dbscan_sweep(g, 1, '{{1,2},{3,4}}') OVER () FROM (VALUES ('POINT(0 0)'::geometry)) t(g)$$,
				 '2202E', 'gpu_dbscan_sweep: minpoints must be a one-dimensional array, not 2-dimensional',
				 'gpu_dbscan_sweep: a two-dimensional minpoints array is refused');
SELECT throws_ok($$SELECT gpu_dbscan_params(g, '{1}', '{{1,2},{3,4}}') FROM (VALUES ('POINT(0 0)'::geometry)) t(g)$$,
				 '2202E', 'gpu_dbscan_params: minpoints must be a one-dimensional array, not 2-dimensional',
				 'gpu_dbscan_params: a two-dimensional minpoints array is refused');
SELECT throws_ok($$SELECT gpu_dbscan_params(g, '{{1},{2}}', '{2}') FROM (VALUES ('POINT(0 0)'::geometry)) t(g)$$,
				 '2202E', 'gpu_dbscan_params: eps must be a one-dimensional array, not 2-dimensional',
				 'gpu_dbscan_params: a two-dimensional eps array is refused');

-- Still the same server and the same session, and it still works.
SELECT is((SELECT array_agg(c ORDER BY id) FROM (SELECT id, gpu_dbscan(geom, 1, 2) OVER (ORDER BY id) c FROM ok_rows) s),
		  ARRAY[0, 0, NULL], 'clustering works after all the errors');
SELECT is(gd_test.checkpointer_pid(), :server_checkpointer, 'the server was not restarted (the same checkpointer process)');
SELECT is(pg_backend_pid(), :server_session, 'this session survived');

SELECT * FROM finish();
ROLLBACK;
