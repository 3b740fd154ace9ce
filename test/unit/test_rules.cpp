// test_rules.cpp — the one home of each rule (core/rules/): the neighbour
// predicate's forms agree with each other and with the brute-force
// reference, the C glue's distance test is the core's, and the rule helpers
// decide as the rules say.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "backend.hpp"
#include "reference.hpp"
#include "rules/dbscan_rules.hpp"
#include "rules/ids.hpp"
#include "rules/neighbour.hpp"
#include "rules/relation_dbscan.hpp"
#include "union_find.hpp"

namespace {

// Pairs at distance eps up to a few ulps, of mixed sign and binade, where
// the forms could part if one of them were not exact.
TEST(Rules, PredicateFormsAgreeAtTheLastBit) {
  std::mt19937_64 rng(20261125);
  std::uniform_real_distribution<double> angle(0, 6.283185307179586);
  std::uniform_int_distribution<int> ulps(-4, 4);
  const double eps_values[] = {1.0, 0.1, 3.7, 1e-7, 12345.678, 0.0};
  const double centres[] = {0.0, -1e-20, 1e6, -3.5, 1e15};
  for (double eps : eps_values) {
    const double t = gd::eps_threshold(eps);
    for (double c : centres) {
      for (int k = 0; k < 2000; ++k) {
        const double a = angle(rng);
        const double px = c, py = -c;
        double qx = px + eps * std::cos(a), qy = py + eps * std::sin(a);
        for (int u = ulps(rng); u != 0; u += u > 0 ? -1 : 1)
          qx = std::nextafter(qx, u > 0 ? INFINITY : -INFINITY);
        const bool ref = gd_test::ref_within(px, py, qx, qy, eps);
        ASSERT_EQ(gd::within(px, py, qx, qy, eps), ref);
        ASSERT_EQ(gd::sees(px, py, qx, qy, eps, t), ref);
        ASSERT_EQ(gd::within_distance_t(px, py, qx, qy, t),
                  gd::within_distance(px, py, qx, qy, eps));
        ASSERT_EQ(gd_within_distance(px, py, qx, qy, eps) != 0,
                  gd::within_distance(px, py, qx, qy, eps));
        const unsigned both = gd::within_each_way(px, py, qx, qy, eps);
        ASSERT_EQ(both & 1u, ref ? 1u : 0u);
        ASSERT_EQ((both >> 1) & 1u, gd_test::ref_within(qx, qy, px, py, eps) ? 1u : 0u);
      }
    }
  }
}

TEST(Rules, OneSidedAtTheLastBit) {
  // p = (-1e-20, 0) sees q = (1, 0) at eps 1 (fl(px + 1) = 1); q's box
  // starts at fl(1 - 1) = 0 and misses p.
  const double t = gd::eps_threshold(1.0);
  EXPECT_TRUE(gd::within(-1e-20, 0, 1, 0, 1.0));
  EXPECT_FALSE(gd::within(1, 0, -1e-20, 0, 1.0));
  EXPECT_TRUE(gd::sees(-1e-20, 0, 1, 0, 1.0, t));
  EXPECT_FALSE(gd::sees(1, 0, -1e-20, 0, 1.0, t));
  EXPECT_EQ(gd::within_each_way(-1e-20, 0, 1, 0, 1.0), 1u);
  EXPECT_EQ(gd::within_each_way(1, 0, -1e-20, 0, 1.0), 2u);
}

TEST(Rules, UnderflowIsDecidedByTheBox) {
  // (0 0) and (1e-170 0) at eps 0: dx*dx underflows, the box says no.
  EXPECT_TRUE(gd::within_distance(0, 0, 1e-170, 0, 0));
  EXPECT_EQ(gd_within_distance(0, 0, 1e-170, 0, 0), 1);
  EXPECT_FALSE(gd::within(0, 0, 1e-170, 0, 0));
  EXPECT_FALSE(gd::sees(0, 0, 1e-170, 0, 0, gd::eps_threshold(0)));
}

TEST(Rules, BoxBoundsHoldForEveryPointOfTheBox) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(-2, 2);
  const double eps = 1.0, t = gd::eps_threshold(eps);
  for (int k = 0; k < 500; ++k) {
    const double bx = u(rng), by = u(rng);
    const gd::Box2 b{bx, by, bx + std::fabs(u(rng)) / 4, by + std::fabs(u(rng)) / 4};
    const double px = u(rng), py = u(rng);
    const bool any = gd::sees_any_in(px, py, b, eps, t), all = gd::sees_all_in(px, py, b, eps, t);
    const bool any_by = gd::seen_by_any_in(px, py, b, eps, t);
    const bool all_by = gd::seen_by_all_in(px, py, b, eps, t);
    const bool pairwise = gd::pairwise_neighbours(b, eps, t);
    for (double fx : {0.0, 0.3, 1.0})
      for (double fy : {0.0, 0.6, 1.0}) {
        const double qx = b.x0 + fx * (b.x1 - b.x0), qy = b.y0 + fy * (b.y1 - b.y0);
        const bool s = gd::within(px, py, qx, qy, eps), r = gd::within(qx, qy, px, py, eps);
        if (!any) {
          ASSERT_FALSE(s);
        }
        if (all) {
          ASSERT_TRUE(s);
        }
        if (!any_by) {
          ASSERT_FALSE(r);
        }
        if (all_by) {
          ASSERT_TRUE(r);
        }
        if (pairwise) {
          ASSERT_TRUE(gd::within(b.x0, b.y0, qx, qy, eps));
        }
      }
  }
}

