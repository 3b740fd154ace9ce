// box_tree.hpp — a static R-tree over boxes, packed Sort-Tile-Recursive
// (Leutenegger et al. 1997; the packing of GEOS's STRtree, which PostGIS's
// ST_ClusterDBSCAN queries), for the candidate pairs of cpu_pairs.cpp and
// their device search (cuda/box_pairs.cu), which query it alike through
// BoxTreeView.
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
#include "parallel.hpp"
#include "rules/hd.hpp"

namespace gd {

struct TreeBox {
  double xmin, ymin, xmax, ymax;
};

// A node: the bounding box of entries [first, first + count) of the level
// below (items for a leaf node, else nodes of the flat array).
struct TreeNode {
  TreeBox box;
  uint32_t first, count;
};

// The tree's arrays, wherever they live (host vectors or device buffers):
// nodes holds the leaf level first, then each level above, the roots last.
struct BoxTreeView {
  static constexpr uint32_t kFanout = 16;
  // Depth-first, the stack holds at most the roots and kFanout - 1 siblings
  // for each level below them: 16 + 15 * 7 for the 8 levels that 2^32
  // items need at most.
  static constexpr int kStack = 128;

  const TreeBox* items;
  const TreeNode* nodes;
  uint32_t nitems;
  uint32_t nleaves;      // nodes [0, nleaves) are over items
  uint32_t roots_first;  // nodes [roots_first, nnodes) are the roots
  uint32_t nnodes;

  // Whether b meets q by gap: the gaps between the two boxes,
  // max(b.lo - q.hi, q.lo - b.hi), are at most gap on both axes.
  static GD_HD_INLINE bool meets(const TreeBox& b, const TreeBox& q, double gap) {
    return b.xmin - q.xmax <= gap && q.xmin - b.xmax <= gap && b.ymin - q.ymax <= gap &&
           q.ymin - b.ymax <= gap;
  }

  // Calls fn(k) for each item k whose box meets q by gap.  Nodes are pruned
  // by the same test on their bounds, which can only pass more often than
  // on the items under them (a subtraction is monotone in each operand), so
  // no item that passes is missed.  Returns the number of boxes tested (for
  // cancellation polls).
  template <class Fn>
  GD_HD size_t query(const TreeBox& q, double gap, Fn&& fn) const {
    size_t tested = 0;
    if (nnodes == 0) {
      for (uint32_t k = 0; k < nitems; ++k) {
        ++tested;
        if (meets(items[k], q, gap)) fn(k);
      }
      return tested;
    }
    uint32_t stack[kStack];
    int top = 0;
    for (uint32_t r = nnodes; r-- > roots_first;) stack[top++] = r;
    while (top > 0) {
      const uint32_t at = stack[--top];
      const TreeNode& node = nodes[at];
      ++tested;
      if (!meets(node.box, q, gap)) continue;
      if (at < nleaves) {
        for (uint32_t k = node.first; k < node.first + node.count; ++k) {
          ++tested;
          if (meets(items[k], q, gap)) fn(k);
        }
      } else {
        for (uint32_t c = node.first + node.count; c-- > node.first;) stack[top++] = c;
      }
    }
    return tested;
  }
};

class BoxTree {
 public:
  using Box = TreeBox;
  static constexpr uint32_t kFanout = BoxTreeView::kFanout;

  // Packs the boxes on team's threads; item(k) of the tree is boxes[order(k)].
  BoxTree(const std::vector<Box>& boxes, ThreadTeam& team);

  uint32_t size() const { return static_cast<uint32_t>(items_.size()); }
  const Box& item(uint32_t k) const { return items_[k]; }
  uint32_t order(uint32_t k) const { return index_[k]; }
  const std::vector<Box>& items() const { return items_; }
  const std::vector<TreeNode>& nodes() const { return nodes_; }

  // The arrays on the host; view_of gives the same tree over copies of
  // items() and nodes() elsewhere.
  BoxTreeView view() const { return view_of(items_.data(), nodes_.data()); }
  BoxTreeView view_of(const Box* items, const TreeNode* nodes) const {
    return BoxTreeView{items,   nodes, size(), nleaves_, static_cast<uint32_t>(nodes_.size()) - nroots_,
                       static_cast<uint32_t>(nodes_.size())};
  }

  template <class Fn>
  size_t query(const Box& q, double gap, Fn&& fn) const {
    return view().query(q, gap, fn);
  }

 private:
  MemoryCharge charge_;          // all of the below, and the packing's scratch
  std::vector<Box> items_;       // the boxes in packed order
  std::vector<uint32_t> index_;  // packed position -> input position
  std::vector<TreeNode> nodes_;  // BoxTreeView::nodes
  uint32_t nleaves_ = 0, nroots_ = 0;
};

}  // namespace gd
