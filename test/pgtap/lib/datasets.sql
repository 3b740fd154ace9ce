-- test/pgtap/lib/datasets.sql — seeded data generators for the equivalence suite.
--
-- Each generator returns (id, geom) rows; ids are 1..n.  The random ones take
-- a seed for setseed() so that every run sees the same points.  Plain SQL and
-- PL/pgSQL in schema gd_test; included with \ir after labelings.sql.

CREATE SCHEMA IF NOT EXISTS gd_test;

-- n points uniform in [x0, x0 + size) x [y0, y0 + size).
CREATE OR REPLACE FUNCTION gd_test.gen_uniform(seed float8, n int, size float8,
											   x0 float8 DEFAULT 0, y0 float8 DEFAULT 0,
											   srid int DEFAULT 0)
RETURNS TABLE (id int, geom geometry)
LANGUAGE plpgsql AS $$
BEGIN
	PERFORM setseed(seed);
	RETURN QUERY
	SELECT i, ST_SetSRID(ST_MakePoint(x0 + random() * size, y0 + random() * size), srid)
	FROM generate_series(1, n) AS i;
END
$$;

-- k gaussian blobs (centres uniform in the square, standard deviation sigma,
-- Box-Muller from two uniforms) plus a fraction noise_frac of uniform noise.
CREATE OR REPLACE FUNCTION gd_test.gen_blobs(seed float8, n int, k int, sigma float8,
											 noise_frac float8, size float8,
											 srid int DEFAULT 0)
RETURNS TABLE (id int, geom geometry)
LANGUAGE plpgsql AS $$
DECLARE
	cx	float8[];
	cy	float8[];
BEGIN
	PERFORM setseed(seed);
	SELECT array_agg(random() * size ORDER BY j), array_agg(random() * size ORDER BY j)
	INTO cx, cy FROM generate_series(1, k) AS j;
	RETURN QUERY
	SELECT i,
		   ST_SetSRID(CASE WHEN u0 < noise_frac
						   THEN ST_MakePoint(u1 * size, u2 * size)
						   ELSE ST_MakePoint(cx[c] + sigma * sqrt(-2 * ln(1 - u1)) * cos(2 * pi() * u2),
											 cy[c] + sigma * sqrt(-2 * ln(1 - u1)) * sin(2 * pi() * u2))
					  END, srid)
	FROM (SELECT i, random() AS u0, random() AS u1, random() AS u2,
				 1 + floor(random() * k)::int AS c
		  FROM generate_series(1, n) AS i) s;
END
$$;

-- n rows drawn from only k distinct sites on a coarse grid (exact duplicates,
-- and sites at exactly `step` from each other).
CREATE OR REPLACE FUNCTION gd_test.gen_duplicates(seed float8, n int, k int, step float8)
RETURNS TABLE (id int, geom geometry)
LANGUAGE plpgsql AS $$
DECLARE
	sx	float8[];
	sy	float8[];
BEGIN
	PERFORM setseed(seed);
	SELECT array_agg(floor(random() * 8) * step ORDER BY j),
		   array_agg(floor(random() * 8) * step ORDER BY j)
	INTO sx, sy FROM generate_series(1, k) AS j;
	RETURN QUERY
	SELECT i, ST_MakePoint(sx[c], sy[c])
	FROM (SELECT i, 1 + floor(random() * k)::int AS c FROM generate_series(1, n) AS i) s;
END
$$;

-- An nx by ny lattice at x0 + i * step, y0 + j * step (computed in double, so
-- neighbouring spacings are step give or take an ulp), with an optional
-- fraction of the sites left out (hashing, no random state) to cut it into
-- several clusters.
CREATE OR REPLACE FUNCTION gd_test.gen_lattice(nx int, ny int, step float8,
											   x0 float8 DEFAULT 0, y0 float8 DEFAULT 0,
											   hole_frac float8 DEFAULT 0)
RETURNS TABLE (id int, geom geometry)
LANGUAGE sql AS $$
	SELECT (row_number() OVER (ORDER BY i, j))::int,
		   ST_MakePoint(x0 + i * step, y0 + j * step)
	FROM generate_series(0, nx - 1) AS i, generate_series(0, ny - 1) AS j
	WHERE abs(hashint4(i * 7919 + j)) % 1000 >= hole_frac * 1000
$$;

-- n points on a line through (x0, y0) at angle theta, consecutive points
-- step apart (as far as double rounding allows).
CREATE OR REPLACE FUNCTION gd_test.gen_line(n int, step float8, theta float8,
											x0 float8 DEFAULT 0, y0 float8 DEFAULT 0)
