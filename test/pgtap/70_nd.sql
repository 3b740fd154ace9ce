-- gpu_dbscan_3d(geometry) and gpu_dbscan(float8[]) against DBSCAN written
-- out in SQL (lib/reference_dbscan.sql) over neighbour pairs computed in SQL
-- from the n-D predicate of gd_core.h: |d_k| <= eps on every axis and
-- sqrt(d_0*d_0 + d_1*d_1 + ...) <= eps, summed in axis order.
--
-- Seeded sets of 3 to 8 coordinates: uniform, gaussian blobs with noise,
-- exact duplicates, a lattice at exactly eps spacing; NULL rows everywhere,
-- EMPTY rows in the 3D geometry sets.  eps from all-noise to one cluster,
-- minpoints 0, 1, 2 and larger.  Then properties: gpu_dbscan_3d with every
-- Z = 0 is gpu_dbscan, float8[2] points are gpu_dbscan(geometry) and
-- ST_ClusterDBSCAN, geometry and arrays agree in 3D, row order and threads
-- do not change the clusters.
\ir lib/prelude.sql
\ir lib/reference_dbscan.sql

-- One row per point: p is NULL for a NULL row (and for an EMPTY one).
CREATE TABLE gd_test.nd (ds int, id int, p float8[], empty boolean NOT NULL DEFAULT false);
CREATE TABLE gd_test.nd_sets (ds int PRIMARY KEY, family text, dims int, geometry boolean);
CREATE TABLE gd_test.nd_cases (case_id serial, ds int, eps float8, minpoints int);

-- The rows of set ds in id order (rn 1..n), and 3D geometries for them.
CREATE VIEW gd_test.nd_rows AS
SELECT ds, id, row_number() OVER (PARTITION BY ds ORDER BY id)::int AS rn, p, empty,
	   CASE WHEN empty THEN 'POINT EMPTY'::geometry
			WHEN p IS NOT NULL AND cardinality(p) = 3 THEN ST_MakePoint(p[1], p[2], p[3])
	   END AS geom
FROM gd_test.nd;

-- Seeded points: family uniform (in [0, size)^dims), blobs (k gaussian blobs
-- of deviation sigma plus a fifth uniform noise), dups (k sites, exact
-- copies), lattice (integer lattice times step, some sites left out) or
-- spread (the first three axes, which the grid cuts, in [0, 1); on the
-- others k clumps 3 apart on the fourth axis, 0.8 wide, a tenth noise: crowded
-- cells that are not small, one set or several).
CREATE FUNCTION gd_test.gen_nd(ds int, seed float8, family text, n int, dims int,
							   size float8, k int DEFAULT 4, sigma float8 DEFAULT 1,
							   step float8 DEFAULT 0.5)
RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
	centre	float8[];
	p		float8[];
	c		int;
	u		int;
BEGIN
	PERFORM setseed(seed);
	centre := ARRAY(SELECT random() * size FROM generate_series(1, k * dims));
	FOR i IN 1 .. n LOOP
		p := '{}';
		c := floor(random() * k)::int;
		FOR j IN 1 .. dims LOOP
			p := p || CASE family
				WHEN 'uniform' THEN random() * size
				WHEN 'blobs' THEN CASE WHEN i % 5 = 0 THEN random() * size
									   ELSE centre[c * dims + j] +
											sigma * sqrt(-2 * ln(1 - random())) * cos(2 * pi() * random())
								  END
				WHEN 'dups' THEN floor(centre[c * dims + j] / size * 3) * step
				WHEN 'lattice' THEN (floor(random() * 5) * step)::float8
				WHEN 'spread' THEN CASE WHEN j <= 3 THEN random()
										WHEN i % 10 = 0 THEN random() * 3 * k
										ELSE CASE WHEN j = 4 THEN 3 * c ELSE 0 END + 0.8 * random() - 0.4
								   END
			END;
		END LOOP;
		INSERT INTO gd_test.nd (ds, id, p) VALUES (ds, i, p);
	END LOOP;
END
$$;

DO $build$
DECLARE
	d		int := 0;
	dims	int;
	s		float8;
