// sweep.cu — the minpoints sweep on the device (gd::gpu_sweep, sweep.hpp):
// one upload, one grid and one neighbour count serve every value
// (Gowanlock et al.: one eps-neighbour pass for all minpoints).
//
//   upload -> grid (built once, dense flags at the largest value M)
//   -> counts: each point's neighbours, capped at M (core_flags.cu)
//   -> per value m, largest first: core = count >= m, then the stages of one
//      clustering (join_and_claim, final_labels) over the same
//      grid -> download the ranks -> emit (beside the next values' stages)
//
// Why each value's ids are exactly those of one clustering at m: a point
// sees at least m points iff its count capped at M >= m is >= m (m <= M),
// and a point of a cell dense at M sees at least M >= m points; from the
// core flags on, the stages are those of cluster_on_device, whose answer
// depends on the core flags and the grid's points and boxes only (the dense
// flags decide core flags and the batch plan, nothing after).  Values above
// the number of points make no point core (all noise, no search), as one
// clustering does (api.cpp).
//
// Each value's ranks are copied down (through the lanes, transfer.cu, into
// the caller's output where it lends one: the ranks are the ids when every
// row is a point) and emitted by a DownloadCrew, whose threads live as long
// as the sweep, while the device clusters the next values: the host queues
// value k before it looks at value k+1's result, so the device does not
// wait for the host between values.
//
// The union-find of one value is the next value's start: only the pairs
// that its new core points bring are tested (UnionStep, union_find.cu),
// unless the claimer rule decided a pair (then the next value starts
// afresh).  Each value's borders are claimed anew.  No pair list is kept
// (it would take memory the one-clustering path never needs).  A set that does not fit the budget in
// one piece is swept value by value through the strip path (strips.cu): the
// same ids, without the shared count.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "gd_cuda.hpp"
#include "grid.cuh"
#include "pipeline.cuh"
#include "ranks.cuh"
#include "sweep.hpp"
#include "trace.cuh"

