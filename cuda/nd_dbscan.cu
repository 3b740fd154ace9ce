// nd_dbscan.cu — the device pipeline for points of 3 to 8 dimensions (POINT
// Z, float8[] rows), the GPU side of nd_dbscan.cpp:
//
//   upload -> grid (nd_cells.hpp's cells on the first three axes, sorted on
//   the device) -> core flags with early exit -> union of core pairs
//   (union_find.cuh) -> first claimers -> representatives and their ranks
//   (ranks.cuh's rank_roots) -> download
//
// The rules are rules/dbscan_rules.hpp's over the symmetric predicate
// within_eps_d<D> (rules/neighbour.hpp): core pairs are joined both ways, a
// border point joins its core neighbour with the smallest index.  Each
// cell's box lets a stage skip a cell whose nearest corner is too far, or
// take it whole when its farthest corner is near enough (the predicate is
// monotone in every |q_k - p_k|); a cell whose box's corners pass is
// "small": its points are pairwise neighbours, so its core points are one
// set and count each other without a test.  Fine cells (side eps / sqrt 3)
// where points are dense, as on the CPU, make most cells small.
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <algorithm>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "claimers.cuh"
#include "gd_cuda.hpp"
#include "grid.cuh"
#include "nd_cells.hpp"
#include "nd_points.hpp"
#include "pair_search.cuh"
#include "pipeline.cuh"
#include "ranks.cuh"
#include "rules/small_cells.hpp"
#include "sweep.hpp"
#include "trace.cuh"
#include "union_find.cuh"

namespace gd {
namespace cuda {

namespace cub = CUB_NS_QUALIFIER;
namespace thrust = THRUST_NS_QUALIFIER;

namespace {

// ---- boxes -------------------------------------------------------------------

template <int D>
struct BoxD {
  double lo[D];
  double hi[D];
};

// The one-point box of point i, on the first D coordinates of rows of stride.
template <int D>
struct PointBox {
  const double* p;
  int stride;
  __host__ __device__ BoxD<D> operator()(uint64_t i) const {
    BoxD<D> b;
    for (int k = 0; k < D; ++k) b.lo[k] = b.hi[k] = p[i * stride + k];
    return b;
  }
};

template <int D>
struct MergeBox {
  __host__ __device__ BoxD<D> operator()(const BoxD<D>& a, const BoxD<D>& b) const {
    BoxD<D> r;
    for (int k = 0; k < D; ++k) {
      r.lo[k] = a.lo[k] < b.lo[k] ? a.lo[k] : b.lo[k];
      r.hi[k] = a.hi[k] > b.hi[k] ? a.hi[k] : b.hi[k];
    }
    return r;
  }
};

// b may hold a neighbour of p / holds only neighbours of p (rules/neighbour.hpp).
template <int D>
__device__ __forceinline__ bool box_near(const double* p, const BoxD<D>& b, double eps) {
  return box_near_d<D>(p, b.lo, b.hi, eps);
}
template <int D>
__device__ __forceinline__ bool box_all(const double* p, const BoxD<D>& b, double eps) {
  return box_all_d<D>(p, b.lo, b.hi, eps);
}

// ---- the grid ------------------------------------------------------------------

// Small cells of at most this many points are joined to each other one
// thread a cell pair (at most kThreadCell^2 tests), larger ones one warp a
// cell (NdView::large lists them).
constexpr uint32_t kThreadCell = 32;

template <int D>
struct NdView {
  uint32_t n;
  uint32_t ncells;
  int nwin;                 // cell ranges per cell: (2 radius + 1)^2
  double eps;
  const double* p;          // coordinates in cell order, D per point
  const uint32_t* idx;      // original index of each sorted point
  const uint32_t* cell_of;  // cell of each sorted point
  const uint32_t* start;    // ncells + 1 offsets into the sorted points
  const BoxD<D>* box;       // box of each cell's points
  const uint8_t* small;     // cell: its points are pairwise neighbours
  const CellRange* win;     // nwin per cell, offset-major: the cells that may hold a neighbour
  const uint32_t* large;    // the small cells of more than kThreadCell points
  uint32_t nlarge;

  __device__ const double* point(uint32_t i) const { return p + static_cast<size_t>(i) * D; }
  // Range r of cell c's window; offset-major, so that the threads of a warp
  // (neighbouring cells) read neighbouring ranges.
  __device__ CellRange window(uint32_t c, int r) const {
    return win[static_cast<size_t>(r) * ncells + c];
  }
};

template <int D>
struct NdGridDev {
  uint32_t n = 0, ncells = 0;
  int radius = 1;
  double eps = 0;
  device_buffer<double> p;
  device_buffer<uint32_t> idx, cell_of, start;
  device_buffer<BoxD<D>> box;
  device_buffer<uint8_t> small;
  device_buffer<CellRange> win;
  device_buffer<uint32_t> large;
  uint32_t nlarge = 0;
  uint64_t work = 0;
  device_buffer<uint64_t> keys;  // the sorted points' cell keys (one-key grids), until finish_grid

  int nwin() const { return (2 * radius + 1) * (2 * radius + 1); }
  NdView<D> view() const {
    return NdView<D>{n,           ncells,         nwin(),       eps,        p.data(),
                     idx.data(),  cell_of.data(), start.data(), box.data(), small.data(),
                     win.data(),  large.data(),   nlarge};
  }
};

// Sort key of sorted point j for one pass: the whole cell (axis < 0: the
// cells fit a 64-bit key) or one axis of it.
struct KeyOf {
  const double* coords;
  const uint32_t* order;  // null: identity
  int dims;
  CellMap map;
  uint64_t count1, count2;
  int axis;
  __device__ uint64_t operator()(uint64_t j) const {
    const uint64_t i = order ? order[j] : j;
    const NdCell k = map.cell_of(coords + i * dims);
    if (axis >= 0) return static_cast<uint64_t>(k.c[axis]);
    return (static_cast<uint64_t>(k.c[0]) * count1 + static_cast<uint64_t>(k.c[1])) * count2 +
           static_cast<uint64_t>(k.c[2]);
  }
};

__global__ void keys_kernel(KeyOf key, uint32_t n, uint64_t* out) {
  uint64_t j = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j < n) out[j] = key(j);
}

__global__ void iota_kernel(uint32_t* out, uint32_t n) {
  uint64_t j = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j < n) out[j] = static_cast<uint32_t>(j);
}

template <int D>
__global__ void gather_kernel(const double* __restrict__ coords, const uint32_t* __restrict__ idx,
                              uint32_t n, double* __restrict__ out) {
  uint64_t t = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= static_cast<uint64_t>(n) * D) return;
  const uint64_t j = t / D, k = t % D;
  out[t] = coords[static_cast<uint64_t>(idx[j]) * D + k];
}

// 1 where sorted point j starts a cell: its key differs from the previous
// point's where the grid has keys, else its cell.
template <int D>
struct StartsCell {
  const double* p;
  CellMap map;
  const uint64_t* keys;  // sorted cell keys, or null
  __host__ __device__ uint32_t operator()(uint64_t j) const {
    if (j == 0) return 1u;
    if (keys != nullptr) return keys[j] != keys[j - 1] ? 1u : 0u;
    return !(map.cell_of(p + j * D) == map.cell_of(p + (j - 1) * D)) ? 1u : 0u;
  }
};

template <int D>
__global__ void cell_starts_kernel(StartsCell<D> starts, const uint32_t* __restrict__ cell_of,
                                   uint32_t n, uint32_t* __restrict__ start,
                                   NdCell* __restrict__ cells) {
  uint64_t j = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j < n && starts(j)) {
    start[cell_of[j]] = static_cast<uint32_t>(j);
    cells[cell_of[j]] = starts.map.cell_of(starts.p + j * D);
  }
  if (j == 0) start[cell_of[n - 1] + 1] = n;
}

// Each cell's box: one thread a cell of at most kThreadCell points (the
// points of neighbouring cells are neighbours in memory); the larger cells
// go to big, for box_warp_kernel.
template <int D>
__global__ void box_kernel(const double* __restrict__ p, const uint32_t* __restrict__ start,
                           uint32_t ncells, BoxD<D>* __restrict__ box, uint32_t* __restrict__ big,
                           uint32_t* nbig) {
  const uint64_t c = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (c >= ncells) return;
  const uint32_t b = start[c], e = start[c + 1];
  if (e - b > kThreadCell) {
    big[atomicAdd(nbig, 1u)] = static_cast<uint32_t>(c);
    return;
  }
  BoxD<D> r = PointBox<D>{p, D}(b);
  for (uint32_t i = b + 1; i < e; ++i) r = MergeBox<D>{}(r, PointBox<D>{p, D}(i));
  box[c] = r;
}

