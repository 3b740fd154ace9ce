-- The aggregates give the window function's answer: gpu_dbscan_agg(geom,
-- eps, minpoints ORDER BY o) is, element for element, the ids of
-- gpu_dbscan(geom, eps, minpoints) OVER (ORDER BY o) in that order;
-- gpu_dbscan_collect holds each cluster's geometries (ST_Collect of the
-- window function's clusters, in id order); gpu_dbscan_params counts what
-- gpu_dbscan_agg gives for every pair; gpu_dbscan_point_type agrees with the
-- ids and with brute-force neighbour counts.  Seeded random sets (uniform,
-- blobs, duplicates, lattices at exactly eps, jittered to the last bit,
-- non-point shapes, NULL and EMPTY rows), groups, parallel plans, and the
-- GeoNames cities when cache/cities500.tsv is there.
\ir lib/prelude.sql
\ir lib/cities.sql

-- NULL when gpu_dbscan_agg over src in order_expr order equals the window
-- function's ids in that order, else the first difference.
CREATE FUNCTION gd_test.agg_diff(src text, eps float8, minpoints int, order_expr text DEFAULT 'id')
RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	got		int[];
	want	int[];
	i		int;
BEGIN
	EXECUTE format('SELECT gpu_dbscan_agg(geom, $1, $2 ORDER BY %s) FROM %s', order_expr, src)
	INTO got USING eps, minpoints;
	EXECUTE format($q$SELECT array_agg(c ORDER BY rn)
					  FROM (SELECT row_number() OVER w AS rn, gpu_dbscan(geom, $1, $2) OVER w AS c
							FROM %s WINDOW w AS (ORDER BY %s)) s$q$, src, order_expr)
	INTO want USING eps, minpoints;
	IF got IS NOT DISTINCT FROM want THEN
		RETURN NULL;
	END IF;
	IF cardinality(got) IS DISTINCT FROM cardinality(want) THEN
		RETURN format('%s ids against %s', cardinality(got), cardinality(want));
	END IF;
	FOR i IN 1 .. cardinality(got) LOOP
		IF got[i] IS DISTINCT FROM want[i] THEN
			RETURN format('row %s: aggregate %s, window %s', i, got[i], want[i]);
		END IF;
	END LOOP;
	RETURN 'arrays differ';
END
$$;

-- NULL when gpu_dbscan_collect over src (ordered by id) holds, for each
-- cluster id in turn, ST_ForceCollection(ST_Collect()) of the window
-- function's rows of that cluster in id order.
CREATE FUNCTION gd_test.collect_diff(src text, eps float8, minpoints int)
RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	got		geometry[];
	want	geometry[];
BEGIN
	EXECUTE format('SELECT gpu_dbscan_collect(geom, $1, $2 ORDER BY id) FROM %s', src)
	INTO got USING eps, minpoints;
	EXECUTE format($q$SELECT coalesce(array_agg(g ORDER BY c), '{}')
					  FROM (SELECT c, ST_ForceCollection(ST_Collect(geom ORDER BY id)) AS g
							FROM (SELECT id, geom, gpu_dbscan(geom, $1, $2) OVER (ORDER BY id) AS c
								  FROM %s) s
							WHERE c IS NOT NULL GROUP BY c) t$q$, src)
	INTO want USING eps, minpoints;
	IF cardinality(got) IS DISTINCT FROM cardinality(want) THEN
		RETURN format('%s collections against %s', cardinality(got), cardinality(want));
	END IF;
	FOR i IN 1 .. cardinality(got) LOOP
		IF NOT ST_Equals(got[i], want[i]) OR ST_AsEWKB(got[i]) <> ST_AsEWKB(want[i]) THEN
			RETURN format('cluster %s: %s against %s', i - 1, left(ST_AsText(got[i]), 80),
						  left(ST_AsText(want[i]), 80));
		END IF;
	END LOOP;
	RETURN NULL;
END
$$;

