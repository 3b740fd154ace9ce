#!/usr/bin/env bash
# test/reliability/valgrind.sh — the core's CPU unit tests under valgrind
# memcheck: no invalid read or write, no use of an uninitialised value, no
# leak (definite, indirect or possible), no mismatched free.
#
#   test/reliability/valgrind.sh [--smoke | --quick | --filter GTEST_FILTER] [--build DIR]
#
# Builds gd_unit_tests without CUDA, with -O1 -g (valgrind's reports then
# name lines; -O1 keeps the core's loops bounded under valgrind's ~30x
# slowdown), in DIR (default build-valgrind/ of the checkout: the main build
# folder is left alone), then runs it under
#   valgrind --tool=memcheck --leak-check=full --show-leak-kinds=all
#            --errors-for-leak-kinds=definite,indirect,possible --error-exitcode=1
# with no suppression file: nothing in the core or GoogleTest needs one
# ("still reachable" blocks, which are not errors, are listed in the log).
#
# Tests: every CPU test (the *Gpu* suites need a device, BigPairs 17 GB) except
#   Api.MoreThanInt32MaxPointsIsInvalid, which walks 2^31 mmap'ed rows to
#   reach its error, and CandidatePairs.PastTheMemoryLimitThroughTheApi,
#   which counts about 1.4e9 pairs to reach its: both are loops with no
#   allocation that take minutes to hours under valgrind (the smaller
#   PairLimit tests cover the same allocation and error paths).
# --quick also leaves out the six slowest tests (the biggest data sets of the
# Exact suite, the thread-count comparison), which the smaller tests of the
# same suites cover (291 tests in 257 s against 297 in 317 s).
# --smoke runs the small tests only: the API, labels, pairs, graphs, sweeps,
# the small-partition path, the quick edge cases and n-D checks of arguments
# and extremes, leaving out the large randomised (Random, Exact), edge-case
# and n-D data sets (about 3.5 s natively, under 90 s under valgrind).
# scripts/test.sh runs --smoke by default and the whole set with GD_LONG=1
# (about 6 minutes on the 2-core machine).
#
# Prints one line: tests run, failed tests, valgrind errors, leaked bytes,
# seconds; exits nonzero when a test fails or valgrind reports an error.
set -uo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
BUILD=$ROOT/build-valgrind
ALWAYS_OUT='*Gpu*:BigPairs.*:Api.MoreThanInt32MaxPointsIsInvalid:CandidatePairs.PastTheMemoryLimitThroughTheApi'
QUICK_OUT='Exact.LargerAdversarialSetsMatchPostgisRowOrder:Exact.UnderflowLatticesMatchPostgisRowOrder:Api.AutoThreadsMatchesOneThread:Exact.MixedSignNearZeroMatchPostgisRowOrder:Exact.TinyEpsBoxEdgesMatchPostgisRowOrder:Exact.BoxEdgesMatchPostgisRowOrder'
SMOKE='PairOffsets.*:SmallPath.*:Labels.*:RankedIds.*:Window.*:NeighbourPairsNd.*:ClusterGraphDirected.*:PointTypes.*:Families/SmallPath.*:Reference.*:CandidatePairs.*:LargePartitions.*:ClusterGraph.*:Sweep.*:Api.*:EdgeCases.BorderGoesToTheEarlierRowsCore:EdgeCases.EmptyAndNullRows:EdgeCases.EmptyPartition:EdgeCases.FewRows:EdgeCases.SinglePoint:EdgeCases.TenAndTenPointThreeAreNotWithinPointThree:EdgeCases.HugeEpsWhereTheSquareOverflows:EdgeCases.ExtentOverflowsToInfinity:EdgeCases.HugeExtentSmallEpsAtOrigin:EdgeCases.EpsZeroAllIdentical:EdgeCases.EpsZeroUnderflowIsNotANeighbour:Nd.BadArguments:Nd.TooFewPointsForMinpointsIsAllNoise:Nd.TwoAxesEqualTheTwoDimensionalPath:Nd.CancelledRunReportsCancelled:Nd.TinyEpsAndSubnormalDifferences:Nd.PredicateWithTwoAxesIsTheBoxAndDistanceTest:Nd.InfiniteAndZeroEps:Nd.HugeExtentTinyEps:Nd.NeighbourPairsMatchBruteForce'
# --smoke leaves out, of its suites, the thread-count comparison and the three
# biggest data sets (58 of its 140 s under valgrind on the 2-core machine;
# the other tests of ClusterGraph, Sweep and CandidatePairs cover the same
# code, and the unit stage runs all three natively)
SMOKE_OUT='Api.AutoThreadsMatchesOneThread:ClusterGraph.PointsMatchReference:Sweep.DenseClumpsMatchOneCallPerValue:CandidatePairs.ParallelLinesAreNotQuadratic'
FILTER="-$ALWAYS_OUT"
MODE=full
while [[ $# -gt 0 ]]; do
	case $1 in
		--quick) FILTER="-$ALWAYS_OUT:$QUICK_OUT"; MODE=quick; shift ;;
		--smoke) FILTER="$SMOKE-$ALWAYS_OUT:$SMOKE_OUT"; MODE=smoke; shift ;;
		--filter) FILTER=$2; MODE=filter; shift 2 ;;
		--build) BUILD=$2; shift 2 ;;
		-h | --help) sed -n '2,34p' "$0"; exit 0 ;;
		*) echo "valgrind: unknown argument $1" >&2; exit 2 ;;
	esac