BEGIN
	-- uniform and blobs in 3 to 8 coordinates, 3D also as geometry
	FOR dims IN 3 .. 8 LOOP
		d := d + 1;
		PERFORM gd_test.gen_nd(d, 0.01 * dims, 'uniform', 250, dims, 10);
		INSERT INTO gd_test.nd_sets VALUES (d, 'uniform', dims, dims = 3);
		s := 10 / power(250, 1.0 / dims);		-- typical spacing
		INSERT INTO gd_test.nd_cases (ds, eps, minpoints) VALUES
			(d, s * 0.3, 2), (d, s * 0.8, 1), (d, s, 3), (d, s * 1.5, 5), (d, s * 2.5, 12), (d, 100, 2);

		d := d + 1;
		PERFORM gd_test.gen_nd(d, 0.1 + 0.01 * dims, 'blobs', 300, dims, 20, 4, 0.8);
		INSERT INTO gd_test.nd_sets VALUES (d, 'blobs', dims, dims = 3);
		INSERT INTO gd_test.nd_cases (ds, eps, minpoints) VALUES
			(d, 0.5, 2), (d, 1.0, 4), (d, 1.6, 8), (d, 2.5, 20), (d, 1.2, 0);
	END LOOP;

	-- exact duplicates at a few sites, at exactly step from each other
	FOREACH dims IN ARRAY ARRAY[3, 5] LOOP
		d := d + 1;
		PERFORM gd_test.gen_nd(d, 0.5 + dims / 100.0, 'dups', 300, dims, 10, 6);
		INSERT INTO gd_test.nd_sets VALUES (d, 'dups', dims, dims = 3);
		INSERT INTO gd_test.nd_cases (ds, eps, minpoints) VALUES
			(d, 0, 2), (d, 0, 60), (d, 0.5, 30), (d, 0.5 * sqrt(2), 80), (d, 0.75, 1);
	END LOOP;

	-- a lattice: axis neighbours at exactly eps, diagonals beyond it
	d := d + 1;
	PERFORM gd_test.gen_nd(d, 0.77, 'lattice', 200, 3, 10);
	INSERT INTO gd_test.nd_sets VALUES (d, 'lattice', 3, true);
	INSERT INTO gd_test.nd_cases (ds, eps, minpoints) VALUES
		(d, 0.5, 2), (d, 0.5, 7), (d, 0.49999999999999994, 2), (d, 0.5 * sqrt(2), 9),
		(d, 0.5 * sqrt(3), 12);

	-- crowded cells that are not small (more axes than the grid cuts)
	FOREACH dims IN ARRAY ARRAY[5, 6] LOOP
		d := d + 1;
		PERFORM gd_test.gen_nd(d, 0.3 + dims / 100.0, 'spread', 300, dims, 1, 4);
		INSERT INTO gd_test.nd_sets VALUES (d, 'spread', dims, false);
		INSERT INTO gd_test.nd_cases (ds, eps, minpoints) VALUES
			(d, 0.3, 2), (d, 0.5, 4), (d, 0.9, 5), (d, 1.6, 12);
	END LOOP;

	-- NULL rows in every set, EMPTY rows in the geometry sets
	UPDATE gd_test.nd SET p = NULL WHERE id % 23 = 7;
	UPDATE gd_test.nd n SET p = NULL, empty = true
	FROM gd_test.nd_sets s WHERE s.ds = n.ds AND s.geometry AND n.id % 29 = 11;
END
$build$;

-- Every pair of non-NULL rows of a set with what the predicate needs: the
-- largest |d_k| and sqrt of the squares summed in axis order.  The pair is
-- within eps exactly when both are <= eps.
CREATE TABLE gd_test.nd_pairs AS
SELECT a.ds, a.rn AS i, b.rn AS j, max(abs(x.d)) AS maxabs, sqrt(sum(x.d * x.d ORDER BY x.k)) AS dist
FROM gd_test.nd_rows a
JOIN gd_test.nd_rows b ON b.ds = a.ds AND b.rn > a.rn,
	 LATERAL (SELECT k, b.p[k] - a.p[k] AS d FROM generate_series(1, cardinality(a.p)) AS k) x
WHERE a.p IS NOT NULL AND b.p IS NOT NULL
GROUP BY a.ds, a.rn, b.rn;
CREATE INDEX ON gd_test.nd_pairs (ds);

-- The reference clustering of set ds, with its rows in id order or in
-- reverse (the ids returned in id order either way).
CREATE FUNCTION gd_test.nd_want(set_id int, eps float8, minpoints int, reverse boolean DEFAULT false)
RETURNS int[]
LANGUAGE plpgsql AS $$
DECLARE
	n		int;
	present	boolean[];
	empty	boolean[];
	pi		int[];
	pj		int[];
	ids		int[];
