#!/usr/bin/env bash
# scripts/test.sh — every test, on a fresh machine too.
#
# Stages, in order (each prints a line when it starts, with the time it
# usually takes on the 2-core machine, and one when it ends):
#   setup        scripts/setup.sh --no-demo: packages, build, install, the
#                throwaway server in tmp_pg/, the cities data set in cache/
#   unit         the core's unit tests (GoogleTest, ctest)
#   regress      pg_regress: make installcheck against the throwaway server
#   pgtap        the pgTAP suite test/pgtap/*.sql with pg_prove, in a fresh
#                database
#   docs         every ```sql block of README.md against the demo database
#                (test/docs/run.sh)
#   upgrade      CREATE EXTENSION ... VERSION '0.1', views, functions and
#                aggregates' users on it, ALTER EXTENSION ... UPDATE: the
#                same answers (test/upgrade/run.sh)
#   cron         a pg_cron job re-clusters a table, run by pg_cron itself on
#                a second throwaway server (test/cron/run.sh; it waits for
#                pg_cron's next minute, so it starts right after setup, in
#                the background, and its stage collects it)
#   progress     gpu_dbscan_progress() watched from a second session during
#                a long run (test/progress/run.sh)
#   package      the Debian package: built, installed with apt in place of
#                the source-built files, CREATE EXTENSION and pg_regress
#                against it, purged (nothing left), then the source build
#                installed again (test/package/run.sh)
#   citus        a loopback Citus cluster (coordinator + 2 workers on
#                127.0.0.1, Citus from ../shared/citus/): pushed-down calls
#                and gpu_dbscan_distributed give the single node's ids,
#                settings reach the workers, a worker stopped mid-run is a
#                clean error (test/citus/run.sh; skipped, with the reason,
#                where Citus cannot be installed or started)
#   reliability  the decoder fuzzer (when clang is there), the core's
#                differential fuzzer, repeated cancels, 500 queries in one
#                session (memory flat), the CPU unit tests under valgrind;
#                bounded: GD_LONG=1 runs the long forms (below)
#
# Ends with one line "N passed, M failed" (the sum of each runner's own
# counts: ctest tests, pg_regress tests, pgTAP assertions, the ok/not ok
# lines of the stage scripts, one per reliability check; skipped tests are
# not counted as passed; a runner that cannot run, or dies, counts as at
# least one failure) and exits nonzero when anything failed.  Logs: log/.
# The peak resident memory of every process the tests start (and of the
# throwaway server's backends) is watched; a process above GD_MEM_LIMIT_MB
# (4096) is a failure.  With CI set, the server is stopped at the end.
#
#   --no-apt          do not look for missing Debian packages (also: GD_NO_APT=1)
#   GD_STAGES="a b"   run these stages only (default: all, in the order above)
#   GD_LONG=1         the long reliability runs: the decoder fuzzer 60 s (not
#                     20), 3000 differential sets (not 1000), 50 cancels (not
#                     10), 1000 queries (not 500), every CPU unit test under
#                     valgrind (not the smoke set); about 10 more minutes
#   GD_PROVE_JOBS=N   run N pgTAP files at once (default 1)
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

setup_args=(--no-demo)
for arg in "$@"; do
	case $arg in
		--no-apt) setup_args+=(--no-apt) ;;
		-h | --help) sed -n '2,50p' "$0"; exit 0 ;;
		*) gd_die "unknown argument $arg (see --help)" ;;
	esac
done

ALL_STAGES="setup unit regress pgtap docs upgrade cron progress package citus reliability"
STAGES=${GD_STAGES:-$ALL_STAGES}
for s in $STAGES; do
	[[ " $ALL_STAGES " == *" $s "* ]] || gd_die "unknown stage $s in GD_STAGES (stages: $ALL_STAGES)"
done
LONG=${GD_LONG:-0}
MEM_LIMIT_MB=${GD_MEM_LIMIT_MB:-4096}

# Seconds each stage usually takes on the 2-core CI machine (no GPU, nvcc
# present, nothing else running), for the start lines and README.md.
declare -A EXPECT=(
	[setup]=150 [unit]=125 [regress]=15 [pgtap]=150 [docs]=30 [upgrade]=10
	[cron]=10 [progress]=15 [package]=45 [citus]=60 [reliability]=320
)
((LONG)) && EXPECT[reliability]=900

total_pass=0
total_fail=0
total_skip=0
summary=()
n_stages=$(wc -w <<<"$STAGES")
stage_no=0
stage_name=
stage_t0=

has_stage() { [[ " $STAGES " == *" $1 "* ]]; }