done

if ! command -v valgrind >/dev/null 2>&1; then
	echo "valgrind: not installed (apt-get install valgrind)" >&2
	exit 1
fi

t0=$(date +%s)
echo "building gd_unit_tests (CPU only, -O1 -g) in $BUILD"
mkdir -p "$BUILD"
if ! cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG='-O1 -g' \
	-DGD_WITH_CUDA=OFF -DGD_BUILD_BENCH=OFF >"$BUILD/build.log" 2>&1 ||
	! cmake --build "$BUILD" --target gd_unit_tests -j"$(nproc)" >>"$BUILD/build.log" 2>&1; then
	tail -n 30 "$BUILD/build.log"
	echo "valgrind: build failed (see $BUILD/build.log)"
	exit 1
fi

log=$BUILD/valgrind.log
out=$BUILD/valgrind-tests.log
echo "running gd_unit_tests --gtest_filter=$FILTER under valgrind ($MODE)"
t1=$(date +%s)
valgrind --tool=memcheck --leak-check=full --show-leak-kinds=all \
	--errors-for-leak-kinds=definite,indirect,possible --error-exitcode=99 \
	--log-file="$log" \
	"$BUILD/gd_unit_tests" --gtest_filter="$FILTER" >"$out" 2>&1
rc=$?
secs=$(($(date +%s) - t1))

ran=$(sed -nE 's/^\[==========\] ([0-9]+) tests? from .* ran\..*/\1/p' "$out" | tail -n 1)
passed=$(sed -nE 's/^\[  PASSED  \] ([0-9]+) tests?\./\1/p' "$out" | tail -n 1)
skipped=$(sed -nE 's/^\[  SKIPPED \] ([0-9]+) tests?, listed below:/\1/p' "$out" | tail -n 1)
errors=$(sed -nE 's/.*ERROR SUMMARY: ([0-9]+) errors?.*/\1/p' "$log" | tail -n 1)
leak() {  # leak KIND: bytes valgrind lists as KIND lost (0 when the line is absent)
	local b
	b=$(sed -nE "s/.*$1 lost: ([0-9,]+) bytes.*/\\1/p" "$log" | tail -n 1 | tr -d ,)
	echo "${b:-0}"
}
definite=$(leak definitely)
indirect=$(leak indirectly)
possible=$(leak possibly)
ran=${ran:-0}
passed=${passed:-0}
skipped=${skipped:-0}
errors=${errors:-unknown}

status=ok
if [[ $rc -ne 0 || $ran -eq 0 || $((passed + skipped)) -ne $ran || $errors != 0 ||
	$definite != 0 || $indirect != 0 || $possible != 0 ]]; then
	status=FAILED
	grep -E '^\[  FAILED  \]' "$out" | head -n 20
	grep -E '^==[0-9]+== (Invalid|Conditional|Use of|Mismatched|[0-9,]+ bytes in)' -A 8 "$log" | head -n 60
fi
echo "valgrind memcheck ($MODE): $ran tests, $((ran - passed - skipped)) failed, $skipped skipped, $errors errors," \
	"leaks definite $definite B, indirect $indirect B, possible $possible B;" \
	"$secs s under valgrind ($(($(date +%s) - t0)) s with the build): $status (logs: $log, $out)"
[[ $status == ok ]]
