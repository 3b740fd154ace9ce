-- 80_bad_inputs: the bad-input matrix of issue 5.  Every geometry type
-- (curves, polyhedral surfaces, TINs, triangles, nested collections), every
-- EMPTY variant, NaN / infinite / subnormal / -0.0 / 1e308 coordinates, SRID
-- mixes, eps 0, tiny, -0.0, huge, +Infinity and NaN, minpoints 0, 1, INT_MAX
-- and more than the rows, partitions of 0 and 1 rows, corrupt serialized
-- values: each run either answers as ST_ClusterDBSCAN does (up to
-- relabelling; where ST_ClusterDBSCAN fails, as DBSCAN written out over the
-- same neighbour relation, gd_rel.reference) or raises a clear error (a
-- SQLSTATE of its own, never XX000).  The server is never restarted.
-- Referee: test/reliability/lib/judge.sql.
\ir lib/prelude.sql
\ir lib/reference_dbscan.sql
\ir ../reliability/lib/judge.sql

\ir lib/server_watch.sql

-- A geometry from its serialized bytes and back (byteasend copies a varlena).
CREATE FUNCTION pg_temp.raw_geom(bytea) RETURNS geometry LANGUAGE internal IMMUTABLE STRICT AS 'byteasend';
CREATE FUNCTION pg_temp.raw_bytes(geometry) RETURNS bytea LANGUAGE internal IMMUTABLE STRICT AS 'byteasend';

