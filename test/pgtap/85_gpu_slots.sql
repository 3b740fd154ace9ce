-- 85_gpu_slots: the cap on sessions using the GPU at once
-- (gpu_dbscan.max_gpu_sessions, src/gpu_slots.c) without a GPU.
--
-- The settings: the cap is SIGHUP only (SET fails for a superuser and for an
-- ordinary role), the wait of backend = auto is a user setting.  The slots
-- themselves are exercised through a test-only C function of the module,
-- gpu_dbscan_slot_probe(hold_ms, wait_ms), which takes a slot exactly as a
-- GPU run does, holds it, and releases it; it is not part of the extension
-- (this file creates it as public.gd_test_slot_probe and drops it after).
-- Other sessions are dblink connections: two hold the two slots of a cap
-- of 2, the next waits at the head of the line, the one after it in the
-- lock manager; a wait with a time limit gives up; cancels and statement
-- timeouts, at the head of the line, in the line and holding a slot, leave
-- nothing held; an error caught by a subtransaction frees the slot and the
-- session takes one again.  Other suites may use the GPU meanwhile (pg_prove
-- -j on a GPU machine): counts are of this file's sessions.
\ir lib/quiet.sql
LOAD 'gpu_dbscan';
ALTER SYSTEM SET gpu_dbscan.max_gpu_sessions = 2;
SELECT pg_reload_conf() AS reloaded \gset
SELECT pg_sleep(0.5) \gset
-- committed, so that the dblink sessions see it
CREATE OR REPLACE FUNCTION public.gd_test_slot_probe(hold_ms int, wait_ms int) RETURNS float8
AS '$libdir/gpu_dbscan', 'gpu_dbscan_slot_probe' LANGUAGE C VOLATILE STRICT;
\ir lib/prelude.sql
CREATE EXTENSION IF NOT EXISTS dblink;

SELECT plan(36);

-- The settings.
SELECT is((SELECT context FROM pg_settings WHERE name = 'gpu_dbscan.max_gpu_sessions'), 'sighup',
		  'gpu_dbscan.max_gpu_sessions is a SIGHUP setting');
SELECT is((SELECT boot_val FROM pg_settings WHERE name = 'gpu_dbscan.max_gpu_sessions'), '4',
		  'gpu_dbscan.max_gpu_sessions defaults to 4');
SELECT is(current_setting('gpu_dbscan.max_gpu_sessions'), '2', 'the cap set by ALTER SYSTEM and a reload is in force');
SELECT is((SELECT context || ' ' || boot_val || ' ' || unit FROM pg_settings WHERE name = 'gpu_dbscan.gpu_wait_timeout'),
		  'user 10000 ms', 'gpu_dbscan.gpu_wait_timeout is a user setting, 10 s by default');
SELECT throws_ok($$SET gpu_dbscan.max_gpu_sessions = 100$$, '55P02', NULL,
				 'the cap cannot be changed by SET, even by a superuser');
SELECT throws_ok($$SELECT set_config('gpu_dbscan.max_gpu_sessions', '0', true)$$, '55P02', NULL,
				 'nor by set_config');
CREATE ROLE gd_slot_user NOLOGIN NOSUPERUSER;
SET ROLE gd_slot_user;
SELECT throws_ok($$SET gpu_dbscan.max_gpu_sessions = 0$$, '55P02', NULL, 'nor by an ordinary role');
SELECT lives_ok($$SET LOCAL gpu_dbscan.gpu_wait_timeout = '2s'$$, 'an ordinary role sets its wait');
RESET ROLE;
SELECT is(current_setting('gpu_dbscan.max_gpu_sessions'), '2', 'and the cap stays what it was');

-- Every setting is in the README's table (pg_prove runs from the checkout's root).
\set readme `cat README.md 2>/dev/null`
SELECT is((SELECT string_agg(name, ', ' ORDER BY name) FROM pg_settings
		   WHERE name LIKE 'gpu\_dbscan.%' AND position('| `' || name || '` |' IN :'readme') = 0),
		  NULL, 'every gpu_dbscan.* setting has a row in the README''s table');

