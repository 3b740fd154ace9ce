// test_inscy.cpp — the CPU path of the subspace clustering (gd_inscy.h)
// against the brute-force reference (inscy_reference.cpp): planted subspace
// clusters, ties at eps, constant columns, the min_size and redundancy
// boundaries, the real data sets, and the API's errors, budget and cancel.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "../../bench/inscy_data.hpp"
#include "inscy.hpp"
#include "inscy_helpers.hpp"

namespace {

using gd_test::expect_matches_reference;
using gd_test::InscyParams;
using gd_test::InscyRun;
using gd_test::planted_rows;
using gd_test::run_inscy;

TEST(InscyExactTest, SqrtLimitIsTheLastSumThatPasses) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(-12, 1);
  for (int i = 0; i < 20000; ++i) {
    double eps = std::pow(10.0, u(rng));
    double t = gd::inscy::sqrt_limit(eps);
    ASSERT_LE(std::sqrt(t), eps) << eps;
    ASSERT_GT(std::sqrt(std::nextafter(t, 1e300)), eps) << eps;
  }
  EXPECT_EQ(gd::inscy::sqrt_limit(1e300), std::numeric_limits<double>::infinity());
}

TEST(InscyExactTest, DenseNeedIsTheThresholdRoundedUp) {
  gd_inscy_params p{0.01, 8, 10, 1.0, 1.0};
  EXPECT_EQ(gd::inscy::dense_need(p, 7494, 1), 150);  // 7494 * 2 * 0.01 = 149.88
  EXPECT_EQ(gd::inscy::dense_need(p, 7494, 2), 8);    // 2.35 < mu
  p.density_factor = 1e9;
  EXPECT_GT(gd::inscy::dense_need(p, 100, 1), 99);    // nobody can be dense
}

struct Case {
  int n, d, planted, group;
  double spread, quantum;
  InscyParams p;
};

TEST(InscyCpuTest, PlantedClustersMatchTheReference) {
  const Case cases[] = {
      {200, 5, 4, 40, 0.03, 0, {0.08, 4, 8, 1.0, 1.0}},
      {250, 6, 5, 50, 0.04, 0, {0.1, 5, 10, 1.0, 1.0}},
      {150, 7, 3, 45, 0.05, 0, {0.12, 3, 6, 0.5, 1.0}},
      {300, 4, 4, 60, 0.02, 0, {0.06, 6, 12, 2.0, 0.5}},
      {220, 6, 6, 30, 0.05, 0, {0.1, 4, 5, 1.0, 2.0}},
      {180, 5, 3, 50, 0.1, 0, {0.15, 8, 20, 0.2, 1.0}},
  };
  uint64_t seed = 11;
  size_t total = 0;
  for (const Case& c : cases)
    for (int rep = 0; rep < 3; ++rep) {
      auto rows = planted_rows(c.n, c.d, c.planted, c.group, c.spread, c.quantum, seed++);
      size_t k = 0;
      expect_matches_reference(rows, c.n, c.d, c.p, GD_BACKEND_CPU, &k);
      total += k;
    }
  EXPECT_GT(total, 50u);  // the cases do find clusters
}

// Values on a lattice of step 0.1 and eps 0.1: many distances are eps give or
// take the last bit, on both sides.
TEST(InscyCpuTest, TiesAtEps) {
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    auto rows = planted_rows(200, 5, 4, 40, 0.1, 0.1, seed);
    // pin the range to [0, 1] so that normalising keeps the lattice
    for (int j = 0; j < 5; ++j) {
      rows[j] = 0.0;
      rows[5 + j] = 1.0;
    }
    expect_matches_reference(rows, 200, 5, {0.1, 4, 6, 1.0, 1.0}, GD_BACKEND_CPU);
    expect_matches_reference(rows, 200, 5, {0.2, 6, 10, 1.0, 1.0}, GD_BACKEND_CPU);
  }
}

TEST(InscyCpuTest, ConstantColumns) {
  auto rows = planted_rows(150, 5, 3, 40, 0.03, 0, 5);
  for (int i = 0; i < 150; ++i) {
    rows[size_t(i) * 5 + 1] = 3.5;
    rows[size_t(i) * 5 + 4] = -2.0;
  }
  expect_matches_reference(rows, 150, 5, {0.08, 4, 8, 1.0, 1.0}, GD_BACKEND_CPU);
  expect_matches_reference(rows, 150, 5, {0.08, 4, 8, 1.0, 0.9}, GD_BACKEND_CPU);
}

