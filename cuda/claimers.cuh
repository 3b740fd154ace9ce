// claimers.cuh — a point's first claimer: the core point with the smallest
// ORIGINAL index (row order) that sees it.  PostGIS visits rows in order and
// the first core point whose search finds x claims x for its cluster, never
// to be taken over; for a core point the claimer may be the point itself.
// Border points take their claimer's cluster (labels.cu); the union stage
// asks for a core point's claimer only when a pair is seen from one side
// alone (union_find.cu).
//
// The scan covers x's 25 neighbour cells.  Each cell offers its smallest core
// first (cell_min_core, reduced once per run), so a cell whose smallest core
// is no better than the best so far is skipped, as is one of which no point
// sees x; a cell whose every point sees x gives its smallest core without a
// distance test.
#pragma once

#include <cstdint>

#include "grid.cuh"

namespace gd {
namespace cuda {

constexpr uint64_t kNoCore = UINT64_MAX;

// (original index << 32 | sorted index) of a core point; the minimum over a
// set of cores names the one with the smallest original index.
__device__ __forceinline__ uint64_t core_key(const GridView& g, uint32_t j) {
  return (static_cast<uint64_t>(g.idx[j]) << 32) | j;
}

// Whether core flag f counts: any core (only == 0), or only the mark `only`
// (2: core new at a sweep step, sweep.cu's core_marks).
__device__ __forceinline__ bool core_counts_as(uint8_t f, uint8_t only) {
  return only != 0 ? f == only : f != 0;
}

// core_key of x's first claimer (sorted index x), or kNoCore.  With only =
// 2 and best = the claimer at the sweep's previous value (cell_min_core:
// each cell's smallest new core, smallest_cores(..., 2)): the claimer at
// this value, since the cores are those of the previous value and the new
// ones.
__device__ __forceinline__ uint64_t first_claimer(const GridView& g, const uint8_t* core,
                                                  const uint64_t* cell_min_core, uint32_t x,
                                                  uint8_t only = 0, uint64_t best = kNoCore) {
  uint32_t c = g.cell_of[x];
  double px = g.p[x].x, py = g.p[x].y;
  for (int a = 0; a < 5; ++a) {
    CellRange r = g.rows[static_cast<uint64_t>(c) * 5 + a];
    for (uint32_t d = r.lo; d < r.hi; ++d) {
      uint64_t cand = cell_min_core[d];
      if (cand >= best) continue;  // no core here, or none better than best
      Box b = g.box[d];
      if (!seen_by_any_in(px, py, b, g.eps, g.t)) continue;
      if (seen_by_all_in(px, py, b, g.eps, g.t)) {
        best = cand;
        continue;
      }
      uint32_t j0 = g.start[d], j1 = g.start[d + 1];
      for (uint32_t j = j0; j < j1; ++j) {
        if (!core_counts_as(core[j], only)) continue;
        uint64_t k = core_key(g, j);
        if (k >= best) continue;
        double2 q = g.p[j];
        if (sees(q.x, q.y, px, py, g.eps, g.t)) best = k;
      }
    }
  }
  return best;
}

}  // namespace cuda
}  // namespace gd