-- The zoo: one value of every type PostGIS has, and every EMPTY variant.
CREATE TEMP TABLE zoo (k serial, name text, wkt text);
INSERT INTO zoo (name, wkt) VALUES
('POINT', 'POINT(0.2 0.1)'), ('POINT Z', 'POINT Z (0.2 0.1 5)'), ('POINT M', 'POINTM(0.2 0.1 7)'),
('POINT ZM', 'POINT ZM (0.2 0.1 5 7)'), ('POINT with SRID', 'SRID=0;POINT(0.6 0.6)'),
('LINESTRING', 'LINESTRING(0 0.5, 2 0.5)'), ('LINESTRING Z', 'LINESTRING Z (0 0.5 1, 2 0.5 2)'),
('LINESTRING M, 3 vertices', 'LINESTRINGM(0 0.5 1, 1 0.7 1, 2 0.5 2)'),
('POLYGON with a hole', 'POLYGON((-1 -1, 4 -1, 4 4, -1 4, -1 -1), (0.9 0.9, 1.1 0.9, 1.1 1.1, 0.9 1.1, 0.9 0.9))'),
('MULTIPOINT', 'MULTIPOINT(0 0, 5 5)'), ('MULTIPOINT of one point', 'MULTIPOINT(0.4 0.4)'),
('MULTIPOINT with an EMPTY point', 'MULTIPOINT(EMPTY, 5 5)'),
('MULTILINESTRING', 'MULTILINESTRING((0 0, 0 1), (7 7, 8 8))'),
('MULTIPOLYGON', 'MULTIPOLYGON(((0 0, 1 0, 1 1, 0 0)), ((7 7, 8 7, 8 8, 7 7)))'),
('GEOMETRYCOLLECTION', 'GEOMETRYCOLLECTION(POINT(5 5), LINESTRING(0 0, 0 1))'),
('nested GEOMETRYCOLLECTION', 'GEOMETRYCOLLECTION(GEOMETRYCOLLECTION(GEOMETRYCOLLECTION(POINT(1 1), LINESTRING(1 1, 2 2))), POINT EMPTY)'),
('GEOMETRYCOLLECTION with EMPTY members', 'GEOMETRYCOLLECTION(POINT EMPTY, LINESTRING EMPTY, POINT(3 3))'),
('GEOMETRYCOLLECTION of curves', 'GEOMETRYCOLLECTION(CIRCULARSTRING(0 0, 1 1, 2 0), TRIANGLE((5 5, 5 6, 6 5, 5 5)))'),
('CIRCULARSTRING', 'CIRCULARSTRING(0 0, 1 1, 2 0)'),
('CIRCULARSTRING bulging past its vertices', 'CIRCULARSTRING(-1 3.1, 0 3.2, 1 3.1)'),
('COMPOUNDCURVE', 'COMPOUNDCURVE(CIRCULARSTRING(0 0, 1 1, 2 0), (2 0, 3 0))'),
('CURVEPOLYGON', 'CURVEPOLYGON(CIRCULARSTRING(-2 0, 0 2, 2 0, 0 -2, -2 0))'),
('CURVEPOLYGON with a COMPOUNDCURVE ring', 'CURVEPOLYGON(COMPOUNDCURVE(CIRCULARSTRING(0 0, 1 1, 2 0), (2 0, 0 0)))'),
('MULTICURVE', 'MULTICURVE((0 0, 5 5), CIRCULARSTRING(4 0, 4 4, 8 4))'),
('MULTISURFACE', 'MULTISURFACE(CURVEPOLYGON(CIRCULARSTRING(0 0, 4 0, 4 4, 0 4, 0 0)), ((10 10, 14 12, 11 10, 10 10)))'),
('POLYHEDRALSURFACE', 'POLYHEDRALSURFACE Z (((0 0 0, 0 1 0, 1 1 0, 1 0 0, 0 0 0)), ((0 0 0, 0 1 0, 0 1 1, 0 0 1, 0 0 0)))'),
('TIN', 'TIN Z (((0 0 0, 0 0 1, 0 1 0, 0 0 0)), ((0 0 0, 0 1 0, 1 1 0, 0 0 0)))'),
('TRIANGLE', 'TRIANGLE((0 0, 0 1, 1 0, 0 0))'),
('POINT EMPTY', 'POINT EMPTY'), ('POINT Z EMPTY', 'POINT Z EMPTY'), ('POINT ZM EMPTY', 'POINT ZM EMPTY'),
('LINESTRING EMPTY', 'LINESTRING EMPTY'), ('POLYGON EMPTY', 'POLYGON EMPTY'),
('MULTIPOINT EMPTY', 'MULTIPOINT EMPTY'), ('MULTIPOINT(EMPTY)', 'MULTIPOINT(EMPTY)'),
('MULTILINESTRING EMPTY', 'MULTILINESTRING EMPTY'), ('MULTIPOLYGON EMPTY', 'MULTIPOLYGON EMPTY'),
('GEOMETRYCOLLECTION EMPTY', 'GEOMETRYCOLLECTION EMPTY'),
('GEOMETRYCOLLECTION of EMPTYs', 'GEOMETRYCOLLECTION(POINT EMPTY, GEOMETRYCOLLECTION EMPTY, MULTIPOLYGON EMPTY)'),
('CIRCULARSTRING EMPTY', 'CIRCULARSTRING EMPTY'), ('COMPOUNDCURVE EMPTY', 'COMPOUNDCURVE EMPTY'),
('CURVEPOLYGON EMPTY', 'CURVEPOLYGON EMPTY'), ('MULTICURVE EMPTY', 'MULTICURVE EMPTY'),
('MULTISURFACE EMPTY', 'MULTISURFACE EMPTY'), ('POLYHEDRALSURFACE EMPTY', 'POLYHEDRALSURFACE EMPTY'),
('TIN EMPTY', 'TIN EMPTY'), ('TRIANGLE EMPTY', 'TRIANGLE EMPTY');

-- Partition layouts for a zoo value z: among points, NULL and EMPTY rows;
-- first; alone; twice with a point.
CREATE TEMP TABLE layouts (l int, arr text);
INSERT INTO layouts VALUES
(1, $$ARRAY['POINT(0 0)', %L, 'POINT(0.5 0.5)', NULL, 'POINT(3 3)', 'POINT EMPTY', 'POINT(0.1 0)']$$),
(2, $$ARRAY[%L, 'POINT(1 1)', 'POINT(1.5 1)', 'LINESTRING(9 9, 9 10)', 'POINT(9 8.5)']$$),
(3, $$ARRAY[%L]$$),
(4, $$ARRAY[%1$L, 'POINT(2.5 0)', %1$L]$$);
CREATE TEMP TABLE eps_values (e text);
INSERT INTO eps_values VALUES ('0'), ('1e-300'), ('0.5'), ('1'), ('1e300'), ($$'Infinity'$$);
CREATE TEMP TABLE minpoints_values (m text);
INSERT INTO minpoints_values VALUES ('0'), ('1'), ('2'), ('3'), ('2147483647');

