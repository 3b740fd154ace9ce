#!/usr/bin/env bash
# test/reliability/crash_watch.sh — the crash watch sees a crash.
#
#   test/reliability/crash_watch.sh [--db DB]
#
# Issue 11: pg_postmaster_start_time() does not change when a backend dies of
# a signal and the postmaster reinitialises, so checks built on it passed
# after crashes.  The reliability scripts and the pgTAP files now watch the
# checkpointer's pid (and the server log): rel_server_mark and
# rel_server_restarted in lib.sh, gd_test.checkpointer_pid() in
# test/pgtap/lib/server_watch.sql.  This script crashes the throwaway server
# of scripts/lib.sh on purpose (kill -SEGV of a backend of its own, which
# ends every session of that server: run nothing else against it meanwhile)
# and checks that
#   1. both watches fire, with the evidence (pids, the log line), while
#      pg_postmaster_start_time() stays the same;
#   2. the server is back and answers, and the watches are quiet when
#      nothing crashes.
# Prints one summary line; exits nonzero on a failure.  Only ever runs
# against the throwaway server.
set -uo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
DB=gd_reliability
while [[ $# -gt 0 ]]; do
	case $1 in
		--db) DB=$2; shift 2 ;;
		-h | --help) sed -n '2,21p' "$0"; exit 0 ;;
		*) echo "crash_watch: unknown argument $1" >&2; exit 2 ;;
	esac
done
# shellcheck source=test/reliability/lib.sh
. "$HERE/lib.sh"
rel_throwaway_server || exit 1

fail() { echo "crash watch: FAILED: $*"; rel_session_stop; exit 1; }

gd_createdb "$DB" >/dev/null || fail "createdb $DB"
PGOPTIONS="-c client_min_messages=warning" rel_psql "$DB" -f "$HERE/../pgtap/lib/server_watch.sql" >/dev/null || fail "server_watch.sql"
sql_ckpt() { rel_psql "$DB" -c "SELECT gd_test.checkpointer_pid()" 2>/dev/null; }
start_time() { rel_psql "$DB" -c "SELECT pg_postmaster_start_time()" 2>/dev/null; }
wait_ready() {
	local i
	for ((i = 0; i < 120; i++)); do
		rel_psql "$DB" -c "SELECT 1" >/dev/null 2>&1 && return 0
		sleep 0.5
	done
	return 1
}

# 1. a quiet spell: no false alarm
rel_server_mark "$DB"
ckpt0=$(sql_ckpt)
rel_psql "$DB" -c "SELECT count(*) FROM generate_series(1, 100000)" >/dev/null || fail "a query"
rel_server_restarted "$DB" && fail "false alarm without a crash: $REL_RESTART_WHY"
[[ $(sql_ckpt) == "$ckpt0" ]] || fail "gd_test.checkpointer_pid() changed without a crash"

# 2. a crash: a backend of our own session dies of SIGSEGV
started=$(start_time)
rel_session_start "$DB" || fail "no session"
victim=$REL_PID
rel_send "SELECT pg_sleep(60);"
sleep 0.3
kill -SEGV "$victim" 2>/dev/null || fail "could not signal backend $victim"
rel_recv 30
rel_session_stop
wait_ready || fail "the server did not come back within 60 s"
rel_server_restarted "$DB" || fail "the watch did not see the crash of backend $victim"
why=$REL_RESTART_WHY
ckpt1=$(sql_ckpt)
[[ -n $ckpt1 && $ckpt1 != "$ckpt0" ]] || fail "gd_test.checkpointer_pid() did not change ($ckpt0 -> $ckpt1)"
[[ $why == *"checkpointer pid"* ]] || fail "no checkpointer evidence: $why"
if [[ -r ${REL_PG_LOG:-} ]]; then
	[[ $why == *"terminated by signal"* ]] || fail "no server-log evidence: $why"
fi
same_start=no
[[ $(start_time) == "$started" ]] && same_start=yes

# 3. back to normal: the server answers, the watch is quiet again
rel_server_mark "$DB"
rel_psql "$DB" -c "SELECT count(*) FROM generate_series(1, 100000)" >/dev/null || fail "a query after the restart"
rel_server_restarted "$DB" && fail "false alarm after the restart: $REL_RESTART_WHY"

echo "crash watch: kill -SEGV of backend $victim seen ($why); gd_test.checkpointer_pid() $ckpt0 -> $ckpt1; pg_postmaster_start_time() unchanged: $same_start (blind); no false alarm before or after"
