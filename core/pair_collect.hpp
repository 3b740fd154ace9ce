// pair_collect.hpp — the pair lists of the non-point and geography paths
// (cpu_pairs.cpp, nd_pairs.cpp), built in two passes over the same blocks
// of work: each block counts its pairs, the counts become 64-bit offsets,
// and each block writes its pairs at its offset into one allocation of
// exactly the total.
//
// Why two passes: a partition whose rows are all within eps of each other
// has n (n - 1) / 2 pairs, past 2^31 from n = 65,537.  Growing per-block
// vectors held up to three times the list at the peak (the vectors' spare
// capacity, then the copy), and gave no count before the memory was gone;
// under Linux overcommit that ends with the OOM killer, which takes the
// whole server down.  Counting first costs a second scan (cheap beside the
// caller's exact test of every pair) and lets a list that would not fit be
// refused with a clean error before anything is allocated.
#pragma once

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <new>
#include <string>
#include <vector>

#include "backend.hpp"
#include "memory_ledger.hpp"
#include "parallel.hpp"
#include "rules/hd.hpp"

namespace gd {

// Bytes a pair costs while the glue holds it: the gd_pair of the list and
// the direction byte it keeps beside it (cluster_pairs in src/cluster.c).
constexpr int64_t kPairBytes = static_cast<int64_t>(sizeof(gd_pair)) + 1;

// The most pairs one list may hold: as many as fit in half the physical
// memory at kPairBytes each (a backend that takes more risks the OOM killer).
int64_t default_max_pairs();

// Exclusive prefix sums of the blocks' pair counts, total last (so
// counts.size() + 1 values).  Throws GD_ERR_NOMEM, naming `what` and the
// sizes, when the total exceeds max_pairs.
std::vector<int64_t> pair_offsets(const std::vector<int64_t>& counts, int64_t max_pairs,
                                  const char* what);

// The pair of rows a and b as the lists hold it: the smaller row first.
GD_HD_INLINE gd_pair ordered_pair(uint32_t a, uint32_t b) {
  return a < b ? gd_pair{a, b} : gd_pair{b, a};
}

// Gives *out a list of exactly total pairs, charged to the memory ledger
// (kPairBytes each), that fill(pairs) writes; if fill throws, nothing is
// kept.  The caller has checked total against its max_pairs (pair_offsets).
template <class Fill>
void fill_pair_list(int64_t total, const char* what, Fill fill, gd_pair_list* out) {
  out->pairs = nullptr;
  out->count = 0;
  out->charged = 0;
  if (total == 0) return;
  MemoryCharge charge(total * kPairBytes, what);
  gd_pair* pairs = static_cast<gd_pair*>(std::malloc(static_cast<size_t>(total) * sizeof(gd_pair)));
  if (!pairs) throw std::bad_alloc();
  try {
    fill(pairs);
  } catch (...) {
    std::free(pairs);
    throw;
  }
  out->pairs = pairs;
  out->count = total;
  out->charged = total * kPairBytes;
  charge.release();  // gd_pair_list_free refunds it
}

// Fills *out with the pairs scan() emits, block by block in block order.
// scan(begin, end, emit) covers the items [begin, end) of [0, n) and calls
// emit(gd_pair) for each pair; it must emit the same pairs each time it is
// called on the same range.  Blocks are `grain` items.
template <class Scan>
void collect_pairs(size_t n, size_t grain, ThreadTeam& team, int64_t max_pairs,
                   const char* what, Scan scan, gd_pair_list* out) {
  const size_t nblocks = (n + grain - 1) / grain;
  std::vector<int64_t> counts(nblocks, 0);
  // Once the blocks counted so far pass max_pairs the rest are not counted:
  // the list is refused whatever they hold (a cap far below the memory's,
  // gd_params.max_pairs, costs a fraction of the scan to find exceeded).
  std::atomic<int64_t> counted{0};
  team.for_dynamic(n, grain, [&](size_t begin, size_t end) {
    if (counted.load(std::memory_order_relaxed) > max_pairs) return;
    int64_t k = 0;
    scan(begin, end, [&k](const gd_pair&) { ++k; });
    counts[begin / grain] = k;
    counted.fetch_add(k, std::memory_order_relaxed);
  });
  const std::vector<int64_t> offset = pair_offsets(counts, max_pairs, what);
  fill_pair_list(offset.back(), what, [&](gd_pair* pairs) {
    team.for_dynamic(n, grain, [&](size_t begin, size_t end) {
      const size_t block = begin / grain;
      gd_pair* at = pairs + offset[block];
      gd_pair* const stop = pairs + offset[block + 1];
      scan(begin, end, [&at, stop](const gd_pair& p) {
        if (at == stop) throw Error(GD_ERR_INTERNAL, "a pair scan found more pairs the second time");
        *at++ = p;
      });
      if (at != stop) throw Error(GD_ERR_INTERNAL, "a pair scan found fewer pairs the second time");
    });
  }, out);
}

}  // namespace gd
