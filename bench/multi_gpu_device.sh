#!/usr/bin/env bash
# multi_gpu_device.sh — several GPUs (gpu_dbscan.devices) on a GPU machine, in
# one device call: the multi-device unit tests, the pgTAP file with a GPU,
# and gd_bench --devices.  Logs go to $OUT (default ./multi_gpu_out).
#
#   BUILD=build-mg STAGES="unit pg bench" bash bench/multi_gpu_device.sh
#
# BUILD is a CMake build folder with gd_unit_tests, gd_bench and libgd_core.a
# (built beforehand with CUDA and carried, or built here when its binaries do
# not run).  Knobs: DEVICES (default 0,0 on one GPU, all where there are
# several), BENCH_ARGS (default 100M uniform and blobs, eps 1, 2 runs),
# FILTER (gtest filter), STAGES (unit pg bench billion).  billion: 10^9 points
# from host arrays, one GPU in one call of gd_cluster_points (strips) against
# the device list, one run each (BILLION_ARGS).
set -uo pipefail
OUT=${OUT:-$PWD/multi_gpu_out}
BUILD=${BUILD:-build-mg}
STAGES=${STAGES:-unit pg bench}
FILTER=${FILTER:-DeviceList*:*GpuDevices*:*GpuStrips*}  # (*: the parameterised Random/...)
mkdir -p "$OUT"
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s)
stamp() { echo "[$(($(date +%s) - t0)) s] $*" | tee -a "$OUT/summary.log"; }
has() { [[ " $STAGES " == *" $1 "* ]]; }

nvidia-smi --query-gpu=index,name,memory.total,driver_version --format=csv,noheader >"$OUT/summary.log" 2>&1
ngpu=$(nvidia-smi -L 2>/dev/null | wc -l)
DEVICES=${DEVICES:-$([[ $ngpu -gt 1 ]] && echo all || echo 0,0)}
stamp "$ngpu GPU(s); devices $DEVICES; stages $STAGES"

# PostgreSQL (pgkit) in the background while the unit tests run.
pg_pid=
if has pg && [[ -d pgkit ]]; then
	PGKIT_SMOKE=0 bash pgkit/install-on-device.sh >"$OUT/pg.log" 2>&1 &
	pg_pid=$!
fi

if ! "$BUILD/gd_unit_tests" --gtest_list_tests >/dev/null 2>&1; then
	stamp "carried binaries do not run here: building"
	[[ -n $pg_pid ]] && wait "$pg_pid" && . /opt/pgkit/pgkit.env && pg_pid=
	cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DGD_WITH_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90-real \
		>"$OUT/build.log" 2>&1 && cmake --build "$BUILD" -j16 --target gd_unit_tests gd_bench >>"$OUT/build.log" 2>&1 ||
		{ stamp "build failed"; tail -30 "$OUT/build.log" >>"$OUT/summary.log"; }
fi

if has unit; then
	timeout 240 "$BUILD/gd_unit_tests" --gtest_filter="$FILTER" >"$OUT/unit.log" 2>&1
	stamp "unit ($FILTER) rc $?: $(grep -E '^\[  (PASSED|FAILED) ' "$OUT/unit.log" | tr '\n' ' ')$(grep -cE '^\[  SKIPPED \] [A-Z]' "$OUT/unit.log") skipped"
	grep -E '^\[  FAILED  \] [A-Z]' "$OUT/unit.log" | sort -u | head -20 | tee -a "$OUT/summary.log"
fi

if [[ -n $pg_pid ]]; then
	if wait "$pg_pid"; then
		. /opt/pgkit/pgkit.env
		stamp "pgkit installed"
		mk() { make CORE_BUILD="$BUILD" CMAKE=true WITH_CUDA=yes PG_CONFIG="$(command -v pg_config)" "$@"; }
		if { mk -j16 && mk install; } >>"$OUT/pg.log" 2>&1; then
			createdb gd_mg >>"$OUT/pg.log" 2>&1
			timeout 200 pg_prove -d gd_mg test/pgtap/90_devices.sql test/pgtap/50_backends.sql >"$OUT/pgtap.log" 2>&1
			stamp "pgTAP 90_devices, 50_backends rc $?: $(grep -E '^Result|^Files=|^#' "$OUT/pgtap.log" | tr '\n' ' ')"
			grep -E '^not ok|^# +(Failed|got|expected)' "$OUT/pgtap.log" | head -20 | tee -a "$OUT/summary.log"
		else
			stamp "extension build failed"
			tail -20 "$OUT/pg.log" >>"$OUT/summary.log"
		fi
	else
		stamp "pgkit install failed"
		tail -20 "$OUT/pg.log" >>"$OUT/summary.log"
	fi
fi

if has bench; then
	# shellcheck disable=SC2086
	timeout 300 "$BUILD/gd_bench" --devices "$DEVICES" ${BENCH_ARGS:---sizes 100M --datasets uniform,blobs --eps 1 --runs 2} \
		>"$OUT/bench.md" 2>"$OUT/bench.err"
	stamp "bench rc $?"
	grep -E '^\||^- (GPU|CPU|date)' "$OUT/bench.md" | tee -a "$OUT/summary.log"
	grep -E '^  (one|list)' "$OUT/bench.err" | tee -a "$OUT/summary.log"
fi

# The billion gets what is left of LIMIT seconds (default 550, under the
# device tool's 600), so that the logs always come back.
left=$((${LIMIT:-550} - ($(date +%s) - t0)))
if has billion && [[ $left -lt 60 ]]; then
	stamp "billion skipped: $left s left"
elif has billion; then
	stamp "billion: $left s left"
	# shellcheck disable=SC2086
	timeout "$left" "$BUILD/gd_bench" --devices "$DEVICES" ${BILLION_ARGS:---sizes 1000M --datasets uniform --eps 1 --runs 1} \
		>"$OUT/billion.md" 2>"$OUT/billion.err"
	stamp "billion rc $?"
	grep -E '^\||^- (GPU|CPU|date)' "$OUT/billion.md" | tee -a "$OUT/summary.log"
	grep -E '^  (one|list)' "$OUT/billion.err" | tee -a "$OUT/summary.log"
	free -g >>"$OUT/summary.log"
fi
stamp "done"
