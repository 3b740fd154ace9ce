-- test/pgtap/lib/fast_path.sql — running one window query with the fast path
-- (custom scan GpuDbscanWindow, issue 9) and without it, for 9x files.
-- Included with \ir after prelude.sql.

-- The plan of q as one text.
CREATE OR REPLACE FUNCTION gd_test.plan_of(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	r		record;
	result	text := '';
BEGIN
	FOR r IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
		result := result || r."QUERY PLAN" || E'\n';
	END LOOP;
	RETURN result;
END
$$;

-- Whether q is planned with the fast path under the current settings.
CREATE OR REPLACE FUNCTION gd_test.is_fast(q text) RETURNS boolean LANGUAGE sql AS $$
	SELECT position('GpuDbscanWindow' IN gd_test.plan_of(q)) > 0
$$;

-- Settings of one side of a comparison (transaction-local): the fast path
-- with workers read workers, or the WindowAgg over a serial sequential scan
-- from block 0 (the heap order the fast path gives rows without ORDER BY).
CREATE OR REPLACE FUNCTION gd_test.use_fast_path(fast boolean, workers int DEFAULT 0)
RETURNS void LANGUAGE sql AS $$
	SELECT set_config('gpu_dbscan.fast_path', fast::text, true),
		   set_config('gpu_dbscan.scan_workers', workers::text, true),
		   set_config('max_parallel_workers_per_gather', '0', true),
		   set_config('synchronize_seqscans', 'off', true),
		   set_config('enable_indexscan', 'off', true),
		   set_config('enable_bitmapscan', 'off', true);
$$;

-- The rows of q ('id:cluster' in output order), or its error as text.
CREATE OR REPLACE FUNCTION gd_test.rows_or_error(q text) RETURNS text[] LANGUAGE plpgsql AS $$
DECLARE
	result	text[];
BEGIN
	EXECUTE format('SELECT array_agg(format(''%%s:%%s'', id, c)) FROM (%s) s', q) INTO result;
	RETURN result;
EXCEPTION WHEN others THEN
	RETURN ARRAY[gd_test.error_of(q)];
END
$$;

-- NULL when the rows got and want (text, from one side and the other of a
-- comparison named got_side and want_side) are the same; else what differs.
CREATE OR REPLACE FUNCTION gd_test.rows_diff(got text[], want text[], got_side text, want_side text)
RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	IF got IS NOT DISTINCT FROM want THEN
		RETURN NULL;
	END IF;
	IF cardinality(got) IS DISTINCT FROM cardinality(want) THEN
		RETURN format('%s rows against %s (%s: %s; %s: %s)', cardinality(got), cardinality(want),
					  got_side, left(got[1], 200), want_side, left(want[1], 200));
	END IF;
	FOR i IN 1 .. cardinality(got) LOOP
		IF got[i] IS DISTINCT FROM want[i] THEN
			RETURN format('row %s: %s against %s', i, left(got[i], 300), left(want[i], 300));
		END IF;
	END LOOP;
	RETURN 'differs';
END
$$;

-- NULL when q (columns id and c) gives the same rows in the same order, or
-- the same error, with the fast path (workers) as without; else what
-- differs.  q must be planned with the fast path: 'not planned' otherwise.
CREATE OR REPLACE FUNCTION gd_test.fast_diff(q text, workers int DEFAULT 0) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	fast	text[];
	slow	text[];
BEGIN
	PERFORM gd_test.use_fast_path(true, workers);
	IF NOT gd_test.is_fast(q) THEN
		RETURN 'not planned with the fast path';
	END IF;
	fast := gd_test.rows_or_error(q);
	PERFORM gd_test.use_fast_path(false);
	slow := gd_test.rows_or_error(q);
	PERFORM gd_test.use_fast_path(true, 0);
	RETURN gd_test.rows_diff(fast, slow, 'fast', 'window');
END
$$;

-- NULL when q gives today's answers and is not planned with the fast path.
CREATE OR REPLACE FUNCTION gd_test.fallback_diff(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	fast	text[];
	slow	text[];
BEGIN
	PERFORM gd_test.use_fast_path(true, 2);
	IF gd_test.is_fast(q) THEN
		RETURN 'planned with the fast path';
	END IF;
	fast := gd_test.rows_or_error(q);
	PERFORM gd_test.use_fast_path(false);
	slow := gd_test.rows_or_error(q);
	PERFORM gd_test.use_fast_path(true, 0);
	RETURN CASE WHEN fast IS NOT DISTINCT FROM slow THEN NULL ELSE 'answers differ' END;
END
$$;

-- A case of gd_test.cases as a query over set ds (columns id, c): its
-- PARTITION BY (none for the constant) and ORDER BY ('id DESC' for
-- 10_equivalence_random's md5 order, which the fast path does not take).
CREATE OR REPLACE FUNCTION gd_test.case_query(set_id int, eps float8, minpoints int,
											  part_expr text, order_expr text) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
	SELECT format('SELECT id, gpu_dbscan(geom, %s::float8, %s) OVER (%s %s) AS c FROM gd_test.pts WHERE ds = %s',
				  quote_literal(eps), minpoints,
				  CASE WHEN part_expr = 'NULL::int' THEN '' ELSE 'PARTITION BY ' || part_expr END,
				  CASE WHEN order_expr = '' THEN ''
					   WHEN order_expr LIKE 'md5%' THEN 'ORDER BY id DESC'
					   ELSE 'ORDER BY ' || order_expr END,
				  set_id)
$$;

-- A query of form f ('ids', 'sweep' or the point type) of the functions
-- named with suffix (gpu_dbscan<suffix>, ...: '_3d' or '') over column col
-- of table tbl's set ds: ORDER BY id, id DESC or none (by k), partitions
-- when k is odd and there is an order (a partition's rows in no order are
-- in the sort's order of ties in the WindowAgg); columns id and c.
CREATE OR REPLACE FUNCTION gd_test.set_form_query(tbl text, col text, suffix text, f text, ds int,
											  eps float8, minpoints int, k int)
RETURNS text LANGUAGE sql IMMUTABLE AS $$
	SELECT format('SELECT id, %s OVER (%s %s) AS c FROM %s WHERE ds = %s',
				  CASE f
					  WHEN 'ids' THEN format('gpu_dbscan%s(%s, %s::float8, %s)', suffix, col,
											 quote_literal(eps), minpoints)
					  WHEN 'sweep' THEN format('gpu_dbscan_sweep%s(%s, %s::float8, %L)', suffix, col,
											   quote_literal(eps),
											   ARRAY[minpoints + 2, minpoints, greatest(minpoints - 2, 0), 1]::text)
					  ELSE format('gpu_dbscan_point_type%s(%s, %s::float8, %s)', suffix, col,
								  quote_literal(eps), minpoints)
				  END,
				  CASE WHEN k % 2 = 1 AND k % 3 <> 2 THEN 'PARTITION BY part' ELSE '' END,
				  (ARRAY['ORDER BY id', 'ORDER BY id DESC', ''])[1 + k % 3],
				  tbl, ds)
$$;

-- The partial path (a Gather's participants run GpuDbscanWindow: see
-- window_scan.c, WindowShared): transaction-local settings that make the
-- planner take it for a window query under an outer one; leader: whether
-- the Gather's leader takes part (else a worker clusters).
CREATE OR REPLACE FUNCTION gd_test.use_partial_path(leader boolean DEFAULT true)
RETURNS void LANGUAGE sql AS $$
	SELECT gd_test.use_fast_path(true, 2),
		   set_config('max_parallel_workers_per_gather', '2', true),
		   set_config('parallel_setup_cost', '0', true),
		   set_config('parallel_tuple_cost', '0', true),
		   set_config('min_parallel_table_scan_size', '0', true),
		   set_config('parallel_leader_participation', leader::text, true);
$$;

-- q (columns id and c) under an outer query that takes every row:
-- 'id:cluster' sorted (a Gather gives the rows in no order).
CREATE OR REPLACE FUNCTION gd_test.outer_query(q text) RETURNS text LANGUAGE sql AS $$
	SELECT format('SELECT array_agg(format(''%%s:%%s'', id, c) ORDER BY id, c) FROM (%s) s', q)
$$;

-- The rows of outer_query(q), or its error as text.
CREATE OR REPLACE FUNCTION gd_test.outer_rows_or_error(q text) RETURNS text[] LANGUAGE plpgsql AS $$
DECLARE
	result	text[];
BEGIN
	EXECUTE gd_test.outer_query(q) INTO result;
	RETURN result;
EXCEPTION WHEN others THEN
	RETURN ARRAY[gd_test.error_of(gd_test.outer_query(q))];
END
$$;

-- NULL when q (columns id and c) gives the same rows, or the same error,
-- through the partial path as the window function does; else what differs.
CREATE OR REPLACE FUNCTION gd_test.partial_diff(q text, leader boolean DEFAULT true) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	fast	text[];
	slow	text[];
BEGIN
	PERFORM gd_test.use_partial_path(leader);
	IF position('Parallel Custom Scan (GpuDbscanWindow)' IN gd_test.plan_of(gd_test.outer_query(q))) = 0 THEN
		RETURN 'not planned with the partial path';
	END IF;
	fast := gd_test.outer_rows_or_error(q);
	PERFORM gd_test.use_fast_path(false);
	slow := gd_test.outer_rows_or_error(q);
	PERFORM gd_test.use_fast_path(true, 0);
	RETURN gd_test.rows_diff(fast, slow, 'partial', 'window');
END
$$;

-- EXPLAIN (ANALYZE, TIMING OFF, FORMAT JSON) of q.
CREATE OR REPLACE FUNCTION gd_test.explain_json(q text) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
	j		jsonb;
BEGIN
	EXECUTE 'EXPLAIN (ANALYZE, TIMING OFF, FORMAT JSON) ' || q INTO j;
	RETURN j;
END
$$;

-- ---- The aggregates' fast path (GpuDbscanAgg) ----

-- Whether q is planned with the aggregate's fast path under the current settings.
CREATE OR REPLACE FUNCTION gd_test.is_agg_fast(q text) RETURNS boolean LANGUAGE sql AS $$
	SELECT position('GpuDbscanAgg' IN gd_test.plan_of(q)) > 0
$$;

-- The rows of q as text, in output order, or its error.
CREATE OR REPLACE FUNCTION gd_test.agg_rows_or_error(q text) RETURNS text[] LANGUAGE plpgsql AS $$
DECLARE
	result	text[];
BEGIN
	EXECUTE format('SELECT array_agg(s::text) FROM (%s) s', q) INTO result;
	RETURN result;
EXCEPTION WHEN others THEN
	RETURN ARRAY[gd_test.error_of(q)];
END
$$;

-- NULL when q gives the same rows in the same order, or the same error,
-- with the fast path (workers) as with today's serial Agg (a HashAggregate
-- where grouped); else what differs.  fast: whether q must plan with the
-- fast path ('not planned' otherwise) or must not ('planned' otherwise).
CREATE OR REPLACE FUNCTION gd_test.agg_diff_of(q text, workers int, fast boolean) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	got		text[];
	want	text[];
BEGIN
	PERFORM gd_test.use_fast_path(true, workers);
	IF gd_test.is_agg_fast(q) IS DISTINCT FROM fast THEN
		RETURN CASE WHEN fast THEN 'not planned with the fast path' ELSE 'planned with the fast path' END;
	END IF;
	got := gd_test.agg_rows_or_error(q);
	PERFORM gd_test.use_fast_path(false);
	PERFORM set_config('enable_sort', 'off', true);
	want := gd_test.agg_rows_or_error(q);
	PERFORM set_config('enable_sort', 'on', true);
	PERFORM gd_test.use_fast_path(true, 0);
	RETURN gd_test.rows_diff(got, want, 'fast', 'Agg');
END
$$;

CREATE OR REPLACE FUNCTION gd_test.agg_fast_diff(q text, workers int DEFAULT 0) RETURNS text LANGUAGE sql AS $$
	SELECT gd_test.agg_diff_of(q, workers, true)
$$;

CREATE OR REPLACE FUNCTION gd_test.agg_fallback_diff(q text) RETURNS text LANGUAGE sql AS $$
	SELECT gd_test.agg_diff_of(q, 2, false)
$$;
