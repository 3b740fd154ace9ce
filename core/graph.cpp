// graph.cpp — DBSCAN over an explicit neighbour graph (non-point geometries):
// out-degrees, core flags, union of core pairs by the later row's view and
// of every row with its first claimer, border rows to their first claimer,
// ids by labels.cpp.  The rules are those of the point path (cpu_union.cpp,
// cpu_border.cpp) over a relation given edge by edge.
#include <algorithm>
#include <utility>
#include <string>
#include <vector>

#include "graph.hpp"
#include "union_find.hpp"

namespace gd {

void cluster_graph(const uint8_t* row_kind, int64_t nrows, const gd_pair* edges, int64_t nedges,
                   int64_t minpoints, int32_t* cluster_ids, uint8_t* core_out,
                   const uint8_t* dirs) {
  // Compact index of each geometry row, in row order.
  constexpr uint32_t kNone = UINT32_MAX;
  std::vector<uint32_t> node(static_cast<size_t>(nrows), kNone);
  uint32_t n = 0;
  for (int64_t r = 0; r < nrows; ++r) {
    switch (row_kind[r]) {
      case GD_ROW_POINT:
      case GD_ROW_OTHER:
        node[r] = n++;
        break;
      case GD_ROW_EMPTY:
      case GD_ROW_NULL:
        break;
      default:
        throw Error(GD_ERR_INVALID, "row " + std::to_string(r) + " has an unknown kind " +
                                        std::to_string(static_cast<int>(row_kind[r])));
    }
  }
  for (int64_t k = 0; k < nedges; ++k) {
    const gd_pair& e = edges[k];
    if (e.i >= nrows || e.j >= nrows || e.i == e.j || node[e.i] == kNone || node[e.j] == kNone)
      throw Error(GD_ERR_INVALID, "edge " + std::to_string(k) + " (" + std::to_string(e.i) + ", " +
                                      std::to_string(e.j) +
                                      ") does not join two distinct non-empty rows");
  }
  if (dirs) {
    for (int64_t k = 0; k < nedges; ++k)
      if (dirs[k] < GD_EDGE_I_SEES_J || dirs[k] > GD_EDGE_BOTH)
        throw Error(GD_ERR_INVALID, "edge " + std::to_string(k) + " has an unknown direction " +
                                        std::to_string(static_cast<int>(dirs[k])));
  }
  // Edge k as (a, b) with a < b (compact index order is row order) and
  // whether a sees b (a's search finds b) and b sees a.
  auto oriented = [&](int64_t k, uint32_t& a, uint32_t& b, bool& a_sees_b, bool& b_sees_a) {
    a = node[edges[k].i];
    b = node[edges[k].j];
    const unsigned d = dirs ? dirs[k] : static_cast<unsigned>(GD_EDGE_BOTH);
    bool i_sees_j = d & GD_EDGE_I_SEES_J, j_sees_i = d & GD_EDGE_J_SEES_I;
    if (a > b) {
      std::swap(a, b);
      std::swap(i_sees_j, j_sees_i);
    }
    a_sees_b = i_sees_j;
    b_sees_a = j_sees_i;
  };

  // Core: at least minpoints neighbours in the row's own view, itself included.
  std::vector<uint8_t> core(n, 1);
  if (minpoints >= 2) {
    std::vector<int64_t> degree(n, 1);
    for (int64_t k = 0; k < nedges; ++k) {
      uint32_t a, b;
      bool ab, ba;
      oriented(k, a, b, ab, ba);
      degree[a] += ab;
      degree[b] += ba;
    }
    for (uint32_t v = 0; v < n; ++v) core[v] = degree[v] >= minpoints;
  }

  AtomicUnionFind uf(n);
  for (uint32_t v = 0; v < n; ++v) uf.init(v, v);
  // First claimer of each node: the smallest core node that sees it.
  std::vector<uint32_t> claimer(n, kNone);
  for (int64_t k = 0; k < nedges; ++k) {
    uint32_t a, b;
    bool ab, ba;
    oriented(k, a, b, ab, ba);
    if (minpoints <= 1) {
      uf.unite(a, b);  // union_dbscan_minpoints_1: either direction joins
      continue;
    }
    if (core[a] && core[b] && ba) uf.unite(a, b);  // the later row's view
    if (core[a] && ab) claimer[b] = std::min(claimer[b], a);
    if (core[b] && ba) claimer[a] = std::min(claimer[a], b);
  }
  // Every row joins its first claimer when that comes first (a core row
  // before its claimers claims itself; a later core claimer that sees it was
  // joined above by the later row's view).
  if (minpoints >= 2)
    for (uint32_t v = 0; v < n; ++v)
      if (core[v] && claimer[v] != kNone && claimer[v] < v) uf.unite(v, claimer[v]);

  std::vector<uint32_t> rep(n);
  for (uint32_t v = 0; v < n; ++v)
    rep[v] = core[v] ? uf.find(v) : claimer[v] != kNone ? uf.find(claimer[v]) : kNoise;
  assign_ids(row_kind, nrows, rep.data(), minpoints, cluster_ids);
  if (core_out) std::copy(core.begin(), core.end(), core_out);
}

}  // namespace gd
