#!/usr/bin/env bash
# test/reliability/gpu_faults.sh — issue 5 on a GPU machine: device faults,
# cancels, load and leaks, with one summary line per step.
#
# Run from the repository root after pgkit/install-on-device.sh and make
# install (the server of /opt/pgkit/pgkit.env; PGOPTIONS unset), e.g.
#   bash pgkit/install-on-device.sh >/tmp/pgkit.log 2>&1; . /opt/pgkit/pgkit.env;
#   make CORE_BUILD=build-gpu-dev install; bash test/reliability/gpu_faults.sh
#
#   test/reliability/gpu_faults.sh [--load-seconds N] [--sessions K] [--steps "a b c d e f"]
#                                  [--fuzz-seconds T] [--core-build DIR]
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
#   d    the cap: gpu_dbscan.max_device_memory = 64MB makes a 2M-point GPU
#        run fail with that budget; then K sessions (default 16) cluster 1M
#        points each on the GPU for N seconds (default 120) under a 2GB cap:
#        every answer the CPU's, device memory (nvidia-smi, every second)
#        bounded, throughput
#   e    leak.sh on the GPU: 1000 queries in one session, backend RSS and
#        device memory flat
#   f    test/fuzz/core_diff.sh --gpu for 60 s (--fuzz-seconds): random small
#        sets through the GPU and CPU paths against PostGIS's algorithm
#        emulated, 0 differences (against the core in --core-build DIR,
#        default build-gpu-dev, built with CUDA there when missing)
# nvidia-smi's memory before and after, and pg_postmaster_start_time()
# unchanged apart from step b's restarts.  Logs and summary.txt go to $OUT
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
STEPS="pre a b c d e f"
FUZZ_SECONDS=60
CORE_BUILD=build-gpu-dev
while [[ $# -gt 0 ]]; do
	case $1 in
		--load-seconds) LOAD_SECONDS=$2; shift 2 ;;
		--sessions) SESSIONS=$2; shift 2 ;;
		--steps) STEPS="pre $2"; shift 2 ;;
		--fuzz-seconds) FUZZ_SECONDS=$2; shift 2 ;;
		--core-build) CORE_BUILD=$2; shift 2 ;;
		-h | --help) sed -n '2,48p' "$0"; exit 0 ;;
		*) echo "gpu_faults: unknown argument $1" >&2; exit 2 ;;
	esac
done

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
start_time() { rel_psql "$DB" -c "SELECT pg_postmaster_start_time()" 2>/dev/null; }
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
		-c "SELECT pg_reload_conf()" >/dev/null 2>&1
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
started=$(start_time)
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
			[[ $warm_gpu == *ERROR* && $warm_gpu != *"server closed"* ]] || { ok=0; fail "a: gpu with the device full: $warm_gpu"; }
			[[ $warm_auto == *"$cpu_1m"* ]] || { ok=0; fail "a: auto with the device full: $warm_auto"; }
			[[ $fresh_auto == *"$cpu_1m"* ]] || { ok=0; fail "a: auto, fresh session, device full: $fresh_auto"; }
			[[ $fresh_gpu == *ERROR* ]] || { ok=0; fail "a: gpu, fresh session, device full: $fresh_gpu"; }
			[[ $after == *"$cpu_1m"* && $after == *"$GPU" ]] || { ok=0; fail "a: after the hog: $after"; }
			notice=no
			[[ $warm_auto == *"clustering on the CPU instead"* ]] && notice=yes
			((ok)) || cat "$OUT/a.log"
			((ok)) && note "a: hog ($held): session with a context: gpu -> $(grep -m1 ERROR <<<"$warm_gpu" | cut -c1-160); auto -> the CPU's answer (NOTICE: $notice, ran on ${warm_auto##*$'\n'}); fresh session: auto -> the CPU's answer (ran on ${fresh_auto##*$'\n'}), gpu -> $(grep -m1 ERROR <<<"$fresh_gpu" | cut -c1-120); hog gone: the GPU's answer right again; device memory $m0 -> $m1 MiB"
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
		started=$(start_time)
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
	now_started=$(start_time)
	check=$(in_session "$GPU" "$(rel_check_query)")
	want=$(rel_check_answer "$DB" cpu)
	if [[ $now_started == "$started" && $check == "$want" ]] && mem_back "$m0" "$m1"; then
		note "c: pg_terminate_backend during GPU work (from $floor s to $full s into a 2M-point run): $terminated/5 sessions ended, $(rel_stats "${lats[*]}"); the server stayed up, a new session's answer right, device memory $m0 -> $m1 MiB"
	else
		fail "c: pg_terminate_backend: server start $started -> $now_started, check '$check' (want $want), device memory $m0 -> $m1 MiB"
	fi