// The boxes of the big cells, one warp a cell (as many warps as launched,
// over the list whose length the device holds).
template <int D>
__global__ void box_warp_kernel(const double* __restrict__ p, const uint32_t* __restrict__ start,
                                const uint32_t* __restrict__ big, const uint32_t* nbig,
                                BoxD<D>* __restrict__ box) {
  const uint64_t warps = static_cast<uint64_t>(gridDim.x) * blockDim.x / 32;
  const unsigned lane = threadIdx.x % 32;
  for (uint64_t k = (static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / 32; k < *nbig;
       k += warps) {
    const uint32_t c = big[k], b = start[c], e = start[c + 1];
    BoxD<D> r = PointBox<D>{p, D}(b);  // every lane starts from the first point
    for (uint32_t i = b + lane; i < e; i += 32) r = MergeBox<D>{}(r, PointBox<D>{p, D}(i));
    for (int off = 16; off > 0; off /= 2) {
      BoxD<D> o;
      for (int a = 0; a < D; ++a) {
        o.lo[a] = __shfl_xor_sync(0xffffffffu, r.lo[a], off);
        o.hi[a] = __shfl_xor_sync(0xffffffffu, r.hi[a], off);
      }
      r = MergeBox<D>{}(r, o);
    }
    if (lane == 0) box[c] = r;
  }
}

// The grid's cells as one dense array of keys (c0 * count1 + c1) * count2 +
// c2, as KeyOf's: below[k] = how many occupied cells have a smaller key, so
// the cells of keys [a, b] are the range [below[a], below[b + 1]).  Built
// where the keys are few (dense_keys); null otherwise.
struct DenseCells {
  const uint32_t* below = nullptr;
  uint64_t count[3] = {1, 1, 1};
  __device__ uint64_t key(int64_t c0, int64_t c1, int64_t c2) const {
    return (static_cast<uint64_t>(c0) * count[1] + static_cast<uint64_t>(c1)) * count[2] +
           static_cast<uint64_t>(c2);
  }
};

__global__ void mark_keys_kernel(const NdCell* __restrict__ cells, uint32_t ncells,
                                 DenseCells d, uint8_t* __restrict__ flag) {
  uint64_t c = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (c < ncells) flag[d.key(cells[c].c[0], cells[c].c[1], cells[c].c[2])] = 1;
}

// flag[key of point j] = 1 (KeyOf of the whole cell).
__global__ void mark_point_keys_kernel(KeyOf key, uint32_t n, uint8_t* __restrict__ flag) {
  uint64_t j = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j < n) flag[key(j)] = 1;
}

// A key's flag as a count, for CUB's sums and scans over the flags.
struct FlagCount {
  const uint8_t* flag;
  __host__ __device__ uint32_t operator()(uint64_t k) const { return flag[k]; }
};

// What finish_grid reads back in one copy.
struct GridTotals {
  uint64_t work;    // the work estimate
  uint32_t large;   // entries of NdView::large
};

// Per cell: small flag, and its window: for each offset on the first two
// axes, the cells within radius on the third, one range (cells are in
// lexicographic order; found in the dense table, else by binary search);
// work[c] = its points times the window's points, or its points alone for
// a small cell of at least need points (they are core without a search,
// join their cell's first core, and are no border); a small cell of more
// than kThreadCell points goes to the list large.
template <int D>
__global__ void window_kernel(const NdCell* __restrict__ cells, int radius, uint32_t ncells,
                              double eps, int64_t need, DenseCells dense,
                              const uint32_t* __restrict__ start,
                              const BoxD<D>* __restrict__ box, uint8_t* __restrict__ small,
                              CellRange* __restrict__ win, uint64_t* __restrict__ work,
                              uint32_t* __restrict__ large, GridTotals* totals) {
  uint64_t c = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (c >= ncells) return;
  const NdCell k = cells[c];
  small[c] = within_eps_d<D>(box[c].lo, box[c].hi, eps) ? 1 : 0;
  const int width = 2 * radius + 1;
  uint64_t seen = 0;
  for (int r = 0; r < width * width; ++r) {
    NdCell low = k;
    low.c[0] += r % width - radius;
    low.c[1] += r / width - radius;
    NdCell high = low;
    low.c[2] = k.c[2] - radius;
    high.c[2] = k.c[2] + radius;
    uint32_t lo, a;
    if (dense.below != nullptr) {
      const int64_t n0 = static_cast<int64_t>(dense.count[0]);
      const int64_t n1 = static_cast<int64_t>(dense.count[1]);
      const int64_t n2 = static_cast<int64_t>(dense.count[2]);
      if (low.c[0] < 0 || low.c[0] >= n0 || low.c[1] < 0 || low.c[1] >= n1) {
        lo = a = 0;
      } else {
        const int64_t z0 = low.c[2] < 0 ? 0 : low.c[2];
        const int64_t z1 = high.c[2] >= n2 ? n2 - 1 : high.c[2];
        lo = dense.below[dense.key(low.c[0], low.c[1], z0)];
        a = dense.below[dense.key(low.c[0], low.c[1], z1) + 1];
      }
    } else {
      // first cell >= low, first cell > high
      uint32_t b = ncells;
      a = 0;
      while (a < b) {
        uint32_t m = a + (b - a) / 2;
        if (cells[m] < low) a = m + 1; else b = m;
      }
      lo = a;
      b = ncells;
      while (a < b) {
        uint32_t m = a + (b - a) / 2;
        if (cells[m] <= high) a = m + 1; else b = m;
      }
    }
    win[static_cast<size_t>(r) * ncells + c] = CellRange{lo, a};
    seen += start[a] - start[lo];
  }
  const uint64_t size = start[c + 1] - start[c];
  work[c] = small[c] && static_cast<int64_t>(size) >= need ? size : seen * size;
  if (small[c] && size > kThreadCell)
    large[atomicAdd(&totals->large, 1u)] = static_cast<uint32_t>(c);
}

// The points' box on the first three axes.
AxisBox axis_box(RunContext& ctx, const double* coords, int dims, uint32_t n) {
  using It = thrust::transform_iterator<PointBox<3>, thrust::counting_iterator<uint64_t>>;
  It in(thrust::counting_iterator<uint64_t>(0), PointBox<3>{coords, dims});
  BoxD<3> init;
  for (int k = 0; k < 3; ++k) init.lo[k] = INFINITY, init.hi[k] = -INFINITY;
  auto out = ctx.alloc<BoxD<3>>(1, "bounds");
  size_t bytes = 0;
  cudaStream_t s = ctx.stream();
  CUDA_TRY(cub::DeviceReduce::Reduce(nullptr, bytes, in, out.data(), n, MergeBox<3>{}, init, s));
  auto temp = ctx.alloc<uint8_t>(std::max<size_t>(bytes, 1), "bounds reduction");
  CUDA_TRY(cub::DeviceReduce::Reduce(temp.data(), bytes, in, out.data(), n, MergeBox<3>{}, init, s));
  BoxD<3> b;
  CUDA_TRY(cudaMemcpyAsync(&b, out.data(), sizeof b, cudaMemcpyDeviceToHost, s));
  ctx.wait();
  AxisBox box;
  for (int k = 0; k < 3; ++k) box.lo[k] = b.lo[k], box.hi[k] = b.hi[k];
  return box;
}

// The radix sort's bits for keys 0..max_key.
int key_bits(uint64_t max_key) { return max_key == 0 ? 1 : 64 - __builtin_clzll(max_key); }

// Sorts the points by cell (radix sort of 64-bit keys: one pass of the whole
// cell where the cells fit, which leaves the sorted keys in sorted_keys, else
// a stable pass per axis, last axis first).
device_buffer<uint32_t> sort_by_cell(RunContext& ctx, const double* coords, int dims, uint32_t n,
                                     const CellMap& m, const AxisBox& box,
                                     device_buffer<uint64_t>& sorted_keys) {
  cudaStream_t s = ctx.stream();
  const CellCounts k = cell_counts(m, box);
  const uint64_t* count = k.count;
  const unsigned __int128 total = k.total;
  const bool one_key = k.one_key();
  auto keys_a = ctx.alloc<uint64_t>(n, "cell keys");
  auto keys_b = ctx.alloc<uint64_t>(n, "cell keys (sorted)");
  auto idx_a = ctx.alloc<uint32_t>(n, "point order");
  auto idx_b = ctx.alloc<uint32_t>(n, "point order (sorted)");
  iota_kernel<<<grid_for(n), kBlock, 0, s>>>(idx_a.data(), n);
  GD_CHECK_LAUNCH("iota_kernel");
  device_buffer<uint8_t> temp;
  size_t temp_bytes = 0;
  const int passes = one_key ? 1 : 3;
  for (int pass = 0; pass < passes; ++pass) {
    const int axis = one_key ? -1 : 2 - pass;
    KeyOf key{coords, pass == 0 ? nullptr : idx_a.data(), dims, m, count[1], count[2], axis};
    keys_kernel<<<grid_for(n), kBlock, 0, s>>>(key, n, keys_a.data());
    GD_CHECK_LAUNCH("keys_kernel");
    const int bits = key_bits(one_key ? static_cast<uint64_t>(total - 1) : count[axis] - 1);
    size_t bytes = 0;
    CUDA_TRY(cub::DeviceRadixSort::SortPairs(nullptr, bytes, keys_a.data(), keys_b.data(),
                                             idx_a.data(), idx_b.data(), n, 0, bits, s));
    if (bytes > temp_bytes) {
      temp = ctx.alloc<uint8_t>(bytes, "cell sort");
      temp_bytes = bytes;
    }
    CUDA_TRY(cub::DeviceRadixSort::SortPairs(temp.data(), bytes, keys_a.data(), keys_b.data(),
                                             idx_a.data(), idx_b.data(), n, 0, bits, s));
    std::swap(idx_a, idx_b);
  }
  if (one_key) sorted_keys = std::move(keys_b);
  return idx_a;
}

// Where the grid has at most this many keys a point, a table over every key
// replaces sorts and binary searches (count_cells, dense_keys): a byte and a
// word a key.
constexpr uint64_t kDenseKeysPerPoint = 16;

