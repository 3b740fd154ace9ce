-- 89_malformed_geometries: issue 11.  PostGIS 3.3.2 reads values whose
-- parts are EMPTY where a part must not be (a CURVEPOLYGON whose second ring
-- is LINESTRING EMPTY, ...), and its st_dwithin then crashes the server;
-- gpu_dbscan refuses them before PostGIS sees them (src/gserialized_points.c,
-- "Malformed values").  Structure-aware fuzzing of that boundary: seeded
-- random trees of every geometry type, nested up to three collections deep,
-- with EMPTY and degenerate rings and members (test/pgtap/lib/geometry_gen.sql),
-- each sent as WKB (what any role can send: PostGIS's parser refuses some)
-- and as raw serialized bytes (a superuser's, nothing checks them), in a
-- partition with a point and a line.  For each value:
--   * malformed by the rule, worked out from the tree by the generator: our
--     clear error (22023), from the window function and the aggregate;
--   * otherwise: ST_ClusterDBSCAN's clusters (or, where it fails, those of
--     DBSCAN written out over ST_DWithin), or the same PostGIS error as it;
--     ST_ClusterDBSCAN runs only on what we accept, so a value we let
--     through that crashes PostGIS crashes this file.
-- The server is watched for a crash-restart (lib/server_watch.sql).
\ir lib/prelude.sql
\ir lib/reference_dbscan.sql
\ir ../reliability/lib/judge.sql
\ir lib/geometry_gen.sql
\ir lib/server_watch.sql

SELECT plan(11);

-- A geometry from its serialized bytes (byteasend copies a varlena).
CREATE FUNCTION pg_temp.raw_geom(bytea) RETURNS geometry LANGUAGE internal IMMUTABLE STRICT AS 'byteasend';

-- Whether PostGIS's WKB reader takes the bytes.
CREATE FUNCTION pg_temp.wkb_ok(b bytea) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
	PERFORM ST_GeomFromEWKB(b);
	RETURN true;
EXCEPTION WHEN OTHERS THEN
	RETURN false;
END
$$;

-- Our error for a malformed row.
CREATE FUNCTION pg_temp.refused(err text) RETURNS boolean LANGUAGE sql IMMUTABLE AS $$
	SELECT coalesce(err ~ '^22023 gpu_dbscan: geometry has a [A-Za-z]+ with an EMPTY (ring|member) among non-empty ones$', false)
$$;

-- The value expr among a point inside it, a line through it and a far point.
CREATE FUNCTION pg_temp.partition(expr text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
	SELECT gd_rel.rows(format($f$ARRAY[%s, 'POINT(0.5 0.5)', 'LINESTRING(-1 -1, 10 10)', 'POINT(20 20)']$f$, expr))
$$;

-- 'refused', or gd_rel.judge_ref's outcome against ST_ClusterDBSCAN (run
-- only when we accept the value).
CREATE FUNCTION pg_temp.outcome(expr text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	src	text := pg_temp.partition(expr);
	o	record;
BEGIN
	o := gd_rel.cluster('gpu_dbscan', src, '1', '2');
	IF pg_temp.refused(o.err) THEN
		RETURN 'refused';
	END IF;
	RETURN gd_rel.judge_ref(src, '1', '2');
END
$$;

-- The aggregate's verdict on the same partition: 'refused' or 'ok'/the error.
CREATE FUNCTION pg_temp.agg_outcome(expr text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	ids	int[];
BEGIN
	EXECUTE format('SELECT gpu_dbscan_agg(geom, 1, 2 ORDER BY id) FROM (%s) s', pg_temp.partition(expr)) INTO ids;
	RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
	RETURN CASE WHEN pg_temp.refused(SQLSTATE || ' ' || SQLERRM) THEN 'refused' ELSE SQLSTATE || ' ' || SQLERRM END;
END
$$;

CREATE TEMP TABLE gen AS SELECT * FROM gd_test.gen_geometries(0.25, 1200);
CREATE TEMP TABLE runs AS
SELECT k, route, label, malformed, expr, pg_temp.outcome(expr) AS outcome, pg_temp.agg_outcome(expr) AS agg
FROM (SELECT k, 'raw' AS route, label, malformed, format('pg_temp.raw_geom(%L::bytea)', gs) AS expr FROM gen
	  UNION ALL
	  SELECT k, 'wkb', label, malformed, format('ST_GeomFromEWKB(%L::bytea)', wkb) FROM gen WHERE pg_temp.wkb_ok(wkb)) v;

-- The values cover what they must.
SELECT cmp_ok((SELECT count(*) FROM runs WHERE route = 'wkb' AND malformed), '>=', 30::bigint,
			  'at least 30 malformed values come through PostGIS''s WKB reader (any role can send them)');
SELECT cmp_ok((SELECT count(*) FROM runs WHERE route = 'wkb' AND malformed AND label LIKE '%CURVEPOLYGON%'), '>=', 10::bigint,
			  'at least 10 of them hold a malformed CURVEPOLYGON');
SELECT cmp_ok((SELECT count(*) FROM runs WHERE NOT malformed AND (outcome = 'same' OR outcome LIKE 'postgis: %')), '>=', 500::bigint,
			  'at least 500 values are clustered and compared with ST_ClusterDBSCAN');
SELECT cmp_ok((SELECT count(*) FROM runs WHERE NOT malformed AND label ~ '(^|[A-Z(,])0([,)]|$)'), '>=', 200::bigint,
			  'at least 200 well-formed values hold EMPTY parts (kept, not refused)');

-- Malformed: refused, by both entry points; well-formed: never refused.
SELECT is((SELECT string_agg(format('%s %s %s: %s', route, k, label, outcome), '; ')
		   FROM (SELECT * FROM runs WHERE malformed AND outcome <> 'refused' ORDER BY route, k LIMIT 5) s),
		  NULL, format('the %s malformed values are refused by gpu_dbscan', (SELECT count(*) FROM runs WHERE malformed)));
SELECT is((SELECT string_agg(format('%s %s %s: %s', route, k, label, outcome), '; ')
		   FROM (SELECT * FROM runs WHERE NOT malformed AND outcome = 'refused' ORDER BY route, k LIMIT 5) s),
		  NULL, format('none of the %s well-formed values is refused', (SELECT count(*) FROM runs WHERE NOT malformed)));
SELECT is((SELECT string_agg(format('%s %s %s: window %s, aggregate %s', route, k, label, outcome, agg), '; ')
		   FROM (SELECT * FROM runs WHERE (outcome = 'refused') <> (agg = 'refused') ORDER BY route, k LIMIT 5) s),
		  NULL, 'gpu_dbscan_agg refuses exactly what gpu_dbscan refuses');

-- Well-formed: ST_ClusterDBSCAN's answer, or where it fails the reference's
-- (DBSCAN over ST_DWithin); where PostGIS cannot measure the value at all
-- (raw bytes with a one-vertex or even-length arc, an unclosed ring, which
-- PostGIS's WKB reader also lets through inside a CURVEPOLYGON), an error
-- from PostGIS for both, or for ST_ClusterDBSCAN and the reference alike.
CREATE FUNCTION pg_temp.class(outcome text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
	SELECT CASE
		WHEN outcome = 'refused' THEN 'refused'
		WHEN outcome = 'same' THEN 'same'
		WHEN outcome ~ '^postgis: .*; ours = reference$' THEN 'reference'
		WHEN outcome ~ '^both: XX000 .* [|] XX000 ' THEN 'postgis cannot measure it'
		WHEN outcome ~ '^postgis: XX000 .*; ours <> reference: the reference failed: ' THEN 'postgis cannot measure it'
		ELSE 'WRONG' END
$$;
SELECT is((SELECT string_agg(format('%s %s %s: %s', route, k, label, outcome), '; ')
		   FROM (SELECT * FROM runs WHERE pg_temp.class(outcome) = 'WRONG' ORDER BY route, k LIMIT 5) s),
		  NULL, format('the %s values accepted: %s', (SELECT count(*) FROM runs WHERE outcome <> 'refused'),
					   (SELECT string_agg(format('%s %s', c, n), ', ' ORDER BY c)
						FROM (SELECT pg_temp.class(outcome) c, count(*) n FROM runs WHERE outcome <> 'refused' GROUP BY 1) s)));

-- The issue's reproducer once more, as written there.
SELECT throws_ok($$SELECT gpu_dbscan(g,1,2) OVER () FROM (VALUES (ST_GeomFromEWKB(decode('010a000000020000000108000000050000000000000000000000000000000000000000000000000010400000000000000000000000000000104000000000000010400000000000000000000000000000104000000000000000000000000000000000010200000000000000','hex'))),('POINT(0.5 0.5)'::geometry)) t(g)$$,
				 '22023', 'gpu_dbscan: geometry has a CurvePolygon with an EMPTY ring among non-empty ones',
				 'the reproducer of issue 11 is refused');

-- Still the same server and session.
SELECT is(gd_test.checkpointer_pid(), :server_checkpointer, 'the server was not restarted (the same checkpointer process)');
SELECT is(pg_backend_pid(), :server_session, 'this session survived');

SELECT * FROM finish();
ROLLBACK;
