// cpu_union.cpp — connecting core points on the 2D grid, by the rules of
// rules/dbscan_rules.hpp (pair_join) for the one-sided neighbour relation
// within(p, q) of rules/neighbour.hpp.
//
// PostGIS (union_dbscan_general) visits rows in order; a core point p unions
// with each q it finds that is core and already visited (q < p), or that no
// earlier core point has found yet (p claims q).  So, in point indexes:
//   - core p and core q < p are joined when within(p, q): the later row's
//     view of the earlier one;
//   - every point x is joined to its first claimer, the smallest-index core r
//     with within(r, x) (a core x is its own claimer unless an earlier core
//     point reaches it).
// For a pair of core points that see each other both ways this is the usual
// rule.  A pair where only the earlier row sees the later one is rare (the
// boxes differ at the last bit, or squares underflow): that pair is joined
// only through the later point's first claimer, found on demand.  With
// minpoints 0 or 1 (union_dbscan_minpoints_1) a pair is joined when either
// sees the other.
//
// Every point of a dense cell starts in one set.  Then each pair of core
// points that may need joining is met once:
//   - a dense cell D, as a whole, against every core point q of its window
//     outside D, except points of dense cells sorted before D (that cell
//     already met D's points as its q's): a test between q and D's points
//     until q is in D's set; a dense neighbour cell is left as soon as it is
//     in D's set;
//   - a core point p of a non-dense cell against the core points q > p of its
//     window that are not in dense cells (those were met by their cell).
// A pair already in one set is skipped without a test.
#include <algorithm>
#include <atomic>

#include "cpu_phases.hpp"
#include "cpu_window.hpp"

namespace gd {

namespace {

// Joins two core points as the linkage says.
class CoreJoiner {
 public:
  CoreJoiner(const Grid& grid, const CoreLists& lists, double eps, Linkage linkage,
             AtomicUnionFind& uf, std::atomic<bool>* claimed_one_way)
      : grid_(grid), lists_(lists), eps_(eps), linkage_(linkage), uf_(uf),
        claimed_one_way_(claimed_one_way) {}

  // a and b (sorted positions) with rel = within_each_way(a, b) != 0.
  // Returns true when a and b are now known to be in one set.
  bool operator()(uint32_t a, uint32_t b, unsigned rel) {
    // Both ways (the common case) needs no row order.
    const bool a_later = rel != 3u && grid_.perm[a] > grid_.perm[b];
    if (pair_join(rel, a_later, linkage_) == PairJoin::kUnite) {
      uf_.unite(a, b);
      return true;
    }
    // kViaClaimer: the later point's edge is its first claimer.
    const uint32_t later = a_later ? a : b;
    if (claimed_one_way_) claimed_one_way_->store(true, std::memory_order_relaxed);
    uf_.unite(later, first_claimer(grid_, lists_, eps_, later));
    return uf_.same(a, b);
  }