// Where sorted keys change: 1 at the first of each run of equal keys.
struct KeyStarts {
  const uint64_t* keys;
  __host__ __device__ uint32_t operator()(uint64_t j) const {
    return j == 0 || keys[j] != keys[j - 1] ? 1u : 0u;
  }
};

// The sum of items ones and zeros (a cell's first point, an occupied key),
// read back: a count of cells.
template <class It>
uint32_t cell_count(RunContext& ctx, It in, uint64_t items) {
  cudaStream_t s = ctx.stream();
  auto cells = ctx.alloc<uint32_t>(1, "cell count");
  size_t bytes = 0;
  CUDA_TRY(cub::DeviceReduce::Sum(nullptr, bytes, in, cells.data(), items, s));
  auto temp = ctx.alloc<uint8_t>(std::max<size_t>(bytes, 1), "cell count reduction");
  CUDA_TRY(cub::DeviceReduce::Sum(temp.data(), bytes, in, cells.data(), items, s));
  uint32_t out = 0;
  CUDA_TRY(cudaMemcpyAsync(&out, cells.data(), sizeof out, cudaMemcpyDeviceToHost, s));
  ctx.wait();
  return out;
}

// How many cells of m the points fill, from a flag per key where the keys
// are few, else from their keys sorted alone (no order, no coordinates
// moved: only the count decides between coarse and fine cells); 0 where the
// cells do not fit one 64-bit key.
uint32_t count_cells(RunContext& ctx, const double* coords, int dims, uint32_t n,
                     const CellMap& m, const AxisBox& box) {
  cudaStream_t s = ctx.stream();
  const CellCounts k = cell_counts(m, box);
  if (!k.one_key()) return 0;
  const uint64_t* count = k.count;
  const unsigned __int128 total = k.total;
  const KeyOf key{coords, nullptr, dims, m, count[1], count[2], -1};
  if (total <= static_cast<unsigned __int128>(kDenseKeysPerPoint) * n) {
    // Few keys: a flag per key, set by the points and summed (no sort).
    const uint64_t keys = static_cast<uint64_t>(total);
    auto flag = ctx.alloc<uint8_t>(keys, "occupied keys");
    CUDA_TRY(cudaMemsetAsync(flag.data(), 0, keys, s));
    mark_point_keys_kernel<<<grid_for(n), kBlock, 0, s>>>(key, n, flag.data());
    GD_CHECK_LAUNCH("mark_point_keys_kernel");
    using Ft = thrust::transform_iterator<FlagCount, thrust::counting_iterator<uint64_t>>;
    return cell_count(ctx, Ft(thrust::counting_iterator<uint64_t>(0), FlagCount{flag.data()}),
                      keys);
  }
  auto keys_a = ctx.alloc<uint64_t>(n, "cell keys");
  auto keys_b = ctx.alloc<uint64_t>(n, "cell keys (sorted)");
  keys_kernel<<<grid_for(n), kBlock, 0, s>>>(key, n, keys_a.data());
  GD_CHECK_LAUNCH("keys_kernel");
  const int bits = key_bits(static_cast<uint64_t>(total - 1));
  size_t bytes = 0;
  CUDA_TRY(cub::DeviceRadixSort::SortKeys(nullptr, bytes, keys_a.data(), keys_b.data(), n, 0,
                                          bits, s));
  auto temp = ctx.alloc<uint8_t>(std::max<size_t>(bytes, 1), "cell key sort");
  CUDA_TRY(cub::DeviceRadixSort::SortKeys(temp.data(), bytes, keys_a.data(), keys_b.data(), n,
                                          0, bits, s));
  using It = thrust::transform_iterator<KeyStarts, thrust::counting_iterator<uint64_t>>;
  return cell_count(ctx, It(thrust::counting_iterator<uint64_t>(0), KeyStarts{keys_b.data()}), n);
}

// Points sorted by cell under m: the order, the sorted coordinates, and the
// cell of each point counted from 1 (finish_grid makes it 0-based).
template <int D>
NdGridDev<D> sort_points(RunContext& ctx, const double* coords, uint32_t n, const CellMap& m,
                         const AxisBox& box, int radius, double eps) {
  cudaStream_t s = ctx.stream();
  NdGridDev<D> g;
  g.n = n;
  g.eps = eps;
  g.radius = radius;
  g.idx = sort_by_cell(ctx, coords, D, n, m, box, g.keys);
  g.p = ctx.alloc<double>(static_cast<size_t>(n) * D, "sorted coordinates");
  gather_kernel<D><<<grid_for(static_cast<uint64_t>(n) * D), kBlock, 0, s>>>(coords, g.idx.data(),
                                                                            n, g.p.data());
  GD_CHECK_LAUNCH("gather_kernel");
  g.cell_of = ctx.alloc<uint32_t>(n, "cell of each point");
  {
    using It = thrust::transform_iterator<StartsCell<D>, thrust::counting_iterator<uint64_t>>;
    It in(thrust::counting_iterator<uint64_t>(0), StartsCell<D>{g.p.data(), m, g.keys.data()});
    size_t bytes = 0;
    CUDA_TRY(cub::DeviceScan::InclusiveSum(nullptr, bytes, in, g.cell_of.data(), n, s));
    auto temp = ctx.alloc<uint8_t>(std::max<size_t>(bytes, 1), "cell scan");
    CUDA_TRY(cub::DeviceScan::InclusiveSum(temp.data(), bytes, in, g.cell_of.data(), n, s));
  }
  uint32_t cells = 0;
  CUDA_TRY(cudaMemcpyAsync(&cells, g.cell_of.data() + n - 1, sizeof cells,
                           cudaMemcpyDeviceToHost, s));
  ctx.wait();
  g.ncells = cells;
  return g;
}

__global__ void minus_one_kernel(uint32_t* v, uint32_t n) {
  uint64_t j = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j < n) v[j] -= 1;
}

// The dense table of the cells of g under m (points in box), where the grid
// has at most kDenseKeysPerPoint keys a point; else below stays empty.
DenseCells dense_keys(RunContext& ctx, const NdCell* cells, uint32_t ncells, uint32_t n,
                      const CellMap& m, const AxisBox& box, device_buffer<uint32_t>& below) {
  DenseCells d;
  const CellCounts k = cell_counts(m, box);
  for (int a = 0; a < 3; ++a) d.count[a] = k.count[a];
  if (k.total > static_cast<unsigned __int128>(kDenseKeysPerPoint) * n) return d;
  const uint64_t keys = static_cast<uint64_t>(k.total);
  cudaStream_t s = ctx.stream();
  auto flag = ctx.alloc<uint8_t>(keys + 1, "occupied keys");
  CUDA_TRY(cudaMemsetAsync(flag.data(), 0, keys + 1, s));
  mark_keys_kernel<<<grid_for(ncells), kBlock, 0, s>>>(cells, ncells, d, flag.data());
  GD_CHECK_LAUNCH("mark_keys_kernel");
  below = ctx.alloc<uint32_t>(keys + 1, "cells below each key");
  using Ft = thrust::transform_iterator<FlagCount, thrust::counting_iterator<uint64_t>>;
  Ft in(thrust::counting_iterator<uint64_t>(0), FlagCount{flag.data()});
  size_t bytes = 0;
  CUDA_TRY(cub::DeviceScan::ExclusiveSum(nullptr, bytes, in, below.data(), keys + 1, s));
  auto temp = ctx.alloc<uint8_t>(std::max<size_t>(bytes, 1), "key scan");
  CUDA_TRY(cub::DeviceScan::ExclusiveSum(temp.data(), bytes, in, below.data(), keys + 1, s));
  d.below = below.data();  // read by the window kernel, next on the stream
  return d;
}