# stage NAME WHAT: the start line.
stage() {
	stage_no=$((stage_no + 1))
	stage_name=$1
	stage_t0=$(gd_now)
	echo
	printf '== [%d/%d] %s: %s (usually ~%s s; %s s so far)\n' "$stage_no" "$n_stages" "$1" "$2" \
		"${EXPECT[$1]}" "$(gd_seconds_since "$t_all")"
	gd_memwatch_stage "$1"
}

# record PASSED FAILED SKIPPED: the end line of the current stage, and its
# line in the summary (skipped tests count as neither passed nor failed).
record() {
	local secs
	secs=$(gd_seconds_since "$stage_t0")
	total_pass=$((total_pass + $1))
	total_fail=$((total_fail + $2))
	total_skip=$((total_skip + $3))
	printf -- '-- %s: %s passed, %s failed, %s skipped in %s s\n' "$stage_name" "$1" "$2" "$3" "$secs"
	summary+=("$(printf '  %-12s %6s passed %4s failed %4s skipped %7s s   peak %s' "$stage_name" \
		"$1" "$2" "$3" "$secs" "$(gd_memwatch_peak "$stage_name")")")
}

finish() {
	gd_memwatch_stop
	local over
	over=$(gd_memwatch_over "$MEM_LIMIT_MB")
	echo
	echo "== summary (peak: the largest resident set of one process in the stage)"
	printf '%s\n' "${summary[@]}"
	if [[ -n $over ]]; then
		echo "memory: processes above $MEM_LIMIT_MB MB (log/memory.log):"
		echo "$over"
		total_fail=$((total_fail + 1))
	fi
	printf '  %-12s %6s passed %4s failed %4s skipped %7s s\n' "all" \
		"$total_pass" "$total_fail" "$total_skip" "$(gd_seconds_since "$t_all")"
	echo "$total_pass passed, $total_fail failed"
	if [[ -n ${CI:-} ]]; then
		gd_pg_stop
	fi
	[[ $total_fail -eq 0 ]]
	exit
}

# script_stage SCRIPT ARGS...: a stage script that prints "ok - ..." and
# "not ok - ..." lines (and anything else); its lines are shown as they
# come, and counted.  A script that fails without a "not ok" line counts
# one failure.
script_stage() {
	local log=$GD_LOGDIR/$stage_name.log
	bash "$@" 2>&1 | tee "$log" | grep --line-buffered -vE '^#'
	script_stage_count "${PIPESTATUS[0]}" "$log"
}
# script_stage_collect RC LOG: the same for a script that ran in the background.
script_stage_collect() {
	grep -vE '^#' "$2"
	script_stage_count "$1" "$2"
}
script_stage_count() {
	local name=$stage_name rc=$1 log=$2
	local p f s
	p=$(grep -cE '^ok ' "$log")
	f=$(grep -cE '^not ok ' "$log")
	s=$(grep -cE '^skip ' "$log")
	p=$((p)) f=$((f)) s=$((s))
	if [[ $rc -ne 0 && $f -eq 0 ]]; then
		echo "$name: exit status $rc (log/$name.log)"
		f=1
	fi
	record "$p" "$f" "$s"
}

mkdir -p "$GD_LOGDIR"
t_all=$(gd_now)
gd_memwatch_start $$
echo "gpu_dbscan tests: stages $STAGES$( ((LONG)) && echo ' (GD_LONG=1: long reliability runs)')"
expected=0
for s in $STAGES; do expected=$((expected + EXPECT[$s])); done
echo "usually about $((expected / 60)) min on the 2-core machine; logs in log/"

# --- setup ---------------------------------------------------------------------
if has_stage setup; then
	stage setup "scripts/setup.sh ${setup_args[*]}"
	if ! bash "$GD_ROOT/scripts/setup.sh" "${setup_args[@]}"; then
		record 0 1 0
		finish
	fi
	record 0 0 0
fi

# The pg_cron test waits for pg_cron's next minute: it starts now, in the
# background, and its stage below collects it.
cron_pid=
if has_stage cron; then
	bash "$GD_ROOT/test/cron/run.sh" >"$GD_LOGDIR/cron.log" 2>&1 &
	cron_pid=$!
fi

# --- unit tests ----------------------------------------------------------------
if has_stage unit; then
	stage unit "ctest in $GD_BUILD_DIR/"
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
	record "$unit_pass" "$unit_fail" "$unit_skip"
fi

# --- pg_regress ----------------------------------------------------------------
if has_stage regress; then
	stage regress "make installcheck (sql/*.sql)"
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
	record "$reg_pass" "$reg_fail" 0
fi

