-- gpu_dbscan_sweep(geom, eps, minpoints[]) OVER (...) gives, element k, the
-- ids of gpu_dbscan(geom, eps, minpoints[k]) OVER the same window, exactly
-- (same ids, not only the same clusters): seeded random sets (uniform,
-- blobs, duplicates, lattices and lines at exactly eps, coordinates jittered
-- to the last bit, lon/lat, non-point shapes, NULL and EMPTY rows), several
-- partitions, rows in id and hash order, and the GeoNames cities when
-- cache/cities500.tsv is there.
\ir lib/prelude.sql
\ir lib/cities.sql

-- NULL when the sweep's ids equal one gpu_dbscan per value over src's
-- window (PARTITION BY part_expr ORDER BY order_expr), else the first
-- difference.
CREATE FUNCTION gd_test.sweep_diff(src text, eps float8, minpoints int[],
								   part_expr text DEFAULT 'NULL::int', order_expr text DEFAULT 'id')
RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	k		int;
	result	text;
BEGIN
	FOR k IN 1 .. cardinality(minpoints) LOOP
		EXECUTE format($q$
			SELECT format('minpoints %%s (element %%s): partition %%s row %%s: sweep %%s, gpu_dbscan %%s',
						  $3, $4, part, rn, s, c)
			FROM (SELECT %1$s AS part, row_number() OVER w AS rn,
						 (gpu_dbscan_sweep(geom, $1, $2) OVER w)[$4] AS s,
						 gpu_dbscan(geom, $1, $3) OVER w AS c
				  FROM %2$s WINDOW w AS (PARTITION BY %1$s ORDER BY %3$s)) r
			WHERE s IS DISTINCT FROM c
			ORDER BY part, rn LIMIT 1
			$q$, part_expr, src, order_expr)
		INTO result USING eps, minpoints, minpoints[k], k;
		IF result IS NOT NULL THEN
			RETURN result;
		END IF;
	END LOOP;
	RETURN NULL;
END
$$;

\ir lib/sets.sql

-- The sets (generator calls) and the cases run on them.
CREATE TABLE gd_test.sweep_sets (ds int, part int, generator text);
INSERT INTO gd_test.sweep_sets VALUES
	(1, 0, 'gen_uniform(0.72, 400, 100)'),
	(2, 0, 'gen_uniform(0.73, 1200, 100)'),
	(3, 0, 'gen_uniform(0.74, 2000, 100)'),
	(4, 0, 'gen_blobs(0.82, 900, 3, 0.75, 0.1, 100)'),
	(5, 0, 'gen_blobs(0.83, 1500, 5, 1.25, 0.1, 100)'),
	(6, 0, 'gen_blobs(0.84, 2100, 7, 1.75, 0.1, 100)'),
	(7, 0, 'gen_duplicates(0.91, 1500, 60, 1)'),
	(8, 0, 'gen_lattice(30, 50, 0.1, 1000.3, -20.7)'),
	(9, 0, 'gen_lattice(50, 50, 0.3, 0, 0, 0.35)'),
	(10, 0, 'gen_line(1500, 0.25, pi() / 6)'),
	(11, 0, 'gen_jittered(-0.72, 1500, 1, 12)'),
	(12, 0, 'gen_jittered(-0.73, 3000, 1, 24)'),
	(13, 0, 'gen_lonlat(0.95, 2000, 12.3456, 45.678, 1e-6, 100)'),
	(14, 0, 'gen_shapes(-0.81, 300, 50, 3)'),
	(15, 1, 'gen_blobs(0.971, 100, 3, 1, 0.2, 30)'),
	(15, 2, 'gen_blobs(0.972, 400, 3, 1, 0.2, 30)'),
	(15, 3, 'gen_blobs(0.973, 900, 3, 1, 0.2, 30)');
SELECT gd_test.load_set(ds, generator, part) FROM gd_test.sweep_sets;
-- NULL and EMPTY rows
SELECT gd_test.sprinkle(2, 0.05, 0.05), gd_test.sprinkle(7, 0.1, 0.1);
ANALYZE gd_test.pts;

