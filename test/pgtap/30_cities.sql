-- The real data set: all 199,568 GeoNames cities (lon/lat, SRID 4326) from
-- the file scripts/setup.sh caches (cache/cities500.tsv: id, name, lat, lon),
-- clustered with several eps (degrees) and minpoints, in one window and
-- partitioned into 30-degree longitude bands.
--
-- The file's path comes from pg_prove --set cities_file=... (scripts/test.sh
-- passes it), else cache/cities500.tsv under the current folder.  The server
-- reads it (COPY), as the postgres user.  Without the file every test is
-- skipped with a diagnostic.
\ir lib/prelude.sql
\ir lib/cities.sql

SELECT plan(16);

\if :have_cities
SELECT is((SELECT count(*)::int FROM cities), 199568, 'all 199,568 cities loaded');
SELECT is((SELECT count(*)::int FROM cities WHERE geom IS NULL OR ST_IsEmpty(geom)), 0, 'every city has a point');

SELECT is(gd_test.compare('cities', eps, minpoints), NULL,
		  format('cities, eps %s degrees, minpoints %s: same clusters as ST_ClusterDBSCAN', eps, minpoints))
FROM (VALUES (0.01::float8), (0.05), (0.1), (0.5)) e(eps),
	 (VALUES (2), (5), (20)) m(minpoints)
ORDER BY eps, minpoints;

SELECT is(gd_test.compare('cities', 0.1, 5, 'floor(ST_X(geom) / 30)'), NULL,
		  'cities in 30-degree longitude bands, eps 0.1, minpoints 5: same clusters');
SELECT is(gd_test.compare('cities', 0.02, 1, 'NULL::int', 'name, id'), NULL,
		  'cities ordered by name, eps 0.02, minpoints 1: same clusters');
\else
SELECT skip(format('no %s: run scripts/setup.sh (it fetches the cities into cache/)', :'cities_file'), 16);
\endif

SELECT * FROM finish();
ROLLBACK;
