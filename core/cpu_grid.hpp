// cpu_grid.hpp — the uniform grid of the CPU back end: points sorted by cell.
//
// Cells are squares of side s slightly larger than eps/sqrt(2), anchored at
// the points' minimum corner, so every pair of neighbours lies within 2 cells
// of each other on both axes (the 5x5 window) despite rounding, and every
// pair of points in one cell is usually a pair of neighbours.  Cell
// coordinates are integers, never proportional to the bounding box, so huge
// extents with tiny eps stay exact.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "backend.hpp"
#include "big_alloc.hpp"
#include "memory_ledger.hpp"
#include "parallel.hpp"

namespace gd {

struct Cell {
  int64_t ix, iy;
};

inline bool operator<(const Cell& a, const Cell& b) {
  return a.ix < b.ix || (a.ix == b.ix && a.iy < b.iy);
}
inline bool operator<=(const Cell& a, const Cell& b) { return !(b < a); }

// How coordinates map to cells.
struct GridGeometry {
  double x0 = 0, y0 = 0;  // the points' minimum corner
  double side = 1;        // cell side
  bool single = false;    // every point in cell (0, 0): eps or the extent is infinite
  // The four corner cells of a 5x5 window, (+-2, +-2), hold no neighbour
  // (choose_geometry, cpu_grid.cpp): the windows leave them out.
  bool no_corners = false;

  Cell cell_of(double x, double y) const {
    if (single) return Cell{0, 0};
    // x - x0 >= 0, so truncation is floor; the quotient is at most ~1e15.
    return Cell{static_cast<int64_t>((x - x0) / side), static_cast<int64_t>((y - y0) / side)};
  }
};

// A bound on |dx| and |dy| of every pair of neighbours, either way: eps, but
// never below 2^-500 so that the cell side is positive and the cell
// coordinates stay finite when eps is 0 or tiny.  within(p, q) bounds
// |fl(dx)| by eps through its distance test, or |dx| by 2^-500 where dx*dx
// underflows (rules/neighbour.hpp), so |dx| <= reach * (1 + 2^-52).
double neighbour_reach(double eps);

// Points sorted by cell (row order within a cell), with the non-empty cells.
struct Grid {
  MemoryCharge charge;  // the vectors below and the sort's scratch (memory_ledger.hpp)
  GridGeometry geometry;
  // big_alloc.hpp: resize() leaves the new elements unset
  BigVector<uint32_t> perm;   // sorted position -> point index
  BigVector<double> xs, ys;   // coordinates in sorted order
  BigVector<Cell> cells;      // non-empty cells, ascending
  BigVector<uint32_t> start;  // points of cell c: [start[c], start[c+1])

  // Where the cells fill their key range densely enough (kKeysPerCell), the
  // number of cells whose key ix * ny + iy is below each key 0 .. nx * ny:
  // a window's cell ranges are then read off (cpu_window.hpp), not searched.
  // Empty otherwise.
  // Else, where the columns are at most kKeysPerCell a cell, the first
  // cell of each column 0 .. nx: a window's column is found, then searched
  // among its own cells only.
  static constexpr uint64_t kKeysPerCell = 4;
  BigVector<uint32_t> cells_below;
  BigVector<uint32_t> column_first;
  int64_t nx = 0, ny = 0;  // the key range's columns and rows, with either index

  uint32_t ncells() const { return static_cast<uint32_t>(cells.size()); }
};

// The bounding box of the points of cell c (rules/neighbour.hpp bounds the
// relation over it).
using CellBox = Box2;

inline CellBox cell_box(const Grid& grid, uint32_t c) {
  const double* xs = grid.xs.data();
  const double* ys = grid.ys.data();
  const uint32_t b = grid.start[c], e = grid.start[c + 1];
  CellBox box{xs[b], ys[b], xs[b], ys[b]};
  for (uint32_t i = b + 1; i < e; ++i) {
    box.x0 = std::min(box.x0, xs[i]);
    box.x1 = std::max(box.x1, xs[i]);
    box.y0 = std::min(box.y0, ys[i]);
    box.y1 = std::max(box.y1, ys[i]);
  }
  return box;
}

Grid build_grid(const PointsView& pts, double eps, ThreadTeam& team);

}  // namespace gd