-- This file's slot locks: session (1 to 5, 0 for this one), lock (0 = the
-- line, 1.. = a slot), granted.
CREATE TEMP TABLE conns (k int, pid int);
SELECT format('host=%s port=%s dbname=%s user=%s',
			  coalesce(nullif(split_part(current_setting('unix_socket_directories'), ',', 1), ''), 'localhost'),
			  current_setting('port'), current_database(), current_user) AS conn \gset
SELECT count(dblink_connect('c' || k, :'conn')) AS connected FROM generate_series(1, 5) k \gset
INSERT INTO conns SELECT k, p FROM generate_series(1, 5) k,
	LATERAL dblink('c' || k, 'SELECT pg_backend_pid()') AS t(p int);
INSERT INTO conns VALUES (0, pg_backend_pid());
CREATE FUNCTION pg_temp.slot_locks() RETURNS TABLE (k int, lock int, granted bool) LANGUAGE sql AS $$
	SELECT c.k, l.objid::int, l.granted FROM pg_locks l JOIN conns c USING (pid)
	WHERE l.locktype = 'advisory' AND l.database = 0 AND l.objsubid = 18244 $$;
-- what session k holds or waits for: 'slot', 'line', 'waits' or ''
CREATE FUNCTION pg_temp.state(int) RETURNS text LANGUAGE sql AS $$
	SELECT coalesce(string_agg(CASE WHEN NOT granted THEN 'waits' WHEN lock = 0 THEN 'line' ELSE 'slot' END, ','), '')
	FROM pg_temp.slot_locks() WHERE k = $1 $$;
CREATE FUNCTION pg_temp.send(k int, sql text) RETURNS void LANGUAGE sql AS $$
	SELECT dblink_send_query('c' || k, sql) $$;
-- the probe's result on session k, NULL for an error (its message in errors)
CREATE TEMP TABLE errors (k int, message text);
CREATE FUNCTION pg_temp.result(int) RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE
	r	float8;
BEGIN
	SELECT w INTO r FROM dblink_get_result('c' || $1, false) AS t(w float8);
	IF dblink_error_message('c' || $1) <> 'OK' THEN
		INSERT INTO errors VALUES ($1, dblink_error_message('c' || $1));
	END IF;
	PERFORM * FROM dblink_get_result('c' || $1, false) AS t(w float8);	-- the end of the results
	RETURN r;
END $$;

-- One probe alone: a slot at once, nothing held after.
SELECT cmp_ok(gd_test_slot_probe(50, -1), '<', 1000::float8, 'a free slot is taken at once');
SELECT is(pg_temp.state(0), '', 'and given back');

-- Two sessions hold the two slots; the third is the head of the line, the
-- fourth waits in the lock manager behind it.
SELECT pg_temp.send(1, 'SELECT gd_test_slot_probe(3000, -1)'), pg_temp.send(2, 'SELECT gd_test_slot_probe(3000, -1)') AS sent \gset
SELECT pg_sleep(0.5) \gset
SELECT pg_temp.send(3, 'SELECT gd_test_slot_probe(100, -1)') AS sent \gset
SELECT pg_sleep(0.2) \gset
SELECT pg_temp.send(4, 'SELECT gd_test_slot_probe(100, -1)') AS sent \gset
SELECT pg_sleep(0.3) \gset
SELECT is(pg_temp.state(1) || ' ' || pg_temp.state(2), 'slot slot', 'two sessions hold the two slots');
SELECT is(pg_temp.state(3), 'line', 'a third is at the head of the line');
SELECT is(pg_temp.state(4), 'waits', 'a fourth waits for the line in the lock manager (pg_locks granted = false)');
SELECT is((SELECT count(*)::int FROM pg_locks WHERE locktype = 'advisory' AND database = 0 AND objsubid = 18244
		   AND objid BETWEEN 1 AND 2 AND granted AND pid IN (SELECT pid FROM conns)), 2, 'no more slots than the cap');
-- a wait with a limit (backend = auto) gives up
SELECT clock_timestamp() AS t0 \gset
SELECT is(gd_test_slot_probe(0, 300), NULL, 'a wait of 300 ms under a full cap gives up (NULL: the CPU path)');
SELECT cmp_ok(extract(epoch FROM clock_timestamp() - :'t0'::timestamptz)::float8, '<', 2.5::float8,
			  'after its time, not the holders''');
