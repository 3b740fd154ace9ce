// union_find.cu — clusters of core points (ArborX's main phase, fused with
// the neighbour search: no pair is ever stored).
//
// Which core pairs are joined follows PostGIS's row-order loop exactly.  For
// core points a < b (original indexes, row order), with the one-sided
// relation "sees" of grid.cuh:
//   - b sees a: joined (b's search finds a, already core);
//   - else a sees b: joined only if a is b's first claimer (a's search found
//     b before any other core did and took it into a's cluster; a later core
//     finds b claimed and not yet core, and leaves it);
//   - else not joined.
// The second case needs a pair that one side sees and the other does not,
// which only the rounding of the search box's bounds produces (p = -1e-20
// sees q = 1 at eps 1, q does not see p), so the claimer is computed then
// and only then (claimers.cuh).  With minpoints <= 1 PostGIS joins every
// pair that either side sees (its minpoints-1 loop unites p with whatever
// p's search finds), so there a pair is joined when either side sees it.
//
// Tight cells (every point of the cell sees every other, both ways: the
// corners of its box see each other, as for grid.cu's dense flag, with or
// without minpoints points) have every pair of their core points joined, so
// their core points are joined at initialisation: each points at the cell's
// first core point (the set's representative, rep[]), no distance test.
// Then the pairs across cells, skipping two cells whose boxes are beyond
// eps of each other (exact, by monotonicity as in grid.cuh) or whose sets
// are already one:
//   - a small tight cell (at most kSmallTight points) and a small tight cell
//     of larger number: one thread per cell and row of its neighbourhood
//     tests core pairs up to the first joined one (which joins the two
//     sets);
//   - a large tight cell (at most kLargeTight points) and a small tight
//     cell, or a large tight cell of larger number: one warp per large cell,
//     the points of one side of a pair tried one at a time against the
//     other's, shared by the lanes, likewise;
//   - every core point p of a cell that is not tight, or of a huge tight
//     cell (more points: a pair of them on one warp could take long), walks
//     its 25 neighbour cells:
//       - its own cell when tight: already joined, skipped;
//       - a cell that no point of which p sees and that sees p from none of
//         its points: skipped (exact, see grid.cuh);
//       - a tight cell: if its representative is already in p's set,
//         skipped; if p and each of its points see each other, joined at
//         once; else its core points are tested up to the first joined pair
//         (one joins the whole set);
//       - any other cell: only points after p in the sorted order (so each
//         such pair is visited once), core, not already pointing at p's
//         root, and joined by the rule above are united.
// Every joined pair is thereby united, directly or through a tight cell's
// set: two tight cells by the cell pair or from the huge one's points, a
// tight cell and one that is not from the latter's points, two cells not
// tight from the pair's smaller sorted index.  Per point, every point of a tight cell would repeat its
// cell's search (most cells of a sparse grid are small and tight, since the
// cell's diagonal is about eps; those of a dense one large).
//
// The sweep (sweep.cu) goes from one minpoints value to the next smaller
// one with the union-find of the first kept (UnionStep): only the core
// points new at this value (core[i] == 2) bring pairs to test.  A pair of
// two points core at both values is decided alike at both, by where they
// lie and their row order, except through the claimer rule, whose answer
// depends on the core set: so every pair decided by it sets a flag, and the
// caller takes the next value afresh.  A pair left untested because its two
// sets were one already stays one.  Cells with a new core point are marked
// (changed[]): a pair of cells, a point and a cell, or two points are
// tested only when one side holds a new core point; a new point of a tight
// cell joins the cell's set at initialisation.
//
// A strip run (strips.cu) passes trusted[]: then only pairs of two trusted
// points are tested, since only their core flags and claimers are known
// exactly in the strip (a dense cell's own set, and a cell every point of
// which sees and is seen by p, are joined whatever: no claimer is needed
// there, and dense-cell points are core in any subset that holds the cell).
// There only dense cells count as tight, and the pairs of every cell go
// through the per-point walk and its trusted checks, a tight cell's own set
// skipped.