fi

# --- d: the cap, then K sessions at once -----------------------------------------------
set_cap() {
	rel_psql "$DB" -c "LOAD 'gpu_dbscan'" -c "ALTER SYSTEM SET gpu_dbscan.max_device_memory = '$1'" \
		-c "SELECT pg_reload_conf()" >/dev/null &&
		sleep 1
}
if has_step d; then
	set_cap 64MB || fail "d: ALTER SYSTEM"
	capped=$(in_session "$GPU" "SHOW gpu_dbscan.effective_device_memory_budget" "$Q2M")
	capped_auto=$(in_session auto "SET client_min_messages = notice" "$Q1M" "$LAST")
	if [[ $capped == 64MB*ERROR*"64.0 MiB"* && $capped_auto == *"$cpu_1m"* ]]; then
		note "d: cap 64MB: gpu -> $(grep -m1 ERROR <<<"$capped" | cut -c1-200); auto -> the CPU's answer (ran on ${capped_auto##*$'\n'})"
	else
		fail "d: cap 64MB: gpu gave '$capped', auto gave '$capped_auto'"
	fi
	set_cap 2GB || fail "d: ALTER SYSTEM"
	m0=$(smi_used)
	deadline=$(awk -v n="$(rel_now)" -v s="$LOAD_SECONDS" 'BEGIN { printf "%.0f", n + s }')
	worker() {
		local i=$1 t0
		rel_session_start "$DB" || { echo "$i 0 no-session" >>"$OUT/load-$i.log"; return; }
		rel_query "SET gpu_dbscan.backend = '$GPU';"
		while awk -v n="$(rel_now)" -v d="$deadline" 'BEGIN { exit !(n < d) }'; do
			t0=$(rel_now)
			if ! rel_query "$Q1M" 600; then
				echo "$i 600 timeout" >>"$OUT/load-$i.log"
				break
			fi
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
	running() { local p; for p in "${workers[@]}"; do kill -0 "$p" 2>/dev/null && return 0; done; return 1; }
	while running; do
		m=$(smi_used)
		[[ $m =~ ^[0-9]+$ && $m -gt $peak ]] && peak=$m
		sleep 1
	done
	wait "${workers[@]}"
	secs=$(rel_secs "$t0" "$(rel_now)")
	m1=$(settle_mem "$m0")
	rel_psql "$DB" -c "LOAD 'gpu_dbscan'" -c "ALTER SYSTEM RESET gpu_dbscan.max_device_memory" \
		-c "SELECT pg_reload_conf()" >/dev/null
	read -r total right wrong maxlat < <(cat "$OUT"/load-*.log 2>/dev/null | awk -v want="$cpu_1m" '
		{ n++; if ($3 == want) r++; else w++; if ($2 > m) m = $2 }
		END { printf "%d %d %d %.2f\n", n, r, w, m }')
	bound=$((${m0:-0} + SESSIONS * (2048 + 1024)))
	line="d: $SESSIONS sessions x 1M points on the GPU for $LOAD_SECONDS s (cap 2GB): $total queries in $secs s, $right right, $wrong wrong or failed, slowest $maxlat s; $(awk -v q="$total" -v s="$secs" 'BEGIN { printf "%.2f queries/s, %.1f M points/s", q / s, q / s }'); device memory $m0 MiB before, peak $peak MiB (bound $bound MiB: $SESSIONS x (cap + 1 GiB for a context)), $m1 MiB after"
	if [[ $wrong -eq 0 && $total -gt 0 && $m0 =~ ^[0-9]+$ && $peak -le $bound ]]; then
		note "$line"
	elif [[ $wrong -eq 0 && $total -gt 0 && ! $m0 =~ ^[0-9]+$ ]]; then
		note "$line (no nvidia-smi: memory not checked)"
	else
		fail "$line"
		grep -v " $cpu_1m\$" "$OUT"/load-*.log | head -5 | tee -a "$SUMMARY"
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

now_started=$(start_time)
[[ $now_started == "$started" ]] || fail "the postmaster restarted unexpectedly ($started -> $now_started)"
note "nvidia-smi after: $(settle_mem "${mem_before:-0}") MiB used (before: ${mem_before:-?} MiB); pg_postmaster_start_time() $([[ $now_started == "$started" ]] && echo unchanged || echo CHANGED) since the last deliberate restart; $(rel_secs "$t_all" "$(rel_now)") s in all"
if [[ $failed -eq 0 ]]; then note "== gpu_faults: all steps passed"; else note "== gpu_faults: FAILURES (logs in $OUT)"; fi
exit $failed
