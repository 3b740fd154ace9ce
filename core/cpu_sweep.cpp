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
//   - a border point's cluster at level k is that of its first claimer, the
//     core point of depth > k with the smallest point index that reaches it:
//     one scan of each point that is not core everywhere records, per depth,
//     the smallest such claimer, and a suffix minimum gives every level.
//
// That holds where the neighbour relation is symmetric.  PostGIS's is not
// always (rules/neighbour.hpp: p's box is rounded at p), and then a core
// point may hang on its first claimer through a pair that only the earlier row sees,
// which a new core point of a lower level can take over: the clusters of a
// lower level need not contain those of a higher one.  So when the scan
// meets a pair of points that are core at some level and see each other one
// way only, or the largest level's union joins a pair through a first
// claimer, each level is clustered on its own (exact, without the shared
// search; pairs seen one way only sit at the last bit of eps, which random
// data does not hit).  minpoints 1 (single linkage, pairs joined when
// either point sees the other) is always clustered on its own.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <utility>

#include "cpu_phases.hpp"
#include "stopwatch.hpp"
#include "cpu_window.hpp"
#include "sweep.hpp"

namespace gd {

namespace {

using Depth = uint16_t;

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

// What scan_levels takes from a small cell (its points pairwise neighbours
// both ways) without scanning it: its bounding box, its hub (first point of
// the greatest depth) and, per depth >= 1 present in it, the point of the
// smallest index (and its sorted position), ascending by depth, at
// entries[start[c] .. start[c] + ndepths[c]) (start: the grid's).
struct DepthMin {
  Depth depth;
  uint32_t index, pos;
};
struct CellDepths {
  MemoryCharge charge;  // memory_ledger.hpp
  std::vector<uint8_t> small;
  std::vector<CellBox> box;
  std::vector<uint32_t> hub, ndepths;
  std::vector<DepthMin> entries;
};

CellDepths cell_depths(const Grid& grid, double eps, const std::vector<Depth>& depth,
                       ThreadTeam& team) {
  const uint32_t ncells = grid.ncells();
  const uint32_t* perm = grid.perm.data();
  const Depth* d = depth.data();
  const double t = eps_threshold(eps);
  CellDepths cd;
  cd.charge = MemoryCharge(static_cast<int64_t>(ncells) * (1 + sizeof(CellBox) + 8) +
                               static_cast<int64_t>(grid.xs.size()) * sizeof(DepthMin),
                           "the sweep's cells");
  cd.small.assign(ncells, 0);
  cd.box.resize(ncells);
  cd.hub.assign(ncells, 0);
  cd.ndepths.assign(ncells, 0);
  cd.entries.resize(grid.xs.size());
  team.for_dynamic(ncells, cell_grain(grid, team), [&](size_t c0, size_t c1) {
    for (size_t c = c0; c < c1; ++c) {
      const uint32_t b = grid.start[c], e = grid.start[c + 1];
      const CellBox box = cell_box(grid, static_cast<uint32_t>(c));
      cd.box[c] = box;
      if (!pairwise_neighbours(box, eps, t)) continue;
      cd.small[c] = 1;
      uint32_t hub = b;
      for (uint32_t q = b + 1; q < e; ++q)
        if (d[q] > d[hub]) hub = q;
      cd.hub[c] = hub;
      DepthMin* out = cd.entries.data() + b;
      uint32_t k = 0;
      for (uint32_t q = b; q < e; ++q)
        if (d[q] > 0) out[k++] = DepthMin{d[q], perm[q], q};
      std::sort(out, out + k, [](const DepthMin& x, const DepthMin& y) {
        return x.depth < y.depth || (x.depth == y.depth && x.index < y.index);
      });
      uint32_t m = 0;
      for (uint32_t i = 0; i < k; ++i)
        if (m == 0 || out[m - 1].depth != out[i].depth) out[m++] = out[i];
      cd.ndepths[c] = m;
    }
  });
  return cd;
}

// Every point of the box sees (px, py) and is seen by it (within() both
// ways; the bounds of rules/neighbour.hpp).
bool sees_whole_box(double px, double py, const CellBox& b, double eps, double t) {
  return sees_all_in(px, py, b, eps, t) && seen_by_all_in(px, py, b, eps, t);
}

// Edges between core points that first appear below the largest level:
// edges[i][k] are the pairs of sorted positions found in the i-th chunk of
// cells whose two points are core at level k but not both at level k + 1.
using EdgeList = std::vector<std::pair<uint32_t, uint32_t>>;
using LevelEdges = std::vector<std::vector<EdgeList>>;

// One scan of each point p that is not core at every level:
//   - borders: for each level k >= depth[p] (where p is not core),
//     best[k][p] = the sorted position of p's first claimer among the points
//     of depth > k (q reaches p: within(q, p)), or kNoise;
//   - edges: p's neighbours q with depth[q] >= depth[p] > 0 join p at level
//     depth[p] - 1 (a pair of equal depth is taken from its first point).
//     In a small cell (its points pairwise neighbours both ways, as
//     mark_core_points tests it) p's own-cell pairs are one edge instead, to
//     the cell's hub, its first point of the greatest depth: at each level
//     the points core there are then joined through the hub, as all their
//     pairs would join them, and a cell of m points costs m edges, not
//     m^2 / 2 (70,000 points within eps of each other took 9.8 GB).
//     A small cell that p sees whole, both ways (its own, or another whose
//     box lies within eps of p: every point of it then sees p and is seen),
//     is not scanned point by point: its claimers come from the smallest
//     point index of each depth in it (CellDepths), and p's edges into it
//     are one, to its hub, which the cell's own hub edges join to every
//     point of it core at that level.  (Scanning every point of such a cell
//     from each of its points was quadratic: 100,000 points within eps of
//     each other, minpoints {2, 100001}, took 27 s against 1 s for two
//     plain clusterings.)
//     Of the neighbours in another cell, q is left out when it and one
//     already taken from that cell see each other: both are core at that
//     level and their own pair, taken within their cell (in full, or through
//     its hub; or by the largest level's union), connects them;
//   - one_way: set for a pair of points that are core at some level and see
//     each other one way only (see the file comment).
LevelEdges scan_levels(const Grid& grid, double eps, const std::vector<Depth>& depth,
                       size_t nlevels, uint32_t* const* best, std::atomic<bool>& one_way,
                       ThreadTeam& team) {
  const CellDepths cd = cell_depths(grid, eps, depth, team);
  const double* xs = grid.xs.data();
  const double* ys = grid.ys.data();
  const uint32_t* perm = grid.perm.data();
  const Depth* d = depth.data();
  const Depth top = static_cast<Depth>(nlevels);
  const double t = eps_threshold(eps);
  const size_t grain = cell_grain(grid, team);
  LevelEdges edges((grid.cells.size() + grain - 1) / grain, std::vector<EdgeList>(nlevels));

  team.for_dynamic(grid.cells.size(), grain, [&](size_t c0, size_t c1) {
    std::vector<EdgeList>& mine = edges[c0 / grain];  // chunks start at multiples of grain
    WindowCursor window(grid);
    WorkPoller poller(team.cancel());
    CellRange cols[WindowCursor::kRows];
    // smallest point index (and its sorted position) among claimers of depth j + 1
    std::vector<uint32_t> first_index(nlevels), first_pos(nlevels);
    for (size_t c = c0; c < c1; ++c) {
      const uint32_t b = grid.start[c], e = grid.start[c + 1];
      bool have_cols = false;
      const bool small = cd.small[c];  // the cell's points are pairwise neighbours both ways
      for (uint32_t p = b; p < e; ++p) {
        const Depth dp = d[p];
        if (dp == top) continue;  // core at every level
        if (!have_cols) {
          window.cells_at(static_cast<uint32_t>(c), cols);
          have_cols = true;
        }
        std::fill(first_index.begin() + dp, first_index.end(), kNoise);
        const double px = xs[p], py = ys[p];
        size_t work = 0;
        for (const CellRange& col : cols) {
          for (uint32_t n = col.begin; n < col.end; ++n) {
            const uint32_t nb = grid.start[n], ne = grid.start[n + 1];
            const bool own = n == c;
            if (own ? small : cd.small[n] && sees_whole_box(px, py, cd.box[n], eps, t)) {
              // p and the cell's points see each other: no test; claimers by
              // depth, and one edge, to the cell's hub
              const DepthMin* en = cd.entries.data() + nb;
              for (uint32_t i = cd.ndepths[n]; i-- > 0 && en[i].depth > dp;) {
                const Depth dq = en[i].depth;
                if (en[i].index < first_index[dq - 1]) {
                  first_index[dq - 1] = en[i].index;
                  first_pos[dq - 1] = en[i].pos;
                }
              }
              const uint32_t hub = cd.hub[n];
              if (dp > 0 && hub != p && d[hub] >= dp) mine[dp - 1].emplace_back(p, hub);
              work += cd.ndepths[n] + 1;
              continue;
            }
            uint32_t taken[2] = {kNoise, kNoise};
            for (uint32_t q = nb; q < ne; ++q) {
              const Depth dq = d[q];
              if (dq < dp || (dq == dp && (dp == 0 || q <= p))) continue;
              const unsigned rel = within_each_way(px, py, xs[q], ys[q], eps);
              if (rel == 0) continue;
              if (dq > dp && (rel & 2) && perm[q] < first_index[dq - 1]) {
                first_index[dq - 1] = perm[q];  // q reaches p
                first_pos[dq - 1] = q;
              }
              if (dp == 0) continue;  // p is never core: no edge
              if (rel != 3) {
                one_way.store(true, std::memory_order_relaxed);
                continue;
              }
              if (!own) {
                auto sees = [&](uint32_t t) {
                  return t != kNoise && within_each_way(xs[t], ys[t], xs[q], ys[q], eps) == 3;
                };
                if (sees(taken[0]) || sees(taken[1])) continue;
                taken[taken[0] == kNoise ? 0 : 1] = q;
              }
              mine[dp - 1].emplace_back(p, q);
            }
            work += ne - nb;
          }
        }
        // Level k sees the claimers of every depth above k.
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
  return edges;
}

// Unites level k's edges and frees them.
void union_level(LevelEdges& edges, size_t k, AtomicUnionFind& uf, ThreadTeam& team) {
  team.for_dynamic(edges.size(), 16, [&](size_t i0, size_t i1) {
    for (size_t i = i0; i < i1; ++i) {
      for (const auto& pq : edges[i][k]) uf.unite(pq.first, pq.second);
      EdgeList().swap(edges[i][k]);
    }
  });
}

// Each level clustered on its own by the CPU back end (emit order kept).
void cluster_each_level(const PointsView& pts, const std::vector<int64_t>& levels,
                        const gd_params& params, const CancelToken& cancel, size_t first,
                        size_t last, const SweepEmit& emit, gd_run_stats& stats) {
  std::vector<uint32_t> rep(pts.n);
  for (size_t k = last; k-- > first;) {
    gd_params one = params;
    one.minpoints = levels[k];
    gd_run_stats st;
    std::memset(&st, 0, sizeof st);
    cpu_cluster(pts, one, cancel, rep.data(), st);
    stats.t_sort += st.t_sort;
    stats.t_core += st.t_core;
    stats.t_union += st.t_union;
    stats.t_label += st.t_label;
    stats.cells = st.cells;
    emit(k, rep.data());
  }
}

// The sweep proper over levels[first..last) (each >= 2, or a lone 1).
void sweep_levels(const PointsView& pts, double eps, const std::vector<int64_t>& all_levels,
                  size_t first, size_t last, const gd_params& params, const CancelToken& cancel,
                  uint32_t* const* all_best, const SweepEmit& emit, gd_run_stats& stats) {
  const std::vector<int64_t> levels(all_levels.begin() + first, all_levels.begin() + last);
  uint32_t* const* best = all_best + first;
  const size_t nlevels = levels.size();
  ThreadTeam team(resolve_threads(params, pts.n), cancel);
  Stopwatch watch;

  Grid grid = build_grid(pts, eps, team);
  stats.cells = grid.ncells();
  stats.t_sort += watch.lap();

  // Counts capped at the largest level, whose core flags they also give.
  CoreFlags flags;
  std::vector<uint32_t> counts(pts.n);
  mark_core_points(grid, eps, levels.back(), flags, team, counts.data());
  const std::vector<Depth> depth = point_depths(counts, levels, team);
  std::vector<uint32_t>().swap(counts);
  stats.t_core += watch.lap();

  std::atomic<bool> one_way{false};
  LevelEdges edges = scan_levels(grid, eps, depth, nlevels, best, one_way, team);
  MemoryCharge edge_charge;  // counted once the scan has made them
  {
    int64_t bytes = 0;
    for (const auto& chunk : edges)
      for (const EdgeList& list : chunk)
        bytes += static_cast<int64_t>(list.capacity() * sizeof(list[0]) + sizeof(list));
    edge_charge.add(bytes, "the sweep's edges");
  }
  stats.t_label += watch.lap();

  AtomicUnionFind uf(pts.n);
  if (!one_way.load()) {
    const CoreLists lists(grid, flags.data(), team);
    union_core_points(grid, eps, flags, lists, uf, team, linkage_for(levels.back()), &one_way);
  }
  CoreFlags().swap(flags);
  stats.t_union += watch.lap();
  if (one_way.load()) {
    LevelEdges().swap(edges);
    cluster_each_level(pts, all_levels, params, cancel, first, last, emit, stats);
    return;
  }

  std::vector<uint32_t> rep(pts.n);
  const uint32_t* perm = grid.perm.data();
  for (size_t k = nlevels; k-- > 0;) {
    union_level(edges, k, uf, team);
    stats.t_union += watch.lap();

    const uint32_t* bk = best[k];
    auto find = [&uf](uint32_t i) { return uf.find(i); };
    team.for_static(pts.n, [&](int, size_t begin, size_t end) {
      for (size_t p = begin; p < end; ++p) {
        const bool core = depth[p] > k;  // bk[p] is written only where p is not core
        rep[perm[p]] = representative(core, static_cast<uint32_t>(p), core ? kNoise : bk[p], find);
      }
    });
    emit(k + first, rep.data());
    stats.t_label += watch.lap();
  }
}

}  // namespace

void cpu_sweep(const PointsView& pts, double eps, const std::vector<int64_t>& levels,
               const gd_params& params, const CancelToken& cancel, uint32_t* const* best,
               const SweepEmit& emit, gd_run_stats& stats) {
  stats.backend = GD_BACKEND_CPU;
  stats.points = pts.n;
  const size_t last = emit_trivial_levels(levels, pts.n, emit);
  if (last == 0) return;
  // minpoints 1 links pairs either point sees: clustered on its own, last.
  const size_t first = levels.front() == 1 && last > 1 ? 1 : 0;
  sweep_levels(pts, eps, levels, first, last, params, cancel, best, emit, stats);
  if (first == 1) cluster_each_level(pts, levels, params, cancel, 0, 1, emit, stats);
}

}  // namespace gd
