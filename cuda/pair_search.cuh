// pair_search.cuh — a pair list (pair_collect.hpp) searched on the device:
// the candidate pairs of boxes (box_pairs.cu) and the neighbour pairs of
// n-D points (nd_dbscan.cu).  As on the CPU, in two passes over the same
// items: each item counts its pairs, the counts become 64-bit offsets, the
// total is checked against max_pairs (pair_offsets' error) before the host
// list of exactly the total is allocated, and the items then write their
// pairs, in runs of items whose pairs fit one device buffer, each run
// copied down to its place in the list.
#pragma once

#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <vector>

#include "cuda_util.cuh"
#include "pair_collect.hpp"

namespace gd {
namespace cuda {

// Most pairs one run of the write pass holds on the device (512 MiB).
constexpr uint64_t kPairRun = uint64_t(1) << 26;

// Where item i's pairs go within its run, and whether it wrote exactly as
// many as it counted (a mismatch sets *bad).
struct PairSlot {
  gd_pair* at;
  gd_pair* stop;
  int* bad;
  __device__ void put(const gd_pair& p) {
    if (at == stop) *bad = 1;
    else *at++ = p;
  }
  __device__ void finish() const {
    if (at != stop) *bad = 1;
  }
};

// The write pass's view of the offsets: item i of the run starting at
// offset base writes PairSlot slot(i).
struct PairOffsets {
  const uint64_t* offset;  // n + 1
  uint64_t base;
  gd_pair* out;
  int* bad;
  __device__ PairSlot slot(uint32_t i) const {
    return PairSlot{out + (offset[i] - base), out + (offset[i + 1] - base), bad};
  }
};

// count(d_count) launches the kernels that store each of the n items' pair
// counts; write(a, b, offsets) those that write the pairs of items [a, b)
// through offsets.slot(i).
template <class Count, class Write>
void collect_pairs_on_device(RunContext& ctx, uint32_t n, int64_t max_pairs, const char* what,
                             Count count, Write write, gd_pair_list* out) {
  out->pairs = nullptr;
  out->count = 0;
  out->charged = 0;
  if (n == 0) return;
  cudaStream_t s = ctx.stream();
  auto counts = ctx.alloc<uint64_t>(static_cast<size_t>(n) + 1, "pair counts");
  CUDA_TRY(cudaMemsetAsync(counts.data() + n, 0, sizeof(uint64_t), s));
  count(counts.data());
  auto offset = ctx.alloc<uint64_t>(static_cast<size_t>(n) + 1, "pair offsets");
  {
    size_t bytes = 0;
    CUDA_TRY(CUB_NS_QUALIFIER::DeviceScan::ExclusiveSum(nullptr, bytes, counts.data(), offset.data(), n + 1, s));
    auto temp = ctx.alloc<uint8_t>(bytes, "pair offsets scan");
    CUDA_TRY(
        CUB_NS_QUALIFIER::DeviceScan::ExclusiveSum(temp.data(), bytes, counts.data(), offset.data(), n + 1, s));
  }
  counts.reset();
  std::vector<uint64_t> host(static_cast<size_t>(n) + 1);
  CUDA_TRY(cudaMemcpyAsync(host.data(), offset.data(), sizeof(uint64_t) * host.size(),
                           cudaMemcpyDeviceToHost, s));
  ctx.wait();
  const int64_t total = static_cast<int64_t>(host[n]);
  pair_offsets(std::vector<int64_t>{total}, max_pairs, what);  // or its error
  fill_pair_list(total, what, [&](gd_pair* pairs) {
    uint64_t widest = 0;
    for (uint32_t i = 0; i < n; ++i) widest = std::max(widest, host[i + 1] - host[i]);
    // half of what the budget leaves, at most kPairRun, at least one item's pairs
    const size_t used = ctx.budget().used(), limit = ctx.budget_limit();
    const uint64_t left = limit > used ? (limit - used) / sizeof(gd_pair) / 2 : 0;
    const uint64_t room = std::max(widest, std::min({host[n], kPairRun, left}));
    auto buf = ctx.alloc<gd_pair>(room, "pair list run");
    auto bad = ctx.alloc<int>(1, "pair count check");
    CUDA_TRY(cudaMemsetAsync(bad.data(), 0, sizeof(int), s));
    for (uint32_t a = 0; a < n;) {
      // the longest run from a whose pairs fit the buffer
      const uint32_t b = static_cast<uint32_t>(
          std::upper_bound(host.begin() + a + 1, host.end(), host[a] + room) - host.begin() - 1);
      write(a, b, PairOffsets{offset.data(), host[a], buf.data(), bad.data()});
      const uint64_t k = host[b] - host[a];
      if (k != 0)
        CUDA_TRY(cudaMemcpyAsync(pairs + host[a], buf.data(), sizeof(gd_pair) * k,
                                 cudaMemcpyDeviceToHost, s));
      ctx.wait();
      a = b;
    }
    int wrong = 0;
    CUDA_TRY(cudaMemcpyAsync(&wrong, bad.data(), sizeof(int), cudaMemcpyDeviceToHost, s));
    ctx.wait();
    if (wrong)
      throw Error(GD_ERR_INTERNAL, std::string(what) + ": the device wrote other pairs than it counted");
  }, out);
}

}  // namespace cuda
}  // namespace gd
