#!/usr/bin/env bash
# test/fuzz/run.sh — libFuzzer on the GSERIALIZED decoder.
#
#   test/fuzz/run.sh [SECONDS]     (default 60)
#
# Builds build-fuzz/gserialized_fuzz with clang (-fsanitize=fuzzer,address,
# undefined) from src/gserialized_points.c, unchanged, and test/fuzz/pg_shim.c
# (the backend functions it calls), seeds build-fuzz/corpus/ from
# test/fuzz/seeds.hex (what PostGIS writes for every geometry type: see
# seeds.sql) and fuzzes for SECONDS.  The corpus is kept between runs.
# Ends with one line "fuzz gserialized: N execs in S s, C crashes, corpus K
# inputs" and exits nonzero on a crash, a sanitizer report, or a build
# failure; crashing inputs are left in build-fuzz/ (crash-*, leak-*, ...),
# to replay: build-fuzz/gserialized_fuzz build-fuzz/crash-...
# Knobs: CLANG (clang), GD_FUZZ_JOBS (1: libFuzzer -fork=N when more).
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
SECONDS_TO_RUN=${1:-60}
CLANG=${CLANG:-clang}
JOBS=${GD_FUZZ_JOBS:-1}
OUTDIR=$ROOT/build-fuzz
BIN=$OUTDIR/gserialized_fuzz
CORPUS=$OUTDIR/corpus
PG_CONFIG=${PG_CONFIG:-$(command -v pg_config || echo /usr/lib/postgresql/15/bin/pg_config)}
[[ -x $PG_CONFIG ]] || PG_CONFIG=/usr/lib/postgresql/15/bin/pg_config

die() { echo "fuzz gserialized: FAILED ($*)"; exit 1; }

command -v "$CLANG" >/dev/null 2>&1 || die "no $CLANG (apt-get install clang)"
mkdir -p "$OUTDIR" "$CORPUS"
INC=$("$PG_CONFIG" --includedir-server) || die "pg_config"
if ! "$CLANG" -g -O1 -Wno-ignored-attributes -fsanitize=fuzzer,address,undefined \
	-fno-sanitize-recover=undefined -ffp-contract=off \
	-I "$ROOT/src" -I "$ROOT/core" -I "$ROOT/test/fuzz" -I "$INC" \
	-o "$BIN" "$ROOT/test/fuzz/gserialized_fuzz.c" "$ROOT/test/fuzz/pg_shim.c" \
	"$ROOT/src/gserialized_points.c" >"$OUTDIR/build.log" 2>&1; then
	tail -20 "$OUTDIR/build.log"
	die "build, see $OUTDIR/build.log"
fi

# Seeds: one file per line of seeds.hex (named by line number, so reruns
# overwrite them rather than pile up).
n=0
while read -r hex; do
	[[ -n $hex ]] || continue
	n=$((n + 1))
	printf '%s' "$hex" | xxd -r -p >"$CORPUS/seed-$n"
done <"$ROOT/test/fuzz/seeds.hex"

log=$OUTDIR/fuzz.log
args=(-max_total_time="$SECONDS_TO_RUN" -max_len=4096 -timeout=10 -rss_limit_mb=2048
	-print_final_stats=1 -artifact_prefix="$OUTDIR/")
[[ $JOBS -gt 1 ]] && args+=(-fork="$JOBS")
t0=$(date +%s.%N)
(cd "$OUTDIR" && "$BIN" "${args[@]}" "$CORPUS") >"$log" 2>&1
rc=$?
secs=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.0f", b - a }')
# Execs: the final stats (one process), or the sum over fork jobs' lines.
execs=$(awk '/stat::number_of_executed_units:/ { s += $2 } END { print s + 0 }' "$log")
if [[ $execs -eq 0 ]]; then
	execs=$(grep -oE '#[0-9]+' "$log" | tail -1 | tr -d '#')
fi
crashes=$(find "$OUTDIR" -maxdepth 1 -newer "$BIN" \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \) | wc -l)
if grep -qE 'ERROR: (AddressSanitizer|UndefinedBehaviorSanitizer|LeakSanitizer|libFuzzer)|runtime error:' "$log"; then
	crashes=$((crashes > 0 ? crashes : 1))
fi
corpus=$(find "$CORPUS" -type f | wc -l)
echo "fuzz gserialized: ${execs:-0} execs in $secs s, $crashes crashes, corpus $corpus inputs"
if [[ $rc -ne 0 || $crashes -ne 0 ]]; then
	grep -E -A12 'ERROR: |runtime error:' "$log" | head -40
	echo "(log: $log)"
	exit 1
fi
