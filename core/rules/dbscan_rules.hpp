// dbscan_rules.hpp — the rules of DBSCAN as PostGIS's ST_ClusterDBSCAN
// applies them, over any neighbour relation sees(p, q) ("q is found when p
// searches", rules/neighbour.hpp), for every path of both back ends: the
// grids (cpu_*.cpp, nd_dbscan.cpp, cuda/), the relations given pair by pair
// (rules/relation_dbscan.hpp: non-point geometry, geography, a handful of
// points), the sweep and the strip merge (cuda/strips.cu).
//
// PostGIS (union_dbscan_general) visits rows in order; a core point p unions
// with each q it finds that is core and already visited (q < p), or that no
// earlier core point has found yet (p claims q).  So, in row order:
//   1. core: p finds at least need = max(minpoints, 1) points, itself
//      included; counting may stop at need (CoreCount);
//   2. first claimer of x: the core r with the smallest row such that
//      sees(r, x) (a core x is its own claimer unless an earlier core point
//      reaches it);
//   3. linkage (minpoints >= 2): core p and core q < p are joined when
//      sees(p, q), the later row's view of the earlier one, and every point
//      is joined to its first claimer; a pair seen only by the earlier row
//      is joined only through the later row's first claimer (pair_join);
//      minpoints 0 or 1 (union_dbscan_minpoints_1): a pair is joined when
//      either sees the other;
//   4. representative: a core point's set; a non-core point its first
//      claimer's set; else noise (representative);
//   5. ids 0..k-1 by each cluster's first row (rules/ids.hpp).
// For a pair that sees each other both ways (all but the last bit of eps)
// this is the usual DBSCAN.
#pragma once

#include <cstdint>

#include "rules/hd.hpp"

namespace gd {

// The representative of a point in no cluster, and "no claimer".
constexpr uint32_t kNoise = UINT32_MAX;

// Rule 1: the neighbours, itself included, that make a point core.
GD_HD constexpr int64_t core_need(int64_t minpoints) { return minpoints > 1 ? minpoints : 1; }

// Rule 1 with its early exit: add() returns true once the point is core.
struct CoreCount {
  int64_t need;
  int64_t found;
  GD_HD explicit CoreCount(int64_t minpoints, int64_t already = 0)
      : need(core_need(minpoints)), found(already) {}
  GD_HD bool add(int64_t k = 1) { return (found += k) >= need; }
  GD_HD bool core() const { return found >= need; }
};

// Rule 3: how core points are joined.  kDbscan (minpoints >= 2) or kSingle
// (minpoints 0 or 1, PostGIS's union_dbscan_minpoints_1).
enum class Linkage { kDbscan, kSingle };
GD_HD_INLINE Linkage linkage_for(int64_t minpoints) {
  return minpoints <= 1 ? Linkage::kSingle : Linkage::kDbscan;
}

// Rule 3 for a pair of core points a, b: rel bit 0 when sees(a, b), bit 1
// when sees(b, a); a_later when a's row comes after b's.  kViaClaimer: only
// the earlier row sees the later one, which therefore has a first claimer
// (the earlier row or one before it): the later point joins its first
// claimer, and the pair is joined when that claimer is in the earlier's set.
enum class PairJoin : uint8_t { kNone, kUnite, kViaClaimer };
GD_HD_INLINE PairJoin pair_join(unsigned rel, bool a_later, Linkage linkage) {
  if (rel == 0) return PairJoin::kNone;
  if (rel == 3u || linkage == Linkage::kSingle) return PairJoin::kUnite;
  return rel == (a_later ? 1u : 2u) ? PairJoin::kUnite : PairJoin::kViaClaimer;
}

// Rule 4: find is the union-find's find (any callable); claimer is kNoise
// when the point has none.
#if defined(__CUDACC__)
#pragma nv_exec_check_disable  // find is a host or a device callable, never both
#endif
template <class Find>
GD_HD_INLINE uint32_t representative(bool core, uint32_t self, uint32_t claimer, Find&& find) {
  return core ? find(self) : claimer != kNoise ? find(claimer) : kNoise;
}

}  // namespace gd
