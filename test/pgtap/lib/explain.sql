-- test/pgtap/lib/explain.sql — the lines of a query's plan, to check that
-- a plan is parallel.  Plain SQL (no pgTAP), included with \ir.

CREATE SCHEMA IF NOT EXISTS gd_test;

-- The lines of EXPLAIN (COSTS OFF) query.
CREATE OR REPLACE FUNCTION gd_test.explain_lines(query text)
RETURNS SETOF text
LANGUAGE plpgsql AS $$
DECLARE
	line	text;
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || query LOOP
		RETURN NEXT line;
	END LOOP;
END
$$;
