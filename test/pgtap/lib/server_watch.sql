-- test/pgtap/lib/server_watch.sql — did the server crash while this file ran?
--
-- A backend that dies of a signal makes the postmaster end every other
-- process and reinitialise: pg_postmaster_start_time() stays the same, but
-- the auxiliary processes are new, so the checkpointer's pid changes.
-- Included with \ir after prelude.sql; sets :server_checkpointer and
-- :server_session.  End the file with
--   SELECT is(gd_test.checkpointer_pid(), :server_checkpointer, 'the server was not restarted');
--   SELECT is(pg_backend_pid(), :server_session, 'this session survived');
-- (test/reliability/crash_watch.sh crashes a throwaway server to show that
-- the first one fails then.)

CREATE SCHEMA IF NOT EXISTS gd_test;

-- The checkpointer's pid now (pg_stat_activity is otherwise read once per
-- transaction, and each test file is one transaction).
CREATE OR REPLACE FUNCTION gd_test.checkpointer_pid()
RETURNS int
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
	PERFORM pg_stat_clear_snapshot();
	RETURN (SELECT pid FROM pg_stat_activity WHERE backend_type = 'checkpointer');
END
$$;

SELECT gd_test.checkpointer_pid() AS server_checkpointer, pg_backend_pid() AS server_session \gset
