// union_find.cuh — lock-free union-find on the device (Jaiganesh & Burtscher,
// ECL-CC, as used by ArborX's FDBSCAN): parent[] over sorted point indices
// with the invariant parent[x] <= x, so a root is the smallest index of its
// set.  find() halves the path as it walks (benign races: every write stores
// an ancestor); unite() hooks the larger root under the smaller with one
// atomicCAS and retries from what it finds when another thread won.
#pragma once

#include <cstdint>

namespace gd {
namespace cuda {

__device__ __forceinline__ uint32_t uf_find(uint32_t* parent, uint32_t x) {
  volatile uint32_t* p = parent;
  uint32_t curr = p[x];
  if (curr != x) {
    uint32_t prev = x, next;
    while (curr > (next = p[curr])) {
      p[prev] = next;
      prev = curr;
      curr = next;
    }
  }
  return curr;
}

// x's root once no thread writes parent[] (after the union, in the final
// representatives): a walk of cached loads, without find()'s volatile ones
// and path halving (a cluster's upper nodes are read by most of its points).
__device__ __forceinline__ uint32_t uf_root(const uint32_t* __restrict__ parent, uint32_t x) {
  uint32_t next;
  while ((next = __ldg(parent + x)) != x) x = next;
  return x;
}

// Joins the sets of a and b; returns a node of the joined set that was a root
// a moment ago (a good hint for the caller's next find).
__device__ __forceinline__ uint32_t uf_unite(uint32_t* parent, uint32_t a, uint32_t b) {
  uint32_t ra = uf_find(parent, a);
  uint32_t rb = uf_find(parent, b);
  while (ra != rb) {
    if (ra < rb) {
      uint32_t old = atomicCAS(parent + rb, rb, ra);
      if (old == rb) return ra;
      rb = old;
    } else {
      uint32_t old = atomicCAS(parent + ra, ra, rb);
      if (old == ra) return rb;
      ra = old;
    }
  }
  return ra;
}

}  // namespace cuda
}  // namespace gd
