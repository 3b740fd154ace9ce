-- test/pgtap/lib/errors.sql — a query's error as text, for matches()/is().
-- (Included by prelude.sql.)

-- The SQLSTATE, message and detail of q's error ('<state> <message>: <detail>',
-- the detail empty when there is none); NULL when q runs.
CREATE OR REPLACE FUNCTION gd_test.error_of(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	state	text;
	msg		text;
	detail	text;
BEGIN
	EXECUTE q;
	RETURN NULL;
EXCEPTION WHEN others THEN
	GET STACKED DIAGNOSTICS state = RETURNED_SQLSTATE, msg = MESSAGE_TEXT, detail = PG_EXCEPTION_DETAIL;
	RETURN format('%s %s: %s', state, msg, detail);
END
$$;

-- How sql ended ('finished', or the SQLSTATE and message of its cancel)
-- and after how many seconds.  (A cancel cannot be caught by throws_ok:
-- PL/pgSQL's OTHERS leaves it out.)
CREATE OR REPLACE FUNCTION gd_test.until_cancelled(sql text, OUT outcome text, OUT seconds float8)
LANGUAGE plpgsql AS $$
DECLARE
	t0	timestamptz := clock_timestamp();
BEGIN
	EXECUTE sql;
	outcome := 'finished';
	seconds := extract(epoch FROM clock_timestamp() - t0);
EXCEPTION WHEN query_canceled THEN
	outcome := SQLSTATE || ': ' || SQLERRM;
	seconds := extract(epoch FROM clock_timestamp() - t0);
END
$$;
