// test_gpu_union.cpp — the GPU union stage's cell classes (cuda/union_find.cu)
// give the CPU's ids: tight cells (every pair of their points within eps)
// small (at most 16 points, joined per cell pair on a thread), large (up to
// 4096, on a warp) and huge (more, per point), cells that are not tight, and
// tight cells where only some points are core, side by side, so that every
// pair of classes meets.  Cells are squares of side about eps/sqrt(2).
// Skipped where no GPU is usable.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "test_gpu_helpers.hpp"

namespace gd_test {
namespace {

// At eps 1 (cells of about 0.5 square units): a sparse background (about 2
// points per cell), a band of about 6 per cell, a square of about 30 per
// cell and one of about 400, 6000 points within 1e-3 of one spot (one cell)
// with a ring around them at about eps, and a lattice of spacing eps (pairs
// exactly eps apart) with duplicates.
Rows mixed_density_rows(uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0, 1);
  Rows r;
  for (int k = 0; k < 12000; ++k) r.add(60 * u(rng), 60 * u(rng));
  for (int k = 0; k < 3000; ++k) r.add(10 + 40 * u(rng), 20 + 6 * u(rng));
  for (int k = 0; k < 2000; ++k) r.add(8 + 6 * u(rng), 30 + 6 * u(rng));
  for (int k = 0; k < 5000; ++k) r.add(30 + 2.5 * u(rng), 40 + 2.5 * u(rng));
  for (int k = 0; k < 6000; ++k) r.add(45.2 + 1e-3 * u(rng), 45.2 + 1e-3 * u(rng));
  for (int k = 0; k < 400; ++k) {
    double a = 6.283185307179586 * u(rng);
    double rad = 0.9 + 0.2 * u(rng);
    r.add(45.2 + rad * std::cos(a), 45.2 + rad * std::sin(a));
  }
  for (int i = 0; i < 12; ++i)
    for (int j = 0; j < 12; ++j) {
      r.add(5.0 + i, 50.0 + j);
      if ((i + j) % 5 == 0) r.add(5.0 + i, 50.0 + j);
    }
  return r;
}

TEST(GpuUnion, CellClassesMatchCpu) {
  GD_REQUIRE_GPU();
  Rows r = mixed_density_rows(1001);
  // 1: single linkage; 2..10: most tight cells all core; 60, 150: tight
  // cells with only some core points; 7000: the huge cell's points alone.
  for (int64_t m : {1, 2, 4, 10, 60, 150, 7000}) {
    expect_gpu_matches(r, 1.0, m, /*with_reference=*/false);
    if (HasFailure()) return;
  }
  // A smaller eps splits the same points into other classes.
  for (int64_t m : {3, 20}) expect_gpu_matches(r, 0.35, m, /*with_reference=*/false);
}

// Random sets small enough for the brute-force reference, dense enough that
// cells of every class appear.
TEST(GpuUnion, SmallDenseSetsMatchReference) {
  GD_REQUIRE_GPU();
  std::mt19937_64 rng(1002);
  std::uniform_real_distribution<double> u(0, 1);
  for (int set = 0; set < 20; ++set) {
    Rows r;
    double side = 1.0 + 0.5 * (set % 8);
    int n = 200 + 150 * (set % 7);
    for (int k = 0; k < n; ++k) r.add(side * u(rng), side * u(rng));
    for (int64_t m : {1, 3, 8, 25}) expect_gpu_matches(r, 0.6, m);
    if (HasFailure()) return;
  }
}

}  // namespace
}  // namespace gd_test
