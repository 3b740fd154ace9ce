// box_tree.hpp — a static R-tree over boxes, packed Sort-Tile-Recursive
// (Leutenegger et al. 1997; the packing of GEOS's STRtree, which PostGIS's
// ST_ClusterDBSCAN queries), for the candidate pairs of cpu_pairs.cpp.
//
// Each level is packed from the one below: its entries are sorted by the x
// of their centres (ties by y, then position), cut into vertical slices of
// S * kFanout entries (S = ceil(sqrt(parents))), each slice sorted by the y
// of the centres (ties by x, then position), and every kFanout consecutive
// entries become one parent with their bounding box.  A query therefore
// visits the nodes whose boxes meet its own on both axes: boxes that overlap
// along one axis but lie far apart on the other (300,000 parallel lines) are
// pruned high in the tree, where a sweep along one axis compares them all.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "memory_ledger.hpp"

namespace gd {

class BoxTree {
 public:
  struct Box {
    double xmin, ymin, xmax, ymax;
  };
  static constexpr uint32_t kFanout = 16;

  // Packs the boxes; item(k) of the tree is boxes[order(k)].
  explicit BoxTree(const std::vector<Box>& boxes);

  uint32_t size() const { return static_cast<uint32_t>(items_.size()); }
  const Box& item(uint32_t k) const { return items_[k]; }
  uint32_t order(uint32_t k) const { return index_[k]; }

  // Calls fn(k) for each item k whose box meets q's by `gap`: the gaps
  // between the two boxes, max(b.lo - q.hi, q.lo - b.hi), are at most gap
  // on both axes.  Nodes are pruned by the same test on their bounds, which
  // can only pass more often than on the items under them (a subtraction is
  // monotone in each operand), so no item that passes is missed.  Returns
  // the number of boxes tested (for cancellation polls).
  template <class Fn>
  size_t query(const Box& q, double gap, Fn&& fn) const {
    if (items_.empty()) return 0;
    size_t tested = 0;
    // Each level-l entry on the stack is (level, node); depth <= levels * kFanout.
    struct Entry {
      uint32_t level, node;
    };
    Entry stack[64 * kFanout];
    size_t top = 0;
    const uint32_t root_level = static_cast<uint32_t>(levels_.size());
    if (root_level == 0) {
      for (uint32_t k = 0; k < items_.size(); ++k) {
        ++tested;
        if (meets(items_[k], q, gap)) fn(k);
      }
      return tested;
    }
    const std::vector<Node>& roots = levels_.back();
    for (uint32_t r = 0; r < roots.size(); ++r) stack[top++] = Entry{root_level, r};
    while (top > 0) {
      const Entry e = stack[--top];
      const Node& node = levels_[e.level - 1][e.node];
      ++tested;
      if (!meets(node.box, q, gap)) continue;
      if (e.level == 1) {
        for (uint32_t k = node.first; k < node.first + node.count; ++k) {
          ++tested;
          if (meets(items_[k], q, gap)) fn(k);
        }
      } else {
        for (uint32_t c = node.first + node.count; c-- > node.first;)
          stack[top++] = Entry{e.level - 1, c};
      }
    }
    return tested;
  }

  static bool meets(const Box& b, const Box& q, double gap) {
    return b.xmin - q.xmax <= gap && q.xmin - b.xmax <= gap && b.ymin - q.ymax <= gap &&
           q.ymin - b.ymax <= gap;
  }

 private:
  struct Node {
    Box box;
    uint32_t first, count;  // entries [first, first + count) of the level below
  };
  MemoryCharge charge_;          // all of the below, and the packing's scratch
  std::vector<Box> items_;       // the boxes in packed order
  std::vector<uint32_t> index_;  // packed position -> input position
  // levels_[0]: nodes over items_; levels_[l]: nodes over levels_[l - 1];
  // the last level has at most kFanout nodes (the roots).
  std::vector<std::vector<Node>> levels_;
};

}  // namespace gd
