-- 86_cliffs: the quadratic cliffs of issue 11, as timed guards small enough
-- for the suite (bench/db_cliffs.py has the full-size figures).
--   - 30,000 parallel lines spanning the same x range, eps 1: the candidate
--     search compared every pair of boxes overlapping along x (cpu_pairs.cpp
--     now queries an R-tree): gpu_dbscan within 1.5x of ST_ClusterDBSCAN;
--   - shape mixes (long lines, small polygons, diagonals, nested boxes):
--     ids equal ST_ClusterDBSCAN's;
--   - 30,000 points within eps of each other, minpoints {2, 30001}: the
--     sweep scanned each point's whole cell (cpu_sweep.cpp): gpu_dbscan_sweep
--     and gpu_dbscan_params within 1.5x of two plain gpu_dbscan calls.
-- Each time is the best of two runs; 50 ms are added to the allowance for
-- the noise of a shared 2-core machine.
\ir lib/prelude.sql

SELECT plan(6);

SET LOCAL gpu_dbscan.backend = cpu;

CREATE FUNCTION pg_temp.best_of_two(q text) RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE
	t0 timestamptz;
	best float8 := 'Infinity';
BEGIN
	FOR i IN 1..2 LOOP
		t0 := clock_timestamp();
		EXECUTE q;
		best := least(best, extract(epoch FROM clock_timestamp() - t0));
	END LOOP;
	RETURN best;
END $$;

-- ours <= 1.5 x theirs + 0.05 s, with the times in the message
CREATE FUNCTION pg_temp.within(ours float8, theirs float8, what text) RETURNS text LANGUAGE sql AS $$
	SELECT ok($1 <= 1.5 * $2 + 0.05,
			  format('%s: %s s against %s s (ratio %s)', $3, round($1::numeric, 3), round($2::numeric, 3),
					 round(($1 / greatest($2, 1e-6))::numeric, 2))) $$;

CREATE TEMP TABLE lines AS
	SELECT i AS id, ST_MakeLine(ST_MakePoint(0, i * 10), ST_MakePoint(1e7, i * 10)) AS geom
	FROM generate_series(1, 30000) i;
SELECT pg_temp.within(
	pg_temp.best_of_two('SELECT max(c) FROM (SELECT gpu_dbscan(geom, 1, 2) OVER () c FROM lines) s'),
	pg_temp.best_of_two('SELECT max(c) FROM (SELECT ST_ClusterDBSCAN(geom, 1, 2) OVER () c FROM lines) s'),
	'30,000 parallel lines, eps 1: gpu_dbscan within 1.5x of ST_ClusterDBSCAN');

-- Shape mixes: the same ids as ST_ClusterDBSCAN (equal, not up to relabelling).
SELECT setseed(0.86);
CREATE TEMP TABLE mixes AS
	SELECT i AS id, CASE i % 5
		WHEN 0 THEN ST_MakeLine(ST_MakePoint(0, (i / 5) * 3), ST_MakePoint(1000, (i / 5) * 3))
		WHEN 1 THEN ST_MakeLine(ST_MakePoint(random() * 1000, random() * 1000), ST_MakePoint(random() * 1000, random() * 1000))
		WHEN 2 THEN ST_Expand(ST_MakePoint(500, 500), (i % 97) * 5 + 1)::geometry
		WHEN 3 THEN ST_Expand(ST_MakePoint(random() * 1000, random() * 1000), random() * 3)::geometry
		ELSE ST_MakePoint(random() * 1000, random() * 1000) END AS geom
	FROM generate_series(1, 1500) i;
SELECT is((SELECT count(*)::int FROM (
			SELECT gpu_dbscan(geom, e, m) OVER (ORDER BY id) a, ST_ClusterDBSCAN(geom, e, m) OVER (ORDER BY id) b
			FROM mixes, (VALUES (2.0, 2), (0.5, 4)) p(e, m)) s WHERE a IS DISTINCT FROM b), 0,
		  'long lines, diagonals, nested boxes, small polygons and points: ids equal ST_ClusterDBSCAN''s');
SELECT is((SELECT count(*)::int FROM (
			SELECT gpu_dbscan(geom, 0, 1) OVER (ORDER BY id) a, ST_ClusterDBSCAN(geom, 0, 1) OVER (ORDER BY id) b
			FROM mixes) s WHERE a IS DISTINCT FROM b), 0, 'the same at eps 0, minpoints 1');
SELECT is((SELECT count(*)::int FROM (
			SELECT gpu_dbscan(geom, 1, 2) OVER (ORDER BY id) a, ST_ClusterDBSCAN(geom, 1, 2) OVER (ORDER BY id) b
			FROM (SELECT id, ST_MakeLine(ST_MakePoint(0, id), ST_MakePoint(1e4, id)) AS geom
				  FROM generate_series(1, 3000) id) l) s WHERE a IS DISTINCT FROM b), 0,
		  '3,000 parallel lines 1 apart, eps 1: one chain, as ST_ClusterDBSCAN');

-- The dense sweep.
CREATE TEMP TABLE dense AS
	SELECT i AS id, ST_MakePoint(random() * 0.5, random() * 0.5) AS geom FROM generate_series(1, 30000) i;
SELECT pg_temp.best_of_two('SELECT max(c) FROM (SELECT gpu_dbscan(geom, 1, 2) OVER () c FROM dense) s')
	 + pg_temp.best_of_two('SELECT max(c) FROM (SELECT gpu_dbscan(geom, 1, 30001) OVER () c FROM dense) s')
	AS each_value \gset
SELECT pg_temp.within(
	pg_temp.best_of_two($$SELECT max(c[1]) FROM (SELECT gpu_dbscan_sweep(geom, 1, '{2,30001}') OVER () c FROM dense) s$$),
	:each_value, '30,000 points within eps, minpoints {2, 30001}: gpu_dbscan_sweep within 1.5x of one gpu_dbscan per value');
SELECT pg_temp.within(
	pg_temp.best_of_two($$SELECT gpu_dbscan_params(geom, '{1}', '{2,30001}') FROM dense$$),
	:each_value, 'and gpu_dbscan_params');
SELECT * FROM finish();
ROLLBACK;
