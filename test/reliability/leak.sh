#!/usr/bin/env bash
# test/reliability/leak.sh — 1000 queries in one session: memory stays flat.
#
#   test/reliability/leak.sh [--queries N] [--backend B] [--db DB] [--external]
#                            [--max-growth-mb M]
#
# One session runs N queries (default 1000) of every kind, in a fixed
# mixed order: point clusterings of 1,000 to 200,000 rows, non-point rows,
# the aggregates, the sweep, n-D and geography points, queries that fail
# (a NaN coordinate, mixed SRIDs, a negative eps, a NaN in the last of
# 20,000 rows) and 200,000-point clusterings cancelled by a 30 ms
# statement_timeout.  The backend's resident memory (VmRSS of
# /proc/<pid>/status) is read every 100 queries (a whole number of turns of
# the query pattern, so that samples are alike); after a warm-up of the
# first 200 queries it may not grow by more than M MB (default 8).  With
# nvidia-smi on the PATH, the device memory in use is read at the same
# points and may not grow either.  Every answer of a query that should
# answer is checked against the first time that query ran.  Prints one
# summary line; exits nonzero on a failure.
#
#   --backend B   gpu_dbscan.backend (default cpu)
#   --external    use the server the PG* environment names (default: the
#                 throwaway server of scripts/lib.sh, started if need be)
set -uo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
QUERIES=1000
BACKEND=cpu
DB=gd_reliability
EXTERNAL=0
MAX_GROWTH_MB=8
while [[ $# -gt 0 ]]; do
	case $1 in
		--queries) QUERIES=$2; shift 2 ;;
		--backend) BACKEND=$2; shift 2 ;;
		--db) DB=$2; shift 2 ;;
		--external) EXTERNAL=1; shift ;;
		--max-growth-mb) MAX_GROWTH_MB=$2; shift 2 ;;
		-h | --help) sed -n '2,24p' "$0"; exit 0 ;;
		*) echo "leak: unknown argument $1" >&2; exit 2 ;;
	esac
done
# shellcheck source=test/reliability/lib.sh
. "$HERE/lib.sh"
if [[ $EXTERNAL -eq 0 ]]; then rel_throwaway_server || exit 1; fi
# shellcheck source=test/reliability/data.sh
. "$HERE/data.sh"

fail() { echo "leak (backend $BACKEND): FAILED: $*"; rel_session_stop; exit 1; }

rel_data_setup "$DB" 200000 || fail "data setup"
rel_server_mark "$DB"

# The kinds of query: answer (a), error (e) or cancelled (c), and the SQL.
kinds=(
	"a|SELECT count(c) FROM (SELECT gpu_dbscan(geom, 0.01, 5) OVER (ORDER BY id) AS c FROM rel_check WHERE id <= 1000) s;"
	"a|$(rel_check_query)"
	"a|SELECT count(c), count(DISTINCT c) FROM (SELECT gpu_dbscan(geom, 0.2, 5) OVER (ORDER BY id) AS c FROM rel_points_200000) s;"
	"a|SELECT count(c) FROM (SELECT gpu_dbscan(CASE WHEN id % 3 = 0 THEN ST_MakeLine(geom, ST_Translate(geom, 0.002, 0)) ELSE geom END, 0.01, 3) OVER (ORDER BY id) AS c FROM rel_check WHERE id <= 1000) s;"
	"a|SELECT md5(gpu_dbscan_agg(geom, 0.01, 5 ORDER BY id)::text) FROM rel_check WHERE id <= 5000;"
	"a|SELECT md5(array_agg(c::text ORDER BY id)::text) FROM (SELECT id, gpu_dbscan_sweep(geom, 0.01, '{2, 5, 10}') OVER (ORDER BY id) AS c FROM rel_check WHERE id <= 5000) s;"
	"a|SELECT md5(array_agg(c ORDER BY id)::text) FROM (SELECT id, gpu_dbscan(ARRAY[ST_X(geom), ST_Y(geom), 0], 0.01, 5) OVER (ORDER BY id) AS c FROM rel_check WHERE id <= 5000) s;"
	"a|SELECT md5(array_agg(c ORDER BY id)::text) FROM (SELECT id, gpu_dbscan(geom::geography, 1000, 5) OVER (ORDER BY id) AS c FROM rel_check WHERE id <= 2000) s;"
	"a|SELECT cardinality(gpu_dbscan_collect(geom, 0.01, 5 ORDER BY id)) FROM rel_check WHERE id <= 1000;"
	"a|SELECT md5(array_agg(c ORDER BY id)::text) FROM (SELECT id, gpu_dbscan_point_type(geom, 0.01, 5) OVER (ORDER BY id) AS c FROM rel_check WHERE id <= 3000) s;"
	"e|SELECT gpu_dbscan(g, 1, 2) OVER () FROM (VALUES ('POINT(0 0)'::geometry), (ST_MakePoint('NaN', 0))) v(g);"
	"e|SELECT gpu_dbscan(g, 1, 2) OVER () FROM (VALUES ('SRID=4326;POINT(0 0)'::geometry), ('SRID=3857;POINT(0 0)')) v(g);"
	"e|SELECT gpu_dbscan(geom, -1, 2) OVER () FROM rel_check WHERE id <= 10;"
	"e|SELECT count(c) FROM (SELECT gpu_dbscan(CASE WHEN id = 20000 THEN ST_MakePoint('NaN', 0) ELSE geom END, 0.01, 5) OVER (ORDER BY id) AS c FROM rel_check) s;"
	"c|SET statement_timeout = '30ms'; SELECT count(c) FROM (SELECT gpu_dbscan(geom, 0.2, 5) OVER (ORDER BY id) AS c FROM rel_points_200000) s; RESET statement_timeout;"
)
# The order: mostly small answers, with the big ones, errors and cancels spread.
pattern=(0 1 3 4 10 5 6 2 7 0 11 8 9 14 1 12 0 4 13 14)