#include <algorithm>

#include <cooperative_groups.h>

#include "claimers.cuh"
#include "grid.cuh"
#include "trace.cuh"
#include "union_find.cuh"

namespace gd {
namespace cuda {

namespace {

namespace cg = cooperative_groups;

// Largest cells handled per cell pair: on one thread (a pair of cells costs
// at most kSmallTight^2 tests there), on one warp.
constexpr uint32_t kSmallTight = 16;
constexpr uint32_t kLargeTight = 4096;

enum : uint8_t { kLoose = 0, kSmall = 1, kLarge = 2, kHuge = 3 };

// A sweep step as the kernels see it (changed null: a full run).
struct UnionStepView {
  const uint8_t* changed;  // per cell: holds a core point new at this value
  int* claimer_used;
};

// Each cell's class and representative (its first core point, kNone when it
// has none); a tight cell without a core point is left loose (nothing of it
// is joined).  In a strip run the tight cells are the dense ones, all huge.
__global__ void classes_kernel(GridView g, const uint8_t* __restrict__ core, bool strip,
                               uint8_t* __restrict__ cls, uint32_t* __restrict__ rep,
                               uint32_t* __restrict__ large, uint32_t* large_count) {
  uint64_t c = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (c >= g.ncells) return;
  uint32_t j0 = g.start[c], j1 = g.start[c + 1];
  bool tight;
  if (strip) {
    tight = g.dense[c] != 0;
  } else {
    Box b = g.box[c];
    tight = sees(b.x0, b.y0, b.x1, b.y1, g.eps, g.t) && sees(b.x1, b.y1, b.x0, b.y0, g.eps, g.t);
  }
  uint32_t r = kNone;
  if (tight)
    for (uint32_t j = j0; j < j1; ++j)
      if (core[j]) {
        r = j;
        break;
      }
  rep[c] = r;
  uint32_t cnt = j1 - j0;
  uint8_t k = r == kNone                      ? kLoose
              : strip                         ? kHuge
              : cnt <= kSmallTight            ? kSmall
              : cnt <= kLargeTight            ? kLarge
                                              : kHuge;
  cls[c] = k;
  if (k == kLarge) large[atomicAdd(large_count, 1u)] = static_cast<uint32_t>(c);
}

__global__ void init_parents_kernel(GridView g, const uint8_t* __restrict__ core,
                                    const uint8_t* __restrict__ cls,
                                    const uint32_t* __restrict__ rep, uint32_t* __restrict__ parent) {
  uint64_t i = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= g.n) return;
  uint32_t c = g.cell_of[i];
  parent[i] = (cls[c] != kLoose && core[i]) ? rep[c] : static_cast<uint32_t>(i);
}

// A sweep step: the cells that hold a new core point (changed[], zeroed
// first), and each new core point's parent as at initialisation (the old
// core points keep theirs; a non-core point's entry is the border stage's).
__global__ void step_parents_kernel(GridView g, const uint8_t* __restrict__ core,
                                    const uint8_t* __restrict__ cls,
                                    const uint32_t* __restrict__ rep, uint8_t* changed,
                                    uint32_t* __restrict__ parent) {
  uint64_t i = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= g.n || core[i] != 2) return;
  uint32_t c = g.cell_of[i];
  changed[c] = 1;
  parent[i] = cls[c] != kLoose ? rep[c] : static_cast<uint32_t>(i);
}

// A sweep step: a changed tight cell's set (its new core points, under its
// first core point) joins that of its old core points, if any; the changed
// small tight cells listed (small, small_count) for small_pairs_step_kernel.
__global__ void step_tight_kernel(GridView g, const uint8_t* __restrict__ core,
                                  const uint8_t* __restrict__ cls,
                                  const uint32_t* __restrict__ rep,
                                  const uint8_t* __restrict__ changed, uint32_t* parent,
                                  uint32_t* __restrict__ small, uint32_t* small_count) {
  uint64_t c = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (c >= g.ncells) return;
  const uint8_t k = cls[c];
  if (k == kLoose || !changed[c]) return;
  if (k == kSmall) {
    // One atomic for the warp's lanes here.
    const cg::coalesced_group here = cg::coalesced_threads();
    uint32_t base = 0;
    if (here.thread_rank() == 0) base = atomicAdd(small_count, here.num_threads());
    small[here.shfl(base, 0) + here.thread_rank()] = static_cast<uint32_t>(c);
  }
  for (uint32_t j = g.start[c], j1 = g.start[c + 1]; j < j1; ++j)
    if (core[j] == 1) {
      uf_unite(parent, rep[c], j);
      return;
    }
}

// Whether a pair needs a test in a sweep step (changed null: a full run).
__device__ __forceinline__ bool step_skips(const uint8_t* changed, bool a_new, bool b_new) {
  return changed != nullptr && !a_new && !b_new;
}

// The core marks a core point's partners must carry (core_counts_as): in a
// sweep step only new ones (2) for a point core before, whose pairs with
// old ones were decided at the previous value; any (0) otherwise.
__device__ __forceinline__ uint8_t partners_only(const uint8_t* changed, bool is_new) {
  return changed != nullptr && !is_new ? 2 : 0;
}

// Core points i and j (sorted indexes) are joined (see the top of the file).
// claimer_used (null: not asked) is set when the claimer rule decides.
__device__ __forceinline__ bool joined(const GridView& g, const uint8_t* core,
                                       const uint64_t* cell_min_core, bool either_way,
                                       int* claimer_used, uint32_t i, double px, double py,
                                       uint32_t j) {
  double2 q = g.p[j];
  if (!within_distance_t(px, py, q.x, q.y, g.t)) return false;
  const unsigned rel = static_cast<unsigned>(in_query_box(px, py, q.x, q.y, g.eps)) |
                       static_cast<unsigned>(in_query_box(q.x, q.y, px, py, g.eps)) << 1;
  const Linkage linkage = either_way ? Linkage::kSingle : Linkage::kDbscan;
  // Both ways (the common case) or single linkage needs no row order: no read of idx.
  const bool i_later = rel != 3u && linkage == Linkage::kDbscan && g.idx[i] > g.idx[j];
  const PairJoin join = pair_join(rel, i_later, linkage);
  if (join != PairJoin::kViaClaimer) return join == PairJoin::kUnite;
  // Seen from the earlier point alone: joined iff it is the later one's claimer.
  if (claimer_used != nullptr) *claimer_used = 1;
  const uint32_t oi = g.idx[i], oj = g.idx[j];
  uint64_t claimer = first_claimer(g, core, cell_min_core, i_later ? i : j);
  return claimer != kNoCore && static_cast<uint32_t>(claimer >> 32) == (i_later ? oj : oi);
}

// False: no point of box a and point of box b pass the distance part (the
// closest coordinates of the two boxes on each axis fail it; |fl(x - y)| is
// monotone in each, as for near_corner_ok).
__device__ __forceinline__ bool boxes_within_reach(const Box& a, const Box& b, double t) {
  double ax = 0, bx = 0, ay = 0, by = 0;
  if (b.x0 > a.x1) {
    ax = a.x1;
    bx = b.x0;
  } else if (a.x0 > b.x1) {
    ax = a.x0;
    bx = b.x1;
  }
  if (b.y0 > a.y1) {
    ay = a.y1;
    by = b.y0;
  } else if (a.y0 > b.y1) {
    ay = a.y0;
    by = b.y1;
  }
  return within_distance_t(ax, ay, bx, by, t);
}

// Core point i joined with some core point of the tight cell d (box b)?
// (trusted: only trusted points j, see the top of the file; only = 2: only
// the new core points j of a sweep step, for an i core before too, whose
// pairs with d's old core points were decided at the previous value.)
__device__ __forceinline__ bool joins_cell(const GridView& g, const uint8_t* core,
                                           const uint64_t* cell_min_core,
                                           const uint8_t* trusted, bool either_way,
                                           int* claimer_used, uint32_t i, double px, double py,
                                           uint32_t d, const Box& b, uint8_t only = 0) {
  if (sees_all_in(px, py, b, g.eps, g.t) && seen_by_all_in(px, py, b, g.eps, g.t)) return true;
  uint32_t j0 = g.start[d], j1 = g.start[d + 1];
  for (uint32_t j = j0; j < j1; ++j) {
    if (!core_counts_as(core[j], only)) continue;
    if (trusted != nullptr && !trusted[j]) continue;
    if (joined(g, core, cell_min_core, either_way, claimer_used, i, px, py, j)) return true;
  }
  return false;
}

// Small tight cells c (box bc) and d, of the same row of c's
// neighbourhood: their sets joined at their first joined pair of core
// points.  root: c's root, or kNone until the first pair that needs it (a
// step skips most).
__device__ __forceinline__ void join_small_cells(const GridView& g, const uint8_t* core,
                                                 const uint64_t* cell_min_core,
                                                 const uint32_t* rep, bool either_way,
                                                 const UnionStepView& step, uint32_t c,
                                                 const Box& bc, uint32_t d, bool d_new,
                                                 uint32_t& root, uint32_t* parent) {
  Box b = g.box[d];
  if (!boxes_within_reach(bc, b, g.t)) return;
  uint32_t rd = uf_find(parent, rep[d]);
  root = uf_find(parent, root == kNone ? rep[c] : root);
  if (rd == root) return;
  for (uint32_t i = g.start[c], i1 = g.start[c + 1]; i < i1; ++i) {
    if (!core[i]) continue;
    const uint8_t only = partners_only(step.changed, core[i] == 2);
    if (only != 0 && !d_new) continue;
    double2 p = g.p[i];
    if (!sees_any_in(p.x, p.y, b, g.eps, g.t) && !seen_by_any_in(p.x, p.y, b, g.eps, g.t))
      continue;
    if (joins_cell(g, core, cell_min_core, nullptr, either_way, step.claimer_used, i, p.x, p.y,
                   d, b, only)) {
      root = uf_unite(parent, root, rd);
      return;
    }
  }
}

// A full run: one thread per small tight cell c and row of its
// neighbourhood (the launch's y), against the small tight cells of larger
// number in the row (a thread per cell walked its 25 neighbours alone: at
// 1M points a sweep value's longest stage, ~150 us on an H200, the device
// far from full).
__global__ void small_pairs_kernel(GridView g, const uint8_t* __restrict__ core,
                                   const uint64_t* __restrict__ cell_min_core,
                                   const uint8_t* __restrict__ cls,
                                   const uint32_t* __restrict__ rep, bool either_way,
                                   UnionStepView step, Batch batch, const volatile int* stop,
                                   uint32_t* parent) {
  if (cancelled(stop)) return;
  uint32_t c;
  if (!batch_point(batch, g.ncells, &c)) return;
  if (cls[c] != kSmall) return;
  Box bc = g.box[c];
  uint32_t root = kNone;
  CellRange r = g.rows[static_cast<uint64_t>(c) * 5 + blockIdx.y];
  for (uint32_t d = r.lo > c + 1 ? r.lo : c + 1; d < r.hi; ++d)
    if (cls[d] == kSmall)
      join_small_cells(g, core, cell_min_core, rep, either_way, step, c, bc, d, false, root,
                       parent);
}

// A sweep step: one thread per small tight cell with a new core point
// (list, count: step_tight_kernel's) and row of its neighbourhood, against
// every small tight cell of the row, one with new core points too only
// when of larger number (two cells without new core points offer each
// other nothing: a thread per cell of the grid read most cells for
// nothing, ~370 us of a 10M-point value on an H200).
__global__ void small_pairs_step_kernel(GridView g, const uint8_t* __restrict__ core,
                                        const uint64_t* __restrict__ cell_min_core,
                                        const uint8_t* __restrict__ cls,
                                        const uint32_t* __restrict__ rep, UnionStepView step,
                                        const uint32_t* __restrict__ list, const uint32_t* count,
                                        const volatile int* stop, uint32_t* parent) {
  if (cancelled(stop)) return;
  const uint32_t m = *count;
  const uint64_t stride = static_cast<uint64_t>(gridDim.x) * blockDim.x;
  for (uint64_t w = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; w < m;
       w += stride) {
    const uint32_t c = list[w];
    Box bc = g.box[c];
    uint32_t root = kNone;
    CellRange r = g.rows[static_cast<uint64_t>(c) * 5 + blockIdx.y];
    for (uint32_t d = r.lo; d < r.hi; ++d) {
      if (d == c || cls[d] != kSmall) continue;
      const bool d_new = step.changed[d] != 0;
      if (d_new && d < c) continue;  // d's thread
      join_small_cells(g, core, cell_min_core, rep, false, step, c, bc, d, d_new, root, parent);
    }
  }
}

// Whether a core point of tight cell a (points a0..a1) and one of tight
// cell b (b0..b1, box bb) are joined, on one warp, the same answer on
// every lane: a's points that may be (core, reaching bb; in a step new, or
// b holds new ones: b_new) one after the other, the lanes sharing
// b's points (a lane walking all of b alone for its own point left most
// lanes idle where few of a's points reach b).
__device__ bool warp_cells_joined(const GridView& g, const uint8_t* core,
                                  const uint64_t* cell_min_core, bool either_way,
                                  const UnionStepView& step, uint32_t a0, uint32_t a1,
                                  uint32_t b0, uint32_t b1, const Box& bb, bool b_new) {
  constexpr unsigned kAll = 0xffffffffu;
  const unsigned lane = threadIdx.x & 31;
  bool hit = false;
  for (uint32_t base = a0; base < a1 && !hit; base += 32) {
    const uint32_t i = base + lane;
    const uint8_t only = i < a1 ? partners_only(step.changed, core[i] == 2) : 0;
    double2 p{0, 0};
    bool cand = false;
    if (i < a1 && core[i] && (only == 0 || b_new)) {
      p = g.p[i];
      cand = sees_any_in(p.x, p.y, bb, g.eps, g.t) || seen_by_any_in(p.x, p.y, bb, g.eps, g.t);
      hit = cand && sees_all_in(p.x, p.y, bb, g.eps, g.t) &&
            seen_by_all_in(p.x, p.y, bb, g.eps, g.t);
    }
    hit = __any_sync(kAll, hit);
    for (unsigned left = __ballot_sync(kAll, cand); left != 0 && !hit; left &= left - 1) {
      const int src = __ffs(left) - 1;
      const double px = __shfl_sync(kAll, p.x, src), py = __shfl_sync(kAll, p.y, src);
      const uint8_t only_i = static_cast<uint8_t>(__shfl_sync(kAll, only, src));
      for (uint32_t jb = b0; jb < b1 && !hit; jb += 32) {
        const uint32_t j = jb + lane;
        const bool h = j < b1 && core_counts_as(core[j], only_i) &&
                       joined(g, core, cell_min_core, either_way, step.claimer_used, base + src,
                              px, py, j);
        hit = __any_sync(kAll, h);
      }
    }
  }
  return hit;
}

// Lane k's cell of c's neighbourhood, the cells of its five rows counted
// from first (kNone past the last one): at most 25 cells, so one pass of
// the warp's lanes for first = 0 (the loop over first is for safety).
__device__ __forceinline__ uint32_t neighbour_of_lane(const GridView& g, uint32_t c,
                                                      uint32_t first, uint32_t* total) {
  constexpr unsigned kAll = 0xffffffffu;
  const unsigned lane = threadIdx.x & 31;
  CellRange r{0, 0};
  if (lane < 5) r = g.rows[static_cast<uint64_t>(c) * 5 + lane];
  uint32_t seen = 0, d = kNone;
  for (int a = 0; a < 5; ++a) {
    const uint32_t lo = __shfl_sync(kAll, r.lo, a), hi = __shfl_sync(kAll, r.hi, a);
    const uint32_t k = first + lane;
    if (k >= seen && k < seen + (hi - lo)) d = lo + (k - seen);
    seen += hi - lo;
  }
  *total = seen;
  return d;
}

// One warp per large tight cell c (list: their numbers, count of them): its
// set against those of the small tight cells around it and of the large
// tight cells of larger number (warp_cells_joined).  The lanes screen the
// neighbour cells side by side (class, step, reach, roots: one lane
// walking them one after the other left the warp waiting on 25 chains of
// loads), then the warp tests the cells left one at a time.  (Huge ones:
// from their points, union_kernel.)
__global__ void large_pairs_kernel(GridView g, const uint8_t* __restrict__ core,
                                   const uint64_t* __restrict__ cell_min_core,
                                   const uint8_t* __restrict__ cls,
                                   const uint32_t* __restrict__ rep,
                                   const uint32_t* __restrict__ list, const uint32_t* count,
                                   bool either_way, UnionStepView step, const volatile int* stop,
                                   uint32_t* parent) {
  constexpr unsigned kAll = 0xffffffffu;
  unsigned lane = threadIdx.x & 31;
  uint64_t warp = (static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
  uint64_t warps = (static_cast<uint64_t>(gridDim.x) * blockDim.x) >> 5;
  uint32_t m = *count;
  for (uint64_t w = warp; w < m; w += warps) {
    // One read for the whole warp: its lanes must leave together.
    if (__shfl_sync(kAll, lane == 0 ? *stop : 0, 0) != 0) return;
    uint32_t c = list[w];
    const bool c_new = step.changed != nullptr && step.changed[c];
    uint32_t i0 = g.start[c], i1 = g.start[c + 1];
    Box bc = g.box[c];
    uint32_t root = __shfl_sync(kAll, lane == 0 ? uf_find(parent, rep[c]) : 0, 0);
    uint32_t total = 0;
    for (uint32_t first = 0; first == 0 || first < total; first += 32) {
      const uint32_t d = neighbour_of_lane(g, c, first, &total);
      bool d_new = false, todo = false;
      uint32_t rd = 0;
      if (d != kNone && d != c) {
        const uint8_t k = cls[d];
        d_new = step.changed != nullptr && step.changed[d];
        todo = k != kLoose && k != kHuge && !(k == kLarge && d < c) &&
               !step_skips(step.changed, c_new, d_new) && boxes_within_reach(bc, g.box[d], g.t);
        if (todo) {
          rd = uf_find(parent, rep[d]);
          todo = rd != root;  // sets only grow: one root then, one for good
        }
      }
      for (unsigned left = __ballot_sync(kAll, todo); left != 0; left &= left - 1) {
        const int src = __ffs(left) - 1;
        const uint32_t dd = __shfl_sync(kAll, d, src);
        const bool dd_new = __shfl_sync(kAll, d_new ? 1 : 0, src) != 0;
        uint32_t rdd = __shfl_sync(kAll, rd, src);
        if (lane == 0) {
          rdd = uf_find(parent, rdd);
          root = uf_find(parent, root);
        }
        if (__shfl_sync(kAll, rdd == root ? 1 : 0, 0)) continue;
        // From the side with fewer points to try: in a step, a side
        // without new core points offers none (its pairs with the other's
        // old ones were decided at the previous value).
        const uint32_t j0 = g.start[dd], j1 = g.start[dd + 1];
        const bool from_d =
            step.changed != nullptr && c_new != dd_new ? dd_new : j1 - j0 < i1 - i0;
        const bool hit =
            from_d ? warp_cells_joined(g, core, cell_min_core, either_way, step, j0, j1, i0, i1,
                                       bc, c_new)
                   : warp_cells_joined(g, core, cell_min_core, either_way, step, i0, i1, j0, j1,
                                       g.box[dd], dd_new);
        if (hit && lane == 0) root = uf_unite(parent, root, rdd);
        root = __shfl_sync(kAll, root, 0);
      }
    }
  }
}

__global__ void union_kernel(GridView g, const uint8_t* __restrict__ core,
                             const uint64_t* __restrict__ cell_min_core,
                             const uint8_t* __restrict__ trusted,
                             const uint8_t* __restrict__ cls, const uint32_t* __restrict__ rep,
                             bool either_way, UnionStepView step, Batch batch,
                             const volatile int* stop, uint32_t* parent) {
  if (cancelled(stop)) return;
  uint32_t i;
  if (!batch_point(batch, g.n, &i)) return;
  if (!core[i]) return;
  if (trusted != nullptr && !trusted[i]) return;
  uint32_t c = g.cell_of[i];
  uint8_t own = cls[c];
  if (own == kSmall || own == kLarge) return;  // the pair kernels
  const bool i_new = core[i] == 2;
  double px = g.p[i].x, py = g.p[i].y;
  uint32_t root = uf_find(parent, i);
  for (int a = 0; a < 5; ++a) {
    CellRange r = g.rows[static_cast<uint64_t>(c) * 5 + a];
    for (uint32_t d = r.lo; d < r.hi; ++d) {
      if (d == c && own != kLoose) continue;
      if (step_skips(step.changed, i_new, step.changed != nullptr && step.changed[d])) continue;
      Box b = g.box[d];
      if (!sees_any_in(px, py, b, g.eps, g.t) && !seen_by_any_in(px, py, b, g.eps, g.t))
        continue;
      if (cls[d] != kLoose) {
        uint32_t rd = uf_find(parent, rep[d]);
        root = uf_find(parent, root);
        if (rd == root) continue;
        if (joins_cell(g, core, cell_min_core, trusted, either_way, step.claimer_used, i, px, py,
                       d, b, partners_only(step.changed, i_new)))
          root = uf_unite(parent, root, rd);
        continue;
      }
      uint32_t j0 = g.start[d], j1 = g.start[d + 1];
      for (uint32_t j = (j0 > i ? j0 : i + 1); j < j1; ++j) {
        if (!core[j]) continue;
        if (trusted != nullptr && !trusted[j]) continue;
        if (step_skips(step.changed, i_new, core[j] == 2)) continue;
        if (static_cast<const volatile uint32_t*>(parent)[j] == root) continue;
        if (joined(g, core, cell_min_core, either_way, step.claimer_used, i, px, py, j))
          root = uf_unite(parent, root, j);
      }
    }
  }
}

}  // namespace

void union_core_pairs(RunContext& ctx, const GridView& g, const uint8_t* core,
                      const uint64_t* cell_min_core, const uint8_t* trusted, int64_t minpoints,
                      uint32_t nbatches, uint32_t* parent, const UnionStep& step) {
  cudaStream_t s = ctx.stream();
  bool either_way = minpoints <= 1;
  bool strip = trusted != nullptr;
  if (step.from_previous && (either_way || strip))
    throw Error(GD_ERR_INTERNAL, "a sweep step needs minpoints > 1 and no strip");
  auto cls = ctx.alloc<uint8_t>(g.ncells, "cell classes");
  auto rep = ctx.alloc<uint32_t>(g.ncells, "cell representatives");
  // The large tight cells' numbers, in any order, and their count.
  auto large = ctx.alloc<uint32_t>(strip ? 1 : static_cast<size_t>(g.ncells) + 1, "large tight cells");
  uint32_t* large_count = large.data() + (strip ? 0 : g.ncells);
  CUDA_TRY(cudaMemsetAsync(large_count, 0, sizeof(uint32_t), s));
  classes_kernel<<<grid_for(g.ncells), kBlock, 0, s>>>(g, core, strip, cls.data(), rep.data(),
                                                       large.data(), large_count);
  GD_CHECK_LAUNCH("classes_kernel");
  device_buffer<uint8_t> changed;
  // A step's small tight cells with new core points, in any order, and their count.
  device_buffer<uint32_t> small;
  uint32_t* small_count = nullptr;
  if (step.from_previous) {
    changed = ctx.alloc<uint8_t>(g.ncells, "cells with new core points");
    CUDA_TRY(cudaMemsetAsync(changed.data(), 0, g.ncells, s));
    small = ctx.alloc<uint32_t>(static_cast<size_t>(g.ncells) + 1, "changed small tight cells");
    small_count = small.data() + g.ncells;
    CUDA_TRY(cudaMemsetAsync(small_count, 0, sizeof(uint32_t), s));
    step_parents_kernel<<<grid_for(g.n), kBlock, 0, s>>>(g, core, cls.data(), rep.data(),
                                                         changed.data(), parent);
    GD_CHECK_LAUNCH("step_parents_kernel");
    step_tight_kernel<<<grid_for(g.ncells), kBlock, 0, s>>>(
        g, core, cls.data(), rep.data(), changed.data(), parent, small.data(), small_count);
    GD_CHECK_LAUNCH("step_tight_kernel");
  } else {
    init_parents_kernel<<<grid_for(g.n), kBlock, 0, s>>>(g, core, cls.data(), rep.data(), parent);
    GD_CHECK_LAUNCH("init_parents_kernel");
  }
  const UnionStepView view{changed.data(), step.claimer_used};
  trace_point(s, "union: classes, init parents");
  if (!strip) {
    if (step.from_previous) {
      // The count stays on the device: threads for up to a quarter of the cells, each
      // taking listed cells in turn.
      const uint64_t threads = std::max<uint64_t>(g.ncells / 4, 1);
      small_pairs_step_kernel<<<dim3(grid_for(threads), 5), kBlock, 0, s>>>(
          g, core, cell_min_core, cls.data(), rep.data(), view, small.data(), small_count,
          ctx.cancel_flag_device(), parent);
      GD_CHECK_LAUNCH("small_pairs_step_kernel");
    } else {
      for (uint32_t b = 0; b < nbatches; ++b) {
        Batch batch{b, nbatches};
        uint64_t threads = batch_threads(batch, g.ncells);
        if (threads == 0) continue;
        small_pairs_kernel<<<dim3(grid_for(threads), 5), kBlock, 0, s>>>(
            g, core, cell_min_core, cls.data(), rep.data(), either_way, view, batch,
            ctx.cancel_flag_device(), parent);
        GD_CHECK_LAUNCH("small_pairs_kernel");
      }
    }
    trace_point(s, "union: small tight cell pairs");
    // Enough warps to fill the device; each takes cells of the list in turn.
    uint64_t warps = std::min<uint64_t>(g.ncells, 1u << 16);
    large_pairs_kernel<<<grid_for(warps * 32), kBlock, 0, s>>>(
        g, core, cell_min_core, cls.data(), rep.data(), large.data(), large_count, either_way,
        view, ctx.cancel_flag_device(), parent);
    GD_CHECK_LAUNCH("large_pairs_kernel");
    trace_point(s, "union: large tight cell pairs");
  }
  for (uint32_t b = 0; b < nbatches; ++b) {
    Batch batch{b, nbatches};
    uint64_t threads = batch_threads(batch, g.n);
    if (threads == 0) continue;
    union_kernel<<<grid_for(threads), kBlock, 0, s>>>(g, core, cell_min_core, trusted, cls.data(),
                                                      rep.data(), either_way, view, batch,
                                                      ctx.cancel_flag_device(), parent);
    GD_CHECK_LAUNCH("union_kernel");
  }
}

}  // namespace cuda
}  // namespace gd
