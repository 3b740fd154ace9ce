// test_inscy_gpu.cpp — the GPU path of the subspace clustering against the
// brute-force reference and the CPU path; skipped without a usable GPU.
#include <gtest/gtest.h>

#include "../../bench/inscy_data.hpp"
#include "inscy_helpers.hpp"
#include "test_gpu_helpers.hpp"

namespace {

using gd_test::expect_matches_reference;
using gd_test::InscyParams;
using gd_test::InscyRun;
using gd_test::planted_rows;
using gd_test::run_inscy;

TEST(InscyGpuTest, PlantedClustersMatchTheReference) {
  GD_REQUIRE_GPU();
  uint64_t seed = 500;
  for (int rep = 0; rep < 4; ++rep) {
    auto rows = planted_rows(250, 6, 5, 50, 0.04, 0, seed++);
    expect_matches_reference(rows, 250, 6, {0.1, 5, 10, 1.0, 1.0}, GD_BACKEND_GPU);
    expect_matches_reference(rows, 250, 6, {0.08, 3, 5, 0.5, 0.7}, GD_BACKEND_GPU);
  }
}

TEST(InscyGpuTest, TiesAtEpsAndConstantColumns) {
  GD_REQUIRE_GPU();
  auto rows = planted_rows(200, 5, 4, 40, 0.1, 0.1, 3);
  for (int j = 0; j < 5; ++j) {
    rows[j] = 0.0;
    rows[5 + j] = 1.0;
  }
  expect_matches_reference(rows, 200, 5, {0.1, 4, 6, 1.0, 1.0}, GD_BACKEND_GPU);
  for (int i = 0; i < 200; ++i) rows[size_t(i) * 5 + 2] = 7.0;
  expect_matches_reference(rows, 200, 5, {0.2, 6, 10, 1.0, 1.0}, GD_BACKEND_GPU);
}

TEST(InscyGpuTest, RealDataMatchesTheCpu) {
  GD_REQUIRE_GPU();
  for (const auto& spec : gd_inscy_data::specs()) {
    if (std::string(spec.name) == "sky_1x2") continue;
    gd_inscy_data::DataSet ds;
    std::string why;
    if (!gd_inscy_data::load(spec, ds, &why)) GTEST_SKIP() << why;
    InscyParams p{0.01, 8, gd_inscy_data::paper_min_size(ds.n), 1.0, 1.0};
    if (ds.n < 1000) expect_matches_reference(ds.rows, ds.n, ds.d, p, GD_BACKEND_GPU);
    InscyRun gpu = run_inscy(ds.rows, ds.n, ds.d, p, GD_BACKEND_GPU);
    InscyRun cpu = run_inscy(ds.rows, ds.n, ds.d, p, GD_BACKEND_CPU);
    ASSERT_EQ(gpu.status, GD_OK) << gpu.err.message;
    ASSERT_EQ(cpu.status, GD_OK) << cpu.err.message;
    EXPECT_EQ(gpu.stats.backend, GD_BACKEND_GPU);
    EXPECT_EQ(gd_test::first_difference(gpu.clusters, cpu.clusters), "") << spec.name;
  }
}

TEST(InscyGpuTest, BudgetIsACleanError) {
  GD_REQUIRE_GPU();
  auto rows = planted_rows(3000, 6, 4, 500, 0.03, 0, 3);
  InscyRun r = run_inscy(rows, 3000, 6, {0.08, 4, 8, 1.0, 1.0}, GD_BACKEND_GPU, 0, 64 << 10);
  EXPECT_TRUE(r.status == GD_ERR_DEVICE_NOMEM || r.status == GD_ERR_NOMEM) << r.err.message;
}

int always_cancel(void*) { return 1; }

TEST(InscyGpuTest, CancelStopsTheRun) {
  GD_REQUIRE_GPU();
  auto rows = planted_rows(300, 5, 4, 50, 0.03, 0, 3);
  InscyRun r = run_inscy(rows, 300, 5, {0.08, 4, 8, 1.0, 1.0}, GD_BACKEND_GPU, 0, 0,
                         always_cancel);
  EXPECT_EQ(r.status, GD_ERR_CANCELLED);
}

}  // namespace
