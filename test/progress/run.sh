#!/usr/bin/env bash
# test/progress/run.sh — gpu_dbscan_progress() seen from another session.
#
# In database gd_progress of the throwaway server: one session (through
# dblink, asynchronously) clusters 20 partitions of 20,000 points on one CPU
# thread; meanwhile this session samples gpu_dbscan_progress() every 5 ms.
# The samples must show the other backend (its pid and backend_start, as in
# pg_stat_activity), the function, the phases, rows read growing up to the
# partition's 20,000 within a partition, partitions done counting up; a role
# that is neither the same role nor in pg_read_all_stats must see nothing;
# after the query nothing is reported for that backend; the query's answer
# is the one it gives without anybody watching.
#
# Prints "ok - ..." / "not ok - ..." lines; exits nonzero on a failure.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib.sh"

DB=gd_progress
failed=0
ok() { echo "ok - $*"; }
not_ok() { echo "not ok - $*"; failed=1; }
check() { if [[ $2 == "$3" ]]; then ok "$1"; else not_ok "$1: got '$2', want '$3'"; fi; }
q() { gd_psql "$DB" -tAc "$1"; }

gd_pg_running || gd_pg_start >/dev/null
gd_psql postgres -c "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB" >/dev/null || exit 1
gd_psql "$DB" >/dev/null <<'SQL' || { not_ok "setup"; exit 1; }
CREATE EXTENSION postgis;
CREATE EXTENSION gpu_dbscan;
CREATE EXTENSION dblink;
SELECT setseed(0.5);
CREATE TABLE pts AS
SELECT i AS id, i % 20 AS part, ST_MakePoint(random() * 100, random() * 100) AS geom
FROM generate_series(1, 400000) i;
DROP ROLE IF EXISTS gd_progress_nobody;
CREATE ROLE gd_progress_nobody;
GRANT EXECUTE ON FUNCTION gpu_dbscan_progress() TO gd_progress_nobody;
-- The window function's argument is evaluated as each row is read: a pause
-- every 1,000th row makes a partition's reading last ~60 ms, so that samples
-- 5 ms apart land within it whatever the machine's speed.
CREATE FUNCTION slowly(g geometry, id int) RETURNS geometry LANGUAGE plpgsql VOLATILE AS $$
BEGIN
	IF id % 1000 = 0 THEN PERFORM pg_sleep(0.003); END IF;
	RETURN g;
END $$;
SQL

# The window path (WindowAgg), which reads each partition's rows as it
# clusters them: the fast path (custom scan GpuDbscanWindow) reads the whole
# table in parallel first and reports only its partitions' clustering.
settings="SET gpu_dbscan.threads = 1; SET gpu_dbscan.backend = 'cpu'; SET gpu_dbscan.fast_path = off;"
long="SELECT count(c)::text || '/' || count(DISTINCT part * 100000 + c)::text
FROM (SELECT part, gpu_dbscan(slowly(geom, id), 0.2, 4) OVER (PARTITION BY part ORDER BY id) AS c FROM pts) s"
want=$(q "$settings $long" | tail -n 1)

