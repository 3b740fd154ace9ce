#!/usr/bin/env bash
# test/reliability/cancel.sh — cancelling a long clustering, again and again.
#
#   test/reliability/cancel.sh [--points N] [--times N] [--backend B] [--db DB]
#                              [--eps E] [--seed S] [--external]
#
# One session clusters N points (default 2,000,000) in one partition; it is
# stopped TIMES times (default 50), alternately by pg_cancel_backend from
# another connection after a random delay within the run and by a
# statement_timeout of 100 ms.  Each stop must take effect within 1 s (from
# the cancel request, or from the timeout), and the session's next query (a
# 20,000-point clustering) must give the answer a fresh session gives.  The
# postmaster must not restart.  Prints one summary line; exits nonzero on a
# failure.
#
#   --backend B   gpu_dbscan.backend for the runs (default cpu)
#   --in-clustering  stop every run at a random point after the rows are read
#                 (between the time of gpu_dbscan_read_floor over the same
#                 rows and that of a full run), by pg_cancel_backend and by a
#                 statement_timeout of that many ms in turn: for the GPU
#                 phases
#   --set NAME=VALUE  one more setting for the session (repeatable)
#   --external    use the server the PG* environment names (default: the
#                 throwaway server of scripts/lib.sh, started if need be)
#   --seed S      seeds the random delays (default 1)
# The data lives in DB (default gd_reliability): tables rel_points_N and
# rel_check, made on first use.
set -uo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
POINTS=2000000
TIMES=50
BACKEND=cpu
DB=gd_reliability
EPS=0.1
SEED=1
EXTERNAL=0
IN_CLUSTERING=0
SETS=()
while [[ $# -gt 0 ]]; do
	case $1 in
		--points) POINTS=$2; shift 2 ;;
		--times) TIMES=$2; shift 2 ;;
		--backend) BACKEND=$2; shift 2 ;;
		--db) DB=$2; shift 2 ;;
		--eps) EPS=$2; shift 2 ;;
		--seed) SEED=$2; shift 2 ;;
		--external) EXTERNAL=1; shift ;;
		--in-clustering) IN_CLUSTERING=1; shift ;;
		--set) SETS+=("$2"); shift 2 ;;
		-h | --help) sed -n '2,30p' "$0"; exit 0 ;;
		*) echo "cancel: unknown argument $1" >&2; exit 2 ;;
	esac
done
# shellcheck source=test/reliability/lib.sh
. "$HERE/lib.sh"
if [[ $EXTERNAL -eq 0 ]]; then rel_throwaway_server || exit 1; fi
# shellcheck source=test/reliability/data.sh
. "$HERE/data.sh"
RANDOM=$SEED

fail() { echo "cancel (backend $BACKEND): FAILED: $*"; rel_session_stop; exit 1; }

rel_data_setup "$DB" "$POINTS" || fail "data setup"
table=rel_points_$POINTS
big="SELECT count(c) FROM (SELECT gpu_dbscan(geom, $EPS, 5) OVER (ORDER BY id) AS c FROM $table) s;"
rel_server_mark "$DB"
want=$(rel_check_answer "$DB" "$BACKEND") || fail "the check query fails in a fresh session"

rel_session_start "$DB" || fail "no session"
rel_query "SET gpu_dbscan.backend = '$BACKEND'; SET client_min_messages = warning;"
for kv in "${SETS[@]}"; do
	rel_query "SET ${kv%%=*} = '${kv#*=}';"
	[[ $REL_OUT != *ERROR* ]] || fail "SET $kv: $REL_OUT"
