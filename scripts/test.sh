#!/usr/bin/env bash
# scripts/test.sh — every test, on a fresh machine too.
#
#   1. scripts/setup.sh --no-demo: packages, build, install, the throwaway
#      server in tmp_pg/, the cities data set in cache/;
#   2. the core's unit tests (GoogleTest, ctest);
#   3. pg_regress: make installcheck against the throwaway server;
#   4. the pgTAP suite test/pgtap/*.sql with pg_prove, in a fresh database;
#   5. reliability (issue 5): the decoder fuzzer for 60 s (when clang is
#      there), the core's differential fuzzer (3000 seeded sets), 50 cancels
#      of a 2M-point clustering, 1000 queries in one session (memory flat),
#      the CPU unit tests under valgrind memcheck (about 6 minutes).
#
# Ends with one line "N passed, M failed" (the sum of each runner's own
# counts: ctest tests, pg_regress tests, pgTAP assertions; skipped tests are
# not counted as passed; a runner that cannot run, or dies, counts as at
# least one failure) and exits nonzero when anything failed.  Logs: log/.  With CI set, the server is stopped at the end.
#
#   --no-apt     do not look for missing Debian packages (also: GD_NO_APT=1)
#   GD_PROVE_JOBS=N   run N pgTAP files at once (default 1)
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

setup_args=(--no-demo)
for arg in "$@"; do
	case $arg in
		--no-apt) setup_args+=(--no-apt) ;;
		-h | --help) sed -n '2,21p' "$0"; exit 0 ;;
		*) gd_die "unknown argument $arg (see --help)" ;;
	esac
done

total_pass=0
total_fail=0
total_skip=0
summary=()

# record NAME PASSED FAILED SKIPPED SECONDS (skipped tests count as neither)
record() {
	total_pass=$((total_pass + $2))
	total_fail=$((total_fail + $3))
	total_skip=$((total_skip + $4))
	summary+=("$(printf '  %-28s %6s passed %4s failed %4s skipped %7s s' "$1" "$2" "$3" "$4" "$5")")
}

finish() {
	echo
	echo "== summary"
	printf '%s\n' "${summary[@]}"
	echo "$total_pass passed, $total_fail failed"
	if [[ -n ${CI:-} ]]; then
		gd_pg_stop
	fi
	[[ $total_fail -eq 0 ]]
	exit
}

mkdir -p "$GD_LOGDIR"
t_all=$(gd_now)

# --- 1. setup ------------------------------------------------------------------
echo "== setup (scripts/setup.sh ${setup_args[*]})"
t0=$(gd_now)
if ! bash "$GD_ROOT/scripts/setup.sh" "${setup_args[@]}"; then
	record "setup" 0 1 0 "$(gd_seconds_since "$t0")"
	finish
fi
record "setup" 0 0 0 "$(gd_seconds_since "$t0")"

# --- 2. unit tests -------------------------------------------------------------
echo
echo "== unit tests (ctest, $GD_BUILD_DIR/)"
t0=$(gd_now)
unit_pass=0
unit_fail=0
unit_skip=0
targets=$(cmake --build "$GD_ROOT/$GD_BUILD_DIR" --target help 2>/dev/null)
if [[ $targets != *gd_unit_tests* ]]; then
	echo "error: no gd_unit_tests target in $GD_BUILD_DIR (is libgtest-dev installed?)"
	unit_fail=1
elif ! gd_run_logged build-unit-tests cmake --build "$GD_ROOT/$GD_BUILD_DIR" \
	--target gd_unit_tests -j"$(nproc)"; then
	unit_fail=1
else
	(cd "$GD_ROOT/$GD_BUILD_DIR" && ctest --output-on-failure -j"$(nproc)") >"$GD_LOGDIR/ctest.log" 2>&1
	rc=$?
	line=$(grep -E 'tests passed, [0-9]+ tests? failed out of [0-9]+' "$GD_LOGDIR/ctest.log" | tail -n 1)
	# ctest counts skipped tests (GPU tests without a GPU) among the passed.
	unit_skip=$(grep -cE '^[[:space:]]*[0-9]+ - .*\(Skipped\)$' "$GD_LOGDIR/ctest.log")
	if [[ $line =~ ([0-9]+)\ tests?\ failed\ out\ of\ ([0-9]+) ]]; then
		unit_fail=${BASH_REMATCH[1]}
		unit_pass=$((BASH_REMATCH[2] - unit_fail - unit_skip))
	fi
	if [[ $rc -ne 0 ]]; then
		# Failures show their output; passes are in the log.
		grep -vE '^ *[0-9]+/[0-9]+ Test +#[0-9]+: .* Passed' "$GD_LOGDIR/ctest.log" | tail -n 200
		[[ $unit_fail -gt 0 ]] || unit_fail=1
	else
		grep -E 'tests passed|Total Test time' "$GD_LOGDIR/ctest.log"
		[[ $unit_skip -eq 0 ]] || echo "$unit_skip skipped (see log/ctest.log)"
	fi
fi
record "unit tests (ctest)" "$unit_pass" "$unit_fail" "$unit_skip" "$(gd_seconds_since "$t0")"

