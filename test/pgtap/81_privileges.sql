-- 81_privileges: an ordinary role can use every function, none is SECURITY
-- DEFINER, and the device-memory budget cannot be raised above the
-- administrator's cap: gpu_dbscan.max_device_memory (postgresql.conf,
-- SIGHUP) over gpu_dbscan.device_memory_budget (any user, at most the cap;
-- the GPU back end gets min(budget, cap), the cap for a budget of 0, shown
-- by gpu_dbscan.effective_device_memory_budget).
--
-- The cap is set with ALTER SYSTEM and a reload before the test's
-- transaction (ALTER SYSTEM cannot run inside one) and reset after it; 3GB,
-- above what the other suites set, in case one runs meanwhile.
\ir lib/quiet.sql
-- the module defines the setting (without it ALTER SYSTEM does not know it)
LOAD 'gpu_dbscan';
ALTER SYSTEM SET gpu_dbscan.max_device_memory = '3GB';
SELECT pg_reload_conf() AS reloaded \gset
-- the reload reaches this backend between statements
SELECT pg_sleep(0.5) \gset
\ir lib/prelude.sql

\ir lib/server_watch.sql
LOAD 'gpu_dbscan';

SELECT plan(33);

-- The cap, from the configuration file.
SELECT is(current_setting('gpu_dbscan.max_device_memory'), '3GB', 'the cap set by ALTER SYSTEM and a reload is in force');
SELECT is((SELECT context FROM pg_settings WHERE name = 'gpu_dbscan.max_device_memory'), 'sighup',
		  'gpu_dbscan.max_device_memory is a SIGHUP setting');
SELECT is((SELECT context FROM pg_settings WHERE name = 'gpu_dbscan.device_memory_budget'), 'user',
		  'gpu_dbscan.device_memory_budget is a user setting');
SELECT is(current_setting('gpu_dbscan.effective_device_memory_budget'), '3GB',
		  'budget 0 ("let it choose") under a cap: the effective budget is the cap');

-- A superuser is held to it as well.
SELECT lives_ok($$SET LOCAL gpu_dbscan.device_memory_budget = '2GB'$$, 'a budget below the cap');
SELECT is(current_setting('gpu_dbscan.effective_device_memory_budget'), '2GB', 'the effective budget is the budget');
SELECT lives_ok($$SET LOCAL gpu_dbscan.device_memory_budget = '3GB'$$, 'a budget equal to the cap');
SELECT throws_ok($$SET LOCAL gpu_dbscan.device_memory_budget = '3073MB'$$, '42501',
				 'gpu_dbscan.device_memory_budget cannot exceed gpu_dbscan.max_device_memory',
				 'a budget 1 MB above the cap is refused');
SELECT is(current_setting('gpu_dbscan.device_memory_budget'), '3GB', 'and the budget stays what it was');
SELECT throws_ok($$SELECT set_config('gpu_dbscan.device_memory_budget', '100GB', false)$$, '42501', NULL,
				 'set_config is held to the cap too');
SELECT throws_ok($$SET gpu_dbscan.max_device_memory = '100GB'$$, '55P02', NULL,
				 'the cap cannot be changed by SET, even by a superuser');
SELECT throws_ok($$SET gpu_dbscan.effective_device_memory_budget = '100GB'$$, '55P02', NULL,
				 'the effective budget is read-only');
SELECT throws_ok($$ALTER ROLE CURRENT_USER SET gpu_dbscan.device_memory_budget = '4GB'$$, '42501', NULL,
				 'ALTER ROLE ... SET a budget above the cap is refused');
SELECT throws_ok($$CREATE FUNCTION pg_temp.sneaky() RETURNS int LANGUAGE sql
				   SET gpu_dbscan.device_memory_budget = '4GB' AS 'SELECT 1'$$, '42501', NULL,
				 'a function SET clause above the cap is refused');

-- Every function of the extension: not SECURITY DEFINER, executable by PUBLIC.
CREATE TEMP TABLE ext_functions AS
SELECT p.oid, p.oid::regprocedure::text AS sig, p.prosecdef, p.proconfig
FROM pg_proc p
JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'gpu_dbscan';
SELECT cmp_ok((SELECT count(*)::int FROM ext_functions), '>=', 20, 'the extension has its functions');
SELECT is((SELECT string_agg(sig, ', ') FROM ext_functions WHERE prosecdef), NULL, 'no function is SECURITY DEFINER');
SELECT is((SELECT string_agg(sig, ', ') FROM ext_functions WHERE proconfig IS NOT NULL), NULL,
		  'no function carries settings of its own');

CREATE ROLE gd_rel_user NOLOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE;
SELECT is((SELECT string_agg(sig, ', ') FROM ext_functions WHERE NOT has_function_privilege('gd_rel_user', oid, 'EXECUTE')),
		  NULL, 'an ordinary role may execute every function');

