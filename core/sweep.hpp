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

// levels: distinct minpoints values, each >= 1, ascending (at most 65535).
// best[level] is scratch memory of pts.n entries per level, the caller's
// (gd_cluster_points_sweep lends it the output it is about to overwrite):
// emit(level) is the last reader of best[level].
void cpu_sweep(const PointsView& pts, double eps, const std::vector<int64_t>& levels,
               const gd_params& params, const CancelToken& cancel, uint32_t* const* best,
               const SweepEmit& emit, gd_run_stats& stats);

// The GPU back end's sweep (cuda/sweep.cu; the stub throws GD_ERR_NO_DEVICE
// without CUDA): the same levels and emits as cpu_sweep, the same ids for
// every level as gpu_cluster (and so as cpu_cluster), no scratch needed;
// stats->backend is GD_BACKEND_GPU.  emit may be called from a helper
// thread (never two calls at once, all done when gpu_sweep returns): it
// must only write level's own output.
void gpu_sweep(const PointsView& pts, double eps, const std::vector<int64_t>& levels,
               const gd_params& params, const CancelToken& cancel, const SweepEmit& emit,
               gd_run_stats& stats);

}  // namespace gd
