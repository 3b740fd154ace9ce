// cpu_window.hpp — the points of the 5x5 cells around a cell.
//
// For a cell (ix, iy), the cells (ix + a, iy - 2 .. iy + 2) are contiguous in
// the sorted cell list, so the window is five contiguous ranges of sorted
// points, one per a in -2..2.  A cursor walks the cells of one thread's
// chunks in ascending order: within one column of cells its five bounds only
// move forward, so they are advanced instead of searched again.
#pragma once

#include <algorithm>
#include <cstdint>

#include "cpu_grid.hpp"

namespace gd {

struct PointRange {
  uint32_t begin, end;
};

// Cells [begin, end) of the sorted cell list.
struct CellRange {
  uint32_t begin, end;
};

class WindowCursor {
 public:
  static constexpr int kRows = 5;

  explicit WindowCursor(const Grid& grid) : grid_(grid) {}

  // Fills rows[0..5) with the point ranges of the window around cell c, the
  // cell's own column first (most neighbours are there, which helps the
  // early exits), then the columns next to it, then the outer ones.
  void at(uint32_t c, PointRange rows[kRows]) {
    CellRange cells[kRows];
    cells_at(c, cells);
    for (int a = 0; a < kRows; ++a)
      rows[a] = PointRange{grid_.start[cells[a].begin], grid_.start[cells[a].end]};
  }

  // The same window as cell ranges.
  void cells_at(uint32_t c, CellRange rows[kRows]) {
    const Cell& k = grid_.cells[c];
    const Cell* cells = grid_.cells.data();
    const uint32_t ncells = grid_.ncells();
    bool reseek = !valid_ || c < last_ || k.ix != cells[last_].ix;
    static constexpr int kColumn[kRows] = {0, -1, 1, -2, 2};
    for (int a = 0; a < kRows; ++a) {
      Cell low{k.ix + kColumn[a], k.iy - 2};
      Cell high{k.ix + kColumn[a], k.iy + 2};
      uint32_t lo, hi;
      if (reseek) {
        lo = static_cast<uint32_t>(std::lower_bound(cells, cells + ncells, low) - cells);
        hi = static_cast<uint32_t>(std::upper_bound(cells + lo, cells + ncells, high) - cells);
      } else {
        lo = lo_[a];
        while (lo < ncells && cells[lo] < low) ++lo;
        hi = std::max(hi_[a], lo);
        while (hi < ncells && cells[hi] <= high) ++hi;
      }
      lo_[a] = lo;
      hi_[a] = hi;
      rows[a] = CellRange{lo, hi};
    }
    valid_ = true;
    last_ = c;
  }

 private:
  const Grid& grid_;
  bool valid_ = false;
  uint32_t last_ = 0;
  uint32_t lo_[kRows] = {};
  uint32_t hi_[kRows] = {};
};

}  // namespace gd