-- Accepted: the same clusters, or ST_ClusterDBSCAN failing where ours is the reference.
CREATE FUNCTION pg_temp.accepted(outcome text) RETURNS boolean LANGUAGE sql IMMUTABLE AS $$
	SELECT outcome = 'same' OR outcome ~ '^postgis: .*; ours = reference$'
$$;

CREATE TEMP TABLE zoo_runs AS
SELECT z.k, z.name, l.l, e.e, m.m,
	   gd_rel.judge_ref(gd_rel.rows(format(l.arr, z.wkt)), e.e, m.m) AS outcome
FROM zoo z, layouts l, eps_values e, minpoints_values m;


-- Coordinates: every case at several eps and minpoints; want is a regex on
-- the outcome.  NaN and infinite x or y are our clear error; Z and M are
-- never read; subnormals, -0.0 and 1e308 are clustered by the rules.
CREATE TEMP TABLE coord_cases (k serial, name text, arr text, want text);
INSERT INTO coord_cases (name, arr, want) VALUES
('NaN x', $$ARRAY['POINT(0 0)', ST_MakePoint('NaN', 0)]$$, 'nan'),
('NaN y, first row', $$ARRAY[ST_MakePoint(0, 'NaN'), 'POINT(0 0)']$$, 'nan'),
('+Infinity x', $$ARRAY['POINT(0 0)', ST_MakePoint('Infinity', 0)]$$, 'nan'),
('-Infinity y', $$ARRAY['POINT(0 0)', NULL, ST_MakePoint(1, '-Infinity')]$$, 'nan'),
('NaN in a LINESTRING', $$ARRAY['POINT(0 0)', ST_MakeLine(ST_MakePoint(0, 0), ST_MakePoint('NaN', 1))]$$, 'nan'),
('Infinity in a POLYGON', $$ARRAY['POINT(0 0)', ST_MakePolygon(ST_MakeLine(ARRAY[ST_MakePoint(0, 0), ST_MakePoint('Infinity', 0), ST_MakePoint(1, 1), ST_MakePoint(0, 0)]))]$$, 'nan'),
('NaN in a MULTIPOINT', $$ARRAY['POINT(0 0)', ST_Collect(ST_MakePoint(1, 1), ST_MakePoint('NaN', 'NaN'))]$$, 'nan'),
('Infinity deep in a collection', $$ARRAY['POINT(0 0)', ST_Collect(ARRAY['POINT(1 1)'::geometry, ST_Collect(ST_MakePoint(2, 2), ST_MakePoint(3, '-Infinity'))])]$$, 'nan'),
('NaN in a CIRCULARSTRING', $$ARRAY['POINT(0 0)', pg_temp.raw_geom(decode(regexp_replace(encode(pg_temp.raw_bytes('CIRCULARSTRING(0 0, 1 1, 2 0)'), 'hex'), '000000000000f03f', '000000000000f87f'), 'hex'))]$$, 'nan'),
('NaN Z and M are ignored', $$ARRAY[ST_MakePoint(0, 0, 'NaN', 'NaN'), 'POINT(0.5 0)', ST_MakePoint(5, 5, 'Infinity')]$$, 'same'),
('NaN Z in a line is ignored', $$ARRAY['POINT(0 0)', ST_MakeLine(ST_MakePoint(0, 1, 'NaN'), ST_MakePoint(1, 1, 0))]$$, 'same'),
('subnormal coordinates', $$ARRAY['POINT(0 0)', 'POINT(5e-324 0)', 'POINT(-5e-324 0)', 'POINT(1e-310 1e-310)', 'POINT(0 5e-324)', 'POINT(2.2250738585072014e-308 0)', 'POINT(1e-320 -1e-320)']$$, 'same'),
('-0.0 and 0.0', $$ARRAY[ST_MakePoint('-0', 0), 'POINT(0 0)', ST_MakePoint(0, '-0'), ST_MakePoint('-0', '-0'), 'POINT(5e-324 0)']$$, 'same'),
('1e308 and the largest double', $$ARRAY['POINT(1e308 1e308)', 'POINT(-1e308 -1e308)', 'POINT(1.7976931348623157e308 0)', 'POINT(1e308 1e308)', 'POINT(0 0)', 'POINT(-1.7976931348623157e308 -1.7976931348623157e308)']$$, 'same'),
('a line from -1e30 to 1e30', $$ARRAY['POINT(0 0)', 'LINESTRING(-1e30 0, 1e30 0)', 'POINT(5 5)', 'POINT(1e30 1)']$$, 'same'),
('a line past the float range of boxes', $$ARRAY['POINT(0 0)', 'LINESTRING(-1e39 0, 1e39 0)', 'POINT(5 5)', 'POINT(1e39 1)']$$, 'same'),
('points 1e200 apart', $$ARRAY['POINT(0 0)', 'POINT(1e200 0)', 'POINT(0 1e200)', 'POINT(0 0)']$$, 'same');
CREATE TEMP TABLE coord_eps (e text);
INSERT INTO coord_eps VALUES ('0'), ('5e-324'), ('1e-300'), ('1'), ('1e300'), ('1.7976931348623157e308'), ($$'Infinity'$$);

