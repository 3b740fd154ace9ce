// cpu_pairs.cpp — candidate neighbour pairs of boxes: a sweep along the axis
// of larger extent, over boxes sorted by their lower bound on that axis; the
// scan from each box stops at the first box that starts beyond its upper
// bound plus eps.
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

#include "cpu_grid.hpp"
#include "cpu_phases.hpp"
#include "graph.hpp"
#include "pair_collect.hpp"
#include "parallel.hpp"

namespace gd {

namespace {

// A box seen along the sweep axis (lo, hi) and the other axis (olo, ohi).
struct SweepBox {
  double lo, hi, olo, ohi;
  uint32_t row;
};

bool is_geometry(uint8_t kind) { return kind == GD_ROW_POINT || kind == GD_ROW_OTHER; }

}  // namespace

void candidate_pairs(const gd_box* boxes, const uint8_t* row_kind, int64_t nrows, double eps,
                     const gd_params& params, const CancelToken& cancel, gd_pair_list* out,
                     int64_t max_pairs) {
  out->pairs = nullptr;
  out->count = 0;

  std::vector<uint32_t> rows;
  double xext = 0, yext = 0, scale = 0;
  {
    double xmin = INFINITY, xmax = -INFINITY, ymin = INFINITY, ymax = -INFINITY;
    for (int64_t r = 0; r < nrows; ++r) {
      if (!is_geometry(row_kind[r])) continue;
      const gd_box& b = boxes[r];
      if (!(std::isfinite(b.xmin) && std::isfinite(b.ymin) && std::isfinite(b.xmax) &&
            std::isfinite(b.ymax)))
        throw Error(GD_ERR_INVALID, "row " + std::to_string(r) + " has a non-finite coordinate");
      if (!(b.xmin <= b.xmax && b.ymin <= b.ymax))
        throw Error(GD_ERR_INVALID, "row " + std::to_string(r) + " has a box with min > max");
      rows.push_back(static_cast<uint32_t>(r));
      xmin = std::min(xmin, b.xmin);
      xmax = std::max(xmax, b.xmax);
      ymin = std::min(ymin, b.ymin);
      ymax = std::max(ymax, b.ymax);
    }
    if (rows.size() < 2) return;
    xext = xmax - xmin;
    yext = ymax - ymin;
    scale = std::max({std::fabs(xmin), std::fabs(xmax), std::fabs(ymin), std::fabs(ymax)});
  }
  const double within = neighbour_reach(eps) * (1 + 1e-9) + 1e-12 * scale;

  const bool along_x = xext >= yext;
  std::vector<SweepBox> sb(rows.size());
  for (size_t k = 0; k < rows.size(); ++k) {
    const gd_box& b = boxes[rows[k]];
    sb[k] = along_x ? SweepBox{b.xmin, b.xmax, b.ymin, b.ymax, rows[k]}
                    : SweepBox{b.ymin, b.ymax, b.xmin, b.xmax, rows[k]};
  }
  rows.clear();
  rows.shrink_to_fit();
  std::sort(sb.begin(), sb.end(), [](const SweepBox& a, const SweepBox& b) {
    return a.lo < b.lo || (a.lo == b.lo && a.row < b.row);
  });

  const size_t n = sb.size();
  ThreadTeam team(resolve_threads(params, n), cancel);
  collect_pairs(
      n, 512, team, max_pairs, "candidate pairs",
      [&](size_t begin, size_t end, auto&& emit) {
        WorkPoller poller(cancel);
        for (size_t a = begin; a < end; ++a) {
          const SweepBox& A = sb[a];
          size_t b = a + 1;
          for (; b < n && sb[b].lo - A.hi <= within; ++b) {
            const SweepBox& B = sb[b];
            if (std::max(B.olo - A.ohi, A.olo - B.ohi) <= within)
              emit(A.row < B.row ? gd_pair{A.row, B.row} : gd_pair{B.row, A.row});
          }
          poller.add(b - a);
        }
      },
      out);
}

}  // namespace gd
