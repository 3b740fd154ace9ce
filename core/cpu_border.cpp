// cpu_border.cpp — representatives: core points take their set's root; a
// border point x takes the root of its first claimer, the core point r with
// the smallest point index such that within(r, x) (r's view: PostGIS visits
// rows in order and the first core point whose search reaches x keeps it);
// the rest is noise.  first_claimer() also serves the union stage, for the
// core pairs that see each other one way only (cpu_union.cpp).
#include <algorithm>

#include "cpu_phases.hpp"

namespace gd {

uint32_t first_claimer(const Grid& grid, const CoreLists& lists, double eps, double t,
                       uint32_t x, const CellRange* rows) {
  const double* xs = grid.xs.data();
  const double* ys = grid.ys.data();
  const uint32_t* perm = grid.perm.data();
  const double px = xs[x], py = ys[x];
  uint32_t best_index = kNoise, best = kNoise;
  for (int a = 0; a < WindowCursor::kRows; ++a) {
    const uint32_t end = lists.first[rows[a].end];
    for (uint32_t k = lists.first[rows[a].begin]; k < end; ++k) {
      const uint32_t q = lists.core[k];
      // The searcher is q: its box, rounded at q, must hold x.
      if (perm[q] < best_index && sees(xs[q], ys[q], px, py, eps, t)) {
        best_index = perm[q];
        best = q;
      }
    }
  }
  return best;
}

uint32_t first_claimer(const Grid& grid, const CoreLists& lists, double eps, uint32_t x) {
  // The cell holding sorted position x.
  const uint32_t c = static_cast<uint32_t>(
      std::upper_bound(grid.start.begin(), grid.start.end(), x) - grid.start.begin() - 1);
  WindowCursor window(grid);
  CellRange rows[WindowCursor::kRows];
  window.cells_at(c, rows);
  return first_claimer(grid, lists, eps, eps_threshold(eps), x, rows);
}

void assign_borders(const Grid& grid, double eps, const CoreFlags& flags,
                    const CoreLists& lists, const AtomicUnionFind& uf, uint32_t* rep, ThreadTeam& team) {
  const uint32_t* perm = grid.perm.data();
  const uint8_t* f = flags.data();
  const double t = eps_threshold(eps);
  auto find = [&uf](uint32_t i) { return uf.find(i); };

  team.for_dynamic(grid.cells.size(), cell_grain(grid, team), [&](size_t c0, size_t c1) {
    WindowCursor window(grid);
    WorkPoller poller(team.cancel());
    CellRange rows[WindowCursor::kRows];
    bool have_rows = false;
    for (size_t c = c0; c < c1; ++c, have_rows = false) {
      const uint32_t b = grid.start[c], e = grid.start[c + 1];
      for (uint32_t p = b; p < e; ++p) {
        const bool core = f[p] & kCoreFlag;
        uint32_t claimer = kNoise;
        if (!core) {
          if (!have_rows) {
            window.cells_at(static_cast<uint32_t>(c), rows);
            have_rows = true;
          }
          claimer = first_claimer(grid, lists, eps, t, p, rows);
          size_t work = 0;
          for (const CellRange& range : rows) work += range.end - range.begin;
          poller.add(work);
        }
        rep[perm[p]] = representative(core, p, claimer, find);
      }
    }
  });
}

}  // namespace gd
