// cpu_grid.cpp — bounding box, cell side, cell keys, sort by cell, cell ranges.
#include "cpu_grid.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "bounds.hpp"
#include "radix_sort.hpp"

namespace gd {

namespace {

using Box = Bounds;

Box bounding_box(const PointsView& pts, ThreadTeam& team) {
  std::vector<Box> part(team.size(), empty_bounds());
  team.for_static(pts.n, [&](int t, size_t begin, size_t end) {
    Box b = empty_bounds();
    for (size_t i = begin; i < end; ++i) extend(b, pts.x[i], pts.y[i]);
    part[t] = b;
  });
  Box all = empty_bounds();
  for (const Box& b : part) all = merge(all, b);
  return all;
}

// The side s of a cell.  A neighbour pair has |fl(dx)| <= r =
// neighbour_reach(eps), so |dx| <= r (1 + 2^-52) and its exact
// cell-coordinate difference is below r / s < sqrt(2).  The computed coordinate fl(fl(x - x0) / s) is off by at
// most 2.3e-16 * R / s <= 0.23 for R = the largest |coordinate - minimum|,
// since s >= 1e-15 R; two of them differ by less than sqrt(2) + 0.46 < 2, so
// their floors differ by at most 2: the 5x5 window is complete.
GridGeometry choose_geometry(const Box& box, double eps) {
  GridGeometry g;
  g.x0 = box.xmin;
  g.y0 = box.ymin;
  double extent = std::max(box.xmax - box.xmin, box.ymax - box.ymin);
  double side = neighbour_reach(eps) * M_SQRT1_2 * (1 + 1e-9) + 1e-15 * extent;
  if (!std::isfinite(side)) {
    g.single = true;
    g.side = 1;
  } else {
    g.side = side;
    // Corners: p and q two cells apart on both axes are, exactly, at least
    // s (1 - 2e) apart on each, e the error of a computed coordinate in
    // cells (2.3e-16 R / s, at most 2.4e-10 when R / s <= 2^20), so
    // |pq|^2 >= 2 s^2 (1 - 2e)^2 > r^2 (1 + 1e-9): the computed distance,
    // within a few ulps of |pq| (no square underflows: |dx| >= s / 2 >
    // 2^-502), exceeds r >= eps, and within() fails both ways.
    g.no_corners = extent <= std::ldexp(side, 20);
  }
  return g;
}

// Cells from keys sorted ascending: a cell starts where the key changes.
template <class KeyAt, class CellAt>
void cell_ranges(size_t n, KeyAt key_at, CellAt cell_at, Grid& grid, ThreadTeam& team) {
  std::vector<uint32_t> first(team.size() + 1, 0);
  team.for_static(n, [&](int t, size_t begin, size_t end) {
    uint32_t k = 0;
    for (size_t i = begin; i < end; ++i) k += (i == 0 || key_at(i) != key_at(i - 1));
    first[t + 1] = k;
  });
  for (int t = 0; t < team.size(); ++t) first[t + 1] += first[t];
  uint32_t ncells = first[team.size()];
  grid.cells.resize(ncells);
  grid.start.resize(static_cast<size_t>(ncells) + 1);
  grid.start[ncells] = static_cast<uint32_t>(n);
  team.for_static(n, [&](int t, size_t begin, size_t end) {
    uint32_t c = first[t];
    for (size_t i = begin; i < end; ++i) {
      if (i == 0 || key_at(i) != key_at(i - 1)) {
        grid.cells[c] = cell_at(i);
        grid.start[c] = static_cast<uint32_t>(i);
        ++c;
      }
    }
  });
}

// Grid::column_first (index_cells): column x's cells are
// [column_first[x], column_first[x + 1]).
void index_columns(Grid& grid, uint64_t nx, ThreadTeam& team) {
  const uint32_t ncells = grid.ncells();
  grid.charge.add(static_cast<int64_t>((nx + 1) * sizeof(uint32_t)), "the grid");
  grid.column_first.resize(nx + 1);
  grid.nx = static_cast<int64_t>(nx);
  const Cell* cells = grid.cells.data();
  uint32_t* first = grid.column_first.data();
  team.for_static(ncells, [&](int, size_t begin, size_t end) {
    for (size_t c = begin; c < end; ++c) {
      const uint64_t from = c == 0 ? 0 : static_cast<uint64_t>(cells[c - 1].ix) + 1;
      std::fill(first + from, first + cells[c].ix + 1, static_cast<uint32_t>(c));
    }
  });
  std::fill(first + cells[ncells - 1].ix + 1, first + nx + 1, ncells);
}

// Grid::cells_below, when the key range 0 .. nx * ny is at most
// kKeysPerCell keys a cell (4 bytes a key: at most 16 a cell); else
// Grid::column_first, when the columns are at most kKeysPerCell a cell.
void index_cells(Grid& grid, uint64_t ny, ThreadTeam& team) {
  const uint32_t ncells = grid.ncells();
  if (ncells == 0 || ny == 0) return;
  const Cell last = grid.cells[ncells - 1];
  const uint64_t nx = static_cast<uint64_t>(last.ix) + 1;
  if (nx > Grid::kKeysPerCell * ncells) return;
  if (nx > Grid::kKeysPerCell * ncells / ny) {
    index_columns(grid, nx, team);
    return;
  }
  const uint64_t nkeys = nx * ny;
  grid.charge.add(static_cast<int64_t>((nkeys + 1) * sizeof(uint32_t)), "the grid");
  grid.cells_below.resize(nkeys + 1);
  grid.nx = static_cast<int64_t>(nx);
  grid.ny = static_cast<int64_t>(ny);
  const Cell* cells = grid.cells.data();
  uint32_t* below = grid.cells_below.data();
  auto key = [&](uint32_t c) {
    return static_cast<uint64_t>(cells[c].ix) * ny + static_cast<uint64_t>(cells[c].iy);
  };
  // Keys (key(c - 1), key(c)] have c cells below them; those after the last, ncells.
  team.for_static(ncells, [&](int, size_t begin, size_t end) {
    for (size_t c = begin; c < end; ++c) {
      const uint64_t from = c == 0 ? 0 : key(static_cast<uint32_t>(c - 1)) + 1;
      std::fill(below + from, below + key(static_cast<uint32_t>(c)) + 1, static_cast<uint32_t>(c));
    }
  });
  std::fill(below + key(ncells - 1) + 1, below + nkeys + 1, ncells);
}

// Keys ix * ny + iy fit in 64 bits: radix sort them.
void sort_by_composite_key(const PointsView& pts, uint64_t ny, int bits, Grid& grid,
                           ThreadTeam& team) {
  BigVector<uint64_t> keys(pts.n);
  BigVector<uint32_t> idx(pts.n);
  const GridGeometry& g = grid.geometry;
  team.for_static(pts.n, [&](int, size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i) {
      Cell c = g.cell_of(pts.x[i], pts.y[i]);
      keys[i] = static_cast<uint64_t>(c.ix) * ny + static_cast<uint64_t>(c.iy);
      idx[i] = static_cast<uint32_t>(i);
    }
  });
  radix_sort(keys, idx, bits, team);
  const uint64_t* k = keys.data();
  cell_ranges(
      pts.n, [k](size_t i) { return k[i]; },
      [k, ny](size_t i) {
        return Cell{static_cast<int64_t>(k[i] / ny), static_cast<int64_t>(k[i] % ny)};
      },
      grid, team);
  grid.perm = std::move(idx);
  index_cells(grid, ny, team);
}

// Too many cells for a 64-bit key: sort (ix, iy, index) triples.
void sort_by_cell_pairs(const PointsView& pts, Grid& grid, ThreadTeam& team) {
  struct Item {
    Cell cell;
    uint32_t index;
    bool operator<(const Item& o) const {
      return cell < o.cell || (!(o.cell < cell) && index < o.index);
    }
  };
  BigVector<Item> items(pts.n);
  const GridGeometry& g = grid.geometry;
  team.for_static(pts.n, [&](int t, size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i)
      items[i] = Item{g.cell_of(pts.x[i], pts.y[i]), static_cast<uint32_t>(i)};
    std::sort(items.begin() + begin, items.begin() + end);
  });
  // Merge the sorted blocks pairwise.
  for (int width = 1; width < team.size(); width *= 2) {
    for (int t = 0; t + width < team.size(); t += 2 * width) {
      team.cancel().throw_if_requested();
      size_t lo = team.block_begin(pts.n, t);
      size_t mid = team.block_begin(pts.n, t + width);
      size_t hi = team.block_begin(pts.n, std::min(team.size(), t + 2 * width));
      std::inplace_merge(items.begin() + lo, items.begin() + mid, items.begin() + hi);
    }
  }
  struct CellKey {
    Cell c;
    bool operator!=(const CellKey& o) const { return c.ix != o.c.ix || c.iy != o.c.iy; }
  };
  const Item* it = items.data();
  cell_ranges(
      pts.n, [it](size_t i) { return CellKey{it[i].cell}; },
      [it](size_t i) { return it[i].cell; }, grid, team);
  grid.perm.resize(pts.n);
  team.for_static(pts.n, [&](int, size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i) grid.perm[i] = items[i].index;
  });
}

}  // namespace