 private:
  const Grid& grid_;
  const CoreLists& lists_;
  double eps_;
  Linkage linkage_;
  AtomicUnionFind& uf_;
  std::atomic<bool>* claimed_one_way_;
};

// Dense cell c, points [b, e), against the cells of its window.
void union_dense_cell(const Grid& grid, uint32_t c, const CellRange* rows, const CoreLists& lists,
                      const uint8_t* f, double eps, double reach, AtomicUnionFind& uf,
                      CoreJoiner& join, WorkPoller& poller) {
  const double* xs = grid.xs.data();
  const double* ys = grid.ys.data();
  const uint32_t b = grid.start[c], e = grid.start[c + 1];
  const CellBox box = cell_box(grid, c);
  uint32_t rb = uf.find(b);
  // Joins q's set to the cell's when some point of the cell and q are to be joined.
  auto meet = [&](uint32_t q) {
    const double qx = xs[q], qy = ys[q];
    // Every point of the box is at least this far from q on one axis: when
    // that exceeds the reach of eps, no distance test can succeed.
    double gx = std::max(box.x0 - qx, qx - box.x1), gy = std::max(box.y0 - qy, qy - box.y1);
    if (gx > reach || gy > reach) return;
    uint32_t p = b;
    for (; p < e; ++p) {
      const unsigned rel = within_each_way(xs[p], ys[p], qx, qy, eps);
      if (rel != 0 && join(p, q, rel)) break;
    }
    poller.add(p - b);
    rb = uf.find(rb);
  };
  for (int a = 0; a < WindowCursor::kRows; ++a) {
    for (uint32_t n = rows[a].begin; n < rows[a].end; ++n) {
      if (n == c) continue;
      const uint32_t nb = grid.start[n], ne = grid.start[n + 1];
      poller.add(ne - nb);
      rb = uf.find(rb);  // other threads may have linked it under another root
      if (f[nb] & kDenseFlag) {
        // A dense cell before this one has already met it; one set is one test.
        if (n < c) continue;
        uint32_t rn = uf.find(nb);
        for (uint32_t q = nb; q < ne && rn != rb; ++q) {
          meet(q);
          rn = uf.find(rn);
          rb = uf.find(rb);
        }
        continue;
      }
      for (uint32_t k = lists.first[n]; k < lists.first[n + 1]; ++k) {
        const uint32_t q = lists.core[k];
        if (uf.find(q) != rb) meet(q);
      }
    }
  }
}

// Core points of a non-dense cell, the core list [k0, k1), against the
// non-dense core points q > p of the window.
void union_sparse_cell(uint32_t k0, uint32_t k1, const CellRange* rows, const CoreLists& lists,
                       const double* xs, const double* ys, const uint8_t* f, double eps,
                       AtomicUnionFind& uf, CoreJoiner& join, WorkPoller& poller) {
  const uint32_t* core = lists.core.data();
  for (uint32_t k = k0; k < k1; ++k) {
    const uint32_t p = core[k];
    const double px = xs[p], py = ys[p];
    uint32_t rp = uf.find(p);
    size_t work = 0;
    for (int a = 0; a < WindowCursor::kRows; ++a) {
      const uint32_t* lo = core + lists.first[rows[a].begin];
      const uint32_t* hi = core + lists.first[rows[a].end];
      // The list is ascending: the q > p are a suffix of it.
      const uint32_t* from = std::upper_bound(lo, hi, p);
      work += static_cast<size_t>(hi - from);
      for (const uint32_t* it = from; it < hi; ++it) {
        const uint32_t q = *it;
        if (f[q] != kCoreFlag) continue;  // in a dense cell
        // rp may have stopped being a root (other threads): then it differs
        // from find(q) and the pair is tested, which is only extra work.
        if (uf.find(q) == rp) continue;
        const unsigned rel = within_each_way(px, py, xs[q], ys[q], eps);
        if (rel != 0) {
          join(p, q, rel);
          rp = uf.find(rp);
        }
      }
    }
    poller.add(work);
  }
}

}  // namespace

void union_core_points(const Grid& grid, double eps, const CoreFlags& flags,
                       const CoreLists& lists, AtomicUnionFind& uf, ThreadTeam& team,
                       Linkage linkage,
                       std::atomic<bool>* claimed_one_way) {
  const double* xs = grid.xs.data();
  const double* ys = grid.ys.data();
  const uint8_t* f = flags.data();
  const double reach = neighbour_reach(eps) * (1 + 1e-9);
  const size_t grain = cell_grain(grid, team);

  // Singletons, except that a dense cell is one set rooted at its first point.
  team.for_dynamic(grid.cells.size(), grain, [&](size_t c0, size_t c1) {
    for (size_t c = c0; c < c1; ++c) {
      const uint32_t b = grid.start[c], e = grid.start[c + 1];
      const bool dense = f[b] & kDenseFlag;
      for (uint32_t i = b; i < e; ++i) uf.init(i, dense ? b : i);
    }
  });

  team.for_dynamic(grid.cells.size(), grain, [&](size_t c0, size_t c1) {
    WindowCursor window(grid);
    WorkPoller poller(team.cancel());
    CoreJoiner join(grid, lists, eps, linkage, uf, claimed_one_way);
    CellRange rows[WindowCursor::kRows];
    for (size_t c = c0; c < c1; ++c) {
      const uint32_t b = grid.start[c];
      const uint32_t k0 = lists.first[c], k1 = lists.first[c + 1];
      if (k0 == k1) continue;  // no core point
      window.cells_at(static_cast<uint32_t>(c), rows);
      if (f[b] & kDenseFlag)
        union_dense_cell(grid, static_cast<uint32_t>(c), rows, lists, f, eps, reach, uf, join,
                         poller);
      else
        union_sparse_cell(k0, k1, rows, lists, xs, ys, f, eps, uf, join, poller);
    }
  });
}

}  // namespace gd
