-- test/pgtap/lib/labelings.sql — comparing two clusterings up to relabelling.
--
-- Plain SQL (no pgTAP): the pgTAP suite includes it with \ir inside each
-- test's transaction, and scripts/demo.sql uses it for its agreement column.
-- Everything lives in schema gd_test.
--
-- A labeling is an int[] with one cluster id per row, in partition order,
-- NULL for noise.  Two labelings agree when they have the same NULL rows and
-- the map "id in the first -> id in the second" over the other rows is a
-- bijection: then every pair of rows is together in one labeling exactly
-- when it is together in the other.  Cost: a few hash aggregates, O(n).

CREATE SCHEMA IF NOT EXISTS gd_test;

-- NULL when got and want are the same clustering up to relabelling, else a
-- sentence naming the first difference (row numbers are 1-based positions).
CREATE OR REPLACE FUNCTION gd_test.labelings_diff(got int[], want int[])
RETURNS text
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
	n_got	int := coalesce(cardinality(got), 0);
	n_want	int := coalesce(cardinality(want), 0);
	r		record;
BEGIN
	IF n_got <> n_want THEN
		RETURN format('%s rows against %s', n_got, n_want);
	END IF;

	-- Same noise (NULL) rows.
	SELECT count(*) AS n, min(i) AS first INTO r
	FROM unnest(got, want) WITH ORDINALITY AS u(g, w, i)
	WHERE (g IS NULL) <> (w IS NULL);
	IF r.n > 0 THEN
		RETURN format('%s rows differ in noise; first is row %s: got %s, want %s',
					  r.n, r.first, coalesce(got[r.first]::text, 'NULL'),
					  coalesce(want[r.first]::text, 'NULL'));
	END IF;

	-- got -> want is a function: no got cluster spans two want clusters.
	SELECT g, min(i) AS a, max(i) AS b INTO r
	FROM (SELECT g, w, min(i) AS i
		  FROM unnest(got, want) WITH ORDINALITY AS u(g, w, i)
		  WHERE g IS NOT NULL
		  GROUP BY g, w) s
	GROUP BY g
	HAVING count(*) > 1
	ORDER BY min(i)
	LIMIT 1;
	IF FOUND THEN
		RETURN format('got cluster %s holds rows %s and %s, which want puts in clusters %s and %s',
					  r.g, r.a, r.b, want[r.a], want[r.b]);
	END IF;

	-- want -> got is a function: no want cluster is split in got.
	SELECT w, min(i) AS a, max(i) AS b INTO r
	FROM (SELECT g, w, min(i) AS i
		  FROM unnest(got, want) WITH ORDINALITY AS u(g, w, i)
		  WHERE w IS NOT NULL
		  GROUP BY g, w) s
	GROUP BY w
	HAVING count(*) > 1
	ORDER BY min(i)
	LIMIT 1;
	IF FOUND THEN
		RETURN format('want cluster %s holds rows %s and %s, which got puts in clusters %s and %s',
					  r.w, r.a, r.b, got[r.a], got[r.b]);
	END IF;

	RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION gd_test.same_clusters(got int[], want int[])
RETURNS boolean
LANGUAGE sql IMMUTABLE AS $$ SELECT gd_test.labelings_diff(got, want) IS NULL $$;

-- NULL when ids are gpu_dbscan's numbering: 0..k-1, each new id one more than
-- the largest seen so far when rows are read in partition order.
CREATE OR REPLACE FUNCTION gd_test.ids_diff(ids int[])
RETURNS text
LANGUAGE sql IMMUTABLE AS $$
	SELECT format('row %s has id %s, expected %s (ids must be 0..k-1 by first row)',
				  i, id, expected)
	FROM (SELECT i, id, coalesce(max(id) OVER (ORDER BY i ROWS BETWEEN UNBOUNDED PRECEDING
															  AND 1 PRECEDING), -1) AS top
		  FROM unnest(ids) WITH ORDINALITY AS u(id, i)
		  WHERE id IS NOT NULL) s,
		 LATERAL (SELECT CASE WHEN id > top THEN top + 1 ELSE id END AS expected) e
	WHERE id > top + 1 OR id < 0
	ORDER BY i
	LIMIT 1
$$;