done
# Two full runs: the first warms the caches (and creates a CUDA context),
# the second tells how long a run takes.
rel_query "$big" || fail "the first full run did not return"
t0=$(rel_now)
rel_query "$big" || fail "the full run did not return"
t1=$(rel_now)
[[ $REL_OUT =~ ^[0-9]+$ ]] || fail "the full run: $REL_OUT"
full=$(rel_secs "$t0" "$t1")
rel_query "SELECT backend FROM gpu_dbscan_last_run();"
ran_on=$REL_OUT
# The stops fall in [from, to] seconds into a run.
from=0.02
to=$(awk -v f="$full" 'BEGIN { printf "%.3f", f * 0.95 }')
if [[ $IN_CLUSTERING -eq 1 ]]; then
	t0=$(rel_now)
	rel_query "SELECT count(c) FROM (SELECT gpu_dbscan_read_floor(geom) OVER (ORDER BY id) AS c FROM $table) s;" ||
		fail "the read floor did not return"
	from=$(rel_secs "$t0" "$(rel_now)")
	to=$(awk -v f="$full" -v a="$from" 'BEGIN { t = f * 0.98; printf "%.3f", (t > a ? t : a) }')
fi

latencies=()
over=0
wrong=0
finished=0
by_cancel=0
by_timeout=0
for ((i = 1; i <= TIMES; i++)); do
	if ((i % 2)); then
		# pg_cancel_backend at a random point of the run
		delay=$(rel_rand "$from" "$to")
		t0=$(rel_now)
		rel_send "$big"
		sleep "$delay"
		rel_psql "$DB" -c "SELECT pg_cancel_backend($REL_PID)" >/dev/null || fail "pg_cancel_backend"
		tc=$(rel_now)
		rel_recv 30 || fail "run $i: no answer 30 s after pg_cancel_backend"
		t1=$(rel_now)
		lat=$(rel_secs "$tc" "$t1")
		what=cancel
	else
		ms=100
		[[ $IN_CLUSTERING -eq 1 ]] && ms=$(awk -v d="$(rel_rand "$from" "$to")" 'BEGIN { printf "%d", d * 1000 }')
		t0=$(rel_now)
		rel_query "SET statement_timeout = '${ms}ms'; $big RESET statement_timeout;" 30 ||
			fail "run $i: no answer 30 s after a $ms ms statement_timeout"
		t1=$(rel_now)
		lat=$(awk -v e="$(rel_secs "$t0" "$t1")" -v ms="$ms" 'BEGIN { l = e - ms / 1000; printf "%.3f", (l < 0 ? 0 : l) }')
		what=timeout
	fi
	if [[ $REL_OUT == *"server closed the connection"* || $REL_OUT == *"connection to server"* ]]; then
		fail "run $i ($what): the session was lost: $REL_OUT"
	elif [[ $REL_OUT == *"canceling statement due to"* ]]; then
		latencies+=("$lat")
		[[ $what == cancel ]] && by_cancel=$((by_cancel + 1)) || by_timeout=$((by_timeout + 1))
		if awk -v l="$lat" 'BEGIN { exit !(l > 1.0) }'; then
			over=$((over + 1))
			echo "  run $i ($what): took effect after $lat s"
		fi
	elif [[ $REL_OUT =~ ^[0-9]+$ ]]; then
		finished=$((finished + 1))	# the run ended before the cancel came
	else
		fail "run $i ($what): unexpected output: $REL_OUT"
	fi
	rel_query "$(rel_check_query)" 60 || fail "run $i: the next query did not return"
	if [[ $REL_OUT != "$want" ]]; then
		wrong=$((wrong + 1))
		echo "  run $i ($what): the next query gave $REL_OUT, want $want"
	fi
done
rel_session_stop
restarted=no
rel_server_restarted "$DB" && restarted="YES ($REL_RESTART_WHY)"

when="at random points"
[[ $IN_CLUSTERING -eq 1 ]] && when="at random points from $from s (rows read) to $to s"
tmo="statement_timeout 100 ms"
[[ $IN_CLUSTERING -eq 1 ]] && tmo="statement_timeout at random points"
echo "cancel (backend $BACKEND, ran on $ran_on, $POINTS points, a full run $full s, stops $when): $by_cancel pg_cancel_backend + $by_timeout $tmo took effect ($finished runs ended first); latency $(rel_stats "${latencies[*]}"); $over over 1 s; next query right $((TIMES - wrong))/$TIMES; postmaster restarted: $restarted"
[[ $over -eq 0 && $wrong -eq 0 && $restarted == no && ${#latencies[@]} -gt 0 ]]