out=$(gd_psql "$DB" -tA -F'|' <<SQL
CREATE TEMP TABLE samples AS SELECT * FROM gpu_dbscan_progress() LIMIT 0;
ALTER TABLE samples ADD COLUMN n int, ADD COLUMN as_nobody int;
SELECT dblink_connect('long', 'dbname=$DB host=$GD_PGSOCK port=$GD_PGPORT user=postgres');
SELECT dblink_exec('long', \$q\$$settings\$q\$);
SELECT dblink_send_query('long', \$q\$$long\$q\$);
DO \$\$
DECLARE
	i int := 0;
	seen int;
BEGIN
	WHILE dblink_is_busy('long') = 1 AND i < 12000 LOOP
		i := i + 1;
		INSERT INTO samples SELECT p.*, i, NULL FROM gpu_dbscan_progress() p WHERE p.pid <> pg_backend_pid();
		IF i % 10 = 0 THEN
			SET LOCAL ROLE gd_progress_nobody;
			SELECT count(*) INTO seen FROM gpu_dbscan_progress();
			RESET ROLE;
			INSERT INTO samples (n, as_nobody) VALUES (i, seen);
		END IF;
		PERFORM pg_sleep(0.005);
	END LOOP;
END
\$\$;
SELECT 'answer', r FROM dblink_get_result('long') AS t(r text) WHERE r LIKE '%/%';
SELECT 'after', count(*) FROM gpu_dbscan_progress() WHERE pid <> pg_backend_pid();
SELECT 'samples', count(*) FROM samples WHERE pid IS NOT NULL;
SELECT 'pids', count(DISTINCT pid) FROM samples WHERE pid IS NOT NULL;
SELECT 'same backend as pg_stat_activity', bool_and(s.backend_start = a.backend_start)
FROM samples s JOIN pg_stat_activity a USING (pid) WHERE s.pid IS NOT NULL;
SELECT 'functions', string_agg(DISTINCT function, ',') FROM samples WHERE pid IS NOT NULL;
SELECT 'phases', string_agg(DISTINCT phase, ',' ORDER BY phase) FROM samples WHERE pid IS NOT NULL;
SELECT 'rows_total', string_agg(DISTINCT rows_total::text, ',') FROM samples WHERE pid IS NOT NULL;
SELECT 'rows_read within 0..total', bool_and(rows_read BETWEEN 0 AND rows_total) FROM samples WHERE pid IS NOT NULL;
SELECT 'partial reads seen', count(*) FILTER (WHERE rows_read > 0 AND rows_read < rows_total) > 0
FROM samples WHERE pid IS NOT NULL;
SELECT 'rows_read grows within a partition', coalesce(bool_and(ok), true) FROM (
	SELECT rows_read >= lag(rows_read) OVER w OR lag(rows_read) OVER w IS NULL AS ok
	FROM samples WHERE pid IS NOT NULL WINDOW w AS (PARTITION BY partitions_done ORDER BY n)) s;
SELECT 'partitions_done', min(partitions_done) < max(partitions_done) AND max(partitions_done) < 20
FROM samples WHERE pid IS NOT NULL;
SELECT 'as_nobody', coalesce(max(as_nobody), -1) FROM samples WHERE as_nobody IS NOT NULL;
SELECT 'clustering seen', count(*) FILTER (WHERE phase = 'clustering on the CPU') > 0 FROM samples;
SELECT 'no steps on the CPU', count(*) FILTER (WHERE step IS NOT NULL OR steps IS NOT NULL) FROM samples
WHERE pid IS NOT NULL;
SQL
)
rc=$?
[[ $rc -eq 0 ]] || { not_ok "the sampling session failed: $out"; exit 1; }
get() { sed -nE "s/^$1\|//p" <<<"$out"; }
check "the watched query's answer is unchanged" "$(get answer)" "$want"
n=$(get samples)
if [[ ${n:-0} -ge 5 ]]; then ok "$n samples of the other session while it ran"; else not_ok "only ${n:-0} samples"; fi
check "one backend reported" "$(get pids)" 1
check "pid and backend_start those of pg_stat_activity" "$(get 'same backend as pg_stat_activity')" t
check "function" "$(get functions)" gpu_dbscan
phases=$(get phases)
[[ $phases == *"reading rows"* ]] && ok "phases seen: $phases" || not_ok "phases: $phases"
check "clustering phase seen" "$(get 'clustering seen')" t
check "rows_total is the partition's size" "$(get rows_total)" 20000
check "rows_read within 0..rows_total" "$(get 'rows_read within 0..total')" t
check "rows read part of the way through a partition" "$(get 'partial reads seen')" t
check "rows_read grows within a partition" "$(get 'rows_read grows within a partition')" t
check "partitions_done counts up" "$(get partitions_done)" t
check "a role without pg_read_all_stats sees no other role's run" "$(get as_nobody)" 0
check "nothing reported after the query" "$(get after)" 0
# step/steps come from the GPU's strip path (its unit test: GpuStripsProgress); one CPU run has none
check "step and steps NULL for a run not split into steps" "$(get 'no steps on the CPU')" 0
gd_psql postgres -c "DROP DATABASE IF EXISTS $DB" -c "DROP ROLE IF EXISTS gd_progress_nobody" >/dev/null
exit "$failed"
