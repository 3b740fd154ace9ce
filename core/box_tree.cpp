// box_tree.cpp — Sort-Tile-Recursive packing of the box tree (box_tree.hpp).
#include "box_tree.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace gd {

namespace {

// Centres, doubled (xmin + xmax) to stay exact where halving could round.
struct Centre {
  double x, y;
};

// Sorts ord by less (a strict total order: the result is the one sorted
// order) on team: a run per thread sorted, then the runs merged in pairs.
template <class Less>
void parallel_sort(std::vector<uint32_t>& ord, Less less, ThreadTeam& team) {
  const size_t n = ord.size();
  const size_t runs = std::min<size_t>(static_cast<size_t>(team.size()), std::max<size_t>(1, n / 4096));
  std::vector<size_t> at(runs + 1);
  for (size_t r = 0; r <= runs; ++r) at[r] = n * r / runs;
  team.for_dynamic(runs, 1, [&](size_t r0, size_t r1) {
    for (size_t r = r0; r < r1; ++r) std::sort(ord.begin() + at[r], ord.begin() + at[r + 1], less);
  });
  for (size_t width = 1; width < runs; width *= 2) {
    const size_t pairs = (runs + 2 * width - 1) / (2 * width);
    team.for_dynamic(pairs, 1, [&](size_t p0, size_t p1) {
      for (size_t p = p0; p < p1; ++p) {
        const size_t lo = 2 * width * p, mid = std::min(runs, lo + width),
                     hi = std::min(runs, lo + 2 * width);
        std::inplace_merge(ord.begin() + at[lo], ord.begin() + at[mid], ord.begin() + at[hi], less);
      }
    });
  }
}

// The STR order of n entries with the given centres: slices along x, each
// sorted along y (the slices on the team's threads).  Deterministic (ties
// by position).
std::vector<uint32_t> str_order(const std::vector<Centre>& c, ThreadTeam& team) {
  const size_t n = c.size();
  std::vector<uint32_t> ord(n);
  std::iota(ord.begin(), ord.end(), 0u);
  const size_t parents = (n + BoxTree::kFanout - 1) / BoxTree::kFanout;
  const size_t slices = static_cast<size_t>(std::ceil(std::sqrt(static_cast<double>(parents))));
  const size_t per_slice = std::max<size_t>(1, slices) * BoxTree::kFanout;
  parallel_sort(ord, [&](uint32_t a, uint32_t b) {
    if (c[a].x != c[b].x) return c[a].x < c[b].x;
    if (c[a].y != c[b].y) return c[a].y < c[b].y;
    return a < b;
  }, team);
  team.for_dynamic((n + per_slice - 1) / per_slice, 1, [&](size_t s0, size_t s1) {
    for (size_t s = s0 * per_slice; s < std::min(n, s1 * per_slice); s += per_slice) {
      std::sort(ord.begin() + s, ord.begin() + std::min(n, s + per_slice), [&](uint32_t a, uint32_t b) {
        if (c[a].y != c[b].y) return c[a].y < c[b].y;
        if (c[a].x != c[b].x) return c[a].x < c[b].x;
        return a < b;
      });
    }
  });
  return ord;
}

Centre centre_of(const BoxTree::Box& b) { return Centre{b.xmin + b.xmax, b.ymin + b.ymax}; }

TreeBox join(const TreeBox& a, const TreeBox& b) {
  return TreeBox{std::min(a.xmin, b.xmin), std::min(a.ymin, b.ymin), std::max(a.xmax, b.xmax),
                      std::max(a.ymax, b.ymax)};
}

}  // namespace

BoxTree::BoxTree(const std::vector<Box>& boxes, ThreadTeam& team)
    : charge_(static_cast<int64_t>(boxes.size()) * 64, "the box tree") {
  const size_t n = boxes.size();
  {
    std::vector<Centre> c(n);
    for (size_t k = 0; k < n; ++k) c[k] = centre_of(boxes[k]);
    index_ = str_order(c, team);
  }
  items_.resize(n);
  for (size_t k = 0; k < n; ++k) items_[k] = boxes[index_[k]];
  if (n <= kFanout) return;  // no node: the query scans the items

  // Level 0: runs of kFanout packed items.
  std::vector<std::vector<TreeNode>> levels;
  std::vector<TreeNode> level;
  for (size_t k = 0; k < n; k += kFanout) {
    TreeNode node{items_[k], static_cast<uint32_t>(k),
                  static_cast<uint32_t>(std::min<size_t>(kFanout, n - k))};
    for (uint32_t i = 1; i < node.count; ++i) node.box = join(node.box, items_[k + i]);
    level.push_back(node);
  }
  // Each further level packs the one below, reordered by STR (the level
  // below keeps its child ranges, so it can be permuted freely).
  while (level.size() > kFanout) {
    std::vector<Centre> c(level.size());
    for (size_t k = 0; k < level.size(); ++k) c[k] = centre_of(level[k].box);
    const std::vector<uint32_t> ord = str_order(c, team);
    std::vector<TreeNode> packed(level.size());
    for (size_t k = 0; k < level.size(); ++k) packed[k] = level[ord[k]];
    levels.push_back(std::move(packed));
    const std::vector<TreeNode>& below = levels.back();
    std::vector<TreeNode> up;
    for (size_t k = 0; k < below.size(); k += kFanout) {
      TreeNode node{below[k].box, static_cast<uint32_t>(k),
                    static_cast<uint32_t>(std::min<size_t>(kFanout, below.size() - k))};
      for (uint32_t i = 1; i < node.count; ++i) node.box = join(node.box, below[k + i].box);
      up.push_back(node);
    }
    level = std::move(up);
  }
  levels.push_back(std::move(level));
  if (levels.size() > 8)  // BoxTreeView::kStack holds 8 levels
    throw Error(GD_ERR_INTERNAL, "the box tree has more than 8 levels");

  // One array, leaves first; a node above the leaves points into the level below.
  size_t below = 0;
  for (size_t l = 0; l < levels.size(); ++l) {
    const size_t at = nodes_.size();
    for (TreeNode node : levels[l]) {
      if (l > 0) node.first += static_cast<uint32_t>(below);
      nodes_.push_back(node);
    }
    below = at;
  }
  nleaves_ = static_cast<uint32_t>(levels.front().size());
  nroots_ = static_cast<uint32_t>(levels.back().size());
}

}  // namespace gd
