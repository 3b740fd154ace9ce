// cpu_union.cpp — connecting core points within eps of each other.
//
// Every point of a dense cell starts in one set.  Then each pair of core
// points within eps is joined once:
//   - a dense cell D, as a whole, against every core point q of its window
//     outside D, except points of dense cells sorted before D (that cell
//     already met D's points as its q's): a distance test between q and D's
//     points until one is within eps;
//   - a core point p of a non-dense cell against the core points q > p of its
//     window that are not in dense cells (those were met by their cell).
// A pair already in one set is skipped without a distance test.
#include <algorithm>

#include "cpu_phases.hpp"
#include "cpu_window.hpp"

namespace gd {

namespace {

// Points of a dense cell [b, e) against the window of that cell.
void union_dense_cell(uint32_t b, uint32_t e, const PointRange* rows, const double* xs,
                      const double* ys, const uint8_t* f, double eps, double reach,
                      AtomicUnionFind& uf, WorkPoller& poller) {
  double x0 = xs[b], x1 = xs[b], y0 = ys[b], y1 = ys[b];
  for (uint32_t i = b + 1; i < e; ++i) {
    x0 = std::min(x0, xs[i]);
    x1 = std::max(x1, xs[i]);
    y0 = std::min(y0, ys[i]);
    y1 = std::max(y1, ys[i]);
  }
  for (int a = 0; a < WindowCursor::kRows; ++a) {
    const PointRange& r = rows[a];
    size_t work = r.end - r.begin;
    for (uint32_t q = r.begin; q < r.end; ++q) {
      if (q == b) {  // skip the cell itself
        q = e - 1;
        continue;
      }
      const uint8_t fq = f[q];
      if (!(fq & kCoreFlag) || ((fq & kDenseFlag) && q < b)) continue;
      const double qx = xs[q], qy = ys[q];
      // Every point of the box is at least this far from q on one axis: when
      // that exceeds the reach of eps, no distance test can succeed.
      double gx = std::max(x0 - qx, qx - x1), gy = std::max(y0 - qy, qy - y1);
      if (gx > reach || gy > reach) continue;
      uint32_t rq = uf.find(q), rb = uf.find(b);
      if (rq == rb) continue;
      uint32_t p = b;
      while (p < e && !within_eps(xs[p], ys[p], qx, qy, eps)) ++p;
      if (p < e) uf.unite(rb, rq);
      work += p - b;
    }
    poller.add(work);
  }
}

// Core points of a non-dense cell [b, e) against the non-dense core points q > p.
void union_sparse_cell(uint32_t b, uint32_t e, const PointRange* rows, const double* xs,
                       const double* ys, const uint8_t* f, double eps, AtomicUnionFind& uf,
                       WorkPoller& poller) {
  for (uint32_t p = b; p < e; ++p) {
    if (!(f[p] & kCoreFlag)) continue;
    const double px = xs[p], py = ys[p];
    size_t work = 0;
    for (int a = 0; a < WindowCursor::kRows; ++a) {
      const uint32_t begin = std::max(rows[a].begin, p + 1);
      for (uint32_t q = begin; q < rows[a].end; ++q) {
        if (f[q] != kCoreFlag) continue;  // not core, or in a dense cell
        uint32_t rp = uf.find(p), rq = uf.find(q);
        if (rp != rq && within_eps(px, py, xs[q], ys[q], eps)) uf.unite(rp, rq);
      }
      if (rows[a].end > begin) work += rows[a].end - begin;
    }
    poller.add(work);
  }
}

}  // namespace

void union_core_points(const Grid& grid, double eps, const std::vector<uint8_t>& flags,
                       AtomicUnionFind& uf, ThreadTeam& team) {
  const double* xs = grid.xs.data();
  const double* ys = grid.ys.data();
  const uint8_t* f = flags.data();
  const double reach = neighbour_reach(eps) * (1 + 1e-9);
  const size_t grain = cell_grain(grid, team);

  // Singletons, except that a dense cell is one set rooted at its first point.
  team.for_dynamic(grid.cells.size(), grain, [&](size_t c0, size_t c1) {
    for (size_t c = c0; c < c1; ++c) {
      const uint32_t b = grid.start[c], e = grid.start[c + 1];
      const bool dense = f[b] & kDenseFlag;
      for (uint32_t i = b; i < e; ++i) uf.init(i, dense ? b : i);
    }
  });

  team.for_dynamic(grid.cells.size(), grain, [&](size_t c0, size_t c1) {
    WindowCursor window(grid);
    WorkPoller poller(team.cancel());
    PointRange rows[WindowCursor::kRows];
    for (size_t c = c0; c < c1; ++c) {
      const uint32_t b = grid.start[c], e = grid.start[c + 1];
      if (f[b] & kDenseFlag) {
        window.at(static_cast<uint32_t>(c), rows);
        union_dense_cell(b, e, rows, xs, ys, f, eps, reach, uf, poller);
        continue;
      }
      bool any_core = false;
      for (uint32_t p = b; p < e && !any_core; ++p) any_core = f[p] & kCoreFlag;
      if (!any_core) continue;
      window.at(static_cast<uint32_t>(c), rows);
      union_sparse_cell(b, e, rows, xs, ys, f, eps, uf, poller);
    }
  });
}

}  // namespace gd
