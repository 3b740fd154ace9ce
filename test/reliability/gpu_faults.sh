#!/usr/bin/env bash
# test/reliability/gpu_faults.sh — issue 5 on a GPU machine: device faults,
# cancels, load and leaks, with one summary line per step.
#
# Run from the repository root after pgkit/install-on-device.sh and make
# install (the server of /opt/pgkit/pgkit.env; PGOPTIONS unset), e.g.
#   bash pgkit/install-on-device.sh >/tmp/pgkit.log 2>&1; . /opt/pgkit/pgkit.env;
#   make CORE_BUILD=build-gpu-dev install; bash test/reliability/gpu_faults.sh
#
#   test/reliability/gpu_faults.sh [--load-seconds N] [--sessions K] [--gpu-sessions M]
#                                  [--steps "a b c d e f"] [--fuzz-seconds T] [--core-build DIR]
#                                  [--detach DIR | --collect DIR [--collect-wait S]]
#
# --detach DIR runs the rest in the background under setsid, logs and
# summary in DIR, and returns at once (for runs longer than a command may
# take); --collect DIR waits up to S s (540) for it, prints the summary,
# copies DIR to $OUT when set, and exits with the run's status (3: still
# running, call again).  E.g. a 10-minute load:
#   bash test/reliability/gpu_faults.sh --steps d --load-seconds 600 --detach /tmp/gd-load
#   OUT=$OUT bash test/reliability/gpu_faults.sh --collect /tmp/gd-load   (repeat while 3)
#
# Steps (about 6 minutes with the defaults):
#   pre  the data (1M and 2M uniform points, a 20,000-point check set), the
#        1M-point answer on the CPU, and the same on the GPU
#   a    another process holds almost all device memory (test/reliability/
#        hog.cu): backend = auto gives the CPU's answer (with a NOTICE when
#        the session had a GPU context already), backend = gpu a clear
#        error; after the hog exits the same session's GPU answer is right
#   b    the server restarted with CUDA_VISIBLE_DEVICES= : auto gives the
#        CPU's answer, gpu a clear error; then restarted as before, the GPU
#        works again
#   c    cancel.sh on the GPU: 50 stops at random points after the rows are
#        read (pg_cancel_backend and statement_timeout), each within 1 s, the
#        next query right; then pg_terminate_backend during GPU work 5
#        times: the server stays up, device memory returns to its level
#   d    the caps: gpu_dbscan.max_device_memory = 64MB makes a 2M-point GPU
#        run go in strips (the CPU's answer), 1MB makes it fail with that
#        budget (auto: the CPU's answer); with gpu_dbscan.max_gpu_sessions = 1
#        and the slot held 6 s by another session (the test-only probe of
#        src/gpu_slots.c), auto gives up after gpu_wait_timeout with a
#        NOTICE and the CPU's answer, gpu waits and gives the GPU's; then
#        K sessions (default 16) cluster 1M points each on the GPU for N
#        seconds (default 120) under a 2GB cap and max_gpu_sessions = M
#        (--gpu-sessions, default 4): every answer the CPU's and from the
#        GPU, every session served, at most M slot holders in pg_locks
#        (sampled every second), device memory (nvidia-smi, every second)
#        under M x 2GB + K x an idle session's CUDA context, slot waits
#        (gpu_dbscan_last_run().slot_wait_ms) and throughput
#   e    leak.sh on the GPU: 1000 queries in one session, backend RSS and
#        device memory flat
#   f    test/fuzz/core_diff.sh --gpu for 60 s (--fuzz-seconds): random small
#        sets through the GPU and CPU paths against PostGIS's algorithm
#        emulated, 0 differences (against the core in --core-build DIR,
#        default build-gpu-dev, built with CUDA there when missing)
# nvidia-smi's memory before and after, and no crash-restart apart from
# step b's restarts (the checkpointer's pid and the server log: see
# rel_server_mark in lib.sh).  Logs and summary.txt go to $OUT
# (default log/gpu-faults).  Exit status 1 when a step failed.
#
# Knobs: PGKIT_ENV (/opt/pgkit/pgkit.env, sourced when present),
# REL_PG_LOG (/opt/pgkit/log/postgres.log), REL_PG_OSUSER (postgres) for the
# restarts; GD_FAULTS_DB (gd_reliability); REL_GPU_BACKEND (gpu: the
# backend setting the GPU runs use; cpu runs the script's logic on a
# machine without a GPU, where the GPU-only expectations then fail).
set -uo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
LOAD_SECONDS=120
SESSIONS=16
GPU_SESSIONS=4
STEPS="pre a b c d e f"
FUZZ_SECONDS=60
CORE_BUILD=build-gpu-dev
DETACH=
COLLECT=
COLLECT_WAIT=540
args=("$@")
while [[ $# -gt 0 ]]; do
	case $1 in
		--load-seconds) LOAD_SECONDS=$2; shift 2 ;;
		--sessions) SESSIONS=$2; shift 2 ;;
		--gpu-sessions) GPU_SESSIONS=$2; shift 2 ;;
		--steps) STEPS="pre $2"; shift 2 ;;
		--fuzz-seconds) FUZZ_SECONDS=$2; shift 2 ;;
		--core-build) CORE_BUILD=$2; shift 2 ;;
		--detach) DETACH=$2; shift 2 ;;
		--collect) COLLECT=$2; shift 2 ;;
		--collect-wait) COLLECT_WAIT=$2; shift 2 ;;
		-h | --help) sed -n '2,62p' "$0"; exit 0 ;;
		*) echo "gpu_faults: unknown argument $1" >&2; exit 2 ;;
	esac
