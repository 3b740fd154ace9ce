// grid.cu — the uniform grid: cell keys, radix sort of (key, point), cell
// ranges, cell bounding boxes, dense flags, each cell's five neighbour rows,
// and the work estimate that sizes the batches.
//
// Cell arithmetic is done in half units (x/2 - xmin/2), so that no difference
// of two finite coordinates overflows.  The cell side is
//     s = (r/sqrt(2)) * (1 + 1e-9) + 8e-16 * R      (halved: sh = s/2)
// with R the largest |coordinate - min| and r = max(eps, 2^-500): the
// predicate's search box keeps neighbours within eps (and a rounding of the
// bound) on each axis; the floor
// only keeps the side away from zero.  Rounding of (x/2 - xmin/2) and of
// the division by sh moves a point's cell coordinate by at most
// 4 * 2^-53 * R/sh < 0.56 cells, and two points within eps are at most
// sqrt(2) cells apart before rounding, so they are at most 2 cells apart
// after it: the +-2 search is complete.  (ArborX's paper warns about exactly
// this loss of precision in cell arithmetic; the margin is the guard.)
// The side is enlarged when the grid would exceed 2^30 cells on an axis
// (tiny eps on a wide extent): a larger side keeps the search complete and
// the key within 62 bits.  eps = +Infinity puts every point in one cell.
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <algorithm>
#include <cmath>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>

#include "grid.cuh"
#include "reduce_by_cell.cuh"
#include "trace.cuh"

