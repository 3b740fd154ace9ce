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