SELECT plan((SELECT count(*)::int FROM zoo) + (SELECT count(*)::int FROM coord_cases) + 40);

SELECT is((SELECT string_agg(format('layout %s eps %s minpoints %s: %s', l, e, m, outcome), '; ' ORDER BY l, e, m)
		   FROM zoo_runs r WHERE r.k = z.k AND NOT pg_temp.accepted(outcome)),
		  NULL,
		  format('%s: %s runs (4 layouts x 6 eps x 5 minpoints) as ST_ClusterDBSCAN%s', z.name,
				 (SELECT count(*) FROM zoo_runs r WHERE r.k = z.k),
				 (SELECT CASE WHEN count(*) > 0 THEN format(' (%s where it fails: as the reference)', count(*)) ELSE '' END
				  FROM zoo_runs r WHERE r.k = z.k AND r.outcome <> 'same')))
FROM zoo z ORDER BY z.k;

CREATE TEMP TABLE coord_runs AS
SELECT c.k, c.name, c.want, e.e, m.m, gd_rel.judge_ref(gd_rel.rows(c.arr), e.e, m.m) AS outcome
FROM coord_cases c, coord_eps e, (VALUES ('0'), ('1'), ('2'), ('4')) m(m);

SELECT is((SELECT string_agg(format('eps %s minpoints %s: %s', e, m, outcome), '; ' ORDER BY e, m)
		   FROM coord_runs r
		   WHERE r.k = c.k AND NOT CASE c.want
				WHEN 'nan' THEN outcome ~ '^(ours|both): 22023 gpu_dbscan: geometry has a NaN or infinite coordinate'
				ELSE pg_temp.accepted(outcome) END),
		  NULL,
		  format('%s: %s runs, %s', c.name, (SELECT count(*) FROM coord_runs r WHERE r.k = c.k),
				 CASE c.want WHEN 'nan' THEN 'our clear error' ELSE 'as ST_ClusterDBSCAN (or the reference where it fails)' END))
FROM coord_cases c ORDER BY c.k;

-- A line whose float box is infinite, at an eps of 1e308: ST_ClusterDBSCAN
-- fails; we raise an error as well, with a SQLSTATE of its own.
SELECT ok(gd_rel.clear_error(gd_rel.judge(gd_rel.rows($$ARRAY['POINT(0 0)', 'LINESTRING(-1e308 0, 1e308 0)', 'POINT(5 5)']$$), '1e308', '2')),
		  'a line from -1e308 to 1e308 at eps 1e308: a clear error where ST_ClusterDBSCAN fails');
SELECT is(gd_rel.judge_ref(gd_rel.rows($$ARRAY['POINT(0 0)', 'LINESTRING(-1e308 0, 1e308 0)', 'POINT(5 5)']$$), e, '2'),
		  'postgis: XX000 Error during clustering; ours = reference',
		  format('a line from -1e308 to 1e308 at eps %s: the reference where ST_ClusterDBSCAN fails', e))