done

# --detach DIR: the same run in its own session (setsid), writing to DIR;
# returns at once.  --collect DIR: waits for it (at most COLLECT_WAIT s; exit
# 3 while it still runs), prints the summary, copies DIR to $OUT when set.
if [[ -n $DETACH ]]; then
	mkdir -p "$DETACH" || exit 2
	rm -f "$DETACH/exit"
	rest=()
	for ((i = 0; i < ${#args[@]}; i++)); do
		if [[ ${args[i]} == --detach ]]; then i=$((i + 1)); else rest+=("${args[i]}"); fi
	done
	OUT=$DETACH DETACHED_DIR=$DETACH setsid bash "$0" "${rest[@]}" >"$DETACH/run.log" 2>&1 </dev/null &
	echo $! >"$DETACH/pid"
	echo "gpu_faults: running detached as pid $! (logs in $DETACH; collect with --collect $DETACH)"
	exit 0
fi
if [[ -n $COLLECT ]]; then
	[[ -f $COLLECT/pid ]] || { echo "gpu_faults: no detached run in $COLLECT" >&2; exit 2; }
	end=$((SECONDS + COLLECT_WAIT))
	while [[ ! -f $COLLECT/exit ]] && kill -0 "$(cat "$COLLECT/pid")" 2>/dev/null && ((SECONDS < end)); do
		sleep 5
	done
	if [[ -n ${OUT:-} && $OUT != "$COLLECT" ]]; then mkdir -p "$OUT" && cp -r "$COLLECT"/. "$OUT"/; fi
	if [[ ! -f $COLLECT/exit ]] && kill -0 "$(cat "$COLLECT/pid")" 2>/dev/null; then
		echo "gpu_faults: still running after ${COLLECT_WAIT} s; so far:"
		cat "$COLLECT/summary.txt" 2>/dev/null
		tail -n 3 "$COLLECT/d-samples.log" 2>/dev/null
		exit 3
	fi
	cat "$COLLECT/summary.txt" 2>/dev/null
	[[ -f $COLLECT/exit ]] || { echo "gpu_faults: the run ended without an exit status (killed?); run.log:"; tail -n 20 "$COLLECT/run.log"; exit 1; }
	exit "$(cat "$COLLECT/exit")"
fi

PGKIT_ENV=${PGKIT_ENV:-/opt/pgkit/pgkit.env}
# shellcheck disable=SC1090
[[ -f $PGKIT_ENV ]] && . "$PGKIT_ENV"
unset PGOPTIONS
export PATH=/usr/local/cuda/bin:$PATH
REL_PG_LOG=${REL_PG_LOG:-/opt/pgkit/log/postgres.log}
REL_PG_OSUSER=${REL_PG_OSUSER:-postgres}
DB=${GD_FAULTS_DB:-gd_reliability}
GPU=${REL_GPU_BACKEND:-gpu}
OUT=${OUT:-$ROOT/log/gpu-faults}
mkdir -p "$OUT"
SUMMARY=$OUT/summary.txt
: >"$SUMMARY"
# shellcheck source=test/reliability/lib.sh
. "$HERE/lib.sh"
# shellcheck source=test/reliability/data.sh
. "$HERE/data.sh"
RANDOM=5

has_step() { [[ " $STEPS " == *" $1 "* ]]; }
note() { echo "$*" | tee -a "$SUMMARY"; }
failed=0
fail() { note "FAIL: $*"; failed=1; }
smi_used() { nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits 2>/dev/null | head -1 | tr -d ' '; }
smi_total() { nvidia-smi --query-gpu=memory.total --format=csv,noheader,nounits 2>/dev/null | head -1 | tr -d ' '; }
# settle_mem TARGET: waits up to 10 s for the device memory in use to come
# back to within 64 MiB of TARGET; prints what it is then.
settle_mem() {
	local m
	[[ $1 =~ ^[0-9]+$ ]] || { echo "?"; return; }
	for _ in $(seq 1 20); do
		m=$(smi_used)
		[[ $m =~ ^[0-9]+$ && $m -le $(($1 + 64)) ]] && break
		sleep 0.5
	done
	echo "${m:-?}"
}
# mem_back BEFORE AFTER: device memory back within 64 MiB (true without nvidia-smi).
mem_back() { [[ ! $1 =~ ^[0-9]+$ ]] || [[ $2 =~ ^[0-9]+$ && $2 -le $(($1 + 64)) ]]; }
# pg_restart [VAR=VALUE...]: restarts the server as its OS user with these
# variables in its environment (pgkit-ctl's way, with env in front).
pg_restart() {
	local pgctl
	pgctl=$(command -v pg_ctl) || { echo "no pg_ctl on the PATH"; return 1; }
	# shellcheck disable=SC2016
	(cd / && runuser -u "$REL_PG_OSUSER" -- env "$@" sh -c '[ -f "$1" ] && . "$1"; exec "$2" -D "$3" -l "$4" -w -t 120 -m fast restart' \
		sh "$PGKIT_ENV" "$pgctl" "$PGDATA" "$REL_PG_LOG") >>"$OUT/restarts.log" 2>&1
}
hog_pid=
workers=()
# shellcheck disable=SC2317
cleanup() {
	[[ -n $hog_pid ]] && kill "$hog_pid" 2>/dev/null
	[[ ${#workers[@]} -gt 0 ]] && kill "${workers[@]}" 2>/dev/null
	rel_psql "$DB" -c "LOAD 'gpu_dbscan'" -c "ALTER SYSTEM RESET gpu_dbscan.max_device_memory" \
		-c "ALTER SYSTEM RESET gpu_dbscan.max_gpu_sessions" -c "SELECT pg_reload_conf()" \
		-c "DROP FUNCTION IF EXISTS public.gd_test_slot_probe(int, int)" >/dev/null 2>&1
	[[ -n ${DETACHED_DIR:-} ]] && echo "$failed" >"$DETACHED_DIR/exit"
}
trap cleanup EXIT

Q1M="SELECT md5(array_agg(c ORDER BY id)::text) FROM (SELECT id, gpu_dbscan(geom, 0.1, 5) OVER (ORDER BY id) AS c FROM rel_points_1000000) s;"
Q2M="SELECT count(c) FROM (SELECT gpu_dbscan(geom, 0.1, 5) OVER (ORDER BY id) AS c FROM rel_points_2000000) s;"
LAST="SELECT backend FROM gpu_dbscan_last_run();"
# in_session BACKEND SQL...: a fresh session with that backend; all output.
in_session() {
	local backend=$1
	shift
	local args=()
	for s in "$@"; do args+=(-c "$s"); done
	"$REL_PSQL" -X -q -A -t -d "$DB" -c "LOAD 'gpu_dbscan'" -c "SET gpu_dbscan.backend = '$backend'" "${args[@]}" 2>&1
}

t_all=$(rel_now)
note "== gpu_faults $(date -u '+%Y-%m-%d %H:%M:%S UTC') on $(hostname): $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)"
mem_before=$(smi_used)
note "nvidia-smi before: ${mem_before:-?} MiB used of $(smi_total) MiB"

# --- pre: data, the CPU's answer, the GPU's ------------------------------------------
t0=$(rel_now)
if ! { rel_data_setup "$DB" 1000000 && rel_data_setup "$DB" 2000000; } >"$OUT/setup.log" 2>&1; then
	fail "data setup (see setup.log)"
	cat "$OUT/setup.log"
	exit 1
fi
rel_server_mark "$DB"
tc=$(rel_now)
cpu_1m=$(in_session cpu "$Q1M")
tg=$(rel_now)
pre=$(in_session "$GPU" "$Q1M" "$LAST")
te=$(rel_now)
gpu_1m=${pre%%$'\n'*}
if [[ ! $cpu_1m =~ ^[0-9a-f]{32}$ ]]; then
	fail "pre: the CPU run failed: $cpu_1m"
	exit 1
fi
if [[ $gpu_1m == "$cpu_1m" && $pre == *"$GPU" ]]; then
	note "pre: 1M points, ids on the GPU = ids on the CPU ($(rel_secs "$tg" "$te") s on the GPU, $(rel_secs "$tc" "$tg") s on the CPU, both with a fresh session; data ready in $(rel_secs "$t0" "$tc") s)"
else
	fail "pre: the GPU run gave '$pre', the CPU's md5 is $cpu_1m"
fi

# --- a: another process holds almost all device memory ------------------------------
if has_step a; then
	if ! nvcc -O2 -o "$OUT/hog" "$HERE/hog.cu" >"$OUT/hog-build.log" 2>&1; then
		fail "a: cannot build hog.cu (see hog-build.log)"
	else
		m0=$(smi_used)
		rel_session_start "$DB" || fail "a: no session"
		# a session with a CUDA context already (a small GPU run)
		rel_query "SET client_min_messages = notice; SET gpu_dbscan.backend = '$GPU'; $(rel_check_query)"
		"$OUT/hog" --leave-mb 32 --seconds 120 >"$OUT/hog.log" 2>&1 &
		hog_pid=$!
		for _ in $(seq 1 60); do grep -q holding "$OUT/hog.log" && break; kill -0 "$hog_pid" 2>/dev/null || break; sleep 0.5; done
		if ! grep -q holding "$OUT/hog.log"; then
			fail "a: the hog did not start: $(cat "$OUT/hog.log")"
			rel_session_stop
		else
			held=$(cat "$OUT/hog.log")
			rel_query "SET gpu_dbscan.backend = '$GPU'; $Q1M" 300
			warm_gpu=$REL_OUT
			rel_query "SET gpu_dbscan.backend = 'auto'; $Q1M $LAST" 300
			warm_auto=$REL_OUT
			fresh_auto=$(in_session auto "SET client_min_messages = notice" "$Q1M" "$LAST")
			fresh_gpu=$(in_session "$GPU" "$Q1M")
			kill "$hog_pid" 2>/dev/null
			wait "$hog_pid" 2>/dev/null
			hog_pid=
			sleep 1
			rel_query "SET gpu_dbscan.backend = '$GPU'; $Q1M $LAST" 300
			after=$REL_OUT
			rel_session_stop
			m1=$(settle_mem "$m0")
			printf '%s\n' "hog: $held" "--- gpu, session with a context:" "$warm_gpu" "--- auto, the same session:" "$warm_auto" \
				"--- auto, fresh session:" "$fresh_auto" "--- gpu, fresh session:" "$fresh_gpu" \
				"--- gpu, the first session after the hog:" "$after" >"$OUT/a.log"
			ok=1
			# gpu: a clear error, or the right answer when the strips of
			# cuda/strips.cu fit in what the hog left
			[[ ($warm_gpu == *ERROR* || $warm_gpu == *"$cpu_1m"*) && $warm_gpu != *"server closed"* ]] || { ok=0; fail "a: gpu with the device full: $warm_gpu"; }
			[[ $warm_auto == *"$cpu_1m"* ]] || { ok=0; fail "a: auto with the device full: $warm_auto"; }
			[[ $fresh_auto == *"$cpu_1m"* ]] || { ok=0; fail "a: auto, fresh session, device full: $fresh_auto"; }
			[[ $fresh_gpu == *ERROR* || $fresh_gpu == *"$cpu_1m"* ]] || { ok=0; fail "a: gpu, fresh session, device full: $fresh_gpu"; }
			[[ $after == *"$cpu_1m"* && $after == *"$GPU" ]] || { ok=0; fail "a: after the hog: $after"; }
			notice=no
			[[ $warm_auto == *"clustering on the CPU instead"* ]] && notice=yes
			((ok)) || cat "$OUT/a.log"
			((ok)) && note "a: hog ($held): session with a context: gpu -> $(grep -m1 ERROR <<<"$warm_gpu" | cut -c1-160 || echo "the right answer (strips)"); auto -> the CPU's answer (NOTICE: $notice, ran on ${warm_auto##*$'\n'}); fresh session: auto -> the CPU's answer (ran on ${fresh_auto##*$'\n'}), gpu -> $(grep -m1 ERROR <<<"$fresh_gpu" | cut -c1-120 || echo "the right answer (strips)"); hog gone: the GPU's answer right again; device memory $m0 -> $m1 MiB"
		fi
	fi
fi

# --- b: the device hidden from the server --------------------------------------------
if has_step b; then
	if ! pg_restart CUDA_VISIBLE_DEVICES=; then
		fail "b: restart with CUDA_VISIBLE_DEVICES= failed (see restarts.log)"
	else
		hidden_auto=$(in_session auto "$Q1M" "$LAST")
		hidden_gpu=$(in_session "$GPU" "$Q1M")
		pg_restart || fail "b: the restart back failed (see restarts.log)"
		back=$(in_session "$GPU" "$Q1M" "$LAST")
		rel_server_mark "$DB"
		ok=1
		[[ $hidden_auto == *"$cpu_1m"* && $hidden_auto == *cpu ]] || { ok=0; fail "b: auto without a device: $hidden_auto"; }
		[[ $hidden_gpu == *ERROR*"no usable GPU"* ]] || { ok=0; fail "b: gpu without a device: $hidden_gpu"; }
		[[ $back == *"$cpu_1m"* && $back == *"$GPU" ]] || { ok=0; fail "b: after the restart back: $back"; }
		((ok)) && note "b: CUDA_VISIBLE_DEVICES= : auto -> the CPU's answer (cpu); gpu -> $(grep -m1 ERROR <<<"$hidden_gpu" | cut -c1-160); restarted as before: the GPU's answer right"
	fi
fi

# --- c: cancel and terminate during GPU work -----------------------------------------
if has_step c; then
	# eps 1: about 600 neighbours a point.  On an H200 the GPU part of a
	# 2M-point run is still only about 30 ms of its 1 s (the rest is reading
	# and sorting rows), so many stops land after it ("runs ended first");
	# the GPU unit tests (Gpu*Cancel*) stop each device phase directly.
	if bash "$HERE/cancel.sh" --external --db "$DB" --backend "$GPU" --points 2000000 --times 50 \
		--in-clustering --eps 1 >"$OUT/cancel.log" 2>&1; then
		note "c: $(tail -n 1 "$OUT/cancel.log")"
	else
		fail "c: $(tail -n 3 "$OUT/cancel.log" | tr '\n' ' ')"
	fi
	# pg_terminate_backend at random points of the GPU work
	m0=$(smi_used)
	t0=$(rel_now)
	in_session "$GPU" "SELECT count(c) FROM (SELECT gpu_dbscan_read_floor(geom) OVER (ORDER BY id) AS c FROM rel_points_2000000) s" >/dev/null
	floor=$(rel_secs "$t0" "$(rel_now)")
	t0=$(rel_now)
	in_session "$GPU" "$Q2M" >/dev/null
	full=$(rel_secs "$t0" "$(rel_now)")
	terminated=0
	lats=()
	for _ in 1 2 3 4 5; do
		rel_session_start "$DB" || { fail "c: no session"; break; }
		rel_query "SET gpu_dbscan.backend = '$GPU';"
		rel_send "$Q2M"
		sleep "$(rel_rand "$floor" "$full")"
		tt=$(rel_now)
		rel_psql "$DB" -c "SELECT pg_terminate_backend($REL_PID)" >/dev/null
		rel_recv 30
		lats+=("$(rel_secs "$tt" "$(rel_now)")")
		[[ $REL_OUT == *"terminating connection due to administrator command"* || $REL_OUT == *"connection"* ]] &&
			terminated=$((terminated + 1))
		rel_session_stop
	done
	m1=$(settle_mem "$m0")
	crashed=no
	rel_server_restarted "$DB" && crashed="yes: $REL_RESTART_WHY"
	check=$(in_session "$GPU" "$(rel_check_query)")
	want=$(rel_check_answer "$DB" cpu)
	if [[ $crashed == no && $check == "$want" ]] && mem_back "$m0" "$m1"; then
		note "c: pg_terminate_backend during GPU work (from $floor s to $full s into a 2M-point run): $terminated/5 sessions ended, $(rel_stats "${lats[*]}"); the server stayed up, a new session's answer right, device memory $m0 -> $m1 MiB"
	else
		fail "c: pg_terminate_backend: server restarted: $crashed, check '$check' (want $want), device memory $m0 -> $m1 MiB"
	fi
fi

# --- d: the caps, then K sessions at once ---------------------------------------------
# set_conf NAME VALUE: ALTER SYSTEM SET (RESET for VALUE "reset") and a reload.
set_conf() {
	local sql="ALTER SYSTEM SET $1 = '$2'"
	[[ $2 == reset ]] && sql="ALTER SYSTEM RESET $1"
	rel_psql "$DB" -c "LOAD 'gpu_dbscan'" -c "$sql" -c "SELECT pg_reload_conf()" >/dev/null &&
		sleep 1
}
set_cap() { set_conf gpu_dbscan.max_device_memory "$1"; }
# the slot locks of gpu_slots.c: holders of a slot, and sessions in the line
SLOT_LOCKS="SELECT count(*) FILTER (WHERE objid >= 1 AND granted) || ' ' || count(*) FILTER (WHERE objid = 0 OR NOT granted) FROM pg_locks WHERE locktype = 'advisory' AND database = 0 AND objsubid = 18244"
if has_step d; then
	# 64MB: too little for 2M points in one piece (96 MB for the sort stage
	# alone), so the GPU back end clusters them in strips (cuda/strips.cu):
	# the CPU's answer, from the GPU.  1MB: not even one strip 6*eps wide
	# fits: gpu is a clear error naming the budget, auto the CPU's answer.
	cpu_2m=$(in_session cpu "$Q2M")
	set_cap 64MB || fail "d: ALTER SYSTEM"
	capped=$(in_session "$GPU" "SHOW gpu_dbscan.effective_device_memory_budget" "$Q2M" "$LAST")
	set_cap 1MB || fail "d: ALTER SYSTEM"
	tiny=$(in_session "$GPU" "$Q2M")
	tiny_auto=$(in_session auto "SET client_min_messages = notice" "$Q1M" "$LAST")
	if [[ $capped == 64MB*"$cpu_2m"*"$GPU" && $tiny == *ERROR*"1.0 MiB"* && $tiny_auto == *"$cpu_1m"* ]]; then
		note "d: cap 64MB: 2M points on the GPU in strips, the CPU's answer; cap 1MB: gpu -> $(grep -m1 ERROR <<<"$tiny" | cut -c1-200); auto -> the CPU's answer (ran on ${tiny_auto##*$'\n'})"
	else
		fail "d: cap 64MB: gpu gave '$capped' (want '$cpu_2m' from $GPU); cap 1MB: gpu gave '$tiny', auto gave '$tiny_auto'"
	fi
	set_cap 2GB || fail "d: ALTER SYSTEM"

	# One slot, held by the test-only probe of gpu_slots.c for 6 s: backend =
	# auto gives up after gpu_wait_timeout (NOTICE, the CPU's answer), backend
	# = gpu waits for the slot and gives the GPU's answer.
	set_conf gpu_dbscan.max_gpu_sessions 1 || fail "d: ALTER SYSTEM"
	rel_psql "$DB" -c "CREATE OR REPLACE FUNCTION public.gd_test_slot_probe(int, int) RETURNS float8
		AS '\$libdir/gpu_dbscan', 'gpu_dbscan_slot_probe' LANGUAGE C VOLATILE STRICT" >/dev/null
	"$REL_PSQL" -X -q -A -t -d "$DB" -c "SELECT gd_test_slot_probe(6000, -1)" >"$OUT/d-probe.log" 2>&1 &
	probe_pid=$!
	sleep 1
	held=$(rel_psql "$DB" -c "$SLOT_LOCKS")
	slot_auto=$(in_session auto "SET client_min_messages = notice" "SET gpu_dbscan.gpu_wait_timeout = '500ms'" "$Q1M" \
		"SELECT backend FROM gpu_dbscan_last_run()")
	slot_gpu=$(in_session "$GPU" "$Q1M" "SELECT backend || ' ' || round(slot_wait_ms) FROM gpu_dbscan_last_run()")
	wait "$probe_pid"
	rel_psql "$DB" -c "DROP FUNCTION public.gd_test_slot_probe(int, int)" >/dev/null
	gpu_wait=${slot_gpu##* }
	if [[ $held == "1 0" && $slot_auto == *"no GPU slot free"* && $slot_auto == *"$cpu_1m"* && $slot_auto == *cpu &&
		$slot_gpu == *"$cpu_1m"* && $slot_gpu == *"$GPU "* && $gpu_wait =~ ^[0-9]+$ && $gpu_wait -ge 1000 ]]; then
		note "d: max_gpu_sessions 1, the slot held 6 s by another session: auto (gpu_wait_timeout 500ms) -> $(grep -m1 'no GPU slot' <<<"$slot_auto" | cut -c1-120) and the CPU's answer; gpu -> waited $gpu_wait ms for the slot, the GPU's answer"
	else
		fail "d: max_gpu_sessions 1: slot locks '$held' (want '1 0'); auto gave '$slot_auto'; gpu gave '$slot_gpu' (want a wait >= 1000 ms)"
	fi

	# K sessions x 1M points for N s, at most GPU_SESSIONS of them on the GPU.
	set_conf gpu_dbscan.max_gpu_sessions "$GPU_SESSIONS" || fail "d: ALTER SYSTEM"
	m0=$(smi_used)
	# the device memory of an idle session that has used the GPU: its CUDA
	# context, which stays with the process (slots bound the runs, not these)
	rel_session_start "$DB" || fail "d: no session"
	rel_query "SET gpu_dbscan.backend = '$GPU'; $(rel_check_query)"
	sleep 1
	m_ctx=$(smi_used)
	rel_session_stop
	ctx=1024
	[[ $m0 =~ ^[0-9]+$ && $m_ctx =~ ^[0-9]+$ && $m_ctx -gt $m0 ]] && ctx=$((m_ctx - m0))
	deadline=$(awk -v n="$(rel_now)" -v s="$LOAD_SECONDS" 'BEGIN { printf "%.0f", n + s }')
	worker() {
		local i=$1 t0
		rel_session_start "$DB" || { echo "$i 0 no-session" >>"$OUT/load-$i.log"; return; }
		rel_query "SET gpu_dbscan.backend = '$GPU';"
		while awk -v n="$(rel_now)" -v d="$deadline" 'BEGIN { exit !(n < d) }'; do
			t0=$(rel_now)
			if ! rel_query "$Q1M SELECT backend || ' ' || slot_wait_ms FROM gpu_dbscan_last_run();" 600; then
				echo "$i 600 timeout" >>"$OUT/load-$i.log"
				break
			fi
			# session, seconds, md5, backend, ms waited for a slot
			echo "$i $(rel_secs "$t0" "$(rel_now)") ${REL_OUT//$'\n'/ }" >>"$OUT/load-$i.log"
		done
		rel_session_stop
	}
	rm -f "$OUT"/load-*.log
	t0=$(rel_now)
	workers=()
	for ((i = 1; i <= SESSIONS; i++)); do
		worker "$i" &
		workers+=($!)
	done
	peak=0
	max_holders=0
	max_line=0
	running() { local p; for p in "${workers[@]}"; do kill -0 "$p" 2>/dev/null && return 0; done; return 1; }
	: >"$OUT/d-samples.log"
	while running; do
		m=$(smi_used)
		[[ $m =~ ^[0-9]+$ && $m -gt $peak ]] && peak=$m
		read -r h q < <(rel_psql "$DB" -c "$SLOT_LOCKS" 2>/dev/null || echo "? ?")
		[[ $h =~ ^[0-9]+$ && $h -gt $max_holders ]] && max_holders=$h
		[[ $q =~ ^[0-9]+$ && $q -gt $max_line ]] && max_line=$q
		echo "$(rel_secs "$t0" "$(rel_now)") mem=${m:-?} holders=$h line=$q" >>"$OUT/d-samples.log"
		sleep 1
	done
	wait "${workers[@]}"
	secs=$(rel_secs "$t0" "$(rel_now)")
	m1=$(settle_mem "$m0")
	set_conf gpu_dbscan.max_gpu_sessions reset
	set_cap reset
	read -r total right wrong on_cpu maxlat maxwait meanwait < <(cat "$OUT"/load-*.log 2>/dev/null | awk -v want="$cpu_1m" -v gpu="$GPU" '
		{ n++; if ($3 == want) r++; else w++; if ($4 != gpu) c++; if ($2 > m) m = $2; if ($5 + 0 > mw) mw = $5 + 0; sw += $5 }
		END { printf "%d %d %d %d %.2f %.0f %.0f\n", n, r, w, c, m, mw, n ? sw / n : 0 }')
	# the fewest queries a session finished: each got its turns
	fewest=$(for ((i = 1; i <= SESSIONS; i++)); do
		cat "$OUT/load-$i.log" 2>/dev/null | awk -v w="$cpu_1m" '$3 == w { n++ } END { print n + 0 }'
	done | sort -n | head -1)
	bound=$((${m0:-0} + GPU_SESSIONS * 2048 + SESSIONS * (ctx + 64)))
	line="d: $SESSIONS sessions x 1M points on the GPU for $LOAD_SECONDS s (cap 2GB, max_gpu_sessions $GPU_SESSIONS): $total queries in $secs s, $right right, $wrong wrong or failed, $on_cpu not on $GPU, each session at least $fewest; slowest $maxlat s, slot waits mean $meanwait ms, max $maxwait ms; $(awk -v q="$total" -v s="$secs" 'BEGIN { printf "%.2f queries/s, %.1f M points/s", q / s, q / s }'); pg_locks every second: at most $max_holders slot holders, $max_line in the line; device memory $m0 MiB before, peak $peak MiB (bound $bound MiB: $GPU_SESSIONS x the 2GB cap + $SESSIONS x ($ctx MiB, an idle session's CUDA context, + 64)), $m1 MiB after"
	ok=1
	[[ $wrong -eq 0 && $total -gt 0 && $on_cpu -eq 0 && $fewest -gt 0 ]] || ok=0
	[[ $max_holders =~ ^[0-9]+$ && $max_holders -le $GPU_SESSIONS ]] || ok=0
	[[ $GPU_SESSIONS -eq 0 || $GPU == cpu || $max_holders -gt 0 ]] || ok=0
	if ((ok)) && [[ $m0 =~ ^[0-9]+$ && $peak -le $bound ]]; then
		note "$line"
	elif ((ok)) && [[ ! $m0 =~ ^[0-9]+$ ]]; then
		note "$line (no nvidia-smi: memory not checked)"
	else
		fail "$line"
		grep -v " $cpu_1m $GPU " "$OUT"/load-*.log | head -5 | tee -a "$SUMMARY"
	fi
fi

# --- e: 1000 queries in one session ----------------------------------------------------
if has_step e; then
	if bash "$HERE/leak.sh" --external --db "$DB" --backend "$GPU" >"$OUT/leak.log" 2>&1; then
		note "e: $(tail -n 1 "$OUT/leak.log")"
	else
		fail "e: $(tail -n 3 "$OUT/leak.log" | tr '\n' ' ')"
	fi
fi

# --- f: the core's differential fuzzer with the GPU path --------------------------------
if has_step f; then
	if [[ ! -f $ROOT/$CORE_BUILD/libgd_core.a && ! -f $CORE_BUILD/libgd_core.a ]]; then
		cmake -S "$ROOT" -B "$ROOT/$CORE_BUILD" -DCMAKE_BUILD_TYPE=Release -DGD_WITH_CUDA=ON \
			-DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc >"$OUT/core-build.log" 2>&1
	fi
	if bash "$ROOT/test/fuzz/core_diff.sh" --build "$CORE_BUILD" --gpu --seconds "$FUZZ_SECONDS" --max-n 60 \
		>"$OUT/core_diff.log" 2>&1 && grep -q ', gpu, sweep)' "$OUT/core_diff.log"; then
		note "f: $(tail -n 1 "$OUT/core_diff.log")"
	else
		fail "f: $(grep -m3 -E 'DIFF|FAILED|no usable' "$OUT/core_diff.log" | cut -c1-300 | tr '\n' ' ') $(tail -n 1 "$OUT/core_diff.log")"
	fi
fi

crashed=no
if rel_server_restarted "$DB"; then
	crashed=yes
	fail "the server crashed or restarted unexpectedly ($REL_RESTART_WHY)"
fi
note "nvidia-smi after: $(settle_mem "${mem_before:-0}") MiB used (before: ${mem_before:-?} MiB); crash-restart since the last deliberate restart (checkpointer pid, server log): $crashed; $(rel_secs "$t_all" "$(rel_now)") s in all"
if [[ $failed -eq 0 ]]; then note "== gpu_faults: all steps passed"; else note "== gpu_faults: FAILURES (logs in $OUT)"; fi
exit $failed
