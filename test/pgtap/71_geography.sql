-- gpu_dbscan(geography, eps_m, minpoints) against DBSCAN written out in SQL
-- (lib/reference_dbscan.sql) over the pairs of rows i < j for which
-- ST_DWithin(geog_i, geog_j, eps_m, false) is true.
--
-- Seeded sets: uniform over the sphere, a band across the antimeridian,
-- caps at both poles (exact pole points with different longitudes
-- included), blobs centred on the antimeridian and next to the poles,
-- duplicates, NULL and EMPTY rows, another SRID (another radius), and the
-- GeoNames cities near the antimeridian and the poles plus a sample of the
-- rest.  eps from 0 and 1 m to more than half the circumference.  Then each
-- of 300 pairs alone with eps = its rounded ST_Distance: clustered exactly
-- when ST_DWithin says so; and pairs that near the edge of eps with both
-- answers in one partition.
\ir lib/prelude.sql
\ir lib/reference_dbscan.sql

\if :{?cities_file}
\else
\set cities_file `pwd`/cache/cities500.tsv
\endif
SELECT (pg_stat_file(:'cities_file', true)).size IS NOT NULL AS have_cities \gset

-- One row per point: lon/lat in degrees; kind 'P' (point), 'N' (NULL) or 'E' (EMPTY).
CREATE TABLE gd_test.geo (ds int, id int, lon float8, lat float8, kind char DEFAULT 'P',
						  srid int DEFAULT 4326);
CREATE TABLE gd_test.geo_sets (ds int PRIMARY KEY, family text);
CREATE TABLE gd_test.geo_cases (case_id serial, ds int, eps float8, minpoints int);

-- Longitude wrapped into [-180, 180).
CREATE FUNCTION gd_test.wrap(lon float8) RETURNS float8
LANGUAGE sql IMMUTABLE AS $$ SELECT lon - 360 * floor((lon + 180) / 360) $$;

-- n seeded points: family sphere (uniform on the sphere), band (lon within
-- 5 degrees of the antimeridian, lat within 10 of the equator), north /
-- south (caps within cap degrees of the pole, a tenth exactly on it), blobs
-- (gaussian, sigma degrees, around the centres given), dups (k sites).
CREATE FUNCTION gd_test.gen_geo(set_id int, seed float8, family text, n int,
								cap float8 DEFAULT 2, sigma float8 DEFAULT 0.2,
								clon float8[] DEFAULT '{180,0,-179.9}',
								clat float8[] DEFAULT '{0,89.5,-89.9}')
RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
	lon	float8;
	lat	float8;
	c	int;
BEGIN
	PERFORM setseed(seed);
	FOR i IN 1 .. n LOOP
		lon := 360 * random() - 180;
		CASE family
			WHEN 'sphere' THEN
				lat := degrees(asin(2 * random() - 1));
			WHEN 'band' THEN
				lon := gd_test.wrap(175 + 10 * random());
				lat := 20 * random() - 10;
			WHEN 'north' THEN
				lat := CASE WHEN i % 10 = 0 THEN 90 ELSE 90 - cap * random() END;
			WHEN 'south' THEN
				lat := CASE WHEN i % 10 = 0 THEN -90 ELSE -90 + cap * random() END;
			WHEN 'blobs' THEN
				c := 1 + floor(random() * cardinality(clon))::int;
				lon := gd_test.wrap(clon[c] + sigma * sqrt(-2 * ln(1 - random())) * cos(2 * pi() * random()));
				lat := clat[c] + sigma * sqrt(-2 * ln(1 - random())) * sin(2 * pi() * random());
				lat := CASE WHEN lat > 90 THEN 180 - lat WHEN lat < -90 THEN -180 - lat ELSE lat END;
			WHEN 'dups' THEN
				c := floor(random() * 7)::int;
				lon := gd_test.wrap(179.99 + 0.01 * c);
				lat := 45 + 0.001 * (c % 3);
		END CASE;
		INSERT INTO gd_test.geo (ds, id, lon, lat) VALUES (set_id, i, lon, lat);
	END LOOP;
END
$$;

