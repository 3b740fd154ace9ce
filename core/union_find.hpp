// union_find.hpp — the host back end's one union-find (the device's is
// cuda/union_find.cuh, the same invariant): lock-free, over point indexes.
//
// Parents only ever decrease: a root is linked under a smaller root with a
// compare-and-swap, and find() halves paths with compare-and-swaps that can
// only replace a parent by an ancestor, so a set's root is its smallest
// member.  Any number of threads may call find() and unite() at once; after
// they are joined, find(i) == find(j) exactly when i and j were connected by
// some unite().
//
// UnionFindRef works over storage it is given; AtomicUnionFind owns its
// storage and charges it to the memory ledger; LocalUnionFind is the same
// code over plain slots, for one thread (the small partitions of
// cpu_small.cpp, on a stack array).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <utility>

#include "big_alloc.hpp"
#include "memory_ledger.hpp"

namespace gd {

// One thread's slot: the operations of std::atomic<uint32_t> that the
// union-find uses, as plain loads and stores (the small path: one thread,
// no lock prefix on a handful of points).
struct LocalSlot {
  uint32_t v;
  uint32_t load(std::memory_order) const { return v; }
  void store(uint32_t x, std::memory_order) { v = x; }
  bool compare_exchange_weak(uint32_t& expected, uint32_t x, std::memory_order) {
    return compare_exchange_strong(expected, x, std::memory_order_relaxed);
  }
  bool compare_exchange_strong(uint32_t& expected, uint32_t x, std::memory_order) {
    if (v != expected) {
      expected = v;
      return false;
    }
    v = x;
    return true;
  }
};

// The union-find over slots of type Slot (std::atomic<uint32_t>: any number
// of threads; LocalSlot: one).
template <class Slot>
class BasicUnionFind {
 public:
  BasicUnionFind(Slot* parent, uint32_t n) : parent_(parent), n_(n) {}

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
  Slot* parent_;
  uint32_t n_;
};

using UnionFindRef = BasicUnionFind<std::atomic<uint32_t>>;
using LocalUnionFind = BasicUnionFind<LocalSlot>;

namespace detail {
// The owned storage, built before the UnionFindRef that points into it.
struct UnionFindStorage {
  explicit UnionFindStorage(uint32_t n)
      : charge(static_cast<int64_t>(n) * 4, "the union-find"),
        parent(n) {}
  MemoryCharge charge;  // memory_ledger.hpp
  BigVector<std::atomic<uint32_t>> parent;  // uninitialised: init() sets each slot
};
}  // namespace detail

class AtomicUnionFind : private detail::UnionFindStorage, public UnionFindRef {
 public:
  explicit AtomicUnionFind(uint32_t n)
      : detail::UnionFindStorage(n), UnionFindRef(parent.data(), n) {}
  AtomicUnionFind(const AtomicUnionFind&) = delete;
  AtomicUnionFind& operator=(const AtomicUnionFind&) = delete;
};

}  // namespace gd
