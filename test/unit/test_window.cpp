// test_window.cpp — the CPU back end's neighbour-window search.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "cpu_window.hpp"

namespace {

TEST(Window, PartitionPointNearMatchesStd) {
  std::mt19937_64 rng(1);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<int> v(rng() % 70);
    for (int& e : v) e = static_cast<int>(rng() % 20);
    std::sort(v.begin(), v.end());
    const uint32_t n = static_cast<uint32_t>(v.size());
    for (int key = -1; key <= 21; ++key) {
      uint32_t want = static_cast<uint32_t>(std::lower_bound(v.begin(), v.end(), key) - v.begin());
      for (uint32_t hint = 0; hint <= n; ++hint) {
        uint32_t got = gd::partition_point_near(n, hint, [&](uint32_t i) { return v[i] < key; });
        ASSERT_EQ(got, want) << "n " << n << " key " << key << " hint " << hint;
      }
    }
  }
}

TEST(Window, CellsOfTheWindow) {
  // Cells on a sparse random pattern: the window of each cell holds exactly
  // the cells within 2 columns and 2 rows.
  std::mt19937_64 rng(2);
  gd::Grid grid;
  for (int64_t ix = 0; ix < 40; ++ix)
    for (int64_t iy = 0; iy < 40; ++iy)
      if (rng() % 3 == 0) grid.cells.push_back({ix * (ix % 7 == 0 ? 3 : 1), iy});
  std::sort(grid.cells.begin(), grid.cells.end());
  grid.cells.erase(std::unique(grid.cells.begin(), grid.cells.end(),
                               [](const gd::Cell& a, const gd::Cell& b) {
                                 return a.ix == b.ix && a.iy == b.iy;
                               }),
                   grid.cells.end());
  for (uint32_t c = 0; c <= grid.ncells(); ++c) grid.start.push_back(c);
  gd::WindowCursor cursor(grid);
  for (uint32_t c = 0; c < grid.ncells(); c += 1 + c % 3) {
    gd::CellRange rows[gd::WindowCursor::kRows];
    cursor.cells_at(c, rows);
    std::vector<uint32_t> got, want;
    for (const auto& r : rows)
      for (uint32_t k = r.begin; k < r.end; ++k) got.push_back(k);
    for (uint32_t k = 0; k < grid.ncells(); ++k)
      if (std::llabs(grid.cells[k].ix - grid.cells[c].ix) <= 2 &&
          std::llabs(grid.cells[k].iy - grid.cells[c].iy) <= 2)
        want.push_back(k);
    std::sort(got.begin(), got.end());
    ASSERT_EQ(got, want) << "cell " << c;
  }
}

}  // namespace

namespace {

// The CPU grid of the points (xs[i], ys[i]), built by threads threads.
gd::Grid grid_of(const std::vector<double>& xs, const std::vector<double>& ys, double eps,
                 int threads) {
  gd_params params;
  gd_params_init(&params);
  gd::CancelToken cancel(params);
  gd::ThreadTeam team(threads, cancel);
  return gd::build_grid(gd::PointsView{xs.data(), ys.data(), static_cast<uint32_t>(xs.size())},
                        eps, team);
}

// The cells of a grid built from points, with and without cells_below.
enum class Index { kKeys, kColumns, kNone };

void expect_read_windows_match_search(std::vector<double> xs, std::vector<double> ys, double eps,
                                      Index want) {
  gd::Grid read = grid_of(xs, ys, eps, 2);
  ASSERT_EQ(!read.cells_below.empty(), want == Index::kKeys);
  ASSERT_EQ(!read.column_first.empty(), want == Index::kColumns);
  gd::Grid searched = grid_of(xs, ys, eps, 2);
  searched.cells_below.clear();
  searched.column_first.clear();
  gd::WindowCursor by_read(read), by_search(searched);
  for (uint32_t c = 0; c < read.ncells(); ++c) {
    gd::CellRange got[gd::WindowCursor::kRows], want[gd::WindowCursor::kRows];
    by_read.cells_at(c, got);
    by_search.cells_at(c, want);
    for (int a = 0; a < gd::WindowCursor::kRows; ++a) {
      // Empty ranges may sit anywhere.
      if (want[a].begin == want[a].end) {
        ASSERT_EQ(got[a].begin, got[a].end) << "cell " << c << " column " << a;
        continue;
      }
      ASSERT_EQ(got[a].begin, want[a].begin) << "cell " << c << " column " << a;
      ASSERT_EQ(got[a].end, want[a].end) << "cell " << c << " column " << a;
    }
  }
}

TEST(Window, ReadWindowsMatchTheSearch) {
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> u(0, 100);
  std::vector<double> xs, ys;
  for (int i = 0; i < 20000; ++i) {
    xs.push_back(u(rng));
    ys.push_back(u(rng));
  }
  expect_read_windows_match_search(xs, ys, 1.0, Index::kKeys);  // ~1.3 points a cell
  // 2e8 keys, 14,142 columns for 2e4 cells: columns
  expect_read_windows_match_search(xs, ys, 0.01, Index::kColumns);
  // 1.4e6 columns for 2e4 cells: searched
  expect_read_windows_match_search(xs, ys, 0.0001, Index::kNone);
  // Two far blobs: most keys empty.
  std::vector<double> bx, by;
  for (int i = 0; i < 5000; ++i) {
    bx.push_back(u(rng) / 100 + (i % 2) * 1000);
    by.push_back(u(rng) / 100);
  }
  expect_read_windows_match_search(bx, by, 0.1, Index::kNone);
  // One row and one column of cells, and a single cell.
  expect_read_windows_match_search({0, 1, 2, 3, 4, 5}, {0, 0, 0, 0, 0, 0}, 1.0, Index::kKeys);
  expect_read_windows_match_search({0, 0, 0, 0}, {0, 1, 2, 3}, 1.0, Index::kKeys);
  expect_read_windows_match_search({5, 5, 5}, {5, 5, 5}, 1.0, Index::kKeys);
  // One tall column of sparse cells: columns, searched within the column.
  std::vector<double> cx, cy;
  for (int i = 0; i < 3000; ++i) {
    cx.push_back(u(rng) / 1000);
    cy.push_back(static_cast<double>(i) * (i % 3 == 0 ? 7 : 1));
  }
  expect_read_windows_match_search(cx, cy, 0.5, Index::kColumns);
}

}  // namespace