SELECT is(pg_temp.state(0), '', 'and holds nothing');
SELECT cmp_ok(pg_temp.result(1), '<', 1000::float8, 'the first holder did not wait');
SELECT cmp_ok(pg_temp.result(2), '<', 1000::float8, 'nor the second');
SELECT cmp_ok(pg_temp.result(3), '>=', 1500::float8, 'the head of the line waited for a slot to free');
SELECT cmp_ok(pg_temp.result(4), '>=', 1500::float8, 'and so did the one behind it');
SELECT is(string_agg(pg_temp.state(k), ''), '', 'nothing held after') FROM generate_series(1, 4) k;

-- Cancels at the head of the line and in the line leave nothing held, and
-- the line goes on.
SELECT pg_temp.send(1, 'SELECT gd_test_slot_probe(2500, -1)'), pg_temp.send(2, 'SELECT gd_test_slot_probe(2500, -1)') AS sent \gset
SELECT pg_sleep(0.4) \gset
SELECT pg_temp.send(3, 'SELECT gd_test_slot_probe(0, -1)') AS sent \gset
SELECT pg_sleep(0.2) \gset
SELECT pg_temp.send(4, 'SELECT gd_test_slot_probe(0, -1)') AS sent \gset
SELECT pg_sleep(0.3) \gset
SELECT is(pg_temp.state(3) || ' ' || pg_temp.state(4), 'line waits', 'one at the head of the line, one behind');
SELECT dblink_cancel_query('c3') AS c3, dblink_cancel_query('c4') AS c4 \gset
SELECT is(pg_temp.result(3), NULL, 'cancelled at the head of the line');
SELECT is(pg_temp.result(4), NULL, 'cancelled in the line');
SELECT is((SELECT count(*)::int FROM errors WHERE k IN (3, 4) AND message LIKE '%canceling statement due to user request%'),
		  2, 'both with the cancel''s error');
SELECT is(pg_temp.state(3) || pg_temp.state(4), '', 'and neither holds anything');
SELECT cmp_ok(gd_test_slot_probe(0, 10000), '>=', 500::float8, 'the line goes on: the next one waits for the holders and gets a slot');
SELECT cmp_ok(pg_temp.result(1) + pg_temp.result(2), '<', 2000::float8, 'which finished undisturbed');

-- statement_timeout while a slot is held gives it back.
SELECT dblink_exec('c1', 'SET statement_timeout = 300') AS done \gset
SELECT pg_temp.send(1, 'SELECT gd_test_slot_probe(5000, -1)') AS sent \gset
SELECT is(pg_temp.result(1), NULL, 'statement_timeout while holding a slot');
SELECT is(pg_temp.state(1), '', 'gives the slot back');
SELECT dblink_exec('c1', 'RESET statement_timeout') AS done \gset

-- An error caught by a subtransaction frees the slot, and the same
-- transaction takes one again (the module forgets the slot it held).
SELECT dblink_exec('c2', $q$CREATE FUNCTION pg_temp.twice() RETURNS float8 LANGUAGE plpgsql AS $f$
BEGIN
	BEGIN
		PERFORM gd_test_slot_probe(5000, -1);
	EXCEPTION WHEN query_canceled THEN NULL;
	END;
	PERFORM gd_test_slot_probe(1500, -1);
	RETURN 1;
END $f$ $q$) AS done \gset
SELECT dblink_exec('c2', 'SET statement_timeout = 300') AS done \gset
SELECT pg_temp.send(2, 'SELECT pg_temp.twice()') AS sent \gset
SELECT pg_sleep(1.0) \gset
SELECT is(pg_temp.state(2), 'slot', 'after an error caught in a subtransaction the session holds a slot again');
SELECT is(pg_temp.result(2), 1::float8, 'and finishes');
SELECT dblink_exec('c2', 'RESET statement_timeout') AS done \gset
SELECT is(count(*)::int, 0, 'no error otherwise') FROM errors WHERE k NOT IN (3, 4) AND message NOT LIKE '%statement timeout%';

SELECT count(dblink_disconnect('c' || k)) AS disconnected FROM generate_series(1, 5) k \gset

SELECT * FROM finish();
ROLLBACK;

DROP FUNCTION public.gd_test_slot_probe(int, int);
LOAD 'gpu_dbscan';
ALTER SYSTEM RESET gpu_dbscan.max_gpu_sessions;
SELECT pg_reload_conf() AS reloaded \gset