namespace gd {
namespace cuda {

namespace {

// Core at m: 2 when not core at the previous, larger value `above` (new),
// 1 when core at both, 0 when not core (UnionStep's marks).
__global__ void core_from_counts_kernel(const uint32_t* __restrict__ counts, uint32_t n,
                                        uint32_t m, uint32_t above, uint8_t* __restrict__ core) {
  uint64_t i = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const uint32_t c = counts[i];
  core[i] = c < m ? 0 : c < above ? 2 : 1;
}

}  // namespace

void core_marks(RunContext& ctx, const uint32_t* counts, uint32_t n, int64_t m, int64_t above,
                uint8_t* core) {
  if (m <= 1) {
    CUDA_TRY(cudaMemsetAsync(core, 1, n, ctx.stream()));
    return;
  }
  core_from_counts_kernel<<<grid_for(n), kBlock, 0, ctx.stream()>>>(
      counts, n, static_cast<uint32_t>(m),
      above > UINT32_MAX ? UINT32_MAX : static_cast<uint32_t>(above), core);
  GD_CHECK_LAUNCH("core_from_counts_kernel");
}

namespace {

void reset_stats(gd_run_stats& stats, uint32_t n) {
  stats.backend = GD_BACKEND_GPU;
  stats.points = n;
  stats.cells = stats.batches = stats.strips = 0;
  stats.t_transfer = stats.t_sort = stats.t_core = stats.t_union = stats.t_label = 0;
  stats.t_total = 0;
}

// levels[0..last), each >= 1, ascending, the largest at most pts.n (or 1).
void sweep_whole(RunContext& ctx, const PointsView& pts, const gd_params& params,
                 const std::vector<int64_t>& levels, size_t last, const Options& opts,
                 uint32_t* const* out, const SweepEmit& emit, gd_run_stats& stats) {
  const uint32_t n = pts.n;
  Stopwatch sw;
  device_buffer<double> dx, dy;
  Bounds bounds;
  const TransferPlan plan = transfer_plan(opts, params);
  upload_points(ctx, pts.x, pts.y, n, plan, &dx, &dy, &bounds);
  stats.t_transfer += sw.lap();

  const int64_t top = levels[last - 1];
  Grid grid = build_grid(ctx, dx.data(), dy.data(), n, bounds, params.eps, top, stats, &dx, &dy);
  stats.t_sort += sw.lap();
  GridView g = grid.view();
  const uint32_t nb = plan_batches(grid.work, n, opts);
  stats.batches += nb;

  // One neighbour pass for every value.
  device_buffer<uint32_t> counts;
  if (top >= 2) {
    counts = ctx.alloc<uint32_t>(n, "sweep neighbour counts");
    core_counts(ctx, g, static_cast<uint32_t>(top), nb, counts.data());
    trace_point(ctx.stream(), "sweep: counts");
    ctx.wait();
  }
  stats.t_core += sw.lap();

  auto core = ctx.alloc<uint8_t>(n, "sweep core flags");
  const auto pos = sorted_positions(ctx, n, g.idx);  // each value's ranks read into row order
  auto parent = ctx.alloc<uint32_t>(n, "union-find parents");
  auto claimer_used = ctx.alloc<int>(last, "claimer rule flags");
  device_buffer<uint64_t> cell_min;  // each cell's smallest core, from value to value
  if (top >= 2) cell_min = ctx.alloc<uint64_t>(g.ncells, "smallest core per cell, kept");
  SweepDownloads down(ctx, n, last, plan, out, emit);  // joined before the buffers above go

  // Value k queued on the run's stream, its ranks into rep.  from_previous:
  // its union-find starts from value k+1's (UnionStep), exact unless value
  // k+1's claimer rule decided a pair (then it starts afresh).
  auto queue_value = [&](size_t k, uint32_t* rep, bool from_previous) {
    const int64_t m = levels[k];
    const int64_t above = k + 1 < last ? levels[k + 1] : INT64_MAX;
    core_marks(ctx, counts.data(), n, m, above, core.data());
    trace_point(ctx.stream(), "sweep: core marks");
    UnionStep step;
    step.from_previous = from_previous && m > 1;
    step.claimer_used = claimer_used.data() + k;
    step.timed = false;
    step.cell_min_core = cell_min.data();
    CUDA_TRY(cudaMemsetAsync(step.claimer_used, 0, sizeof(int), ctx.stream()));
    join_and_claim(ctx, g, core.data(), nullptr, m, nb, stats, sw, parent.data(), step);
    final_labels(ctx, g, core.data(), parent.data(), rep, false, pos.data());
    down.queued(k);
  };
  Stream flags;  // reads the claimer flags
  auto used_claimer = [&](size_t k) {
    int used = 1;
    CUDA_TRY(cudaMemcpyAsync(&used, claimer_used.data() + k, sizeof used,
                             cudaMemcpyDeviceToHost, flags));
    CUDA_TRY(cudaStreamSynchronize(flags));
    return used != 0;
  };

  // Each value is queued before the host looks at the one before it, so
  // the device never waits for the host: value k goes in assuming value
  // k+1's union-find is its start; once value k+1 is complete, its flag
  // says whether that held, and if not value k is queued again afresh
  // (its first pass overwritten: every stage writes all it reads).
  for (size_t k = last; k-- > 0;) {
    uint32_t* rep = down.buffer(k);
    const bool first = k + 1 == last;
    queue_value(k, rep, !first);
    if (first) continue;
    down.wait(k + 1);
    trace_point(nullptr, "sweep: one value");
    if (levels[k] > 1 && used_claimer(k + 1)) {
      trace_point(nullptr, "sweep: claimer rule, the next value again afresh");
      queue_value(k, rep, false);
    }
    down.post(k + 1);
  }
  const double copies = down.finish();
  stats.t_label += sw.lap();
  if (trace_events())
    std::fprintf(stderr,
                 "trace sweep: upload %.3f ms, grid %.3f, counts %.3f, values %.3f; "
                 "%u batches, %u cells\n",
                 1e3 * stats.t_transfer, 1e3 * stats.t_sort, 1e3 * stats.t_core,
                 1e3 * stats.t_label, nb, g.ncells);
  stats.t_transfer += copies;
}

// Each value on its own through the strip path (max_points as for
// cluster_in_strips).
void sweep_in_strips(RunContext& ctx, const PointsView& pts, const gd_params& params,
                     const std::vector<int64_t>& levels, size_t last, const Options& opts,
                     uint64_t max_points, uint32_t* const* out, const SweepEmit& emit,
                     gd_run_stats& stats) {
  std::vector<uint32_t> own(out != nullptr ? 0 : pts.n);
  int64_t strips = 0;
  for (size_t k = last; k-- > 0;) {
    gd_params one = params;
    one.minpoints = levels[k];
    uint32_t* rep = out != nullptr ? out[k] : own.data();
    cluster_in_strips(ctx, pts, one, rep, stats, opts, nullptr, max_points);
    strips += stats.strips;
    emit(k, rep);
  }
  stats.strips = strips;
}

}  // namespace

void sweep_host(const PointsView& pts, double eps, const std::vector<int64_t>& levels,
                const gd_params& params, const CancelToken& cancel, uint32_t* const* out,
                const SweepEmit& emit, gd_run_stats& stats, const Options& opts) {
  Stopwatch total;
  reset_stats(stats, pts.n);
  const size_t last = emit_trivial_levels(levels, pts.n, emit);
  if (last == 0) return;

  gd_params p = params;
  p.eps = eps;
  RunContext ctx(p.device, p.device_memory_budget, cancel);
  if (opts.max_strip_points != 0 || gather_stage_bytes(pts.n) > ctx.budget_limit()) {
    sweep_in_strips(ctx, pts, p, levels, last, opts, opts.max_strip_points, out, emit, stats);
  } else {
    try {
      sweep_whole(ctx, pts, p, levels, last, opts, out, emit, stats);
    } catch (const Error& e) {
      if (e.status() != GD_ERR_DEVICE_NOMEM) throw;
      // Values already emitted are emitted again, with the same ids.
      reset_stats(stats, pts.n);
      sweep_in_strips(ctx, pts, p, levels, last, opts, pts.n / 2, out, emit, stats);
    }
  }
  stats.t_total = total.lap();
}

}  // namespace cuda

void gpu_sweep(const PointsView& pts, double eps, const std::vector<int64_t>& levels,
               const gd_params& params, const CancelToken& cancel, uint32_t* const* out,
               const SweepEmit& emit, gd_run_stats& stats) {
  try {
    cuda::sweep_host(pts, eps, levels, params, cancel, out, emit, stats, cuda::Options());
  } catch (const Error& e) {
    cuda::reset_after(e);  // the lanes dropped first, as for gpu_cluster
    throw;
  }
}

}  // namespace gd
