// cpu_pairs.cpp — candidate neighbour pairs of boxes: each box queries a
// static R-tree of all the boxes (box_tree.hpp) for those within eps of it
// on both axes, and keeps the ones packed after it, so that every pair is
// found once.  (A sweep along one axis compared every pair of boxes that
// overlap along it however far apart they lie on the other: 300,000
// parallel lines took 50 s, ST_ClusterDBSCAN 3.2 s.)
//
// The test is |gap| <= eps on both axes, with a margin (eps * 1e-9 plus
// 1e-12 of the largest coordinate) so that rounding in the caller's exact
// distance can never make a pair within eps that the boxes rule out: the
// list is a superset, the exact test is the caller's.  The list is counted
// before it is written (pair_collect.hpp).
#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include "box_tree.hpp"
#include "cpu_grid.hpp"
#include "cpu_phases.hpp"
#include "graph.hpp"
#include "pair_collect.hpp"
#include "parallel.hpp"

namespace gd {

namespace {

bool is_geometry(uint8_t kind) { return kind == GD_ROW_POINT || kind == GD_ROW_OTHER; }

}  // namespace

void candidate_pairs(const gd_box* boxes, const uint8_t* row_kind, int64_t nrows, double eps,
                     const gd_params& params, const CancelToken& cancel, gd_pair_list* out,
                     int64_t max_pairs) {
  out->pairs = nullptr;
  out->count = 0;

  std::vector<uint32_t> rows;
  std::vector<BoxTree::Box> bs;
  double scale = 0;
  for (int64_t r = 0; r < nrows; ++r) {
    if (!is_geometry(row_kind[r])) continue;
    const gd_box& b = boxes[r];
    if (!(std::isfinite(b.xmin) && std::isfinite(b.ymin) && std::isfinite(b.xmax) &&
          std::isfinite(b.ymax)))
      throw Error(GD_ERR_INVALID, "row " + std::to_string(r) + " has a non-finite coordinate");
    if (!(b.xmin <= b.xmax && b.ymin <= b.ymax))
      throw Error(GD_ERR_INVALID, "row " + std::to_string(r) + " has a box with min > max");
    rows.push_back(static_cast<uint32_t>(r));
    bs.push_back(BoxTree::Box{b.xmin, b.ymin, b.xmax, b.ymax});
    scale = std::max({scale, std::fabs(b.xmin), std::fabs(b.xmax), std::fabs(b.ymin),
                      std::fabs(b.ymax)});
  }
  if (rows.size() < 2) return;
  const double within = neighbour_reach(eps) * (1 + 1e-9) + 1e-12 * scale;

  ThreadTeam team(resolve_threads(params, bs.size()), cancel);
  const BoxTree tree(bs, team);
  std::vector<BoxTree::Box>().swap(bs);
  const size_t n = tree.size();
  std::vector<uint32_t> row_at(n);  // packed position -> row
  for (size_t k = 0; k < n; ++k) row_at[k] = rows[tree.order(static_cast<uint32_t>(k))];
  std::vector<uint32_t>().swap(rows);
  if (params.backend == GD_BACKEND_GPU) {
    gpu_box_pairs(tree, row_at.data(), within, params, cancel, out, max_pairs);
    return;
  }
  collect_pairs(
      n, 512, team, max_pairs, "candidate pairs",
      [&](size_t begin, size_t end, auto&& emit) {
        WorkPoller poller(cancel);
        for (size_t a = begin; a < end; ++a) {
          poller.add(tree.query(tree.item(static_cast<uint32_t>(a)), within, [&](uint32_t b) {
            if (b > a) emit(ordered_pair(row_at[a], row_at[b]));
          }));
        }
      },
      out);
}

}  // namespace gd