double neighbour_reach(double eps) { return std::max(eps, std::ldexp(1.0, -500)); }

Grid build_grid(const PointsView& pts, double eps, ThreadTeam& team) {
  Grid grid;
  if (pts.n == 0) {
    grid.start.assign(1, 0);
    return grid;
  }
  // perm, xs, ys, cells, start, and the sort's keys and scratch
  grid.charge = MemoryCharge(static_cast<int64_t>(pts.n) * 64, "the grid");
  Box box = bounding_box(pts, team);
  grid.geometry = choose_geometry(box, eps);
  Cell last = grid.geometry.cell_of(box.xmax, box.ymax);
  unsigned __int128 nx = static_cast<unsigned __int128>(last.ix) + 1;
  unsigned __int128 ny = static_cast<unsigned __int128>(last.iy) + 1;
  unsigned __int128 ncells = nx * ny;  // nx, ny <= ~2^51: no overflow in 128 bits
  if (ncells <= (static_cast<unsigned __int128>(1) << 64)) {
    uint64_t max_key = static_cast<uint64_t>(ncells - 1);
    int bits = max_key == 0 ? 0 : 64 - __builtin_clzll(max_key);
    sort_by_composite_key(pts, static_cast<uint64_t>(ny), bits, grid, team);
  } else {
    sort_by_cell_pairs(pts, grid, team);
  }

  grid.xs.resize(pts.n);
  grid.ys.resize(pts.n);
  team.for_static(pts.n, [&](int, size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i) {
      grid.xs[i] = pts.x[grid.perm[i]];
      grid.ys[i] = pts.y[grid.perm[i]];
    }
  });
  return grid;
}

}  // namespace gd
