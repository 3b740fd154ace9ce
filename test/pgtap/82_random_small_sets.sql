-- 82_random_small_sets: 2000 seeded random tiny data sets (1 to 40 rows)
-- against ST_ClusterDBSCAN, one window partition each: duplicates, lattices
-- at exactly eps (and an ulp off it), coordinates from 1e-300 to 1e30 and
-- offset by 1e15, NULL and EMPTY rows, short lines among the points, eps
-- from 0 to 3 lattice steps, minpoints from 0 to one more than the rows,
-- rows in a shuffled order.  Every set must match up to relabelling (and
-- our ids run by first row).  The seed is fixed (setseed below): a failure
-- names its set, and the same set comes back on every run.
--
-- In a partition that holds lines, PostGIS's candidate test is one-sided at
-- the last bit (q's box against p's box grown by eps, rounded in p's frame):
-- the glue passes each pair's directions to the core (the 4-row case below).
\ir lib/prelude.sql

SELECT plan(23);

CREATE SCHEMA gd_rel_82;
CREATE FUNCTION gd_rel_82.run(fn text) RETURNS int[] LANGUAGE plpgsql AS $$
DECLARE
	r	int[];
BEGIN
	EXECUTE format($q$SELECT array_agg(c ORDER BY id) FROM (SELECT id, %s(g, 3e-301, 2) OVER (ORDER BY id) AS c
					 FROM (VALUES (1, 'POINT(6e-301 1.2e-300)'::geometry), (2, 'POINT(1.1580587e-317 1.2e-300)'),
								  (3, 'POINT(3e-301 1.5e-300)'),
								  (4, 'LINESTRING(1.5e-300 -3.539066e-318, 1.59e-300 -3.539066e-318)')) v(id, g)) s$q$, fn)
	INTO r;
	RETURN r;
END
$$;

CREATE TEMP TABLE sets AS
SELECT set_id,
	   1 + floor(random() * 40)::int AS n,
	   (ARRAY[1, 1e-300, 1e-160, 1e-5, 1e30, 1])[1 + floor(random() * 6)::int] AS scale,
	   CASE WHEN random() < 0.2 THEN 1e15 ELSE 0 END AS offset_,
	   (ARRAY[1, 0.5, 0.25, 0.1, 0.3])[1 + floor(random() * 5)::int] AS step,
	   (ARRAY[0, 1, sqrt(2), 1.5, 3, 0.999999999999])[1 + floor(random() * 6)::int] AS eps_steps,
	   floor(random() * 9)::int AS mp_kind,
	   random() < 0.3 AS jitter,
	   random() < 0.2 AS lines,
	   1 + floor(random() * 8)::int AS sites
FROM (SELECT setseed(0.4242)) z, generate_series(1, 2000) set_id;

CREATE TEMP TABLE rows_ AS
SELECT s.set_id, row_number() OVER (PARTITION BY s.set_id ORDER BY r.shuffle)::int AS id, r.geom,
	   s.step * s.scale * s.eps_steps AS eps,
	   CASE s.mp_kind WHEN 7 THEN s.n WHEN 8 THEN s.n + 1 ELSE (ARRAY[0, 1, 2, 2, 3, 3, 4])[s.mp_kind + 1] END AS minpoints
FROM sets s,
	 LATERAL (SELECT random() AS shuffle,
					 CASE WHEN u < 0.05 THEN NULL
						  WHEN u < 0.10 THEN 'POINT EMPTY'::geometry
						  WHEN s.lines AND u < 0.25 THEN ST_MakeLine(ST_MakePoint(x, y), ST_MakePoint(x + s.step * s.scale * 0.3, y))
						  ELSE ST_MakePoint(x, y) END AS geom
			  FROM (SELECT i, random() AS u,
						   s.offset_ + s.scale * (s.step * floor(random() * s.sites)
												   + CASE WHEN s.jitter THEN s.step * 1e-16 * (random() - 0.5) ELSE 0 END) AS x,
						   s.offset_ + s.scale * (s.step * floor(random() * s.sites)
												   + CASE WHEN s.jitter THEN s.step * 1e-16 * (random() - 0.5) ELSE 0 END) AS y
					FROM generate_series(1, s.n) i) p) r;

SELECT cmp_ok((SELECT count(*)::int FROM rows_), '>', 10000, format('%s rows in %s sets', (SELECT count(*) FROM rows_), (SELECT count(*) FROM sets)));

SELECT is(gd_test.compare(format('(SELECT r.* FROM rows_ r JOIN sets s USING (set_id) WHERE NOT s.lines AND set_id BETWEEN %s AND %s) s', lo, lo + 99),
						  0, 0, 'set_id', 'id', 'eps', 'minpoints'),
		  NULL, format('sets %s to %s, points, NULL and EMPTY rows (%s sets): as ST_ClusterDBSCAN', lo, lo + 99,
					   (SELECT count(*) FROM sets WHERE NOT lines AND set_id BETWEEN lo AND lo + 99)))
FROM generate_series(1, 2000, 100) lo;

SELECT is(gd_test.compare('(SELECT r.* FROM rows_ r JOIN sets s USING (set_id) WHERE s.lines) s',
						  0, 0, 'set_id', 'id', 'eps', 'minpoints'),
		  NULL, format('the %s sets with lines among the points: as ST_ClusterDBSCAN', (SELECT count(*) FROM sets WHERE lines)));
-- The smallest case found (with other seeds): rows 2 and 3 are 3e-301 apart in y up to an
-- ulp; row 2's box (y + eps = 1.5e-300) holds row 3, row 3's box (y - eps =
-- 1.2000000000000002e-300) does not hold row 2, so PostGIS's later row 3
-- does not join core row 2's cluster; every ST_DWithin here is true (the
-- squared distances underflow).
SELECT is(gd_rel_82.run('gpu_dbscan'), gd_rel_82.run('ST_ClusterDBSCAN'),
		  'a line among points 3e-301 apart up to an ulp, eps 3e-301: ids as ST_ClusterDBSCAN''s');

SELECT * FROM finish();
ROLLBACK;
