// labels.cu — border points and the final representatives.
//
// A border point (not core, with a core neighbour) joins the cluster of its
// core neighbour with the smallest ORIGINAL index (PostGIS's first core to
// see it claims it).  Each non-core point scans its 25 neighbour cells for
// that neighbour; a cell wholly within eps offers its smallest core (a
// per-cell minimum reduced beforehand) without distance tests, a cell whose
// smallest core is no better than the best so far is skipped.  The chosen
// core's sorted index is kept in parent[] of the border point (a non-core
// point is never part of any union-find path).  Then every point's
// representative is the original index of its set's root.
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <algorithm>
#include <cub/device/device_segmented_reduce.cuh>

#include "grid.cuh"
#include "union_find.cuh"

namespace gd {
namespace cuda {

namespace cub = CUB_NS_QUALIFIER;
namespace thrust = THRUST_NS_QUALIFIER;

namespace {

constexpr uint64_t kNoCore = UINT64_MAX;

// (original index << 32 | sorted index) of a core point, kNoCore otherwise:
// the minimum over a cell names its core with the smallest original index.
struct CoreKey {
  const uint8_t* core;
  const uint32_t* idx;
  __host__ __device__ uint64_t operator()(uint64_t j) const {
    return core[j] ? (static_cast<uint64_t>(idx[j]) << 32) | j : kNoCore;
  }
};

struct MinU64 {
  __host__ __device__ uint64_t operator()(uint64_t a, uint64_t b) const { return a < b ? a : b; }
};

__global__ void border_kernel(GridView g, const uint8_t* __restrict__ core,
                              const uint64_t* __restrict__ cell_min_core, Batch batch,
                              const volatile int* stop, uint32_t* __restrict__ parent) {
  if (cancelled(stop)) return;
  uint32_t i;
  if (!batch_point(batch, g.n, &i)) return;
  if (core[i]) return;
  uint32_t c = g.cell_of[i];
  double px = g.p[i].x, py = g.p[i].y;
  uint64_t best = kNoCore;
  for (int a = 0; a < 5; ++a) {
    CellRange r = g.rows[static_cast<uint64_t>(c) * 5 + a];
    for (uint32_t d = r.lo; d < r.hi; ++d) {
      uint64_t cand = cell_min_core[d];
      if (cand >= best) continue;  // no core here, or none better than best
      Box b = g.box[d];
      if (!box_may_touch(px, py, b, g.eps, g.t)) continue;
      if (box_all_within(px, py, b, g.eps, g.t)) {
        best = cand;
        continue;
      }
      uint32_t j0 = g.start[d], j1 = g.start[d + 1];
      for (uint32_t j = j0; j < j1; ++j) {
        if (!core[j]) continue;
        uint64_t k = (static_cast<uint64_t>(g.idx[j]) << 32) | j;
        if (k >= best) continue;
        double2 q = g.p[j];
        if (near(px, py, q.x, q.y, g.eps, g.t)) best = k;
      }
    }
  }
  parent[i] = best == kNoCore ? kNone : static_cast<uint32_t>(best & 0xffffffffu);
}

__global__ void final_kernel(GridView g, const uint8_t* __restrict__ core, uint32_t* parent,
                             uint32_t* __restrict__ rep) {
  uint64_t i = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= g.n) return;
  uint32_t r;
  if (core[i]) {
    r = uf_find(parent, static_cast<uint32_t>(i));
  } else {
    uint32_t b = parent[i];
    r = b == kNone ? kNone : uf_find(parent, b);
  }
  rep[g.idx[i]] = r == kNone ? kNoise : g.idx[r];
}

}  // namespace

void assign_borders(RunContext& ctx, const GridView& g, const uint8_t* core, uint32_t nbatches,
                    uint32_t* parent) {
  cudaStream_t s = ctx.stream();
  auto cell_min_core = ctx.alloc<uint64_t>(g.ncells, "smallest core per cell");
  {
    using It = thrust::transform_iterator<CoreKey, thrust::counting_iterator<uint64_t>>;
    It in(thrust::counting_iterator<uint64_t>(0), CoreKey{core, g.idx});
    size_t bytes = 0;
    CUDA_TRY(cub::DeviceSegmentedReduce::Reduce(nullptr, bytes, in, cell_min_core.data(), g.ncells,
                                                g.start, g.start + 1, MinU64{}, kNoCore, s));
    auto temp = ctx.alloc<uint8_t>(std::max<size_t>(bytes, 1), "smallest core reduction");
    CUDA_TRY(cub::DeviceSegmentedReduce::Reduce(temp.data(), bytes, in, cell_min_core.data(),
                                                g.ncells, g.start, g.start + 1, MinU64{}, kNoCore,
                                                s));
  }
  for (uint32_t b = 0; b < nbatches; ++b) {
    Batch batch{b, nbatches};
    uint64_t threads = batch_threads(batch, g.n);
    if (threads == 0) continue;
    border_kernel<<<grid_for(threads), kBlock, 0, s>>>(g, core, cell_min_core.data(), batch,
                                                       ctx.cancel_flag_device(), parent);
    GD_CHECK_LAUNCH("border_kernel");
  }
}

void final_reps(RunContext& ctx, const GridView& g, const uint8_t* core, const uint32_t* parent,
                uint32_t* rep_out) {
  final_kernel<<<grid_for(g.n), kBlock, 0, ctx.stream()>>>(g, core, const_cast<uint32_t*>(parent),
                                                           rep_out);
  GD_CHECK_LAUNCH("final_kernel");
}

}  // namespace cuda
}  // namespace gd
