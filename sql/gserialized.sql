--
-- gserialized: the serialized forms gpu_dbscan decodes itself, built byte
-- by byte: GSERIALIZED v2 (what PostGIS 3 writes) and v1 (what PostGIS 2
-- wrote, still read by PostGIS 3), checked against PostGIS's own reading of
-- the same bytes; then corrupt values, which must raise an error.
--
-- raw_geom(bytes): a geometry whose serialized form is exactly these bytes
-- (byteasend returns its argument as a fresh varlena)
CREATE FUNCTION pg_temp.raw_geom(bytea) RETURNS geometry
LANGUAGE internal IMMUTABLE STRICT AS 'byteasend';

-- hex of a double / of a float, little-endian as on every machine we run on
CREATE FUNCTION pg_temp.f8(float8) RETURNS text LANGUAGE sql IMMUTABLE AS
$$ SELECT encode(float8send($1), 'hex') $$;
CREATE FUNCTION pg_temp.le(text) RETURNS text LANGUAGE sql IMMUTABLE AS
$$ SELECT string_agg(substr($1, i, 2), '' ORDER BY i DESC) FROM generate_series(1, length($1), 2) i $$;
CREATE FUNCTION pg_temp.d(float8) RETURNS text LANGUAGE sql IMMUTABLE AS
$$ SELECT pg_temp.le(pg_temp.f8($1)) $$;
CREATE FUNCTION pg_temp.f(float4) RETURNS text LANGUAGE sql IMMUTABLE AS
$$ SELECT pg_temp.le(encode(float4send($1), 'hex')) $$;
CREATE FUNCTION pg_temp.u(int) RETURNS text LANGUAGE sql IMMUTABLE AS
$$ SELECT pg_temp.le(lpad(to_hex($1), 8, '0')) $$;

CREATE TEMP TABLE forms (id int, what text, hex text);
INSERT INTO forms VALUES
-- v2 POINT(1 2), SRID 4326: srid 00 10 e6, gflags 0x40 (version bit)
(1, 'v2 point srid 4326', '0010e6' || '40' || pg_temp.u(1) || pg_temp.u(1) || pg_temp.d(1) || pg_temp.d(2)),
-- v1: the same without the version bit
(2, 'v1 point srid 4326', '0010e6' || '00' || pg_temp.u(1) || pg_temp.u(1) || pg_temp.d(1.5) || pg_temp.d(2)),
-- v1 POINT Z: gflags Z
(3, 'v1 point z', '0010e6' || '01' || pg_temp.u(1) || pg_temp.u(1) || pg_temp.d(1) || pg_temp.d(2.5) || pg_temp.d(99)),
-- v2 POINT M with the EXTENDED flag and 8 bytes of extended flags
(4, 'v2 point m extended', '0010e6' || '52' || '0000000000000000' || pg_temp.u(1) || pg_temp.u(1) || pg_temp.d(1.2) || pg_temp.d(2.1) || pg_temp.d(-7)),
-- v1 POINT EMPTY
(5, 'v1 point empty', '0010e6' || '00' || pg_temp.u(1) || pg_temp.u(0)),
-- v1 LINESTRING with a float box (xmin xmax ymin ymax)
(6, 'v1 line with box', '0010e6' || '04' || pg_temp.f(3) || pg_temp.f(4) || pg_temp.f(0) || pg_temp.f(1)
    || pg_temp.u(2) || pg_temp.u(3) || pg_temp.d(3) || pg_temp.d(0) || pg_temp.d(4) || pg_temp.d(0) || pg_temp.d(4) || pg_temp.d(1)),
-- v1 POLYGON ZM with a box: ring counts padded to 8 bytes (1 ring: 4 bytes of padding)
(7, 'v1 polygon zm with box', '0010e6' || '07' || pg_temp.f(5) || pg_temp.f(6) || pg_temp.f(0) || pg_temp.f(1) || pg_temp.f(0) || pg_temp.f(0) || pg_temp.f(0) || pg_temp.f(0)
    || pg_temp.u(3) || pg_temp.u(1) || pg_temp.u(4) || '00000000'
    || pg_temp.d(5) || pg_temp.d(0) || pg_temp.d(0) || pg_temp.d(0)
    || pg_temp.d(6) || pg_temp.d(0) || pg_temp.d(0) || pg_temp.d(0)
    || pg_temp.d(6) || pg_temp.d(1) || pg_temp.d(0) || pg_temp.d(0)
    || pg_temp.d(5) || pg_temp.d(0) || pg_temp.d(0) || pg_temp.d(0)),
