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
  int64_t count = 0;
  // The own cell first, then the rows from the middle out (offsets 0, -1,
  // +1, -2, +2, the own cell skipped): the count reaches minpoints sooner (it
  // only decides core or not).
  for (int k = 0; k < 6 && count < minpoints; ++k) {
    int a = 2 + ((k & 1) ? (k >> 1) : -(k >> 1));
    CellRange r = k == 0 ? CellRange{c, c + 1} : g.rows[static_cast<uint64_t>(c) * 5 + a];
    for (uint32_t d = r.lo; d < r.hi && count < minpoints; ++d) {
      if (k != 0 && d == c) continue;
      Box b = g.box[d];
      if (!sees_any_in(px, py, b, g.eps, g.t)) continue;
      uint32_t j0 = g.start[d], j1 = g.start[d + 1];
      if (sees_all_in(px, py, b, g.eps, g.t)) {
        count += j1 - j0;
        continue;
      }
      for (uint32_t j = j0; j < j1; ++j) {
        double2 q = g.p[j];
        if (sees(px, py, q.x, q.y, g.eps, g.t) && ++count >= minpoints) break;
      }
    }
  }
  core[i] = count >= minpoints ? 1 : 0;
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
