-- The function matrix: every form (window ids, point type, minpoints sweep,
-- _agg, _params, and _collect for geometry) over every input kind (2D
-- geometry of points and of other shapes, POINT Z, float8[] of 2 and of 4
-- coordinates, geography), against DBSCAN written out in SQL
-- (lib/reference_dbscan.sql) over neighbour pairs found by brute force with
-- each kind's predicate: ST_DWithin(geometry, geometry, eps) in 2D, the
-- n-D predicate of gd_core.h for POINT Z and float8[], ST_DWithin(geog,
-- geog, eps, false) for geography.  2D geometry is also held against
-- ST_ClusterDBSCAN.  Seeded sets with NULL rows (and EMPTY rows where the
-- type has them), minpoints 0 to past every cluster, and for geography an
-- eps beyond half the circumference (every pair within).
\ir lib/prelude.sql
\ir lib/reference_dbscan.sql
\ir lib/explain.sql

-- input: geometry (column g, 2D), pointz (g, POINT Z), array (a), geography (geog)
CREATE TABLE gd_test.mx_sets (ds int PRIMARY KEY, input text NOT NULL, family text NOT NULL);
CREATE TABLE gd_test.mx (ds int, id int, g geometry, a float8[], geog geography);
CREATE TABLE gd_test.mx_cases (case_id serial, ds int, eps float8, minpoints int[]);

-- Gaussian blobs in dims coordinates plus a fifth of uniform noise: n float8[] rows of set ds.
CREATE FUNCTION gd_test.mx_blobs(set_id int, seed float8, n int, dims int, k int, sigma float8,
								 size float8)
RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
	centre	float8[];
	p		float8[];
	c		int;
BEGIN
	PERFORM setseed(seed);
	centre := ARRAY(SELECT random() * size FROM generate_series(1, k * dims));
	FOR i IN 1 .. n LOOP
		p := '{}';
		c := floor(random() * k)::int;
		FOR j IN 1 .. dims LOOP
			p := p || CASE WHEN i % 5 = 0 THEN random() * size
						   ELSE centre[c * dims + j] +
								sigma * sqrt(-2 * ln(1 - random())) * cos(2 * pi() * random())
					  END;
		END LOOP;
		INSERT INTO gd_test.mx (ds, id, a) VALUES (set_id, i, p);
	END LOOP;
END
$$;