// The cells' starts, boxes, small flags, windows, large list and the work
// estimate.
template <int D>
void finish_grid(RunContext& ctx, NdGridDev<D>& g, const CellMap& m, const AxisBox& box,
                 int64_t need) {
  cudaStream_t s = ctx.stream();
  const uint32_t n = g.n;
  minus_one_kernel<<<grid_for(n), kBlock, 0, s>>>(g.cell_of.data(), n);
  GD_CHECK_LAUNCH("minus_one_kernel");
  g.start = ctx.alloc<uint32_t>(static_cast<size_t>(g.ncells) + 1, "cell starts");
  auto cells = ctx.alloc<NdCell>(g.ncells, "cells");
  const StartsCell<D> starts{g.p.data(), m, g.keys.data()};
  cell_starts_kernel<D><<<grid_for(n), kBlock, 0, s>>>(starts, g.cell_of.data(), n,
                                                       g.start.data(), cells.data());
  GD_CHECK_LAUNCH("cell_starts_kernel");
  g.keys = device_buffer<uint64_t>();
  trace_point(s, "nd grid: cell starts");
  g.box = ctx.alloc<BoxD<D>>(g.ncells, "cell boxes");
  {
    auto big = ctx.alloc<uint32_t>(g.ncells, "cells boxed by a warp");
    auto nbig = ctx.alloc<uint32_t>(1, "cells boxed by a warp (count)");
    CUDA_TRY(cudaMemsetAsync(nbig.data(), 0, sizeof(uint32_t), s));
    box_kernel<D><<<grid_for(g.ncells), kBlock, 0, s>>>(g.p.data(), g.start.data(), g.ncells,
                                                        g.box.data(), big.data(), nbig.data());
    GD_CHECK_LAUNCH("box_kernel");
    // At most one warp a cell past kThreadCell points, at most 8192 warps.
    const uint64_t warps = std::min<uint64_t>(n / (kThreadCell + 1) + 1, 8192);
    box_warp_kernel<D><<<grid_for(warps * 32), kBlock, 0, s>>>(g.p.data(), g.start.data(),
                                                               big.data(), nbig.data(),
                                                               g.box.data());
    GD_CHECK_LAUNCH("box_warp_kernel");
  }
  trace_point(s, "nd grid: cell boxes");
  g.small = ctx.alloc<uint8_t>(g.ncells, "small cells");
  g.win = ctx.alloc<CellRange>(static_cast<size_t>(g.ncells) * g.nwin(), "cell windows");
  auto work = ctx.alloc<uint64_t>(g.ncells, "work per cell");
  g.large = ctx.alloc<uint32_t>(g.ncells, "large small cells");
  auto totals = ctx.alloc<GridTotals>(1, "grid totals");
  CUDA_TRY(cudaMemsetAsync(totals.data(), 0, sizeof(GridTotals), s));
  device_buffer<uint32_t> below;
  const DenseCells dense = dense_keys(ctx, cells.data(), g.ncells, n, m, box, below);
  trace_point(s, "nd grid: dense table");
  window_kernel<D><<<grid_for(g.ncells), kBlock, 0, s>>>(cells.data(), g.radius, g.ncells, g.eps,
                                                         need, dense, g.start.data(), g.box.data(),
                                                         g.small.data(), g.win.data(),
                                                         work.data(), g.large.data(),
                                                         totals.data());
  GD_CHECK_LAUNCH("window_kernel");
  trace_point(s, "nd grid: windows");
  uint64_t* total = &totals.data()->work;
  size_t bytes = 0;
  CUDA_TRY(cub::DeviceReduce::Sum(nullptr, bytes, work.data(), total, g.ncells, s));
  auto temp = ctx.alloc<uint8_t>(std::max<size_t>(bytes, 1), "work reduction");
  CUDA_TRY(cub::DeviceReduce::Sum(temp.data(), bytes, work.data(), total, g.ncells, s));
  GridTotals t;
  CUDA_TRY(cudaMemcpyAsync(&t, totals.data(), sizeof t, cudaMemcpyDeviceToHost, s));
  ctx.wait();
  g.work = t.work;
  g.nlarge = t.large;
  trace_point(s, "nd grid: work total");
}

// ---- the stages ------------------------------------------------------------------

template <int D>
__device__ __forceinline__ void load(const NdView<D>& g, uint32_t i, double* p) {
  const double* q = g.point(i);
  for (int k = 0; k < D; ++k) p[k] = q[k];
}

// Rule 1, with early exit at need.
// count (may be null) takes each point's neighbours counted up to the need,
// for a sweep's smaller values (core_marks, sweep.cu).
template <int D>
__global__ void core_kernel(NdView<D> g, int64_t minpoints, Batch batch, const volatile int* stop,
                            uint8_t* __restrict__ core, uint32_t* __restrict__ count) {
  if (cancelled(stop)) return;
  uint32_t i;
  if (!batch_point(batch, g.n, &i)) return;
  const uint32_t c = g.cell_of[i];
  CoreCount found(minpoints);
  if (g.small[c]) found.add(g.start[c + 1] - g.start[c]);  // counted without a test
  if (!found.core()) {
    double p[D];
    load(g, i, p);
    for (int r = 0; r < g.nwin && !found.core(); ++r) {
      const CellRange w = g.window(c, r);
      for (uint32_t n = w.lo; n < w.hi; ++n) {
        if (n == c && g.small[c]) continue;
        const BoxD<D> b = g.box[n];
        if (!box_near<D>(p, b, g.eps)) continue;
        const uint32_t qb = g.start[n], qe = g.start[n + 1];
        if (box_all<D>(p, b, g.eps)) {
          if (found.add(qe - qb)) break;
          continue;
        }
        bool done = false;
        for (uint32_t q = qb; q < qe; ++q)
          if (within_eps_d<D>(p, g.point(q), g.eps) && found.add()) {
            done = true;
            break;
          }
        if (done) break;
      }
    }
  }
  core[i] = found.core() ? 1 : 0;
  if (count != nullptr) count[i] = static_cast<uint32_t>(found.core() ? found.need : found.found);
}

// Each cell's first core point (smallest sorted position; kNone for none,
// the buffer set to 0xff first) and, fresh not null, whether it holds a new
// core point (core mark 2, fresh zeroed first): one pass, the atomicMin read
// first as labels.cu's smallest_core_kernel does, where CUB's reduce-by-key
// took several launches and temporary storage (~110 us at 10M points).
__global__ void first_cores_kernel(const uint32_t* __restrict__ cell_of,
                                   const uint8_t* __restrict__ core, uint32_t n,
                                   uint32_t* first_core, uint8_t* fresh) {
  const uint64_t j = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j >= n || !core[j]) return;
  const uint32_t c = cell_of[j];
  if (j < *static_cast<volatile uint32_t*>(first_core + c))
    atomicMin(first_core + c, static_cast<uint32_t>(j));
  if (fresh != nullptr && core[j] == 2) fresh[c] = 1;
}

// Rule 3 (the relation is symmetric: every core pair within eps is joined).
// A small cell's core points are one set (they are pairwise neighbours), so
// one pair joins it to another set, and a small cell wholly within reach of
// a point is joined without a test.  The cells that are not small first join
// the pairs inside them (within_union_kernel), and one_set marks those whose
// core points then are one set: those are joined to like a small cell.  Who
// tests which pair:
//   - a core point of a small cell joins its cell's first core, nothing more;
//   - a core point p of a cell that is not small: the core points after it
//     in its cell (within_union_kernel, the pairs already in one set
//     skipped untested; a cell of more than kThreadCell points is searched
//     by one warp instead, within_bfs_kernel), then (union_kernel) every small cell and every
//     one-set cell of its window, each up to its first core point within eps
//     of p, and the other cells of its window that are not small, after its
//     own, pair by pair, unless its own cell is one set (then their points
//     come to it);
//   - two small cells: the pair of cells, once (tiny_union_kernel when both
//     hold at most kThreadCell points, one thread a cell; else
//     cell_union_kernel from the larger, one warp a cell).
//   - in a sweep's later values (step: core marks 2 for the points that
//     became core, 1 for those core before, parent the previous value's
//     sets), a pair of two earlier core points is joined already: skipped.
// Without the one-set cells, points spread over axes the grid does not cut
// (6-D blobs of 20,000 points in a unit cube, eps 1) tested every pair of
// neighbouring crowded cells: 2.3 s for 1M points.
template <int D>
__global__ void within_union_kernel(NdView<D> g, const uint8_t* __restrict__ core, Batch batch,
                                    bool step, const volatile int* stop, uint32_t* parent) {
  if (cancelled(stop)) return;
  uint32_t i;
  if (!batch_point(batch, g.n, &i)) return;
  if (!core[i]) return;
  const uint32_t c = g.cell_of[i];
  if (g.small[c] || g.start[c + 1] - g.start[c] > kThreadCell) return;  // crowded: within_bfs_kernel
  const uint8_t old = step && core[i] == 1 ? 1 : 0;  // q must then be new
  double p[D];
  load(g, i, p);
  for (uint32_t q = i + 1; q < g.start[c + 1]; ++q)
    if (core[q] && core[q] != old && uf_find(parent, i) != uf_find(parent, q) &&
        within_eps_d<D>(p, g.point(q), g.eps))
      uf_unite(parent, i, q);
}

// Cells that are not small and hold more than kThreadCell points, for
// within_bfs_kernel (the others are joined inside by within_union_kernel).
__global__ void crowded_cells_kernel(const uint32_t* __restrict__ start,
                                     const uint8_t* __restrict__ small,
                                     const uint32_t* __restrict__ first_core, uint32_t ncells,
                                     uint32_t* __restrict__ list, uint32_t* count) {
  const uint64_t c = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (c >= ncells || small[c] || first_core[c] == kNone) return;
  if (start[c + 1] - start[c] > kThreadCell) list[atomicAdd(count, 1u)] = static_cast<uint32_t>(c);
}

