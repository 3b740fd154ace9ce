// cpu_border.cpp — representatives: core points take their set's root; a
// border point takes the root of its core neighbour with the smallest point
// index (PostGIS visits rows in order and the first core point to reach a
// border point keeps it); the rest is noise.
#include <algorithm>

#include "cpu_phases.hpp"
#include "cpu_window.hpp"

namespace gd {

void assign_borders(const Grid& grid, double eps, const std::vector<uint8_t>& flags,
                    const AtomicUnionFind& uf, uint32_t* rep, ThreadTeam& team) {
  const double* xs = grid.xs.data();
  const double* ys = grid.ys.data();
  const uint32_t* perm = grid.perm.data();
  const uint8_t* f = flags.data();

  team.for_dynamic(grid.cells.size(), cell_grain(grid, team), [&](size_t c0, size_t c1) {
    WindowCursor window(grid);
    WorkPoller poller(team.cancel());
    PointRange rows[WindowCursor::kRows];
    bool have_rows = false;
    for (size_t c = c0; c < c1; ++c, have_rows = false) {
      const uint32_t b = grid.start[c], e = grid.start[c + 1];
      for (uint32_t p = b; p < e; ++p) {
        if (f[p] & kCoreFlag) {
          rep[perm[p]] = uf.find(p);
          continue;
        }
        if (!have_rows) {
          window.at(static_cast<uint32_t>(c), rows);
          have_rows = true;
        }
        const double px = xs[p], py = ys[p];
        uint32_t best_index = kNoise, best = 0;
        size_t work = 0;
        for (const PointRange& r : rows) {
          for (uint32_t q = r.begin; q < r.end; ++q) {
            if ((f[q] & kCoreFlag) && perm[q] < best_index &&
                within_eps(px, py, xs[q], ys[q], eps)) {
              best_index = perm[q];
              best = q;
            }
          }
          work += r.end - r.begin;
        }
        rep[perm[p]] = best_index == kNoise ? kNoise : uf.find(best);
        poller.add(work);
      }
    }
  });
}

}  // namespace gd