// min_size and redundancy exactly at a cluster's size: each side of the
// boundary, against the reference, on data whose cluster sizes we read off
// the reference itself.
TEST(InscyCpuTest, MinSizeAndRedundancyBoundaries) {
  auto rows = planted_rows(200, 5, 4, 40, 0.03, 0, 21);
  InscyParams base{0.08, 4, 1, 1.0, 1.0};
  auto all = gd_test::reference_inscy(rows, 200, 5, base);
  ASSERT_FALSE(all.empty());
  std::vector<int64_t> sizes;
  for (auto& c : all) sizes.push_back(static_cast<int64_t>(c.members.size()));
  std::sort(sizes.begin(), sizes.end());
  for (int64_t m : {sizes[sizes.size() / 2], sizes.back(), sizes.back() + 1}) {
    InscyParams p = base;
    p.min_size = m;
    expect_matches_reference(rows, 200, 5, p, GD_BACKEND_CPU);
    p.min_size = m - 1 > 0 ? m - 1 : 1;
    expect_matches_reference(rows, 200, 5, p, GD_BACKEND_CPU);
  }
  // r = |C'| / |C| for a pair of nested clusters sits on the boundary
  for (double r : {0.25, 0.5, 1.0, 1.5, 2.0, 40.0 / 39.0, 39.0 / 40.0}) {
    InscyParams p = base;
    p.min_size = 3;
    p.redundancy = r;
    expect_matches_reference(rows, 200, 5, p, GD_BACKEND_CPU);
  }
}

// A small budget cuts each level into many batches of subspaces.
TEST(InscyCpuTest, SmallBatchesGiveTheSameAnswer) {
  auto rows = planted_rows(300, 5, 5, 50, 0.03, 0, 77);
  InscyParams p{0.08, 4, 8, 1.0, 1.0};
  auto want = gd_test::reference_inscy(rows, 300, 5, p);
  InscyRun small = run_inscy(rows, 300, 5, p, GD_BACKEND_CPU, 0, 64 << 10);
  ASSERT_EQ(small.status, GD_OK) << small.err.message;
  EXPECT_GT(small.stats.batches, 5);
  EXPECT_FALSE(want.empty());
  EXPECT_EQ(gd_test::first_difference(small.clusters, want), "");
}

TEST(InscyCpuTest, ThreadCountsGiveOneAnswer) {
  auto rows = planted_rows(400, 6, 6, 60, 0.03, 0, 99);
  InscyParams p{0.07, 5, 10, 1.0, 1.0};
  auto one = run_inscy(rows, 400, 6, p, GD_BACKEND_CPU, 1);
  auto four = run_inscy(rows, 400, 6, p, GD_BACKEND_CPU, 4);
  ASSERT_EQ(one.status, GD_OK);
  ASSERT_EQ(four.status, GD_OK);
  EXPECT_FALSE(one.clusters.empty());
  EXPECT_EQ(gd_test::first_difference(four.clusters, one.clusters), "");
}

TEST(InscyCpuTest, RealDataMatchesTheReference) {
  for (const char* name : {"glass", "vowel"}) {
    gd_inscy_data::DataSet ds;
    std::string why;
    const gd_inscy_data::Spec* spec = nullptr;
    for (auto& s : gd_inscy_data::specs())
      if (std::string(s.name) == name) spec = &s;
    if (!gd_inscy_data::load(*spec, ds, &why)) GTEST_SKIP() << why;
    // the paper's parameters, and looser ones that find more
    InscyParams paper{0.01, 8, gd_inscy_data::paper_min_size(ds.n), 1.0, 1.0};
    expect_matches_reference(ds.rows, ds.n, ds.d, paper, GD_BACKEND_CPU);
    if (ds.n < 500) {
      expect_matches_reference(ds.rows, ds.n, ds.d, {0.05, 4, 5, 1.0, 1.0}, GD_BACKEND_CPU);
      expect_matches_reference(ds.rows, ds.n, ds.d, {0.1, 8, 10, 0.5, 0.8}, GD_BACKEND_CPU);
    }
  }
}