// The core points of a crowded cell joined inside it, one warp a cell (as
// many warps as launched, over the list whose length the device holds): a
// search from each point not reached yet, each reached point testing the
// points not reached yet, which are compacted between two buffers as it
// goes (a test either reaches a point or keeps it), so a cell of m core
// points costs about m times the few searches that reach the rest, where
// pairs cost m^2 / 2 (1.1 s for 1M 6-D points in cells of 2,600).  open,
// spare and queue are scratch of n entries; a cell uses its own range.
template <int D>
__global__ void within_bfs_kernel(NdView<D> g, const uint8_t* __restrict__ core,
                                  const uint32_t* __restrict__ list, const uint32_t* count,
                                  const volatile int* stop, uint32_t* open_all,
                                  uint32_t* spare_all, uint32_t* queue_all, uint32_t* parent) {
  const uint64_t warps = static_cast<uint64_t>(gridDim.x) * blockDim.x / 32;
  const unsigned lane = threadIdx.x % 32;
  const unsigned below = (1u << lane) - 1;
  for (uint64_t k = (static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
       k < *count; k += warps) {
    if (__shfl_sync(0xffffffffu, lane == 0 && *stop != 0, 0)) return;
    const uint32_t c = list[k], b = g.start[c], e = g.start[c + 1];
    uint32_t* open = open_all + b;
    uint32_t* spare = spare_all + b;
    uint32_t* queue = queue_all + b;
    uint32_t u = 0;  // open[0, u): core points not reached yet
    for (uint32_t j0 = b; j0 < e; j0 += 32) {
      const uint32_t j = j0 + lane;
      const bool is = j < e && core[j] != 0;
      const unsigned m = __ballot_sync(0xffffffffu, is);
      if (is) open[u + __popc(m & below)] = j;
      u += __popc(m);
    }
    __syncwarp();
    uint32_t head = 0, tail = 0;  // queue[head, tail): reached, not searched from
    while (u > 0) {
      queue[tail++] = open[--u];  // read and written by every lane alike
      __syncwarp();
      while (head < tail) {
        if ((head & 255) == 0 && __shfl_sync(0xffffffffu, lane == 0 && *stop != 0, 0)) return;
        const uint32_t p = queue[head++];
        double pp[D];
        load(g, p, pp);
        uint32_t kept = 0;
        for (uint32_t j0 = 0; j0 < u; j0 += 32) {
          const uint32_t j = j0 + lane;
          const bool valid = j < u;
          const uint32_t q = valid ? open[j] : 0;
          const bool hit = valid && within_eps_d<D>(pp, g.point(q), g.eps);
          const unsigned mh = __ballot_sync(0xffffffffu, hit);
          const unsigned mk = __ballot_sync(0xffffffffu, valid && !hit);
          if (hit) {
            queue[tail + __popc(mh & below)] = q;
            uf_unite(parent, p, q);
          } else if (valid) {
            spare[kept + __popc(mk & below)] = q;
          }
          tail += __popc(mh);
          kept += __popc(mk);
        }
        __syncwarp();
        uint32_t* t = open;
        open = spare;
        spare = t;
        u = kept;
      }
    }
  }
}

// one_set[c] cleared for a cell that is not small where a core point is not
// in its first core's set (the cells were all marked first).
__global__ void one_set_kernel(const uint32_t* __restrict__ cell_of,
                               const uint8_t* __restrict__ small, const uint8_t* __restrict__ core,
                               const uint32_t* __restrict__ first_core, uint32_t n,
                               uint32_t* parent, uint8_t* one_set) {
  const uint64_t i = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n || !core[i]) return;
  const uint32_t c = cell_of[i];
  if (small[c]) return;
  if (uf_find(parent, static_cast<uint32_t>(i)) != uf_find(parent, first_core[c])) one_set[c] = 0;
}

template <int D>
__global__ void union_kernel(NdView<D> g, const uint8_t* __restrict__ core,
                             const uint32_t* __restrict__ first_core,
                             const uint8_t* __restrict__ one_set, Batch batch, bool step,
                             const volatile int* stop, uint32_t* parent) {
  if (cancelled(stop)) return;
  uint32_t i;
  if (!batch_point(batch, g.n, &i)) return;
  if (!core[i]) return;
  const uint32_t c = g.cell_of[i];
  if (g.small[c]) {
    if (first_core[c] != i) uf_unite(parent, first_core[c], i);
    return;
  }
  const uint8_t old = step && core[i] == 1 ? 1 : 0;  // q must then be new
  const bool own_one = one_set[c] != 0;
  double p[D];
  load(g, i, p);
  for (int r = 0; r < g.nwin; ++r) {
    const CellRange w = g.window(c, r);
    for (uint32_t n = w.lo; n < w.hi; ++n) {
      if (n == c) continue;
      const uint32_t f = first_core[n];
      if (f == kNone) continue;
      const bool small = g.small[n] != 0;
      const bool one = small || one_set[n] != 0;  // up to the first core point within eps
      if (!one && (own_one || n < c)) continue;
      if (one && uf_find(parent, i) == uf_find(parent, f)) continue;
      const BoxD<D> b = g.box[n];
      if (!box_near<D>(p, b, g.eps)) continue;
      if (small && box_all<D>(p, b, g.eps)) {
        uf_unite(parent, i, f);
        continue;
      }
      for (uint32_t q = f; q < g.start[n + 1]; ++q) {
        if (!core[q] || core[q] == old || !within_eps_d<D>(p, g.point(q), g.eps)) continue;
        if (one) {
          uf_unite(parent, i, q);
          break;
        }
        if (uf_find(parent, i) != uf_find(parent, q)) uf_unite(parent, i, q);
      }
    }
  }
}

// fresh (null: every cell) marks the cells holding a new core point in a
// sweep's later values: two cells without one were joined, or not, before.
template <int D>
__global__ void tiny_union_kernel(NdView<D> g, const uint8_t* __restrict__ core,
                                  const uint32_t* __restrict__ first_core,
                                  const uint8_t* __restrict__ fresh, const volatile int* stop,
                                  uint32_t* parent) {
  if (cancelled(stop)) return;
  const uint64_t c64 = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (c64 >= g.ncells) return;
  const uint32_t c = static_cast<uint32_t>(c64);
  const uint32_t fa = first_core[c], ae = g.start[c + 1];
  if (fa == kNone || !g.small[c] || ae - g.start[c] > kThreadCell) return;
  const BoxD<D> a = g.box[c];
  for (int r = 0; r < g.nwin; ++r) {
    const CellRange w = g.window(c, r);
    for (uint32_t n = max(w.lo, c + 1); n < w.hi; ++n) {
      const uint32_t fn = first_core[n], ne = g.start[n + 1];
      if (fn == kNone || !g.small[n] || ne - g.start[n] > kThreadCell) continue;
      if (fresh != nullptr && !fresh[c] && !fresh[n]) continue;
      if (uf_find(parent, fa) == uf_find(parent, fn)) continue;
      const BoxD<D> b = g.box[n];
      uint64_t tests = 0;
      if (small_cells_joined<D>(
              a.lo, a.hi, b.lo, b.hi, fa, ae, fn, ne, g.eps,
              [core](uint32_t j) { return core[j] != 0; }, [&g](uint32_t j) { return g.point(j); },
              &tests))
        uf_unite(parent, fa, fn);
    }
  }
}