SELECT gd_test.gen_geo(1, 0.11, 'sphere', 400),
	   gd_test.gen_geo(2, 0.22, 'band', 400),
	   gd_test.gen_geo(3, 0.33, 'north', 300),
	   gd_test.gen_geo(4, 0.44, 'south', 300, 1.5),
	   gd_test.gen_geo(5, 0.55, 'blobs', 500),
	   gd_test.gen_geo(6, 0.66, 'dups', 200),
	   gd_test.gen_geo(7, 0.77, 'sphere', 146),
	   gd_test.gen_geo(8, 0.88, 'band', 300) \g /dev/null
-- antipodes, and the poles, for the cases around half the circumference
INSERT INTO gd_test.geo (ds, id, lon, lat) VALUES
	(7, 147, 10, 10), (7, 148, -170, -10), (7, 149, 0, 90), (7, 150, 0, -90);
-- another SRID: PostGIS's sphere for GRS 80 has another radius
UPDATE gd_test.geo SET srid = 4269 WHERE ds = 8;
-- NULL and EMPTY rows in some sets
UPDATE gd_test.geo SET kind = 'N' WHERE ds IN (2, 3, 5) AND id % 17 = 3;
UPDATE gd_test.geo SET kind = 'E' WHERE ds IN (2, 4, 5) AND id % 19 = 5;

INSERT INTO gd_test.geo_sets VALUES
	(1, 'uniform on the sphere'),
	(2, 'band across the antimeridian'),
	(3, 'north polar cap'),
	(4, 'south polar cap'),
	(5, 'blobs on the antimeridian and by the poles'),
	(6, 'duplicates 1 km apart across the antimeridian'),
	(7, 'uniform and antipodes, eps around half the circumference (pi R = 20,015,114.35 m)'),
	(8, 'band, SRID 4269');

-- eps (metres) and minpoints of each set, as arrays
INSERT INTO gd_test.geo_cases (ds, eps, minpoints)
SELECT ds, e, m
FROM (VALUES
	(1, '{300000,800000,1500000,1000000,2500000}'::float8[], '{2,3,5,1,12}'::int[]),
	(2, '{10000,30000,60000,45000,120000}', '{2,3,6,0,15}'),
	(3, '{0,5000,15000,40000,25000}', '{2,2,4,8,1}'),
	(4, '{0,1,4000,12000,30000}', '{2,3,2,5,10}'),
	(5, '{3000,8000,20000,50000}', '{3,5,10,2}'),
	(6, '{0,0,785,800,1600}', '{2,40,30,50,2}'),
	(7, '{20015114,20015115,30000000,Infinity,19000000}', '{2,150,151,3,100}'),
	(8, '{30000,60000}', '{3,6}')) c(ds, eps, mp),
	 unnest(c.eps, c.mp) WITH ORDINALITY AS u(e, m, k)
ORDER BY ds, k;

\if :have_cities
CREATE TEMP TABLE cities_raw (id int, name text, lat float8, lon float8);
COPY cities_raw FROM :'cities_file';
-- near the antimeridian and the poles, and every 300th of the rest
INSERT INTO gd_test.geo (ds, id, lon, lat)
SELECT 9, id, lon, lat FROM cities_raw
WHERE abs(lon) > 175 OR abs(lat) > 70 OR lat < -50 OR id % 300 = 0;
INSERT INTO gd_test.geo_sets VALUES (9, 'GeoNames cities by the antimeridian and the poles, and a sample');
INSERT INTO gd_test.geo_cases (ds, eps, minpoints) VALUES
	(9, 5000, 2), (9, 20000, 2), (9, 20000, 5), (9, 100000, 3), (9, 300000, 8);
\endif

CREATE VIEW gd_test.geo_rows AS
SELECT ds, id, row_number() OVER (PARTITION BY ds ORDER BY id)::int AS rn, kind,
	   CASE kind WHEN 'P' THEN ST_SetSRID(ST_MakePoint(lon, lat), srid)::geography
				 WHEN 'E' THEN 'POINT EMPTY'::geography END AS geog
FROM gd_test.geo;

CREATE TABLE gd_test.geo_points AS SELECT * FROM gd_test.geo_rows;
CREATE INDEX ON gd_test.geo_points USING gist (geog);
ANALYZE gd_test.geo_points;

