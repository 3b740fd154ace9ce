// reduce_by_cell.cuh — one value per cell reduced over the cell's points, for
// points sorted by cell (cell_of[i] non-decreasing, every cell 0..ncells-1
// holding at least one point, so the k-th run is cell k).  One pass of CUB's
// reduce-by-key over all points: cost in proportion to the points whatever
// the cells' sizes, where a segmented reduction gives each cell a thread
// block (milliseconds for a million cells of one or two points).
#pragma once

#include <thrust/iterator/discard_iterator.h>

#include <algorithm>
#include <cub/device/device_reduce.cuh>

#include "cuda_util.cuh"

namespace gd {
namespace cuda {

template <class ValuesIt, class T, class Op>
void reduce_by_cell(RunContext& ctx, const uint32_t* cell_of, ValuesIt values, T* out, Op op,
                    uint32_t n, const char* what) {
  namespace cub = CUB_NS_QUALIFIER;
  namespace thrust = THRUST_NS_QUALIFIER;
  cudaStream_t s = ctx.stream();
  thrust::discard_iterator<> keys_out;
  size_t bytes = 0;
  CUDA_TRY(cub::DeviceReduce::ReduceByKey(nullptr, bytes, cell_of, keys_out, values, out,
                                          static_cast<uint32_t*>(nullptr), op, n, s));
  // The run count goes after the temporary storage, in the same allocation.
  size_t at = (bytes + 15) & ~size_t{15};
  auto temp = ctx.alloc<uint8_t>(at + sizeof(uint32_t), what);
  uint32_t* runs = reinterpret_cast<uint32_t*>(temp.data() + at);
  CUDA_TRY(cub::DeviceReduce::ReduceByKey(temp.data(), bytes, cell_of, keys_out, values, out, runs,
                                          op, n, s));
}

}  // namespace cuda
}  // namespace gd