DO $build$
BEGIN
	-- 1: 2D points; 2: 2D shapes (lines, polygons, multipoints, points)
	INSERT INTO gd_test.mx_sets VALUES (1, 'geometry', 'points'), (2, 'geometry', 'shapes');
	INSERT INTO gd_test.mx (ds, id, g) SELECT 1, id, geom FROM gd_test.gen_blobs(0.31, 220, 4, 1.0, 0.2, 30);
	INSERT INTO gd_test.mx (ds, id, g) SELECT 2, id, geom FROM gd_test.gen_shapes(0.27, 140, 20, 1.5);
	INSERT INTO gd_test.mx_cases (ds, eps, minpoints) VALUES
		(1, 0.6, '{0, 3, 6}'), (1, 1.5, '{1, 5, 12, 200}'),
		(2, 0.5, '{1, 2, 4}'), (2, 1.2, '{3, 8}');

	-- 3: POINT Z (4 blobs in 3D), 4: float8[4], 5: float8[2] (the 2D path)
	INSERT INTO gd_test.mx_sets VALUES (3, 'pointz', 'blobs'), (4, 'array', 'blobs 4D'),
		(5, 'array', 'blobs 2D');
	PERFORM gd_test.mx_blobs(3, 0.52, 220, 3, 4, 1.0, 12);
	UPDATE gd_test.mx SET g = ST_MakePoint(a[1], a[2], a[3]), a = NULL WHERE ds = 3;
	PERFORM gd_test.mx_blobs(4, 0.53, 220, 4, 4, 1.0, 12);
	PERFORM gd_test.mx_blobs(5, 0.54, 220, 2, 4, 0.7, 15);
	INSERT INTO gd_test.mx_cases (ds, eps, minpoints) VALUES
		(3, 0.8, '{0, 4, 9}'), (3, 1.6, '{2, 15}'),
		(4, 1.0, '{1, 3, 6}'), (4, 2.0, '{4, 20}'),
		(5, 0.5, '{2, 5}'), (5, 1.1, '{1, 8, 30}');

	-- 6: geography points near (10 E, 50 N), about 40 km across
	INSERT INTO gd_test.mx_sets VALUES (6, 'geography', 'lon/lat');
	PERFORM setseed(0.66);
	INSERT INTO gd_test.mx (ds, id, geog)
	SELECT 6, i, ST_SetSRID(ST_MakePoint(10 + random() * 0.5, 50 + random() * 0.35), 4326)::geography
	FROM generate_series(1, 200) AS i;
	INSERT INTO gd_test.mx_cases (ds, eps, minpoints) VALUES
		(6, 2500, '{1, 4, 8}'), (6, 5000, '{0, 12, 25}'), (6, 2.1e7, '{2, 199, 250}');

	-- NULL rows everywhere; EMPTY rows where the type has them
	UPDATE gd_test.mx SET g = NULL, a = NULL, geog = NULL WHERE id % 23 = 7;
	UPDATE gd_test.mx SET g = CASE WHEN ds = 3 THEN 'POINT Z EMPTY'::geometry ELSE 'POINT EMPTY' END
	WHERE ds IN (1, 2, 3) AND id % 29 = 11;
	UPDATE gd_test.mx SET geog = 'POINT EMPTY'::geography WHERE ds = 6 AND id % 29 = 11;
END
$build$;

-- The rows of each set in id order (rn 1..n): present (a non-empty value), empty.
CREATE VIEW gd_test.mx_rows AS
SELECT m.ds, m.id, row_number() OVER (PARTITION BY m.ds ORDER BY m.id)::int AS rn, m.g, m.a, m.geog,
	   CASE s.input WHEN 'array' THEN m.a IS NOT NULL
					WHEN 'geography' THEN m.geog IS NOT NULL AND NOT ST_IsEmpty(m.geog::geometry)
					ELSE m.g IS NOT NULL AND NOT ST_IsEmpty(m.g) END AS present,
	   CASE s.input WHEN 'array' THEN false
					WHEN 'geography' THEN m.geog IS NOT NULL AND ST_IsEmpty(m.geog::geometry)
					ELSE m.g IS NOT NULL AND ST_IsEmpty(m.g) END AS empty
FROM gd_test.mx m JOIN gd_test.mx_sets s USING (ds);

-- The neighbour pairs i < j of every case's set and eps, by brute force.
CREATE TABLE gd_test.mx_pairs AS
SELECT c.ds, c.eps, x.rn AS i, y.rn AS j
FROM (SELECT DISTINCT ds, eps FROM gd_test.mx_cases) c
JOIN gd_test.mx_sets s USING (ds)
JOIN gd_test.mx_rows x ON x.ds = c.ds AND x.present
JOIN gd_test.mx_rows y ON y.ds = c.ds AND y.present AND y.rn > x.rn
WHERE CASE s.input
		  WHEN 'geometry' THEN ST_DWithin(x.g, y.g, c.eps)
		  WHEN 'pointz' THEN gd_test.within_nd(ARRAY[ST_X(x.g), ST_Y(x.g), ST_Z(x.g)],
											   ARRAY[ST_X(y.g), ST_Y(y.g), ST_Z(y.g)], c.eps)
		  WHEN 'array' THEN gd_test.within_nd(x.a, y.a, c.eps)
		  ELSE ST_DWithin(x.geog, y.geog, c.eps, false)
	  END;
CREATE INDEX ON gd_test.mx_pairs (ds, eps);

