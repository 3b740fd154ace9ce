-- test/pgtap/lib/sets.sql — loading a data set from a generator call given
-- as text, so that a suite can list its sets and cases as plain rows.
-- Included with \ir after datasets.sql.

-- Appends the rows of gd_test.<generator> (e.g. 'gen_uniform(0.5, 400, 100)')
-- to gd_test.pts as set set_id, partition part.
CREATE OR REPLACE FUNCTION gd_test.load_set(set_id int, generator text, part int DEFAULT 0)
RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE format('INSERT INTO gd_test.pts (ds, part, id, geom) SELECT %s, %s, g.id, g.geom FROM gd_test.%s g',
				   set_id, part, generator);
END
$$;
