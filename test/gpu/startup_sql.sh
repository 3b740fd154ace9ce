#!/usr/bin/env bash
# startup_sql.sh — the first gpu_dbscan query of fresh sessions against the
# next ones, in the database (issue 9 item 3); run by test/gpu/run, stage
# "startup", on a server where gpu_dbscan is installed (PG* variables set).
#
# A 1M-point uniform table (density 1, as db_bench's), then GD_SESSIONS fresh
# sessions per back end and form (GD_FORMS: ids, gpu_dbscan; sweep, a
# 3-value gpu_dbscan_sweep; 3d, gpu_dbscan_3d on the points at z = 0),
# interleaved; each runs the query three times and prints psql's time of
# each and gpu_dbscan_last_run() after the first two.
set -uo pipefail
SESSIONS=${GD_SESSIONS:-3}
FORMS=${GD_FORMS:-ids sweep 3d}
DB=${GD_STARTUP_DB:-gd_startup}
Q="SELECT max(c) FROM (SELECT gpu_dbscan(geom, 1, 10) OVER () c FROM t1m) s"
declare -A FORM_Q=(
	[ids]=$Q
	[sweep]="SELECT max(c[1]) FROM (SELECT gpu_dbscan_sweep(geom, 1, '{5,10,20}') OVER () c FROM t1m) s"
	[3d]="SELECT max(c) FROM (SELECT gpu_dbscan_3d(ST_Force3DZ(geom), 1, 10) OVER () c FROM t1m) s"
)
L="SELECT backend, points, round(transfer_ms::numeric, 1) xfer, round(sort_ms::numeric, 1) sort, round(total_ms::numeric, 1) core_total FROM gpu_dbscan_last_run()"

psql -XAtc "SELECT 1 FROM pg_database WHERE datname = '$DB'" | grep -q 1 || createdb "$DB"
psql -X -q -d "$DB" <<SQL >/dev/null
CREATE EXTENSION IF NOT EXISTS postgis;
DROP EXTENSION IF EXISTS gpu_dbscan;
CREATE EXTENSION gpu_dbscan;
SELECT setseed(0.42);
-- unlogged: a crash restart (worker_test.sh's kill -9) leaves it empty
CREATE UNLOGGED TABLE IF NOT EXISTS t1m (id int, geom geometry);
TRUNCATE t1m;
INSERT INTO t1m
  SELECT i AS id, ST_MakePoint(random() * 1000, random() * 1000) AS geom
  FROM generate_series(0, 999999) AS i;
VACUUM ANALYZE t1m;
SQL
psql -XAtd "$DB" -c "SELECT count(*) FROM t1m" | sed 's/^/rows: /'
# The table read once, so that every session finds it in the page cache.
psql -XAtd "$DB" -c "SET gpu_dbscan.backend = cpu" -c "$Q" >/dev/null

session() {  # session BACKEND QUERY: one fresh connection, the query three times
	psql -X -d "$DB" -v ON_ERROR_STOP=1 <<SQL 2>&1
SET jit = off;
SET max_parallel_workers_per_gather = 0;
SET work_mem = '256MB';
SET gpu_dbscan.backend = $1;
\timing on
$2;
$L;
$2;
$L;
$2;
SQL
}
for i in $(seq 1 "$SESSIONS"); do
	for f in $FORMS; do
		for b in cpu gpu; do
			echo "== session $i backend=$b form=$f"
			session "$b" "${FORM_Q[$f]}" | grep -E '^Time:|^ (cpu|gpu) |ERROR'
		done
	done
done | tee /tmp/startup_sql.raw
# first, second, third query times (ms) per session; the first minus the second.
awk '/^== session/ { b = $4 " " $5; if (!(b in seen)) { seen[b] = 1; order[++nb] = b } k = 0; next }
     /^Time:/ { t = $2; k++; if (k == 1 || k == 3 || k == 5) { q = (k + 1) / 2; v[b, ++n[b, q], q] = t } }
     END {
       for (bi = 1; bi <= nb; bi++) {
         b = order[bi];
         for (s = 1; s <= n[b, 1]; s++)
           printf "%s session %d: first %.1f ms, second %.1f ms, third %.1f ms, first - second %.1f ms\n",
             b, s, v[b, s, 1], v[b, s, 2], v[b, s, 3], v[b, s, 1] - v[b, s, 2]
       }
     }' /tmp/startup_sql.raw