namespace gd {
namespace cuda {

namespace cub = CUB_NS_QUALIFIER;
namespace thrust = THRUST_NS_QUALIFIER;

namespace {

struct GridGeometry {
  double hxmin, hymin;  // half of the minimum coordinates
  double sh;            // half of the cell side
  uint64_t maxix, maxiy;
  int bits_y;
  int end_bit;
};

int bit_width(uint64_t v) {
  int b = 0;
  while (v != 0) {
    ++b;
    v >>= 1;
  }
  return b;
}

GridGeometry plan_geometry(const Bounds& b, double eps) {
  GridGeometry g;
  g.hxmin = 0.5 * b.xmin;
  g.hymin = 0.5 * b.ymin;
  double rhx = 0.5 * b.xmax - g.hxmin;
  double rhy = 0.5 * b.ymax - g.hymin;
  double rh = std::max(rhx, rhy);
  double reach = std::max(eps, std::ldexp(1.0, -500));
  double sh = (0.5 * reach / std::sqrt(2.0)) * (1.0 + 1e-9) + 8e-16 * rh;
  double cap = std::ldexp(rh, -30);
  if (sh < cap) sh = cap;
  if (!(sh > 0)) sh = 1.0;  // all points identical (and eps = 0): one cell
  g.sh = sh;
  if (std::isinf(sh)) {
    g.maxix = g.maxiy = 0;
  } else {
    g.maxix = static_cast<uint64_t>(rhx / sh) + 2;
    g.maxiy = static_cast<uint64_t>(rhy / sh) + 2;
  }
  g.bits_y = std::max(bit_width(g.maxiy), 1);
  g.end_bit = g.bits_y + std::max(bit_width(g.maxix), 1);
  return g;
}

}  // namespace

namespace {

__device__ __forceinline__ uint64_t cell_coord(double h, double hmin, double sh, uint64_t maxi) {
  double u = (h - hmin) / sh;  // >= 0: h >= hmin by construction
  if (!(u > 0)) return 0;      // also u = NaN cannot happen; 0/inf = 0
  double f = floor(u);
  return f >= static_cast<double>(maxi) ? maxi : static_cast<uint64_t>(f);
}

__global__ void cell_keys_kernel(const double* __restrict__ x, const double* __restrict__ y,
                                 uint32_t n, GridGeometry g, uint64_t* __restrict__ key,
                                 uint32_t* __restrict__ val) {
  uint64_t i = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  uint64_t ix = cell_coord(0.5 * x[i], g.hxmin, g.sh, g.maxix);
  uint64_t iy = cell_coord(0.5 * y[i], g.hymin, g.sh, g.maxiy);
  key[i] = (ix << g.bits_y) | iy;
  val[i] = static_cast<uint32_t>(i);
}

// Sorted coordinates (coalesced reads for every later stage) and the cell
// head flags that the scan turns into cell numbers.
__global__ void gather_kernel(const double* __restrict__ x, const double* __restrict__ y,
                              const uint64_t* __restrict__ key, const uint32_t* __restrict__ idx,
                              uint32_t n, double2* __restrict__ sp, uint32_t* __restrict__ head) {
  uint64_t i = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  uint32_t j = idx[i];
  sp[i] = make_double2(x[j], y[j]);
  head[i] = (i == 0 || key[i] != key[i - 1]) ? 1u : 0u;
}

__global__ void cells_kernel(const uint64_t* __restrict__ key, uint32_t n, uint32_t ncells,
                             uint32_t* __restrict__ cell_of, uint64_t* __restrict__ cell_key,
                             uint32_t* __restrict__ start) {
  uint64_t i = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  uint32_t c = cell_of[i] - 1;
  cell_of[i] = c;
  if (i == 0 || key[i] != key[i - 1]) {
    cell_key[c] = key[i];
    start[c] = static_cast<uint32_t>(i);
  }
  if (i == 0) start[ncells] = n;
}

struct PointBox {
  const double2* p;
  __host__ __device__ Box operator()(uint64_t i) const {
    double2 q = p[i];
    return Box{q.x, q.y, q.x, q.y};
  }
};

struct MergeBox {
  __host__ __device__ Box operator()(const Box& a, const Box& b) const {
    return Box{fmin(a.x0, b.x0), fmin(a.y0, b.y0), fmax(a.x1, b.x1), fmax(a.y1, b.y1)};
  }
};

__device__ __forceinline__ uint32_t lower_bound(const uint64_t* a, uint32_t n, uint64_t v) {
  uint32_t lo = 0, hi = n;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (a[mid] < v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

__device__ __forceinline__ uint32_t upper_bound(const uint64_t* a, uint32_t n, uint64_t v) {
  uint32_t lo = 0, hi = n;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (a[mid] <= v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

// Dense flags (every point of the cell sees every other: the corners
// (x0, y0) and (x1, y1) of its box see each other, exact by monotonicity:
// fl(px - eps) <= qx is hardest for px = x1, qx = x0, which is what
// (x1, y1) seeing (x0, y0) tests, and so on) and the five neighbour rows,
// found by binary search over the sorted unique cell keys.
__global__ void cell_info_kernel(const uint64_t* __restrict__ cell_key,
                                 const uint32_t* __restrict__ start, const Box* __restrict__ box,
                                 uint32_t ncells, GridGeometry g, double eps, double t,
                                 int64_t minpoints,
                                 uint8_t* __restrict__ dense, CellRange* __restrict__ rows) {
  uint64_t c = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (c >= ncells) return;
  int64_t cnt = static_cast<int64_t>(start[c + 1]) - start[c];
  Box b = box[c];
  dense[c] = cnt >= minpoints && pairwise_neighbours(b, eps, t) ? 1 : 0;
  uint64_t key = cell_key[c];
  int64_t ix = static_cast<int64_t>(key >> g.bits_y);
  uint64_t iy = key & ((uint64_t{1} << g.bits_y) - 1);
  uint64_t ylo = iy >= 2 ? iy - 2 : 0;
  uint64_t yhi = iy + 2 <= g.maxiy ? iy + 2 : g.maxiy;
  for (int a = -2; a <= 2; ++a) {
    int64_t row = ix + a;
    CellRange r{0, 0};
    if (row >= 0 && static_cast<uint64_t>(row) <= g.maxix) {
      uint64_t base = static_cast<uint64_t>(row) << g.bits_y;
      r.lo = lower_bound(cell_key, ncells, base | ylo);
      r.hi = upper_bound(cell_key, ncells, base | yhi);
      if (r.hi < r.lo) r.hi = r.lo;
    }
    rows[c * 5 + (a + 2)] = r;
  }
}

// Candidate tests a cell's points may make: a dense neighbour cell costs about
// one test (it is taken or skipped whole, or left at its first hit), any
// other cell one per point.
__global__ void work_kernel(const uint32_t* __restrict__ start, const uint8_t* __restrict__ dense,
                            const CellRange* __restrict__ rows, uint32_t ncells,
                            uint64_t* __restrict__ work) {
  uint64_t c = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (c >= ncells) return;
  uint64_t per_point = 0;
  for (int a = 0; a < 5; ++a) {
    CellRange r = rows[c * 5 + a];
    for (uint32_t d = r.lo; d < r.hi; ++d)
      per_point += dense[d] ? 1 : (start[d + 1] - start[d]);
  }
  work[c] = per_point * (start[c + 1] - start[c]);
}

}  // namespace

Grid build_grid(RunContext& ctx, const double* dx, const double* dy, uint32_t n,
                const Bounds& bounds, double eps, int64_t minpoints, gd_run_stats& stats,
                device_buffer<double>* release_x, device_buffer<double>* release_y) {
  cudaStream_t s = ctx.stream();
  GridGeometry geo = plan_geometry(bounds, eps);
  Grid grid;
  grid.n = n;
  grid.eps = eps;
  grid.t = eps_threshold(eps);

  // Keys and the sort: (cell key, point index) pairs, only the key bits used.
  auto key = ctx.alloc<uint64_t>(n, "cell keys");
  auto key_alt = ctx.alloc<uint64_t>(n, "cell keys (sort buffer)");
  auto idx = ctx.alloc<uint32_t>(n, "point order");
  auto idx_alt = ctx.alloc<uint32_t>(n, "point order (sort buffer)");
  cell_keys_kernel<<<grid_for(n), kBlock, 0, s>>>(dx, dy, n, geo, key.data(), idx.data());
  GD_CHECK_LAUNCH("cell_keys_kernel");
  trace_point(s, "grid: alloc 4, cell keys");
  {
    cub::DoubleBuffer<uint64_t> kb(key.data(), key_alt.data());
    cub::DoubleBuffer<uint32_t> vb(idx.data(), idx_alt.data());
    size_t bytes = 0;
    CUDA_TRY(cub::DeviceRadixSort::SortPairs(nullptr, bytes, kb, vb, n, 0, geo.end_bit, s));
    auto temp = ctx.alloc<uint8_t>(std::max<size_t>(bytes, 1), "radix sort");
    CUDA_TRY(cub::DeviceRadixSort::SortPairs(temp.data(), bytes, kb, vb, n, 0, geo.end_bit, s));
    if (kb.Current() != key.data()) std::swap(key, key_alt);
    if (vb.Current() != idx.data()) std::swap(idx, idx_alt);
  }
  key_alt.reset();
  idx_alt.reset();
  trace_point(s, "grid: radix sort");

  grid.p = ctx.alloc<double2>(n, "sorted coordinates");
  grid.cell_of = ctx.alloc<uint32_t>(n, "cell of point");
  gather_kernel<<<grid_for(n), kBlock, 0, s>>>(dx, dy, key.data(), idx.data(), n, grid.p.data(),
                                               grid.cell_of.data());
  GD_CHECK_LAUNCH("gather_kernel");
  if (release_x != nullptr) release_x->reset();
  if (release_y != nullptr) release_y->reset();
  grid.idx = std::move(idx);
  trace_point(s, "grid: gather");
  {
    size_t bytes = 0;
    CUDA_TRY(cub::DeviceScan::InclusiveSum(nullptr, bytes, grid.cell_of.data(), n, s));
    auto temp = ctx.alloc<uint8_t>(std::max<size_t>(bytes, 1), "cell numbering scan");
    CUDA_TRY(cub::DeviceScan::InclusiveSum(temp.data(), bytes, grid.cell_of.data(), n, s));
  }
  uint32_t ncells = 0;
  CUDA_TRY(cudaMemcpyAsync(&ncells, grid.cell_of.data() + (n - 1), sizeof ncells,
                           cudaMemcpyDeviceToHost, s));
  ctx.wait();
  trace_point(s, "grid: scan, read ncells");
  grid.ncells = ncells;
  stats.cells = ncells;

  auto cell_key = ctx.alloc<uint64_t>(ncells, "cell keys (unique)");
  grid.start = ctx.alloc<uint32_t>(static_cast<size_t>(ncells) + 1, "cell offsets");
  cells_kernel<<<grid_for(n), kBlock, 0, s>>>(key.data(), n, ncells, grid.cell_of.data(),
                                              cell_key.data(), grid.start.data());
  GD_CHECK_LAUNCH("cells_kernel");
  key.reset();
  trace_point(s, "grid: cells");

  // Actual bounding box of each cell's points.
  grid.box = ctx.alloc<Box>(ncells, "cell boxes");
  {
    using It = thrust::transform_iterator<PointBox, thrust::counting_iterator<uint64_t>>;
    It in(thrust::counting_iterator<uint64_t>(0), PointBox{grid.p.data()});
    reduce_by_cell(ctx, grid.cell_of.data(), in, grid.box.data(), MergeBox{}, n, "cell box reduction");
  }

  trace_point(s, "grid: boxes");
  grid.dense = ctx.alloc<uint8_t>(ncells, "dense flags");
  grid.rows = ctx.alloc<CellRange>(static_cast<size_t>(ncells) * 5, "neighbour rows");
  cell_info_kernel<<<grid_for(ncells), kBlock, 0, s>>>(cell_key.data(), grid.start.data(),
                                                       grid.box.data(), ncells, geo, eps, grid.t, minpoints,
                                                       grid.dense.data(), grid.rows.data());
  GD_CHECK_LAUNCH("cell_info_kernel");
  cell_key.reset();
  trace_point(s, "grid: cell info");

  {
    auto work = ctx.alloc<uint64_t>(ncells, "work estimate");
    work_kernel<<<grid_for(ncells), kBlock, 0, s>>>(grid.start.data(), grid.dense.data(),
                                                    grid.rows.data(), ncells, work.data());
    GD_CHECK_LAUNCH("work_kernel");
    auto total = ctx.alloc<uint64_t>(1, "work total");
    size_t bytes = 0;
    CUDA_TRY(cub::DeviceReduce::Sum(nullptr, bytes, work.data(), total.data(), ncells, s));
    auto temp = ctx.alloc<uint8_t>(std::max<size_t>(bytes, 1), "work reduction");
    CUDA_TRY(cub::DeviceReduce::Sum(temp.data(), bytes, work.data(), total.data(), ncells, s));
    CUDA_TRY(cudaMemcpyAsync(&grid.work, total.data(), sizeof grid.work, cudaMemcpyDeviceToHost, s));
    ctx.wait();
    trace_point(s, "grid: work, read total");
  }
  return grid;
}

}  // namespace cuda
}  // namespace gd