// One warp a small cell c of more than kThreadCell points, for each small
// cell of its window with fewer points (or as many and after it): the
// lanes share that cell's points.  So a dense cell costs one search per
// neighbouring cell, not one per point.
template <int D>
__global__ void cell_union_kernel(NdView<D> g, const uint8_t* __restrict__ core,
                                  const uint32_t* __restrict__ first_core,
                                  const uint8_t* __restrict__ fresh, const volatile int* stop,
                                  uint32_t* parent) {
  const uint64_t k = (static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  const unsigned lane = threadIdx.x % 32;
  if (k >= g.nlarge) return;  // the whole warp
  const uint32_t c = g.large[k];
  const uint32_t fa = first_core[c], ae = g.start[c + 1], size = ae - g.start[c];
  if (fa == kNone) return;
  const BoxD<D> a = g.box[c];
  for (int r = 0; r < g.nwin; ++r) {
    const CellRange w = g.window(c, r);
    // The flag read by one lane for the warp (cancelled() syncs the block,
    // whose warps leave at different points here).
    if (__shfl_sync(0xffffffffu, lane == 0 && *stop != 0, 0)) return;
    for (uint32_t n = w.lo; n < w.hi; ++n) {
      const uint32_t fn = first_core[n], ne = g.start[n + 1], nsize = ne - g.start[n];
      if (n == c || fn == kNone || !g.small[n] || nsize > size || (nsize == size && n < c))
        continue;
      if (fresh != nullptr && !fresh[c] && !fresh[n]) continue;
      const BoxD<D> b = g.box[n];
      if (!boxes_near_d<D>(a.lo, a.hi, b.lo, b.hi, g.eps)) continue;
      bool join = boxes_all_d<D>(a.lo, a.hi, b.lo, b.hi, g.eps);
      if (!join) {
        bool same = false;
        if (lane == 0) same = uf_find(parent, fa) == uf_find(parent, fn);
        if (__shfl_sync(0xffffffffu, same, 0)) continue;
        for (uint32_t p = fa; p < ae && !join; ++p) {
          if (!core[p]) continue;
          double pp[D];
          load(g, p, pp);
          if (!box_near<D>(pp, b, g.eps)) continue;
          for (uint32_t q0 = fn; q0 < ne; q0 += 32) {
            const uint32_t q = q0 + lane;
            const bool hit = q < ne && core[q] && within_eps_d<D>(pp, g.point(q), g.eps);
            if (__any_sync(0xffffffffu, hit)) {
              join = true;
              break;
            }
          }
        }
      }
      if (join && lane == 0) uf_unite(parent, fa, fn);
    }
  }
}

// Rule 2 for a point that is not core: the core neighbour with the smallest
// original index (its sorted index in parent[i]; kNone: noise).
template <int D>
__global__ void border_kernel(NdView<D> g, const uint8_t* __restrict__ core,
                              const uint64_t* __restrict__ cell_min_core, Batch batch,
                              const volatile int* stop, uint32_t* __restrict__ parent) {
  if (cancelled(stop)) return;
  uint32_t i;
  if (!batch_point(batch, g.n, &i)) return;
  if (core[i]) return;
  double p[D];
  load(g, i, p);
  uint64_t best = kNoCore;
  const uint32_t c = g.cell_of[i];
  for (int r = 0; r < g.nwin; ++r) {
    const CellRange w = g.window(c, r);
    for (uint32_t n = w.lo; n < w.hi; ++n) {
      if (cell_min_core[n] >= best) continue;
      const BoxD<D> b = g.box[n];
      if (!box_near<D>(p, b, g.eps)) continue;
      if (box_all<D>(p, b, g.eps)) {
        best = cell_min_core[n];
        continue;
      }
      for (uint32_t q = g.start[n]; q < g.start[n + 1]; ++q) {
        if (!core[q]) continue;
        const uint64_t key = (static_cast<uint64_t>(g.idx[q]) << 32) | q;
        if (key < best && within_eps_d<D>(p, g.point(q), g.eps)) best = key;
      }
    }
  }
  parent[i] = best == kNoCore ? kNone : static_cast<uint32_t>(best & 0xffffffffu);
}

// Rule 4: each point's root into the sink (ranks.cuh), its core flag into
// core_out[original index] when asked.
template <int D>
__global__ void final_kernel(NdView<D> g, const uint8_t* __restrict__ core,
                             const uint32_t* __restrict__ parent, RootsSink sink,
                             uint8_t* __restrict__ core_out) {
  const uint64_t i = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const bool in = i < g.n;  // whole warps reach the sink
  const uint32_t r = in ? final_root(core, parent, static_cast<uint32_t>(i)) : kNoise;
  if (in && core_out != nullptr) core_out[g.idx[i]] = core[i] != 0 ? 1 : 0;
  sink.put(in, static_cast<uint32_t>(i), r, in ? g.idx[i] : 0);
}

// The pairs of nd_neighbour_pairs found from sorted point i: the points
// q > i of its window within eps (all of a cell wholly within reach) and,
// with inner >= 0, not within inner (none of a cell wholly within inner).
template <int D, class Emit>
__device__ __forceinline__ void pairs_from(const NdView<D>& g, uint32_t i, double inner,
                                           Emit&& emit) {
  double p[D];
  load(g, i, p);
  const bool band = inner >= 0;
  const uint32_t c = g.cell_of[i];
  for (int r = 0; r < g.nwin; ++r) {
    const CellRange w = g.window(c, r);
    for (uint32_t n = w.lo; n < w.hi; ++n) {
      const uint32_t qe = g.start[n + 1];
      if (qe <= i + 1) continue;
      const BoxD<D> b = g.box[n];
      if (!box_near<D>(p, b, g.eps)) continue;
      if (band && box_all<D>(p, b, inner)) continue;
      const bool all = box_all<D>(p, b, g.eps) && !band;
      for (uint32_t q = max(g.start[n], i + 1); q < qe; ++q)
        if (all || (within_eps_d<D>(p, g.point(q), g.eps) &&
                    !(band && within_eps_d<D>(p, g.point(q), inner))))
          emit(q);
    }
  }
}

template <int D>
__global__ void pair_count_kernel(NdView<D> g, double inner, Batch batch,
                                  const volatile int* stop, uint64_t* __restrict__ count) {
  if (cancelled(stop)) return;
  uint32_t i;
  if (!batch_point(batch, g.n, &i)) return;
  uint64_t k = 0;
  pairs_from<D>(g, i, inner, [&](uint32_t) { ++k; });
  count[i] = k;
}

template <int D>
__global__ void pair_write_kernel(NdView<D> g, double inner, const uint32_t* __restrict__ row,
                                  uint32_t first, uint32_t end, PairOffsets offsets,
                                  const volatile int* stop) {
  if (cancelled(stop)) return;
  const uint64_t t = first + static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= end) return;
  const uint32_t i = static_cast<uint32_t>(t);
  PairSlot slot = offsets.slot(i);
  const uint32_t ri = row[i];
  pairs_from<D>(g, i, inner, [&](uint32_t q) { slot.put(ordered_pair(ri, row[q])); });
  slot.finish();
}

// row[j] = row_of[idx[j]]: the row of each sorted point.
__global__ void rows_kernel(const uint32_t* __restrict__ row_of, const uint32_t* __restrict__ idx,
                            uint32_t n, uint32_t* __restrict__ row) {
  const uint64_t j = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j < n) row[j] = row_of[idx[j]];
}

template <class Kernel>
void launch_batches(RunContext& ctx, uint32_t n, uint32_t nb, Kernel&& launch) {
  for (uint32_t b = 0; b < nb; ++b) {
    Batch batch{b, nb};
    const uint64_t threads = batch_threads(batch, n);
    if (threads != 0) launch(batch, grid_for(threads));
  }
}

// The grid of n device-resident points: coarse cells, or fine ones where
// the coarse cells hold many points; its work estimate for minpoints.
template <int D>
NdGridDev<D> build_grid(RunContext& ctx, const double* coords, uint32_t n, double eps,
                        int64_t minpoints) {
  const AxisBox box = axis_box(ctx, coords, D, n);
  trace_point(ctx.stream(), "nd: bounds");
  for (int a = 0; a < 3; ++a)
    if (!(std::isfinite(box.lo[a]) && std::isfinite(box.hi[a])))
      throw Error(GD_ERR_INVALID, "point coordinates must be finite");
  CellMap m = choose_cells(box, 3, false, eps);
  // The coarse cells' count decides: from their keys alone where fine cells
  // are possible at all and the cells fit one key, else by their sort.
  NdGridDev<D> g;
  uint32_t coarse = use_fine_cells(D, n, 0) ? count_cells(ctx, coords, D, n, m, box) : 0;
  trace_point(ctx.stream(), "nd: coarse cell count");
  if (coarse == 0) {
    g = sort_points<D>(ctx, coords, n, m, box, 1, eps);
    coarse = g.ncells;
  }
  if (use_fine_cells(D, n, coarse, kDeviceFineOccupancy)) {
    g = NdGridDev<D>();
    m = choose_cells(box, 3, true, eps);
    g = sort_points<D>(ctx, coords, n, m, box, 2, eps);
  } else if (g.n == 0) {
    g = sort_points<D>(ctx, coords, n, m, box, 1, eps);
  }
  trace_point(ctx.stream(), "nd: sort points");
  finish_grid<D>(ctx, g, m, box, core_need(minpoints));
  return g;
}

// Rule 1 at minpoints on the grid (count: see core_kernel).
template <int D>
void core_flags(RunContext& ctx, const NdView<D>& v, uint32_t nb, int64_t minpoints,
                uint8_t* core, uint32_t* count) {
  const volatile int* stop = ctx.cancel_flag_device();
  launch_batches(ctx, v.n, nb, [&](Batch b, unsigned blocks) {
    core_kernel<D><<<blocks, kBlock, 0, ctx.stream()>>>(v, minpoints, b, stop, core, count);
    GD_CHECK_LAUNCH("nd core_kernel");
  });
  ctx.wait();
  trace_point(ctx.stream(), "nd: core flags");
}

// 1 for a new core point (core mark 2).
// parent[i] = i for every point that is not core at the previous value
// (new core points, and the points whose entry held their claimer).
__global__ void restart_kernel(const uint8_t* __restrict__ core, uint32_t n, uint32_t* parent) {
  const uint64_t i = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n && core[i] != 1) parent[i] = static_cast<uint32_t>(i);
}

// How clusters_of runs one value.  step: a sweep's later value (core marks
// as core_marks gives them): the union-find starts from the previous
// value's sets, and only pairs with a new core point are tested.  A sweep
// queues its values back to back: not timed (no wait between stages) and
// bfs_scratch (3 n words, lent for every value) so that no value reads the
// crowded cells' count back before its searches.
struct ValueRun {
  bool step = false;
  bool timed = true;
  uint32_t* bfs_scratch = nullptr;
  const uint32_t* pos = nullptr;  // a sweep's sorted positions (ranks.cuh's rank_roots)
};