-- The reference ids (types: point types) of set ds at eps and minpoints, in rn order.
CREATE FUNCTION gd_test.mx_want(set_id int, eps_ float8, minpoints int, types boolean DEFAULT false)
RETURNS text[]
LANGUAGE plpgsql AS $$
DECLARE
	present	boolean[];
	empty	boolean[];
	pi		int[];
	pj		int[];
BEGIN
	SELECT array_agg(r.present ORDER BY rn), array_agg(r.empty ORDER BY rn) INTO present, empty
	FROM gd_test.mx_rows r WHERE ds = set_id;
	SELECT array_agg(i ORDER BY i, j), array_agg(j ORDER BY i, j) INTO pi, pj
	FROM gd_test.mx_pairs p WHERE p.ds = set_id AND p.eps = eps_;
	IF types THEN
		RETURN gd_test.point_type_reference(present, empty, pi, pj, minpoints);
	END IF;
	RETURN gd_test.dbscan_reference(present, empty, pi, pj, minpoints)::text[];
END
$$;

-- The function of form (ids, point_type, sweep, agg, params, collect) for set ds's input.
CREATE FUNCTION gd_test.mx_fn(set_id int, form text)
RETURNS text
LANGUAGE sql AS $$
	SELECT CASE form WHEN 'ids' THEN 'gpu_dbscan' ELSE 'gpu_dbscan_' || form END
		   || CASE WHEN s.input = 'pointz' THEN '_3d' ELSE '' END
	FROM gd_test.mx_sets s WHERE s.ds = set_id
$$;

-- The input column of set ds.
CREATE FUNCTION gd_test.mx_col(set_id int)
RETURNS text
LANGUAGE sql AS $$
	SELECT CASE s.input WHEN 'array' THEN 'a' WHEN 'geography' THEN 'geog' ELSE 'g' END
	FROM gd_test.mx_sets s WHERE s.ds = set_id
$$;

-- A window function of form over set ds in rn order, each row's answer as
-- text (a sweep's element k only).
CREATE FUNCTION gd_test.mx_window(set_id int, form text, eps float8, minpoints int[], k int DEFAULT 1)
RETURNS text[]
LANGUAGE plpgsql AS $$
DECLARE
	result	text[];
BEGIN
	EXECUTE format('SELECT array_agg(x ORDER BY rn) FROM (SELECT rn, (%s(%s, $1, %s) OVER (ORDER BY rn))%s::text AS x
					FROM gd_test.mx_rows WHERE ds = %s) s',
				   gd_test.mx_fn(set_id, form), gd_test.mx_col(set_id),
				   CASE form WHEN 'sweep' THEN '$2' ELSE '$2[1]' END,
				   CASE form WHEN 'sweep' THEN format('[%s]', k) ELSE '' END, set_id)
	INTO result USING eps, minpoints;
	RETURN result;
END
$$;

-- gpu_dbscan_agg over set ds in rn order.
CREATE FUNCTION gd_test.mx_agg(set_id int, eps float8, minpoints int)
RETURNS text[]
LANGUAGE plpgsql AS $$
DECLARE
	result	int[];
BEGIN
	EXECUTE format('SELECT %s(%s, $1, $2 ORDER BY rn) FROM gd_test.mx_rows WHERE ds = %s',
				   gd_test.mx_fn(set_id, 'agg'), gd_test.mx_col(set_id), set_id)
	INTO result USING eps, minpoints;
	RETURN result::text[];
END
$$;

-- gpu_dbscan_params over set ds at one eps, its rows as text.
CREATE FUNCTION gd_test.mx_params(set_id int, eps float8, minpoints int[])
RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	result	text;
BEGIN
	EXECUTE format('SELECT string_agg(format(''%%s/%%s/%%s/%%s/%%s'', p.eps, p.minpoints, p.clusters,
											 p.noise_fraction, p.largest_cluster), '' '' ORDER BY o)
					FROM (SELECT %s(%s, ARRAY[$1], $2) AS r FROM gd_test.mx_rows WHERE ds = %s) s,
						 unnest(s.r) WITH ORDINALITY AS p(eps, minpoints, clusters, noise_fraction,
														  largest_cluster, o)',
				   gd_test.mx_fn(set_id, 'params'), gd_test.mx_col(set_id), set_id)
	INTO result USING eps, minpoints;
	RETURN result;
