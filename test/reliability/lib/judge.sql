-- test/reliability/lib/judge.sql — the bad-input matrix's referee: runs
-- gpu_dbscan and ST_ClusterDBSCAN over the same rows and says how they
-- compare.  Needs test/pgtap/lib/labelings.sql (gd_test.labelings_diff,
-- gd_test.ids_diff); included with \ir by test/pgtap/80_*.sql.

CREATE SCHEMA IF NOT EXISTS gd_rel;

-- One clustering of src (a FROM item with columns id, geom) by fn, the ids in
-- id order; an error comes back as 'SQLSTATE message' in err.
CREATE OR REPLACE FUNCTION gd_rel.cluster(fn text, src text, eps text, minpoints text,
										  OUT ids int[], OUT err text)
LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE format('SELECT array_agg(c ORDER BY id) FROM (SELECT id, %s(geom, %s, %s) OVER (ORDER BY id) AS c '
				   'FROM (%s) s) t', fn, eps, minpoints, src)
	INTO ids;
EXCEPTION WHEN OTHERS THEN
	err := SQLSTATE || ' ' || SQLERRM;
END
$$;

-- How gpu_dbscan and ST_ClusterDBSCAN compare on src at eps and minpoints
-- (SQL expressions):
--   'same'                     both answer, the same clusters up to relabelling,
--                              and ours numbered by first row
--   'differ: ...'              both answer, differently (the first difference)
--   'ours: SQLSTATE message'   we raise an error, PostGIS answers
--   'postgis: SQLSTATE message' PostGIS raises an error, we answer
--   'both: ours | postgis'     both raise an error
CREATE OR REPLACE FUNCTION gd_rel.judge(src text, eps text, minpoints text)
RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	o	record;
	p	record;
BEGIN
	o := gd_rel.cluster('gpu_dbscan', src, eps, minpoints);
	p := gd_rel.cluster('ST_ClusterDBSCAN', src, eps, minpoints);
	IF o.err IS NOT NULL AND p.err IS NOT NULL THEN
		RETURN 'both: ' || o.err || ' | ' || p.err;
	ELSIF o.err IS NOT NULL THEN
		RETURN 'ours: ' || o.err;
	ELSIF p.err IS NOT NULL THEN
		RETURN 'postgis: ' || p.err;
	END IF;
	RETURN coalesce('differ: ' || coalesce(gd_test.labelings_diff(o.ids, p.ids), gd_test.ids_diff(o.ids)),
					'same');
END
$$;

-- A clear error: one with a SQLSTATE of its own, not XX000 (internal error).
CREATE OR REPLACE FUNCTION gd_rel.clear_error(outcome text)
RETURNS boolean
LANGUAGE sql IMMUTABLE AS $$
	SELECT outcome ~ '^(ours|both): [0-9A-Z]{5} ' AND outcome !~ '^(ours|both): XX'
$$;

-- IEEE double arithmetic without PostgreSQL's overflow and underflow
-- errors: what the C code computes (an overflow is an infinity of the
-- result's sign, an underflow a zero).
CREATE OR REPLACE FUNCTION gd_rel.ieee_add(a float8, b float8)
RETURNS float8
LANGUAGE plpgsql IMMUTABLE STRICT AS $$
BEGIN
	RETURN a + b;
EXCEPTION WHEN numeric_value_out_of_range THEN
	RETURN CASE WHEN a > 0 THEN 'Infinity'::float8 ELSE '-Infinity'::float8 END;
END
$$;

CREATE OR REPLACE FUNCTION gd_rel.ieee_mul(a float8, b float8)
RETURNS float8
LANGUAGE plpgsql IMMUTABLE STRICT AS $$
BEGIN
	RETURN a * b;
EXCEPTION WHEN numeric_value_out_of_range THEN
	IF abs(a) >= 1 OR abs(b) >= 1 THEN
		RETURN CASE WHEN (a > 0) = (b > 0) THEN 'Infinity'::float8 ELSE '-Infinity'::float8 END;
	END IF;
	RETURN 0;
END
$$;

-- The point relation of README "Semantics": q lies in p's query box (bounds
-- rounded in double) and sqrt(dx*dx + dy*dy) <= eps in IEEE double.
CREATE OR REPLACE FUNCTION gd_rel.within_points(p geometry, q geometry, eps float8)
RETURNS boolean
LANGUAGE plpgsql IMMUTABLE STRICT AS $$
DECLARE
	px	float8 := ST_X(p);
	py	float8 := ST_Y(p);
	qx	float8 := ST_X(q);
	qy	float8 := ST_Y(q);
	dx	float8;
	dy	float8;
