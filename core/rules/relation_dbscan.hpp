// relation_dbscan.hpp — the rules of rules/dbscan_rules.hpp applied to a
// neighbour relation given pair by pair, with no grid: the pair-list path
// (non-point geometry and geography: graph.cpp, over the pairs that passed
// st_dwithin) and partitions of a handful of points (cpu_small.cpp, over
// every pair).  A new input kind that can list its pairs is a few lines:
// a Pairs callable and a call.
//
// Nodes are 0..n-1 in row order.  pairs(fn) calls fn(a, b, rel) once for
// each unordered pair a < b of neighbours, rel bit 0 when a sees b (a's
// search finds b), bit 1 when b sees a, rel != 0; a node sees itself without
// a pair.  Scratch is the caller's (the small path allocates nothing).
#pragma once

#include <algorithm>
#include <cstdint>

#include "rules/dbscan_rules.hpp"

namespace gd {

// Rule 1's counts: count[v] = 1 (itself) + the nodes v sees.  They do not
// depend on minpoints, so a sweep takes them once for all its values.
template <class Pairs>
void count_relation(uint32_t n, Pairs&& pairs, uint32_t* count) {
  std::fill(count, count + n, 1u);
  pairs([&](uint32_t a, uint32_t b, unsigned rel) {
    count[a] += rel & 1u;
    count[b] += rel >> 1;
  });
}

// Rules 1 to 4 at minpoints from count_relation's counts (unread for
// single linkage).  claimer[n] is scratch; core[n] receives 1 for a core
// node, else 0; rep[n] each node's representative (its set's root, the
// smallest node of its cluster; kNoise for noise).  uf: a union-find over n
// nodes (init done here), with find and unite.
template <class Pairs, class UnionFind>
void cluster_counted_relation(uint32_t n, int64_t minpoints, Pairs&& pairs, UnionFind& uf,
                              uint8_t* core, const uint32_t* count, uint32_t* claimer,
                              uint32_t* rep) {
  const Linkage linkage = linkage_for(minpoints);
  for (uint32_t v = 0; v < n; ++v) uf.init(v, v);

  // Rule 1 (each pair seen once by the counts, so no early exit to take).
  if (linkage == Linkage::kSingle) {
    std::fill(core, core + n, uint8_t{1});
  } else {
    const int64_t need = core_need(minpoints);
    for (uint32_t v = 0; v < n; ++v) core[v] = static_cast<int64_t>(count[v]) >= need;
  }

  // Rules 2 and 3: first claimers; core pairs by the later row's view.
  std::fill(claimer, claimer + n, kNoise);
  pairs([&](uint32_t a, uint32_t b, unsigned rel) {
    if (linkage == Linkage::kSingle) {
      uf.unite(a, b);
      return;
    }
    if (core[a] && core[b] && pair_join(rel, /*a_later=*/false, linkage) == PairJoin::kUnite)
      uf.unite(a, b);
    if (core[a] && (rel & 1u)) claimer[b] = std::min(claimer[b], a);
    if (core[b] && (rel & 2u)) claimer[a] = std::min(claimer[a], b);
  });
  // Every core node joins its first claimer when that comes first (a core
  // node before its claimers claims itself; a later core claimer that sees
  // it was joined above, by the later row's view): the kViaClaimer pairs.
  if (linkage == Linkage::kDbscan)
    for (uint32_t v = 0; v < n; ++v)
      if (core[v] && claimer[v] != kNoise && claimer[v] < v) uf.unite(v, claimer[v]);

  // Rule 4.
  auto find = [&uf](uint32_t i) { return uf.find(i); };
  for (uint32_t v = 0; v < n; ++v) rep[v] = representative(core[v] != 0, v, claimer[v], find);
}

// Both at one minpoints; count[n] is scratch.
template <class Pairs, class UnionFind>
void cluster_relation(uint32_t n, int64_t minpoints, Pairs&& pairs, UnionFind& uf,
                      uint8_t* core, uint32_t* count, uint32_t* claimer, uint32_t* rep) {
  if (linkage_for(minpoints) != Linkage::kSingle) count_relation(n, pairs, count);
  cluster_counted_relation(n, minpoints, pairs, uf, core, count, claimer, rep);
}

}  // namespace gd
