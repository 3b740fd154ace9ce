// core_flags.cu — which points are core: p sees at least minpoints points
// (itself included), counted from p's own side of the one-sided relation.
// Points of dense cells are core without a distance test; the others count
// over their 25 neighbour cells and stop at minpoints (ArborX's preprocessing
// phase).  A neighbour cell whose every point p sees counts all its points at
// once; one of which p sees none is skipped (see grid.cuh).
#include "grid.cuh"

namespace gd {
namespace cuda {

namespace {

__global__ void core_kernel(GridView g, int64_t minpoints, Batch batch, const volatile int* stop,
                            uint8_t* __restrict__ core) {
  if (cancelled(stop)) return;
  uint32_t i;
  if (!batch_point(batch, g.n, &i)) return;
  uint32_t c = g.cell_of[i];
  if (g.dense[c]) {
    core[i] = 1;
    return;
  }
  double px = g.p[i].x, py = g.p[i].y;
  CoreCount count(minpoints);  // rules/dbscan_rules.hpp: stops at minpoints
  for (int a = 0; a < 5 && !count.core(); ++a) {
    CellRange r = g.rows[static_cast<uint64_t>(c) * 5 + a];
    for (uint32_t d = r.lo; d < r.hi && !count.core(); ++d) {
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
  core[i] = count.core() ? 1 : 0;
}

}  // namespace

void core_flags(RunContext& ctx, const GridView& g, int64_t minpoints, uint32_t nbatches,
                uint8_t* core) {
  if (minpoints <= 1) {
    // Every point is its own neighbour: all core, single linkage.
    CUDA_TRY(cudaMemsetAsync(core, 1, g.n, ctx.stream()));
    return;
  }
  for (uint32_t b = 0; b < nbatches; ++b) {
    Batch batch{b, nbatches};
    uint64_t threads = batch_threads(batch, g.n);
    if (threads == 0) continue;
    core_kernel<<<grid_for(threads), kBlock, 0, ctx.stream()>>>(g, minpoints, batch,
                                                                ctx.cancel_flag_device(), core);
    GD_CHECK_LAUNCH("core_kernel");
  }
}

}  // namespace cuda
}  // namespace gd
