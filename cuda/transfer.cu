// transfer.cu — host <-> device copies.
//
// Two ways (gd::cuda::Options::transfer_mode).  Staged: the points go up in
// chunks through two pinned staging buffers on two streams; while chunk k+1
// is copied into its staging buffer (host threads) and across the bus, the
// bounds of chunk k are reduced on the device (the bounds fix the grid
// origin, so the cell keys can only be computed once every chunk has arrived,
// grid.cu), and the results come back the same way.  Direct: plain
// cudaMemcpyAsync from and to the caller's pageable memory, which the driver
// stages itself.  Direct is the default because it measured faster on an
// H200 (test/gpu/transfer_bench.cpp, 2026-11-21): 1.5 vs 5.5 ms for 1M
// points and 19 vs 32 ms for 10M, the staged path paying for pinning its
// buffers on every call (nothing is kept between calls: a pinned buffer kept
// in a PostgreSQL backend would outlive the query and break after a fork).
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <algorithm>
#include <cstring>
#include <thread>
#include <vector>
#include <cub/device/device_reduce.cuh>

#include "grid.cuh"

namespace gd {
namespace cuda {

namespace cub = CUB_NS_QUALIFIER;
namespace thrust = THRUST_NS_QUALIFIER;

namespace {

struct PointBounds {
  const double* x;
  const double* y;
  __host__ __device__ Bounds operator()(uint64_t i) const { return Bounds{x[i], x[i], y[i], y[i]}; }
};

struct MergeBounds {
  __host__ __device__ Bounds operator()(const Bounds& a, const Bounds& b) const {
    return Bounds{fmin(a.xmin, b.xmin), fmax(a.xmax, b.xmax), fmin(a.ymin, b.ymin),
                  fmax(a.ymax, b.ymax)};
  }
};

constexpr double kInf = __builtin_huge_val();
const Bounds kEmptyBounds{kInf, -kInf, kInf, -kInf};

using BoundsIter = thrust::transform_iterator<PointBounds, thrust::counting_iterator<uint64_t>>;

BoundsIter bounds_iter(const double* x, const double* y, uint64_t first) {
  return BoundsIter(thrust::counting_iterator<uint64_t>(first), PointBounds{x, y});
}

size_t reduce_temp_bytes(uint32_t items) {
  size_t bytes = 0;
  CUDA_TRY(cub::DeviceReduce::Reduce(nullptr, bytes, bounds_iter(nullptr, nullptr, 0),
                                     static_cast<Bounds*>(nullptr), items, MergeBounds{},
                                     kEmptyBounds, nullptr));
  return bytes;
}

// Host copies into and out of the staging buffers are the slow end of the
// transfers (one core moves ~8 GB/s, the bus ~50): large ones are split over
// a few threads.
void staged_copy(void* dst, const void* src, size_t bytes, unsigned threads) {
  constexpr size_t kMinPart = size_t{2} << 20;
  unsigned hw = std::thread::hardware_concurrency();
  size_t most = threads != 0 ? threads : 4;
  unsigned parts = static_cast<unsigned>(std::min<size_t>({most, hw ? hw : 1, bytes / kMinPart}));
  if (parts <= 1) {
    std::memcpy(dst, src, bytes);
    return;
  }
  size_t part = (bytes / parts + 63) & ~size_t{63};
  auto copy = [&](unsigned k) {
    size_t off = std::min(bytes, k * part);
    size_t len = std::min(bytes - off, part);
    std::memcpy(static_cast<char*>(dst) + off, static_cast<const char*>(src) + off, len);
  };
  std::vector<std::thread> helpers;
  unsigned k = 1;
  try {
    for (; k < parts; ++k) helpers.emplace_back(copy, k);
  } catch (...) {
    for (; k < parts; ++k) copy(k);  // no thread to be had: copy inline
  }
  copy(0);
  for (auto& t : helpers) t.join();
}

// Waits for both streams before the staging buffers go away, also when the
// upload is left by an exception.
struct StreamsDrained {
  cudaStream_t a, b;
  ~StreamsDrained() {
    (void)cudaStreamSynchronize(a);
    (void)cudaStreamSynchronize(b);
  }
};

}  // namespace

Bounds device_bounds(RunContext& ctx, const double* dx, const double* dy, uint32_t n) {
  auto temp = ctx.alloc<uint8_t>(std::max<size_t>(reduce_temp_bytes(n), 1), "bounds reduction");
  auto out = ctx.alloc<Bounds>(1, "bounds");
  size_t bytes = temp.size();
  CUDA_TRY(cub::DeviceReduce::Reduce(temp.data(), bytes, bounds_iter(dx, dy, 0), out.data(), n,
                                     MergeBounds{}, kEmptyBounds, ctx.stream()));
  Bounds b;
  CUDA_TRY(cudaMemcpyAsync(&b, out.data(), sizeof b, cudaMemcpyDeviceToHost, ctx.stream()));
  ctx.wait();
  return b;
}

void upload_points(RunContext& ctx, const double* x, const double* y, uint32_t n,
                   const TransferPlan& plan, device_buffer<double>* dx, device_buffer<double>* dy,
                   Bounds* bounds) {
  uint32_t chunk_points = plan.chunk_points;
  *dx = ctx.alloc<double>(n, "point x coordinates");
  *dy = ctx.alloc<double>(n, "point y coordinates");
  if ((n <= (1u << 16) && chunk_points == 0) || plan.direct) {
    // Small inputs: pinning costs more than it saves.
    CUDA_TRY(cudaMemcpyAsync(dx->data(), x, sizeof(double) * n, cudaMemcpyHostToDevice,
                             ctx.stream()));
    CUDA_TRY(cudaMemcpyAsync(dy->data(), y, sizeof(double) * n, cudaMemcpyHostToDevice,
                             ctx.stream()));
    *bounds = device_bounds(ctx, dx->data(), dy->data(), n);
    return;
  }

  uint32_t chunk = chunk_points;
  if (chunk == 0) chunk = std::min<uint32_t>(std::max<uint32_t>(n / 4, 1u << 16), 1u << 20);
  chunk = std::min(chunk, n);
  uint32_t nchunks = static_cast<uint32_t>((static_cast<uint64_t>(n) + chunk - 1) / chunk);

  cudaStream_t streams[2] = {ctx.stream(), ctx.side_stream()};
  size_t tbytes = std::max<size_t>(reduce_temp_bytes(chunk), 1);
  device_buffer<uint8_t> temp[2] = {ctx.alloc<uint8_t>(tbytes, "bounds reduction"),
                                    ctx.alloc<uint8_t>(tbytes, "bounds reduction")};
  auto partial = ctx.alloc<Bounds>(nchunks, "chunk bounds");
  auto total = ctx.alloc<Bounds>(1, "bounds");
  size_t fbytes = std::max<size_t>(reduce_temp_bytes(nchunks), 1);
  auto ftemp = ctx.alloc<uint8_t>(fbytes, "bounds reduction");
  pinned_buffer stage0(sizeof(double) * 2 * chunk, cudaHostAllocDefault);
  pinned_buffer stage1(sizeof(double) * 2 * chunk, cudaHostAllocDefault);
  double* stage[2] = {static_cast<double*>(stage0.data()), static_cast<double*>(stage1.data())};
  StreamsDrained drained{streams[0], streams[1]};

  // The side stream must see the allocations made on the main stream.
  Event allocated;
  CUDA_TRY(cudaEventRecord(allocated, streams[0]));
  CUDA_TRY(cudaStreamWaitEvent(streams[1], allocated, 0));

  for (uint32_t k = 0; k < nchunks; ++k) {
    int b = k & 1;
    uint64_t off = static_cast<uint64_t>(k) * chunk;
    uint32_t cnt = static_cast<uint32_t>(std::min<uint64_t>(chunk, n - off));
    if (k >= 2) ctx.wait(streams[b]);  // staging buffer b is free again
    else ctx.check_cancel();
    staged_copy(stage[b], x + off, sizeof(double) * cnt, plan.copy_threads);
    staged_copy(stage[b] + chunk, y + off, sizeof(double) * cnt, plan.copy_threads);
    CUDA_TRY(cudaMemcpyAsync(dx->data() + off, stage[b], sizeof(double) * cnt,
                             cudaMemcpyHostToDevice, streams[b]));
    CUDA_TRY(cudaMemcpyAsync(dy->data() + off, stage[b] + chunk, sizeof(double) * cnt,
                             cudaMemcpyHostToDevice, streams[b]));
    size_t bytes = temp[b].size();
    CUDA_TRY(cub::DeviceReduce::Reduce(temp[b].data(), bytes, bounds_iter(dx->data(), dy->data(), off),
                                       partial.data() + k, cnt, MergeBounds{}, kEmptyBounds,
                                       streams[b]));
  }
  Event side_done;
  CUDA_TRY(cudaEventRecord(side_done, streams[1]));
  CUDA_TRY(cudaStreamWaitEvent(streams[0], side_done, 0));
  CUDA_TRY(cub::DeviceReduce::Reduce(ftemp.data(), fbytes, partial.data(), total.data(), nchunks,
                                     MergeBounds{}, kEmptyBounds, streams[0]));
  Bounds out;
  CUDA_TRY(cudaMemcpyAsync(&out, total.data(), sizeof out, cudaMemcpyDeviceToHost, streams[0]));
  ctx.wait();
  *bounds = out;
}

// The representatives come back through two pinned buffers: while chunk k is
// copied out of its buffer on the host, chunk k+1 crosses the bus.
void download_reps(RunContext& ctx, const uint32_t* d_rep, uint32_t n, uint32_t* rep,
                   const TransferPlan& plan) {
  if (n <= (1u << 18) || plan.direct) {
    CUDA_TRY(cudaMemcpyAsync(rep, d_rep, sizeof(uint32_t) * n, cudaMemcpyDeviceToHost,
                             ctx.stream()));
    ctx.wait();
    return;
  }
  uint32_t chunk = std::min<uint32_t>(std::max<uint32_t>(n / 4, 1u << 18), 1u << 21);
  uint32_t nchunks = static_cast<uint32_t>((static_cast<uint64_t>(n) + chunk - 1) / chunk);
  cudaStream_t streams[2] = {ctx.stream(), ctx.side_stream()};
  pinned_buffer stage0(sizeof(uint32_t) * chunk, cudaHostAllocDefault);
  pinned_buffer stage1(sizeof(uint32_t) * chunk, cudaHostAllocDefault);
  uint32_t* stage[2] = {static_cast<uint32_t*>(stage0.data()),
                        static_cast<uint32_t*>(stage1.data())};
  StreamsDrained drained{streams[0], streams[1]};
  Event ready;
  CUDA_TRY(cudaEventRecord(ready, streams[0]));  // d_rep is complete on the main stream
  CUDA_TRY(cudaStreamWaitEvent(streams[1], ready, 0));
  auto enqueue = [&](uint32_t k) {
    uint64_t off = static_cast<uint64_t>(k) * chunk;
    uint32_t cnt = static_cast<uint32_t>(std::min<uint64_t>(chunk, n - off));
    CUDA_TRY(cudaMemcpyAsync(stage[k & 1], d_rep + off, sizeof(uint32_t) * cnt,
                             cudaMemcpyDeviceToHost, streams[k & 1]));
  };
  enqueue(0);
  for (uint32_t k = 0; k < nchunks; ++k) {
    if (k + 1 < nchunks) enqueue(k + 1);
    ctx.wait(streams[k & 1]);
    uint64_t off = static_cast<uint64_t>(k) * chunk;
    uint32_t cnt = static_cast<uint32_t>(std::min<uint64_t>(chunk, n - off));
    staged_copy(rep + off, stage[k & 1], sizeof(uint32_t) * cnt, plan.copy_threads);
  }
}

}  // namespace cuda
}  // namespace gd
