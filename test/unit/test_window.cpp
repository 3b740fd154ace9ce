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