-- v2 MULTIPOINT of one point, no box (PostGIS writes none for it)
(8, 'v2 multipoint no box', '0010e6' || '40' || pg_temp.u(4) || pg_temp.u(1) || pg_temp.u(1) || pg_temp.u(1) || pg_temp.d(7) || pg_temp.d(0)),
-- v2 point far away
(9, 'v2 point', '0010e6' || '40' || pg_temp.u(1) || pg_temp.u(1) || pg_temp.d(100) || pg_temp.d(100));

-- PostGIS reads every form as intended
SELECT id, what, ST_AsEWKT(pg_temp.raw_geom(decode(hex, 'hex'))) FROM forms ORDER BY id;
-- and gpu_dbscan clusters them as ST_ClusterDBSCAN does
SELECT id, what, gpu_dbscan(g, 1.2, 1) OVER w, ST_ClusterDBSCAN(g, 1.2, 1) OVER w,
       gpu_dbscan(g, 1.2, 2) OVER w AS m2, ST_ClusterDBSCAN(g, 1.2, 2) OVER w AS pm2
FROM (SELECT id, what, pg_temp.raw_geom(decode(hex, 'hex')) AS g FROM forms) s
WINDOW w AS (ORDER BY id) ORDER BY id;
-- the same values stored in a table (short varlena headers, unaligned doubles)
CREATE TEMP TABLE stored AS SELECT id, pg_temp.raw_geom(decode(hex, 'hex')) AS g FROM forms;
SELECT id, gpu_dbscan(g, 1.2, 2) OVER w, ST_ClusterDBSCAN(g, 1.2, 2) OVER w
FROM stored WINDOW w AS (ORDER BY id) ORDER BY id;

-- the SRID is 21 bits, signed: 0x1fffff is -1 as ST_SRID says, 0x0f3e58 is 999000
SELECT ST_SRID(pg_temp.raw_geom(decode('1fffff40' || pg_temp.u(1) || pg_temp.u(0), 'hex'))),
       ST_SRID(pg_temp.raw_geom(decode('0f3e5840' || pg_temp.u(1) || pg_temp.u(0), 'hex')));
SELECT gpu_dbscan(g, 1, 1) OVER (ORDER BY id)
FROM (VALUES (1, pg_temp.raw_geom(decode('1fffff40' || pg_temp.u(1) || pg_temp.u(0), 'hex'))),
             (2, pg_temp.raw_geom(decode('0f3e5840' || pg_temp.u(1) || pg_temp.u(0), 'hex')))) t(id, g);
SELECT gpu_dbscan(g, 1, 1) OVER (ORDER BY id)
FROM (VALUES (1, 'SRID=999000;POINT (0 0)'::geometry),
             (2, pg_temp.raw_geom(decode('0f3e5840' || pg_temp.u(1) || pg_temp.u(0), 'hex'))),
             (3, 'POINT EMPTY')) t(id, g);

-- a curve with no serialized box: its box comes from PostGIS (the arc
-- bulges to y = 1 and x = 1, beyond its vertices)
SELECT id, gpu_dbscan(g, 0.2, 2) OVER w, ST_ClusterDBSCAN(g, 0.2, 2) OVER w
FROM (VALUES (1, postgis_dropbbox('CIRCULARSTRING (-0.7071067811865476 0.7071067811865476, 0.7071067811865476 0.7071067811865476, 0.7071067811865476 -0.7071067811865476)'::geometry)),
             (2, 'POINT (0 1.15)'), (3, 'POINT (1.15 0)'), (4, 'POINT (-1.15 0)'),
             (5, postgis_dropbbox('LINESTRING (5 5, 6 6, 7 5)')), (6, 'POINT (6 6.1)')) t(id, g)
WINDOW w AS (ORDER BY id);