END
$$;

-- What gpu_dbscan_params should say, from the reference ids.
CREATE FUNCTION gd_test.mx_params_want(set_id int, eps float8, minpoints int[])
RETURNS text
LANGUAGE sql AS $$
	SELECT string_agg(format('%s/%s/%s/%s/%s', eps, m, coalesce(c.clusters, 0),
							 CASE WHEN c.rows > 0 THEN c.noise::float8 / c.rows END,
							 coalesce(c.largest, 0)), ' ' ORDER BY o)
	FROM unnest(minpoints) WITH ORDINALITY AS u(m, o),
		 LATERAL (SELECT gd_test.mx_want(set_id, eps, m)::int[] AS ids) w,
		 LATERAL (SELECT count(DISTINCT x.id) AS clusters,
						 count(*) FILTER (WHERE x.id IS NULL AND (r.present OR r.empty)) AS noise,
						 count(*) FILTER (WHERE r.present OR r.empty) AS rows,
						 (SELECT max(n) FROM (SELECT count(*) AS n FROM unnest(w.ids) AS v(id)
											  WHERE id IS NOT NULL GROUP BY id) z) AS largest
				  FROM unnest(w.ids) WITH ORDINALITY AS x(id, rn)
				  JOIN gd_test.mx_rows r ON r.ds = set_id AND r.rn = x.rn) c
$$;

-- Every (case, minpoints value) with its reference, computed once.
CREATE TABLE gd_test.mx_runs AS
SELECT c.case_id, c.ds, c.eps, u.m, u.k, s.input, s.family,
	   gd_test.mx_want(c.ds, c.eps, u.m) AS want,
	   gd_test.mx_want(c.ds, c.eps, u.m, true) AS want_types
FROM gd_test.mx_cases c
JOIN gd_test.mx_sets s USING (ds),
	 unnest(c.minpoints) WITH ORDINALITY AS u(m, k);

SELECT plan(3 + 2 + 1 + 7 + 4 * (SELECT count(*)::int FROM gd_test.mx_runs)
			  + (SELECT count(*)::int FROM gd_test.mx_runs WHERE input = 'geometry')
			  + (SELECT count(*)::int FROM gd_test.mx_cases)
			  + (SELECT count(*)::int FROM gd_test.mx_cases JOIN gd_test.mx_sets USING (ds)
				 WHERE input = 'geometry'));

SELECT ok((SELECT count(DISTINCT (input, family)) FROM gd_test.mx_sets) = 6, 'six sets over four input kinds');
SELECT ok((SELECT count(*) FROM gd_test.mx_pairs) > 20000, 'pairs of the reference computed');
SELECT ok((SELECT count(DISTINCT want_types[i]) FROM gd_test.mx_runs, generate_series(1, 50) AS i) = 3,
		  'the reference holds core, border and noise rows');

-- the window ids, the point types, the sweep's element for the value and
-- the aggregate, each against the reference
SELECT is(gd_test.mx_window(ds, 'ids', eps, ARRAY[m]), want,
		  format('%s %s: %s(eps %s, minpoints %s) is the reference', input, family,
				 gd_test.mx_fn(ds, 'ids'), eps, m))
FROM gd_test.mx_runs ORDER BY case_id, k;

SELECT is(gd_test.mx_window(ds, 'point_type', eps, ARRAY[m]), want_types,
		  format('%s %s: %s(eps %s, minpoints %s) is the reference', input, family,
				 gd_test.mx_fn(ds, 'point_type'), eps, m))
FROM gd_test.mx_runs ORDER BY case_id, k;

SELECT is(gd_test.mx_window(r.ds, 'sweep', r.eps, c.minpoints, r.k::int), r.want,
		  format('%s %s: %s(eps %s, %s) element %s is the reference', r.input, r.family,
				 gd_test.mx_fn(r.ds, 'sweep'), r.eps, c.minpoints, r.k))