FROM (VALUES ('1'), ('1e307'), ($$'Infinity'$$)) v(e);

-- SRIDs: one per partition; NULL rows have none; an EMPTY row has one.
SELECT is(gd_rel.judge(gd_rel.rows(a), '1', m), w, n)
FROM (VALUES
	($$ARRAY['SRID=4326;POINT(0 0)', 'SRID=3857;POINT(0 0)']$$, '2', 'ours: 22023 gpu_dbscan: geometries of one partition have different SRIDs', '4326 and 3857'),
	($$ARRAY['POINT(0 0)', 'SRID=4326;POINT(0 0)']$$, '0', 'ours: 22023 gpu_dbscan: geometries of one partition have different SRIDs', 'unknown (0) and 4326'),
	($$ARRAY['SRID=4326;POINT(0 0)', 'SRID=4326;LINESTRING(0 0, 1 1)', 'SRID=4269;POLYGON((0 0, 1 0, 1 1, 0 0))']$$, '1', 'ours: 22023 gpu_dbscan: geometries of one partition have different SRIDs', 'a point, a line and a polygon in two SRIDs'),
	($$ARRAY['SRID=4326;POINT(0 0)', 'SRID=3857;POINT EMPTY']$$, '1', 'ours: 22023 gpu_dbscan: geometries of one partition have different SRIDs', 'an EMPTY row of another SRID'),
	($$ARRAY['SRID=4326;POINT(0 0)', NULL, 'SRID=4326;POINT(0.5 0)', NULL]$$, '2', 'same', 'NULL rows among SRID 4326 points'),
	($$ARRAY['SRID=-1;POINT(0 0)', 'POINT(0.5 0)']$$, '2', 'same', 'SRID -1 is unknown, as 0'),
	($$ARRAY['SRID=999999;POINT(0 0)', 'SRID=999999;POINT(0.5 0)']$$, '2', 'same', 'the largest SRID')
) v(a, m, w, n);
SELECT is(gd_test.compare($$(SELECT * FROM (VALUES (1, 'SRID=4326;POINT(0 0)'::geometry), (2, 'SRID=3857;POINT(0 0)'),
									(3, 'SRID=4326;POINT(0.5 0)'), (4, 'POINT(0 0)'), (5, 'SRID=3857;POINT(1 0)')) v(id, geom)) s$$,
						  1, 1, 'ST_SRID(geom)'), NULL, 'one partition per SRID: as ST_ClusterDBSCAN');

-- eps and minpoints on 60 seeded points with duplicates.
CREATE TEMP TABLE sixty AS
SELECT i AS id, ST_MakePoint(floor(random() * 6) / 4, floor(random() * 6) / 4) AS geom
FROM (SELECT setseed(0.8)) s, generate_series(1, 60) i;
SELECT is(gd_rel.judge('SELECT * FROM sixty', e, '3'), 'same', format('eps %s', e))
FROM (VALUES ('0'), ('5e-324'), ($$'-0'::float8$$), ('1e-300'), ('0.25'), ('1e300'), ($$'Infinity'$$)) v(e);
SELECT is(gd_rel.judge('SELECT * FROM sixty', '''NaN''', m), 'ours: 22023 Tolerance must be a number, not NaN',
		  format('eps NaN, minpoints %s: our clear error', m))
FROM (VALUES ('0'), ('2')) v(m);
SELECT is(gd_rel.judge('SELECT * FROM sixty', e, m), 'same', format('eps %s, minpoints %s', e, m))
FROM (VALUES ('0'), ('0.25')) a(e), (VALUES ('0'), ('1'), ('59'), ('60'), ('61'), ('2147483647')) b(m);
SELECT is(gd_rel.judge('SELECT * FROM sixty', '0.25', '-1'), 'both: 22023 Minpoints must be a positive number | XX000 Minpoints must be a positive number',
		  'minpoints -1: both refuse it');

-- Partitions of no row and of one row.
SELECT is(gd_rel.judge('SELECT 1 AS id, NULL::geometry AS geom WHERE false', '1', '2'), 'same', 'no rows');
SELECT is((SELECT count(*) FROM (SELECT gpu_dbscan(geom, 1, 2) OVER () FROM sixty WHERE false) s), 0::bigint,
		  'no rows: no rows out, no error');