namespace {

// GridGeometry::no_corners: no pair of points in cells two apart on both
// axes is a pair of neighbours, either way, wherever the grid leaves the
// corners out of its windows.  Points packed so that corner pairs sit near
// the eps circle; large offsets and extents up to the bound, and tiny eps.
void expect_no_neighbour_in_corners(double x0, double y0, double eps, double extent_cells,
                                    uint64_t seed) {
  std::mt19937_64 rng(seed);
  const double side = gd::neighbour_reach(eps) * M_SQRT1_2;
  std::uniform_real_distribution<double> u(0, side * extent_cells);
  std::vector<double> xs, ys;
  for (int i = 0; i < 1500; ++i) {
    xs.push_back(x0 + u(rng));
    ys.push_back(y0 + u(rng));
  }
  // Clusters of points right at cell-size offsets around a few centres.
  for (int c = 0; c < 40; ++c) {
    const double cx = x0 + u(rng), cy = y0 + u(rng);
    for (int k = 0; k < 12; ++k) {
      const double d = side * (2 + (static_cast<int>(rng() % 5) - 2) * 1e-9);
      xs.push_back(cx + (rng() % 2 ? d : -d) * (k % 3 == 0 ? 1.0 : 0.5));
      ys.push_back(cy + (rng() % 2 ? d : -d));
    }
  }
  const gd::Grid grid = grid_of(xs, ys, eps, 1);
  const uint32_t n = static_cast<uint32_t>(xs.size());
  ASSERT_TRUE(grid.geometry.no_corners);
  uint32_t cell_of_sorted[4000];
  ASSERT_LE(xs.size(), 4000u);
  for (uint32_t c = 0; c < grid.ncells(); ++c)
    for (uint32_t p = grid.start[c]; p < grid.start[c + 1]; ++p) cell_of_sorted[p] = c;
  int corner_pairs = 0;
  for (uint32_t p = 0; p < n; ++p)
    for (uint32_t q = 0; q < n; ++q) {
      const gd::Cell a = grid.cells[cell_of_sorted[p]], b = grid.cells[cell_of_sorted[q]];
      if (std::llabs(a.ix - b.ix) != 2 || std::llabs(a.iy - b.iy) != 2) continue;
      ++corner_pairs;
      ASSERT_FALSE(gd::within(grid.xs[p], grid.ys[p], grid.xs[q], grid.ys[q], eps))
          << "eps " << eps << " x0 " << x0;
    }
  EXPECT_GT(corner_pairs, 0);
}

TEST(Window, CornerCellsHoldNoNeighbours) {
  expect_no_neighbour_in_corners(0, 0, 1.0, 40, 5);
  expect_no_neighbour_in_corners(-3e5, 7e5, 0.37, 60, 6);
  expect_no_neighbour_in_corners(1e6, 1e6, 1e-3, 60, 7);
  // eps below 2^-500: cells of the reach 2^-500, squares of eps underflow
  expect_no_neighbour_in_corners(0, 0, 1e-160, 60, 8);
  expect_no_neighbour_in_corners(1e-140, 0, 1e-300, 60, 9);
}

TEST(Window, CornersKeptWhereCoordinatesAreCoarse) {
  // An extent 2^21 cells wide: the computed cell coordinates may be off by
  // more than the corner proof allows, so the windows keep the corners.
  std::vector<double> xs{0, 2 * std::ldexp(1.0, 21)}, ys{0, 0};
  for (int i = 0; i < 30; ++i) {
    xs.push_back(i);
    ys.push_back(i);
  }
  EXPECT_FALSE(grid_of(xs, ys, 1.0, 1).geometry.no_corners);
  EXPECT_TRUE(grid_of(xs, ys, 8.0, 1).geometry.no_corners);
}

}  // namespace
