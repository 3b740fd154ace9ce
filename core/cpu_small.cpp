// cpu_small.cpp — the CPU back end for a handful of points: every pair
// tested, in O(n^2), with no grid, no thread team, no heap allocation and no
// clock.  A window partition of two or three rows costs a few hundred
// nanoseconds here, where the general path (cpu_dbscan.cpp) costs about a
// microsecond of set-up before it tests a single pair.
//
// The rules are those of every path (rules/relation_dbscan.hpp, over the
// pairs of this partition), on the same predicate within(p, q) (p
// searching); the ranks are the one numbering (rules/ids.hpp).
#include "cpu_small.hpp"

#include "rules/ids.hpp"
#include "rules/relation_dbscan.hpp"
#include "union_find.hpp"

namespace gd {

void cpu_cluster_small(const PointsView& pts, double eps, int64_t minpoints, uint32_t* rep,
                       uint8_t* core) {
  const uint32_t n = pts.n;
  if (n > kSmallPoints) throw Error(GD_ERR_INTERNAL, "cpu_cluster_small: too many points");
  const double* x = pts.x;
  const double* y = pts.y;

  // Both ways of each pair from one within_each_way (most pairs are out of
  // reach: one cheap test), once; every point sees itself (its own box
  // holds it, its distance is 0).
  uint8_t rel[kSmallPoints * (kSmallPoints - 1) / 2];
  uint32_t npairs = 0;
  for (uint32_t p = 0; p < n; ++p)
    for (uint32_t q = p + 1; q < n; ++q)
      rel[npairs++] = static_cast<uint8_t>(within_each_way(x[p], y[p], x[q], y[q], eps));
  auto pairs = [&](auto&& fn) {
    uint32_t k = 0;
    for (uint32_t p = 0; p < n; ++p)
      for (uint32_t q = p + 1; q < n; ++q, ++k)
        if (rel[k] != 0) fn(p, q, static_cast<unsigned>(rel[k]));
  };

  LocalSlot parent[kSmallPoints];
  LocalUnionFind uf(parent, n);
  uint8_t is_core[kSmallPoints];
  uint32_t count[kSmallPoints], claimer[kSmallPoints], root[kSmallPoints];
  cluster_relation(n, minpoints, pairs, uf, is_core, count, claimer, root);

  // Ranks: the k-th cluster to appear in point order is k (assign_ids takes
  // them as they are).
  uint32_t slot[kSmallPoints];
  std::fill(slot, slot + n, kNoise);
  FirstRowIds ids;
  for (uint32_t p = 0; p < n; ++p) rep[p] = root[p] == kNoise ? kNoise : ids.id(slot[root[p]]);
  if (core) std::copy(is_core, is_core + n, core);
}

}  // namespace gd
