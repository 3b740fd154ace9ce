-- test/pgtap/lib/reference_dbscan.sql — DBSCAN written out in SQL and
-- plpgsql from an explicit list of neighbour pairs, to check the n-D and
-- geography functions against pairs computed independently (brute force
-- n-D predicate, or ST_DWithin(geography, geography, eps, false)).
--
-- Plain SQL (no pgTAP), included with \ir after prelude.sql; everything
-- lives in schema gd_test.  Costs O(n + pairs): for sets of a few thousand
-- rows.

CREATE SCHEMA IF NOT EXISTS gd_test;

-- The rules of gd_core.h, literally, for rows 1..n in partition order:
--   present[r]  the row is a non-empty point (a neighbour of itself)
--   empty[r]    the row is EMPTY (its own cluster when minpoints <= 1)
--   pi[k] < pj[k]  the k-th pair of neighbours (row numbers, 1-based)
-- core: at least max(minpoints, 1) neighbours, itself included; clusters:
-- core points connected through core neighbours; a border point joins the
-- cluster of its core neighbour with the smallest row; ids 0..k-1 by first
-- row; NULL for noise, NULL rows and EMPTY rows with minpoints >= 2.
CREATE OR REPLACE FUNCTION gd_test.dbscan_reference(present boolean[], empty boolean[],
													pi int[], pj int[], minpoints int)
RETURNS int[]
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
	n		int := coalesce(cardinality(present), 0);
	npairs	int := coalesce(cardinality(pi), 0);
	deg		int[] := array_fill(1, ARRAY[greatest(n, 1)]);
	core	boolean[] := array_fill(false, ARRAY[greatest(n, 1)]);
	parent	int[] := array_fill(0, ARRAY[greatest(n, 1)]);
	best	int[] := array_fill(NULL::int, ARRAY[greatest(n, 1)]);
	raw		int[] := array_fill(NULL::int, ARRAY[greatest(n, 1)]);
	ids		int[];
	a		int;
	b		int;
	r		int;
	k		int;
	m		int;
BEGIN
	IF n = 0 THEN
		RETURN '{}';
	END IF;
	FOR k IN 1 .. npairs LOOP
		IF pi[k] >= pj[k] OR NOT present[pi[k]] OR NOT present[pj[k]] THEN
			RAISE EXCEPTION 'pair % (%, %) does not join two present rows i < j', k, pi[k], pj[k];
		END IF;
		deg[pi[k]] := deg[pi[k]] + 1;
		deg[pj[k]] := deg[pj[k]] + 1;
	END LOOP;
	FOR r IN 1 .. n LOOP
		core[r] := present[r] AND deg[r] >= greatest(minpoints, 1);
		parent[r] := r;
	END LOOP;

	-- union-find over core-core pairs (the larger root under the smaller)
	FOR k IN 1 .. npairs LOOP
		CONTINUE WHEN NOT (core[pi[k]] AND core[pj[k]]);
		a := pi[k];
		WHILE parent[a] <> a LOOP a := parent[a]; END LOOP;
		b := pj[k];
		WHILE parent[b] <> b LOOP b := parent[b]; END LOOP;
		IF a < b THEN parent[b] := a; ELSIF b < a THEN parent[a] := b; END IF;
	END LOOP;

	-- border points: the core neighbour with the smallest row
	FOR k IN 1 .. npairs LOOP
		a := pi[k];
		b := pj[k];
		IF core[a] AND NOT core[b] THEN best[b] := least(best[b], a); END IF;
		IF core[b] AND NOT core[a] THEN best[a] := least(best[a], b); END IF;
	END LOOP;

	-- a row standing for each row's cluster, then ids by first row
	FOR r IN 1 .. n LOOP
		m := CASE WHEN core[r] THEN r WHEN present[r] THEN best[r] END;
		IF m IS NOT NULL THEN
			WHILE parent[m] <> m LOOP m := parent[m]; END LOOP;
			raw[r] := m;
		ELSIF empty[r] AND minpoints <= 1 THEN
			raw[r] := -r;
		END IF;
	END LOOP;
	SELECT array_agg(f.id ORDER BY u.i)
	INTO ids
	FROM unnest(raw) WITH ORDINALITY AS u(x, i)
	LEFT JOIN (SELECT x, (row_number() OVER (ORDER BY min(i)) - 1)::int AS id
			   FROM unnest(raw) WITH ORDINALITY AS v(x, i)
			   WHERE x IS NOT NULL
			   GROUP BY x) f ON f.x = u.x;
	RETURN ids;
END
$$;

-- The n-D neighbour predicate of gd_core.h, literally: |b_k - a_k| <= eps
-- on every axis and sqrt of the squares summed in axis order <= eps.
CREATE OR REPLACE FUNCTION gd_test.within_nd(a float8[], b float8[], eps float8)
RETURNS boolean
LANGUAGE plpgsql IMMUTABLE STRICT AS $$
DECLARE
	s	float8 := 0;
	d	float8;
BEGIN
	FOR k IN 1 .. cardinality(a) LOOP
		d := b[k] - a[k];
		IF abs(d) > eps THEN
			RETURN false;
		END IF;
		s := s + d * d;
	END LOOP;
	RETURN sqrt(s) <= eps;
END
$$;

-- What DBSCAN makes of each row (gpu_dbscan_point_type), from the same
-- inputs as dbscan_reference: 'core' (at least max(minpoints, 1) neighbours,
-- itself included; an EMPTY row when minpoints <= 1, a cluster of its own),
-- 'border' (not core, a core neighbour), 'noise' (every other non-NULL
-- row), NULL for a NULL row.
CREATE OR REPLACE FUNCTION gd_test.point_type_reference(present boolean[], empty boolean[],
														pi int[], pj int[], minpoints int)
RETURNS text[]
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
	n		int := coalesce(cardinality(present), 0);
	npairs	int := coalesce(cardinality(pi), 0);
	deg		int[] := array_fill(1, ARRAY[greatest(n, 1)]);
	core	boolean[] := array_fill(false, ARRAY[greatest(n, 1)]);
	claimed	boolean[] := array_fill(false, ARRAY[greatest(n, 1)]);
	types	text[] := array_fill(NULL::text, ARRAY[greatest(n, 1)]);
	r		int;
	k		int;
BEGIN
	IF n = 0 THEN
		RETURN '{}';
	END IF;
	FOR k IN 1 .. npairs LOOP
		deg[pi[k]] := deg[pi[k]] + 1;
		deg[pj[k]] := deg[pj[k]] + 1;
	END LOOP;
	FOR r IN 1 .. n LOOP
		core[r] := present[r] AND deg[r] >= greatest(minpoints, 1);
	END LOOP;
	FOR k IN 1 .. npairs LOOP
		IF core[pi[k]] THEN claimed[pj[k]] := true; END IF;
		IF core[pj[k]] THEN claimed[pi[k]] := true; END IF;
	END LOOP;
	FOR r IN 1 .. n LOOP
		types[r] := CASE WHEN core[r] THEN 'core'
						 WHEN present[r] AND claimed[r] THEN 'border'
						 WHEN present[r] THEN 'noise'
						 WHEN empty[r] THEN CASE WHEN minpoints <= 1 THEN 'core' ELSE 'noise' END
					END;
	END LOOP;
	RETURN types[1:n];
END
$$;
