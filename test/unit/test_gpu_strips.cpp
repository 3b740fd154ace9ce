// test_gpu_strips.cpp — the out-of-core path (cuda/strips.cu): points
// clustered strip by strip give the same ids as the CPU path, whatever the
// strip size, on every data family, on pairs that only one side sees, and
// when the budget (not a test knob) makes the run split; points too dense to
// split are a clear GD_ERR_DEVICE_NOMEM; a cancel mid-strip returns quickly.
// Skipped where no GPU is usable.
#include <gtest/gtest.h>

#include <chrono>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "shapes.hpp"
#include "test_gpu_helpers.hpp"

namespace gd_test {
namespace {

#ifdef GD_HAVE_CUDA

// The run in strips of at most max_points loaded points vs the CPU path;
// returns the strips used.
uint32_t expect_strips_match(const Rows& r, double eps, int64_t minpoints, uint64_t max_points,
                             const std::string& what) {
  std::vector<int32_t> want = cpu_ids(r, eps, minpoints);
  gd::cuda::Options opts;
  opts.max_strip_points = max_points;
  GpuResult got = gpu_run(r, eps, minpoints, opts);
  long d = first_difference(got.ids, want);
  EXPECT_EQ(d, -1) << what << ", eps " << eps << " minpoints " << minpoints << ", "
                   << got.info.strips << " strips of at most " << max_points << ": row " << d
                   << " GPU " << (d >= 0 ? got.ids[d] : 0) << " CPU " << (d >= 0 ? want[d] : 0);
  return got.info.strips;
}

Rows wide(Shape shape, uint64_t seed) { return wide_shape(shape, seed); }

class GpuStrips : public ::testing::TestWithParam<ShapeCase> {};

TEST_P(GpuStrips, SameIdsAsCpu) {
  GD_REQUIRE_GPU();
  auto [shape, eps, minpoints] = GetParam();
  Rows r = wide(shape, 211);
  // Strips of about a third and a tenth of the points (halos included).
  uint32_t few = expect_strips_match(r, eps, minpoints, r.size() / 3, "a third");
  uint32_t many = expect_strips_match(r, eps, minpoints, r.size() / 10, "a tenth");
  EXPECT_GE(few, 3u);
  EXPECT_GE(many, few);
}

INSTANTIATE_TEST_SUITE_P(Random, GpuStrips, all_shape_cases(), shape_case_name);

// Chains at exactly eps (give or take an ulp) along x: whether a chain
// breaks depends on single ulps, and strips cut them at every size.
TEST(GpuStripsExact, ChainsAtTheEpsBoundary) {
  GD_REQUIRE_GPU();
  std::mt19937_64 rng(221);
  for (double eps : {0.1, 1.0 / 3.0, 1.0}) {
    Rows r;
    double x = 1e6 + 0.1;
    for (int k = 0; k < 6000; ++k) {
      double y = (k % 3) * 0.25 * eps;
      r.add(x, y);
      double step = eps;
      if (rng() % 3 == 0) step = std::nextafter(step, 2 * eps);
      if (rng() % 3 == 0) step = std::nextafter(step, 0.0);
      x += step;
    }
    for (int64_t m : {2, 3, 4, 6})
      for (uint64_t cap : {300, 1000}) expect_strips_match(r, eps, m, cap, "chain");
  }
}

// Pairs that one side sees and the other does not (shapes.hpp).
TEST(GpuStripsExact, OneSidedPairs) {
  GD_REQUIRE_GPU();
  Rows r = one_sided_copies();
  for (int64_t m : {1, 2, 3, 4})
    for (uint64_t cap : {64, 200, 700}) expect_strips_match(r, 1.0, m, cap, "one-sided");
}

// The budget alone (no test knob) splits the run: 2M points whose sort stage
// needs ~96 MB, under a 48 MiB budget.  Same ids, budget held.
TEST(GpuStripsBudget, BudgetSplitsTheRun) {
  GD_REQUIRE_GPU();
  Rows r = blob_rows(2000000, 200, 20000, 15, 231);
  std::vector<int32_t> want = cpu_ids(r, 1.0, 10);
  gd::cuda::Options opts;
  size_t budget = size_t{48} << 20;
  GpuResult got = gpu_run(r, 1.0, 10, opts, budget);
  EXPECT_EQ(first_difference(got.ids, want), -1);
  EXPECT_GE(got.info.strips, 2u);
  EXPECT_LE(got.info.peak_device_bytes, budget);
  std::printf("  2M points under 48 MiB: %u strips, %llu points loaded, peak %.1f MiB\n",
              got.info.strips, static_cast<unsigned long long>(got.info.strip_points),
              got.info.peak_device_bytes / 1048576.0);
  // Through the C API with backend = gpu too.
  RunResult api = cluster_on(r, 1.0, 10, GD_BACKEND_GPU, budget);
  ASSERT_EQ(api.status, GD_OK) << api.err.message;
  EXPECT_EQ(first_difference(api.ids, want), -1);
  EXPECT_EQ(api.stats.strips, static_cast<int64_t>(got.info.strips));
  // In one piece, no strips.
  RunResult whole = cluster_on(r, 1.0, 10, GD_BACKEND_GPU);
  ASSERT_EQ(whole.status, GD_OK) << whole.err.message;
  EXPECT_EQ(whole.stats.strips, 0);
}

TEST(GpuStripsBudget, TooDenseToSplitIsNomem) {
  GD_REQUIRE_GPU();
  Rows r;
  for (int i = 0; i < 50000; ++i) r.add(5.0, i * 1e-3);  // one column
  gd::cuda::Options opts;
  opts.max_strip_points = 10000;
  gd_params p = params_for(1.0, 4);
  gd::CancelToken none(p);
  gd_run_stats st{};
  std::vector<uint32_t> rep(r.size());
  try {
    gd::cuda::cluster_host(view(r), p, none, rep.data(), st, opts);
    ADD_FAILURE() << "expected GD_ERR_DEVICE_NOMEM";
  } catch (const gd::Error& e) {
    EXPECT_EQ(e.status(), GD_ERR_DEVICE_NOMEM);
    EXPECT_NE(std::string(e.what()).find("strip"), std::string::npos) << e.what();
  }
  // Through the C API, under a budget too small for one strip: the same.
  RunResult api = cluster_on(r, 1.0, 4, GD_BACKEND_GPU, size_t{1} << 20);
  EXPECT_EQ(api.status, GD_ERR_DEVICE_NOMEM) << api.err.message;
  EXPECT_NE(std::string(api.err.message).find("budget"), std::string::npos) << api.err.message;
}

int cancel_after_polls(void* arg) {
  auto* polls = static_cast<int*>(arg);
  return ++*polls > 40 ? 1 : 0;
}

// report_step hears every strip in order (k of n before strip k, then n of
// n), from the calling thread: what gpu_dbscan_progress() shows as step/steps.
TEST(GpuStripsProgress, ReportsEachStrip) {
  GD_REQUIRE_GPU();
  struct Heard {
    std::vector<std::pair<int64_t, int64_t>> steps;
    std::thread::id caller = std::this_thread::get_id();
    bool other_thread = false;
  } heard;
  Rows r = wide(Shape::kUniform, 231);
  gd_params p = params_for(1.0, 4);
  p.report_arg = &heard;
  p.report_step = [](void* arg, int64_t done, int64_t total) {
    auto* h = static_cast<Heard*>(arg);
    h->steps.emplace_back(done, total);
    if (std::this_thread::get_id() != h->caller) h->other_thread = true;
  };
  gd::CancelToken none(p);
  gd_run_stats st{};
  gd::cuda::RunInfo info;
  gd::cuda::Options opts;
  opts.max_strip_points = r.size() / 5;
  std::vector<uint32_t> rep(r.size());
  gd::cuda::cluster_host(view(r), p, none, rep.data(), st, opts, &info);
  const int64_t n = info.strips;
  ASSERT_GE(n, 3);
  ASSERT_EQ(heard.steps.size(), static_cast<size_t>(n + 1));
  for (int64_t k = 0; k <= n; ++k) {
    EXPECT_EQ(heard.steps[k].first, k);
    EXPECT_EQ(heard.steps[k].second, n);
  }
  EXPECT_FALSE(heard.other_thread);
  EXPECT_EQ(ids_of(r, rep, 4), cpu_ids(r, 1.0, 4));
}

TEST(GpuStripsCancel, CancelMidStrips) {
  GD_REQUIRE_GPU();
  Rows r = uniform_rows(3000000, 0, 3000, 241);
  int polls = 0;
  gd_params p = params_for(1.0, 5);
  p.should_cancel = cancel_after_polls;
  p.cancel_arg = &polls;
  gd::CancelToken token(p);
  gd::cuda::Options opts;
  opts.max_strip_points = 200000;
  gd_run_stats st{};
  std::vector<uint32_t> rep(r.size());
  auto t0 = std::chrono::steady_clock::now();
  try {
    gd::cuda::cluster_host(view(r), p, token, rep.data(), st, opts);
    ADD_FAILURE() << "expected a cancel";
  } catch (const gd::Error& e) {
    EXPECT_EQ(e.status(), GD_ERR_CANCELLED) << e.what();
  }
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(s, 5.0);
  // The device works afterwards.
  Rows small = blob_rows(20000, 10, 300, 4, 242);
  gd::cuda::Options plain;
  EXPECT_EQ(first_difference(gpu_run(small, 1.0, 5, plain).ids, cpu_ids(small, 1.0, 5)), -1);
}

#else

TEST(GpuStrips, NotBuiltWithCuda) { GTEST_SKIP() << "core built without CUDA"; }

#endif

}  // namespace
}  // namespace gd_test
