// cpu_window.hpp — the points of the 5x5 cells around a cell (less the four
// corners where GridGeometry::no_corners says they hold no neighbour).
//
// For a cell (ix, iy), the cells (ix + a, iy - 2 .. iy + 2) are contiguous in
// the sorted cell list, so the window is five contiguous ranges of sorted
// points, one per a in -2..2.  The bounds of each range are found by an
// exponential search from a nearby index (the cell itself, or the bound found
// for the previous cell of the same column), so a window costs O(log d) for
// bounds d cells away: O(1) on dense data, and cheap on scattered data where
// the neighbouring columns are far away in the list or absent.
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

// The first i in [0, n] with !before(i), for a predicate that is true and
// then false, searched outwards from hint.
template <class Before>
uint32_t partition_point_near(uint32_t n, uint32_t hint, Before before) {
  uint32_t lo, hi;
  if (hint < n && before(hint)) {
    lo = hint + 1;
    hi = n;
    for (uint64_t step = 1;; step *= 2) {
      uint64_t probe = static_cast<uint64_t>(lo) + step - 1;
      if (probe >= n) break;
      if (!before(static_cast<uint32_t>(probe))) {
        hi = static_cast<uint32_t>(probe);
        break;
      }
      lo = static_cast<uint32_t>(probe) + 1;
    }
  } else {
    hi = std::min(hint, n);
    lo = 0;
    for (uint32_t step = 1;; step *= 2) {
      if (hi < step) break;
      uint32_t probe = hi - step;
      if (before(probe)) {
        lo = probe + 1;
        break;
      }
      hi = probe;
      if (step > (UINT32_MAX >> 1)) break;
    }
  }
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (before(mid))
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

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
    if (!grid_.cells_below.empty()) {
      read_cells_at(c, rows);
      return;
    }
    if (!grid_.column_first.empty()) {
      column_cells_at(c, rows);
      return;
    }
    const Cell* cells = grid_.cells.data();
    const uint32_t ncells = grid_.ncells();
    const Cell& k = cells[c];
    const bool same_column = valid_ && k.ix == last_ix_;
    for (int a = 0; a < kRows; ++a) {
      const Cell low{k.ix + kColumn[a], k.iy - row_reach(a)};
      const Cell high{k.ix + kColumn[a], k.iy + row_reach(a)};
      uint32_t lo = partition_point_near(ncells, same_column ? lo_[a] : c,
                                         [&](uint32_t i) { return cells[i] < low; });
      uint32_t hi = partition_point_near(ncells, same_column ? std::max(hi_[a], lo) : lo,
                                         [&](uint32_t i) { return cells[i] <= high; });
      lo_[a] = lo;
      hi_[a] = hi;
      rows[a] = CellRange{lo, hi};
    }
    valid_ = true;
    last_ix_ = k.ix;
  }

 private:
  static constexpr int kColumn[kRows] = {0, -1, 1, -2, 2};

  // Rows iy - reach .. iy + reach of column a: 1 for the outer columns where
  // the corners hold no neighbour (GridGeometry::no_corners), else 2.
  int64_t row_reach(int a) const { return a >= 3 && grid_.geometry.no_corners ? 1 : 2; }

  // For each column a of the window, rows[a] = range(x, y0, y1): the cells of
  // column x, rows y0 .. y1 (iy -+ row_reach(a)); empty outside the grid's
  // columns 0 .. nx - 1 (the indexed grids know nx).
  template <class Range>
  void indexed_cells_at(uint32_t c, CellRange rows[kRows], Range range) const {
    const Cell& k = grid_.cells[c];
    for (int a = 0; a < kRows; ++a) {
      const int64_t x = k.ix + kColumn[a];
      const int64_t reach = row_reach(a);
      rows[a] = x < 0 || x >= grid_.nx ? CellRange{c, c} : range(x, k.iy - reach, k.iy + reach);
    }
  }

  // cells_at through Grid::cells_below: rows y0 .. y1 of column x are the
  // keys [x * ny + max(y0, 0), x * ny + min(y1, ny - 1)].
  void read_cells_at(uint32_t c, CellRange rows[kRows]) const {
    const uint32_t* below = grid_.cells_below.data();
    const int64_t ny = grid_.ny;
    indexed_cells_at(c, rows, [&](int64_t x, int64_t y0, int64_t y1) {
      return CellRange{below[x * ny + std::max<int64_t>(y0, 0)],
                       below[x * ny + std::min<int64_t>(y1, ny - 1) + 1]};
    });
  }

  // cells_at through Grid::column_first: each column's cells, searched
  // (binary: a column may hold every cell) for rows y0 .. y1.
  void column_cells_at(uint32_t c, CellRange rows[kRows]) const {
    const Cell* cells = grid_.cells.data();
    const uint32_t* first = grid_.column_first.data();
    indexed_cells_at(c, rows, [&](int64_t x, int64_t y0, int64_t y1) {
      const Cell* e = cells + first[x + 1];
      const Cell* lo = std::partition_point(cells + first[x], e,
                                            [&](const Cell& n) { return n.iy < y0; });
      const Cell* hi = std::partition_point(lo, e, [&](const Cell& n) { return n.iy <= y1; });
      return CellRange{static_cast<uint32_t>(lo - cells), static_cast<uint32_t>(hi - cells)};
    });
  }

  const Grid& grid_;
  bool valid_ = false;
  int64_t last_ix_ = 0;
  uint32_t lo_[kRows] = {};
  uint32_t hi_[kRows] = {};
};

}  // namespace gd