# --- pgTAP ---------------------------------------------------------------------
if has_stage pgtap; then
	stage pgtap "pg_prove test/pgtap/*.sql in database $GD_TEST_DB"
	tap_pass=0
	tap_fail=0
	tap_skip=0
	if ! gd_psql postgres -c "DROP DATABASE IF EXISTS \"$GD_TEST_DB\"" -c "CREATE DATABASE \"$GD_TEST_DB\"" ||
		! gd_psql "$GD_TEST_DB" -c 'CREATE EXTENSION postgis' -c 'CREATE EXTENSION pgtap' \
			-c 'CREATE EXTENSION gpu_dbscan'; then
		tap_fail=1
	else
		# Verbose, to count skips; the passing assertions go to the log only,
		# one line per file (with its time) to the screen.
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
	record "$tap_pass" "$tap_fail" "$tap_skip"
fi

# --- the README's examples, the upgrade, pg_cron, progress, the package ------------
if has_stage docs; then
	stage docs "README.md's sql blocks against database $GD_DEMO_DB"
	script_stage "$GD_ROOT/test/docs/run.sh"
fi
if has_stage upgrade; then
	stage upgrade "0.1 -> ALTER EXTENSION gpu_dbscan UPDATE, views keep their answers"
	script_stage "$GD_ROOT/test/upgrade/run.sh"
fi
if has_stage cron; then
	stage cron "a pg_cron job re-clusters a table (second server, port $((GD_PGPORT + 100)); started after setup)"
	wait "$cron_pid"
	cron_rc=$?
	script_stage_collect "$cron_rc" "$GD_LOGDIR/cron.log"
fi
if has_stage progress; then
	stage progress "gpu_dbscan_progress() from a second session during a long run"
	script_stage "$GD_ROOT/test/progress/run.sh"
fi
if has_stage package; then
	stage package "build the .deb, apt install it, test it, purge it, reinstall the source build"
	script_stage "$GD_ROOT/test/package/run.sh"
fi
if has_stage citus; then
	stage citus "a loopback Citus cluster: pushdown and gpu_dbscan_distributed against the single node"
	script_stage "$GD_ROOT/test/citus/run.sh"
fi

# --- reliability (test/reliability/, test/fuzz/) ----------------------------------
# Each check prints one summary line and counts as one test.
if has_stage reliability; then
	if ((LONG)); then
		fuzz_secs=60 diff_sets=3000 cancels=50 queries=1000 valgrind_args=()
	else
		fuzz_secs=20 diff_sets=1000 cancels=10 queries=500 valgrind_args=(--smoke)
	fi
	stage reliability "fuzzers, cancels, leaks, valgrind$( ((LONG)) && echo ' (long forms)')"
	rel_pass=0
	rel_fail=0
	rel_skip=0
	rel_check() {  # rel_check NAME CMD...: runs CMD, logs to log/NAME.log, prints its last line
		local name=$1 t0
		shift
		t0=$(gd_now)
		printf '%s ... ' "$name"
		if "$@" >"$GD_LOGDIR/$name.log" 2>&1; then
			rel_pass=$((rel_pass + 1))
			echo "ok ($(gd_seconds_since "$t0") s)"
			tail -n 1 "$GD_LOGDIR/$name.log"
		else
			rel_fail=$((rel_fail + 1))
			echo "FAILED ($(gd_seconds_since "$t0") s; log/$name.log):"
			tail -n 15 "$GD_LOGDIR/$name.log"
		fi
	}
	if command -v clang >/dev/null 2>&1; then
		rel_check fuzz-gserialized bash "$GD_ROOT/test/fuzz/run.sh" "$fuzz_secs"
	else
		echo "fuzz gserialized: skipped (no clang)"
		rel_skip=$((rel_skip + 1))
	fi
	rel_check core-diff bash "$GD_ROOT/test/fuzz/core_diff.sh" --build "$GD_BUILD_DIR" --sets "$diff_sets" --seed 1
	rel_check cancel bash "$GD_ROOT/test/reliability/cancel.sh" --times "$cancels"
	rel_check leak bash "$GD_ROOT/test/reliability/leak.sh" --queries "$queries"
	rel_check crash-watch bash "$GD_ROOT/test/reliability/crash_watch.sh"
	if command -v valgrind >/dev/null 2>&1; then
		rel_check valgrind bash "$GD_ROOT/test/reliability/valgrind.sh" "${valgrind_args[@]}"
	else
		echo "valgrind: skipped (not installed)"
		rel_skip=$((rel_skip + 1))
	fi
	record "$rel_pass" "$rel_fail" "$rel_skip"
fi

finish
