#!/usr/bin/env bash
# worker_test.sh — the GPU worker (src/gpu_worker.c, issue 9 item 3) on a GPU
# machine, in the pgkit server (PG* from /opt/pgkit/pgkit.env), gpu_dbscan
# installed and test/gpu/startup_sql.sh run once before (its table t1m):
#   1. preloaded: the server restarted with shared_preload_libraries =
#      gpu_dbscan; one worker runs
#   2. the ids of 1M points through the worker equal the CPU's; the backend
#      holds no CUDA context (nvidia-smi lists the worker's pid, not its);
#      likewise every form (sweep, point type, POINT Z, float8[])
#   3. fresh sessions: startup_sql.sh again (first query against the second)
#   4. cancel and statement_timeout inside the worker (the test-only probe
#      holds a request): the error within 1 s, no slot and no DSM segment
#      left, the next query right
#   5. pg_terminate_backend of the worker during a request: the backend gets
#      a clean error (auto: the CPU's answer), a new worker comes, the next
#      query right
#   6. kill -9 of only the worker: the server restarts its processes, the
#      next session's query is right and served by a new worker
# Then shared_preload_libraries is reset and the server restarted.  One line
# per check (ok/FAIL) and a summary; exit status 1 when a check failed.
set -uo pipefail
[[ -f /opt/pgkit/pgkit.env ]] && . /opt/pgkit/pgkit.env
DB=${GD_STARTUP_DB:-gd_startup}
RESTART=${GD_RESTART:-/opt/pgkit/bin/pgkit-ctl restart}  # restarts the server
SERVER_LOG=${GD_SERVER_LOG:-/opt/pgkit/log/postgres.log}
failed=0
ok() { echo "ok: $*"; }
bad() { echo "FAIL: $*"; failed=1; }
q() { psql -XAtq -d "$DB" "$@"; }
worker_pid() { q -c "SELECT pid FROM pg_stat_activity WHERE backend_type = 'gpu_dbscan GPU worker'"; }
wait_ready() {
	for _ in $(seq 1 60); do
		pg_isready -q && q -c "SELECT 1" >/dev/null 2>&1 && return 0
		sleep 0.5
	done
	return 1
}
wait_worker() {  # wait_worker OLD_PID: a worker other than OLD_PID is up (10 s)
	for _ in $(seq 1 100); do
		w=$(worker_pid 2>/dev/null)
		[[ -n $w && $w != "$1" ]] && { echo "$w"; return 0; }
		sleep 0.1
	done
	return 1
}
dsm_count() { ls /dev/shm 2>/dev/null | grep -c '^PostgreSQL\.'; }
# ref: a logged copy of t1m with the CPU's ids (t1m is unlogged: a crash
# restart empties it).
CHECK="SET gpu_dbscan.backend = gpu;
CREATE TEMP TABLE g AS SELECT id, gpu_dbscan(geom, 1, 10) OVER (ORDER BY id) k FROM ref;
SELECT backend FROM gpu_dbscan_last_run();
SELECT count(*) FROM g;
SELECT count(*) FROM ref JOIN g USING (id) WHERE ref.k IS DISTINCT FROM g.k;"
check_answer() {  # check_answer WHAT: the GPU's ids through the worker equal the CPU's
	local out
	out=$(q -c "$CHECK" 2>&1 | tr '\n' ' ')
	if [[ $out == "gpu 1000000 0 " ]]; then ok "$1: ids equal the CPU's, backend gpu"; else bad "$1: $out"; fi
}

# --- 1. preload --------------------------------------------------------------------
psql -XAtq -c "ALTER SYSTEM SET shared_preload_libraries = 'gpu_dbscan'"
eval "$RESTART" >/dev/null 2>&1
wait_ready || bad "server not ready after the restart"
wpid=$(wait_worker 0) && ok "preloaded: worker pid $wpid" || bad "no GPU worker after the restart"
q -c "CREATE OR REPLACE FUNCTION public.gd_test_worker_probe(int) RETURNS int
        AS '\$libdir/gpu_dbscan', 'gpu_dbscan_worker_probe' LANGUAGE C VOLATILE STRICT" \
  -c "CREATE OR REPLACE FUNCTION public.gd_test_worker_busy() RETURNS int
        AS '\$libdir/gpu_dbscan', 'gpu_dbscan_worker_busy' LANGUAGE C VOLATILE"
