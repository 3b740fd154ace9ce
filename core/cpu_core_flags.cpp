// cpu_core_flags.cpp — which points have at least minpoints neighbours,
// counted from each point's own view: #{q : within(p, q)} (rules/neighbour.hpp), with the early exit of CoreCount.
//
// A cell whose points' bounding box has corners c0 = (xmin, ymin) and
// c1 = (xmax, ymax) with within(c0, c1) and within(c1, c0) holds points that
// are pairwise neighbours both ways (every operation of within() is
// monotone: for p, q in the box, qx <= xmax <= fl(xmin + eps) <= fl(px + eps)
// and |fl(qx - px)| <= fl(xmax - xmin), likewise on y); with at least
// minpoints points it is dense: all its points are core, with no distance
// test.  It is also marked dense when its points turn out to be core one by
// one, so that the union stage joins it as a whole.
#include <algorithm>

#include "cpu_phases.hpp"
#include "cpu_window.hpp"

namespace gd {

namespace {

// How many of the sorted points [b, e) p sees.
int64_t count_seen(const double* xs, const double* ys, uint32_t b, uint32_t e,
                   const QueryBox& box, double px, double py, double t) {
  int64_t k = 0;
  for (uint32_t q = b; q < e; ++q) k += sees_bit(box, px, py, xs[q], ys[q], t);
  return k;
}

}  // namespace

void mark_core_points(const Grid& grid, double eps, int64_t minpoints, CoreFlags& flags,
                      ThreadTeam& team, uint32_t* counts) {
  const double* xs = grid.xs.data();
  const double* ys = grid.ys.data();
  const int64_t need = core_need(minpoints);
  const double t = eps_threshold(eps);
  flags.assign(grid.xs.size(), 0);
  uint8_t* f = flags.data();

  team.for_dynamic(grid.cells.size(), cell_grain(grid, team), [&](size_t c0, size_t c1) {
    WindowCursor window(grid);
    WorkPoller poller(team.cancel());
    for (size_t c = c0; c < c1; ++c) {
      const uint32_t b = grid.start[c], e = grid.start[c + 1];
      const CellBox box = cell_box(grid, c);
      // All pairs are neighbours, both ways.
      const bool small = pairwise_neighbours(box, eps, t);
      if (small && static_cast<int64_t>(e - b) >= need) {
        std::fill(f + b, f + e, kCoreFlag | kDenseFlag);
        if (counts) std::fill(counts + b, counts + e, static_cast<uint32_t>(need));
        continue;
      }
      if (need <= 1) {  // every point is its own neighbour
        std::fill(f + b, f + e, small ? kCoreFlag | kDenseFlag : kCoreFlag);
        if (counts) std::fill(counts + b, counts + e, 1u);
        continue;
      }
      PointRange rows[WindowCursor::kRows];
      window.at(static_cast<uint32_t>(c), rows);
      bool all_core = true;
      // In a small cell, the cell's own points count without a test.
      const int64_t own = small ? static_cast<int64_t>(e - b) : 0;
      const PointRange skip = small ? PointRange{b, e} : PointRange{UINT32_MAX, UINT32_MAX};
      for (uint32_t p = b; p < e; ++p) {
        const double px = xs[p], py = ys[p];
        const QueryBox box = query_box(px, py, eps);
        CoreCount found(minpoints, own);  // rules/dbscan_rules.hpp: stops at need
        size_t visited = 0;
        // A column at a time (the early exit between columns), the small
        // cell's own points, counted already, left out.
        for (const PointRange& r : rows) {
          const int64_t k =
              skip.begin >= r.begin && skip.begin < r.end
                  ? count_seen(xs, ys, r.begin, skip.begin, box, px, py, t) +
                        count_seen(xs, ys, skip.end, r.end, box, px, py, t)
                  : count_seen(xs, ys, r.begin, r.end, box, px, py, t);
          visited += r.end - r.begin;
          if (found.add(k)) goto core;
        }
        all_core = false;
        if (counts) counts[p] = static_cast<uint32_t>(found.found);
        poller.add(visited);
        continue;
      core:
        f[p] = kCoreFlag;
        if (counts) counts[p] = static_cast<uint32_t>(need);
        poller.add(visited + need);
      }
      // A cell of core points that are pairwise neighbours is joined as a whole.
      if (small && all_core) std::fill(f + b, f + e, kCoreFlag | kDenseFlag);
    }
  });
}

}  // namespace gd