-- gd_test.compare: runs gpu_dbscan and ST_ClusterDBSCAN side by side over
-- one window and returns NULL when they give the same clusters in every
-- partition (and gpu_dbscan's ids are numbered by first row), else the first
-- difference.
--   src        a FROM item with columns geom and whatever the other
--              arguments use, e.g. '(SELECT * FROM pts WHERE ds = 3) s'
--   eps, minpoints   bound as $1 and $2
--   part_expr, order_expr   the window's PARTITION BY and ORDER BY ('' for none)
--   eps_expr, minpoints_expr   the arguments as written (default $1, $2), to
--              pass per-row columns
CREATE OR REPLACE FUNCTION gd_test.compare(src text, eps float8, minpoints int,
										   part_expr text DEFAULT 'NULL::int',
										   order_expr text DEFAULT 'id',
										   eps_expr text DEFAULT '$1',
										   minpoints_expr text DEFAULT '$2')
RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	result	text;
BEGIN
	EXECUTE format($q$
		WITH r AS (
			SELECT %1$s AS part,
				   row_number() OVER w AS rn,
				   gpu_dbscan(geom, %2$s, %3$s) OVER w AS got,
				   ST_ClusterDBSCAN(geom, %2$s, %3$s) OVER w AS want
			FROM %4$s
			WINDOW w AS (PARTITION BY %1$s %5$s)),
		p AS (
			SELECT part, array_agg(got ORDER BY rn) AS got, array_agg(want ORDER BY rn) AS want
			FROM r GROUP BY part)
		SELECT string_agg(format('partition %%s: %%s', part, d), '; ' ORDER BY part)
			   || CASE WHEN max(n) > 3 THEN format(' (%%s partitions differ)', max(n)) ELSE '' END
		FROM (SELECT part, d, row_number() OVER (ORDER BY part) AS k, count(*) OVER () AS n
			  FROM p, LATERAL (SELECT coalesce(gd_test.labelings_diff(got, want),
												gd_test.ids_diff(got)) AS d) x
			  WHERE d IS NOT NULL) f
		WHERE k <= 3
		$q$, part_expr, eps_expr, minpoints_expr, src,
		CASE WHEN order_expr = '' THEN '' ELSE 'ORDER BY ' || order_expr END)
	INTO result
	USING eps, minpoints;
	RETURN result;
END
$$;

-- gd_test.labels: gpu_dbscan's ids for src (same arguments as compare) as
-- one int[] in (partition, row) order, for comparing runs with different
-- settings exactly.
CREATE OR REPLACE FUNCTION gd_test.labels(src text, eps float8, minpoints int,
										  part_expr text DEFAULT 'NULL::int',
										  order_expr text DEFAULT 'id')
RETURNS int[]
LANGUAGE plpgsql AS $$
DECLARE
	result	int[];
BEGIN
	EXECUTE format($q$
		SELECT array_agg(got ORDER BY part, rn)
		FROM (SELECT %1$s AS part, row_number() OVER w AS rn,
					 gpu_dbscan(geom, $1, $2) OVER w AS got
			  FROM %2$s
			  WINDOW w AS (PARTITION BY %1$s %3$s)) r
		$q$, part_expr, src,
		CASE WHEN order_expr = '' THEN '' ELSE 'ORDER BY ' || order_expr END)
	INTO result
	USING eps, minpoints;
	RETURN result;
END
$$;

-- Small hand-written inputs: rows given as WKT (NULL for a NULL geometry) in
-- window order; returns each function's ids in that order.
CREATE OR REPLACE FUNCTION gd_test.run(wkt text[], eps float8, minpoints int)
RETURNS int[]
LANGUAGE sql AS $$
	SELECT array_agg(c ORDER BY i)
	FROM (SELECT i, gpu_dbscan(w::geometry, eps, minpoints) OVER (ORDER BY i) AS c
		  FROM unnest(wkt) WITH ORDINALITY AS u(w, i)) s
$$;

CREATE OR REPLACE FUNCTION gd_test.run_postgis(wkt text[], eps float8, minpoints int)
RETURNS int[]
LANGUAGE sql AS $$
	SELECT array_agg(c ORDER BY i)
	FROM (SELECT i, ST_ClusterDBSCAN(w::geometry, eps, minpoints) OVER (ORDER BY i) AS c
		  FROM unnest(wkt) WITH ORDINALITY AS u(w, i)) s
$$;