q -c "DROP TABLE IF EXISTS ref" -c "SET gpu_dbscan.backend = cpu" \
  -c "CREATE TABLE ref AS SELECT id, id % 7 AS p, id / 150000 AS q, geom,
        gpu_dbscan(geom, 1, 10) OVER (ORDER BY id) k FROM t1m"
[[ $(q -c "SELECT count(*) FROM ref") == 1000000 ]] || bad "no reference ids (t1m missing? run startup_sql.sh first)"

# --- 2. right answer, no context in the backend --------------------------------------
check_answer "through the worker"
psql -XAtq -d "$DB" -c "SELECT pg_backend_pid()" -c "SET gpu_dbscan.backend = gpu" \
	-c "SELECT max(c) FROM (SELECT gpu_dbscan(geom, 1, 10) OVER () c FROM t1m) s" \
	-c "SELECT pg_sleep(3)" >/tmp/gd_ctx.out 2>&1 &
sleep 2.5
apps=$(nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader 2>&1 | tr '\n' ';')
wait
bpid=$(head -1 /tmp/gd_ctx.out)
echo "compute apps: $apps (worker $wpid, backend $bpid; the backend's answer: $(sed -n 2p /tmp/gd_ctx.out))"
if [[ $apps == *"$wpid,"* ]]; then ok "nvidia-smi lists the worker's context"; else bad "worker pid $wpid not in nvidia-smi: $apps"; fi
if [[ -n $bpid && $apps != *"$bpid,"* ]]; then ok "the backend $bpid holds no CUDA context"; else bad "backend $bpid in nvidia-smi: $apps"; fi
n_apps=$(echo "$apps" | tr ';' '\n' | grep -c ',')
[[ $n_apps -eq 1 ]] && ok "one CUDA context on the device (the worker's)" || bad "$n_apps CUDA contexts: $apps"

# four sessions at once: their requests queue in the worker, every answer right
for i in 1 2 3 4; do
	q -c "SET gpu_dbscan.backend = gpu" -c "SELECT count(*) FROM ref JOIN (SELECT id,
		gpu_dbscan(geom, 1, 10) OVER (ORDER BY id) k FROM ref) g USING (id)
		WHERE ref.k IS DISTINCT FROM g.k" >"/tmp/gd_conc.$i" 2>&1 &
done
wait
out=$(cat /tmp/gd_conc.{1,2,3,4} | tr '\n' ' ')
[[ $out == "0 0 0 0 " ]] && ok "four concurrent sessions through the worker: every answer right" || bad "concurrent sessions: '$out'"

