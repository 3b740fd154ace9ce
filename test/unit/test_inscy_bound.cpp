// test_inscy_bound.cpp — the pieces the subspace clustering's CPU back end
// prunes with, checked directly against brute force: each column's sorted
// order (inscy_prepare.cpp's radix sort must give std::sort's order, ties by
// index) and the pair bound (inscy_pair_bound.hpp), which must never fall
// below a point's true count of points in both of its windows.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <utility>
#include <vector>

#include "inscy.hpp"
#include "inscy_pair_bound.hpp"

namespace {

using gd::inscy::PairBound;
using gd::inscy::Prepared;

// n x d rows: clumps, many ties (values on a coarse lattice), a constant column.
std::vector<double> rows_with_ties(uint32_t n, int d, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0, 1);
  std::normal_distribution<double> g(0, 0.02);
  std::vector<double> rows(size_t(n) * d);
  for (uint32_t i = 0; i < n; ++i)
    for (int k = 0; k < d; ++k) {
      double v;
      if (k == d - 1) v = 3.5;                                 // constant
      else if (k % 3 == 0) v = std::floor(u(rng) * 20) / 20;   // ties
      else if (i % 2) v = 0.3 + g(rng);                        // a clump
      else v = u(rng) * 100 - 50;
      rows[size_t(i) * d + k] = v;
    }
  return rows;
}

TEST(InscyPrepareTest, ColumnsSortedByValueThenIndex) {
  for (uint64_t seed : {1, 2, 3}) {
    const uint32_t n = 700;
    const int d = 6;
    std::vector<double> rows = rows_with_ties(n, d, seed);
    Prepared pr = gd::inscy::prepare(rows.data(), n, d, 0.03);
    for (int k = 0; k < d; ++k) {
      std::vector<std::pair<double, uint32_t>> want(n);
      for (uint32_t i = 0; i < n; ++i) want[i] = {pr.x[size_t(i) * d + k], i};
      std::sort(want.begin(), want.end());
      for (uint32_t i = 0; i < n; ++i)
        ASSERT_EQ(pr.perm[size_t(k) * n + i], want[i].second) << "dim " << k << " pos " << i;
    }
  }
}

TEST(InscyPairBoundTest, NeverBelowThePointsInBothWindows) {
  const uint32_t n = 600;
  const int d = 5;
  std::vector<double> rows = rows_with_ties(n, d, 9);
  for (double eps : {0.005, 0.03, 0.2}) {
    Prepared pr = gd::inscy::prepare(rows.data(), n, d, eps);
    std::vector<uint32_t> rank(pr.perm.size());
    for (int k = 0; k < d; ++k)
      for (uint32_t i = 0; i < n; ++i) rank[size_t(k) * n + pr.perm[size_t(k) * n + i]] = i;
    PairBound pb;
    size_t tight = 0;
    for (int a = 0; a < d; ++a)
      for (int b = 0; b < d; ++b) {
        if (a == b) continue;
        pb.build(pr, rank.data(), a, b);
        for (uint32_t p = 0; p < n; ++p) {
          uint32_t both = 0, near = 0;  // in both windows; neighbours in {a, b} (and p)
          const uint8_t dims[2] = {uint8_t(std::min(a, b)), uint8_t(std::max(a, b))};
          for (uint32_t q = 0; q < n; ++q) {
            const uint32_t ra = rank[size_t(a) * n + q], rb = rank[size_t(b) * n + q];
            both += ra >= pr.lo[size_t(a) * n + p] && ra < pr.hi[size_t(a) * n + p] &&
                    rb >= pr.lo[size_t(b) * n + p] && rb < pr.hi[size_t(b) * n + p];
            near += gd::inscy::near_in(&pr.x[size_t(p) * d], &pr.x[size_t(q) * d], dims, 2, pr.t);
          }
          const uint32_t bound = pb.bound(pr, p);
          ASSERT_GE(both, near) << "a " << a << " b " << b << " p " << p;
          ASSERT_GE(bound, both) << "a " << a << " b " << b << " p " << p << " eps " << eps;
          tight += bound < 2 * both;
        }
      }
    // a bound that is always huge would prune nothing
    EXPECT_GT(tight, size_t(n) * d * (d - 1) / 2) << eps;
  }
}

}  // namespace