BEGIN
	IF qx < gd_rel.ieee_add(px, -eps) OR qx > gd_rel.ieee_add(px, eps) OR
	   qy < gd_rel.ieee_add(py, -eps) OR qy > gd_rel.ieee_add(py, eps) THEN
		RETURN false;
	END IF;
	dx := gd_rel.ieee_add(qx, -px);
	dy := gd_rel.ieee_add(qy, -py);
	RETURN sqrt(gd_rel.ieee_add(gd_rel.ieee_mul(dx, dx), gd_rel.ieee_mul(dy, dy))) <= eps;
END
$$;

-- DBSCAN of src written out from its neighbour pairs (gd_test.dbscan_reference,
-- test/pgtap/lib/reference_dbscan.sql): the answer to check ours against
-- where ST_ClusterDBSCAN raises an error.  Every pair of non-empty rows is
-- tested, with no box prefilter: two points by gd_rel.within_points both
-- ways (the sets checked this way have no pair seen one way only), anything
-- else by ST_DWithin.
CREATE OR REPLACE FUNCTION gd_rel.reference(src text, eps text, minpoints text)
RETURNS int[]
LANGUAGE plpgsql AS $$
DECLARE
	e		float8;
	m		int;
	present	boolean[];
	empty	boolean[];
	pi		int[];
	pj		int[];
BEGIN
	EXECUTE format('SELECT (%s)::float8, (%s)::int', eps, minpoints) INTO e, m;
	EXECUTE format($q$
		CREATE TEMP TABLE gd_rel_ref ON COMMIT DROP AS
		SELECT row_number() OVER (ORDER BY id)::int AS r, geom FROM (%s) s$q$, src);
	SELECT array_agg(geom IS NOT NULL AND NOT ST_IsEmpty(geom) ORDER BY r),
		   array_agg(geom IS NOT NULL AND ST_IsEmpty(geom) ORDER BY r)
	INTO present, empty FROM gd_rel_ref;
	SELECT array_agg(a.r ORDER BY a.r, b.r), array_agg(b.r ORDER BY a.r, b.r)
	INTO pi, pj
	FROM gd_rel_ref a JOIN gd_rel_ref b ON a.r < b.r
	WHERE NOT ST_IsEmpty(a.geom) AND NOT ST_IsEmpty(b.geom) AND
		  CASE WHEN GeometryType(a.geom) = 'POINT' AND GeometryType(b.geom) = 'POINT'
			   THEN gd_rel.within_points(a.geom, b.geom, e) OR gd_rel.within_points(b.geom, a.geom, e)
			   ELSE ST_DWithin(a.geom, b.geom, e) END;
	DROP TABLE gd_rel_ref;
	IF present IS NULL THEN
		RETURN NULL;
	END IF;
	RETURN gd_test.dbscan_reference(present, empty, pi, pj, m);
END
$$;

-- judge, and where only PostGIS fails, ours against gd_rel.reference:
-- 'postgis: SQLSTATE message; ours = reference' or '...; ours <> reference: ...'.
CREATE OR REPLACE FUNCTION gd_rel.judge_ref(src text, eps text, minpoints text)
RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	outcome	text := gd_rel.judge(src, eps, minpoints);
	o		record;
	d		text;
BEGIN
	IF outcome LIKE 'postgis: %' THEN
		o := gd_rel.cluster('gpu_dbscan', src, eps, minpoints);
		BEGIN
			d := gd_test.labelings_diff(o.ids, gd_rel.reference(src, eps, minpoints));
		EXCEPTION WHEN OTHERS THEN
			d := 'the reference failed: ' || SQLERRM;
		END;
		outcome := outcome || coalesce('; ours <> reference: ' || d, '; ours = reference');
	END IF;
	RETURN outcome;
END
$$;

-- A FROM item over an array of geometries, with ids 1..n in array order.
CREATE OR REPLACE FUNCTION gd_rel.rows(geoms text)
RETURNS text
LANGUAGE sql IMMUTABLE AS $$
	SELECT format('SELECT g AS geom, i::int AS id FROM unnest((%s)::geometry[]) WITH ORDINALITY u(g, i)', geoms)
$$;