rel_session_start "$DB" || fail "no session"
rel_query "SET gpu_dbscan.backend = '$BACKEND'; SET client_min_messages = warning;"
declare -A first
samples=()
dev_samples=()
ok=0 errors=0 cancelled=0 wrong=0
gpu_mem() { nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits 2>/dev/null | head -1; }
have_smi=0
command -v nvidia-smi >/dev/null 2>&1 && [[ -n $(gpu_mem) ]] && have_smi=1
t_start=$(rel_now)
for ((q = 1; q <= QUERIES; q++)); do
	k=${pattern[$(((q - 1) % ${#pattern[@]}))]}
	type=${kinds[$k]%%|*}
	sql=${kinds[$k]#*|}
	rel_query "$sql" 120 || fail "query $q (kind $k) did not return"
	if [[ $REL_OUT == *"server closed the connection"* || $REL_OUT == *"connection to server"* ]]; then
		fail "query $q (kind $k): the session was lost: $REL_OUT"
	fi
	case $type in
		a)
			if [[ $REL_OUT == *ERROR* ]]; then
				fail "query $q (kind $k) failed: $REL_OUT"
			elif [[ -z ${first[$k]:-} ]]; then
				first[$k]=$REL_OUT
			elif [[ ${first[$k]} != "$REL_OUT" ]]; then
				wrong=$((wrong + 1))
				echo "  query $q (kind $k): $REL_OUT, first time ${first[$k]}"
			fi
			ok=$((ok + 1))
			;;
		e)
			[[ $REL_OUT == *ERROR* ]] || fail "query $q (kind $k) should fail: $REL_OUT"
			errors=$((errors + 1))
			;;
		c)
			if [[ $REL_OUT == *"canceling statement due to statement timeout"* ]]; then
				cancelled=$((cancelled + 1))
			elif [[ $REL_OUT == *ERROR* ]]; then
				fail "query $q (kind $k): $REL_OUT"
			fi
			;;
	esac
	if ((q == 1 || q % 100 == 0)); then
		samples+=("$q:$(rel_rss_kb "$REL_PID")")
		((have_smi)) && dev_samples+=("$q:$(gpu_mem)")
	fi
done
secs=$(rel_secs "$t_start" "$(rel_now)")
[[ -n ${REL_VERBOSE:-} ]] && echo "rss samples (query:kB): ${samples[*]}"
rel_session_stop

# RSS in MB at 1, 200, 500 and the last query; growth from query 200 on.
summary=$(printf '%s\n' "${samples[@]}" | awk -F: -v warm=200 -v maxg="$MAX_GROWTH_MB" '
	$2 == "?" { unknown = 1; next }
	{ q[NR] = $1; kb[NR] = $2; n = NR }
	$1 == 1 { s1 = $2 } $1 == warm { sw = $2 } $1 == 500 { s500 = $2 }
	$1 >= warm { if ($2 > peak) peak = $2 }
	END {
		if (unknown || !sw) { print "unknown"; exit }
		g = (peak - sw) / 1024
		printf "%.1f, %.1f, %.1f, %.1f MB after 1, %d, 500, %d queries; growth after warm-up %.1f MB (limit %s)|%s",
			s1 / 1024, sw / 1024, s500 / 1024, kb[n] / 1024, warm, q[n], g, maxg, (g <= maxg) ? "ok" : "grew" }')
rss_ok=yes
if [[ $summary == unknown ]]; then
	rss_ok="unknown (no /proc/$REL_PID/status here)"
	rss_text="RSS not readable"
else
	rss_text=${summary%|*}
	[[ ${summary##*|} == ok ]] || rss_ok=no
fi
dev_text=
dev_ok=yes
if ((have_smi)); then
	dev_text=$(printf '%s\n' "${dev_samples[@]}" | awk -F: -v warm=200 '
		{ q[NR] = $1; mb[NR] = $2; n = NR } $1 == warm { sw = $2 } $1 >= warm { if ($2 > peak) peak = $2 }
		END { printf "; device memory %d MB after %d, %d MB after %d queries, peak after warm-up %d MB|%s",
			sw, warm, mb[n], q[n], peak, (peak - sw <= 64) ? "ok" : "grew" }')
	[[ ${dev_text##*|} == ok ]] || dev_ok=no
	dev_text=${dev_text%|*}
fi
restarted=no
rel_server_restarted "$DB" && restarted="YES ($REL_RESTART_WHY)"
echo "leak (backend $BACKEND): $QUERIES queries in one session in $secs s ($ok answered, $errors errors, $cancelled cancelled, $wrong answers changed); backend RSS $rss_text$dev_text; postmaster restarted: $restarted"
[[ $wrong -eq 0 && $rss_ok != no && $dev_ok == yes && $restarted == no ]]
