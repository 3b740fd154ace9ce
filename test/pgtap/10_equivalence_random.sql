-- gpu_dbscan gives ST_ClusterDBSCAN's clusters on seeded random data sets:
-- the same noise rows and the same co-membership of every pair of rows, in
-- every partition, with gpu_dbscan's ids numbered 0..k-1 by first row.
--
-- Families (each set is one ds in gd_test.pts): uniform, gaussian blobs with
-- noise, exact duplicates, lattices and lines at exactly eps spacing, lon/lat
-- with tiny eps, several partitions, mostly NULL/EMPTY, non-point shapes,
-- coordinates whose differences round or whose squares underflow.
-- NULL and EMPTY rows are sprinkled into a third of the sets.  eps and
-- minpoints run from all-noise to one cluster, minpoints 0, 1, 2 and large.
\ir lib/prelude.sql

\ir lib/equivalence_sets.sql

SELECT plan(2 + (SELECT count(*)::int FROM gd_test.cases));

SELECT cmp_ok((SELECT count(DISTINCT ds)::int FROM gd_test.cases), '>=', 50,
			  'at least 50 seeded data sets');
SELECT ok((SELECT count(DISTINCT split_part(family, ' ', 1)) FROM gd_test.cases) >= 10, 'all families present');

SELECT is(gd_test.compare(gd_test.ds(ds), eps, minpoints, part_expr, order_expr), NULL,
		  format('ds %s %s (%s rows): eps %s, minpoints %s%s%s', ds, family,
				 (SELECT count(*) FROM gd_test.pts p WHERE p.ds = c.ds), eps, minpoints,
				 CASE WHEN part_expr <> 'NULL::int' THEN ', partition by ' || part_expr ELSE '' END,
				 CASE WHEN order_expr = 'id' THEN '' WHEN order_expr = '' THEN ', no order by'
					  ELSE ', order by ' || order_expr END))
FROM gd_test.cases c
ORDER BY case_id;

SELECT * FROM finish();
ROLLBACK;
