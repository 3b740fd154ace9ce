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
// Dense cells (every point sees every other: every pair joined) are joined at
// initialisation: every point of a dense cell points at the cell's first
// point, no distance test.  Then each core point p walks its 25 neighbour
// cells:
//   - its own cell when dense: already joined, skipped;
//   - a cell that no point of which p sees and that sees p from none of its
//     points: skipped (exact, see grid.cuh);
//   - a dense cell: if its first point is already in p's set, skipped; if p
//     and each of its points see each other, joined at once; else its points
//     are tested up to the first joined pair (one joins the whole cell);
//   - any other cell: only points after p in the sorted order (so each such
//     pair is visited once), core, not already pointing at p's root, and
//     joined by the rule above are united.
// Every joined pair is thereby united, directly or through a dense cell's
// set: if neither cell is dense the pair is visited from its smaller sorted
// index, and if one is dense it is visited from the other side.
//
// A strip run (strips.cu) passes trusted[]: then only pairs of two trusted
// points are tested, since only their core flags and claimers are known
// exactly in the strip (a dense cell's own set, and a cell every point of
// which sees and is seen by p, are joined whatever: no claimer is needed
// there, and dense-cell points are core in any subset that holds the cell).
#include "claimers.cuh"
#include "grid.cuh"
#include "union_find.cuh"

namespace gd {
namespace cuda {

namespace {

__global__ void init_parents_kernel(GridView g, uint32_t* __restrict__ parent) {
  uint64_t i = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= g.n) return;
  uint32_t c = g.cell_of[i];
  parent[i] = g.dense[c] ? g.start[c] : static_cast<uint32_t>(i);
}

// Core points i and j (sorted indexes) are joined (see the top of the file).
__device__ __forceinline__ bool joined(const GridView& g, const uint8_t* core,
                                       const uint64_t* cell_min_core, bool either_way,
                                       uint32_t i, double px, double py, uint32_t j) {
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
  const uint32_t oi = g.idx[i], oj = g.idx[j];
  uint64_t claimer = first_claimer(g, core, cell_min_core, i_later ? i : j);
  return claimer != kNoCore && static_cast<uint32_t>(claimer >> 32) == (i_later ? oj : oi);
}

__global__ void union_kernel(GridView g, const uint8_t* __restrict__ core,
                             const uint64_t* __restrict__ cell_min_core,
                             const uint8_t* __restrict__ trusted, bool either_way, Batch batch,
                             const volatile int* stop, uint32_t* parent) {
  if (cancelled(stop)) return;
  uint32_t i;
  if (!batch_point(batch, g.n, &i)) return;
  if (!core[i]) return;
  if (trusted != nullptr && !trusted[i]) return;
  uint32_t c = g.cell_of[i];
  bool own_dense = g.dense[c] != 0;
  double px = g.p[i].x, py = g.p[i].y;
  uint32_t root = uf_find(parent, i);
  for (int a = 0; a < 5; ++a) {
    CellRange r = g.rows[static_cast<uint64_t>(c) * 5 + a];
    for (uint32_t d = r.lo; d < r.hi; ++d) {
      if (d == c && own_dense) continue;
      Box b = g.box[d];
      if (!sees_any_in(px, py, b, g.eps, g.t) && !seen_by_any_in(px, py, b, g.eps, g.t))
        continue;
      uint32_t j0 = g.start[d], j1 = g.start[d + 1];
      if (g.dense[d]) {
        uint32_t rd = uf_find(parent, j0);
        root = uf_find(parent, root);
        if (rd == root) continue;
        if (sees_all_in(px, py, b, g.eps, g.t) && seen_by_all_in(px, py, b, g.eps, g.t)) {
          root = uf_unite(parent, root, rd);
          continue;
        }
        for (uint32_t j = j0; j < j1; ++j) {
          if (trusted != nullptr && !trusted[j]) continue;
          if (joined(g, core, cell_min_core, either_way, i, px, py, j)) {
            root = uf_unite(parent, root, rd);
            break;
          }
        }
        continue;
      }
      for (uint32_t j = (j0 > i ? j0 : i + 1); j < j1; ++j) {
        if (!core[j]) continue;
        if (trusted != nullptr && !trusted[j]) continue;
        if (static_cast<const volatile uint32_t*>(parent)[j] == root) continue;
        if (joined(g, core, cell_min_core, either_way, i, px, py, j))
          root = uf_unite(parent, root, j);
      }
    }
  }
}

}  // namespace

void init_parents(RunContext& ctx, const GridView& g, uint32_t* parent) {
  init_parents_kernel<<<grid_for(g.n), kBlock, 0, ctx.stream()>>>(g, parent);
  GD_CHECK_LAUNCH("init_parents_kernel");
}

void union_core_pairs(RunContext& ctx, const GridView& g, const uint8_t* core,
                      const uint64_t* cell_min_core, const uint8_t* trusted, int64_t minpoints,
                      uint32_t nbatches, uint32_t* parent) {
  bool either_way = minpoints <= 1;
  for (uint32_t b = 0; b < nbatches; ++b) {
    Batch batch{b, nbatches};
    uint64_t threads = batch_threads(batch, g.n);
    if (threads == 0) continue;
    union_kernel<<<grid_for(threads), kBlock, 0, ctx.stream()>>>(
        g, core, cell_min_core, trusted, either_way, batch, ctx.cancel_flag_device(), parent);
    GD_CHECK_LAUNCH("union_kernel");
  }
}

}  // namespace cuda
}  // namespace gd