BEGIN
	-- rows in the order clustered: position rn, or n + 1 - rn in reverse
	SELECT count(*), array_agg(p IS NOT NULL ORDER BY CASE WHEN reverse THEN -rn ELSE rn END),
		   array_agg(r.empty ORDER BY CASE WHEN reverse THEN -rn ELSE rn END)
	INTO n, present, empty
	FROM gd_test.nd_rows r WHERE ds = set_id;
	SELECT array_agg(a ORDER BY a, b), array_agg(b ORDER BY a, b) INTO pi, pj
	FROM (SELECT CASE WHEN reverse THEN n + 1 - j ELSE i END AS a,
				 CASE WHEN reverse THEN n + 1 - i ELSE j END AS b
		  FROM gd_test.nd_pairs
		  WHERE ds = set_id AND maxabs <= eps AND dist <= eps) q;
	ids := gd_test.dbscan_reference(present, empty, pi, pj, minpoints);
	IF reverse THEN
		ids := ARRAY(SELECT ids[n + 1 - k] FROM generate_series(1, n) AS k);
	END IF;
	RETURN ids;
END
$$;

-- gpu_dbscan's clustering of set ds, as float8[] or as 3D geometry.
CREATE FUNCTION gd_test.nd_got(set_id int, eps float8, minpoints int, as_geometry boolean)
RETURNS int[]
LANGUAGE plpgsql AS $$
DECLARE
	result	int[];
BEGIN
	IF as_geometry THEN
		SELECT array_agg(c ORDER BY rn) INTO result
		FROM (SELECT rn, gpu_dbscan_3d(geom, eps, minpoints) OVER (ORDER BY rn) AS c
			  FROM gd_test.nd_rows WHERE ds = set_id) s;
	ELSE
		SELECT array_agg(c ORDER BY rn) INTO result
		FROM (SELECT rn, gpu_dbscan(p, eps, minpoints) OVER (ORDER BY rn) AS c
			  FROM gd_test.nd_rows WHERE ds = set_id AND NOT empty) s;
	END IF;
	RETURN result;
END
$$;

-- The reference without the EMPTY rows (what the float8[] run sees).
CREATE FUNCTION gd_test.drop_empty(set_id int, ids int[])
RETURNS int[]
LANGUAGE sql AS $$
	SELECT array_agg(u.x ORDER BY u.i)
	FROM unnest(ids) WITH ORDINALITY AS u(x, i)
	JOIN gd_test.nd_rows r ON r.ds = set_id AND r.rn = u.i
	WHERE NOT r.empty
$$;

-- NULL when got is want up to relabelling and numbered by first row.
CREATE FUNCTION gd_test.nd_diff(got int[], want int[])
RETURNS text
LANGUAGE sql AS $$
	SELECT coalesce(gd_test.labelings_diff(got, want), gd_test.ids_diff(got))
$$;

SELECT plan(7 + (SELECT count(*)::int FROM gd_test.nd_cases)
			  + 2 * (SELECT count(*)::int FROM gd_test.nd_cases c
					 JOIN gd_test.nd_sets s USING (ds) WHERE s.geometry));

SELECT ok((SELECT count(DISTINCT dims) FROM gd_test.nd_sets) = 6, 'sets of 3 to 8 coordinates');
SELECT ok((SELECT count(*) FROM gd_test.nd_pairs) > 100000, 'pairs of the reference computed');

-- float8[] against the reference, every set
SELECT is(gd_test.nd_diff(gd_test.nd_got(c.ds, c.eps, c.minpoints, false),
						  gd_test.drop_empty(c.ds, w.want)),
		  NULL,
		  format('%s %s-D float8[], eps %s, minpoints %s: the reference clusters',
				 s.family, s.dims, round(c.eps::numeric, 4), c.minpoints))
FROM gd_test.nd_cases c
JOIN gd_test.nd_sets s USING (ds),
	 LATERAL (SELECT gd_test.nd_want(c.ds, c.eps, c.minpoints) AS want) w
ORDER BY c.case_id;

-- gpu_dbscan_3d against the reference, the 3D sets (EMPTY rows included)
SELECT is(gd_test.nd_diff(gd_test.nd_got(c.ds, c.eps, c.minpoints, true),
						  gd_test.nd_want(c.ds, c.eps, c.minpoints)),
		  NULL,
		  format('%s gpu_dbscan_3d, eps %s, minpoints %s: the reference clusters',
				 s.family, round(c.eps::numeric, 4), c.minpoints))
FROM gd_test.nd_cases c
JOIN gd_test.nd_sets s USING (ds)
WHERE s.geometry
ORDER BY c.case_id;

