// cpu_sweep.cpp — the CPU minpoints sweep (see sweep.hpp).
//
// With levels m[0] < ... < m[K-1], a point's depth is the number of levels at
// which it is core: #{k : m[k] <= count}, counts capped at m[K-1].  Core sets
// are nested (core at level k = depth > k), so:
//   - the largest level is clustered by the phases of one clustering
//     (mark_core_points, which also yields the counts, and union_core_points);
//   - going down one level only adds core points (depth == k + 1) and the
//     edges they bring: those are united into the same union-find, each new
//     point against the core points of its window, and the sets after level
//     k are the clusters of level k;
//   - a border point's cluster at level k is that of its core neighbour with
//     the smallest point index among those of depth > k: one scan of each
//     point that is not core everywhere records, per depth, the smallest such
//     neighbour, and a suffix minimum gives every level at once.
#include <algorithm>
#include <chrono>

#include "cpu_phases.hpp"
#include "cpu_window.hpp"
#include "sweep.hpp"

namespace gd {

namespace {

using Depth = uint16_t;

double lap(std::chrono::steady_clock::time_point& last) {
  auto now = std::chrono::steady_clock::now();
  double s = std::chrono::duration<double>(now - last).count();
  last = now;
  return s;
}

// depth[p] = #{k : levels[k] <= counts[p]}.
std::vector<Depth> point_depths(const std::vector<uint32_t>& counts,
                                const std::vector<int64_t>& levels, ThreadTeam& team) {
  std::vector<Depth> depth(counts.size());
  team.for_static(counts.size(), [&](int, size_t begin, size_t end) {
    for (size_t p = begin; p < end; ++p)
      depth[p] = static_cast<Depth>(
          std::upper_bound(levels.begin(), levels.end(), static_cast<int64_t>(counts[p])) -
          levels.begin());
  });
  return depth;
}

// For each point p that is not core at every level, and each level
// k >= depth[p] (where p is not core): best[k][p] = the sorted position of
// p's neighbour of depth > k with the smallest point index, or kNoise.
void border_levels(const Grid& grid, double eps, const std::vector<Depth>& depth, size_t nlevels,
                   uint32_t* const* best, ThreadTeam& team) {
  const double* xs = grid.xs.data();
  const double* ys = grid.ys.data();
  const uint32_t* perm = grid.perm.data();
  const Depth* d = depth.data();
  const Depth top = static_cast<Depth>(nlevels);

  team.for_dynamic(grid.cells.size(), cell_grain(grid, team), [&](size_t c0, size_t c1) {
    WindowCursor window(grid);
    WorkPoller poller(team.cancel());
    PointRange rows[WindowCursor::kRows];
    // smallest point index (and its sorted position) among neighbours of depth j + 1
    std::vector<uint32_t> first_index(nlevels), first_pos(nlevels);
    for (size_t c = c0; c < c1; ++c) {
      const uint32_t b = grid.start[c], e = grid.start[c + 1];
      bool have_rows = false;
      for (uint32_t p = b; p < e; ++p) {
        const Depth dp = d[p];
        if (dp == top) continue;  // core at every level
        if (!have_rows) {
          window.at(static_cast<uint32_t>(c), rows);
          have_rows = true;
        }
        std::fill(first_index.begin() + dp, first_index.end(), kNoise);
        size_t work = 0;
        for (const PointRange& r : rows) {
          for (uint32_t q = r.begin; q < r.end; ++q) {
            const Depth dq = d[q];
            if (dq <= dp || perm[q] >= first_index[dq - 1]) continue;
            if (within_eps(xs[p], ys[p], xs[q], ys[q], eps)) {
              first_index[dq - 1] = perm[q];
              first_pos[dq - 1] = q;
            }
          }
          work += r.end - r.begin;
        }
        // Level k sees the neighbours of every depth above k.
        uint32_t index = kNoise, pos = kNoise;
        for (size_t k = nlevels; k-- > dp;) {
          if (first_index[k] < index) {
            index = first_index[k];
            pos = first_pos[k];
          }
          best[k][p] = pos;
        }
        poller.add(work + nlevels);
      }
    }
  });
}

// Cells holding a point of each depth 1..nlevels-1, ascending.
std::vector<std::vector<uint32_t>> cells_by_depth(const Grid& grid, const std::vector<Depth>& depth,
                                                  size_t nlevels) {
  std::vector<std::vector<uint32_t>> cells(nlevels);
  std::vector<uint32_t> last(nlevels, UINT32_MAX);
  for (uint32_t c = 0; c < grid.ncells(); ++c) {
    for (uint32_t p = grid.start[c]; p < grid.start[c + 1]; ++p) {
      const Depth dp = depth[p];
      if (dp == 0 || dp == nlevels || last[dp] == c) continue;
      last[dp] = c;
      cells[dp].push_back(c);
    }
  }
  return cells;
}

// Level k's new core points (depth k + 1) joined to every core point of
// level k within eps; a pair of two new points is met from its first.
void union_level(const Grid& grid, double eps, const std::vector<Depth>& depth, Depth level,
                 const std::vector<uint32_t>& cells, AtomicUnionFind& uf, ThreadTeam& team) {
  const double* xs = grid.xs.data();
  const double* ys = grid.ys.data();
  const Depth* d = depth.data();
  const Depth fresh = static_cast<Depth>(level + 1);

  team.for_dynamic(cells.size(), 16, [&](size_t i0, size_t i1) {
    WindowCursor window(grid);
    WorkPoller poller(team.cancel());
    PointRange rows[WindowCursor::kRows];
    for (size_t i = i0; i < i1; ++i) {
      const uint32_t c = cells[i];
      window.at(c, rows);
      for (uint32_t p = grid.start[c]; p < grid.start[c + 1]; ++p) {
        if (d[p] != fresh) continue;
        uint32_t rp = uf.find(p);
        size_t work = 0;
        for (const PointRange& r : rows) {
          for (uint32_t q = r.begin; q < r.end; ++q) {
            if (d[q] < fresh || (d[q] == fresh && q <= p)) continue;
            uint32_t rq = uf.find(q);
            if (rq != rp && within_eps(xs[p], ys[p], xs[q], ys[q], eps)) {
              uf.unite(rp, rq);
              rp = uf.find(rp);
            }
          }
          work += r.end - r.begin;
        }
        poller.add(work);
      }
    }
  });
}

}  // namespace

void cpu_sweep(const PointsView& pts, double eps, const std::vector<int64_t>& levels,
               const gd_params& params, const CancelToken& cancel, uint32_t* const* best,
               const SweepEmit& emit, gd_run_stats& stats) {
  stats.backend = GD_BACKEND_CPU;
  stats.points = pts.n;
  const size_t nlevels = levels.size();
  if (nlevels == 0 || nlevels > UINT16_MAX) throw Error(GD_ERR_INTERNAL, "bad sweep level count");
  if (pts.n == 0) {
    for (size_t k = nlevels; k-- > 0;) emit(k, nullptr);
    return;
  }
  ThreadTeam team(resolve_threads(params.threads, pts.n), cancel);
  auto watch = std::chrono::steady_clock::now();

  Grid grid = build_grid(pts, eps, team);
  stats.cells = grid.ncells();
  stats.t_sort += lap(watch);

  // Counts capped at the largest level, whose core flags they also give.
  std::vector<uint8_t> flags;
  std::vector<uint32_t> counts(pts.n);
  mark_core_points(grid, eps, levels.back(), flags, team, counts.data());
  const std::vector<Depth> depth = point_depths(counts, levels, team);
  std::vector<uint32_t>().swap(counts);
  stats.t_core += lap(watch);

  border_levels(grid, eps, depth, nlevels, best, team);
  const auto cells = cells_by_depth(grid, depth, nlevels);
  stats.t_label += lap(watch);

  AtomicUnionFind uf(pts.n);
  union_core_points(grid, eps, flags, uf, team);
  std::vector<uint8_t>().swap(flags);
  stats.t_union += lap(watch);

  std::vector<uint32_t> rep(pts.n);
  const uint32_t* perm = grid.perm.data();
  for (size_t k = nlevels; k-- > 0;) {
    if (k + 1 < nlevels) union_level(grid, eps, depth, static_cast<Depth>(k), cells[k + 1], uf, team);
    stats.t_union += lap(watch);

    const uint32_t* bk = best[k];
    team.for_static(pts.n, [&](int, size_t begin, size_t end) {
      for (size_t p = begin; p < end; ++p) {
        uint32_t r = depth[p] > k          ? uf.find(static_cast<uint32_t>(p))
                     : bk[p] != kNoise     ? uf.find(bk[p])
                                           : kNoise;
        rep[perm[p]] = r;
      }
    });
    emit(k, rep.data());
    stats.t_label += lap(watch);
  }
}

}  // namespace gd
