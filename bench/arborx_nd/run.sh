#!/usr/bin/env bash
# bench/arborx_nd/run.sh — ArborX 2.1's DBSCAN on gd_bench's 3-D points
# (arborx_bench_nd), then its labels against our exact answer (compare_nd).
# From the repository root; every argument goes to both programs:
#
#   ANCHORS=anchors bash bench/arborx_nd/run.sh --sizes 1M,10M --datasets uniform,blobs --eps 0.5,1,2 --runs 2
#
# Build: the anchors' build_and_run.sh with BUILD_ONLY=1 unpacks ArborX to
# $BUILD_ROOT/src/arborx-2.1 and installs Kokkos in $BUILD_ROOT/kokkos-<tag>
# (tag cuda-$KOKKOS_ARCH, openmp or serial; it also builds its own 2-D driver,
# in the background); meanwhile compare_nd is built against the core, and the
# driver as soon as Kokkos is installed. Run: the driver (labels to
# $BUILD_ROOT/nd-labels), compare_nd, the points' fingerprints diffed.
#
# Environment (all optional):
#   DIMS          the points' dimension (default 3; the driver is built for one)
#   ANCHORS       the anchors folder (arborx_bench/, the tarballs): default ./anchors, else ../shared/anchors
#   BACKEND KOKKOS_ARCH BUILD_ROOT JOBS CUDA_HOME   as build_and_run.sh's (cuda, HOPPER90, /tmp/arborx_bench, nproc)
#   GD_CORE       libgd_core.a for compare_nd (default: the core built CPU-only in $BUILD_ROOT/gd-core-cpu)
#   GD_CORE_LIBS  its extra link flags (a core built with CUDA: -L/usr/local/cuda/lib64 -lcudart_static -ldl -lrt)
#   OUT           where arborx_nd.md (report, comparison, points verdict) and arborx_nd.log
#                 (every step's output) go; default $BUILD_ROOT/nd-logs
#   BUILD_ONLY=1  build only; NO_BUILD=1: run what an earlier call built (the log is appended)
#   DEADLINE_AT   epoch seconds by which all must be done: each step is cut there, and the driver
#                 gets --budget of what is left less COMPARE_RESERVE (default 60) seconds
# Exit status: 0 when all built and ran; 3 the points differ; 4 a core row differs in float64.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
BACKEND=${BACKEND:-cuda}
KOKKOS_ARCH=${KOKKOS_ARCH:-HOPPER90}
BUILD_ROOT=${BUILD_ROOT:-/tmp/arborx_bench}
JOBS=${JOBS:-$(nproc)}
RES=${OUT:-$BUILD_ROOT/nd-logs}
LOG=$RES/arborx_nd.log
REPORT=$RES/arborx_nd.md
COMPARE_RESERVE=${COMPARE_RESERVE:-60}
case "$BACKEND" in
  cuda) TAG=cuda-$KOKKOS_ARCH ;;
  openmp | serial) TAG=$BACKEND ;;
  *) echo "run.sh: BACKEND must be cuda, openmp or serial" >&2; exit 2 ;;
esac
KOKKOS_INSTALL=$BUILD_ROOT/kokkos-$TAG
ARBORX_SRC=$BUILD_ROOT/src/arborx-2.1
DIMS=${DIMS:-3}
ND_BUILD=$BUILD_ROOT/nd-$TAG-${DIMS}d
BIN=$ND_BUILD/arborx_bench_nd
COMPARE=$BUILD_ROOT/nd-compare
LABELS=$BUILD_ROOT/nd-labels
if [ -n "${ANCHORS:-}" ]; then ANCHOR_DIR=$ANCHORS
elif [ -d "$REPO/anchors" ]; then ANCHOR_DIR=$REPO/anchors
else ANCHOR_DIR=$REPO/../shared/anchors; fi
# (only a build needs them: NO_BUILD=1 runs binaries built before, e.g. carried)
if [ "${NO_BUILD:-0}" != 1 ] && { ! ANCHOR_DIR=$(cd "$ANCHOR_DIR" 2>/dev/null && pwd) ||
  [ ! -f "$ANCHOR_DIR/arborx_bench/build_and_run.sh" ]; }; then
  echo "run.sh: no anchors (arborx_bench/build_and_run.sh) at ${ANCHORS:-./anchors or ../shared/anchors}" >&2
  exit 2
fi

