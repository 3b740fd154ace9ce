// nd_cells.hpp — how n-D points map to grid cells, one rule for the CPU
// (nd_grid.cpp) and the device (cuda/nd_dbscan.cu): the cells, their order,
// the cell side and its rounding proof, and when fine cells pay.
#pragma once

#include <cmath>
#include <cstdint>

#include "rules/hd.hpp"

namespace gd {

// A grid cell: its integer coordinates on the grid axes (the first
// min(dims, 3) axes; unused ones are 0), ordered lexicographically.
struct NdCell {
  int64_t c[3];
};

GD_HD_INLINE bool operator<(const NdCell& a, const NdCell& b) {
  if (a.c[0] != b.c[0]) return a.c[0] < b.c[0];
  if (a.c[1] != b.c[1]) return a.c[1] < b.c[1];
  return a.c[2] < b.c[2];
}
GD_HD_INLINE bool operator<=(const NdCell& a, const NdCell& b) { return !(b < a); }
GD_HD_INLINE bool operator==(const NdCell& a, const NdCell& b) {
  return a.c[0] == b.c[0] && a.c[1] == b.c[1] && a.c[2] == b.c[2];
}

// The points' box on the grid axes.
struct AxisBox {
  double lo[3] = {INFINITY, INFINITY, INFINITY};
  double hi[3] = {-INFINITY, -INFINITY, -INFINITY};
};

// How coordinates map to cells.  The side s is reach f plus 1e-12 of the
// extent E: coarse cells (window radius 1) have f = 1.001; fine cells
// (radius 2) f = 0.999 / sqrt(axes), so that a full cell's diagonal is
// below eps and a dense cell is "small" (its points pairwise neighbours).
// A neighbour pair has |fl(d)| <= eps <= reach on each axis, so its exact
// difference over s is below 1 / 1.001 (1 + 2^-52) cells, or sqrt(3) /
// 0.999 (1 + 2^-52) < 1.7338 cells; each computed cell coordinate
// fl(fl(x - x0) / s) is off by at most 2.3e-16 E / s <= 2.3e-4.  Two of them
// differ by less than 0.9995, or 1.7343, so their floors differ by at most
// the radius.  A coordinate is at most E / s <= 1e12 (x - x0 >= 0:
// truncation is floor).
struct CellMap {
  int axes = 0;
  double origin[3] = {0, 0, 0};
  double side = 1;
  bool single = false;  // every point in cell 0: eps or the extent is infinite

  GD_HD_INLINE NdCell cell_of(const double* p) const {
    NdCell k{{0, 0, 0}};
    if (single) return k;
    for (int a = 0; a < axes; ++a) k.c[a] = static_cast<int64_t>((p[a] - origin[a]) / side);
    return k;
  }
};

// Cells per grid axis of m for points in box (1 on unused axes), and their
// product: the cells fit one 64-bit key, their lexicographic rank
// (c0 * count1 + c1) * count2 + c2, when it is at most 2^64.
struct CellCounts {
  uint64_t count[3] = {1, 1, 1};
  unsigned __int128 total = 1;  // each count <= ~1e12: no overflow in 128 bits
  bool one_key() const { return total <= (static_cast<unsigned __int128>(1) << 64); }
};

inline CellCounts cell_counts(const CellMap& m, const AxisBox& box) {
  CellCounts k;
  const NdCell last = m.cell_of(box.hi);
  for (int a = 0; a < 3; ++a) {
    k.count[a] = static_cast<uint64_t>(last.c[a]) + 1;
    k.total *= k.count[a];
  }
  return k;
}

// The map for points in box with the given neighbour reach (nd_grid.cpp).
CellMap choose_cells(const AxisBox& box, int axes, bool fine, double reach);

// Fine cells (at most three dimensions) when the points average at least
// this many per coarse cell (measured on uniform and clustered 3D sets of
// 1M points).
constexpr double kFineOccupancy = 4;
// The device's threshold: a point of a coarse cell that is not small walks
// its neighbours' points, which costs a warp more than a thread, while fine
// cells are joined pair by pair (H200, 1M and 10M 3-D points: uniform at
// 1.1-1.75 points a coarse cell 1.0 / 12.8 ms coarse against 2.4 / 16.4
// fine; blobs at 2.6, 4.5 ms coarse against 3.4 fine, where the CPU's 2
// threads take 0.50 s coarse against 0.72 fine).
constexpr double kDeviceFineOccupancy = 2;

// Whether n points of dims coordinates that fill coarse_cells coarse cells
// are clustered on fine cells (the CPU's nd_cluster_grid; the device with
// kDeviceFineOccupancy).
inline bool use_fine_cells(int dims, uint64_t n, uint64_t coarse_cells,
                           double occupancy = kFineOccupancy) {
  return dims <= 3 && static_cast<double>(n) >= occupancy * static_cast<double>(coarse_cells);
}

}  // namespace gd