-- NULL when gpu_dbscan_params over src gives, for every pair, the clusters,
-- noise fraction and largest cluster of gpu_dbscan_agg with that pair.
CREATE FUNCTION gd_test.params_diff(src text, eps float8[], minpoints int[])
RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	result	text;
BEGIN
	EXECUTE format($q$
		WITH got AS (
			SELECT p.*, row_number() OVER () AS k
			FROM (SELECT gpu_dbscan_params(geom, $1, $2) AS a FROM %1$s) s, unnest(s.a) p),
		pairs AS (
			SELECT e, m, row_number() OVER (ORDER BY ei, mi) AS k
			FROM unnest($1) WITH ORDINALITY ev(e, ei), unnest($2) WITH ORDINALITY mv(m, mi)),
		want AS (
			SELECT k, e, m,
				   (SELECT count(DISTINCT c)::int FROM unnest(a) c) AS clusters,
				   (SELECT count(*) FILTER (WHERE c IS NULL)::float8 / nullif(count(*), 0)
					FROM unnest(a, g) u(c, g) WHERE NOT g) AS noise_fraction,
				   coalesce((SELECT max(n)::int FROM (SELECT count(*) AS n FROM unnest(a) c
													 WHERE c IS NOT NULL GROUP BY c) z), 0)
					   AS largest_cluster
			FROM pairs,
				 LATERAL (SELECT gpu_dbscan_agg(geom, e, m ORDER BY id) AS a,
								 array_agg(geom IS NULL ORDER BY id) AS g FROM %1$s) x)
		SELECT string_agg(format('eps %%s minpoints %%s: got (%%s, %%s, %%s, %%s, %%s) want (%%s, %%s, %%s)',
								 w.e, w.m, g.eps, g.minpoints, g.clusters, g.noise_fraction,
								 g.largest_cluster, w.clusters, w.noise_fraction, w.largest_cluster), '; ')
		FROM want w FULL JOIN got g USING (k)
		WHERE g.eps IS DISTINCT FROM w.e OR g.minpoints IS DISTINCT FROM w.m
		   OR g.clusters IS DISTINCT FROM w.clusters OR g.largest_cluster IS DISTINCT FROM w.largest_cluster
		   OR abs(g.noise_fraction - w.noise_fraction) > 1e-12
		   OR (g.noise_fraction IS NULL) <> (w.noise_fraction IS NULL)
		$q$, src)
	INTO result USING eps, minpoints;
	RETURN result;
END
$$;

-- NULL when gpu_dbscan_point_type over src agrees with the ids (noise rows
-- are 'noise', clustered rows 'core' or 'border') and with brute-force
-- neighbour counts (core exactly when at least minpoints rows are within eps).
CREATE FUNCTION gd_test.types_diff(src text, eps float8, minpoints int)
RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	result	text;
BEGIN
	EXECUTE format($q$
		WITH r AS (
			SELECT id, geom, gpu_dbscan(geom, $1, $2) OVER w AS c,
				   gpu_dbscan_point_type(geom, $1, $2) OVER w AS t
			FROM %s WINDOW w AS (ORDER BY id))
		SELECT format('row id %%s: id %%s, type %%s, %%s neighbours', id, c, t, n)
		FROM (SELECT r.*, (SELECT count(*) FROM r q
						   WHERE NOT ST_IsEmpty(r.geom) AND NOT ST_IsEmpty(q.geom)
							 AND gd_test.neighbour(r.geom, q.geom, $1)) AS n FROM r) s
		WHERE (geom IS NULL) <> (t IS NULL)
		   OR (c IS NULL AND t <> 'noise')
		   OR (c IS NOT NULL AND t NOT IN ('core', 'border'))
		   OR (t = 'core' AND n < $2 AND NOT ST_IsEmpty(geom))
		   OR (t = 'border' AND n >= $2)
		   OR (t = 'noise' AND n >= $2 AND $2 >= 2)
		ORDER BY id LIMIT 1
		$q$, src)
	INTO result USING eps, minpoints;
	RETURN result;
END
$$;

-- q is p's neighbour as ST_ClusterDBSCAN decides (p searching): for two
-- points q inside p's box grown by eps (rounded in double) and
-- sqrt(dx*dx + dy*dy) <= eps; otherwise ST_DWithin.
CREATE FUNCTION gd_test.neighbour(p geometry, q geometry, eps float8)
RETURNS boolean
LANGUAGE sql IMMUTABLE AS $$
	SELECT CASE WHEN GeometryType(p) = 'POINT' AND GeometryType(q) = 'POINT'
				THEN ST_X(q) >= ST_X(p) - eps AND ST_X(q) <= ST_X(p) + eps
				 AND ST_Y(q) >= ST_Y(p) - eps AND ST_Y(q) <= ST_Y(p) + eps
				 AND sqrt((ST_X(q) - ST_X(p)) * (ST_X(q) - ST_X(p))
						  + (ST_Y(q) - ST_Y(p)) * (ST_Y(q) - ST_Y(p))) <= eps
				ELSE ST_DWithin(p, q, eps) END
$$;

\ir lib/explain.sql

\ir lib/sets.sql