-- Pairs within each set's largest eps (a superset of every case's pairs).
CREATE TABLE gd_test.geo_pairs AS
SELECT a.ds, a.rn AS i, b.rn AS j, a.geog AS gi, b.geog AS gj
FROM gd_test.geo_points a
JOIN (SELECT ds, max(eps) AS eps FROM gd_test.geo_cases GROUP BY ds) m ON m.ds = a.ds
JOIN gd_test.geo_points b ON b.ds = a.ds AND b.rn > a.rn
	 AND ST_DWithin(a.geog, b.geog, least(m.eps, 1e9), false)
WHERE a.kind = 'P' AND b.kind = 'P';

-- The reference clustering of set ds.
CREATE FUNCTION gd_test.geo_want(set_id int, eps float8, minpoints int)
RETURNS int[]
LANGUAGE sql AS $$
	SELECT gd_test.dbscan_reference(
		(SELECT array_agg(kind = 'P' ORDER BY rn) FROM gd_test.geo_points WHERE ds = set_id),
		(SELECT array_agg(kind = 'E' ORDER BY rn) FROM gd_test.geo_points WHERE ds = set_id),
		array_agg(i ORDER BY i, j), array_agg(j ORDER BY i, j), minpoints)
	FROM gd_test.geo_pairs
	WHERE ds = set_id AND ST_DWithin(gi, gj, eps, false)
$$;

CREATE FUNCTION gd_test.geo_got(set_id int, eps float8, minpoints int)
RETURNS int[]
LANGUAGE sql AS $$
	SELECT array_agg(c ORDER BY rn)
	FROM (SELECT rn, gpu_dbscan(geog, eps, minpoints) OVER (ORDER BY rn) AS c
		  FROM gd_test.geo_points WHERE ds = set_id) s
$$;

-- Each of 300 pairs alone, eps its rounded ST_Distance: right at the edge.
SELECT setseed(0.99) \g /dev/null
CREATE TABLE gd_test.edge_pairs AS
SELECT k, a, b, ST_Distance(a, b, false) AS eps
FROM (SELECT k,
			 ST_MakePoint(gd_test.wrap(lon0), lat0)::geography AS a,
			 ST_MakePoint(gd_test.wrap(lon0 + dlon), greatest(-90, least(90, lat0 + dlat)))::geography AS b
	  FROM (SELECT k, 360 * random() AS lon0, 180 * random() - 90 AS lat0,
				   (random() - 0.5) * power(10, -4 + 5 * random()) AS dlon,
				   (random() - 0.5) * power(10, -4 + 5 * random()) AS dlat
			FROM generate_series(1, 300) AS k) r) p;

-- One partition whose pairs near the edge of eps get both answers from
-- ST_DWithin: a pair at eps = its ST_Distance, copies of it turned about the
-- polar axis by whole degrees (the same distance, other roundings), one that
-- ST_DWithin takes and one it does not, and 100 copies of a point elsewhere
-- (4,950 pairs: more than src/geography.c lists at once, so its band is
-- searched, and the whole list of pairs, not one chord, decides).
CREATE TABLE gd_test.turned AS
WITH e AS (SELECT ST_Distance(ST_MakePoint(10.123, 45.678)::geography,
							  ST_MakePoint(10.1234567, 45.6781234)::geography, false) AS eps)
SELECT k, eps, ST_MakePoint(-170.123 + k, 45.678)::geography AS a,
	   ST_MakePoint(-170.1234567 + k, 45.6781234)::geography AS b
FROM e, generate_series(0, 300) k;
CREATE TABLE gd_test.mixed_band AS
SELECT row_number() OVER (ORDER BY grp, within DESC, side) AS id, eps, g
FROM (SELECT 1 AS grp, eps, g, within, side
	  FROM (SELECT DISTINCT ON (within) k, eps, a, b, ST_DWithin(a, b, eps, false) AS within
			FROM gd_test.turned ORDER BY within, k) t,
		   LATERAL (VALUES (1, a), (2, b)) v(side, g)
	  UNION ALL
	  SELECT 2, (SELECT eps FROM gd_test.turned LIMIT 1), ST_MakePoint(60, -30)::geography, NULL, k
	  FROM generate_series(1, 100) k) u;

