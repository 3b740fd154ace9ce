// inscy_pair_bound.hpp — a cheap upper bound on a point's neighbour count in
// any subspace holding two given dims (a, b), for the CPU back end of the
// subspace clustering (inscy.hpp).
//
// Every neighbour q of p in such a subspace lies in p's window on a and in
// its window on b: q's position in a's sorted order is in [lo_a, hi_a) and
// its position in b's in [lo_b, hi_b).  Cut both sorted orders into blocks
// of 2^shift positions; the points of the blocks that meet those ranges (a
// 2-D histogram over blocks, summed by prefix sums in O(1)) include p itself
// and all its neighbours.  So when that sum - 1 < mu, p has fewer than mu
// neighbours: it is neither a candidate nor dense, with no scan at all.  The
// bound is in integers over positions (no floating-point cell bounds), so it
// can never be below the true count.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "inscy.hpp"

namespace gd {
namespace inscy {

class PairBound {
 public:
  // Block size for n points: a power of two near sqrt(n / 8) positions, so
  // that the histogram has 4n to 8n cells (smaller blocks bound tighter but
  // cost more to sum; measured on vowel and glass).
  static int shift_for(uint32_t n) {
    int sh = 0;
    while ((uint64_t(1) << (2 * sh + 3)) < n) ++sh;
    return sh;
  }

  // Rebuilds the histogram of dims a and b (buffers are reused): O(n).
  // rank: d x n, each point's position in each dim's sorted order.
  void build(const Prepared& pr, const uint32_t* rank, int a, int b) {
    const uint32_t n = pr.n;
    a_ = a;
    b_ = b;
    sh_ = shift_for(n);
    nb_ = n ? ((n - 1) >> sh_) + 1 : 0;
    const uint32_t stride = nb_ + 1;
    sum_.assign(size_t(stride) * stride, 0);
    const uint32_t* perm_a = pr.perm.data() + size_t(a) * n;
    const uint32_t* rank_b = rank + size_t(b) * n;
    for (uint32_t i = 0; i < n; ++i)
      ++sum_[size_t((i >> sh_) + 1) * stride + (rank_b[perm_a[i]] >> sh_) + 1];
    for (uint32_t r = 1; r <= nb_; ++r)  // inclusive prefix sums, zero border
      for (uint32_t c = 1; c <= nb_; ++c)
        sum_[size_t(r) * stride + c] += sum_[size_t(r - 1) * stride + c] +
                                        sum_[size_t(r) * stride + c - 1] -
                                        sum_[size_t(r - 1) * stride + c - 1];
  }

  // Points in the blocks meeting p's two windows: >= p's neighbours + 1.
  uint32_t bound(const Prepared& pr, uint32_t p) const {
    const uint32_t n = pr.n;
    const size_t at_a = size_t(a_) * n + p, at_b = size_t(b_) * n + p;
    const uint32_t r0 = pr.lo[at_a] >> sh_, r1 = ((pr.hi[at_a] - 1) >> sh_) + 1;
    const uint32_t c0 = pr.lo[at_b] >> sh_, c1 = ((pr.hi[at_b] - 1) >> sh_) + 1;
    const size_t stride = nb_ + 1;
    return sum_[r1 * stride + c1] - sum_[r0 * stride + c1] - sum_[r1 * stride + c0] +
           sum_[r0 * stride + c0];
  }

 private:
  int a_ = 0, b_ = 0, sh_ = 0;
  uint32_t nb_ = 0;
  std::vector<uint32_t> sum_;
};

}  // namespace inscy
}  // namespace gd
