// union_find.hpp — lock-free union-find over point indexes.
//
// Parents only ever decrease: a root is linked under a smaller root with a
// compare-and-swap, and find() halves paths with compare-and-swaps that can
// only replace a parent by an ancestor.  Any number of threads may call
// find() and unite() at once; after they are joined, find(i) == find(j)
// exactly when i and j were connected by some unite().
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <utility>

#include "memory_ledger.hpp"

namespace gd {

class AtomicUnionFind {
 public:
  explicit AtomicUnionFind(uint32_t n)
      : charge_(static_cast<int64_t>(n) * 4, "the union-find"),
        parent_(new std::atomic<uint32_t>[n]),
        n_(n) {}

  uint32_t size() const { return n_; }

  // Sets the initial parent of i (i itself, or a smaller index that is its
  // own root); call for every i before any find() or unite().
  void init(uint32_t i, uint32_t parent) { parent_[i].store(parent, std::memory_order_relaxed); }

  uint32_t find(uint32_t x) const {
    for (;;) {
      uint32_t p = parent_[x].load(std::memory_order_relaxed);
      if (p == x) return x;
      uint32_t gp = parent_[p].load(std::memory_order_relaxed);
      if (gp != p) parent_[x].compare_exchange_weak(p, gp, std::memory_order_relaxed);
      x = gp;
    }
  }

  bool same(uint32_t a, uint32_t b) const { return find(a) == find(b); }

  // Joins the sets of a and b (any members, roots are cheapest).
  void unite(uint32_t a, uint32_t b) {
    for (;;) {
      a = find(a);
      b = find(b);
      if (a == b) return;
      if (a < b) std::swap(a, b);  // link the larger root under the smaller
      uint32_t expected = a;
      if (parent_[a].compare_exchange_strong(expected, b, std::memory_order_acq_rel)) return;
    }
  }

 private:
  MemoryCharge charge_;  // memory_ledger.hpp
  std::unique_ptr<std::atomic<uint32_t>[]> parent_;
  uint32_t n_;
};

}  // namespace gd
