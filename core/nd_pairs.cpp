// nd_pairs.cpp — every pair of n-D points within a threshold, or within it
// and not within an inner one (see nd_points.hpp): the geography path asks
// for the pairs of unit-sphere points near the edge of its chord, or within
// a chord a little longer than eps, and decides them with PostGIS.  Each
// pair is found once, from its smaller sorted position; the list is counted
// before it is written (pair_collect.hpp).
#include <algorithm>

#include "cpu_phases.hpp"
#include "nd_points.hpp"
#include "pair_collect.hpp"

namespace gd {

void nd_neighbour_pairs(const NdPointsView& pts, const uint32_t* row_of, double eps,
                        const gd_params& params, const CancelToken& cancel, gd_pair_list* out,
                        int64_t max_pairs, double inner) {
  out->pairs = nullptr;
  out->count = 0;
  if (pts.n < 2) return;
  if (params.backend == GD_BACKEND_GPU && pts.dims >= 3) {  // the device's grid: 3 to 8
    gpu_nd_pairs(pts, row_of, eps, params, cancel, out, max_pairs, inner);
    return;
  }
  ThreadTeam team(resolve_threads(params, pts.n), cancel);
  nd_neighbour_pairs(build_nd_grid(pts, eps, false, team), row_of, eps, team, out, max_pairs,
                     inner);
}

void nd_neighbour_pairs(const NdGrid& grid, const uint32_t* row_of, double eps, ThreadTeam& team,
                        gd_pair_list* out, int64_t max_pairs, double inner) {
  out->pairs = nullptr;
  out->count = 0;
  const CancelToken& cancel = team.cancel();
  const uint32_t ncells = grid.ncells();
  const size_t grain = std::max<size_t>(1, std::min<size_t>(256, ncells / (team.size() * 32u)));

  dispatch_dims(grid.dims, [&](auto dims) {
    constexpr int D = decltype(dims)::value;
    const uint32_t* perm = grid.perm.data();
    collect_pairs(
        ncells, grain, team, max_pairs, "neighbour pairs",
        [&](size_t c0, size_t c1, auto&& emit) {
          NdWindow window(grid);
          WorkPoller poller(cancel);
          CellRange rows[NdWindow::kMaxRanges];
          for (size_t c = c0; c < c1; ++c) {
            const int nrows = window.cells_at(static_cast<uint32_t>(c), rows);
            for (uint32_t p = grid.start[c]; p < grid.start[c + 1]; ++p) {
              const double* pp = grid.point(p);
              const NdGrid::Reach reach = grid.slab_reach(pp, eps);
              for (int r = 0; r < nrows; ++r) {
                for (uint32_t n = rows[r].begin; n < rows[r].end; ++n) {
                  if (grid.start[n + 1] <= p + 1) continue;  // each pair once, from p < q
                  const PointRange sl = grid.slab(n, reach);
                  for (uint32_t q = std::max(sl.begin, p + 1); q < sl.end; ++q) {
                    if (within_eps_d<D>(pp, grid.point(q), eps) &&
                        !(inner >= 0 && within_eps_d<D>(pp, grid.point(q), inner)))
                      emit(ordered_pair(row_of[perm[p]], row_of[perm[q]]));
                  }
                  poller.add(sl.end - sl.begin + 1);
                }
              }
            }
          }
        },
        out);
  });
}

double nd_sample_pairs_per_point(const NdGrid& grid, double eps, uint32_t samples, uint32_t cap) {
  const uint32_t n = static_cast<uint32_t>(grid.perm.size());
  if (n < 2 || samples == 0) return 0;
  samples = std::min(samples, n);
  double seen = 0;
  dispatch_dims(grid.dims, [&](auto dims) {
    constexpr int D = decltype(dims)::value;
    NdWindow window(grid);
    CellRange rows[NdWindow::kMaxRanges];
    uint32_t c = 0;  // the cell of p: sorted positions rise with the samples
    for (uint32_t s = 0; s < samples; ++s) {
      const uint32_t p = static_cast<uint32_t>(static_cast<uint64_t>(n) * s / samples);
      while (grid.start[c + 1] <= p) ++c;
      const double* pp = grid.point(p);
      const NdGrid::Reach reach = grid.slab_reach(pp, eps);
      const int nrows = window.cells_at(c, rows);
      uint32_t count = 0;
      for (int r = 0; r < nrows && count < cap; ++r)
        for (uint32_t m = rows[r].begin; m < rows[r].end && count < cap; ++m) {
          const PointRange sl = grid.slab(m, reach);
          for (uint32_t q = sl.begin; q < sl.end && count < cap; ++q)
            count += q != p && within_eps_d<D>(pp, grid.point(q), eps);
        }
      seen += count;
    }
  });
  return seen / samples / 2;  // each pair has two ends
}

}  // namespace gd
