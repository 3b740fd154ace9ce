// test_gpu_exact.cpp — the GPU back end follows PostGIS's one-sided neighbour
// relation bit for bit: p sees q when q lies in p's search box
// [fl(px - eps), fl(px + eps)] x [fl(py - eps), fl(py + eps)] and
// sqrt(dx*dx + dy*dy) <= eps.  The sets here are built so that the two sides
// of many pairs disagree: lattices of spacing 1e-165 (dx*dx underflows, the
// box alone decides), coordinates where fl(px + eps) rounds across a binade,
// mixed-sign coordinates next to zero (p = -1e-20 sees q = 1 at eps 1, q does
// not see p), and many small random sets drawn from such values.  Each case
// checks GPU ids == CPU ids == reference ids, row for row, and counts the
// one-sided pairs so that a generator that stopped producing them fails.
// Skipped where no GPU is usable.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "backend.hpp"
#include "test_gpu_helpers.hpp"

namespace gd_test {
namespace {

// Ordered pairs (p, q), p != q, that p sees and q does not.
size_t one_sided_pairs(const Rows& r, double eps) {
  size_t count = 0;
  for (size_t p = 0; p < r.size(); ++p)
    for (size_t q = 0; q < r.size(); ++q)
      if (p != q && r.kinds[p] == GD_ROW_POINT && r.kinds[q] == GD_ROW_POINT &&
          ref_within(r.x[p], r.y[p], r.x[q], r.y[q], eps) &&
          !ref_within(r.x[q], r.y[q], r.x[p], r.y[p], eps))
        ++count;
  return count;
}

// Rows r = (1.9, 0), a = (-1e-20, 0),
// b = (1, 0), a2 = (-1e-20, 0.5) at eps 1, minpoints 2.  a sees b, b does not
// see a; b's first claimer is r, so PostGIS leaves a's and b's clusters apart
// ({r, b}, {a, a2}); with a first, a claims b and all four are one cluster.
TEST(GpuExact, OneSidedPairJoinsOnlyThroughItsClaimer) {
  GD_REQUIRE_GPU();
  const double tiny = -1e-20;
  Rows apart;
  apart.add(1.9, 0);
  apart.add(tiny, 0);
  apart.add(1, 0);
  apart.add(tiny, 0.5);
  ASSERT_TRUE(ref_within(tiny, 0, 1, 0, 1.0));
  ASSERT_FALSE(ref_within(1, 0, tiny, 0, 1.0));
  EXPECT_EQ(reference_dbscan(apart.x, apart.y, apart.kinds, 1.0, 2),
            (std::vector<int32_t>{0, 1, 0, 1}));
  expect_gpu_matches(apart, 1.0, 2);
  // minpoints 1: PostGIS joins a pair that either side sees.
  EXPECT_EQ(reference_dbscan(apart.x, apart.y, apart.kinds, 1.0, 1),
            (std::vector<int32_t>{0, 0, 0, 0}));
  expect_gpu_matches(apart, 1.0, 1);

  Rows joined;
  joined.add(tiny, 0);
  joined.add(1.9, 0);
  joined.add(1, 0);
  joined.add(tiny, 0.5);
  EXPECT_EQ(reference_dbscan(joined.x, joined.y, joined.kinds, 1.0, 2),
            (std::vector<int32_t>{0, 0, 0, 0}));
  expect_gpu_matches(joined, 1.0, 2);

  // Without r, b sees only itself and is a border, claimed by a.
  Rows border;
  border.add(1, 0);
  border.add(tiny, 0);
  border.add(tiny, 0.5);
  EXPECT_EQ(reference_dbscan(border.x, border.y, border.kinds, 1.0, 2),
            (std::vector<int32_t>{0, 0, 0}));
  expect_gpu_matches(border, 1.0, 2);
  // minpoints 3: a alone is core (it sees b, b does not see a) and claims both.
  EXPECT_EQ(reference_dbscan(border.x, border.y, border.kinds, 1.0, 3),
            (std::vector<int32_t>{0, 0, 0}));
  expect_gpu_matches(border, 1.0, 3);
  EXPECT_EQ(reference_dbscan(border.x, border.y, border.kinds, 1.0, 4),
            (std::vector<int32_t>{-1, -1, -1}));
  expect_gpu_matches(border, 1.0, 4);
}

// Lattices of spacing 1e-165: dx*dx underflows to 0, so the rounded search
// box alone decides, differently from either side near the offsets' ulps.
TEST(GpuExact, UnderflowLattices) {
  GD_REQUIRE_GPU();
  const double s = 1e-165;
  size_t one_sided = 0;
  for (double x0 : {0.0, 7.3e-163, -3.1e-160, 1e-150}) {
    Rows r = lattice_rows(18, s, x0, -x0 / 3, 501);
    // A few points off the lattice by an ulp of the offset.
    for (int k = 0; k < 20; ++k) {
      double px = x0 + (k % 18) * s, py = -x0 / 3 + (k / 2) * s;
      r.add(std::nextafter(px, k % 2 ? 1.0 : -1.0), py);
    }
    for (double eps : {0.0, 0.5 * s, s, std::nextafter(s, 0.0), std::nextafter(s, 1.0), 1.5 * s,
                       std::sqrt(2.0) * s, 2 * s, 3 * s}) {
      one_sided += one_sided_pairs(r, eps);
      for (int64_t m : {0, 1, 2, 3, 4, 5, 6, 9}) expect_gpu_matches(r, eps, m);
    }
  }
  EXPECT_GT(one_sided, 0u);
}

// Coordinates where px + eps rounds: just below and above powers of two, and
// points placed at fl(px + eps) and fl(px - eps) give or take an ulp.
TEST(GpuExact, RoundedSearchBoxBounds) {
  GD_REQUIRE_GPU();
  std::mt19937_64 rng(601);
  size_t one_sided = 0;
  for (double eps : {0.1, 1.0 / 3.0, 0.7, 1e-9, 3e-17}) {
    Rows r;
    for (int k = 0; k < 400; ++k) {
      double base = std::ldexp(1.0, static_cast<int>(rng() % 6) - 2);  // 1/4 .. 8
      double px = base - static_cast<double>(rng() % 4) * std::ldexp(base, -53) * 2;
      if (rng() % 2) px = std::nextafter(base, 1e300) - eps;
      double py = std::ldexp(1.0, static_cast<int>(rng() % 4)) * static_cast<double>(k % 7) * 3;
      double qx = (rng() % 2) ? px + eps : px - eps;
      for (int u = static_cast<int>(rng() % 5) - 2; u != 0; u += u > 0 ? -1 : 1)
        qx = std::nextafter(qx, u > 0 ? 1e300 : -1e300);
      r.add(px, py);
      r.add(qx, py);
      if (k % 3 == 0) r.add(px, py + eps);  // a third point: cores with minpoints 3
    }
    one_sided += one_sided_pairs(r, eps);
    for (int64_t m : {1, 2, 3, 4}) expect_gpu_matches(r, eps, m);
  }
  EXPECT_GT(one_sided, 0u);
}

// Values next to zero of either sign and near +-eps, mixed on both axes.
TEST(GpuExact, MixedSignNearZero) {
  GD_REQUIRE_GPU();
  std::mt19937_64 rng(701);
  size_t one_sided = 0;
  for (double eps : {1.0, 0.5, 0.1, 2.5e-7, 1e10}) {
    std::vector<double> menu = {0.0,       -0.0,      1e-20,      -1e-20,     3e-18, -3e-18,
                                1e-300,    -1e-300,   eps,        -eps,       eps / 2,
                                -eps / 2,  2 * eps,   -2 * eps,   std::nextafter(eps, 0.0),
                                std::nextafter(-eps, 0.0), std::nextafter(eps, 1e300),
                                std::nextafter(-eps, -1e300)};
    Rows r;
    for (int k = 0; k < 600; ++k) {
      double px = menu[rng() % menu.size()] + 5 * eps * static_cast<double>(k % 11);
      double py = menu[rng() % menu.size()] + 5 * eps * static_cast<double>(k % 13);
      r.add(px, py);
    }
    one_sided += one_sided_pairs(r, eps);
    for (int64_t m : {0, 1, 2, 3, 5, 8}) expect_gpu_matches(r, eps, m);
  }
  EXPECT_GT(one_sided, 0u);
}

// Many small sets, each drawn from a menu of boundary values of its own eps:
// small enough that every rule (core from p's view, claimers, the later row's
// view joining cores) meets every row order.
TEST(GpuExact, ManySmallRandomSets) {
  GD_REQUIRE_GPU();
  std::mt19937_64 rng(801);
  const double epss[] = {1.0, 0.1, 1e-165, 3.5e-165, 0.0, 1e-9};
  size_t one_sided = 0;
  for (int set = 0; set < 300; ++set) {
    double eps = epss[set % 6];
    double unit = eps > 0 ? eps : 1e-165;
    std::vector<double> menu = {0.0,
                                -1e-20 * unit,
                                1e-20 * unit,
                                unit,
                                -unit,
                                std::nextafter(unit, 0.0),
                                std::nextafter(unit, 1e300),
                                0.5 * unit,
                                1.5 * unit,
                                2 * unit,
                                3 * unit,
                                -0.75 * unit,
                                std::ldexp(1.0, -548),  // 1e-165 lattices' ulps
                                1e-165,
                                2e-165,
                                -1e-165};
    Rows r;
    const int n = 4 + static_cast<int>(rng() % 40);
    for (int k = 0; k < n; ++k) {
      double px = menu[rng() % menu.size()], py = menu[rng() % menu.size()];
      if (rng() % 4 == 0) px = std::nextafter(px, (rng() % 2) ? 1e300 : -1e300);
      r.add(px, py);
    }
    if (set % 5 == 0) sprinkle_empty_and_null(r, 9, static_cast<uint64_t>(set));
    one_sided += one_sided_pairs(r, eps);
    for (int64_t m : {0, 1, 2, 3, 4}) expect_gpu_matches(r, eps, m);
    if (HasFailure()) break;
  }
  EXPECT_GT(one_sided, 0u);
}

// assign_ids's one-pass path for ranked representatives (what the GPU back
// end returns) gives the ids of its general path, also where it must give up
// part way (EMPTY rows taking ids, a value out of order) and start again.
// Needs no GPU.
TEST(RankedIds, SameIdsAsTheGeneralPath) {
  std::mt19937_64 rng(901);
  for (int set = 0; set < 200; ++set) {
    const int64_t nrows = 1 + static_cast<int64_t>(rng() % 300);
    const int64_t minpoints = static_cast<int64_t>(rng() % 4);
    std::vector<uint8_t> kinds(nrows);
    for (auto& k : kinds) {
      uint64_t v = rng() % 20;
      k = v == 0 ? GD_ROW_NULL : v == 1 && set % 2 ? GD_ROW_EMPTY : GD_ROW_POINT;
    }
    const int64_t npoints = std::count(kinds.begin(), kinds.end(), GD_ROW_POINT);
    // Arbitrary representatives: clusters named by random point indexes.
    std::vector<uint32_t> names(8);
    for (auto& v : names) v = static_cast<uint32_t>(rng() % std::max<int64_t>(npoints, 1));
    std::vector<uint32_t> rep(npoints);
    for (auto& v : rep) v = rng() % 5 == 0 ? gd::kNoise : names[rng() % names.size()];
    std::vector<int32_t> want(nrows), got(nrows, -7);
    gd::assign_ids(kinds.data(), nrows, rep.data(), minpoints, want.data());
    // The same clusters as ranks in the order of their first point.
    std::vector<uint32_t> ranked(npoints);
    std::vector<int64_t> rank_of(npoints + 1, -1);
    uint32_t next = 0;
    for (int64_t p = 0; p < npoints; ++p) {
      if (rep[p] == gd::kNoise) {
        ranked[p] = gd::kNoise;
        continue;
      }
      if (rank_of[rep[p]] < 0) rank_of[rep[p]] = next++;
      ranked[p] = static_cast<uint32_t>(rank_of[rep[p]]);
    }
    gd::assign_ids(kinds.data(), nrows, ranked.data(), minpoints, got.data());
    ASSERT_EQ(got, want) << "set " << set;
    // A value out of order late in the rows: the one-pass path starts over.
    if (npoints > 3 && ranked.back() != gd::kNoise) {
      ranked.back() = next + 3;
      gd::assign_ids(kinds.data(), nrows, ranked.data(), minpoints, got.data());
      // The same partition under names that are never ranks.
      for (int64_t p = 0; p < npoints; ++p)
        rep[p] = ranked[p] == gd::kNoise ? gd::kNoise : ranked[p] + 1000000;
      gd::assign_ids(kinds.data(), nrows, rep.data(), minpoints, want.data());
      EXPECT_EQ(got, want) << "set " << set;
    }
  }
}

}  // namespace
}  // namespace gd_test
