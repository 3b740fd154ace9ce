// cpu_small.cpp — the CPU back end for a handful of points: every pair
// tested, in O(n^2), with no grid, no thread team, no heap allocation and no
// clock.  A window partition of two or three rows costs a few hundred
// nanoseconds here, where the general path (cpu_dbscan.cpp) costs about a
// microsecond of set-up before it tests a single pair.
//
// The rules are those of backend.hpp written out directly, on the same
// predicate within(p, q) (p searching):
//   - p is core when #{q : within(p, q)} >= max(minpoints, 1), p included;
//   - the first claimer of x is the smallest core r with within(r, x);
//   - minpoints >= 2: core q < p join when within(p, q), every point joins
//     its first claimer, a point that is neither core nor claimed is noise;
//   - minpoints 0 or 1: p and q join when either sees the other.
#include "cpu_small.hpp"

#include <algorithm>

namespace gd {

namespace {

using Mask = uint64_t;
static_assert(kSmallPoints <= 64, "one bit per point in a Mask");

// A union-find over at most kSmallPoints indexes; the root of a set is its
// smallest member.
class SmallUnionFind {
 public:
  explicit SmallUnionFind(uint32_t n) {
    for (uint32_t i = 0; i < n; ++i) parent_[i] = static_cast<uint8_t>(i);
  }
  uint32_t find(uint32_t x) const {
    while (parent_[x] != x) x = parent_[x];
    return x;
  }
  void unite(uint32_t a, uint32_t b) {
    a = find(a);
    b = find(b);
    if (a == b) return;
    if (a < b) std::swap(a, b);
    parent_[a] = static_cast<uint8_t>(b);
  }

 private:
  uint8_t parent_[kSmallPoints];
};

}  // namespace

void cpu_cluster_small(const PointsView& pts, double eps, int64_t minpoints, uint32_t* rep,
                       uint8_t* core) {
  const uint32_t n = pts.n;
  if (n > kSmallPoints) throw Error(GD_ERR_INTERNAL, "cpu_cluster_small: too many points");
  const double* x = pts.x;
  const double* y = pts.y;

  // sees[p]: bit q when within(p, q); seen_by[q]: bit p when within(p, q).
  // Both ways of a pair come from one within_each_way (most pairs are out of
  // reach: one cheap test); every point sees itself (its own box holds it,
  // its distance is 0), written out rather than assumed.
  Mask sees[kSmallPoints], seen_by[kSmallPoints];
  for (uint32_t p = 0; p < n; ++p)
    sees[p] = seen_by[p] = static_cast<Mask>(within(x[p], y[p], x[p], y[p], eps)) << p;
  for (uint32_t p = 0; p < n; ++p)
    for (uint32_t q = p + 1; q < n; ++q) {
      const Mask rel = within_each_way(x[p], y[p], x[q], y[q], eps);
      sees[p] |= (rel & 1) << q;
      seen_by[q] |= (rel & 1) << p;
      sees[q] |= (rel >> 1) << p;
      seen_by[p] |= (rel >> 1) << q;
    }

  const int64_t need = std::max<int64_t>(minpoints, 1);
  Mask is_core = 0;
  for (uint32_t p = 0; p < n; ++p)
    is_core |= static_cast<Mask>(__builtin_popcountll(sees[p]) >= need) << p;

  SmallUnionFind uf(n);
  Mask in_cluster = 0;
  for (uint32_t p = 0; p < n; ++p) {
    const Mask below = (Mask{1} << p) - 1;  // p < 64
    Mask join;
    if (minpoints <= 1) {
      // either way
      join = (sees[p] | seen_by[p]) & below;
      in_cluster |= Mask{1} << p;
    } else {
      // core q < p that core p sees, and p's first claimer
      join = (is_core >> p) & 1 ? sees[p] & is_core & below : 0;
      const Mask claimers = seen_by[p] & is_core;
      if (claimers) {
        join |= claimers & -claimers;
        in_cluster |= Mask{1} << p;
      }
    }
    for (; join; join &= join - 1) uf.unite(p, static_cast<uint32_t>(__builtin_ctzll(join)));
  }

  // Ranks: the k-th cluster to appear in point order is k (assign_ids takes
  // them as they are).  A set's root is its smallest member, so a root is
  // met before any other member of its set.
  uint32_t rank_of_root[kSmallPoints];
  uint32_t next = 0;
  for (uint32_t p = 0; p < n; ++p) {
    if (!((in_cluster >> p) & 1)) {
      rep[p] = kNoise;
      continue;
    }
    const uint32_t root = uf.find(p);
    if (root == p) rank_of_root[p] = next++;
    rep[p] = rank_of_root[root];
  }
  if (core)
    for (uint32_t p = 0; p < n; ++p) core[p] = static_cast<uint8_t>((is_core >> p) & 1);
}

}  // namespace gd
