# test/reliability/lib.sh — helpers shared by the reliability scripts
# shellcheck shell=bash
# (cancel.sh, leak.sh, gpu_faults.sh).  Sourced, not run.  They talk to
# whatever server the PG* environment names (the throwaway server of
# scripts/lib.sh, or pgkit's on the GPU machine).
#
# A long-lived session is a psql coprocess: rel_session_start opens one,
# rel_send writes a statement without waiting, rel_recv reads its output up
# to an end marker (errors included, psql keeps going), rel_query does both.

REL_PSQL=${REL_PSQL:-psql}
REL_HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# rel_throwaway_server: use the throwaway server of scripts/lib.sh (started
# if need be) and its psql instead of what the PG* environment names.
rel_throwaway_server() {
	# shellcheck source=scripts/lib.sh
	. "$REL_HERE/../../scripts/lib.sh" || return 1
	gd_pg_start >/dev/null || return 1
	REL_PSQL=$GD_PGBIN/psql
	REL_PG_LOG=${REL_PG_LOG:-$GD_PGLOG}
}

# Crash watch.  A backend that dies of a signal makes the postmaster end
# every other process and reinitialise: pg_postmaster_start_time() stays
# the same, but the auxiliary processes are new, so the checkpointer's pid
# changes, and the server log says "terminated by signal" (or "exception").
#
# rel_server_mark DB: remembers the checkpointer's pid and where the server
# log (REL_PG_LOG, when readable) ends.  rel_server_restarted DB: status 0
# when the server crashed or restarted since the mark, with the evidence in
# REL_RESTART_WHY ("" otherwise).  Both wait up to 30 s for a server that is
# coming back.
rel_checkpointer_pid() {
	local i pid
	for ((i = 0; i < 60; i++)); do
		pid=$(rel_psql "$1" -c "SELECT pid FROM pg_stat_activity WHERE backend_type = 'checkpointer'" 2>/dev/null)
		[[ -n $pid ]] && { echo "$pid"; return 0; }
		sleep 0.5
	done
	echo "none"
}
rel_log_bytes() {
	if [[ -n ${REL_PG_LOG:-} && -r $REL_PG_LOG ]]; then stat -c %s "$REL_PG_LOG"; else echo ""; fi
}
rel_server_mark() {
	REL_MARK_CHECKPOINTER=$(rel_checkpointer_pid "$1")
	REL_MARK_LOG_BYTES=$(rel_log_bytes)
}
rel_server_restarted() {
	local now line why=()
	now=$(rel_checkpointer_pid "$1")
	[[ $now == "${REL_MARK_CHECKPOINTER:-}" ]] ||
		why+=("checkpointer pid ${REL_MARK_CHECKPOINTER:-unknown} -> $now")
	if [[ -n ${REL_MARK_LOG_BYTES:-} && -r ${REL_PG_LOG:-} ]]; then
		line=$(tail -c +"$((REL_MARK_LOG_BYTES + 1))" "$REL_PG_LOG" 2>/dev/null |
			grep -m1 -E 'terminated by (signal|exception)|server processes terminated; reinitializing')
		[[ -z $line ]] || why+=("server log: ${line:0:200}")
	fi
	REL_RESTART_WHY=$(printf '%s; ' "${why[@]}")
	REL_RESTART_WHY=${REL_RESTART_WHY%; }
	((${#why[@]} > 0))
}

# rel_now: wall-clock seconds with microseconds.
rel_now() { printf '%s\n' "${EPOCHREALTIME:-$(date +%s.%N)}"; }
# rel_secs A B: B - A, three decimals.
rel_secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }
# rel_rand LO HI: a random number in [LO, HI), three decimals.
rel_rand() { awk -v lo="$1" -v hi="$2" -v r="$RANDOM$RANDOM" 'BEGIN { srand(r); printf "%.3f", lo + rand() * (hi - lo) }'; }

# rel_psql DB ARGS...: one-shot psql, unaligned, no banner, stop on error.
rel_psql() {
	local db=$1
	shift
	"$REL_PSQL" -X -q -A -t -v ON_ERROR_STOP=1 -d "$db" "$@"
}

# rel_session_start DB: starts the session coprocess (REL_SESSION) and sets
# REL_PID to its backend's pid.
rel_session_start() {
	# a write to a session whose psql just died fails instead of killing us
	trap '' PIPE
	REL_EOF=0
	REL_TIMEOUT=0
	coproc REL_SESSION { "$REL_PSQL" -X -q -A -t -v ON_ERROR_STOP=0 -d "$1" 2>&1; }
	rel_query "SELECT pg_backend_pid();"
	REL_PID=${REL_OUT//[^0-9]/}
	[[ -n $REL_PID ]] || { echo "could not start a session: $REL_OUT" >&2; return 1; }
}

# rel_session_stop: ends the session (\q, or a kill when its last query
# timed out); nothing to write when it is gone already.
rel_session_stop() {
	if [[ -n ${REL_SESSION_PID:-} ]]; then
		if [[ ${REL_TIMEOUT:-0} -eq 1 ]]; then
			kill "$REL_SESSION_PID" 2>/dev/null
		elif [[ ${REL_EOF:-0} -eq 0 && -n ${REL_SESSION[1]:-} ]]; then
			{ printf '\\q\n' >&"${REL_SESSION[1]}"; } 2>/dev/null
		fi
		wait "$REL_SESSION_PID" 2>/dev/null
	fi
	REL_EOF=0
	REL_TIMEOUT=0
}

# rel_send SQL: sends SQL (one or more statements) and an end marker;
# returns 1 when the session is gone.
rel_send() {
	[[ ${REL_EOF:-0} -eq 0 && -n ${REL_SESSION[1]:-} ]] || return 1
	{ printf '%s\n\\echo __rel_end__\n' "$1" >&"${REL_SESSION[1]}"; } 2>/dev/null
}

# rel_recv [TIMEOUT]: reads up to the end marker into REL_OUT (lines joined
# by newlines).  Returns 1 when TIMEOUT seconds (default 600) pass first
# (REL_TIMEOUT=1) or the session ends (REL_EOF=1: psql exited, e.g. its
# backend was terminated; REL_OUT holds what it printed).
rel_recv() {
	local line rc t=${1:-600}
	REL_OUT=
	while :; do
		IFS= read -r -t "$t" -u "${REL_SESSION[0]:-99}" line 2>/dev/null
		rc=$?
		if ((rc != 0)); then
			if ((rc > 128)); then
				REL_TIMEOUT=1
			else
				REL_EOF=1
				REL_OUT+=$line
			fi
			REL_OUT=${REL_OUT%$'\n'}
			return 1
		fi
		if [[ $line == __rel_end__ ]]; then
			REL_OUT=${REL_OUT%$'\n'}
			return 0
		fi
		REL_OUT+=$line$'\n'
	done
}

# rel_query SQL [TIMEOUT]: rel_send, then rel_recv.
rel_query() {
	rel_send "$1" || { REL_OUT="(the session is gone)"; return 1; }
	rel_recv "${2:-600}"
}

# rel_rss_kb PID: the process's resident set (VmRSS, kB), or "?" when unreadable.
rel_rss_kb() { awk '/^VmRSS:/ { print $2; found = 1 } END { if (!found) print "?" }' "/proc/$1/status" 2>/dev/null || echo "?"; }

# rel_stats "v1 v2 ...": "n N, median M, p95 P, max X" of the numbers.
rel_stats() {
	tr ' ' '\n' <<<"$1" | grep . | sort -g | awk '{ v[NR] = $1 } END {
		if (NR == 0) { print "n 0"; exit }
		p50 = v[int((NR + 1) / 2)]; i95 = int(NR * 0.95 + 0.999); if (i95 < 1) i95 = 1
		printf "n %d, median %.3f s, p95 %.3f s, max %.3f s", NR, p50, v[i95], v[NR] }'
}
