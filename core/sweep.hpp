// sweep.hpp — many minpoints values at one eps from one neighbour search
// (the parameter sweeps of Gowanlock et al.): every point's neighbours are
// counted once, capped at the largest value; each value's core flags follow
// from the counts, the union-find of the largest value is extended level by
// level down to the smallest, and the border points of every level come from
// one more pass over the points that are not core at every level.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "backend.hpp"

namespace gd {

// Called once per level, from the largest down, with rep[0..pts.n): the
// clusters of cpu_cluster at minpoints levels[level] (representatives may
// differ, the sets do not).
using SweepEmit = std::function<void(size_t level, const uint32_t* rep)>;

// The start of a sweep on either back end: an empty partition gets every
// level with rep nullptr; levels above the number of points make no point
// core, so they are all noise with no search (counting up to such a value
// instead tested every pair of a dense partition: 100,000 points within eps
// of each other, minpoints {2, 100001}, took 32 s).  Returns how many levels,
// the smallest, are left to cluster.
inline size_t emit_trivial_levels(const std::vector<int64_t>& levels, uint32_t n,
                                  const SweepEmit& emit) {
  const size_t nlevels = levels.size();
  if (nlevels == 0 || nlevels > UINT16_MAX) throw Error(GD_ERR_INTERNAL, "bad sweep level count");
  if (n == 0) {
    for (size_t k = nlevels; k-- > 0;) emit(k, nullptr);
    return 0;
  }
  size_t last = nlevels;
  while (last > 0 && levels[last - 1] >= 2 && levels[last - 1] > static_cast<int64_t>(n)) --last;
  if (last < nlevels) {
    const std::vector<uint32_t> noise(n, kNoise);
    for (size_t k = nlevels; k-- > last;) emit(k, noise.data());
  }
  return last;
}

// levels: distinct minpoints values, each >= 1, ascending (at most 65535).
// best[level] is scratch memory of pts.n entries per level, the caller's
// (gd_cluster_points_sweep lends it the output it is about to overwrite):
// emit(level) is the last reader of best[level].
void cpu_sweep(const PointsView& pts, double eps, const std::vector<int64_t>& levels,
               const gd_params& params, const CancelToken& cancel, uint32_t* const* best,
               const SweepEmit& emit, gd_run_stats& stats);

// The GPU back end's sweep (cuda/sweep.cu; the stub throws GD_ERR_NO_DEVICE
// without CUDA): the same levels and emits as cpu_sweep, the same ids for
// every level as gpu_cluster (and so as cpu_cluster), with rep the cluster
// ranks; stats->backend is GD_BACKEND_GPU.  out, when not null, lends
// pts.n entries per level: the level's ranks are copied from the device
// straight into out[level], and emit gets rep == out[level] (where every
// row is a point the ranks are the ids, so the output is written once).
// emit may be called from a helper thread (never two calls at once, all
// done when gpu_sweep returns): it must only write level's own output.
void gpu_sweep(const PointsView& pts, double eps, const std::vector<int64_t>& levels,
               const gd_params& params, const CancelToken& cancel, uint32_t* const* out,
               const SweepEmit& emit, gd_run_stats& stats);

}  // namespace gd