FROM gd_test.mx_runs r JOIN gd_test.mx_cases c USING (case_id) ORDER BY r.case_id, r.k;

SELECT is(gd_test.mx_agg(ds, eps, m), want,
		  format('%s %s: %s(eps %s, minpoints %s ORDER BY rn) is the reference', input, family,
				 gd_test.mx_fn(ds, 'agg'), eps, m))
FROM gd_test.mx_runs ORDER BY case_id, k;

-- gpu_dbscan_params: one row per value, from the reference ids
SELECT is(gd_test.mx_params(c.ds, c.eps, c.minpoints), gd_test.mx_params_want(c.ds, c.eps, c.minpoints),
		  format('%s %s: %s(ARRAY[%s], %s) is the reference''s summary', s.input, s.family,
				 gd_test.mx_fn(c.ds, 'params'), c.eps, c.minpoints))
FROM gd_test.mx_cases c JOIN gd_test.mx_sets s USING (ds) ORDER BY c.case_id;

-- 2D geometry: ST_ClusterDBSCAN's clusters too
SELECT is(gd_test.labelings_diff(gd_test.mx_window(r.ds, 'ids', r.eps, ARRAY[r.m])::int[], p.want), NULL,
		  format('geometry %s: gpu_dbscan(eps %s, minpoints %s) has ST_ClusterDBSCAN''s clusters',
				 r.family, r.eps, r.m))
FROM gd_test.mx_runs r,
	 LATERAL (SELECT array_agg(x ORDER BY rn) AS want
			  FROM (SELECT rn, ST_ClusterDBSCAN(g, r.eps, r.m) OVER (ORDER BY rn) AS x
					FROM gd_test.mx_rows WHERE ds = r.ds) q) p
WHERE r.input = 'geometry'
ORDER BY r.case_id, r.k;