# the fast path hands its read and ids to the worker in place (no copy): the
# same ids as the CPU's fast path, whatever the window and the workers (q:
# partitions in heap order, clustered where the read left them; p: sorted,
# each partition copied once into memory the worker maps)
# same_as_cpu W WHAT KEY ROWS SQL: SQL's ids (column k, one row per KEY) with
# backend gpu equal those with backend cpu, W workers reading, and ROWS over
# the GPU's rows counts every point of ref
same_as_cpu() {
	local out
	out=$(q -c "SET gpu_dbscan.scan_workers = $1" -c "SET max_parallel_workers_per_gather = $1" \
		-c "SET gpu_dbscan.backend = cpu" -c "CREATE TEMP TABLE c AS $5" \
		-c "SET gpu_dbscan.backend = gpu" -c "CREATE TEMP TABLE g AS $5" \
		-c "SELECT count(*) FROM c FULL JOIN g USING ($3) WHERE c.k IS DISTINCT FROM g.k" \
		-c "SELECT $4 FROM g" 2>&1 | tr '\n' ' ')
	[[ $out == "0 1000000 " ]] && ok "in place, $1 workers, $2: ids equal the CPU's" ||
		bad "in place, $1 workers, $2: '$out'"
}
for w in 0 4; do
	for over in "ORDER BY id" "" "PARTITION BY q ORDER BY id" "PARTITION BY p ORDER BY id" "PARTITION BY p"; do
		same_as_cpu "$w" "OVER ($over)" id "count(*)" \
			"SELECT id, gpu_dbscan(geom, 1, 10) OVER ($over) k FROM ref"
	done
	plan=$(q -c "SET gpu_dbscan.scan_workers = $w" -c "SET max_parallel_workers_per_gather = $w" \
		-c "SET gpu_dbscan.backend = gpu" -c "EXPLAIN (ANALYZE, TIMING OFF, COSTS OFF)
		SELECT max(c) FROM (SELECT gpu_dbscan(geom, 1, 10) OVER (PARTITION BY q ORDER BY id) c FROM ref) s" 2>&1)
	echo "$plan" | grep -E 'GPU Worker|Read Time|Cluster Time|Workers Launched'
	if echo "$plan" | grep -q 'GPU Worker Requests: 7' && echo "$plan" | grep -q 'GPU Worker Requests In Place: 7'; then
		ok "in place, $w workers: EXPLAIN shows 7 requests, all in place"
	else bad "in place, $w workers: EXPLAIN: $(echo "$plan" | grep 'GPU Worker Requests' | tr '\n' ' ')"; fi
done
# the aggregate scan likewise (q: groups in heap order, clustered where the
# read left them; p: interleaved, each group copied once where the worker
# maps it; ORDER BY id inside the aggregate: each group sorted first)
for w in 0 4; do
	for grp in "q" "p" "q ORDER BY id" "p ORDER BY id"; do
		g=${grp%% *} order=${grp#?}
		same_as_cpu "$w" "gpu_dbscan_agg GROUP BY $grp" g "sum(cardinality(k))" \
			"SELECT $g AS g, gpu_dbscan_agg(geom, 1, 10$order) k FROM ref GROUP BY $g"
	done
	plan=$(q -c "SET gpu_dbscan.scan_workers = $w" -c "SET max_parallel_workers_per_gather = $w" \
		-c "SET gpu_dbscan.backend = gpu" -c "EXPLAIN (ANALYZE, TIMING OFF, COSTS OFF)
		SELECT q, gpu_dbscan_agg(geom, 1, 10) FROM ref GROUP BY q" 2>&1)
	echo "$plan" | grep -E 'GpuDbscanAgg|GPU Worker|Read Time|Cluster Time'
	if echo "$plan" | grep -q 'GpuDbscanAgg' && echo "$plan" | grep -q 'GPU Worker Requests: 7' &&
		echo "$plan" | grep -q 'GPU Worker Requests In Place: 7'; then
		ok "in place, $w workers: the aggregate scan's EXPLAIN shows 7 requests, all in place"
	else bad "in place, $w workers, aggregate scan: EXPLAIN: $(echo "$plan" | grep -E 'Custom|GPU Worker Requests' | tr '\n' ' ')"; fi
done
# every form through the worker (core_points_run in the worker): a sweep and
# a point type through the fast path, POINT Z and float8[] through the
# WindowAgg; each equal to the CPU's, and a fresh session running it holds
# no CUDA context of its own
form_via_worker() {  # form_via_worker WHAT SQL (columns id and k)
	local out apps bpid
	out=$(q -c "SET gpu_dbscan.backend = cpu" -c "CREATE TEMP TABLE c AS $2" \
		-c "SET gpu_dbscan.backend = gpu" -c "CREATE TEMP TABLE g AS $2" \
		-c "SELECT backend FROM gpu_dbscan_last_run()" \
		-c "SELECT count(*) FROM c FULL JOIN g USING (id) WHERE c.k IS DISTINCT FROM g.k" 2>&1 | tr '\n' ' ')
	[[ $out == "gpu 0 " ]] && ok "$1 through the worker: equal to the CPU's, backend gpu" ||
		bad "$1 through the worker: '$out'"
	q -c "SELECT pg_backend_pid()" -c "SET gpu_dbscan.backend = gpu" \
		-c "SELECT count(k) FROM ($2) s" -c "SELECT pg_sleep(3)" >/tmp/gd_form.out 2>&1 &
	for _ in $(seq 1 300); do
		[[ $(wc -l </tmp/gd_form.out) -ge 2 ]] && break
		sleep 0.1
	done
	apps=$(nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader 2>&1 | tr '\n' ';')
	wait
	bpid=$(head -1 /tmp/gd_form.out)
	if [[ $(sed -n 2p /tmp/gd_form.out) =~ ^[0-9]+$ && -n $bpid && $apps != *"$bpid,"* ]]; then
		ok "$1: a fresh session's backend $bpid holds no CUDA context"
	else bad "$1, fresh session: $(tr '\n' ' ' </tmp/gd_form.out), compute apps: $apps"; fi
}
form_via_worker "gpu_dbscan_sweep(geometry)" \
	"SELECT id, gpu_dbscan_sweep(geom, 1, '{5,10,20}') OVER (ORDER BY id) k FROM ref"
form_via_worker "gpu_dbscan_point_type(geometry)" \
	"SELECT id, gpu_dbscan_point_type(geom, 1, 10) OVER (ORDER BY id) k FROM ref"
form_via_worker "gpu_dbscan_3d" \
	"SELECT id, gpu_dbscan_3d(ST_MakePoint(ST_X(geom), ST_Y(geom), (id % 5)::float8), 1, 10)
		OVER (ORDER BY id) k FROM ref"
form_via_worker "gpu_dbscan_sweep(float8[])" \
	"SELECT id, gpu_dbscan_sweep(ARRAY[ST_X(geom), ST_Y(geom), (id % 3)::float8], 1, '{5,10}')
		OVER (ORDER BY id) k FROM ref"
plan=$(q -c "SET gpu_dbscan.backend = gpu" -c "EXPLAIN (ANALYZE, TIMING OFF, COSTS OFF)
	SELECT max(c[1]) FROM (SELECT gpu_dbscan_sweep(geom, 1, '{5,10,20}') OVER (ORDER BY id) c FROM ref) s" 2>&1)
echo "$plan" | grep -q 'GPU Worker Requests: 1' && echo "$plan" | grep -q 'GPU Worker Requests In Place: 1' &&
	ok "the sweep's EXPLAIN shows its one worker request, in place" ||
	bad "the sweep's EXPLAIN: $(echo "$plan" | grep -E 'Custom|GPU Worker' | tr '\n' ' ')"

# statement_timeout at any point of a query whose arrays the worker maps: a
# clean error, no request slot nor DSM segment left, the next answer right
d0=$(dsm_count)
for ms in 5 20 40 60 80 120; do
	out=$(q -c "SET statement_timeout = '${ms}ms'" -c "SET gpu_dbscan.backend = gpu" \
		-c "SELECT max(c) FROM (SELECT gpu_dbscan(geom, 1, 10) OVER (ORDER BY id) c FROM ref) s" 2>&1)
	[[ $out == *"statement timeout"* || $out =~ ^[0-9]+$ ]] || bad "statement_timeout ${ms}ms: '$out'"
done
sleep 0.3
busy=$(q -c "SELECT gd_test_worker_busy()")
d1=$(dsm_count)
[[ $busy == 0 && $d1 -le $d0 ]] && ok "timeouts during in-place requests: no slot, no segment left ($d0 -> $d1)" ||
	bad "timeouts during in-place requests: $busy slots, segments $d0 -> $d1"
check_answer "after the in-place timeouts"

# --- 3. fresh sessions ---------------------------------------------------------------
echo "== startup_sql.sh with the worker"
bash test/gpu/startup_sql.sh | grep -E 'first - second|ERROR'

# --- 4. errors and cancels inside the worker ------------------------------------------------
wmem() { nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader,nounits 2>/dev/null |
	awk -F', ' -v p="$1" '$1 == p { print $2 }'; }
m0=$(wmem "$wpid")
# a device budget too small for even one strip: a clean out-of-memory error
# from the worker (gpu), the CPU's answer with a NOTICE (auto)
# (eps 30: a slab 6 eps wide holds ~180k points, far over the budget)
BIG="SELECT max(c) FROM (SELECT gpu_dbscan(geom, 30, 10) OVER (ORDER BY id) c FROM ref) s"
want=$(q -c "SET gpu_dbscan.backend = cpu" -c "$BIG")
out=$(q -c "SET gpu_dbscan.device_memory_budget = '1MB'" -c "SET gpu_dbscan.backend = gpu" -c "$BIG" 2>&1)
[[ $out == *"gpu_dbscan: out of memory"* ]] && ok "device budget error in the worker: clean error" || bad "budget error: '$out'"
out=$(q -c "SET gpu_dbscan.device_memory_budget = '1MB'" -c "SET gpu_dbscan.backend = auto" \
	-c "SET gpu_dbscan.gpu_min_rows = 1000" -c "$BIG" 2>&1)
[[ -n $want && $out == *"clustering on the CPU instead"*"$want" ]] &&
	ok "device budget error under auto: NOTICE and the CPU's answer" || bad "budget error under auto: '$out'"
d0=$(dsm_count)
t0=$(date +%s.%N)
out=$(q -c "SET statement_timeout = '300ms'" -c "SELECT gd_test_worker_probe(5000)" 2>&1)
t=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
if [[ $out == *"statement timeout"* ]] && awk -v t="$t" 'BEGIN { exit !(t < 1.5) }'; then
	ok "statement_timeout in the worker: clean error after $t s"
else bad "statement_timeout: '$out' after $t s"; fi
(q -c "SELECT gd_test_worker_probe(5000)" >/tmp/gd_probe.out 2>&1 &)
sleep 0.5
q -c "SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE query LIKE 'SELECT gd_test_worker_probe%'" >/dev/null
sleep 0.5
out=$(cat /tmp/gd_probe.out)
[[ $out == *"canceling statement due to user request"* ]] && ok "pg_cancel_backend in the worker: clean error" || bad "pg_cancel_backend: '$out'"
sleep 0.3
busy=$(q -c "SELECT gd_test_worker_busy()")
[[ $busy == 0 ]] && ok "no request slot left after the cancels" || bad "$busy request slots still in use"
d1=$(dsm_count)
[[ $d1 -le $d0 ]] && ok "no DSM segment left ($d0 before, $d1 after)" || bad "DSM segments: $d0 before, $d1 after"
check_answer "after the cancels"
m1=$(wmem "$wpid")
echo "worker's device memory: $m0 MiB before the errors and cancels, $m1 MiB after"
[[ -n $m0 && -n $m1 && $m1 -le $((m0 + 64)) ]] && ok "no device memory left behind ($m0 -> $m1 MiB)" ||
	bad "worker's device memory $m0 -> $m1 MiB"

# --- 5. the worker terminated during a request --------------------------------------------
(q -c "SELECT gd_test_worker_probe(5000)" >/tmp/gd_probe.out 2>&1 &)
sleep 0.5
q -c "SELECT pg_terminate_backend($wpid)" >/dev/null
sleep 0.5
out=$(cat /tmp/gd_probe.out)
echo "probe during terminate returned: $out"
[[ $out == 5 ]] && ok "worker terminated: the request ended with GD_ERR_DEVICE (5), the session lives on" || bad "worker terminated: '$out'"
nw=$(wait_worker "$wpid") && ok "a new worker: pid $nw" || bad "no new worker after pg_terminate_backend"
out=$(q -c "SET gpu_dbscan.backend = auto" -c "SET gpu_dbscan.gpu_min_rows = 1000" \
	-c "SELECT max(c) FROM (SELECT gpu_dbscan(geom, 1, 10) OVER (ORDER BY id) c FROM ref) s" 2>&1)
ref=$(q -c "SELECT max(k) FROM ref")
[[ $out == "$ref" ]] && ok "auto after the terminate: right answer" || bad "auto after the terminate: '$out' (want $ref)"
check_answer "after the terminate"
busy=$(q -c "SELECT gd_test_worker_busy()")
[[ $busy == 0 ]] && ok "no request slot left after the terminate" || bad "$busy request slots in use"
wpid=$nw

# --- 6. kill -9 of the worker ------------------------------------------------------------------
kill -9 "$wpid"
sleep 1
wait_ready && ok "server ready again after kill -9 of the worker" || bad "server not ready after kill -9"
nw=$(wait_worker "$wpid") && ok "a new worker after kill -9: pid $nw" || bad "no new worker after kill -9"
check_answer "after kill -9"
grep -E "terminated by signal 9|reinitializing" "$SERVER_LOG" | tail -2

# --- restore -----------------------------------------------------------------------------------
psql -XAtq -c "ALTER SYSTEM RESET shared_preload_libraries"
eval "$RESTART" >/dev/null 2>&1
wait_ready || bad "server not ready after the last restart"
if [[ $failed -eq 0 ]]; then echo "== worker_test: all checks passed"; else echo "== worker_test: FAILURES"; fi
exit $failed