-- The sets (generator calls) and the cases run on them.
CREATE TABLE gd_test.agg_sets (ds int, generator text);
INSERT INTO gd_test.agg_sets VALUES
	(1, 'gen_uniform(0.32, 300, 100)'),
	(2, 'gen_uniform(0.33, 600, 100)'),
	(3, 'gen_uniform(0.34, 900, 100)'),
	(4, 'gen_uniform(0.35, 1200, 100)'),
	(5, 'gen_blobs(0.42, 700, 4, 1.5, 0.1, 100)'),
	(6, 'gen_blobs(0.43, 1000, 5, 2, 0.1, 100)'),
	(7, 'gen_blobs(0.44, 1300, 6, 2.5, 0.1, 100)'),
	(8, 'gen_blobs(0.45, 1600, 7, 3, 0.1, 100)'),
	(9, 'gen_duplicates(0.51, 800, 40, 1)'),
	(10, 'gen_lattice(30, 40, 0.1, 1000.3, -20.7)'),
	(11, 'gen_jittered(-0.51, 1500, 1, 12)'),
	(12, 'gen_shapes(-0.61, 300, 50, 3)');
SELECT gd_test.load_set(ds, generator) FROM gd_test.agg_sets;
-- NULL and EMPTY rows in a uniform and a blob set
SELECT gd_test.sprinkle(2, 0.05, 0.05), gd_test.sprinkle(6, 0.1, 0.02);

CREATE TABLE gd_test.agg_cases (case_id serial, ds int, family text, eps float8, minpoints int);
INSERT INTO gd_test.agg_cases (ds, family, eps, minpoints) VALUES
	(1, 'uniform', 5.77, 3), (1, 'uniform', 2.89, 1), (1, 'uniform', 11.5, 8),
	(2, 'uniform', 4.08, 3), (2, 'uniform', 2.04, 1), (2, 'uniform', 8.16, 8),
	(3, 'uniform', 3.33, 3), (3, 'uniform', 1.67, 1), (3, 'uniform', 6.67, 8),
	(4, 'uniform', 2.89, 3), (4, 'uniform', 1.44, 1), (4, 'uniform', 5.77, 8),
	(5, 'blobs', 0.5, 4), (5, 'blobs', 1, 10), (5, 'blobs', 2, 2),
	(6, 'blobs', 0.5, 4), (6, 'blobs', 1, 10), (6, 'blobs', 2, 2),
	(7, 'blobs', 0.5, 4), (7, 'blobs', 1, 10), (7, 'blobs', 2, 2),
	(8, 'blobs', 0.5, 4), (8, 'blobs', 1, 10), (8, 'blobs', 2, 2),
	(9, 'duplicates', 0, 5), (9, 'duplicates', 1, 30), (9, 'duplicates', 1.5, 0),
	(10, 'lattice', 0.1, 3), (10, 'lattice', 0.1, 5), (10, 'lattice', 0.1, 1),
	(11, 'jittered', 1, 3), (11, 'jittered', 1, 6),
	(12, 'shapes', 1, 2), (12, 'shapes', 3, 4);
ANALYZE gd_test.pts;

SELECT plan(4 * (SELECT count(*)::int FROM gd_test.agg_cases) + 10 + 4);

-- every case: ids in id order and in a hashed order, collections, point types
SELECT is(gd_test.agg_diff(gd_test.ds(ds), eps, minpoints), NULL,
		  format('%s set %s, eps %s, minpoints %s: gpu_dbscan_agg ORDER BY id = window ids', family, ds, eps, minpoints))
FROM gd_test.agg_cases ORDER BY case_id;
SELECT is(gd_test.agg_diff(gd_test.ds(ds), eps, minpoints, 'hashint4(id), id'), NULL,
		  format('%s set %s, eps %s, minpoints %s: gpu_dbscan_agg in hash order = window ids', family, ds, eps, minpoints))
FROM gd_test.agg_cases ORDER BY case_id;
SELECT is(gd_test.collect_diff(gd_test.ds(ds), eps, minpoints), NULL,
		  format('%s set %s, eps %s, minpoints %s: gpu_dbscan_collect = ST_Collect of the window clusters', family, ds, eps, minpoints))
FROM gd_test.agg_cases ORDER BY case_id;
SELECT is(gd_test.types_diff(gd_test.ds(ds), eps, minpoints), NULL,
		  format('%s set %s, eps %s, minpoints %s: point types agree with ids and neighbour counts', family, ds, eps, minpoints))
FROM gd_test.agg_cases ORDER BY case_id;

-- gpu_dbscan_params against gpu_dbscan_agg, pair by pair
SELECT is(gd_test.params_diff(gd_test.ds(ds), e, m), NULL,
		  format('set %s: gpu_dbscan_params(%s, %s) = gpu_dbscan_agg per pair', ds, e, m))
FROM (VALUES (1, '{3, 5, 10}'::float8[], '{1, 3, 5, 20}'::int[]),
			 (2, '{4, 8}', '{0, 2, 4}'),
			 (6, '{0.5, 1, 2}', '{2, 5, 10, 15}'),
			 (9, '{0, 1}', '{1, 5, 30}'),
			 (12, '{1, 3}', '{1, 2, 4}')) v(ds, e, m);

