#!/usr/bin/env bash
# test/fuzz/core_diff.sh — builds and runs test/fuzz/core_diff.cpp (the
# differential fuzzer of the clustering core) against a core archive.
#
#   test/fuzz/core_diff.sh [--build DIR] [core_diff arguments...]
#
# DIR is the CMake build folder whose libgd_core.a is linked (default
# $GD_BUILD_DIR or build; built with CMake, target gd_core, when missing);
# with a CUDA build the CUDA runtime is linked statically, and core_diff
# --gpu adds the GPU path.  Examples:
#   test/fuzz/core_diff.sh --sets 3000 --seed 1        (the CI run)
#   test/fuzz/core_diff.sh --seconds 600 --max-n 200   (a long run)
#   test/fuzz/core_diff.sh --replay 12345 --verbose    (one set again)
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD=${GD_BUILD_DIR:-build}
if [[ ${1:-} == --build ]]; then
	BUILD=$2
	shift 2
fi
[[ $BUILD == /* ]] || BUILD=$ROOT/$BUILD
LIB=$BUILD/libgd_core.a
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}

if [[ ! -f $LIB ]]; then
	echo "core_diff: building $LIB"
	if ! { cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release >/dev/null &&
		cmake --build "$BUILD" --target gd_core -j"$(nproc)" >/dev/null; }; then
		echo "core diff: FAILED (cannot build $LIB)"
		exit 1
	fi
fi
link=(-lpthread)
# (grep reads all of nm's output: with -q, nm's SIGPIPE would fail the pipe)
if nm "$LIB" 2>/dev/null | grep ' U cudaMalloc' >/dev/null; then
	link+=(-L"$CUDA_HOME/lib64" -L"$CUDA_HOME/targets/x86_64-linux/lib" -lcudart_static -ldl -lrt)
fi
BIN=$BUILD/core_diff
if [[ ! -x $BIN || $BIN -ot $LIB || $BIN -ot $ROOT/test/fuzz/core_diff.cpp || $BIN -ot $ROOT/test/unit/reference.cpp ]]; then
	if ! g++ -O2 -std=c++17 -ffp-contract=off -Wall -I "$ROOT/core" -I "$ROOT/test/unit" \
		"$ROOT/test/fuzz/core_diff.cpp" "$ROOT/test/unit/reference.cpp" "$LIB" "${link[@]}" -o "$BIN" \
		>"$BUILD/core_diff.build.log" 2>&1; then
		tail -n 20 "$BUILD/core_diff.build.log"
		echo "core diff: FAILED (cannot build $BIN, see $BUILD/core_diff.build.log)"
		exit 1
	fi
fi
exec "$BIN" "$@"