-- gpu_dbscan_collect: one collection per reference cluster, in id order, of its
-- non-empty members (an EMPTY row's own cluster is an empty collection)
SELECT is(p.got, p.want,
		  format('geometry %s: gpu_dbscan_collect(eps %s, minpoints %s) holds the reference''s clusters',
				 r.family, r.eps, r.m))
FROM gd_test.mx_runs r,
	 LATERAL (SELECT (SELECT array_agg(ST_NumGeometries(c) ORDER BY o)
					  FROM unnest(gpu_dbscan_collect(g, r.eps, r.m ORDER BY rn)) WITH ORDINALITY AS u(c, o))
					 AS got,
					 (SELECT array_agg(n ORDER BY id)
					  FROM (SELECT v.id::int, (count(*) FILTER (WHERE x.present))::int AS n
							FROM unnest(r.want) WITH ORDINALITY AS v(id, rn)
							JOIN gd_test.mx_rows x ON x.ds = r.ds AND x.rn = v.rn
							WHERE v.id IS NOT NULL GROUP BY v.id::int) z) AS want
			  FROM gd_test.mx_rows WHERE ds = r.ds) p
WHERE r.input = 'geometry' AND r.k = 1
ORDER BY r.case_id;

-- POINT Z: the _3d forms use Z (on this cloud the 2D point types differ),
-- and gpu_dbscan_point_type_3d's noise is gpu_dbscan_3d's
SELECT ok((SELECT count(*) FROM (
			  SELECT gpu_dbscan_point_type(g, 0.8, 4) OVER w AS t2, gpu_dbscan_point_type_3d(g, 0.8, 4) OVER w AS t3
			  FROM gd_test.mx_rows WHERE ds = 3 WINDOW w AS (ORDER BY rn)) s
		   WHERE t2 IS DISTINCT FROM t3) > 10,
		  'POINT Z: gpu_dbscan_point_type ignores Z, gpu_dbscan_point_type_3d does not');
SELECT is((SELECT count(*)::int FROM (
			  SELECT gpu_dbscan_3d(g, 0.8, 4) OVER w AS c, gpu_dbscan_point_type_3d(g, 0.8, 4) OVER w AS t
			  FROM gd_test.mx_rows WHERE ds = 3 WINDOW w AS (ORDER BY rn)) s
		   WHERE (c IS NULL) <> (t IS NULL OR t = 'noise')), 0,
		  'POINT Z: gpu_dbscan_point_type_3d''s noise and NULL rows are gpu_dbscan_3d''s');

-- only NULL rows: every form answers NULL (float8[] fixes no dimension)
SELECT is((SELECT array_agg(x ORDER BY i) FROM (
			  SELECT i, (gpu_dbscan(NULL::float8[], 1, 2) OVER w) IS NULL
						AND (gpu_dbscan_point_type(NULL::float8[], 1, 2) OVER w) IS NULL
						AND (gpu_dbscan_sweep(NULL::float8[], 1, '{1,2}') OVER w)::text = '{NULL,NULL}' AS x
			  FROM generate_series(1, 3) AS i WINDOW w AS (ORDER BY i)) s),
		  ARRAY[true, true, true],
		  'float8[]: a partition of NULL rows gets NULL ids and types');

-- parallel aggregation over the new input kinds: partial states serialized
-- and combined; without ORDER BY the clusters and the noise rows are those
-- of the window function (borders and ids may differ)
SELECT setseed(0.62) AS seed \gset
CREATE TABLE gd_test.par_a AS
SELECT i AS id, ARRAY[(i % 60) * 3 + random(), (i % 7) * 3 + random(), random(), random()] AS v
FROM generate_series(1, 8000) AS i;
CREATE TABLE gd_test.par_z AS
SELECT i AS id, ST_MakePoint((i % 60) * 3 + random(), (i % 7) * 3 + random(), 5 * random()) AS v
FROM generate_series(1, 8000) AS i;
CREATE TABLE gd_test.par_g AS
SELECT i AS id, ST_SetSRID(ST_MakePoint((i % 60) * 0.1 + random() * 0.02, 50 + (i % 7) * 0.1 + random() * 0.02),
						   4326)::geography AS v
FROM generate_series(1, 8000) AS i;
ALTER TABLE gd_test.par_a SET (parallel_workers = 2);
ALTER TABLE gd_test.par_z SET (parallel_workers = 2);
ALTER TABLE gd_test.par_g SET (parallel_workers = 2);
ANALYZE gd_test.par_a, gd_test.par_z, gd_test.par_g;
SET LOCAL parallel_setup_cost = 0;
SET LOCAL parallel_tuple_cost = 0;
SET LOCAL min_parallel_table_scan_size = 0;
SET LOCAL max_parallel_workers_per_gather = 2;
-- the Agg's partial states (GpuDbscanAgg, 93, 97 and 98, serves float8[] and POINT Z columns)
SET LOCAL gpu_dbscan.fast_path = off;

-- (clusters, noise rows) of an int[] of ids
CREATE FUNCTION gd_test.mx_summary(ids int[])
RETURNS text
LANGUAGE sql AS $$
	SELECT format('%s clusters, %s noise', count(DISTINCT c), count(*) FILTER (WHERE c IS NULL))
	FROM unnest(ids) AS c
$$;

SELECT ok((SELECT string_agg(p, E'\n') FROM gd_test.explain_lines(
			  'SELECT gpu_dbscan_agg(v, 0.9, 5) FROM gd_test.par_a') AS p) ~ 'Partial Aggregate',
		  'float8[] under forced parallel settings: Partial Aggregate');
SELECT is(gd_test.mx_summary((SELECT gpu_dbscan_agg(v, 0.9, 5) FROM gd_test.par_a)),
		  gd_test.mx_summary((SELECT array_agg(c) FROM (SELECT gpu_dbscan(v, 0.9, 5) OVER (ORDER BY id) AS c
														FROM gd_test.par_a) s)),
		  'parallel gpu_dbscan_agg(float8[]): clusters and noise of the window function');
SELECT is(gd_test.mx_summary((SELECT gpu_dbscan_agg_3d(v, 0.9, 5) FROM gd_test.par_z)),
		  gd_test.mx_summary((SELECT array_agg(c) FROM (SELECT gpu_dbscan_3d(v, 0.9, 5) OVER (ORDER BY id) AS c
														FROM gd_test.par_z) s)),
		  'parallel gpu_dbscan_agg_3d: clusters and noise of the window function');
SELECT is(gd_test.mx_summary((SELECT gpu_dbscan_agg(v, 1500, 5) FROM gd_test.par_g)),
		  gd_test.mx_summary((SELECT array_agg(c) FROM (SELECT gpu_dbscan(v, 1500, 5) OVER (ORDER BY id) AS c
														FROM gd_test.par_g) s)),
		  'parallel gpu_dbscan_agg(geography): clusters and noise of the window function');
SELECT is((SELECT string_agg(format('%s %s', p.clusters, p.noise_fraction), ', ' ORDER BY o)
		   FROM unnest((SELECT gpu_dbscan_params_3d(v, '{0.9}', '{5, 12}') FROM gd_test.par_z))
				WITH ORDINALITY AS p(eps, minpoints, clusters, noise_fraction, largest_cluster, o)),
		  (SELECT string_agg(format('%s %s', k, noise / 8000.0::float8), ', ' ORDER BY m)
		   FROM (SELECT m, count(DISTINCT c) AS k, count(*) FILTER (WHERE c IS NULL) AS noise
				 FROM (SELECT m, gpu_dbscan_3d(v, 0.9, m) OVER (PARTITION BY m ORDER BY id) AS c
					   FROM gd_test.par_z, unnest('{5, 12}'::int[]) AS m) s GROUP BY m) q),
		  'parallel gpu_dbscan_params_3d: clusters and noise fraction of the window function');
SELECT is((SELECT string_agg(format('%s %s', p.clusters, p.noise_fraction), ', ' ORDER BY o)
		   FROM unnest((SELECT gpu_dbscan_params(v, '{1500}', '{5, 12}') FROM gd_test.par_g))
				WITH ORDINALITY AS p(eps, minpoints, clusters, noise_fraction, largest_cluster, o)),
		  (SELECT string_agg(format('%s %s', k, noise / 8000.0::float8), ', ' ORDER BY m)
		   FROM (SELECT m, count(DISTINCT c) AS k, count(*) FILTER (WHERE c IS NULL) AS noise
				 FROM (SELECT m, gpu_dbscan(v, 1500, m) OVER (PARTITION BY m ORDER BY id) AS c
					   FROM gd_test.par_g, unnest('{5, 12}'::int[]) AS m) s GROUP BY m) q),
		  'parallel gpu_dbscan_params(geography): clusters and noise fraction of the window function');
SELECT is((SELECT string_agg(format('%s %s', p.clusters, p.noise_fraction), ', ' ORDER BY o)
		   FROM unnest((SELECT gpu_dbscan_params(v, '{0.9}', '{5, 12}') FROM gd_test.par_a))
				WITH ORDINALITY AS p(eps, minpoints, clusters, noise_fraction, largest_cluster, o)),
		  (SELECT string_agg(format('%s %s', k, noise / 8000.0::float8), ', ' ORDER BY m)
		   FROM (SELECT m, count(DISTINCT c) AS k, count(*) FILTER (WHERE c IS NULL) AS noise
				 FROM (SELECT m, gpu_dbscan(v, 0.9, m) OVER (PARTITION BY m ORDER BY id) AS c
					   FROM gd_test.par_a, unnest('{5, 12}'::int[]) AS m) s GROUP BY m) q),
		  'parallel gpu_dbscan_params(float8[]): clusters and noise fraction of the window function');
RESET max_parallel_workers_per_gather;
RESET gpu_dbscan.fast_path;

SELECT * FROM finish();
ROLLBACK;