-- GROUP BY: one clustering per group, as the window function per partition
SELECT is((SELECT count(*)::int
		   FROM (SELECT part, gpu_dbscan_agg(geom, 1, 4 ORDER BY id) AS a
				 FROM (SELECT id % 5 AS part, id, geom FROM gd_test.pts WHERE ds = 6) s GROUP BY part) g
		   JOIN (SELECT part, array_agg(c ORDER BY id) AS a
				 FROM (SELECT id % 5 AS part, id,
							  gpu_dbscan(geom, 1, 4) OVER (PARTITION BY id % 5 ORDER BY id) AS c
					   FROM gd_test.pts WHERE ds = 6) s GROUP BY part) w USING (part)
		   WHERE g.a IS NOT DISTINCT FROM w.a), 5,
		  'GROUP BY: every group''s gpu_dbscan_agg equals the window function over its partition');

-- parallel aggregation (partial states serialized and combined): the same
-- number of clusters and noise rows as the window function, and the same plan
-- (the Agg's: the fast path, GpuDbscanAgg, would read the table instead;
-- 93_agg_fast_path tests it)
SET LOCAL gpu_dbscan.fast_path = off;
CREATE TABLE gd_test.par AS SELECT id, geom FROM gd_test.pts WHERE ds = 7;
ALTER TABLE gd_test.par SET (parallel_workers = 2);
ANALYZE gd_test.par;
SET LOCAL parallel_setup_cost = 0;
SET LOCAL parallel_tuple_cost = 0;
SET LOCAL min_parallel_table_scan_size = 0;
SET LOCAL max_parallel_workers_per_gather = 2;
SELECT ok((SELECT string_agg(p, E'\n') FROM (SELECT * FROM gd_test.explain_lines(
			  'SELECT gpu_dbscan_agg(geom, 1, 10) FROM gd_test.par')) e(p)) ~ 'Partial Aggregate',
		  'a large table under forced parallel settings: Partial Aggregate');
SELECT results_eq(
	$$SELECT (SELECT count(DISTINCT c) FROM unnest(a) c)::int, (SELECT count(*) FROM unnest(a) c WHERE c IS NULL)::int
	  FROM (SELECT gpu_dbscan_agg(geom, 1, 10) AS a FROM gd_test.par) s$$,
	$$SELECT count(DISTINCT c)::int, count(*) FILTER (WHERE c IS NULL)::int
	  FROM (SELECT gpu_dbscan(geom, 1, 10) OVER (ORDER BY id) AS c FROM gd_test.par) s$$,
	'parallel gpu_dbscan_agg: clusters and noise rows of the window function');
SELECT is((SELECT count(*)::int FROM unnest((SELECT gpu_dbscan_collect(geom, 1, 10) FROM gd_test.par))),
		  (SELECT count(DISTINCT c)::int FROM (SELECT gpu_dbscan(geom, 1, 10) OVER (ORDER BY id) AS c FROM gd_test.par) s),
		  'parallel gpu_dbscan_collect: one collection per cluster');
SELECT is(gd_test.params_diff('gd_test.par', '{0.5, 1, 2}', '{3, 10}'), NULL,
		  'parallel gpu_dbscan_params = gpu_dbscan_agg per pair');
RESET max_parallel_workers_per_gather;
RESET gpu_dbscan.fast_path;

-- the cities
\if :have_cities
SELECT is(gd_test.agg_diff('cities', 0.05, 5), NULL, 'cities, eps 0.05, minpoints 5: gpu_dbscan_agg = window ids');
SELECT is(gd_test.agg_diff('cities', 0.5, 20, 'name, id'), NULL, 'cities by name, eps 0.5, minpoints 20: gpu_dbscan_agg = window ids');
SELECT is(gd_test.params_diff('cities', '{0.05, 0.1}', '{2, 5, 20}'), NULL, 'cities: gpu_dbscan_params = gpu_dbscan_agg per pair');
SELECT is((SELECT sum(ST_NumGeometries(g))::int FROM unnest((SELECT gpu_dbscan_collect(geom, 0.1, 5) FROM cities)) g),
		  (SELECT count(c)::int FROM (SELECT gpu_dbscan(geom, 0.1, 5) OVER () AS c FROM cities) s),
		  'cities: gpu_dbscan_collect holds every clustered city once');
\else
SELECT skip(format('no %s: run scripts/setup.sh (it fetches the cities into cache/)', :'cities_file'), 4);
\endif

SELECT * FROM finish();
ROLLBACK;
