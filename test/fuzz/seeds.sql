-- seeds.sql — the fuzz target's seed corpus: the serialized bytes (after the
-- varlena header, which the target adds) of every geometry type PostGIS 3.3 writes, as hex, one per
-- line, each preceded by the mode byte of test/fuzz/gserialized_fuzz.c
-- (00 geometry, 02 geometry with PostgisFns, 01 geography).
--   psql -XAtq -d DB -f test/fuzz/seeds.sql > test/fuzz/seeds.hex
-- needs postgis; raw_bytes reads a value's bytes as bytea (byteasend).
CREATE FUNCTION pg_temp.raw_bytes(geometry) RETURNS bytea
LANGUAGE internal IMMUTABLE STRICT AS 'byteasend';
CREATE FUNCTION pg_temp.raw_bytes_g(geography) RETURNS bytea
LANGUAGE internal IMMUTABLE STRICT AS 'byteasend';

WITH wkt(w) AS (VALUES
	('POINT(1 2)'), ('SRID=4326;POINT(-71.06 42.36)'), ('POINT Z (1 2 3)'), ('POINTM(1 2 4)'),
	('POINT ZM (1 2 3 4)'), ('POINT EMPTY'), ('POINT Z EMPTY'), ('SRID=3857;POINT(1e308 -1e308)'),
	('POINT(-0 5e-324)'), ('LINESTRING(0 0, 1 1)'), ('LINESTRING(0 0, 1 1, 2 0)'),
	('LINESTRING Z (0 0 0, 1 1 1, 2 0 2)'), ('LINESTRING EMPTY'),
	('POLYGON((0 0, 1 0, 1 1, 0 1, 0 0))'),
	('POLYGON((0 0, 10 0, 10 10, 0 10, 0 0), (2 2, 3 2, 3 3, 2 3, 2 2))'),
	('POLYGON ZM ((0 0 0 0, 1 0 0 0, 1 1 0 0, 0 0 0 0))'), ('POLYGON EMPTY'),
	('MULTIPOINT(1 1)'), ('MULTIPOINT(1 1, 2 2, 3 3)'), ('MULTIPOINT(EMPTY, 1 1)'), ('MULTIPOINT EMPTY'),
	('MULTILINESTRING((0 0, 1 1), (2 2, 3 3, 4 4))'), ('MULTILINESTRING EMPTY'),
	('MULTIPOLYGON(((0 0, 1 0, 1 1, 0 0)), ((5 5, 6 5, 6 6, 5 5)))'), ('MULTIPOLYGON EMPTY'),
	('GEOMETRYCOLLECTION(POINT(1 1), LINESTRING(0 0, 2 2))'),
	('GEOMETRYCOLLECTION(GEOMETRYCOLLECTION(GEOMETRYCOLLECTION(POINT(1 1))), POINT EMPTY)'),
	('GEOMETRYCOLLECTION(POINT EMPTY, LINESTRING EMPTY)'), ('GEOMETRYCOLLECTION EMPTY'),
	('CIRCULARSTRING(0 0, 1 1, 2 0)'), ('CIRCULARSTRING EMPTY'),
	('COMPOUNDCURVE(CIRCULARSTRING(0 0, 1 1, 2 0), (2 0, 3 0))'), ('COMPOUNDCURVE EMPTY'),
	('CURVEPOLYGON(CIRCULARSTRING(0 0, 4 0, 4 4, 0 4, 0 0), (1 1, 3 3, 3 1, 1 1))'), ('CURVEPOLYGON EMPTY'),
	('MULTICURVE((0 0, 5 5), CIRCULARSTRING(4 0, 4 4, 8 4))'), ('MULTICURVE EMPTY'),
	('MULTISURFACE(CURVEPOLYGON(CIRCULARSTRING(0 0, 4 0, 4 4, 0 4, 0 0)), ((10 10, 14 12, 11 10, 10 10)))'),
	('MULTISURFACE EMPTY'),
	('POLYHEDRALSURFACE Z (((0 0 0, 0 1 0, 1 1 0, 1 0 0, 0 0 0)), ((0 0 0, 0 1 0, 0 1 1, 0 0 1, 0 0 0)))'),
	('POLYHEDRALSURFACE EMPTY'),
	('TIN Z (((0 0 0, 0 0 1, 0 1 0, 0 0 0)), ((0 0 0, 0 1 0, 1 1 0, 0 0 0)))'), ('TIN EMPTY'),
	('TRIANGLE((0 0, 0 9, 9 0, 0 0))'), ('TRIANGLE EMPTY'))
SELECT m || encode(b, 'hex')
FROM wkt, LATERAL (SELECT pg_temp.raw_bytes(w::geometry) AS b) r, (VALUES ('00'), ('02')) mode(m)
UNION ALL
SELECT '01' || encode(pg_temp.raw_bytes_g(w::geography), 'hex')
FROM (VALUES ('POINT(1 2)'), ('POINT EMPTY'), ('SRID=4269;POINT(-179.9 89.9)'), ('POINT Z (1 2 3)'),
			 ('LINESTRING(0 0, 1 1)'), ('POLYGON((0 0, 1 0, 1 1, 0 0))'),
			 ('GEOMETRYCOLLECTION(POINT(1 1), LINESTRING(0 0, 2 2))')) g(w);
