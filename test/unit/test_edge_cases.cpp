// test_edge_cases.cpp — gd_cluster_points on the inputs where rounding, the
// grid, or the PostGIS rules are easiest to get wrong.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include "core_helpers.hpp"

namespace gd_test {
namespace {

const std::vector<int> kThreads = {1, 2, 4};

TEST(EdgeCases, EmptyPartition) {
  Rows r;
  RunResult run = cluster(r, 1.0, 2);
  EXPECT_EQ(run.status, GD_OK);
}

TEST(EdgeCases, SinglePoint) {
  Rows r;
  r.add(3, 4);
  for (int64_t m : {0, 1}) EXPECT_EQ(cluster(r, 1.0, m).ids, (std::vector<int32_t>{0}));
  EXPECT_EQ(cluster(r, 1.0, 2).ids, (std::vector<int32_t>{-1}));
}

TEST(EdgeCases, LatticeExactlyEpsApart) {
  // Points 0.1 apart with eps 0.1: whether x0 + i*0.1 - (x0 + (i-1)*0.1) is
  // <= 0.1 depends on rounding, pair by pair; the reference decides.
  Rows r = lattice_rows(45, 0.1, 0, 0, 1);
  for (int64_t m : {2, 3, 4, 5, 6}) expect_matches_reference(r, 0.1, m, kThreads);
  Rows s = lattice_rows(40, 0.1, 12.3, -45.6, 2);
  for (int64_t m : {2, 5}) expect_matches_reference(s, 0.1, m, kThreads);
  Rows t = lattice_rows(40, 0.3, 10, 10, 3);
  for (int64_t m : {2, 3, 5, 9}) expect_matches_reference(t, 0.3, m, kThreads);
}

TEST(EdgeCases, TenAndTenPointThreeAreNotWithinPointThree) {
  // 10.3 - 10 = 0.30000000000000071 > 0.3.
  Rows r;
  r.add(10, 0);
  r.add(10.3, 0);
  r.add(10, 0.3);  // 0.3 - 0 == 0.3: within
  RunResult run = cluster(r, 0.3, 0);
  ASSERT_EQ(run.status, GD_OK);
  EXPECT_EQ(run.ids, (std::vector<int32_t>{0, 1, 0}));
  expect_matches_reference(r, 0.3, 0, kThreads);
}

TEST(EdgeCases, EpsZeroClustersExactDuplicates) {
  Rows r = duplicate_rows(1500, 100, 10, 4);
  for (int64_t m : {0, 1, 2, 3, 20}) expect_matches_reference(r, 0.0, m, kThreads);
}

TEST(EdgeCases, EpsZeroAllIdentical) {
  Rows r;
  for (int i = 0; i < 500; ++i) r.add(1.5, -2.5);
  for (int64_t m : {0, 2, 499, 500}) expect_matches_reference(r, 0.0, m, kThreads);
  EXPECT_EQ(cluster(r, 0.0, 500).ids, std::vector<int32_t>(500, 0));
  EXPECT_EQ(cluster(r, 0.0, 501).ids, std::vector<int32_t>(500, -1));
}

TEST(EdgeCases, EpsZeroUnderflowIsNotANeighbour) {
  // dx = 1e-170: dx*dx underflows to 0 and sqrt(0) <= 0, but |dx| > eps, so
  // the points are not neighbours (PostGIS's box test comes first).
  Rows r;
  for (int i = 0; i < 50; ++i) r.add(1e-170 * i, 0);
  for (int i = 0; i < 50; ++i) r.add(5 + 1e-300 * i, 1e-200 * i);
  r.add(1e-170 * 7, 0);  // a duplicate of row 7
  for (int64_t m : {0, 2, 40}) expect_matches_reference(r, 0.0, m, kThreads);
  std::vector<int32_t> ids = cluster(r, 0.0, 2).ids;
  EXPECT_EQ(ids[7], 0);
  EXPECT_EQ(ids[100], 0);
  EXPECT_EQ(std::count(ids.begin(), ids.end(), -1), 99);
  // Tiny but nonzero eps: the grid must still be complete.
  for (double eps : {1e-170, 3e-170, 1e-300, 5e-324}) expect_matches_reference(r, eps, 2, kThreads);
}

TEST(EdgeCases, TinyEps) {
  Rows r = blob_rows(2000, 5, 1e-6, 1e-9, 8);
  for (double eps : {1e-9, 1e-10, 1e-12}) expect_matches_reference(r, eps, 3, kThreads);
}

TEST(EdgeCases, EpsInfinity) {
  const double inf = std::numeric_limits<double>::infinity();
  Rows r = uniform_rows(800, -1e300, 1e300, 9);
  for (int64_t m : {0, 2, 799}) expect_matches_reference(r, inf, m, kThreads);
  EXPECT_EQ(cluster(r, inf, 799).ids, std::vector<int32_t>(800, 0));
}

TEST(EdgeCases, HugeEpsWhereTheSquareOverflows) {
  // Points 1e160 apart with eps 1e200: dx*dx overflows to inf > eps, so
  // PostGIS does not see them as neighbours.
  Rows r;
  for (int i = 0; i < 30; ++i) r.add(1e160 * (i % 3), 1e150 * i);
  for (int64_t m : {0, 2, 5}) expect_matches_reference(r, 1e200, m, kThreads);
}

TEST(EdgeCases, ExtentOverflowsToInfinity) {
  // max - min overflows to +inf: the grid degenerates to one cell.
  Rows r;
  std::mt19937_64 rng(10);
  std::uniform_real_distribution<double> u(0, 3);
  for (int i = 0; i < 400; ++i) r.add((i % 2) ? 1.7e308 : -1.7e308, u(rng));
  for (int64_t m : {0, 3}) expect_matches_reference(r, 0.05, m, kThreads);
  for (int64_t m : {0, 3}) expect_matches_reference(r, 1e300, m, kThreads);
}

TEST(EdgeCases, LonLatWithMicroEps) {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> lon(-180, 180), lat(-90, 90);
  std::normal_distribution<double> g(0, 1e-6);
  Rows r;
  for (int c = 0; c < 40; ++c) {
    double cx = lon(rng), cy = lat(rng);
    for (int i = 0; i < 50; ++i) r.add(cx + g(rng), cy + g(rng));
  }
  r.add(-180, -90);
  r.add(180, 90);
  for (int64_t m : {2, 4, 10}) expect_matches_reference(r, 1e-6, m, kThreads);
  expect_matches_reference(r, 1e-9, 2, kThreads);
}

TEST(EdgeCases, HugeCoordinatesTinyEps) {
  // Around 1e15 doubles are 0.125 apart; -1e15 .. 1e15 with eps 1e-3 needs
  // more cells than a 64-bit key holds (the pair sort).
  Rows r;
  std::mt19937_64 rng(12);
  for (int c = 0; c < 30; ++c) {
    double cx = (c % 2 ? 1e15 : -1e15) + 1e12 * c, cy = 1e15 - 3e13 * c;
    for (int i = 0; i < 40; ++i) r.add(cx + 0.125 * (rng() % 6), cy + 0.125 * (rng() % 6));
  }
  for (double eps : {1e-3, 0.125, 0.2, 0.3}) expect_matches_reference(r, eps, 3, kThreads);
  Rows s = lattice_rows(30, 0.125, 1e15, 1e15, 13);
  for (double eps : {0.125, 0.17677669529663687, 0.25}) {
    expect_matches_reference(s, eps, 4, kThreads);
    expect_matches_reference(s, eps, 6, kThreads);
  }
}

TEST(EdgeCases, HugeExtentSmallEpsAtOrigin) {
  Rows r = blob_rows(1500, 4, 1e9, 0.5, 14);
  r.add(-1e12, 1e12);
  expect_matches_reference(r, 1.0, 3, kThreads);
}

TEST(EdgeCases, MinpointsLarge) {
  Rows r = blob_rows(2000, 3, 10, 0.5, 15);
  for (int64_t m : {100, 400, 1999}) expect_matches_reference(r, 1.0, m, kThreads);
}

TEST(EdgeCases, FewRows) {
  // No rule about nrows versus minpoints: 5 identical points with minpoints 5
  // are 5 core points; with minpoints 6 they are noise.
  Rows r;
  for (int i = 0; i < 5; ++i) r.add(0, 0);
  EXPECT_EQ(cluster(r, 1.0, 5).ids, std::vector<int32_t>(5, 0));
  EXPECT_EQ(cluster(r, 1.0, 6).ids, std::vector<int32_t>(5, -1));
  EXPECT_EQ(cluster(r, 1.0, 4).ids, std::vector<int32_t>(5, 0));
  // NULL and EMPTY rows are nobody's neighbours.
  r.add(NAN, NAN, GD_ROW_NULL);
  r.add(NAN, NAN, GD_ROW_EMPTY);
  EXPECT_EQ(cluster(r, 1.0, 6).ids, std::vector<int32_t>(7, -1));
  EXPECT_EQ(cluster(r, 1.0, 5).ids, (std::vector<int32_t>{0, 0, 0, 0, 0, -1, -1}));
  EXPECT_EQ(cluster(r, 1.0, 0).ids, (std::vector<int32_t>{0, 0, 0, 0, 0, -1, 1}));
  for (int64_t m : {0, 1, 2, 5, 6, 7, 8}) expect_matches_reference(r, 1.0, m, kThreads);
  Rows one;
  one.add(0, 0);
  EXPECT_EQ(cluster(one, 1.0, 1).ids, (std::vector<int32_t>{0}));
  EXPECT_EQ(cluster(one, 1.0, 2).ids, (std::vector<int32_t>{-1}));
}

TEST(EdgeCases, EmptyAndNullRows) {
  Rows r;
  r.add(NAN, NAN, GD_ROW_EMPTY);
  r.add(0, 0);
  r.add(NAN, NAN, GD_ROW_NULL);
  r.add(0.5, 0);
  r.add(NAN, NAN, GD_ROW_EMPTY);
  r.add(9, 9);
  EXPECT_EQ(cluster(r, 1.0, 0).ids, (std::vector<int32_t>{0, 1, -1, 1, 2, 3}));
  EXPECT_EQ(cluster(r, 1.0, 1).ids, (std::vector<int32_t>{0, 1, -1, 1, 2, 3}));
  EXPECT_EQ(cluster(r, 1.0, 2).ids, (std::vector<int32_t>{-1, 0, -1, 0, -1, -1}));
  Rows only;
  only.add(NAN, NAN, GD_ROW_NULL);
  only.add(NAN, NAN, GD_ROW_EMPTY);
  only.add(NAN, NAN, GD_ROW_EMPTY);
  EXPECT_EQ(cluster(only, 1.0, 0).ids, (std::vector<int32_t>{-1, 0, 1}));
  EXPECT_EQ(cluster(only, 1.0, 2).ids, (std::vector<int32_t>{-1, -1, -1}));
}

// A border point X within eps of a core point of each of two clusters that
// are not connected goes to the cluster whose core point comes first.
Rows two_clusters_and_a_border(bool left_first, bool border_first) {
  Rows left, right;
  for (double v : {-1.0, -1.2, -1.4, -1.6}) left.add(v, 0);
  for (double v : {1.0, 1.2, 1.4, 1.6}) right.add(v, 0);
  const Rows& a = left_first ? left : right;
  const Rows& b = left_first ? right : left;
  Rows r;
  if (border_first) r.add(0, 0);
  for (size_t i = 0; i < a.size(); ++i) r.add(a.x[i], a.y[i]);
  for (size_t i = 0; i < b.size(); ++i) r.add(b.x[i], b.y[i]);
  if (!border_first) r.add(0, 0);
  return r;
}

TEST(EdgeCases, BorderGoesToTheEarlierRowsCore) {
  for (bool left_first : {true, false}) {
    for (bool border_first : {true, false}) {
      Rows r = two_clusters_and_a_border(left_first, border_first);
      size_t x = border_first ? 0 : r.size() - 1;
      size_t first_core = border_first ? 1 : 0;      // +-1.0 of the first cluster
      for (int threads : {1, 2, 4}) {
        RunResult run = cluster(r, 1.0, 4, threads);
        ASSERT_EQ(run.status, GD_OK);
        EXPECT_NE(run.ids[first_core], run.ids[first_core + 4]);
        EXPECT_EQ(run.ids[x], run.ids[first_core]);
      }
      expect_matches_reference(r, 1.0, 4, kThreads);
    }
  }
}

TEST(EdgeCases, ManyBordersBetweenClusters) {
  // Rows of dense clusters separated by gaps of borders, in shuffled row order.
  std::mt19937_64 rng(16);
  for (int rep = 0; rep < 5; ++rep) {
    Rows r;
    for (int c = 0; c < 30; ++c) {
      double cx = 2.0 * c;
      for (int i = 0; i < 6; ++i) r.add(cx + 0.05 * (rng() % 5), 0.05 * (rng() % 5));
      r.add(cx + 1.0, 0.1);  // between clusters c and c+1
    }
    for (size_t i = r.size(); i > 1; --i) {
      size_t k = rng() % i;
      std::swap(r.x[i - 1], r.x[k]);
      std::swap(r.y[i - 1], r.y[k]);
    }
    for (int64_t m : {3, 5, 7}) expect_matches_reference(r, 0.9, m, kThreads);
  }
}

TEST(EdgeCases, DenseCellsNextToSparseOnes) {
  // Heavy duplicates (dense cells) inside uniform noise, borders of both.
  Rows r = uniform_rows(1500, 0, 20, 17);
  Rows d = duplicate_rows(1500, 40, 20, 18);
  for (size_t i = 0; i < d.size(); ++i) r.add(d.x[i] + 0.01 * (i % 7), d.y[i]);
  for (double eps : {0.3, 0.7, 1.5})
    for (int64_t m : {2, 8, 30}) expect_matches_reference(r, eps, m, kThreads);
}

TEST(EdgeCases, CollinearPoints) {
  Rows vertical, horizontal;
  for (int i = 0; i < 2000; ++i) {
    vertical.add(5, 0.37 * i);
    horizontal.add(0.37 * i, -5);
  }
  for (int64_t m : {2, 3, 4}) {
    expect_matches_reference(vertical, 0.74, m, kThreads);
    expect_matches_reference(horizontal, 0.74, m, kThreads);
  }
}

}  // namespace
}  // namespace gd_test