// Rules 2 to 4 from the core flags: rep (device, n) takes the cluster
// ranks, core_out (device, n, may be null) the core flags in row order.
// parent (device, n) holds the union-find (see ValueRun).
template <int D>
void clusters_of(RunContext& ctx, const NdView<D>& v, uint32_t nb, int64_t minpoints,
                 const uint8_t* core, const ValueRun& run, uint32_t* parent,
                 gd_run_stats& stats, Stopwatch& sw, uint32_t* d_rep, uint8_t* core_out) {
  const bool step = run.step;
  cudaStream_t s = ctx.stream();
  const uint32_t n = v.n;
  const volatile int* stop = ctx.cancel_flag_device();
  if (step) {
    restart_kernel<<<grid_for(n), kBlock, 0, s>>>(core, n, parent);
    GD_CHECK_LAUNCH("restart_kernel");
  } else {
    iota_kernel<<<grid_for(n), kBlock, 0, s>>>(parent, n);
    GD_CHECK_LAUNCH("iota_kernel");
  }
  {
    auto first_core = ctx.alloc<uint32_t>(v.ncells, "first core per cell");
    CUDA_TRY(cudaMemsetAsync(first_core.data(), 0xff, sizeof(uint32_t) * v.ncells, s));
    device_buffer<uint8_t> fresh;
    if (step) {
      fresh = ctx.alloc<uint8_t>(v.ncells, "cells with a new core point");
      CUDA_TRY(cudaMemsetAsync(fresh.data(), 0, v.ncells, s));
    }
    first_cores_kernel<<<grid_for(n), kBlock, 0, s>>>(v.cell_of, core, n, first_core.data(),
                                                      fresh.data());
    GD_CHECK_LAUNCH("nd first_cores_kernel");
    trace_point(s, "nd union: first cores");
    launch_batches(ctx, n, nb, [&](Batch b, unsigned blocks) {
      within_union_kernel<D><<<blocks, kBlock, 0, s>>>(v, core, b, step, stop, parent);
      GD_CHECK_LAUNCH("nd within_union_kernel");
    });
    {
      auto crowded = ctx.alloc<uint32_t>(v.ncells + 1, "crowded cells");
      uint32_t* ncrowded = crowded.data() + v.ncells;
      CUDA_TRY(cudaMemsetAsync(ncrowded, 0, sizeof(uint32_t), s));
      crowded_cells_kernel<<<grid_for(v.ncells), kBlock, 0, s>>>(
          v.start, v.small, first_core.data(), v.ncells, crowded.data(), ncrowded);
      GD_CHECK_LAUNCH("nd crowded_cells_kernel");
      // At most one warp a crowded cell, at most 8192 warps.
      uint64_t any = std::min<uint32_t>(v.ncells, 8192);
      device_buffer<uint32_t> own_scratch;
      uint32_t* scratch = run.bfs_scratch;
      if (scratch == nullptr) {
        uint32_t count = 0;
        CUDA_TRY(cudaMemcpyAsync(&count, ncrowded, sizeof count, cudaMemcpyDeviceToHost, s));
        ctx.wait();
        any = std::min<uint32_t>(count, 8192);
        if (any != 0) {
          own_scratch = ctx.alloc<uint32_t>(3 * static_cast<size_t>(n), "inside-cell searches");
          scratch = own_scratch.data();
        }
      }
      if (any != 0) {
        within_bfs_kernel<D><<<grid_for(any * 32), kBlock, 0, s>>>(
            v, core, crowded.data(), ncrowded, stop, scratch, scratch + n,
            scratch + 2 * static_cast<size_t>(n), parent);
        GD_CHECK_LAUNCH("nd within_bfs_kernel");
      }
    }
    auto one_set = ctx.alloc<uint8_t>(v.ncells, "cells of one set");
    CUDA_TRY(cudaMemsetAsync(one_set.data(), 1, v.ncells, s));
    one_set_kernel<<<grid_for(n), kBlock, 0, s>>>(v.cell_of, v.small, core, first_core.data(), n,
                                                  parent, one_set.data());
    GD_CHECK_LAUNCH("nd one_set_kernel");
    trace_point(s, "nd union: inside cells");
    launch_batches(ctx, n, nb, [&](Batch b, unsigned blocks) {
      union_kernel<D><<<blocks, kBlock, 0, s>>>(v, core, first_core.data(), one_set.data(), b,
                                                step, stop, parent);
      GD_CHECK_LAUNCH("nd union_kernel");
    });
    trace_point(s, "nd union: point walks");
    tiny_union_kernel<D><<<grid_for(v.ncells), kBlock, 0, s>>>(v, core, first_core.data(),
                                                               fresh.data(), stop, parent);
    GD_CHECK_LAUNCH("nd tiny_union_kernel");
    trace_point(s, "nd union: tiny cell pairs");
    if (v.nlarge != 0) {
      cell_union_kernel<D><<<grid_for(static_cast<uint64_t>(v.nlarge) * 32), kBlock, 0, s>>>(
          v, core, first_core.data(), fresh.data(), stop, parent);
      GD_CHECK_LAUNCH("nd cell_union_kernel");
    }
    if (run.timed) ctx.wait();
    trace_point(s, "nd union: large cell pairs");
  }
  if (run.timed) stats.t_union += sw.lap();

  if (minpoints > 1) {
    auto cell_min_core = smallest_cores(ctx, v.cell_of, v.idx, core, n, v.ncells);
    launch_batches(ctx, n, nb, [&](Batch b, unsigned blocks) {
      border_kernel<D><<<blocks, kBlock, 0, s>>>(v, core, cell_min_core.data(), b, stop, parent);
      GD_CHECK_LAUNCH("nd border_kernel");
    });
    trace_point(s, "nd: smallest cores, borders");
  }
  {
    RootsScratch roots(ctx, n);
    final_kernel<D><<<grid_for(n), kBlock, 0, s>>>(v, core, parent, roots.sink(), core_out);
    GD_CHECK_LAUNCH("nd final_kernel");
    trace_point(s, "nd: final roots");
    rank_roots(ctx, n, v.idx, roots, d_rep, run.pos);
  }
  if (!run.timed) return;
  ctx.wait();
  trace_point(s, "nd: ranks");
  stats.t_label += sw.lap();
}

// The grid of n device-resident points and their core flags at minpoints
// (count: see core_kernel), timed into stats.
template <int D>
struct CoreStage {
  NdGridDev<D> g;
  uint32_t nb;  // the neighbour stages' batches
  device_buffer<uint8_t> core;
};

template <int D>
CoreStage<D> grid_and_core(RunContext& ctx, const double* coords, uint32_t n, double eps,
                           int64_t minpoints, const Options& opts, uint32_t* count,
                           gd_run_stats& stats, Stopwatch& sw) {
  CoreStage<D> c;
  c.g = build_grid<D>(ctx, coords, n, eps, minpoints);
  stats.cells = c.g.ncells;
  stats.t_sort += sw.lap();
  c.nb = plan_batches(c.g.work, n, opts);
  stats.batches += c.nb;
  c.core = ctx.alloc<uint8_t>(n, "core flags");
  core_flags<D>(ctx, c.g.view(), c.nb, minpoints, c.core.data(), count);
  stats.t_core += sw.lap();
  return c;
}

// The pipeline on device-resident coordinates (see clusters_of).
template <int D>
void cluster_nd_on_device(RunContext& ctx, const double* coords, uint32_t n,
                          const gd_params& params, const Options& opts, gd_run_stats& stats,
                          Stopwatch& sw, uint32_t* d_rep, uint8_t* core_out) {
  const CoreStage<D> c = grid_and_core<D>(ctx, coords, n, params.eps, params.minpoints, opts,
                                           nullptr, stats, sw);
  auto parent = ctx.alloc<uint32_t>(n, "union-find parents");
  clusters_of<D>(ctx, c.g.view(), c.nb, params.minpoints, c.core.data(), ValueRun(),
                 parent.data(), stats, sw, d_rep, core_out);
}

// A sweep: one grid and one count of neighbours up to the largest value's
// need serve every value (Gowanlock et al.); then each value's clusters,
// largest first, each value's union-find the next one's start (the core
// sets only grow as the value falls, and the relation is symmetric, so
// every pair joined at a value is joined at the next); their ranks copied
// down into out[k] (out null: the sweep's own host buffers) and emitted by
// SweepDownloads (grid.cuh) while the device clusters the next values,
// queued back to back, as the 2D sweep does.
template <int D>
void sweep_nd_on_device(RunContext& ctx, const double* coords, uint32_t n,
                        const gd_params& params, const std::vector<int64_t>& levels,
                        const SweepEmit& emit, uint32_t* const* out, gd_run_stats& stats,
                        Stopwatch& sw) {
  // Estimated at the largest value: a cell dense there is dense at all.
  auto count = ctx.alloc<uint32_t>(n, "neighbour counts");
  CoreStage<D> c = grid_and_core<D>(ctx, coords, n, params.eps, levels.back(), Options(),
                                     count.data(), stats, sw);
  const NdView<D> v = c.g.view();
  const uint32_t nb = c.nb;
  device_buffer<uint8_t>& core = c.core;
  auto parent = ctx.alloc<uint32_t>(n, "union-find parents");
  auto scratch = ctx.alloc<uint32_t>(3 * static_cast<size_t>(n), "inside-cell searches");
  const auto pos = sorted_positions(ctx, n, v.idx);  // each value's ranks read into row order
  const size_t last = levels.size();
  SweepDownloads down(ctx, n, last, transfer_plan(Options(), params), out, emit);
  for (size_t k = last; k-- > 0;) {
    uint32_t* rep = down.buffer(k);
    const bool later = k + 1 < last;
    if (later) core_marks(ctx, count.data(), n, levels[k], levels[k + 1], core.data());
    ValueRun run;
    run.step = later && levels[k] > 1;
    run.timed = false;
    run.bfs_scratch = scratch.data();
    run.pos = pos.data();
    clusters_of<D>(ctx, v, nb, levels[k], core.data(), run, parent.data(), stats, sw, rep,
                   nullptr);
    down.queued(k);
    if (!later) continue;
    down.wait(k + 1);
    down.post(k + 1);
  }
  const double copies = down.finish();
  stats.t_label += sw.lap();
  stats.t_transfer += copies;
}

// The pairs of n device-resident points within eps, not within inner when
// inner >= 0 (d_row_of: each point's row) into out, on the grid of a
// clustering that no cell's size lets skip its search.
template <int D>
void nd_pairs_on_device(RunContext& ctx, const double* coords, uint32_t n, double eps,
                        double inner, const uint32_t* d_row_of, int64_t max_pairs,
                        gd_pair_list* out) {
  NdGridDev<D> g = build_grid<D>(ctx, coords, n, eps, static_cast<int64_t>(n) + 1);
  const NdView<D> v = g.view();
  const uint32_t nb = plan_batches(g.work, n, Options());
  cudaStream_t s = ctx.stream();
  auto row = ctx.alloc<uint32_t>(n, "rows of the sorted points");
  rows_kernel<<<grid_for(n), kBlock, 0, s>>>(d_row_of, v.idx, n, row.data());
  GD_CHECK_LAUNCH("nd rows_kernel");
  const volatile int* stop = ctx.cancel_flag_device();
  collect_pairs_on_device(
      ctx, n, max_pairs, "neighbour pairs",
      [&](uint64_t* count) {
        launch_batches(ctx, n, nb, [&](Batch b, unsigned blocks) {
          pair_count_kernel<D><<<blocks, kBlock, 0, s>>>(v, inner, b, stop, count);
          GD_CHECK_LAUNCH("nd pair_count_kernel");
        });
      },
      [&](uint32_t a, uint32_t b, const PairOffsets& offsets) {
        pair_write_kernel<D><<<grid_for(b - a), kBlock, 0, s>>>(v, inner, row.data(), a, b,
                                                                offsets, stop);
        GD_CHECK_LAUNCH("nd pair_write_kernel");
      },
      out);
}

