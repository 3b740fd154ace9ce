-- 87_memory_budget: the host memory limits (src/memory_budget.c,
-- core/memory_ledger.hpp).  gpu_dbscan.max_query_memory (superuser)
-- bounds what one query holds: a sweep's rows x values ids, a pair list and
-- the fast paths' read of a table past it end in a clean out-of-memory
-- error naming it, with nothing left charged.  gpu_dbscan.max_total_memory (SIGHUP) bounds all sessions
-- together: with a low total, a dblink session holds a sweep's ids while a
-- second one asks for as much: the second gets the clean error, the first
-- finishes, nothing stays charged, and the server was not restarted (the
-- checkpointer's pid, which a crash-restart changes).
\ir lib/quiet.sql
LOAD 'gpu_dbscan';
ALTER SYSTEM SET gpu_dbscan.max_total_memory = '56MB';
SELECT pg_reload_conf() AS reloaded \gset
SELECT pg_sleep(0.5) \gset
-- committed, so that the dblink sessions see it (dropped at the end)
CREATE EXTENSION IF NOT EXISTS gpu_dbscan CASCADE;
DROP TABLE IF EXISTS public.gd_test_budget;
CREATE UNLOGGED TABLE public.gd_test_budget AS
	SELECT i AS id, ST_MakePoint(random() * 1000, random() * 1000) AS geom FROM generate_series(1, 160000) i;
ANALYZE public.gd_test_budget;
\ir lib/prelude.sql
\ir lib/fast_path.sql
CREATE EXTENSION IF NOT EXISTS dblink;

SELECT plan(32);

SELECT pid AS checkpointer FROM pg_stat_activity WHERE backend_type = 'checkpointer' \gset

-- The settings.
SELECT is((SELECT context || ' ' || boot_val || ' ' || unit FROM pg_settings WHERE name = 'gpu_dbscan.max_query_memory'),
		  'superuser 0 MB', 'gpu_dbscan.max_query_memory: superuser, 0 (none) by default');
SELECT is((SELECT context || ' ' || boot_val || ' ' || unit FROM pg_settings WHERE name = 'gpu_dbscan.max_total_memory'),
		  'sighup 0 MB', 'gpu_dbscan.max_total_memory: SIGHUP, 0 (half the physical memory) by default');
SELECT is(current_setting('gpu_dbscan.max_total_memory'), '56MB', 'the total set by ALTER SYSTEM and a reload is in force');
CREATE ROLE gd_memory_user NOLOGIN NOSUPERUSER;
SET ROLE gd_memory_user;
SELECT throws_ok($$SET gpu_dbscan.max_query_memory = '100GB'$$, '42501', NULL,
				 'an ordinary role cannot raise gpu_dbscan.max_query_memory');
RESET ROLE;
SELECT throws_ok($$SET gpu_dbscan.max_total_memory = '1GB'$$, '55P02', NULL,
				 'nor can SET change gpu_dbscan.max_total_memory');

CREATE TEMP TABLE pts AS
	SELECT i AS id, ST_MakePoint(random() * 100, random() * 100) AS geom FROM generate_series(1, 20000) i;
CREATE TEMP TABLE boxes AS
	SELECT i AS id, ST_Expand(ST_MakePoint(i * 0.001, 0), 5)::geometry AS geom FROM generate_series(1, 3000) i;

-- One query's limit.
SET gpu_dbscan.max_query_memory = '2MB';
SELECT matches(gd_test.error_of($$SELECT max(c[1]) FROM (SELECT gpu_dbscan_sweep(geom, 1, array(SELECT generate_series(2, 41))) OVER () c FROM pts) s$$),
			   '^53200 gpu_dbscan: out of memory: the sweep''s ids \(4 MB\) .*past gpu_dbscan\.max_query_memory \(2 MB\)',
			   'a sweep''s 20,000 rows x 40 values past max_query_memory: out of memory naming it');
SELECT matches(gd_test.error_of($$SELECT gpu_dbscan_params(geom, '{1}', array(SELECT generate_series(2, 41))) FROM pts$$),
			   '^53200 gpu_dbscan: out of memory: .*past gpu_dbscan\.max_query_memory',
			   'so do gpu_dbscan_params''s ids');
SELECT matches(gd_test.error_of($$SELECT max(c) FROM (SELECT gpu_dbscan(geom, 1, 2) OVER () c FROM boxes) s$$),
			   '^53200 gpu_dbscan: out of memory: candidate pairs .*past gpu_dbscan\.max_query_memory',
			   'and 4.5 million candidate pairs of 3,000 overlapping boxes');
SELECT is((SELECT session_bytes FROM gpu_dbscan_memory()), 0::bigint, 'nothing stays charged after the errors');
-- the fast paths' read: 160,000 rows' arrays (kind, coordinates, SRIDs, TIDs)
SELECT matches(gd_test.error_of($$SELECT max(c) FROM (SELECT gpu_dbscan(geom, 1, 4) OVER () c FROM public.gd_test_budget) s$$),
			   '^53200 gpu_dbscan: out of memory: the fast path''s read of the table \([0-9]+ MB\) .*past gpu_dbscan\.max_query_memory \(2 MB\)',
			   'the window''s fast path: the read of 160,000 rows past max_query_memory, out of memory naming it');
SELECT matches(gd_test.error_of($$SELECT cardinality(gpu_dbscan_agg(geom, 1, 4)) FROM public.gd_test_budget$$),
			   '^53200 gpu_dbscan: out of memory: the fast path''s read of the table .*past gpu_dbscan\.max_query_memory',
			   'so does the aggregates'' fast path');
SELECT gd_test.use_partial_path();
SELECT matches(gd_test.error_of($$SELECT c, count(*) FROM (SELECT gpu_dbscan(geom, 1, 4) OVER () c FROM public.gd_test_budget) s GROUP BY c$$),
			   '^53200 gpu_dbscan: out of memory: the fast path''s read of the table .*past gpu_dbscan\.max_query_memory',
			   'and the partial path''s shared read');
SELECT is((SELECT session_bytes FROM gpu_dbscan_memory()), 0::bigint, 'nothing stays charged after them');
-- a WHERE clause: the read is sized for twice the rows the planner expects it to keep
SELECT gd_test.use_fast_path(true, 2);
SELECT is(gd_test.error_of($$SELECT max(c) FROM (SELECT gpu_dbscan(geom, 1, 4) OVER () c FROM public.gd_test_budget WHERE id <= 2000) s$$), NULL,
		  'a WHERE clause keeping 2,000 of the 160,000 rows: the read fits in 2 MB');
SELECT is(gd_test.error_of($$SELECT cardinality(gpu_dbscan_agg(geom, 1, 4)) FROM public.gd_test_budget WHERE id <= 2000$$), NULL,
		  'and the aggregates'' read');
RESET gpu_dbscan.max_query_memory;
-- a guess short of what the clause keeps (the planner's default selectivity
-- of an expression, 0.5%, for a third of the rows): read again, the same rows
SELECT is(gd_test.fast_diff('SELECT id, gpu_dbscan(geom, 1, 4) OVER (ORDER BY id) AS c FROM public.gd_test_budget WHERE id % 3 = 0', 2), NULL,
		  'a WHERE clause keeping far more than the planner thinks: the WindowAgg''s ids');
SELECT gd_test.use_fast_path(true, 2);
SELECT is((SELECT jsonb_path_query_first(j, 'lax $.**."Read Passes"')::int
		   FROM gd_test.explain_json('SELECT max(c) FROM (SELECT gpu_dbscan(geom, 1, 4) OVER () c FROM public.gd_test_budget WHERE id % 3 = 0) s') j),
		  2, 'read in two passes');
SET gpu_dbscan.max_query_memory = '2MB';
SET gpu_dbscan.max_query_memory = '64MB';
SELECT is(gd_test.error_of($$SELECT c, count(*) FROM (SELECT gpu_dbscan(geom, 1, 4) OVER () c FROM public.gd_test_budget) s GROUP BY c$$), NULL,
		  'the partial path runs under a higher limit');
SELECT is(gd_test.fast_diff('SELECT id, gpu_dbscan(geom, 1, 4) OVER (ORDER BY id) AS c FROM public.gd_test_budget', 2), NULL,
		  'and the window''s fast path, two workers: the WindowAgg''s ids');
RESET max_parallel_workers_per_gather;
RESET gpu_dbscan.scan_workers;
SET gpu_dbscan.max_query_memory = '8MB';
SELECT is(gd_test.error_of($$SELECT max(c[1]) FROM (SELECT gpu_dbscan_sweep(geom, 1, '{2,3}') OVER () c FROM pts) s$$), NULL,
		  'a sweep within the limit runs');
SET gpu_dbscan.max_query_memory = '64MB';
SELECT is(gd_test.error_of($$SELECT max(c[1]) FROM (SELECT gpu_dbscan_sweep(geom, 1, array(SELECT generate_series(2, 41))) OVER () c FROM pts) s$$), NULL,
		  'and the big one under a higher limit');
SELECT is((SELECT query_limit_bytes FROM gpu_dbscan_memory()), 64 * 1024 * 1024::bigint, 'gpu_dbscan_memory() shows the query limit');
SELECT is((SELECT total_limit_bytes FROM gpu_dbscan_memory()), 56 * 1024 * 1024::bigint, 'and the total');
RESET gpu_dbscan.max_query_memory;

-- All sessions together: c1 holds 30.5 MB of a sweep's ids (160,000 rows
-- x 50 values) while its first row sleeps (48.5 MB at its peak, with the
-- grid and the sweep's cells); c2 then asks for as much, past the total of
-- 56 MB.
SELECT format('host=%s port=%s dbname=%s user=%s',
			  coalesce(nullif(split_part(current_setting('unix_socket_directories'), ',', 1), ''), 'localhost'),
			  current_setting('port'), current_database(), current_user) AS conn \gset
SELECT dblink_connect('c1', :'conn') AS c1, dblink_connect('c2', :'conn') AS c2 \gset
SELECT p AS c1pid FROM dblink('c1', 'SELECT pg_backend_pid()') AS t(p int) \gset
-- the helper for c2 too: its session cannot see this file's uncommitted gd_test schema
SELECT dblink_exec('c2', replace(pg_get_functiondef('gd_test.error_of(text)'::regprocedure),
								 'gd_test.error_of', 'pg_temp.error_of')) AS done \gset
CREATE FUNCTION pg_temp.hold(conn text) RETURNS int LANGUAGE sql AS $$
	SELECT dblink_send_query($1, $q$
		SELECT count(s) FROM (SELECT gpu_dbscan_sweep(geom, 1, array(SELECT generate_series(2, 51))) OVER (ORDER BY id) s,
									 row_number() OVER (ORDER BY id) rn FROM public.gd_test_budget) x
		WHERE CASE WHEN rn = 1 THEN pg_sleep(3) IS NOT NULL ELSE true END $q$) $$;
-- polls gpu_dbscan_memory() until all sessions hold at least (above) or at
-- most (not above) bytes, for up to 10 s; returns the last total
CREATE FUNCTION pg_temp.wait_total(bytes bigint, above bool) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
	t bigint;
BEGIN
	FOR i IN 1..200 LOOP
		SELECT total_bytes INTO t FROM gpu_dbscan_memory();
		EXIT WHEN (above AND t >= bytes) OR (NOT above AND t <= bytes);
		PERFORM pg_sleep(0.05);
	END LOOP;
	RETURN t;
END $$;

SELECT pg_temp.hold('c1') AS sent \gset
SELECT cmp_ok(pg_temp.wait_total(32000000, true), '>=', 32000000::bigint,
			  'the first session holds its sweep''s ids in the shared total');
SELECT matches(f, '^53200 gpu_dbscan: out of memory: the sweep''s ids .*past gpu_dbscan\.max_total_memory \(56 MB\)',
			   'a second session asking for as much meanwhile gets out of memory naming max_total_memory')
FROM dblink('c2', $q$SELECT pg_temp.error_of($$SELECT max(c[1]) FROM (SELECT gpu_dbscan_sweep(geom, 1, array(SELECT generate_series(2, 51))) OVER () c FROM public.gd_test_budget) s$$)$q$) AS t(f text);
SELECT is(n, 160000::bigint, 'the first session finishes its query') FROM dblink_get_result('c1') AS t(n bigint);
SELECT is(n, NULL) FROM dblink_get_result('c1') AS t(n bigint);
SELECT is(pg_temp.wait_total(0, false), 0::bigint, 'then nothing is held');
SELECT is(f, NULL, 'and the second session''s query runs')
FROM dblink('c2', $q$SELECT pg_temp.error_of($$SELECT max(c[1]) FROM (SELECT gpu_dbscan_sweep(geom, 1, array(SELECT generate_series(2, 51))) OVER () c FROM public.gd_test_budget) s$$)$q$) AS t(f text);

-- A session terminated while it holds memory gives its share back.
SELECT pg_temp.hold('c1') AS sent \gset
SELECT cmp_ok(pg_temp.wait_total(32000000, true), '>=', 32000000::bigint, 'a session holds its sweep''s ids again');
SELECT is(pg_terminate_backend(:c1pid, 10000), true, 'it is terminated');
SELECT is(pg_temp.wait_total(0, false), 0::bigint, 'and what it held is back in the shared total');
SELECT dblink_disconnect('c2') AS c2 \gset

SELECT is((SELECT pid FROM pg_stat_activity WHERE backend_type = 'checkpointer'), :checkpointer,
		  'the server was not restarted (the checkpointer is the same process)');

SELECT * FROM finish();
ROLLBACK;

DROP TABLE public.gd_test_budget;
LOAD 'gpu_dbscan';
ALTER SYSTEM RESET gpu_dbscan.max_total_memory;
SELECT pg_reload_conf() AS reloaded \gset
