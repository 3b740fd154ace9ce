// graph.cpp — DBSCAN over an explicit neighbour graph (non-point geometries):
// degrees, core flags, union of core-core edges, border points to their
// core neighbour with the smallest row, ids by labels.cpp.
#include <algorithm>
#include <string>
#include <vector>

#include "graph.hpp"
#include "union_find.hpp"

namespace gd {

void cluster_graph(const uint8_t* row_kind, int64_t nrows, const gd_pair* edges, int64_t nedges,
                   int64_t minpoints, int32_t* cluster_ids, uint8_t* core_out) {
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
  // Core: at least minpoints neighbours, the node itself included.
  std::vector<uint8_t> core(n, 1);
  if (minpoints >= 2) {
    std::vector<int64_t> degree(n, 1);
    for (int64_t k = 0; k < nedges; ++k) {
      ++degree[node[edges[k].i]];
      ++degree[node[edges[k].j]];
    }
    for (uint32_t v = 0; v < n; ++v) core[v] = degree[v] >= minpoints;
  }

  AtomicUnionFind uf(n);
  for (uint32_t v = 0; v < n; ++v) uf.init(v, v);
  std::vector<uint32_t> border_of(n, kNone);  // smallest core neighbour of a non-core node
  for (int64_t k = 0; k < nedges; ++k) {
    uint32_t a = node[edges[k].i], b = node[edges[k].j];
    if (core[a] && core[b]) {
      uf.unite(a, b);
    } else if (core[a]) {
      border_of[b] = std::min(border_of[b], a);
    } else if (core[b]) {
      border_of[a] = std::min(border_of[a], b);
    }
  }

  std::vector<uint32_t> rep(n);
  for (uint32_t v = 0; v < n; ++v)
    rep[v] = core[v] ? uf.find(v) : border_of[v] != kNone ? uf.find(border_of[v]) : kNoise;
  assign_ids(row_kind, nrows, rep.data(), minpoints, cluster_ids);
  if (core_out) std::copy(core.begin(), core.end(), core_out);
}

}  // namespace gd
