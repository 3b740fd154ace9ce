-- scripts/demo.sql — clusters the cities table with gpu_dbscan and with
-- ST_ClusterDBSCAN and prints one line per (eps, minpoints): clusters, noise,
-- wall time of each, the back end gpu_dbscan used, and whether the two
-- clusterings agree (same noise rows, same co-membership of every pair).
-- Run by scripts/setup.sh; leaves nothing behind (one rolled-back transaction).
\set QUIET 1
\set ON_ERROR_STOP 1
\pset footer off
BEGIN;
SET LOCAL client_min_messages = warning;
\ir ../test/pgtap/lib/labelings.sql

CREATE FUNCTION pg_temp.demo_run(eps float8, minpoints int)
RETURNS TABLE (eps_deg float8, minpts int, clusters bigint, noise bigint, gpu_dbscan_s numeric,
			   backend text, st_clusterdbscan_s numeric, speedup numeric, agreement text)
LANGUAGE plpgsql AS $$
DECLARE
	t0		timestamptz;
	got		int[];
	want	int[];
	t_got	float8;
	t_want	float8;
	diff	text;
BEGIN
	t0 := clock_timestamp();
	SELECT array_agg(c ORDER BY rn) INTO got
	FROM (SELECT row_number() OVER w AS rn, gpu_dbscan(geom, eps, minpoints) OVER w AS c
		  FROM cities WINDOW w AS (ORDER BY id)) s;
	t_got := extract(epoch FROM clock_timestamp() - t0);
	backend := (SELECT l.backend FROM gpu_dbscan_last_run() l);

	t0 := clock_timestamp();
	SELECT array_agg(c ORDER BY rn) INTO want
	FROM (SELECT row_number() OVER w AS rn, ST_ClusterDBSCAN(geom, eps, minpoints) OVER w AS c
		  FROM cities WINDOW w AS (ORDER BY id)) s;
	t_want := extract(epoch FROM clock_timestamp() - t0);

	diff := coalesce(gd_test.labelings_diff(got, want), gd_test.ids_diff(got));
	eps_deg := eps;
	minpts := minpoints;
	SELECT count(DISTINCT c), count(*) FILTER (WHERE c IS NULL) INTO clusters, noise
	FROM unnest(got) AS c;
	gpu_dbscan_s := round(t_got::numeric, 3);
	st_clusterdbscan_s := round(t_want::numeric, 3);
	speedup := round((t_want / greatest(t_got, 1e-6))::numeric, 1);
	agreement := CASE WHEN diff IS NULL THEN 'identical' ELSE 'DIFFERENT: ' || diff END;
	RETURN NEXT;
END
$$;

\echo
SELECT to_char(count(*), 'FM999,999,999') AS n FROM cities \gset
\echo 'gpu_dbscan demo:' :n 'GeoNames cities (lon/lat, SRID 4326) in one window ordered by id'
SELECT r.* FROM (VALUES (0.01::float8, 5), (0.05, 5), (0.1, 5), (0.5, 20)) v(eps, minpoints),
			   LATERAL pg_temp.demo_run(v.eps, v.minpoints) r;
\echo 'agreement: same noise rows and the same co-membership of every pair of rows as ST_ClusterDBSCAN;'
\echo 'times are wall seconds of each query in this session (gpu_dbscan_last_run() has the phases).'
ROLLBACK;