mkdir -p "$BUILD_ROOT" "$RES"
[ "${NO_BUILD:-0}" = 1 ] || : >"$LOG"
now() { date +%s.%N; }
T_ALL=$(now)
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
say() { echo "[nd] $*"; }
left() {  # seconds to DEADLINE_AT less $1 (a large number without a deadline)
  if [ -n "${DEADLINE_AT:-}" ]; then echo $((DEADLINE_AT - $(date +%s) - $1)); else echo 100000; fi
}
# step NAME COMMAND...: COMMAND's output appended to the log, cut at the deadline; its time printed.
step() {
  local name=$1 t0 rc=0 limit
  shift
  limit=$(left 0)
  [ "$limit" -gt 0 ] || { say "$name: no time left before DEADLINE_AT"; exit 124; }
  t0=$(now)
  echo "==== $name: $*" >>"$LOG"
  timeout -k 5 "$limit" "$@" >>"$LOG" 2>&1 || rc=$?
  if [ "$rc" -ne 0 ]; then
    say "$name FAILED after $(elapsed "$t0") s (exit $rc); end of $LOG:"
    tail -n 40 "$LOG"
    exit "$rc"
  fi
  printf '[nd] %-20s %7s s\n' "$name" "$(elapsed "$t0")"
}

# ---- build ----------------------------------------------------------------------
if [ "${NO_BUILD:-0}" != 1 ]; then
  if [ "$BACKEND" = cuda ]; then
    command -v nvcc >/dev/null 2>&1 || PATH=${CUDA_HOME:-/usr/local/cuda}/bin:$PATH
    export NVCC_WRAPPER_DEFAULT_COMPILER=${NVCC_WRAPPER_DEFAULT_COMPILER:-g++}
    CXX_ND=$KOKKOS_INSTALL/bin/nvcc_wrapper
  else
    CXX_ND=${CXX:-g++}
  fi
  GEN=()
  if command -v ninja >/dev/null 2>&1; then GEN=(-G Ninja); fi
  say "backend $TAG, $JOBS jobs; anchors $ANCHOR_DIR; build root $BUILD_ROOT; log $LOG"

  # Kokkos and ArborX by the anchors' script, in the background (its console in nd-anchors.out).
  AOUT=$BUILD_ROOT/nd-anchors.out
  t_k=$(now)
  env -u OUT PROJ="$REPO" ANCHORS="$ANCHOR_DIR" BACKEND="$BACKEND" KOKKOS_ARCH="$KOKKOS_ARCH" \
    BUILD_ROOT="$BUILD_ROOT" JOBS="$JOBS" BUILD_ONLY=1 CHECK_POINTS=0 COMPARE_GD=0 \
    timeout -k 5 "$(left 0)" bash "$ANCHOR_DIR/arborx_bench/build_and_run.sh" >"$AOUT" 2>&1 &
  anchors_pid=$!
  trap 'kill "$anchors_pid" 2>/dev/null || true' EXIT  # no orphan when a step below fails

  # compare_nd meanwhile: it needs the core, not Kokkos.
  CORE=${GD_CORE:-}
  if [ -z "$CORE" ]; then
    CORE_BUILD=$BUILD_ROOT/gd-core-cpu
    step core-configure cmake -S "$REPO" -B "$CORE_BUILD" "${GEN[@]}" -DCMAKE_BUILD_TYPE=Release \
      -DGD_WITH_CUDA=OFF -DGD_BUILD_TESTS=OFF -DGD_BUILD_BENCH=OFF
    step core-build cmake --build "$CORE_BUILD" -j "$JOBS" --target gd_core
    CORE=$CORE_BUILD/libgd_core.a
  fi
  # shellcheck disable=SC2086  # GD_CORE_LIBS: flags, split on spaces
  step compare_nd-build g++ -std=c++17 -O3 -DNDEBUG -ffp-contract=off -I"$REPO/bench" -I"$REPO/core" \
    "$HERE/compare_nd.cpp" "$REPO/bench/datasets.cpp" "$CORE" ${GD_CORE_LIBS:-} -lpthread -o "$COMPARE"

  ready='^\[arborx\] (kokkos-install |Kokkos \(.*\) already installed)'
  while ! grep -qE "$ready" "$AOUT" && kill -0 "$anchors_pid" 2>/dev/null; do sleep 1; done
  if ! grep -qE "$ready" "$AOUT"; then
    wait "$anchors_pid" || true
    { echo "==== anchors' build_and_run.sh (BUILD_ONLY=1)"; cat "$AOUT"; } >>"$LOG"
    say "Kokkos not installed by the anchors' build_and_run.sh; its output:"
    cat "$AOUT"
    exit 1
  fi
  ksteps=$(grep -E '^\[arborx\] kokkos-' "$AOUT" | awk '{ printf "%s%s %s s", sep, $2, $3; sep = ", " }' || true)
  say "Kokkos ready in $KOKKOS_INSTALL after $(elapsed "$t_k") s (${ksteps:-installed before})"
  if [ ! -f "$ND_BUILD/CMakeCache.txt" ]; then
    step nd-configure cmake -S "$HERE" -B "$ND_BUILD" "${GEN[@]}" -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_CXX_COMPILER="$CXX_ND" -DKokkos_ROOT="$KOKKOS_INSTALL" -DARBORX_SOURCE_DIR="$ARBORX_SRC" \
      -DPROJ_DIR="$REPO" -DAB_DIM="$DIMS"
  fi
  step nd-build cmake --build "$ND_BUILD" -j "$JOBS"
  arc=0
  wait "$anchors_pid" || arc=$?
  { echo "==== anchors' build_and_run.sh (BUILD_ONLY=1), exit $arc"; cat "$AOUT"; } >>"$LOG"
  # Its 2-D driver is not ours to need: a failure there is only reported.
  [ "$arc" -eq 0 ] || say "note: the anchors' build_and_run.sh exited $arc after Kokkos (its 2-D driver); see $LOG"
  say "build total $(elapsed "$T_ALL") s"
  if [ "${BUILD_ONLY:-0}" = 1 ]; then exit 0; fi
