// labels.cu — border points and the final representatives.
//
// A border point (not core, seen by some core point) joins the cluster of its
// first claimer: the core point with the smallest ORIGINAL index that sees it
// (the core's side of the one-sided relation; PostGIS's first core to find it
// claims it).  The claimer's sorted index is kept in parent[] of the border
// point (a non-core point is never part of any union-find path).  Then every
// point's representative is the original index of its set's root.
//
// smallest_cores: each cell's core with the smallest original index, the
// per-cell offer that lets the claimer scan skip or take cells whole
// (claimers.cuh); the union stage uses it too.
//
// rank_reps: the representatives renumbered on the device as ranks, cluster
// k (0-based, in the order of each cluster's first point) holding the value
// k, so that labels.cpp's assign_ids maps them to ids in one sequential pass
// instead of a table lookup per row: each cluster's first point is found by
// an atomicMin over its points' original indexes, the first points are
// counted by a scan, and every point takes its first point's count.
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <algorithm>
#include <cub/device/device_scan.cuh>

#include "claimers.cuh"
#include "grid.cuh"
#include "trace.cuh"
#include "union_find.cuh"

namespace gd {
namespace cuda {

namespace cub = CUB_NS_QUALIFIER;
namespace thrust = THRUST_NS_QUALIFIER;

namespace {

// cell_min[cell of j] lowered to core point j's (original index, sorted
// index).  A warp whose 32 points lie in one cell (cell_of does not decrease)
// lowers it once, by its smallest key; reading before the atomic skips it
// for most other points (threads run roughly in sorted order, and the first
// core a thread sees is usually the cell's smallest).  One launch and no
// temporary storage where CUB's reduce-by-key took several (each value of a
// sweep pays it: 40-60 us at 1M points, 140-160 at 10M, on an H200; blobs'
// crowded cells queued their atomics on one address: 180 us at 10M).
__global__ void smallest_core_kernel(const uint32_t* __restrict__ cell_of,
                                     const uint32_t* __restrict__ idx,
                                     const uint8_t* __restrict__ core, uint32_t n, uint8_t only,
                                     unsigned long long* cell_min) {
  constexpr unsigned kAll = 0xffffffffu;
  const uint64_t j = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (n == 0) return;
  const bool in = j < n;
  const uint32_t cell = cell_of[in ? j : n - 1];  // past the end: the last cell, no key
  unsigned long long key = in && core_counts_as(core[j], only)
                               ? (static_cast<unsigned long long>(idx[j]) << 32) | j
                               : ~0ull;
  const bool one_cell = __shfl_sync(kAll, cell, 0) == __shfl_sync(kAll, cell, 31);
  if (one_cell) {
    for (int d = 16; d > 0; d >>= 1) {
      const unsigned long long o = __shfl_xor_sync(kAll, key, d);
      key = o < key ? o : key;
    }
    if ((threadIdx.x & 31) != 0) return;
  }
  if (key == ~0ull) return;
  unsigned long long* at = cell_min + cell;
  if (key < *static_cast<volatile unsigned long long*>(at)) atomicMin(at, key);
}

__global__ void lower_kernel(uint64_t* __restrict__ cell_min, const uint64_t* __restrict__ by,
                             uint32_t ncells) {
  const uint64_t c = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (c < ncells && by[c] < cell_min[c]) cell_min[c] = by[c];
}

// step (a sweep step, cell_min_core: the cells' smallest new cores):
// parent[i] holds i's claimer at the previous value, which only a new core
// can better.
__global__ void border_kernel(GridView g, const uint8_t* __restrict__ core,
                              const uint64_t* __restrict__ cell_min_core, bool step, Batch batch,
                              const volatile int* stop, uint32_t* __restrict__ parent) {
  if (cancelled(stop)) return;
  uint32_t i;
  if (!batch_point(batch, g.n, &i)) return;
  if (core[i]) return;
  const uint32_t before = step ? parent[i] : kNone;
  const uint64_t best = first_claimer(g, core, cell_min_core, i, step ? 2 : 0,
                                      before == kNone ? kNoCore : core_key(g, before));
  parent[i] = best == kNoCore ? kNone : static_cast<uint32_t>(best & 0xffffffffu);
}

__global__ void final_kernel(GridView g, const uint8_t* __restrict__ core,
                             const uint32_t* __restrict__ parent, uint32_t* __restrict__ rep) {
  uint64_t i = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= g.n) return;
  auto find = [parent](uint32_t x) { return uf_root(parent, x); };
  // A border point's parent[] holds its claimer (kNone == kNoise: none).
  const bool is_core = core[i] != 0;
  uint32_t r = representative(is_core, static_cast<uint32_t>(i), is_core ? kNoise : parent[i], find);
  rep[g.idx[i]] = r == kNoise ? kNoise : g.idx[r];
}

// first[r]: the smallest original index of the points whose representative
// is r.  Of a warp's points with one representative only the first can be
// first, and a point whose predecessor has the same representative is not
// (without this a large cluster's atomics on one address queued up: ~0.1
// ms at 1M points on an H200, ~0.2 ms of a 10M sweep value on blobs, whose
// few clusters fill each warp); reading before the atomic skips most of the
// others (threads run roughly in index order).
__global__ void first_point_kernel(const uint32_t* __restrict__ rep, uint32_t n,
                                   uint32_t* first) {
  const uint64_t p = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (n == 0) return;
  const bool in = p < n;  // whole warps reach __match_any_sync
  const uint32_t r = in ? rep[p] : kNoise;
  const unsigned peers = __match_any_sync(0xffffffffu, r);
  if (!in || r == kNoise || (threadIdx.x & 31) != static_cast<unsigned>(__ffs(peers) - 1)) return;
  if (p > 0 && rep[p - 1] == r) return;
  const uint32_t i = static_cast<uint32_t>(p);
  if (i < static_cast<const volatile uint32_t*>(first)[r]) atomicMin(first + r, i);
}

// 1 for the first point of its cluster.
struct IsFirst {
  const uint32_t* rep;
  const uint32_t* first;
  __host__ __device__ uint32_t operator()(uint64_t p) const {
    uint32_t r = rep[p];
    return r != kNoise && first[r] == p ? 1u : 0u;
  }
};

__global__ void rank_kernel(uint32_t* __restrict__ rep, uint32_t n,
                            const uint32_t* __restrict__ first, const uint32_t* __restrict__ rank) {
  uint64_t p = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (p >= n) return;
  uint32_t r = rep[p];
  if (r != kNoise) rep[p] = rank[first[r]];
}

}  // namespace

device_buffer<uint64_t> smallest_cores(RunContext& ctx, const uint32_t* cell_of, const uint32_t* idx,
                                       const uint8_t* core, uint32_t n, uint32_t ncells,
                                       uint8_t only) {
  static_assert(kNoCore == ~0ull, "cells without a core are all ones");
  auto cell_min_core = ctx.alloc<uint64_t>(ncells, "smallest core per cell");
  CUDA_TRY(cudaMemsetAsync(cell_min_core.data(), 0xff, sizeof(uint64_t) * ncells, ctx.stream()));
  smallest_core_kernel<<<grid_for(n), kBlock, 0, ctx.stream()>>>(
      cell_of, idx, core, n, only, reinterpret_cast<unsigned long long*>(cell_min_core.data()));
  GD_CHECK_LAUNCH("smallest_core_kernel");
  return cell_min_core;
}

device_buffer<uint64_t> smallest_cores(RunContext& ctx, const GridView& g, const uint8_t* core,
                                       uint8_t only) {
  return smallest_cores(ctx, g.cell_of, g.idx, core, g.n, g.ncells, only);
}

void lower_smallest_cores(RunContext& ctx, uint64_t* cell_min, const uint64_t* by,
                          uint32_t ncells) {
  lower_kernel<<<grid_for(ncells), kBlock, 0, ctx.stream()>>>(cell_min, by, ncells);
  GD_CHECK_LAUNCH("lower_kernel");
}

void assign_borders(RunContext& ctx, const GridView& g, const uint8_t* core,
                    const uint64_t* cell_min_core, bool step, uint32_t nbatches,
                    uint32_t* parent) {
  cudaStream_t s = ctx.stream();
  for (uint32_t b = 0; b < nbatches; ++b) {
    Batch batch{b, nbatches};
    uint64_t threads = batch_threads(batch, g.n);
    if (threads == 0) continue;
    border_kernel<<<grid_for(threads), kBlock, 0, s>>>(g, core, cell_min_core, step, batch,
                                                       ctx.cancel_flag_device(), parent);
    GD_CHECK_LAUNCH("border_kernel");
  }
}

void final_reps(RunContext& ctx, const GridView& g, const uint8_t* core, const uint32_t* parent,
                uint32_t* rep_out) {
  final_kernel<<<grid_for(g.n), kBlock, 0, ctx.stream()>>>(g, core, parent, rep_out);
  GD_CHECK_LAUNCH("final_kernel");
}

void rank_reps(RunContext& ctx, uint32_t n, uint32_t* rep) {
  cudaStream_t s = ctx.stream();
  auto first = ctx.alloc<uint32_t>(n, "first point of each cluster");
  CUDA_TRY(cudaMemsetAsync(first.data(), 0xff, sizeof(uint32_t) * n, s));
  first_point_kernel<<<grid_for(n), kBlock, 0, s>>>(rep, n, first.data());
  GD_CHECK_LAUNCH("first_point_kernel");
  trace_point(s, "rank: first points");
  auto rank = ctx.alloc<uint32_t>(n, "cluster ranks");
  {
    using It = thrust::transform_iterator<IsFirst, thrust::counting_iterator<uint64_t>>;
    It in(thrust::counting_iterator<uint64_t>(0), IsFirst{rep, first.data()});
    size_t bytes = 0;
    CUDA_TRY(cub::DeviceScan::ExclusiveSum(nullptr, bytes, in, rank.data(), n, s));
    auto temp = ctx.alloc<uint8_t>(std::max<size_t>(bytes, 1), "cluster rank scan");
    CUDA_TRY(cub::DeviceScan::ExclusiveSum(temp.data(), bytes, in, rank.data(), n, s));
  }
  trace_point(s, "rank: scan");
  rank_kernel<<<grid_for(n), kBlock, 0, s>>>(rep, n, first.data(), rank.data());
  GD_CHECK_LAUNCH("rank_kernel");
}

}  // namespace cuda
}  // namespace gd
