-- test/pgtap/lib/cities.sql — the GeoNames cities (id, name, lat, lon in
-- cache/cities500.tsv, written by scripts/setup.sh; another path can be
-- given with pg_prove --set cities_file=...).  Sets :have_cities; when the
-- file is there, creates temp table cities (id, name, geom Point 4326).
-- The server reads the file (COPY), as the postgres user.
\if :{?cities_file}
\else
\set cities_file `pwd`/cache/cities500.tsv
\endif
SELECT (pg_stat_file(:'cities_file', true)).size IS NOT NULL AS have_cities \gset
\if :have_cities
CREATE TEMP TABLE cities_raw (id int, name text, lat float8, lon float8);
COPY cities_raw FROM :'cities_file';
CREATE TEMP TABLE cities AS
SELECT id, name, ST_SetSRID(ST_MakePoint(lon, lat), 4326)::geometry(Point, 4326) AS geom
FROM cities_raw;
ANALYZE cities;
\endif