template <class Fn>
void with_dims(int dims, Fn&& fn) {
  dispatch_dims(dims, [&](auto d) {
    constexpr int D = decltype(d)::value;
    if constexpr (D >= 3) fn(d);
    else throw Error(GD_ERR_INVALID, "the device's n-D path takes 3 to 8 coordinates");
  });
}

// What one run holds at its peak, per point: the coordinates twice, the
// sort's keys (the sorted ones until the cells are found) and orders, the
// cell of each point, core flags, parents and representatives; the cells'
// boxes, windows and the list of large cells at most as many again; the
// dense table of cells (a byte and a word a key); the inside-cell searches'
// three words a point (where a cell is crowded).
size_t nd_bytes_per_point(int dims) {
  return 16u * dims + 56 + 2u * 8 * dims + 204 + 5 * kDenseKeysPerPoint + 12;
}

void start_stats(gd_run_stats& stats, uint32_t n, int device) {
  std::memset(&stats, 0, sizeof stats);
  stats.backend = GD_BACKEND_GPU;
  stats.points = n;
  stats.device = device;
  stats.devices = 1;
}

void check_fits(const RunContext& ctx, uint32_t n, int dims) {
  const size_t need = static_cast<size_t>(n) * nd_bytes_per_point(dims);
  if (need > ctx.budget_limit()) {
    char msg[300];
    std::snprintf(msg, sizeof msg,
                  "%u points of %d dimensions need about %.1f MiB of GPU memory, the budget is "
                  "%.1f MiB (gpu_dbscan.device_memory_budget)",
                  n, dims, need / 1048576.0, ctx.budget_limit() / 1048576.0);
    throw Error(GD_ERR_DEVICE_NOMEM, msg);
  }
}

}  // namespace

void cluster_nd_host(const NdPointsView& pts, const gd_params& params, const CancelToken& cancel,
                     uint32_t* rep, gd_run_stats& stats, const Options& opts, uint8_t* core) {
  Stopwatch total, sw;
  start_stats(stats, pts.n, params.device);
  if (pts.n == 0) return;
  RunContext ctx(params.device, params.device_memory_budget, cancel);
  check_fits(ctx, pts.n, pts.dims);
  cudaStream_t s = ctx.stream();
  const size_t values = static_cast<size_t>(pts.n) * pts.dims;
  auto coords = ctx.alloc<double>(values, "coordinates");
  upload_array(ctx, pts.coords, coords.data(), values * sizeof(double), transfer_plan(opts, params));
  auto d_rep = ctx.alloc<uint32_t>(pts.n, "representatives");
  device_buffer<uint8_t> d_core;
  if (core != nullptr) d_core = ctx.alloc<uint8_t>(pts.n, "core flags out");
  ctx.wait();
  stats.t_transfer += sw.lap();
  with_dims(pts.dims, [&](auto d) {
    cluster_nd_on_device<decltype(d)::value>(ctx, coords.data(), pts.n, params, opts, stats, sw,
                                             d_rep.data(), d_core.data());
  });
  coords.reset();
  sw.lap();
  if (core != nullptr)
    CUDA_TRY(cudaMemcpyAsync(core, d_core.data(), pts.n, cudaMemcpyDeviceToHost, s));
  download_reps(ctx, d_rep.data(), pts.n, rep, transfer_plan(opts, params));
  ctx.wait();
  stats.t_transfer += sw.lap();
  stats.t_total = total.lap();
}

void cluster_nd_device(const double* d_coords, int dims, uint32_t n, const gd_params& params,
                       const CancelToken& cancel, uint32_t* d_rep, gd_run_stats& stats,
                       const Options& opts) {
  Stopwatch total, sw;
  start_stats(stats, n, params.device);
  if (n == 0) return;
  RunContext ctx(params.device, params.device_memory_budget, cancel);
  ctx.keep_pool(opts.keep_device_pool);
  check_fits(ctx, n, dims);
  with_dims(dims, [&](auto d) {
    cluster_nd_on_device<decltype(d)::value>(ctx, d_coords, n, params, opts, stats, sw, d_rep,
                                             nullptr);
  });
  stats.t_total = total.lap();
}

void sweep_nd_host(const NdPointsView& pts, const gd_params& params,
                   const std::vector<int64_t>& levels, const CancelToken& cancel,
                   const SweepEmit& emit, uint32_t* const* out, gd_run_stats& stats) {
  Stopwatch total, sw;
  start_stats(stats, pts.n, params.device);
  RunContext ctx(params.device, params.device_memory_budget, cancel);
  check_fits(ctx, pts.n, pts.dims);
  const size_t values = static_cast<size_t>(pts.n) * pts.dims;
  auto coords = ctx.alloc<double>(values, "coordinates");
  upload_array(ctx, pts.coords, coords.data(), values * sizeof(double),
               transfer_plan(Options(), params));
  ctx.wait();
  stats.t_transfer += sw.lap();
  with_dims(pts.dims, [&](auto d) {
    sweep_nd_on_device<decltype(d)::value>(ctx, coords.data(), pts.n, params, levels, emit, out,
                                           stats, sw);
  });
  stats.t_total = total.lap();
}

void nd_pairs_host(const NdPointsView& pts, const uint32_t* row_of, double eps, double inner,
                   const gd_params& params, const CancelToken& cancel, gd_pair_list* out,
                   int64_t max_pairs) {
  RunContext ctx(params.device, params.device_memory_budget, cancel);
  check_fits(ctx, pts.n, pts.dims);
  cudaStream_t s = ctx.stream();
  const size_t values = static_cast<size_t>(pts.n) * pts.dims;
  auto coords = ctx.alloc<double>(values, "coordinates");
  auto rows = ctx.alloc<uint32_t>(pts.n, "rows of the points");
  upload_array(ctx, pts.coords, coords.data(), values * sizeof(double),
               transfer_plan(Options(), params));
  CUDA_TRY(cudaMemcpyAsync(rows.data(), row_of, sizeof(uint32_t) * pts.n, cudaMemcpyHostToDevice,
                           s));
  with_dims(pts.dims, [&](auto d) {
    nd_pairs_on_device<decltype(d)::value>(ctx, coords.data(), pts.n, eps, inner, rows.data(),
                                           max_pairs, out);
  });
}

DeviceNdPoints::DeviceNdPoints(const double* coords, int dims, uint32_t n, int device)
    : n_(n), device_(device) {
  CUDA_TRY(cudaSetDevice(device));
  const size_t values = static_cast<size_t>(n) * dims;
  try {
    CUDA_TRY(cudaMalloc(&coords_, sizeof(double) * std::max<size_t>(values, 1)));
    CUDA_TRY(cudaMalloc(&rep_, sizeof(uint32_t) * std::max<size_t>(n, 1)));
    CUDA_TRY(cudaMemcpy(coords_, coords, sizeof(double) * values, cudaMemcpyHostToDevice));
  } catch (...) {
    this->~DeviceNdPoints();
    throw;
  }
}

DeviceNdPoints::~DeviceNdPoints() {
  (void)cudaSetDevice(device_);
  if (coords_ != nullptr) (void)cudaFree(coords_);
  if (rep_ != nullptr) (void)cudaFree(rep_);
  coords_ = nullptr;
  rep_ = nullptr;
}

void DeviceNdPoints::copy_reps_to_host(uint32_t* rep) const {
  CUDA_TRY(cudaSetDevice(device_));
  CUDA_TRY(cudaMemcpy(rep, rep_, sizeof(uint32_t) * n_, cudaMemcpyDeviceToHost));
}

}  // namespace cuda

void gpu_nd_sweep(const NdPointsView& pts, const gd_params& params,
                  const std::vector<int64_t>& levels, const CancelToken& cancel,
                  const SweepEmit& emit, uint32_t* const* out, gd_run_stats& stats) {
  try {
    cuda::sweep_nd_host(pts, params, levels, cancel, emit, out, stats);
  } catch (const Error& e) {
    cuda::reset_after(e);
    throw;
  }
}

void gpu_nd_pairs(const NdPointsView& pts, const uint32_t* row_of, double eps,
                  const gd_params& params, const CancelToken& cancel, gd_pair_list* out,
                  int64_t max_pairs, double inner) {
  try {
    cuda::nd_pairs_host(pts, row_of, eps, inner, params, cancel, out, max_pairs);
  } catch (const Error& e) {
    cuda::reset_after(e);
    throw;
  }
}

void gpu_nd_cluster(const NdPointsView& pts, const gd_params& params, const CancelToken& cancel,
                    uint32_t* rep, gd_run_stats& stats, uint8_t* core) {
  try {
    cuda::cluster_nd_host(pts, params, cancel, rep, stats, cuda::Options(), core);
  } catch (const Error& e) {
    cuda::reset_after(e);
    throw;
  }
}

}  // namespace gd
