-- test/pgtap/lib/equivalence_sets.sql — the seeded data sets of
-- 10_equivalence_random (gd_test.pts, one ds per set) and their cases
-- (gd_test.cases: eps, minpoints, PARTITION BY and ORDER BY); also run
-- through the fast path by 91_fast_path.  Included with \ir after prelude.sql.

CREATE TABLE gd_test.cases (
	case_id		serial,
	ds			int,
	family		text,
	eps			float8,
	minpoints	int,
	part_expr	text DEFAULT 'NULL::int',
	order_expr	text DEFAULT 'id'
);

DO $build$
DECLARE
	d		int := 0;
	n		int;
	s		float8;
	k		int;
	nn		int[] := ARRAY[200, 400, 600, 800, 1000, 1200, 1500, 1800, 2000, 2500, 3000, 3000];
	mp_a	int[] := ARRAY[2, 3, 4, 5];
	mp_b	int[] := ARRAY[5, 8, 10];
	mp_c	int[] := ARRAY[10, 20, 50];
BEGIN
	-- A. Uniform in a 100 x 100 square; s is the typical spacing.
	FOR i IN 1 .. 12 LOOP
		d := d + 1;
		n := nn[i];
		s := 100 / sqrt(n);
		INSERT INTO gd_test.pts (ds, id, geom)
		SELECT d, g.id, g.geom FROM gd_test.gen_uniform(i / 100.0, n, 100) g;
		INSERT INTO gd_test.cases (ds, family, eps, minpoints) VALUES
			(d, 'uniform', s * 0.01, 2),						-- all noise
			(d, 'uniform', s * 0.5, 1),						-- single linkage
			(d, 'uniform', s, mp_a[1 + i % 4]),
			(d, 'uniform', s * 1.5, mp_b[1 + i % 3]),
			(d, 'uniform', s * 3, mp_c[1 + i % 3]);
		IF n <= 1200 THEN
			INSERT INTO gd_test.cases (ds, family, eps, minpoints) VALUES
				(d, 'uniform', 200, 2),						-- one cluster
				(d, 'uniform', s * 0.7, 0);
		END IF;
	END LOOP;

	-- B. Gaussian blobs (Box-Muller) with uniform noise.
	FOR i IN 1 .. 12 LOOP
		d := d + 1;
		n := 500 + 200 * i;
		k := 2 + i;
		s := 0.5 + 0.25 * (i % 10);					-- sigma
		INSERT INTO gd_test.pts (ds, id, geom)
		SELECT d, g.id, g.geom
		FROM gd_test.gen_blobs(0.2 + i / 100.0, n, k, s, 0.05 + 0.02 * i, 100) g;
		INSERT INTO gd_test.cases (ds, family, eps, minpoints) VALUES
			(d, 'blobs', s * 0.2, mp_a[1 + i % 4]),
			(d, 'blobs', s * 0.5, mp_b[1 + i % 3]),
			(d, 'blobs', s, mp_c[1 + i % 3]),
			(d, 'blobs', s * 0.5, 0),
			(d, 'blobs', s * 2, n / k);					-- large minpoints
	END LOOP;

	-- C. Exact duplicates: n rows on k sites of a grid of spacing step.
	FOR i IN 1 .. 6 LOOP
		d := d + 1;
		n := (ARRAY[300, 600, 1000, 1500, 2000, 2500])[i];
		k := (ARRAY[3, 10, 30, 60, 100, 20])[i];
		s := (ARRAY[1, 0.5, 0.1, 2, 0.3, 1])[i];		-- step
		INSERT INTO gd_test.pts (ds, id, geom)
		SELECT d, g.id, g.geom FROM gd_test.gen_duplicates(0.4 + i / 100.0, n, k, s) g;
		INSERT INTO gd_test.cases (ds, family, eps, minpoints) VALUES
			(d, 'duplicates', 0, 1),
			(d, 'duplicates', 0, 2),
			(d, 'duplicates', 0, n / k),
			(d, 'duplicates', 0, n + 1),					-- nrows < minpoints: all noise
			(d, 'duplicates', s * 20, n),					-- nrows = minpoints, all neighbours
			(d, 'duplicates', s * 0.999, 5),
			(d, 'duplicates', s, 5 * n / k),
			(d, 'duplicates', s * 1.5, 2);
	END LOOP;

	-- D. Lattices and lines whose neighbours are exactly eps apart (in double
	-- arithmetic: give or take an ulp, which is the point).
	d := d + 1;
	INSERT INTO gd_test.pts (ds, id, geom) SELECT d, g.id, g.geom FROM gd_test.gen_lattice(40, 40, 1) g;
	INSERT INTO gd_test.cases (ds, family, eps, minpoints) VALUES
		(d, 'lattice', 1, 2), (d, 'lattice', 1, 5), (d, 'lattice', 1, 6), (d, 'lattice', sqrt(2), 9);
	d := d + 1;
	INSERT INTO gd_test.pts (ds, id, geom) SELECT d, g.id, g.geom FROM gd_test.gen_lattice(30, 50, 0.1, 1000.3, -20.7) g;
	INSERT INTO gd_test.cases (ds, family, eps, minpoints) VALUES
		(d, 'lattice', 0.1, 1), (d, 'lattice', 0.1, 3), (d, 'lattice', 0.1, 5);
	d := d + 1;
	INSERT INTO gd_test.pts (ds, id, geom) SELECT d, g.id, g.geom FROM gd_test.gen_lattice(50, 50, 0.3, 0, 0, 0.35) g;
	INSERT INTO gd_test.cases (ds, family, eps, minpoints) VALUES
		(d, 'lattice', 0.3, 3), (d, 'lattice', 0.3, 4), (d, 'lattice', 0.3, 5);
	d := d + 1;
	INSERT INTO gd_test.pts (ds, id, geom) SELECT d, g.id, g.geom FROM gd_test.gen_lattice(45, 45, 1e-3, 12.345, 67.89, 0.2) g;
	INSERT INTO gd_test.cases (ds, family, eps, minpoints) VALUES
		(d, 'lattice', 1e-3, 2), (d, 'lattice', 1e-3, 4), (d, 'lattice', 1e-3, 5);
	d := d + 1;
	INSERT INTO gd_test.pts (ds, id, geom) SELECT d, g.id, g.geom FROM gd_test.gen_lattice(35, 35, 2.5, -1000.1, 3.3, 0.1) g;
	INSERT INTO gd_test.cases (ds, family, eps, minpoints) VALUES
		(d, 'lattice', 2.5, 5), (d, 'lattice', 2.5, 3);
	d := d + 1;
	INSERT INTO gd_test.pts (ds, id, geom) SELECT d, g.id, g.geom FROM gd_test.gen_lattice(2, 1000, 0.5, 7.1, -3.9) g;
	INSERT INTO gd_test.cases (ds, family, eps, minpoints) VALUES
		(d, 'lattice', 0.5, 3), (d, 'lattice', 0.5, 4);
	d := d + 1;
	INSERT INTO gd_test.pts (ds, id, geom) SELECT d, g.id, g.geom FROM gd_test.gen_line(2000, 0.7, 0, -77.77, 1.5) g;
	INSERT INTO gd_test.cases (ds, family, eps, minpoints) VALUES
		(d, 'line', 0.7, 2), (d, 'line', 0.7, 3), (d, 'line', 0.7, 4);
	d := d + 1;
	INSERT INTO gd_test.pts (ds, id, geom) SELECT d, g.id, g.geom FROM gd_test.gen_line(1500, 0.25, pi() / 6) g;
	INSERT INTO gd_test.cases (ds, family, eps, minpoints) VALUES
		(d, 'line', 0.25, 2), (d, 'line', 0.25, 3), (d, 'line', 0.5, 5);
	d := d + 1;
	INSERT INTO gd_test.pts (ds, id, geom) SELECT d, g.id, g.geom FROM gd_test.gen_line(1000, 1, pi() / 4, 1e6, -1e6) g;
	INSERT INTO gd_test.cases (ds, family, eps, minpoints) VALUES
		(d, 'line', 1, 2), (d, 'line', 1, 3);

	-- E. Lon/lat (SRID 4326) on a 1e-6 degree grid, eps 1e-6 .. 1e-4.
	FOR i IN 1 .. 6 LOOP
		d := d + 1;
		n := 400 * i;
		INSERT INTO gd_test.pts (ds, id, geom)
		SELECT d, g.id, g.geom
		FROM gd_test.gen_lonlat(0.5 + i / 100.0, n,
								(ARRAY[2.3522, -122.4194, 151.2093, 139.6917, -179.99, 0])[i],
								(ARRAY[48.8566, 37.7749, -33.8688, 35.6895, -89.9, 0])[i],
								1e-6, 60 + 40 * i) g;
		INSERT INTO gd_test.cases (ds, family, eps, minpoints) VALUES
			(d, 'lonlat', 1e-6, 2), (d, 'lonlat', 2e-6, mp_a[1 + i % 4]),
			(d, 'lonlat', 1e-5, mp_c[1 + i % 3]), (d, 'lonlat', 1e-4, 1),
			(d, 'lonlat', 5e-6, 0);
	END LOOP;

	-- F. Several partitions of very different sizes (1, 2, 3 rows: the
	-- nrows <= minpoints rule), mixing families.
	FOR i IN 1 .. 6 LOOP
		d := d + 1;
		INSERT INTO gd_test.pts (ds, part, id, geom)
		SELECT d, p, g.id, g.geom
		FROM generate_series(0, 6) AS p,
			 LATERAL gd_test.gen_uniform(0.6 + i / 100.0 + p / 1000.0,
										 (ARRAY[1, 2, 3, 5, 50, 400, 100 * i])[p + 1], 10 * (p + 1)) g;
		INSERT INTO gd_test.pts (ds, part, id, geom)
		SELECT d, 7, g.id, g.geom FROM gd_test.gen_blobs(0.7 + i / 100.0, 600, 4, 1, 0.1, 50) g;
		INSERT INTO gd_test.pts (ds, part, id, geom)
		SELECT d, 8, g.id, g.geom FROM gd_test.gen_duplicates(0.8 + i / 100.0, 300, 7, 1) g;
		-- partitions of 2 and 3 duplicates: nrows = minpoints for minpoints 2, 3
		INSERT INTO gd_test.pts (ds, part, id, geom)
		SELECT d, p, j, ST_MakePoint(i, p) FROM generate_series(9, 10) AS p, generate_series(1, p - 7) AS j;
		INSERT INTO gd_test.cases (ds, family, eps, minpoints, part_expr) VALUES
			(d, 'partitions', 1, 2, 'part'), (d, 'partitions', 0.5, 3, 'part'),
			(d, 'partitions', 2, mp_a[1 + i % 4], 'part'), (d, 'partitions', 1, 0, 'part'),
			(d, 'partitions', 3, 20, 'part');
	END LOOP;

	-- G. Mostly NULL and EMPTY rows.
	FOR i IN 1 .. 2 LOOP
		d := d + 1;
		INSERT INTO gd_test.pts (ds, id, geom)
		SELECT d, g.id, g.geom FROM gd_test.gen_uniform(0.9 + i / 100.0, 500 * i, 30) g;
		PERFORM gd_test.sprinkle(d, 0.3, 0.3);
		INSERT INTO gd_test.cases (ds, family, eps, minpoints) VALUES
			(d, 'null+empty', 1, 0), (d, 'null+empty', 1, 1), (d, 'null+empty', 1, 2),
			(d, 'null+empty', 2, 5), (d, 'null+empty', 0, 1);
	END LOOP;

	-- H. Non-point geometries: lines, polygons, multipoints, points.
	FOR i IN 1 .. 4 LOOP
		d := d + 1;
		INSERT INTO gd_test.pts (ds, id, geom)
		SELECT d, g.id, g.geom FROM gd_test.gen_shapes(-0.1 - i / 100.0, 100 * i, 50, 3) g;
		INSERT INTO gd_test.cases (ds, family, eps, minpoints) VALUES
			(d, 'shapes', 0, 1), (d, 'shapes', 0.5, 2), (d, 'shapes', 1, 3), (d, 'shapes', 2, 1);
	END LOOP;

	-- I. Rounding: grid points jittered at every scale down to the last bit,
	-- and a lattice of spacing 1e-165 whose squared distances underflow to 0.
	FOR i IN 1 .. 3 LOOP
		d := d + 1;
		s := (ARRAY[0.1, 1, 1e-3])[i];
		INSERT INTO gd_test.pts (ds, id, geom)
		SELECT d, g.id, g.geom FROM gd_test.gen_jittered(-0.3 - i / 100.0, 1500 * i, s, 12 * i) g;
		INSERT INTO gd_test.cases (ds, family, eps, minpoints) VALUES
			(d, 'jittered', s, 1), (d, 'jittered', s, 3), (d, 'jittered', s, 6), (d, 'jittered', s * sqrt(2), 8);
	END LOOP;
	d := d + 1;
	INSERT INTO gd_test.pts (ds, id, geom) SELECT d, g.id, g.geom FROM gd_test.gen_lattice(30, 30, 1e-165, 0, 0, 0.3) g;
	INSERT INTO gd_test.cases (ds, family, eps, minpoints) VALUES
		(d, 'underflow', 0, 1), (d, 'underflow', 1e-165, 1), (d, 'underflow', 1e-165, 4), (d, 'underflow', 2.5e-165, 6);

	-- NULL and EMPTY rows sprinkled into every third set of the other families.
	FOR i IN 1 .. d LOOP
		IF i % 3 = 0 AND NOT EXISTS (SELECT FROM gd_test.cases c
									 WHERE c.ds = i AND c.family = 'null+empty') THEN
			PERFORM gd_test.sprinkle(i, 0.03, 0.02);
			UPDATE gd_test.cases SET family = family || ' (+null/empty)' WHERE ds = i;
		END IF;
	END LOOP;

	-- Rows reach the window in other orders too: a hash order, and (with no
	-- ORDER BY) whatever order the scan gives.
	UPDATE gd_test.cases SET order_expr = 'md5(id::text)' WHERE ds % 5 = 1;
	UPDATE gd_test.cases SET order_expr = '' WHERE ds % 7 = 3;
END
$build$;
ANALYZE gd_test.pts;
