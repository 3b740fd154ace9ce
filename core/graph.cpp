// graph.cpp — DBSCAN over an explicit neighbour graph (non-point geometries,
// geography): the rows checked and compacted, the edges handed as pairs to
// the rules (rules/relation_dbscan.hpp), ids by labels.cpp.
#include <algorithm>
#include <utility>
#include <string>
#include <vector>

#include "graph.hpp"
#include "rules/relation_dbscan.hpp"
#include "union_find.hpp"

namespace gd {

void cluster_graph_levels(const uint8_t* row_kind, int64_t nrows, const gd_pair* edges,
                          int64_t nedges, const int64_t* minpoints, size_t nvalues,
                          int32_t* const* ids, uint8_t* core_out, const uint8_t* dirs) {
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
  // Edge k as (a, b) with a < b (compact index order is row order), rel bit
  // 0 when a sees b (a's search finds b), bit 1 when b sees a.
  auto pairs = [&](auto&& fn) {
    for (int64_t k = 0; k < nedges; ++k) {
      uint32_t a = node[edges[k].i], b = node[edges[k].j];
      const unsigned d = dirs ? dirs[k] : static_cast<unsigned>(GD_EDGE_BOTH);
      unsigned rel = (d & GD_EDGE_I_SEES_J ? 1u : 0u) | (d & GD_EDGE_J_SEES_I ? 2u : 0u);
      if (a > b) {
        std::swap(a, b);
        rel = (rel >> 1) | ((rel & 1u) << 1);
      }
      fn(a, b, rel);
    }
  };

  AtomicUnionFind uf(n);
  std::vector<uint8_t> core(n);
  std::vector<uint32_t> count(n), claimer(n), rep(n);
  count_relation(n, pairs, count.data());  // the same for every value
  for (size_t k = 0; k < nvalues; ++k) {
    cluster_counted_relation(n, minpoints[k], pairs, uf, core.data(), count.data(),
                             claimer.data(), rep.data());
    assign_ids(row_kind, nrows, rep.data(), minpoints[k], ids[k]);
  }
  if (core_out) std::copy(core.begin(), core.end(), core_out);
}

void cluster_graph(const uint8_t* row_kind, int64_t nrows, const gd_pair* edges, int64_t nedges,
                   int64_t minpoints, int32_t* cluster_ids, uint8_t* core_out,
                   const uint8_t* dirs) {
  cluster_graph_levels(row_kind, nrows, edges, nedges, &minpoints, 1, &cluster_ids, core_out,
                       dirs);
}

}  // namespace gd