SELECT is((SELECT string_agg(format('%s minpoints %s: %s', g, m, o), '; ')
		   FROM (VALUES ('POINT(1 1)'), (NULL), ('POINT EMPTY'), ('LINESTRING(0 0, 1 1)'), ('CIRCULARSTRING(0 0, 1 1, 2 0)'),
						('TIN EMPTY'), ('POLYHEDRALSURFACE Z (((0 0 0, 0 1 0, 1 1 0, 0 0 0)))')) a(g),
				(VALUES ('0'), ('1'), ('2'), ('2147483647')) b(m),
				LATERAL (SELECT gd_rel.judge(format('SELECT 1 AS id, %L::geometry AS geom', g), '1', m) AS o) j
		   WHERE o <> 'same'), NULL, 'one row of each kind, minpoints 0, 1, 2, INT_MAX: as ST_ClusterDBSCAN');

-- Corrupt serialized values (a value's bytes cut short, or one byte flipped):
-- gpu_dbscan and gpu_dbscan_read_floor answer or raise XX001 (data
-- corrupted) or 22023 (a box with min > max), one value per partition (so
-- that no PostGIS function sees it), minpoints 0 and 2.
CREATE FUNCTION pg_temp.try(sql text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE sql;
	RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
	RETURN SQLSTATE || ' ' || SQLERRM;
END
$$;
CREATE TEMP TABLE corrupt AS
WITH seeds(g) AS (VALUES ('POINT(1 2)'::geometry), ('SRID=4326;POINT Z (1 2 3)'), ('LINESTRING(0 0, 1 1, 2 0)'),
						 ('POLYGON((0 0, 1 0, 1 1, 0 0), (0.1 0.1, 0.2 0.1, 0.2 0.2, 0.1 0.1))'),
						 ('MULTIPOINT(0 0, 1 1)'), ('GEOMETRYCOLLECTION(POINT(1 1), GEOMETRYCOLLECTION(LINESTRING(0 0, 1 1)))'),
						 ('POINT EMPTY'), ('MULTIPOLYGON(((0 0, 1 0, 1 1, 0 0)))')),
	 raw AS (SELECT row_number() OVER () AS s, pg_temp.raw_bytes(g) AS b FROM seeds)
SELECT s, 'cut at ' || n AS what, substr(b, 1, n) AS b FROM raw, generate_series(0, length(b) - 1) n
UNION ALL
SELECT s, 'byte ' || n || ' flipped', overlay(b PLACING set_byte('\x00'::bytea, 0, get_byte(b, n) # 255) FROM n + 1 FOR 1)
FROM raw, generate_series(0, length(b) - 1) n;
CREATE TEMP TABLE corrupt_runs AS
SELECT s, what,
	   pg_temp.try(format($q$SELECT gpu_dbscan(pg_temp.raw_geom(%1$L), 1, 0) OVER (), (SELECT gpu_dbscan(pg_temp.raw_geom(%1$L), 1, 2) OVER ())$q$, b)) AS a,
	   pg_temp.try(format($q$SELECT gpu_dbscan_read_floor(pg_temp.raw_geom(%L)) OVER ()$q$, b)) AS f
FROM corrupt;
SELECT is((SELECT string_agg(format('seed %s %s: %s / %s', s, what, a, f), '; ')
		   FROM corrupt_runs WHERE a !~ '^(ok|XX001 invalid serialized geometry: |22023 )' OR f !~ '^(ok|XX001 invalid serialized geometry: )'),
		  NULL,
		  format('%s corrupt values (%s refused): an answer, XX001 or 22023',
				 (SELECT count(*) FROM corrupt_runs), (SELECT count(*) FROM corrupt_runs WHERE a <> 'ok')));

-- Still the same server and session.
SELECT is(gd_test.checkpointer_pid(), :server_checkpointer, 'the server was not restarted (the same checkpointer process)');
SELECT is(pg_backend_pid(), :server_session, 'this session survived');

SELECT * FROM finish();
ROLLBACK;