-- the same runs with one thread and the rows in reverse order, against the
-- reference in that order (borders between clusters may change sides)
SET gpu_dbscan.threads = 1;
SELECT is(gd_test.labelings_diff(r.got, gd_test.nd_want(c.ds, c.eps, c.minpoints, true)), NULL,
		  format('%s gpu_dbscan_3d, eps %s, minpoints %s, one thread, rows in reverse: same clusters',
				 s.family, round(c.eps::numeric, 4), c.minpoints))
FROM gd_test.nd_cases c
JOIN gd_test.nd_sets s USING (ds),
	 LATERAL (SELECT array_agg(x ORDER BY rn) AS got
			  FROM (SELECT rn, gpu_dbscan_3d(geom, c.eps, c.minpoints) OVER (ORDER BY rn DESC) AS x
					FROM gd_test.nd_rows WHERE ds = c.ds) q) r
WHERE s.geometry
ORDER BY c.case_id;
RESET gpu_dbscan.threads;

-- Properties on 2D and flat 3D data: the 3D relation with dz = 0 is the 2D
-- one but where a query box rounds across a point (not on these sets), and
-- float8[2] points are the 2D path.
CREATE TABLE gd_test.flat AS
SELECT g.id, g.geom, ARRAY[ST_X(g.geom), ST_Y(g.geom)] AS p2,
	   ST_MakePoint(ST_X(g.geom), ST_Y(g.geom), 0) AS g3
FROM gd_test.gen_blobs(0.42, 1500, 5, 1.5, 0.2, 60) g;

SELECT is((SELECT count(*)::int FROM (
			  SELECT gpu_dbscan(geom, 1.1, 4) OVER w AS a, gpu_dbscan_3d(g3, 1.1, 4) OVER w AS b
			  FROM gd_test.flat WINDOW w AS (ORDER BY id)) s
		   WHERE a IS DISTINCT FROM b), 0,
		  'gpu_dbscan_3d with every Z = 0 gives gpu_dbscan''s ids');
SELECT is((SELECT count(*)::int FROM (
			  SELECT gpu_dbscan(geom, 1.1, 4) OVER w AS a, gpu_dbscan(p2, 1.1, 4) OVER w AS b
			  FROM gd_test.flat WINDOW w AS (ORDER BY id)) s
		   WHERE a IS DISTINCT FROM b), 0,
		  'float8[2] points give gpu_dbscan(geometry)''s ids');
SELECT is(gd_test.labelings_diff(
			  (SELECT array_agg(c ORDER BY id) FROM (
				   SELECT id, gpu_dbscan(p2, 0.7, 3) OVER (ORDER BY id) AS c FROM gd_test.flat) s),
			  (SELECT array_agg(c ORDER BY id) FROM (
				   SELECT id, ST_ClusterDBSCAN(geom, 0.7, 3) OVER (ORDER BY id) AS c FROM gd_test.flat) s)),
		  NULL, 'float8[2] points: the clusters of ST_ClusterDBSCAN');

-- Sweeps of dense n-D data: 30,000 points pairwise within eps are 4.5e8
-- neighbour pairs (3.6 GB), which the sweep no longer lists (it took minutes,
-- then ran out of memory): each value is clustered on the grid, as fast as
-- one gpu_dbscan_3d call per value, with the same ids.
CREATE TABLE gd_test.dense3 AS
SELECT i AS id, ST_MakePoint(random() * 0.5, random() * 0.5, random() * 0.5) AS g
FROM (SELECT setseed(0.71)) s, generate_series(1, 30000) i;
SELECT is((SELECT count(*)::int FROM (
			  SELECT gpu_dbscan_sweep_3d(g, 1, '{5, 30000, 30001}') OVER w AS s,
					 gpu_dbscan_3d(g, 1, 5) OVER w AS a, gpu_dbscan_3d(g, 1, 30000) OVER w AS b
			  FROM gd_test.dense3 WINDOW w AS (ORDER BY id)) q
		   WHERE s IS DISTINCT FROM ARRAY[a, b, NULL]), 0,
		  'dense POINT Z: the sweep gives one call''s ids per value (no pair list)');
SELECT max(cardinality(s)) AS dense_values
FROM (SELECT gpu_dbscan_sweep_3d(g, 1, '{5, 30000, 30001}') OVER () AS s FROM gd_test.dense3) q \gset
SELECT cmp_ok((SELECT total_ms FROM gpu_dbscan_last_run()), '<', 20000::float8,
			  'dense POINT Z: the sweep took seconds at most');

SELECT * FROM finish();
ROLLBACK;