TEST(InscyApiTest, RejectsBadArguments) {
  std::vector<double> rows = {0, 1, 2, 3, 4, 5};
  InscyParams ok{0.1, 1, 1, 1.0, 1.0};
  EXPECT_EQ(run_inscy(rows, 3, 2, ok, GD_BACKEND_CPU).status, GD_OK);
  EXPECT_EQ(run_inscy(rows, 6, 1, ok, GD_BACKEND_CPU).status, GD_ERR_INVALID);
  EXPECT_EQ(run_inscy(std::vector<double>(65 * 2), 2, 65, ok, GD_BACKEND_CPU).status,
            GD_ERR_INVALID);
  for (InscyParams bad : {InscyParams{0, 1, 1, 1, 1}, InscyParams{-1, 1, 1, 1, 1},
                          InscyParams{NAN, 1, 1, 1, 1}, InscyParams{0.1, 0, 1, 1, 1},
                          InscyParams{0.1, 1, 0, 1, 1}, InscyParams{0.1, 1, 1, 0, 1},
                          InscyParams{0.1, 1, 1, 1, -1}, InscyParams{0.1, 1, 1, 1, INFINITY}}) {
    InscyRun r = run_inscy(rows, 3, 2, bad, GD_BACKEND_CPU);
    EXPECT_EQ(r.status, GD_ERR_INVALID) << r.err.message;
  }
  rows[3] = NAN;
  InscyRun r = run_inscy(rows, 3, 2, ok, GD_BACKEND_CPU);
  EXPECT_EQ(r.status, GD_ERR_INVALID);
  EXPECT_NE(std::string(r.err.message).find("row 2"), std::string::npos) << r.err.message;
}

TEST(InscyApiTest, EmptyInputHasNoClusters) {
  InscyRun r = run_inscy(std::vector<double>{}, 0, 3, {0.1, 1, 1, 1.0, 1.0}, GD_BACKEND_CPU);
  ASSERT_EQ(r.status, GD_OK) << r.err.message;
  EXPECT_TRUE(r.clusters.empty());
}

// 40 constant columns: every subspace holds a cluster of all rows, so the
// levels grow as C(40, s); the budget stops it with a clean error.
TEST(InscyApiTest, SubspaceExplosionIsABudgetError) {
  std::vector<double> rows(10 * 40, 1.0);
  InscyRun r = run_inscy(rows, 10, 40, {0.1, 1, 1, 1.0, 1.0}, GD_BACKEND_CPU, 0, 8 << 20);
  EXPECT_EQ(r.status, GD_ERR_NOMEM) << r.err.message;
  // a few columns: every one of the 2^6 - 1 subspaces, all rows
  std::vector<double> six(10 * 6, 1.0);
  InscyRun all = run_inscy(six, 10, 6, {0.1, 1, 1, 1.0, 1.0}, GD_BACKEND_CPU);
  ASSERT_EQ(all.status, GD_OK) << all.err.message;
  EXPECT_EQ(all.clusters.size(), 63u);
}

int always_cancel(void*) { return 1; }

TEST(InscyApiTest, CancelStopsTheRun) {
  auto rows = planted_rows(300, 5, 4, 50, 0.03, 0, 3);
  InscyRun r = run_inscy(rows, 300, 5, {0.08, 4, 8, 1.0, 1.0}, GD_BACKEND_CPU, 0, 0,
                         always_cancel);
  EXPECT_EQ(r.status, GD_ERR_CANCELLED);
}

TEST(InscyApiTest, BudgetIsACleanError) {
  auto rows = planted_rows(3000, 6, 4, 500, 0.03, 0, 3);
  InscyRun r = run_inscy(rows, 3000, 6, {0.08, 4, 8, 1.0, 1.0}, GD_BACKEND_CPU, 0, 4096);
  EXPECT_EQ(r.status, GD_ERR_NOMEM);
  EXPECT_NE(std::string(r.err.message).find("gpu_dbscan.device_memory_budget"), std::string::npos)
      << r.err.message;
}

// The run's host memory is charged to the ledger (gpu_dbscan.max_query_memory,
// max_total_memory): past the query limit a clean error naming it, and
// nothing stays charged after the call, whether it failed or not.
TEST(InscyApiTest, MemoryLedgerLimitsTheRun) {
  auto rows = planted_rows(3000, 6, 4, 500, 0.03, 0, 3);
  const InscyParams p{0.08, 4, 8, 1.0, 1.0};
  int64_t used = 0, mine = 0;
  gd_memory_limits unlimited{0, 0, &used, &mine};
  gd_memory_configure(&unlimited);
  InscyRun ok = run_inscy(rows, 3000, 6, p, GD_BACKEND_CPU, 0);
  EXPECT_EQ(ok.status, GD_OK) << ok.err.message;
  EXPECT_EQ(gd_memory_held(), 0);
  gd_memory_limits tight{64 << 10, 0, &used, &mine};
  gd_memory_configure(&tight);
  InscyRun bad = run_inscy(rows, 3000, 6, p, GD_BACKEND_CPU, 0);
  gd_memory_configure(nullptr);
  EXPECT_EQ(bad.status, GD_ERR_NOMEM);
  EXPECT_NE(std::string(bad.err.message).find("gpu_dbscan.max_query_memory"), std::string::npos)
      << bad.err.message;
  EXPECT_EQ(gd_memory_held(), 0);
  EXPECT_EQ(used, 0);
}

}  // namespace
