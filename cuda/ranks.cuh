// ranks.cuh — each point's cluster numbered on the device: clusters 0..k-1
// in the order of their first point (smallest original index), kNoise for
// noise (labels.cpp's assign_ids then maps ranks to ids in one pass).
//
// A final kernel (labels.cu, nd_dbscan.cu) finds each sorted point's root and
// hands it to RootsSink::put, which keeps it in sorted order and lowers the
// root's first point; rank_roots flags each root's first point, scans the
// flags and writes every point's rank into its row.  In sorted order a
// cluster's points sit together: put lowers a root once per warp and root,
// and the last pass finds its root's first point and rank in cache.  (Ranking
// the representatives in row order read both at random, every value of a
// sweep: ~0.4-0.5 ms of a 10M value's ~1.1-1.5 on an H200.)
#pragma once

#include <cstdint>

#include "cuda_util.cuh"
#include "rules/dbscan_rules.hpp"
#include "union_find.cuh"

namespace gd {
namespace cuda {

// Sorted point i's root once nothing writes parent[] (rule 4): its own set's
// for a core point, its claimer's set's for a border point (whose parent[]
// holds the claimer; kNone == kNoise: noise).
__device__ __forceinline__ uint32_t final_root(const uint8_t* __restrict__ core,
                                               const uint32_t* __restrict__ parent, uint32_t i) {
  auto find = [parent](uint32_t x) { return uf_root(parent, x); };
  const bool is_core = core[i] != 0;
  return representative(is_core, i, is_core ? kNoise : parent[i], find);
}

struct RootsSink {
  uint32_t* root;   // root[i]: sorted point i's root (a sorted index) or kNoise
  uint32_t* first;  // first[r]: the smallest original index in root r's set

  // Called by every lane of the warp; in: the lane holds point i (of
  // original index row) whose root is r.
  __device__ __forceinline__ void put(bool in, uint32_t i, uint32_t r, uint32_t row) const {
    const uint32_t key = in ? r : kNoise;
    const unsigned peers = __match_any_sync(0xffffffffu, key);
    const uint32_t low = __reduce_min_sync(peers, in ? row : UINT32_MAX);
    if (in) root[i] = r;
    if (key == kNoise || (threadIdx.x & 31) != static_cast<unsigned>(__ffs(peers) - 1)) return;
    if (low < static_cast<const volatile uint32_t*>(first)[r]) atomicMin(first + r, low);
  }
};

// The sink's buffers for n points (first[] all ones).
class RootsScratch {
 public:
  RootsScratch(RunContext& ctx, uint32_t n);
  RootsSink sink() { return RootsSink{root_.data(), first_.data()}; }
  uint32_t* root() { return root_.data(); }
  const uint32_t* first() const { return first_.data(); }

 private:
  device_buffer<uint32_t> root_, first_;
};

// out[idx[i]] = the rank of sorted point i's cluster, or kNoise.  With pos
// (pos[idx[i]] = i, made once for the values of a sweep) the ranks are
// written in sorted order over the roots, then each row reads its own: a
// read at random in place of a write at random (a partial write costs the
// memory a read and a write).
void rank_roots(RunContext& ctx, uint32_t n, const uint32_t* idx, RootsScratch& roots,
                uint32_t* out, const uint32_t* pos = nullptr);

// pos[idx[i]] = i for the n sorted points.
device_buffer<uint32_t> sorted_positions(RunContext& ctx, uint32_t n, const uint32_t* idx);

}  // namespace cuda
}  // namespace gd