-- Every user-facing function, run by the superuser and then by the role:
-- the same results.
CREATE TEMP TABLE pts AS
SELECT i AS id, ST_SetSRID(ST_MakePoint((i % 10) * 0.1, (i / 10) * 0.1, i * 0.01), 4326) AS geom
FROM generate_series(0, 99) i;
GRANT SELECT ON pts TO gd_rel_user;
CREATE TEMP TABLE calls (k int, what text, sql text);
INSERT INTO calls VALUES
(1, 'gpu_dbscan(geometry)', $$SELECT array_agg(c ORDER BY id)::text FROM (SELECT id, gpu_dbscan(geom, 0.15, 3) OVER (ORDER BY id) c FROM pts) s$$),
(2, 'gpu_dbscan_3d', $$SELECT array_agg(c ORDER BY id)::text FROM (SELECT id, gpu_dbscan_3d(geom, 0.15, 3) OVER (ORDER BY id) c FROM pts) s$$),
(3, 'gpu_dbscan(float8[])', $$SELECT array_agg(c ORDER BY id)::text FROM (SELECT id, gpu_dbscan(ARRAY[ST_X(geom), ST_Y(geom), ST_Z(geom)], 0.15, 3) OVER (ORDER BY id) c FROM pts) s$$),
(4, 'gpu_dbscan(geography)', $$SELECT array_agg(c ORDER BY id)::text FROM (SELECT id, gpu_dbscan(geom::geography, 15000, 3) OVER (ORDER BY id) c FROM pts) s$$),
(5, 'gpu_dbscan_read_floor', $$SELECT sum(c)::text FROM (SELECT gpu_dbscan_read_floor(geom) OVER () c FROM pts) s$$),
(6, 'gpu_dbscan_agg', $$SELECT gpu_dbscan_agg(geom, 0.15, 3 ORDER BY id)::text FROM pts$$),
(7, 'gpu_dbscan_collect', $$SELECT array_length(gpu_dbscan_collect(geom, 0.05, 2 ORDER BY id), 1)::text FROM pts$$),
(8, 'gpu_dbscan_params', $$SELECT gpu_dbscan_params(geom, '{0.05, 0.15}', '{2, 5}')::text FROM pts$$),
(9, 'gpu_dbscan_point_type', $$SELECT array_agg(c ORDER BY id)::text FROM (SELECT id, gpu_dbscan_point_type(geom, 0.1, 5) OVER (ORDER BY id) c FROM pts) s$$),
(10, 'gpu_dbscan_sweep', $$SELECT array_agg(c::text ORDER BY id)::text FROM (SELECT id, gpu_dbscan_sweep(geom, 0.1, '{2, 5}') OVER (ORDER BY id) c FROM pts) s$$),
(11, 'gpu_dbscan_last_run', $$SELECT (l.rows, l.points)::text FROM gpu_dbscan_last_run() l$$);
CREATE FUNCTION pg_temp.run(sql text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	r	text;
BEGIN
	EXECUTE sql INTO r;
	RETURN coalesce(r, 'NULL');
EXCEPTION WHEN OTHERS THEN
	RETURN 'ERROR ' || SQLSTATE || ' ' || SQLERRM;
END
$$;
CREATE TEMP TABLE as_superuser AS SELECT k, pg_temp.run(sql) AS r FROM calls ORDER BY k;
SELECT is((SELECT string_agg(what || ': ' || r, '; ') FROM as_superuser JOIN calls USING (k) WHERE r LIKE 'ERROR%'), NULL,
		  'every function runs for the superuser');
GRANT SELECT ON calls, as_superuser TO gd_rel_user;

SET LOCAL ROLE gd_rel_user;
SELECT is(current_user::text, 'gd_rel_user', 'now an ordinary role');
SELECT is(pg_temp.run(c.sql), s.r, c.what || ' for an ordinary role: the same result')
FROM calls c JOIN as_superuser s USING (k) WHERE c.k <> 11 ORDER BY c.k;

-- The cap holds for the role as well.
SELECT lives_ok($$SET LOCAL gpu_dbscan.device_memory_budget = '512MB'$$, 'the role sets a budget below the cap');
SELECT throws_ok($$SET LOCAL gpu_dbscan.device_memory_budget = '8GB'$$, '42501',
				 'gpu_dbscan.device_memory_budget cannot exceed gpu_dbscan.max_device_memory',
				 'the role cannot set a budget above the cap');
RESET ROLE;

SELECT is(gd_test.checkpointer_pid(), :server_checkpointer, 'the server was not restarted (the same checkpointer process)');

SELECT * FROM finish();
ROLLBACK;

-- The cap goes again.
LOAD 'gpu_dbscan';
ALTER SYSTEM RESET gpu_dbscan.max_device_memory;
SELECT pg_reload_conf() AS reloaded \gset