# --- 3. pg_regress -------------------------------------------------------------
echo
echo "== pg_regress (make installcheck)"
t0=$(gd_now)
reg_pass=0
reg_fail=0
shopt -s nullglob
reg_sql=("$GD_ROOT"/sql/*.sql)
if [[ ${#reg_sql[@]} -eq 0 ]]; then
	echo "no sql/*.sql: nothing to run"
else
	make -C "$GD_ROOT" installcheck CORE_BUILD="$GD_BUILD_DIR" PG_CONFIG="$PG_CONFIG" \
		>"$GD_LOGDIR/installcheck.log" 2>&1
	rc=$?
	grep -E '\.\.\. |tests? (passed|failed)' "$GD_LOGDIR/installcheck.log"
	reg_pass=$(grep -cE '\.\.\. ok' "$GD_LOGDIR/installcheck.log")
	reg_fail=$(grep -cE '\.\.\. FAILED|\.\.\. failed' "$GD_LOGDIR/installcheck.log")
	if [[ $rc -ne 0 ]]; then
		if [[ -f $GD_ROOT/regression.diffs ]]; then
			echo "--- regression.diffs (first 100 lines)"
			head -n 100 "$GD_ROOT/regression.diffs"
		else
			tail -n 30 "$GD_LOGDIR/installcheck.log"
		fi
		[[ $reg_fail -gt 0 ]] || reg_fail=1
	fi
fi
record "pg_regress (installcheck)" "$reg_pass" "$reg_fail" 0 "$(gd_seconds_since "$t0")"

# --- 4. pgTAP ------------------------------------------------------------------
echo
echo "== pgTAP (pg_prove test/pgtap/*.sql, database $GD_TEST_DB)"
t0=$(gd_now)
tap_pass=0
tap_fail=0
tap_skip=0
if ! gd_psql postgres -c "DROP DATABASE IF EXISTS \"$GD_TEST_DB\"" -c "CREATE DATABASE \"$GD_TEST_DB\"" ||
	! gd_psql "$GD_TEST_DB" -c 'CREATE EXTENSION postgis' -c 'CREATE EXTENSION pgtap' \
		-c 'CREATE EXTENSION gpu_dbscan'; then
	tap_fail=1
else
	# Verbose, to count skips; the passing assertions go to the log only.
	(cd "$GD_ROOT" && pg_prove --psql-bin "$GD_PGBIN/psql" -d "$GD_TEST_DB" --timer --verbose \
		-j "${GD_PROVE_JOBS:-1}" --set cities_file="$GD_CITIES_TSV" test/pgtap/*.sql) \
		2>&1 | tee "$GD_LOGDIR/pg_prove.log" | grep --line-buffered -vE '^ok [0-9]+ - |^1\.\.[0-9]+$'
	rc=${PIPESTATUS[0]}
	tap_skip=$(grep -cE '^ok [0-9]+ # SKIP' "$GD_LOGDIR/pg_prove.log")
	# Files=F, Tests=T gives the assertions run; the summary report lists
	# each file's failures and any plan that was not met.
	read -r tap_tests tap_failed tap_missing < <(awk '
		/^Files=[0-9]+, Tests=[0-9]+/ { sub(/.*Tests=/, ""); sub(/,.*/, ""); tests = $0 }
		/\(Wstat: [0-9]+.*Tests: [0-9]+ Failed: [0-9]+\)/ {
			s = $0; sub(/.*Failed: /, "", s); sub(/\).*/, "", s); failed += s }
		/You planned [0-9]+ tests? but ran [0-9]+/ {
			s = $0; sub(/.*You planned /, "", s); planned = s + 0
			sub(/.* but ran /, "", s); missing += planned - (s + 0) }
		/No plan found in TAP output/ { missing += 1 }
		END { printf "%d %d %d\n", tests, failed, missing }' "$GD_LOGDIR/pg_prove.log")
	tap_pass=$((tap_tests - tap_failed - tap_skip))
	tap_fail=$((tap_failed + tap_missing))
	if [[ $rc -ne 0 && $tap_fail -eq 0 ]]; then
		tap_fail=1
	fi
fi
record "pgTAP (pg_prove)" "$tap_pass" "$tap_fail" "$tap_skip" "$(gd_seconds_since "$t0")"

# --- 5. reliability (test/reliability/, test/fuzz/) ------------------------------
# Each check prints one summary line and counts as one test.
echo
echo "== reliability (fuzzers, cancels, leaks, valgrind)"
t0=$(gd_now)
rel_pass=0
rel_fail=0
rel_skip=0
rel_check() {  # rel_check NAME CMD...: runs CMD, logs to log/NAME.log, prints its last line
	local name=$1
	shift
	if "$@" >"$GD_LOGDIR/$name.log" 2>&1; then
		rel_pass=$((rel_pass + 1))
		tail -n 1 "$GD_LOGDIR/$name.log"
	else
		rel_fail=$((rel_fail + 1))
		echo "FAILED: $name (log/$name.log):"
		tail -n 15 "$GD_LOGDIR/$name.log"
	fi
}
if command -v clang >/dev/null 2>&1; then
	rel_check fuzz-gserialized bash "$GD_ROOT/test/fuzz/run.sh" 60
else
	echo "fuzz gserialized: skipped (no clang)"
	rel_skip=$((rel_skip + 1))
fi
rel_check core-diff bash "$GD_ROOT/test/fuzz/core_diff.sh" --build "$GD_BUILD_DIR" --sets 3000 --seed 1
rel_check cancel bash "$GD_ROOT/test/reliability/cancel.sh"
rel_check leak bash "$GD_ROOT/test/reliability/leak.sh"
rel_check crash-watch bash "$GD_ROOT/test/reliability/crash_watch.sh"
if command -v valgrind >/dev/null 2>&1; then
	rel_check valgrind bash "$GD_ROOT/test/reliability/valgrind.sh"
else
	echo "valgrind: skipped (not installed)"
	rel_skip=$((rel_skip + 1))
fi
record "reliability" "$rel_pass" "$rel_fail" "$rel_skip" "$(gd_seconds_since "$t0")"

summary+=("$(printf '  %-28s %6s passed %4s failed %4s skipped %7s s' "all" \
	"$total_pass" "$total_fail" "$total_skip" "$(gd_seconds_since "$t_all")")")
finish
