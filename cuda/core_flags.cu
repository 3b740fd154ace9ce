// core_flags.cu — which points are core: p sees at least minpoints points
// (itself included), counted from p's own side of the one-sided relation.
// Points of dense cells are core without a distance test; the others count
// over their 25 neighbour cells and stop at minpoints (ArborX's preprocessing
// phase).  A neighbour cell whose every point p sees counts all its points at
// once; one of which p sees none is skipped (see grid.cuh).
//
// A minpoints sweep (types_sweep.cu) asks for the counts themselves, capped
// at its largest value (the cap is the kernel's minpoints): a dense cell's
// points then count as the cap, the others up to it.
#include "grid.cuh"

namespace gd {
namespace cuda {

namespace {

// core and/or counts (null: not wanted).
__global__ void core_kernel(GridView g, int64_t minpoints, Batch batch, const volatile int* stop,
                            uint8_t* __restrict__ core, uint32_t* __restrict__ counts) {
  if (cancelled(stop)) return;
  uint32_t i;
  if (!batch_point(batch, g.n, &i)) return;
  uint32_t c = g.cell_of[i];
  if (g.dense[c]) {
    if (core != nullptr) core[i] = 1;
    if (counts != nullptr) counts[i] = static_cast<uint32_t>(minpoints);
    return;
  }
  double px = g.p[i].x, py = g.p[i].y;
  CoreCount count(minpoints);  // rules/dbscan_rules.hpp: stops at minpoints
  // The own cell first, then the rows from the middle out (offsets 0, -1,
  // +1, -2, +2, the own cell skipped): the count reaches minpoints sooner (it
  // only decides core or not).
  for (int k = 0; k < 6 && !count.core(); ++k) {
    int a = 2 + ((k & 1) ? (k >> 1) : -(k >> 1));
    CellRange r = k == 0 ? CellRange{c, c + 1} : g.rows[static_cast<uint64_t>(c) * 5 + a];
    for (uint32_t d = r.lo; d < r.hi && !count.core(); ++d) {
      if (k != 0 && d == c) continue;
      Box b = g.box[d];
      if (!sees_any_in(px, py, b, g.eps, g.t)) continue;
      uint32_t j0 = g.start[d], j1 = g.start[d + 1];
      if (sees_all_in(px, py, b, g.eps, g.t)) {
        count.add(j1 - j0);
        continue;
      }
      for (uint32_t j = j0; j < j1; ++j) {
        double2 q = g.p[j];
        if (sees(px, py, q.x, q.y, g.eps, g.t) && count.add()) break;
      }
    }
  }
  if (core != nullptr) core[i] = count.core() ? 1 : 0;
  if (counts != nullptr)
    counts[i] = static_cast<uint32_t>(count.found < minpoints ? count.found : minpoints);
}

void launch_core(RunContext& ctx, const GridView& g, int64_t minpoints, uint32_t nbatches,
                 uint8_t* core, uint32_t* counts) {
  for (uint32_t b = 0; b < nbatches; ++b) {
    Batch batch{b, nbatches};
    uint64_t threads = batch_threads(batch, g.n);
    if (threads == 0) continue;
    core_kernel<<<grid_for(threads), kBlock, 0, ctx.stream()>>>(
        g, minpoints, batch, ctx.cancel_flag_device(), core, counts);
    GD_CHECK_LAUNCH("core_kernel");
  }
}

}  // namespace

void core_flags(RunContext& ctx, const GridView& g, int64_t minpoints, uint32_t nbatches,
                uint8_t* core) {
  if (minpoints <= 1) {
    // Every point is its own neighbour: all core, single linkage.
    CUDA_TRY(cudaMemsetAsync(core, 1, g.n, ctx.stream()));
    return;
  }
  launch_core(ctx, g, minpoints, nbatches, core, nullptr);
}

void core_counts(RunContext& ctx, const GridView& g, uint32_t cap, uint32_t nbatches,
                 uint32_t* counts) {
  if (cap < 2) throw Error(GD_ERR_INTERNAL, "core_counts: cap below 2");
  launch_core(ctx, g, cap, nbatches, nullptr, counts);
}

}  // namespace cuda
}  // namespace gd