fi

# ---- run --------------------------------------------------------------------------
if [ ! -x "$BIN" ] || [ ! -x "$COMPARE" ]; then
  say "not built: $BIN, $COMPARE (run without NO_BUILD=1)"
  exit 2
fi
[ "$BACKEND" != openmp ] || export OMP_PROC_BIND=${OMP_PROC_BIND:-spread} OMP_PLACES=${OMP_PLACES:-threads}
ARGS=(--dims "$DIMS" "$@" --labels-out "$LABELS")
BUDGET=()
if [ -n "${DEADLINE_AT:-}" ]; then
  b=$(left "$COMPARE_RESERVE")
  [ "$b" -ge 10 ] || { say "only $b s left for the driver before DEADLINE_AT: not run"; exit 124; }
  BUDGET=(--budget "$b")
fi
rm -rf "$LABELS"
rc=0
t0=$(now)
echo "==== arborx_bench_nd ${ARGS[*]} ${BUDGET[*]} (stderr)" >>"$LOG"
limit=$(left $((COMPARE_RESERVE - 30)))  # 30 s past its budget: the variant then running may end
[ "$limit" -ge 10 ] || limit=10
timeout -k 5 "$limit" "$BIN" "${ARGS[@]}" "${BUDGET[@]}" >"$REPORT" 2>>"$LOG" || rc=$?
rows=$(awk '/^\| data set \| points \| eps \| impl/ { on = 1; next } on && !/^\|/ { exit } on && !/^\|-/ { k++ } END { print k + 0 }' "$REPORT")
say "arborx_bench_nd exit $rc after $(elapsed "$t0") s ($rows rows; report $REPORT)"
grep -E '^Skipped|^Error' "$REPORT" || true

t0=$(now)
PTS=$BUILD_ROOT/nd-points.txt
: >"$PTS"
printf '\n### Labels against our exact answer (compare_nd: gd_cluster_points_nd_typed, CPU)\n\n' >>"$REPORT"
crc=0
limit=$(left 0)
[ "$limit" -ge 5 ] || limit=5
timeout -k 5 "$limit" "$COMPARE" "${ARGS[@]}" --points-out "$PTS" >>"$REPORT" 2>>"$LOG" || crc=$?
say "compare_nd exit $crc after $(elapsed "$t0") s"
[ "$rc" -ne 0 ] || [ "$crc" -eq 0 ] || rc=4
if diff <(grep '^points ' "$REPORT") "$PTS" >>"$LOG" 2>&1 && [ -s "$PTS" ]; then
  verdict="points: identical to the project's generator built with the host compiler ($(wc -l <"$PTS") point sets, fnv1a64 of every coordinate)"
else
  verdict="POINTS DIFFER from the project's generator, or were not all fingerprinted (diff in $LOG)"
  [ "$rc" -ne 0 ] || rc=3
fi
printf '\n%s\n' "$verdict" >>"$REPORT"
say "$verdict"
say "total $(elapsed "$T_ALL") s; exit $rc"
exit "$rc"
