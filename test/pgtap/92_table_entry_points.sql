-- 92_table_entry_points: gpu_dbscan_table and gpu_dbscan_table_update give
-- the window function's ids (issue 9): with an ORDER BY, with partitions,
-- with no order (the heap order), through the fast path with two workers
-- and with it off; errors pass through.
\ir lib/prelude.sql
\ir lib/fast_path.sql

SELECT plan(7);

CREATE TABLE gd_test.jobs AS
SELECT i AS id, i % 4 AS part,
	   CASE WHEN i % 97 = 0 THEN NULL WHEN i % 89 = 0 THEN 'POINT EMPTY'::geometry
			ELSE ST_MakePoint((i * 7919 % 1000) / 20.0, (i * 104729 % 1000) / 20.0) END AS geom,
	   NULL::int AS cid
FROM generate_series(1, 5000) i;

-- the window function's ids by id (fast path off)
CREATE FUNCTION pg_temp.window_ids(over text) RETURNS int[] LANGUAGE plpgsql AS $$
DECLARE
	r	int[];
BEGIN
	PERFORM gd_test.use_fast_path(false);
	EXECUTE format('SELECT array_agg(c ORDER BY id) FROM (SELECT id, gpu_dbscan(geom, 1.5, 4) OVER (%s) c FROM gd_test.jobs) s', over)
	INTO r;
	PERFORM gd_test.use_fast_path(true, 2);
	RETURN r;
END
$$;

SELECT gd_test.use_fast_path(true, 2);
SELECT ok(gd_test.is_fast('SELECT ctid, gpu_dbscan(geom, 1.5, 4) OVER (ORDER BY id) FROM gd_test.jobs'),
		  'ctid and the ids: the fast path');
SELECT is((SELECT array_agg(t.cluster_id ORDER BY j.id)
		   FROM gpu_dbscan_table('gd_test.jobs', 'geom', 1.5, 4, 'id') t JOIN gd_test.jobs j ON j.ctid = t.row_ctid),
		  pg_temp.window_ids('ORDER BY id'), 'gpu_dbscan_table, ORDER BY id: the window function''s ids');
SELECT is((SELECT array_agg(t.cluster_id ORDER BY j.id)
		   FROM gpu_dbscan_table('gd_test.jobs', 'geom', 1.5, 4, 'id', 'part') t JOIN gd_test.jobs j ON j.ctid = t.row_ctid),
		  pg_temp.window_ids('PARTITION BY part ORDER BY id'), 'gpu_dbscan_table, partitions: the window function''s ids');
SELECT is((SELECT array_agg(t.cluster_id ORDER BY j.id)
		   FROM gpu_dbscan_table('gd_test.jobs', 'geom', 1.5, 4) t JOIN gd_test.jobs j ON j.ctid = t.row_ctid),
		  pg_temp.window_ids(''), 'gpu_dbscan_table, no order (heap order): the window function''s ids');
SELECT is(gpu_dbscan_table_update('gd_test.jobs', 'geom', 'cid', 1.5, 4, 'id', 'part'), 5000::bigint,
		  'gpu_dbscan_table_update writes every row');
SELECT is((SELECT array_agg(cid ORDER BY id) FROM gd_test.jobs),
		  pg_temp.window_ids('PARTITION BY part ORDER BY id'), 'gpu_dbscan_table_update: the window function''s ids');
SELECT is(gd_test.error_of($$SELECT count(*) FROM gpu_dbscan_table('gd_test.jobs', 'geom', -1, 4)$$),
		  '22023 Tolerance must be a positive number: ', 'gpu_dbscan_table: the window function''s errors');

SELECT * FROM finish();
ROLLBACK;