-- Twenty copies of each of ten sites along the equator, 0.3 mm closer than
-- eps and 3 um farther in turn (more pairs than src/geography.c lists at
-- once: its band is searched, and there ST_DWithin takes the closer pairs
-- and leaves the farther, so that one chord between them is the relation):
-- sites 2m and 2m + 1 together.
CREATE TABLE gd_test.two_spacings AS
WITH m AS (SELECT ST_Distance('POINT(0 0)'::geography, 'POINT(1 0)'::geography, false) AS per_degree)
SELECT row_number() OVER (ORDER BY site, copy) AS id, site,
	   ST_MakePoint(((site + 1) / 2 * (1000 - 3e-4) + site / 2 * (1000 + 3e-6)) / per_degree, 0)::geography AS g
FROM m, generate_series(0, 9) site, generate_series(1, 20) copy;

SELECT plan(7 + (SELECT count(*)::int FROM gd_test.geo_cases));

SELECT ok((SELECT count(*) FROM gd_test.geo_pairs) > 20000, 'reference pairs computed');
SELECT ok((SELECT count(*) FROM (
			   SELECT c FROM (SELECT ST_X(geog::geometry) AS lon,
									 gpu_dbscan(geog, 150000, 3) OVER (ORDER BY rn) AS c
							  FROM gd_test.geo_points WHERE ds = 2) s
			   WHERE c IS NOT NULL
			   GROUP BY c HAVING min(lon) < -179.5 AND max(lon) > 179.5) t) > 0,
		  'band, eps 150 km: some cluster spans the antimeridian');

SELECT is(coalesce(gd_test.labelings_diff(g.got, w.want), gd_test.ids_diff(g.got)), NULL,
		  format('%s, eps %s m, minpoints %s: the clusters of ST_DWithin(geog, geog, eps, false)',
				 s.family, c.eps, c.minpoints))
FROM gd_test.geo_cases c
JOIN gd_test.geo_sets s USING (ds),
	 LATERAL (SELECT gd_test.geo_got(c.ds, c.eps, c.minpoints) AS got) g,
	 LATERAL (SELECT gd_test.geo_want(c.ds, c.eps, c.minpoints) AS want) w
ORDER BY c.case_id;

SELECT is((SELECT count(*)::int
		   FROM (SELECT k, bool_and(c IS NOT NULL) AS together, ST_DWithin(a, b, eps, false) AS within
				 FROM (SELECT k, a, b, eps, gpu_dbscan(g, eps, 2) OVER (PARTITION BY k ORDER BY n) AS c
					   FROM gd_test.edge_pairs, LATERAL (VALUES (1, a), (2, b)) v(n, g)) s
				 GROUP BY k, a, b, eps) t
		   WHERE together <> within), 0,
		  '300 pairs with eps at their rounded distance: together exactly when ST_DWithin says so');
SELECT ok((SELECT count(*) FILTER (WHERE ST_DWithin(a, b, eps, false)) BETWEEN 30 AND 270
		   FROM gd_test.edge_pairs),
		  'the edge pairs fall on both sides of eps');
SELECT is((SELECT array_agg(c ORDER BY id)
		   FROM (SELECT id, gpu_dbscan(g, eps, 2) OVER (ORDER BY id) AS c FROM gd_test.mixed_band) s),
		  ARRAY[0, 0, NULL, NULL] || array_fill(1, ARRAY[100]),
		  'pairs near the edge of eps with both answers in one partition: the taken pair together, the other noise');

SELECT is((SELECT array_agg(DISTINCT ST_DWithin(a.g, b.g, 1000, false) ORDER BY ST_DWithin(a.g, b.g, 1000, false))::text || '/' ||
				  bool_and(ST_DWithin(a.g, b.g, 1000, false) = (a.site % 2 = 0))::text
		   FROM gd_test.two_spacings a JOIN gd_test.two_spacings b ON b.site = a.site + 1),
		  '{f,t}/true', 'two spacings: ST_DWithin takes the closer neighbours and leaves the farther');
SELECT is((SELECT array_agg(c ORDER BY id) FROM (SELECT id, gpu_dbscan(g, 1000, 2) OVER (ORDER BY id) AS c FROM gd_test.two_spacings) s),
		  (SELECT array_agg(site / 2 ORDER BY id) FROM gd_test.two_spacings),
		  'two spacings 0.3 mm apart in the band: the closer sites together, the farther apart');

SELECT * FROM finish();
ROLLBACK;
