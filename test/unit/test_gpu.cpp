// test_gpu.cpp — the GPU back end gives the CPU back end's ids and the
// brute-force reference's, row for row, on seeded random data and on the
// inputs that break grid arithmetic: everything in one cell, identical points,
// eps = 0, one point per cell, lon/lat with eps 1e-6, lattices at exactly eps,
// huge and tiny coordinates, eps = +Infinity, and 2^24+ points (GPU vs CPU).
// Skipped where no GPU is usable.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <tuple>

#include "shapes.hpp"
#include "test_gpu_helpers.hpp"

namespace gd_test {
namespace {

TEST(GpuAvailable, AnswersWithAReason) {
  gd_error err;
  int ok = gd_gpu_available(0, &err);
  if (!ok) {
    EXPECT_NE(std::string(err.message), "");
  }
  EXPECT_EQ(gd_gpu_available(9999, &err), 0);
  EXPECT_NE(std::string(err.message), "");
}

TEST(GpuAvailable, GpuBackendWithoutDeviceFailsCleanly) {
  std::string why;
  if (gpu_usable(&why)) GTEST_SKIP() << "a GPU is usable here";
  Rows r = uniform_rows(100, 0, 10, 1);
  RunResult run = cluster_on(r, 1.0, 3, GD_BACKEND_GPU);
  EXPECT_NE(run.status, GD_OK);
}

class GpuMatches : public ::testing::TestWithParam<ShapeCase> {};

TEST_P(GpuMatches, CpuAndReference) {
  GD_REQUIRE_GPU();
  auto [shape, eps, minpoints] = GetParam();
  Rows r = make_shape(shape, 4321 + static_cast<uint64_t>(shape) * 7 + minpoints, true);
  expect_gpu_matches(r, eps, minpoints);
}

TEST_P(GpuMatches, WithEmptyAndNullRows) {
  GD_REQUIRE_GPU();
  auto [shape, eps, minpoints] = GetParam();
  Rows r = make_shape(shape, 77 + static_cast<uint64_t>(shape), true);
  sprinkle_empty_and_null(r, 8, 3);
  expect_gpu_matches(r, eps, minpoints);
}

INSTANTIATE_TEST_SUITE_P(Random, GpuMatches, all_shape_cases(), shape_case_name);

TEST(GpuAdversarial, AllPointsInOneCell) {
  GD_REQUIRE_GPU();
  // A dense cell (all within eps) and cells just over the dense limit.
  Rows r = uniform_rows(3000, 5.0, 5.0 + 1e-3, 11);
  for (int64_t m : {0, 2, 10, 2999, 3000}) expect_gpu_matches(r, 0.01, m);
  // The square's diagonal is just over eps: one cell, not dense.
  Rows sq = uniform_rows(2000, 0, 1, 12);
  sq.add(0, 0);
  sq.add(1, 1);
  for (int64_t m : {2, 5, 50, 1500}) expect_gpu_matches(sq, std::sqrt(2.0) * (1 - 1e-12), m);
}

TEST(GpuAdversarial, AllIdentical) {
  GD_REQUIRE_GPU();
  Rows r;
  for (int i = 0; i < 4000; ++i) r.add(123.456, -78.9);
  for (double eps : {0.0, 1e-300, 1.0})
    for (int64_t m : {0, 1, 2, 3999, 4000}) expect_gpu_matches(r, eps, m);
  Rows one;
  one.add(1, 2);
  for (int64_t m : {0, 1}) expect_gpu_matches(one, 0.0, m);
}

TEST(GpuAdversarial, EpsZeroClustersDuplicatesOnly) {
  GD_REQUIRE_GPU();
  Rows r = duplicate_rows(5000, 700, 1e-9, 21);  // near-identical locations
  for (int64_t m : {0, 2, 5, 9}) expect_gpu_matches(r, 0.0, m);
  Rows s = duplicate_rows(5000, 400, 1e6, 22);
  for (int64_t m : {0, 2, 12}) expect_gpu_matches(s, 0.0, m);
}

TEST(GpuAdversarial, OnePointPerCell) {
  GD_REQUIRE_GPU();
  Rows r = lattice_rows(60, 1.0, 0, 0, 31);
  for (double eps : {0.5, 0.70710678, 0.99999999, 1.0, 1.4142135623730951})
    for (int64_t m : {0, 2, 3, 5, 9}) expect_gpu_matches(r, eps, m);
}

TEST(GpuAdversarial, LatticesAtExactlyEps) {
  GD_REQUIRE_GPU();
  // Steps whose multiples are not exact in binary, far from the origin, so
  // that many pairs sit right at the eps boundary after rounding.
  for (double step : {0.1, 0.3, 1.0 / 3.0}) {
    for (double x0 : {0.0, 1e6 + 0.1, -7.3e7}) {
      Rows r = lattice_rows(45, step, x0, -x0 / 3, 41);
      for (double eps : {step, step * std::sqrt(2.0), 2 * step})
        for (int64_t m : {0, 2, 4, 5, 6, 9}) expect_gpu_matches(r, eps, m);
    }
  }
}

TEST(GpuAdversarial, LonLatWithTinyEps) {
  GD_REQUIRE_GPU();
  std::mt19937_64 rng(51);
  std::uniform_real_distribution<double> lon(-180, 180), lat(-90, 90);
  std::normal_distribution<double> g(0, 1e-6);
  Rows r;
  for (int c = 0; c < 60; ++c) {
    double cx = lon(rng), cy = lat(rng);
    for (int k = 0; k < 60; ++k) r.add(cx + g(rng), cy + g(rng));
  }
  for (int k = 0; k < 500; ++k) r.add(lon(rng), lat(rng));
  for (double eps : {1e-6, 5e-7, 2e-6})
    for (int64_t m : {0, 2, 5, 20}) expect_gpu_matches(r, eps, m);
}

TEST(GpuAdversarial, WideExtentAndTinyEps) {
  GD_REQUIRE_GPU();
  // More than 2^30 cells per axis: the grid side is enlarged.
  Rows r = blob_rows(3000, 5, 1e15, 1e3, 61);
  r.add(-1e300, 1e300);
  r.add(1e300, -1e300);
  for (double eps : {0.0, 1.0, 500.0, 5e3})
    for (int64_t m : {0, 2, 6}) expect_gpu_matches(r, eps, m);
}

TEST(GpuAdversarial, HugeEpsAndInfinity) {
  GD_REQUIRE_GPU();
  Rows r = blob_rows(3000, 4, 100, 3, 71);
  r.add(-1e200, 5);
  r.add(1e200, 5);
  double inf = std::numeric_limits<double>::infinity();
  for (double eps : {1e3, 1e250, inf})
    for (int64_t m : {0, 2, 10, 3001}) expect_gpu_matches(r, eps, m);
}

TEST(GpuAdversarial, DenseCellNextToSparse) {
  GD_REQUIRE_GPU();
  // A very dense blob beside scattered border and noise points: exercises
  // the dense-cell shortcuts of every stage.
  Rows r;
  std::mt19937_64 rng(81);
  std::normal_distribution<double> g(0, 0.05);
  std::uniform_real_distribution<double> u(-2, 2);
  for (int i = 0; i < 4000; ++i) r.add(g(rng), g(rng));
  for (int i = 0; i < 1000; ++i) r.add(u(rng), u(rng));
  for (double eps : {0.05, 0.2, 0.5})
    for (int64_t m : {2, 5, 30, 200}) expect_gpu_matches(r, eps, m);
}

// Pairs at distance eps give or take an ulp, far from each other: with
// minpoints 2 each pair is one cluster exactly when the predicate holds, so
// the GPU's sqrt-free test must agree with within_eps pair by pair.
TEST(GpuAdversarial, PairsAtTheEpsBoundary) {
  GD_REQUIRE_GPU();
  std::mt19937_64 rng(55);
  std::uniform_real_distribution<double> u(0, 1);
  for (double eps : {0.0, 1e-320, 1e-200, 1e-155, 3e-151, 1e-9, 0.1, 1.0 / 3.0, 1.0, 7.5e4, 1e154,
                     1.35e154, 1e250}) {
    double spacing = eps > 0 ? 10 * eps : 1.0;
    Rows r;
    for (int k = 0; k < 1500; ++k) {
      double px = (k % 40) * spacing + (k % 3 == 0 ? 0.0 : u(rng) * eps);
      double py = (k / 40) * spacing;
      double th = u(rng) * 6.283185307179586;
      double qx = px + eps * std::cos(th), qy = py + eps * std::sin(th);
      if (k % 4 == 1) qx = std::nextafter(qx, 1e308);
      if (k % 4 == 2) qy = std::nextafter(qy, -1e308);
      if (k % 5 == 0) qx = px + eps, qy = py;  // exactly eps along an axis
      r.add(px, py);
      r.add(qx, qy);
    }
    expect_gpu_matches(r, eps, 2);
  }
}

// 2^24 + 1000 points, GPU vs CPU (the reference is O(n^2)).
TEST(GpuLarge, SixteenMillionPointsMatchCpu) {
  GD_REQUIRE_GPU();
  Rows r = blob_rows((size_t{1} << 24) + 1000, 300, 20000, 15, 91);
  expect_gpu_matches(r, 1.0, 10, /*with_reference=*/false);
}

TEST(GpuLarge, MillionUniformMatchCpu) {
  GD_REQUIRE_GPU();
  Rows r = uniform_rows(1000000, 0, 1000, 92);
  for (double eps : {0.5, 1.0, 2.0}) expect_gpu_matches(r, eps, 5, /*with_reference=*/false);
}

}  // namespace
}  // namespace gd_test