CREATE TABLE gd_test.sweep_cases (ds int, family text, eps float8, minpoints int[],
								  part_expr text DEFAULT 'NULL::int', order_expr text DEFAULT 'id');
INSERT INTO gd_test.sweep_cases (ds, family, eps, minpoints) VALUES
	(1, 'uniform', 5, '{1, 2, 3, 4, 5, 6, 8, 10, 12, 16}'),
	(1, 'uniform', 10, '{20, 2, 0, 7, 7, 40, 1}'),
	(2, 'uniform', 2.9, '{1, 2, 3, 4, 5, 6, 8, 10, 12, 16}'),
	(2, 'uniform', 5.8, '{20, 2, 0, 7, 7, 40, 1}'),
	(3, 'uniform', 2.2, '{2, 3, 5, 8, 13}'),
	(4, 'blobs', 0.5, '{2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17}'),
	(4, 'blobs', 1.5, '{5, 10, 20, 50, 100}'),
	(5, 'blobs', 0.5, '{2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17}'),
	(5, 'blobs', 1.5, '{5, 10, 20, 50, 100}'),
	(6, 'blobs', 1, '{1, 4, 16, 64}'),
	(7, 'duplicates', 0, '{1, 2, 10, 25, 40}'),
	(7, 'duplicates', 1, '{3, 30, 60, 90}'),
	(8, 'lattice 0.1 at 1000.3', 0.1, '{1, 2, 3, 4, 5, 6}'),
	(8, 'lattice 0.1 at 1000.3', 0.1, '{2, 3, 4, 5, 6}'),
	(9, 'lattice 0.3 with holes', 0.3, '{2, 3, 4, 5}'),
	(9, 'lattice 0.3 with holes', 0.45, '{3, 5, 7, 9}'),
	(10, 'line', 0.25, '{1, 2, 3, 4}'),
	(11, 'jittered', 1, '{2, 3, 4, 6, 8}'),
	(12, 'jittered', 1, '{1, 2, 3, 4, 6, 8}'),
	(13, 'lonlat', 3e-6, '{2, 4, 8}'),
	(13, 'lonlat', 1e-5, '{5, 10, 30}'),
	(14, 'shapes', 1, '{1, 2, 3, 5}');
INSERT INTO gd_test.sweep_cases (ds, family, eps, minpoints, part_expr, order_expr) VALUES
	(15, 'partitions', 1, '{2, 4, 8}', 'part', 'id'),
	(5, 'blobs in hash order', 0.5, '{2, 4, 6, 8, 10}', 'NULL::int', 'hashint4(id), id'),
	(1, 'uniform in hash order', 5, '{1, 3, 5}', 'NULL::int', 'hashint4(id), id');


SELECT plan((SELECT count(*)::int FROM gd_test.sweep_cases) + 2);

SELECT is(gd_test.sweep_diff(gd_test.ds(ds), eps, minpoints, part_expr, order_expr), NULL,
		  format('%s set %s, eps %s, minpoints %s: sweep = one gpu_dbscan per value', family, ds, eps, minpoints))
FROM gd_test.sweep_cases ORDER BY ds, eps, family;

\if :have_cities
SELECT is(gd_test.sweep_diff('cities', 0.05, '{2, 3, 5, 8, 13, 20}'), NULL,
		  'cities, eps 0.05: sweep over 6 values = one gpu_dbscan per value');
SELECT is(gd_test.sweep_diff('cities', 0.5, '{20, 5}', 'floor(ST_X(geom) / 30)', 'name, id'), NULL,
		  'cities in longitude bands by name, eps 0.5: sweep = gpu_dbscan per value');
\else
SELECT skip(format('no %s: run scripts/setup.sh (it fetches the cities into cache/)', :'cities_file'), 2);
\endif

SELECT * FROM finish();
ROLLBACK;
