-- 84_large_partitions: one partition past 2^31 candidate pairs (issue 5).
--
-- Points.  70,000 points on a golden-angle spiral filling a disk of radius
-- 0.49 (row r at radius 0.49 sqrt((r - 0.5) / 70000), angle r times the
-- golden angle), plus one point 1,000 away, last.  Every two disk points are
-- at most 0.98 apart: with eps = 1 each one finds all 70,000 (itself
-- included) whatever the rounding (its error is ~1e-13, the margin 0.02) and
-- not the far point, which finds only itself.  So the answer is certain:
--   minpoints 70,000: every disk point is core with a count of exactly
--     70,000, one cluster (id 0); the far point is noise;
--   minpoints 70,001: nothing is core, all noise (and, with 70,001 rows, the
--     core's "fewer points than minpoints" shortcut does not apply).
-- The CPU core's dense-cell shortcut (a cell whose points are pairwise
-- within eps and at least minpoints of them: all core, no distance test)
-- cannot hide the count: the disk spans several cells (the cell side is
-- about eps / sqrt(2); asserted through gpu_dbscan_last_run().cells), so no
-- cell holds minpoints points; a point counts its own cell's points without
-- a test (they are pairwise neighbours) and tests every point of the other
-- cells one by one, never reaching minpoints early: about 3.7e9 distance
-- tests per query (4.9e9 ordered pairs), counts accumulated per point to
-- 70,000.  ST_ClusterDBSCAN would need hours on these rows; it is compared
-- on a 2,000-point disk of the same construction instead.
--
-- The sweep with minpoints {70,000, 70,001} used to keep every pair of a
-- cell as a union edge (1.2e9 edges, 9.8 GB); it now keeps one edge per
-- point of such a cell.
--
-- Non-point geometries.  Their path lists the candidate pairs (16 GiB for
-- 2^31): the core counts them first and refuses a list beyond half the
-- physical memory with a clean "out of memory" error ("too many candidate
-- pairs ..."), before allocating anything.  The test reads MemTotal from
-- /proc/meminfo to size a partition just past that limit (about 50,000
-- copies of one polygon on a 23 GB machine, 1.3e9 pairs counted in about a
-- second) and checks the error and that the session goes on.  Geography
-- points as many and as close need no list (no pair near the edge of eps:
-- their unit vectors are clustered as 3-D points) and cluster.  A real list past 2^31 pairs, clustered, needs 17 GB:
-- test/reliability/big_pairs.sh (README.md, Reliability).
--
-- Counts of results.  gpu_dbscan_params gives one row per (eps, minpoints)
-- pair: their number is taken in 64 bits.
\ir lib/prelude.sql

SELECT plan(14);

SET LOCAL gpu_dbscan.backend = 'cpu';

CREATE TEMP TABLE disk AS
SELECT r AS id,
	   CASE WHEN r <= 70000
			THEN ST_MakePoint(1000 + 0.49 * sqrt((r - 0.5) / 70000) * cos(r * pi() * (3 - sqrt(5))),
							  2000 + 0.49 * sqrt((r - 0.5) / 70000) * sin(r * pi() * (3 - sqrt(5))))
			ELSE ST_MakePoint(2000, 2000) END AS geom
FROM generate_series(1, 70001) r;

-- Clusters of the disk at minpoints m: how many rows got each id (NULL: noise).
CREATE FUNCTION pg_temp.disk_ids(m int) RETURNS text LANGUAGE sql AS $$
	SELECT string_agg(format('%s x %s', coalesce(c::text, 'noise'), n), ', ' ORDER BY c NULLS LAST)
	FROM (SELECT c, count(*) AS n
		  FROM (SELECT gpu_dbscan(geom, 1, m) OVER (ORDER BY id) AS c FROM disk) s
		  GROUP BY c) g
$$;

SELECT is(pg_temp.disk_ids(70000), '0 x 70000, noise x 1',
		  '70,000 points pairwise within eps, minpoints 70,000: one cluster of them all, the far point noise');
SELECT cmp_ok((SELECT cells FROM gpu_dbscan_last_run()), '>=', 3::bigint,
			  'the disk spans several grid cells (no dense-cell shortcut for minpoints 70,000)');
SELECT is(pg_temp.disk_ids(70001), 'noise x 70001',
		  'minpoints 70,001: every point is noise (each finds exactly 70,000)');
SELECT is((SELECT string_agg(format('%s x %s', t, n), ', ' ORDER BY t)
		   FROM (SELECT t, count(*) AS n
				 FROM (SELECT gpu_dbscan_point_type(geom, 1, 70000) OVER (ORDER BY id) AS t FROM disk) s
				 GROUP BY t) g),
		  'core x 70000, noise x 1', 'point types at minpoints 70,000: 70,000 core, the far point noise');
SELECT is((SELECT string_agg(format('%s x %s', c, n), ', ' ORDER BY c)
		   FROM (SELECT c::text AS c, count(*) AS n
				 FROM (SELECT gpu_dbscan_sweep(geom, 1, ARRAY[70001, 70000, 2147483647]) OVER (ORDER BY id) AS c
					   FROM disk) s
				 GROUP BY c) g),
		  '{NULL,0,NULL} x 70000, {NULL,NULL,NULL} x 1',
		  'the sweep over minpoints 70,001, 70,000 and 2^31 - 1 gives each the answer above');

-- The same on the GPU, where one is usable (its count runs per point too).
CREATE FUNCTION pg_temp.gpu_probe(OUT usable boolean) LANGUAGE plpgsql SET gpu_dbscan.backend = 'gpu' AS $$
BEGIN
	PERFORM gpu_dbscan(geom, 1, 2) OVER () FROM (VALUES ('POINT(0 0)'::geometry), ('POINT(0 1)')) v(geom);
	usable := true;
EXCEPTION WHEN OTHERS THEN
	usable := false;
END
$$;
SELECT usable AS gpu_usable FROM pg_temp.gpu_probe() \gset
\if :gpu_usable
SET LOCAL gpu_dbscan.backend = 'gpu';
SELECT is(pg_temp.disk_ids(70000), '0 x 70000, noise x 1', 'on the GPU, minpoints 70,000: one cluster, the far point noise');
SELECT is(pg_temp.disk_ids(70001), 'noise x 70001', 'on the GPU, minpoints 70,001: all noise');
SET LOCAL gpu_dbscan.backend = 'cpu';
\else
SELECT skip('no usable GPU', 2);
\endif

-- The same construction, small enough for ST_ClusterDBSCAN.
CREATE TEMP TABLE small_disk AS
SELECT r AS id,
	   CASE WHEN r <= 2000
			THEN ST_MakePoint(0.49 * sqrt((r - 0.5) / 2000) * cos(r * pi() * (3 - sqrt(5))),
							  0.49 * sqrt((r - 0.5) / 2000) * sin(r * pi() * (3 - sqrt(5))))
			ELSE ST_MakePoint(500, 0) END AS geom
FROM generate_series(1, 2001) r;
SELECT is(gd_test.compare('small_disk', 1, 2000), NULL, '2,000-point disk, minpoints 2,000: as ST_ClusterDBSCAN');
SELECT is(gd_test.compare('small_disk', 1, 2001), NULL, '2,000-point disk, minpoints 2,001: as ST_ClusterDBSCAN');

-- Rows that make more candidate pairs than half the physical memory holds
-- (9 bytes a pair: the pair and its direction byte), with 1% to spare.
CREATE FUNCTION pg_temp.rows_past_pair_limit() RETURNS int LANGUAGE sql AS $$
	SELECT ceil(sqrt(2 * (kb * 1024 / 2 / 9)) * 1.01)::int + 2
	FROM (SELECT (regexp_match(pg_read_file('/proc/meminfo'), 'MemTotal:\s+(\d+) kB'))[1]::float8 AS kb) m
$$;

SELECT diag(format('half the physical memory holds about %s pairs: %s rows give more',
				   round((pg_temp.rows_past_pair_limit() - 2) ^ 2 / 1.01 ^ 2 / 2), pg_temp.rows_past_pair_limit()));

CREATE TEMP TABLE many_polys AS
SELECT r AS id, 'POLYGON((0 0, 1 0, 1 1, 0 0))'::geometry AS geom
FROM generate_series(1, pg_temp.rows_past_pair_limit()) r;
SELECT matches(gd_test.error_of('SELECT count(c) FROM (SELECT gpu_dbscan(geom, 0.5, 2) OVER () AS c FROM many_polys) s'),
			   '^53200 gpu_dbscan: out of memory: too many candidate pairs in one partition',
			   'non-point rows: more candidate pairs than memory holds is a clean out-of-memory error');

CREATE TEMP TABLE many_geog AS
SELECT r AS id, ST_SetSRID(ST_MakePoint(10 + (r % 100) * 1e-7, 20 + (r / 100) * 1e-7), 4326)::geography AS geog
FROM generate_series(1, pg_temp.rows_past_pair_limit()) r;
-- (no pair lies near the edge of eps: the unit vectors are clustered as 3-D
-- points, with no list of pairs; src/geography.c)
SELECT is((SELECT format('%s rows, %s cluster', count(c), count(DISTINCT c))
		   FROM (SELECT gpu_dbscan(geog, 1000, 2) OVER () AS c FROM many_geog) s),
		  format('%s rows, 1 cluster', pg_temp.rows_past_pair_limit()),
		  'geography points with more neighbour pairs than memory holds: clustered without a list of pairs');

SELECT is((SELECT array_agg(c) FROM (SELECT gpu_dbscan(geom, 0.5, 2) OVER () AS c FROM many_polys WHERE id <= 3) s),
		  '{0,0,0}'::int[], 'the session goes on after the errors');
SELECT is((SELECT count(DISTINCT c) FROM (SELECT gpu_dbscan(geom, 0.5, 2) OVER (PARTITION BY id % 1000) AS c FROM many_polys) s),
		  1::bigint, 'the same rows in 1,000 partitions cluster (one cluster each)');

-- gpu_dbscan_params returns one row per (eps, minpoints) pair: 65,536 times
-- 65,537 of them is past 2^32 (an int product wrapped to 65,536 once).
SELECT throws_ok($$SELECT gpu_dbscan_params(ST_MakePoint(0, 0), array_fill(1.0::float8, ARRAY[65536]),
											 array_fill(2, ARRAY[65537]))$$,
				 '54000', 'gpu_dbscan_params: too many (eps, minpoints) pairs',
				 'gpu_dbscan_params: 65,536 eps values times 65,537 minpoints values is a clean error');

SELECT * FROM finish();
ROLLBACK;