TEST(Rules, CoreCountStopsAtNeed) {
  gd::CoreCount c(3);
  EXPECT_FALSE(c.add());
  EXPECT_FALSE(c.add());
  EXPECT_TRUE(c.add());
  EXPECT_EQ(gd::core_need(0), 1);
  EXPECT_EQ(gd::core_need(1), 1);
  EXPECT_EQ(gd::core_need(5), 5);
  EXPECT_TRUE(gd::CoreCount(0).add());
}

TEST(Rules, PairJoinByTheLaterRowsView) {
  using gd::Linkage;
  using gd::PairJoin;
  EXPECT_EQ(gd::pair_join(0, false, Linkage::kDbscan), PairJoin::kNone);
  EXPECT_EQ(gd::pair_join(3, false, Linkage::kDbscan), PairJoin::kUnite);
  // a earlier: b (later) sees a -> unite; only a sees b -> through b's claimer
  EXPECT_EQ(gd::pair_join(2, false, Linkage::kDbscan), PairJoin::kUnite);
  EXPECT_EQ(gd::pair_join(1, false, Linkage::kDbscan), PairJoin::kViaClaimer);
  EXPECT_EQ(gd::pair_join(1, true, Linkage::kDbscan), PairJoin::kUnite);
  EXPECT_EQ(gd::pair_join(2, true, Linkage::kDbscan), PairJoin::kViaClaimer);
  EXPECT_EQ(gd::pair_join(1, false, Linkage::kSingle), PairJoin::kUnite);
  EXPECT_EQ(gd::pair_join(2, true, Linkage::kSingle), PairJoin::kUnite);
}

TEST(Rules, FirstRowIds) {
  gd::FirstRowIds ids;
  std::vector<uint32_t> slot(4, gd::kNoise);
  EXPECT_EQ(ids.id(slot[3]), 0u);
  EXPECT_EQ(ids.id(slot[1]), 1u);
  EXPECT_EQ(ids.id(slot[3]), 0u);
  EXPECT_EQ(ids.next(), 2u);
  EXPECT_EQ(ids.id(slot[0]), 3u);
  EXPECT_EQ(ids.count(), 4u);
}

// A chain 0 - 1 - 2 whose pair (0, 1) may be one-sided; (1, 2) is seen
// both ways.  rel01 = 1 (only 0 sees 1), minpoints 2: all three are core
// (0: itself and 1; 1: itself and 2), and the pair joins through 1's first
// claimer, 0: one cluster rooted at 0.  rel01 = 2 (only 1 sees 0): 0 finds
// only itself, so it is a border point claimed by 1.
TEST(Rules, RelationRulesOnAOneSidedPair) {
  auto run = [](unsigned rel01, int64_t minpoints) {
    auto pairs = [&](auto&& fn) {
      fn(0u, 1u, rel01);
      fn(1u, 2u, 3u);
    };
    gd::AtomicUnionFind uf(3);
    uint8_t core[3];
    uint32_t count[3], claimer[3], rep[3];
    gd::cluster_relation(3, minpoints, pairs, uf, core, count, claimer, rep);
    return std::vector<uint32_t>{rep[0], rep[1], rep[2]};
  };
  EXPECT_EQ(run(1u, 2), (std::vector<uint32_t>{0, 0, 0}));  // 0 sees 1: 1's claimer
  EXPECT_EQ(run(3u, 2), (std::vector<uint32_t>{0, 0, 0}));
  EXPECT_EQ(run(2u, 2), (std::vector<uint32_t>{1, 1, 1}));
  // minpoints 3: only 1 is core (itself, 0 and 2), and claims 0 and 2.
  EXPECT_EQ(run(2u, 3), (std::vector<uint32_t>{1, 1, 1}));
  // minpoints 3 with 0 seeing 1 only: 1 finds itself and 2; nobody is core.
  EXPECT_EQ(run(1u, 3), (std::vector<uint32_t>{gd::kNoise, gd::kNoise, gd::kNoise}));
  // minpoints 1: either way joins.
  EXPECT_EQ(run(1u, 1), (std::vector<uint32_t>{0, 0, 0}));
}

}  // namespace
