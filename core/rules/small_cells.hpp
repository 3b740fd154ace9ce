// small_cells.hpp — rule 3 between two "small" n-D cells (every pair of a
// cell's points within eps, so its core points are one set): the CPU's
// unite_sets (nd_dbscan.cpp) and the device's tiny_union_kernel
// (cuda/nd_dbscan.cu) ask the same question here.
#pragma once

#include <cstdint>

#include "rules/hd.hpp"
#include "rules/neighbour.hpp"

namespace gd {

// Whether the sets of two small cells are joined: their boxes [alo, ahi],
// [blo, bhi] decide when no pair or every pair is within eps; else the
// first core pair within eps, p over [pa, pe), q over [qb, qe) (their first
// core points onwards), each p beyond reach of b's box skipped.
// is_core(i) and point(i) read the caller's sorted points; tests counts the
// pair tests made (for a caller that polls for cancel by work).
template <int D, class IsCore, class Point>
GD_HD_INLINE bool small_cells_joined(const double* alo, const double* ahi, const double* blo,
                                     const double* bhi, uint32_t pa, uint32_t pe, uint32_t qb,
                                     uint32_t qe, double eps, IsCore is_core, Point point,
                                     uint64_t* tests) {
  if (!boxes_near_d<D>(alo, ahi, blo, bhi, eps)) return false;
  if (boxes_all_d<D>(alo, ahi, blo, bhi, eps)) return true;
  for (uint32_t p = pa; p < pe; ++p) {
    if (!is_core(p)) continue;
    const double* pp = point(p);
    if (!box_near_d<D>(pp, blo, bhi, eps)) continue;
    *tests += qe - qb;
    for (uint32_t q = qb; q < qe; ++q)
      if (is_core(q) && within_eps_d<D>(pp, point(q), eps)) return true;
  }
  return false;
}

}  // namespace gd
