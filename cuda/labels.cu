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
// final_labels: each point's rank (ranks.cuh), or for the strips, whose
// merge numbers the clusters itself, its set's root's original index.
#include <algorithm>
#include <cub/device/device_scan.cuh>

#include "claimers.cuh"
#include "grid.cuh"
#include "ranks.cuh"
#include "trace.cuh"
#include "union_find.cuh"

namespace gd {
namespace cuda {

namespace cub = CUB_NS_QUALIFIER;

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

// rep (the strips): rep[original index] = the original index of its set's
// root; otherwise each point's root into the sink.
__global__ void final_kernel(GridView g, const uint8_t* __restrict__ core,
                             const uint32_t* __restrict__ parent, uint32_t* __restrict__ rep,
                             RootsSink sink) {
  const uint64_t i = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const bool in = i < g.n;  // whole warps reach the sink
  const uint32_t r = in ? final_root(core, parent, static_cast<uint32_t>(i)) : kNoise;
  if (rep != nullptr) {
    if (in) rep[g.idx[i]] = r == kNoise ? kNoise : g.idx[r];
    return;
  }
  sink.put(in, static_cast<uint32_t>(i), r, in ? g.idx[i] : 0);
}

// flag[first[r]] = 1 for each root r.
__global__ void flag_firsts_kernel(const uint32_t* __restrict__ root,
                                   const uint32_t* __restrict__ first, uint32_t n,
                                   uint32_t* __restrict__ flag) {
  const uint64_t i = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n && root[i] == i) flag[first[i]] = 1;
}

// Sorted order: root[i] becomes sorted point i's rank (or kNoise).
__global__ void rank_sorted_kernel(uint32_t* __restrict__ root, const uint32_t* __restrict__ first,
                                   const uint32_t* __restrict__ rank, uint32_t n) {
  const uint64_t i = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const uint32_t r = root[i];
  if (r != kNoise) root[i] = rank[first[r]];
}

__global__ void gather_kernel(const uint32_t* __restrict__ by_sorted,
                              const uint32_t* __restrict__ pos, uint32_t n,
                              uint32_t* __restrict__ out) {
  const uint64_t p = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (p < n) out[p] = by_sorted[pos[p]];
}

__global__ void positions_kernel(const uint32_t* __restrict__ idx, uint32_t n,
                                 uint32_t* __restrict__ pos) {
  const uint64_t i = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) pos[idx[i]] = static_cast<uint32_t>(i);
}

__global__ void rank_out_kernel(const uint32_t* __restrict__ root,
                                const uint32_t* __restrict__ first,
                                const uint32_t* __restrict__ rank,
                                const uint32_t* __restrict__ idx, uint32_t n,
                                uint32_t* __restrict__ out) {
  const uint64_t i = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const uint32_t r = root[i];
  out[idx[i]] = r == kNoise ? kNoise : rank[first[r]];
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

void final_labels(RunContext& ctx, const GridView& g, const uint8_t* core, const uint32_t* parent,
                  uint32_t* out, bool reps_only, const uint32_t* pos) {
  if (reps_only) {
    final_kernel<<<grid_for(g.n), kBlock, 0, ctx.stream()>>>(g, core, parent, out, RootsSink{});
    GD_CHECK_LAUNCH("final_kernel");
    trace_point(ctx.stream(), "final reps");
    return;
  }
  RootsScratch roots(ctx, g.n);
  final_kernel<<<grid_for(g.n), kBlock, 0, ctx.stream()>>>(g, core, parent, nullptr,
                                                           roots.sink());
  GD_CHECK_LAUNCH("final_kernel");
  trace_point(ctx.stream(), "final roots");
  rank_roots(ctx, g.n, g.idx, roots, out, pos);
}

RootsScratch::RootsScratch(RunContext& ctx, uint32_t n)
    : root_(ctx.alloc<uint32_t>(n, "each point's root")),
      first_(ctx.alloc<uint32_t>(n, "first point of each root")) {
  CUDA_TRY(cudaMemsetAsync(first_.data(), 0xff, sizeof(uint32_t) * n, ctx.stream()));
}

namespace {

// The flags, scanned in place into ranks.
size_t rank_scan_bytes(uint32_t n) {
  size_t bytes = 0;
  CUDA_TRY(cub::DeviceScan::ExclusiveSum(nullptr, bytes, static_cast<uint32_t*>(nullptr),
                                         static_cast<uint32_t*>(nullptr), n));
  return std::max<size_t>(bytes, 1);
}

}  // namespace

void rank_roots(RunContext& ctx, uint32_t n, const uint32_t* idx, RootsScratch& roots,
                uint32_t* out, const uint32_t* pos) {
  cudaStream_t s = ctx.stream();
  auto rank = ctx.alloc<uint32_t>(n, "cluster ranks");
  CUDA_TRY(cudaMemsetAsync(rank.data(), 0, sizeof(uint32_t) * n, s));
  flag_firsts_kernel<<<grid_for(n), kBlock, 0, s>>>(roots.root(), roots.first(), n, rank.data());
  GD_CHECK_LAUNCH("flag_firsts_kernel");
  {
    size_t bytes = rank_scan_bytes(n);
    auto temp = ctx.alloc<uint8_t>(bytes, "cluster rank scan");
    CUDA_TRY(cub::DeviceScan::ExclusiveSum(temp.data(), bytes, rank.data(), rank.data(), n, s));
  }
  trace_point(s, "rank: first points, scan");
  if (pos != nullptr) {
    rank_sorted_kernel<<<grid_for(n), kBlock, 0, s>>>(roots.root(), roots.first(), rank.data(), n);
    GD_CHECK_LAUNCH("rank_sorted_kernel");
    gather_kernel<<<grid_for(n), kBlock, 0, s>>>(roots.root(), pos, n, out);
    GD_CHECK_LAUNCH("gather_kernel");
  } else {
    rank_out_kernel<<<grid_for(n), kBlock, 0, s>>>(roots.root(), roots.first(), rank.data(), idx,
                                                   n, out);
    GD_CHECK_LAUNCH("rank_out_kernel");
  }
  trace_point(s, "rank: out");
}

device_buffer<uint32_t> sorted_positions(RunContext& ctx, uint32_t n, const uint32_t* idx) {
  auto pos = ctx.alloc<uint32_t>(n, "sorted position of each row");
  positions_kernel<<<grid_for(n), kBlock, 0, ctx.stream()>>>(idx, n, pos.data());
  GD_CHECK_LAUNCH("positions_kernel");
  return pos;
}

}  // namespace cuda
}  // namespace gd