RETURNS TABLE (id int, geom geometry)
LANGUAGE sql AS $$
	SELECT i + 1, ST_MakePoint(x0 + i * step * cos(theta), y0 + i * step * sin(theta))
	FROM generate_series(0, n - 1) AS i
$$;

-- n points on a cells x cells grid of spacing step, each moved by a jitter of
-- step * 10^-k (k uniform in 1..17, random sign): neighbouring points are
-- step apart give or take amounts down to the last bit, so that x - y is
-- rounded and the test against eps = step falls either way.
CREATE OR REPLACE FUNCTION gd_test.gen_jittered(seed float8, n int, step float8, cells int)
RETURNS TABLE (id int, geom geometry)
LANGUAGE plpgsql AS $$
BEGIN
	PERFORM setseed(seed);
	RETURN QUERY
	SELECT i, ST_MakePoint(floor(random() * cells) * step + (random() - 0.5) * step * 10 ^ -(1 + floor(random() * 17)),
						   floor(random() * cells) * step + (random() - 0.5) * step * 10 ^ -(1 + floor(random() * 17)))
	FROM generate_series(1, n) AS i;
END
$$;

-- n lon/lat points (SRID 4326) near (lon0, lat0) on a grid of `quantum`
-- degrees, span quanta wide: tiny distances of exact multiples of quantum
-- as far as doubles allow.
CREATE OR REPLACE FUNCTION gd_test.gen_lonlat(seed float8, n int, lon0 float8, lat0 float8,
											  quantum float8, span int)
RETURNS TABLE (id int, geom geometry)
LANGUAGE plpgsql AS $$
BEGIN
	PERFORM setseed(seed);
	RETURN QUERY
	SELECT i, ST_SetSRID(ST_MakePoint(lon0 + floor(random() * span) * quantum,
									  lat0 + floor(random() * span) * quantum), 4326)
	FROM generate_series(1, n) AS i;
END
$$;

-- n mixed geometries in a size x size square: short lines, small polygons,
-- multipoints and points, each roughly `extent` across.
CREATE OR REPLACE FUNCTION gd_test.gen_shapes(seed float8, n int, size float8, extent float8)
RETURNS TABLE (id int, geom geometry)
LANGUAGE plpgsql AS $$
BEGIN
	PERFORM setseed(seed);
	RETURN QUERY
	SELECT i,
		   CASE i % 4
			   WHEN 0 THEN ST_MakeLine(ST_MakePoint(x, y), ST_MakePoint(x + dx, y + dy))
			   WHEN 1 THEN ST_Expand(ST_MakePoint(x, y), abs(dx) / 2)
			   WHEN 2 THEN ST_Collect(ST_MakePoint(x, y), ST_MakePoint(x + dx, y - dy))
			   ELSE ST_MakePoint(x, y)
		   END
	FROM (SELECT i, random() * size AS x, random() * size AS y,
				 (random() - 0.5) * extent AS dx, (random() - 0.5) * extent AS dy
		  FROM generate_series(1, n) AS i) s;
END
$$;

-- Every generated data set lives in one table; ds names the set, part the
-- window partition within it.
CREATE TABLE IF NOT EXISTS gd_test.pts (
	ds		int NOT NULL,
	part	int NOT NULL DEFAULT 0,
	id		int NOT NULL,
	geom	geometry
);
CREATE INDEX IF NOT EXISTS pts_ds ON gd_test.pts (ds);

-- Replaces about null_frac of set ds's rows with NULL and empty_frac with
-- POINT EMPTY (same SRID), chosen by hashing so no random state is used.
CREATE OR REPLACE FUNCTION gd_test.sprinkle(set_id int, null_frac float8, empty_frac float8)
RETURNS void
LANGUAGE sql AS $$
	UPDATE gd_test.pts
	SET geom = CASE WHEN h < null_frac * 10000 THEN NULL
					ELSE ST_SetSRID('POINT EMPTY'::geometry, ST_SRID(geom)) END
	FROM (SELECT ds AS d, part AS p, id AS i, abs(hashint4(id * 31 + ds * 1000003 + part)) % 10000 AS h
		  FROM gd_test.pts WHERE ds = set_id) x
	WHERE ds = x.d AND part = x.p AND id = x.i
	  AND x.h < (null_frac + empty_frac) * 10000;
$$;

-- A FROM item for set ds, for gd_test.compare.
CREATE OR REPLACE FUNCTION gd_test.ds(set_id int)
RETURNS text
LANGUAGE sql IMMUTABLE AS $$ SELECT format('(SELECT * FROM gd_test.pts WHERE ds = %s) s', set_id) $$;
