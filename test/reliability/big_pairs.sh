#!/usr/bin/env bash
# test/reliability/big_pairs.sh — one partition past 2^31 candidate pairs,
# for real: the BigPairs unit tests (test/unit/test_large_pairs.cpp) with
# GD_BIG_TESTS=1.  65,537 copies of one box give 2,147,516,416 pairs (16 GiB
# of list), counted, written at 64-bit offsets, checked pair by pair, then
# clustered as a graph with minpoints 65,537 (one cluster) and 65,538 (all
# noise).  Needs about 17 GB of free memory and a minute or two; not part of
# scripts/test.sh (CI machines have less memory).  README.md, Reliability,
# has the figures.
#
#   test/reliability/big_pairs.sh [--build DIR]   (default: build/ of the checkout)
set -uo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
BUILD=$ROOT/build
while [[ $# -gt 0 ]]; do
	case $1 in
		--build) BUILD=$2; shift 2 ;;
		-h | --help) sed -n '2,12p' "$0"; exit 0 ;;
		*) echo "big_pairs: unknown argument $1" >&2; exit 2 ;;
	esac
done
avail_mb=$(awk '/^MemAvailable:/ { print int($2 / 1024) }' /proc/meminfo)
if [[ ${avail_mb:-0} -lt 17500 ]]; then
	echo "big_pairs: ${avail_mb} MB available, 17,500 MB needed: not run" >&2
	exit 1
fi
if ! cmake --build "$BUILD" --target gd_unit_tests -j"$(nproc)" >/dev/null; then
	echo "big_pairs: cannot build gd_unit_tests in $BUILD" >&2
	exit 1
fi
t0=$(date +%s)
GD_BIG_TESTS=1 /usr/bin/time -f '%M' -o "$BUILD/big_pairs.rss" \
	"$BUILD/gd_unit_tests" --gtest_filter='BigPairs.*' >"$BUILD/big_pairs.log" 2>&1
rc=$?
grep -E '^\[ +(OK|FAILED|SKIPPED) +\]|Failure' "$BUILD/big_pairs.log"
rss_mb=$(($(tail -n 1 "$BUILD/big_pairs.rss" 2>/dev/null || echo 0) / 1024))
echo "big_pairs: $( [[ $rc -eq 0 ]] && echo ok || echo FAILED ), $(($(date +%s) - t0)) s, peak RSS $rss_mb MB (log: $BUILD/big_pairs.log)"
exit $rc