-- corrupt values: an error each, never a crash, and the session goes on
SELECT what, gpu_dbscan(pg_temp.raw_geom(decode(hex, 'hex')), 1, 1) OVER ()
FROM (VALUES ('empty', '')) t(what, hex);
SELECT gpu_dbscan(pg_temp.raw_geom(decode('0010e6', 'hex')), 1, 1) OVER ();
SELECT gpu_dbscan(pg_temp.raw_geom(decode('0010e640', 'hex')), 1, 1) OVER ();
SELECT gpu_dbscan(pg_temp.raw_geom(decode('0010e640' || pg_temp.u(1), 'hex')), 1, 1) OVER ();
SELECT gpu_dbscan(pg_temp.raw_geom(decode('0010e640' || pg_temp.u(1) || pg_temp.u(1) || pg_temp.d(1), 'hex')), 1, 1) OVER ();
SELECT gpu_dbscan(pg_temp.raw_geom(decode('0010e641' || pg_temp.u(1) || pg_temp.u(1) || pg_temp.d(1) || pg_temp.d(2), 'hex')), 1, 1) OVER ();
SELECT gpu_dbscan(pg_temp.raw_geom(decode('0010e640' || pg_temp.u(1) || pg_temp.u(2) || pg_temp.d(1) || pg_temp.d(2) || pg_temp.d(1) || pg_temp.d(2), 'hex')), 1, 1) OVER ();
SELECT gpu_dbscan(pg_temp.raw_geom(decode('0010e640' || pg_temp.u(99) || pg_temp.u(0), 'hex')), 1, 1) OVER ();
SELECT gpu_dbscan(pg_temp.raw_geom(decode('0010e6c0' || pg_temp.u(1) || pg_temp.u(0), 'hex')), 1, 1) OVER ();
SELECT gpu_dbscan(pg_temp.raw_geom(decode('0010e648' || pg_temp.u(1) || pg_temp.u(0), 'hex')), 1, 1) OVER ();
SELECT gpu_dbscan(pg_temp.raw_geom(decode('0010e650' || '00000000', 'hex')), 1, 1) OVER ();
SELECT gpu_dbscan(pg_temp.raw_geom(decode('0010e644' || pg_temp.f(1) || pg_temp.f(2), 'hex')), 1, 1) OVER ();
SELECT gpu_dbscan(pg_temp.raw_geom(decode('0010e640' || pg_temp.u(2) || pg_temp.u(1000000) || pg_temp.d(1) || pg_temp.d(2), 'hex')), 1, 1) OVER ();
SELECT gpu_dbscan(pg_temp.raw_geom(decode('0010e640' || pg_temp.u(3) || pg_temp.u(-1) || pg_temp.u(4), 'hex')), 1, 1) OVER ();
SELECT gpu_dbscan(pg_temp.raw_geom(decode('0010e640' || pg_temp.u(3) || pg_temp.u(1) || pg_temp.u(5), 'hex')), 1, 1) OVER ();
SELECT gpu_dbscan(pg_temp.raw_geom(decode('0010e640' || pg_temp.u(3) || pg_temp.u(1) || pg_temp.u(1) || '00000000' || pg_temp.d(0), 'hex')), 1, 1) OVER ();
SELECT gpu_dbscan(pg_temp.raw_geom(decode('0010e640' || pg_temp.u(7) || pg_temp.u(-1), 'hex')), 1, 1) OVER ();
SELECT gpu_dbscan(pg_temp.raw_geom(decode('0010e640' || pg_temp.u(7) || pg_temp.u(2) || pg_temp.u(1) || pg_temp.u(0) || pg_temp.u(4), 'hex')), 1, 1) OVER ();
-- a point inside a collection may hold at most one vertex too
SELECT gpu_dbscan(pg_temp.raw_geom(decode('0010e640' || pg_temp.u(4) || pg_temp.u(1) || pg_temp.u(1) || pg_temp.u(2) || pg_temp.d(0) || pg_temp.d(0) || pg_temp.d(0) || pg_temp.d(0), 'hex')), 1, 1) OVER ();
-- collections nested far too deep: the stack check stops the walk
DO $$
BEGIN
  PERFORM gpu_dbscan(pg_temp.raw_geom(decode('0010e640' || repeat(pg_temp.u(7) || pg_temp.u(1), 300000)
                                              || pg_temp.u(1) || pg_temp.u(0), 'hex')), 1, 1) OVER ();
EXCEPTION WHEN statement_too_complex THEN
  RAISE NOTICE 'deep nesting: %', SQLERRM;
END $$;
-- the read floor decodes the same way
SELECT gpu_dbscan_read_floor(pg_temp.raw_geom(decode('0010e640' || pg_temp.u(1), 'hex'))) OVER ();
-- a corrupt row after good ones, in the point path and in the geometry path
SELECT gpu_dbscan(g, 1, 1) OVER (ORDER BY id)
FROM (VALUES (1, 'POINT (0 0)'::geometry), (2, pg_temp.raw_geom(decode('0010e640' || pg_temp.u(1) || pg_temp.u(1), 'hex')))) t(id, g);
SELECT gpu_dbscan(g, 1, 1) OVER (ORDER BY id)
FROM (VALUES (1, 'LINESTRING (0 0, 1 1)'::geometry), (2, pg_temp.raw_geom(decode('0010e640' || pg_temp.u(2) || pg_temp.u(2) || pg_temp.d(1), 'hex')))) t(id, g);

-- still alive
SELECT id, gpu_dbscan(g, 1.2, 1) OVER (ORDER BY id) FROM stored ORDER BY id;
