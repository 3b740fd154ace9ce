#!/usr/bin/env bash
# bench/arborx_nd/prebuild.sh — builds ArborX's 3-D driver and compare_nd on
# this machine (no GPU needed: nvcc and the anchors suffice) and copies the two
# binaries into a small folder to carry to the GPU machine, so that a device
# call spends no time building Kokkos and ArborX. From the repository root:
#
#   bash bench/arborx_nd/prebuild.sh [DEST]     (DEST default abx_run)
#
# then carry DEST and run the arborx stage with GD_ARBORX_PREBUILT=DEST
# (test/gpu/run), or bench/arborx_nd/run.sh with BUILD_ROOT=$PWD/DEST NO_BUILD=1.
# Environment: as run.sh's (KOKKOS_ARCH, DIMS, JOBS, ANCHORS); the build
# itself stays in BUILD_ROOT (default ./abx). Put both folders in
# .git/info/exclude. About 150 s on 2 cores from empty, seconds after.
set -euo pipefail

DEST=${1:-abx_run}
KOKKOS_ARCH=${KOKKOS_ARCH:-HOPPER90}
DIMS=${DIMS:-3}
BUILD_ROOT=${BUILD_ROOT:-$PWD/abx}
export KOKKOS_ARCH DIMS BUILD_ROOT
BUILD_ONLY=1 bash "$(dirname "${BASH_SOURCE[0]}")/run.sh"
driver=nd-cuda-$KOKKOS_ARCH-${DIMS}d/arborx_bench_nd
mkdir -p "$DEST/$(dirname "$driver")"
cp "$BUILD_ROOT/$driver" "$DEST/$driver"
cp "$BUILD_ROOT/nd-compare" "$DEST/nd-compare"
echo "prebuild: $DEST/$driver and $DEST/nd-compare ($(du -sh "$DEST" | cut -f1)); carry $DEST"
