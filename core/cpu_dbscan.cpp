// cpu_dbscan.cpp — the CPU back end: grid, core flags, union-find, borders,
// on every core with std::thread.
#include "backend.hpp"
#include "cpu_phases.hpp"
#include "stopwatch.hpp"

namespace gd {

void cpu_cluster(const PointsView& pts, const gd_params& params, const CancelToken& cancel,
                 uint32_t* rep, gd_run_stats& stats, uint8_t* core) {
  stats.backend = GD_BACKEND_CPU;
  stats.points = pts.n;
  if (pts.n == 0) return;
  ThreadTeam team(resolve_threads(params, pts.n), cancel);
  Stopwatch watch;

  Grid grid = build_grid(pts, params.eps, team);
  stats.cells = grid.ncells();
  stats.t_sort += watch.lap();

  CoreFlags flags;
  mark_core_points(grid, params.eps, params.minpoints, flags, team);
  if (core)
    for (uint32_t p = 0; p < pts.n; ++p) core[grid.perm[p]] = flags[p] & kCoreFlag;
  stats.t_core += watch.lap();

  const CoreLists lists(grid, flags.data(), team);
  AtomicUnionFind uf(pts.n);
  union_core_points(grid, params.eps, flags, lists, uf, team, linkage_for(params.minpoints));
  stats.t_union += watch.lap();

  assign_borders(grid, params.eps, flags, lists, uf, rep, team);
  stats.t_label += watch.lap();
}

}  // namespace gd
