-- test/pgtap/lib/geometry_gen.sql — structure-aware random geometries for
-- the malformed-value fuzz (issue 11): nested collections, curve polygons,
-- compound curves, polyhedral surfaces, TINs and triangles whose rings and
-- members are often EMPTY or degenerate (0 to 7 vertices, unclosed rings,
-- even-length arcs), at random depths.
--
-- Each value comes out twice, as the same tree in two encodings:
--   wkb  big-endian (XDR) WKB, for ST_GeomFromEWKB: what any role can send
--        (PostGIS's parser refuses some of them);
--   gs   the serialized form (GSERIALIZED v2, 2D, SRID 0, no box) without
--        its varlena header, for a superuser's raw value (nothing checks it);
-- with a label (WKT-like, vertex counts instead of coordinates) and
-- malformed: whether the tree breaks the rule of src/gserialized_points.c
-- ("Malformed values": the rings of a (curve)polygon and the members of a
-- compound curve are all EMPTY or none is), worked out here from the tree,
-- independently of the C code.
--
-- Plain SQL and PL/pgSQL in schema gd_test; included with \ir after
-- prelude.sql.  Deterministic for a given setseed().

CREATE SCHEMA IF NOT EXISTS gd_test;

DROP TYPE IF EXISTS gd_test.gen_geom CASCADE;
CREATE TYPE gd_test.gen_geom AS (wkb bytea, gs bytea, label text, malformed boolean, empty boolean);

-- The bytes of b in reverse order (big-endian to the native little-endian).
CREATE OR REPLACE FUNCTION gd_test.gen_rev(b bytea)
RETURNS bytea
LANGUAGE sql IMMUTABLE STRICT AS $$
	SELECT coalesce(string_agg(substring(b FROM i FOR 1), ''::bytea ORDER BY i DESC), ''::bytea)
	FROM generate_series(1, length(b)) i
$$;

CREATE OR REPLACE FUNCTION gd_test.gen_u32(n int, native boolean)
RETURNS bytea
LANGUAGE sql IMMUTABLE STRICT AS $$
	SELECT CASE WHEN native THEN gd_test.gen_rev(int4send(n)) ELSE int4send(n) END
$$;

CREATE OR REPLACE FUNCTION gd_test.gen_f64(x float8, native boolean)
RETURNS bytea
LANGUAGE sql IMMUTABLE STRICT AS $$
	SELECT CASE WHEN native THEN gd_test.gen_rev(float8send(x)) ELSE float8send(x) END
$$;

-- PostGIS's type numbers: serialized (liblwgeom) and ISO WKB differ for
-- polyhedral surfaces, TINs and triangles.
CREATE OR REPLACE FUNCTION gd_test.gen_type(t text, wkb boolean)
RETURNS int
LANGUAGE sql IMMUTABLE STRICT AS $$
	SELECT CASE t WHEN 'POINT' THEN 1 WHEN 'LINESTRING' THEN 2 WHEN 'POLYGON' THEN 3
		WHEN 'MULTIPOINT' THEN 4 WHEN 'MULTILINESTRING' THEN 5 WHEN 'MULTIPOLYGON' THEN 6
		WHEN 'GEOMETRYCOLLECTION' THEN 7 WHEN 'CIRCULARSTRING' THEN 8 WHEN 'COMPOUNDCURVE' THEN 9
		WHEN 'CURVEPOLYGON' THEN 10 WHEN 'MULTICURVE' THEN 11 WHEN 'MULTISURFACE' THEN 12
		WHEN 'POLYHEDRALSURFACE' THEN CASE WHEN wkb THEN 15 ELSE 13 END
		WHEN 'TRIANGLE' THEN CASE WHEN wkb THEN 17 ELSE 14 END
		WHEN 'TIN' THEN CASE WHEN wkb THEN 16 ELSE 15 END END
$$;

-- One of the values, by weight: gen_pick('{0,1,5}', '{1,1,2}') is 5 half the time.
CREATE OR REPLACE FUNCTION gd_test.gen_pick(vals int[], weights int[])
RETURNS int
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
	total	int := 0;
	r		float8;
	i		int;
BEGIN
	FOR i IN 1 .. cardinality(weights) LOOP
		total := total + weights[i];
	END LOOP;
	r := random() * total;
	FOR i IN 1 .. cardinality(vals) LOOP
		r := r - weights[i];
		IF r < 0 THEN
			RETURN vals[i];
		END IF;
	END LOOP;
	RETURN vals[cardinality(vals)];
END
$$;

-- k vertices around (ox, oy), in both encodings (no count); closed: the
-- last vertex repeats the first (when k >= 2).
CREATE OR REPLACE FUNCTION gd_test.gen_points(k int, closed boolean, ox float8, oy float8,
											  OUT wkb bytea, OUT gs bytea)
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
	xs	float8[] := ARRAY[0, 4, 4, 0, 2, 1, 3];
	ys	float8[] := ARRAY[0, 0, 4, 4, 6, 7, 2];
	i	int;
	j	int;
BEGIN
	wkb := ''::bytea;
	gs := ''::bytea;
	FOR i IN 1 .. k LOOP
		j := CASE WHEN closed AND k >= 2 AND i = k THEN 1 ELSE (i - 1) % 7 + 1 END;
		wkb := wkb || gd_test.gen_f64(ox + xs[j], false) || gd_test.gen_f64(oy + ys[j], false);
		gs := gs || gd_test.gen_f64(ox + xs[j], true) || gd_test.gen_f64(oy + ys[j], true);
	END LOOP;
END
$$;

-- A point array geometry (LINESTRING, CIRCULARSTRING, TRIANGLE) of k vertices.
CREATE OR REPLACE FUNCTION gd_test.gen_array(t text, k int, closed boolean, ox float8, oy float8)
RETURNS gd_test.gen_geom
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
	p	record;
	g	gd_test.gen_geom;
BEGIN
	p := gd_test.gen_points(k, closed, ox, oy);
	g.gs := gd_test.gen_u32(gd_test.gen_type(t, false), true) || gd_test.gen_u32(k, true) || p.gs;
	IF t = 'TRIANGLE' THEN
		-- WKB writes a triangle as a polygon: a ring count, then the ring
		g.wkb := '\x00'::bytea || gd_test.gen_u32(gd_test.gen_type(t, true), false) ||
			gd_test.gen_u32(CASE WHEN k = 0 THEN 0 ELSE 1 END, false) ||
			CASE WHEN k = 0 THEN ''::bytea ELSE gd_test.gen_u32(k, false) || p.wkb END;
	ELSE
		g.wkb := '\x00'::bytea || gd_test.gen_u32(gd_test.gen_type(t, true), false) ||
			gd_test.gen_u32(k, false) || p.wkb;
	END IF;
	g.label := t || k;
	g.malformed := false;
	g.empty := k = 0;
	RETURN g;
END
$$;

-- A random geometry of one of the types in kinds, at most depth levels of
-- collections deep, around (ox, oy).
CREATE OR REPLACE FUNCTION gd_test.gen_geometry(kinds text[], depth int, ox float8, oy float8)
RETURNS gd_test.gen_geom
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
	t		text;
	g		gd_test.gen_geom;
	m		gd_test.gen_geom;
	n		int;
	k		int;
	i		int;
	nempty	int := 0;
	p		record;
	sub		text[];
	labels	text[] := '{}';
	counts	bytea := ''::bytea;
	rings_w	bytea := ''::bytea;
	rings_g	bytea := ''::bytea;
	mw		bytea := ''::bytea;
	mg		bytea := ''::bytea;
	bad		boolean := false;
BEGIN
	IF depth <= 0 THEN
		-- no collections below this level
		kinds := ARRAY(SELECT x FROM unnest(kinds) x
					   WHERE x IN ('POINT', 'LINESTRING', 'CIRCULARSTRING', 'TRIANGLE', 'POLYGON',
								   'COMPOUNDCURVE', 'CURVEPOLYGON'));
		IF cardinality(kinds) = 0 THEN
			kinds := ARRAY['POINT'];
		END IF;
	END IF;
	t := kinds[1 + floor(random() * cardinality(kinds))::int];

	IF t = 'POINT' THEN
		IF random() < 0.15 THEN
			-- EMPTY: NaN coordinates in WKB, no vertex when serialized
			g.wkb := '\x00'::bytea || gd_test.gen_u32(1, false) ||
				gd_test.gen_f64('NaN', false) || gd_test.gen_f64('NaN', false);
			g.gs := gd_test.gen_u32(1, true) || gd_test.gen_u32(0, true);
			g.label := 'POINT0';
			g.malformed := false;
			g.empty := true;
			RETURN g;
		END IF;
		p := gd_test.gen_points(1, false, ox + random(), oy + random());
		g.wkb := '\x00'::bytea || gd_test.gen_u32(1, false) || p.wkb;
		g.gs := gd_test.gen_u32(1, true) || gd_test.gen_u32(1, true) || p.gs;
		g.label := 'POINT1';
		g.malformed := false;
		g.empty := false;
		RETURN g;
	ELSIF t = 'LINESTRING' THEN
		RETURN gd_test.gen_array(t, gd_test.gen_pick('{0,1,2,3,5}', '{2,1,3,2,2}'), random() < 0.5, ox, oy);
	ELSIF t = 'CIRCULARSTRING' THEN
		RETURN gd_test.gen_array(t, gd_test.gen_pick('{0,1,2,3,4,5}', '{2,1,1,3,1,3}'), random() < 0.6, ox, oy);
	ELSIF t = 'TRIANGLE' THEN
		RETURN gd_test.gen_array(t, gd_test.gen_pick('{0,3,4,5}', '{2,1,5,1}'), random() < 0.9, ox, oy);
	ELSIF t = 'POLYGON' THEN
		n := gd_test.gen_pick('{0,1,2,3}', '{1,4,3,2}');
		FOR i IN 1 .. n LOOP
			k := gd_test.gen_pick('{0,1,3,4,5,7}', '{3,1,1,4,4,1}');
			p := gd_test.gen_points(k, random() < 0.9, ox, oy);
			IF k = 0 THEN
				nempty := nempty + 1;
			END IF;
			counts := counts || gd_test.gen_u32(k, true);
			rings_w := rings_w || gd_test.gen_u32(k, false) || p.wkb;
			rings_g := rings_g || p.gs;
			labels := labels || k::text;
		END LOOP;
		IF n % 2 = 1 THEN
			counts := counts || gd_test.gen_u32(0, true);	-- padding
		END IF;
		g.wkb := '\x00'::bytea || gd_test.gen_u32(3, false) || gd_test.gen_u32(n, false) || rings_w;
		g.gs := gd_test.gen_u32(3, true) || gd_test.gen_u32(n, true) || counts || rings_g;
		g.label := 'POLYGON(' || array_to_string(labels, ',') || ')';
		g.malformed := nempty > 0 AND nempty < n;
		g.empty := nempty = n;
		RETURN g;
	END IF;

	-- collections: their members' types (lwcollection_allows_subtype)
	sub := CASE t
		WHEN 'COMPOUNDCURVE' THEN ARRAY['LINESTRING', 'CIRCULARSTRING']
		WHEN 'CURVEPOLYGON' THEN ARRAY['LINESTRING', 'CIRCULARSTRING', 'COMPOUNDCURVE']
		WHEN 'MULTIPOINT' THEN ARRAY['POINT']
		WHEN 'MULTILINESTRING' THEN ARRAY['LINESTRING']
		WHEN 'MULTIPOLYGON' THEN ARRAY['POLYGON']
		WHEN 'POLYHEDRALSURFACE' THEN ARRAY['POLYGON']
		WHEN 'TIN' THEN ARRAY['TRIANGLE']
		WHEN 'MULTICURVE' THEN ARRAY['LINESTRING', 'CIRCULARSTRING', 'COMPOUNDCURVE']
		WHEN 'MULTISURFACE' THEN ARRAY['POLYGON', 'CURVEPOLYGON']
		ELSE ARRAY['POINT', 'LINESTRING', 'CIRCULARSTRING', 'TRIANGLE', 'POLYGON', 'COMPOUNDCURVE',
				   'CURVEPOLYGON', 'MULTIPOINT', 'MULTILINESTRING', 'MULTIPOLYGON', 'MULTICURVE',
				   'MULTISURFACE', 'POLYHEDRALSURFACE', 'TIN', 'GEOMETRYCOLLECTION'] END;
	n := gd_test.gen_pick('{0,1,2,3}', '{1,3,4,2}');
	FOR i IN 1 .. n LOOP
		m := gd_test.gen_geometry(sub, CASE WHEN t IN ('COMPOUNDCURVE', 'CURVEPOLYGON') THEN depth ELSE depth - 1 END,
								  ox, oy);
		mw := mw || m.wkb;
		mg := mg || m.gs;
		labels := labels || m.label;
		bad := bad OR m.malformed;
		IF m.empty THEN
			nempty := nempty + 1;
		END IF;
	END LOOP;
	g.wkb := '\x00'::bytea || gd_test.gen_u32(gd_test.gen_type(t, true), false) || gd_test.gen_u32(n, false) || mw;
	g.gs := gd_test.gen_u32(gd_test.gen_type(t, false), true) || gd_test.gen_u32(n, true) || mg;
	g.label := t || '(' || array_to_string(labels, ',') || ')';
	g.malformed := bad OR (t IN ('COMPOUNDCURVE', 'CURVEPOLYGON') AND nempty > 0 AND nempty < n);
	g.empty := nempty = n;
	RETURN g;
END
$$;

-- n random values (seeded), numbered 1..n, of every type at the top.
CREATE OR REPLACE FUNCTION gd_test.gen_geometries(seed float8, n int)
RETURNS TABLE (k int, wkb bytea, gs bytea, label text, malformed boolean, empty boolean)
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
	g	gd_test.gen_geom;
BEGIN
	PERFORM setseed(seed);
	FOR i IN 1 .. n LOOP
		g := gd_test.gen_geometry(ARRAY['POLYGON', 'COMPOUNDCURVE', 'CURVEPOLYGON', 'MULTIPOINT',
										'MULTILINESTRING', 'MULTIPOLYGON', 'MULTICURVE', 'MULTISURFACE',
										'POLYHEDRALSURFACE', 'TIN', 'GEOMETRYCOLLECTION', 'TRIANGLE',
										'LINESTRING', 'CIRCULARSTRING'],
								  3, 0, 0);
		k := i;
		wkb := g.wkb;
		-- SRID 0, flags: version 2, no Z, M or box
		gs := '\x00000040'::bytea || g.gs;
		label := g.label;
		malformed := g.malformed;
		empty := g.empty;
		RETURN NEXT;
	END LOOP;
END
$$;
