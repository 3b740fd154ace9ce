// box_pairs.cu — the candidate pairs of boxes (cpu_pairs.cpp) searched on
// the device: the tree packed on the host (box_tree.hpp) is copied up, and
// each item queries it through the same BoxTreeView::query as the CPU, one
// thread an item, for the items after it that meet it by within
// (pair_search.cuh: counted, then written).
#include "box_tree.hpp"
#include "gd_cuda.hpp"
#include "graph.hpp"
#include "grid.cuh"
#include "pair_search.cuh"
#include "pipeline.cuh"

namespace gd {
namespace cuda {

namespace {

__global__ void box_count_kernel(BoxTreeView tree, double within, const volatile int* stop,
                                 uint64_t* __restrict__ count) {
  if (cancelled(stop)) return;
  const uint64_t a = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (a >= tree.nitems) return;
  uint64_t k = 0;
  tree.query(tree.items[a], within, [&](uint32_t b) {
    if (b > a) ++k;
  });
  count[a] = k;
}

__global__ void box_write_kernel(BoxTreeView tree, double within, const uint32_t* __restrict__ row_at,
                                 uint32_t first, uint32_t end, PairOffsets offsets,
                                 const volatile int* stop) {
  if (cancelled(stop)) return;
  const uint64_t a = first + static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (a >= end) return;
  PairSlot slot = offsets.slot(static_cast<uint32_t>(a));
  const uint32_t ra = row_at[a];
  tree.query(tree.items[a], within, [&](uint32_t b) {
    if (b > a) slot.put(ordered_pair(ra, row_at[b]));
  });
  slot.finish();
}

void box_pairs(const BoxTree& tree, const uint32_t* row_at, double within,
               const gd_params& params, const CancelToken& cancel, gd_pair_list* out,
               int64_t max_pairs) {
  const uint32_t n = tree.size();
  RunContext ctx(params.device, params.device_memory_budget, cancel);
  cudaStream_t s = ctx.stream();
  auto items = ctx.alloc<TreeBox>(n, "tree boxes");
  auto nodes = ctx.alloc<TreeNode>(tree.nodes().size(), "tree nodes");
  auto rows = ctx.alloc<uint32_t>(n, "rows of the boxes");
  CUDA_TRY(cudaMemcpyAsync(items.data(), tree.items().data(), sizeof(TreeBox) * n,
                           cudaMemcpyHostToDevice, s));
  if (!tree.nodes().empty())
    CUDA_TRY(cudaMemcpyAsync(nodes.data(), tree.nodes().data(),
                             sizeof(TreeNode) * tree.nodes().size(), cudaMemcpyHostToDevice, s));
  CUDA_TRY(cudaMemcpyAsync(rows.data(), row_at, sizeof(uint32_t) * n, cudaMemcpyHostToDevice, s));
  const BoxTreeView view = tree.view_of(items.data(), nodes.data());
  const volatile int* stop = ctx.cancel_flag_device();
  collect_pairs_on_device(
      ctx, n, max_pairs, "candidate pairs",
      [&](uint64_t* count) {
        box_count_kernel<<<grid_for(n), kBlock, 0, s>>>(view, within, stop, count);
        GD_CHECK_LAUNCH("box_count_kernel");
      },
      [&](uint32_t a, uint32_t b, const PairOffsets& offsets) {
        box_write_kernel<<<grid_for(b - a), kBlock, 0, s>>>(view, within, rows.data(), a, b,
                                                            offsets, stop);
        GD_CHECK_LAUNCH("box_write_kernel");
      },
      out);
}

}  // namespace

}  // namespace cuda

void gpu_box_pairs(const BoxTree& tree, const uint32_t* row_at, double within,
                   const gd_params& params, const CancelToken& cancel, gd_pair_list* out,
                   int64_t max_pairs) {
  try {
    cuda::box_pairs(tree, row_at, within, params, cancel, out, max_pairs);
  } catch (const Error& e) {
    cuda::reset_after(e);
    throw;
  }
}

}  // namespace gd
