// test_gpu_devices.cpp — several devices (gd_params.devices,
// gpu_dbscan.devices): the syntax of a device list (no GPU needed), and a
// partition split over a list of logical devices giving the ids of one
// device and of the CPU path, row for row.  One GPU stands for several by
// naming its ordinal more than once ("0,0", "0,0,0"): each entry is a device
// context of its own (streams, budget share, host thread), so the split's
// concurrency, hand-out of strips and merge are exercised; only the
// placement on distinct GPUs is not.  GPU tests skip where no GPU is usable.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "shapes.hpp"
#include "test_gpu_helpers.hpp"

namespace gd_test {
namespace {

struct Parsed {
  gd_status status;
  std::vector<int> ordinals;
  int count;
  std::string message;
};

Parsed parse(const char* text) {
  Parsed p;
  int buf[GD_MAX_DEVICES];
  gd_error err;
  p.count = -99;
  p.status = gd_parse_devices(text, buf, &p.count, &err);
  if (p.status == GD_OK && p.count > 0) p.ordinals.assign(buf, buf + p.count);
  p.message = p.status == GD_OK ? "" : err.message;
  return p;
}

TEST(DeviceList, ParsesListsAllAndEmpty) {
  EXPECT_EQ(parse("all").count, GD_DEVICES_ALL);
  EXPECT_EQ(parse(" ALL ").count, GD_DEVICES_ALL);
  EXPECT_EQ(parse("").count, 0);
  EXPECT_EQ(parse("   ").count, 0);
  EXPECT_EQ(parse("0").ordinals, (std::vector<int>{0}));
  EXPECT_EQ(parse(" 0 , 1 ").ordinals, (std::vector<int>{0, 1}));
  EXPECT_EQ(parse("0,0,0").ordinals, (std::vector<int>{0, 0, 0}));
  EXPECT_EQ(parse("3,1,1023").ordinals, (std::vector<int>{3, 1, 1023}));
  std::string many;
  for (int k = 0; k < GD_MAX_DEVICES; ++k) many += k ? ",0" : "0";
  EXPECT_EQ(parse(many.c_str()).count, GD_MAX_DEVICES);
}

TEST(DeviceList, RejectsBadSyntaxClearly) {
  struct Bad {
    const char* text;
    const char* says;
  } bad[] = {{"x", "\"x\" is not a device ordinal"},
             {"0,,1", "an empty item"},
             {"0,", "an empty item"},
             {",0", "an empty item"},
             {"-1", "\"-1\" is not a device ordinal"},
             {"1.5", "\"1.5\" is not a device ordinal"},
             {"0 1", "\"0 1\" is not a device ordinal"},
             {"all,0", "\"all\" is not a device ordinal"},
             {"1024", "out of range (0..1023)"},
             {"99999999999999999999", "out of range"}};
  for (const Bad& b : bad) {
    Parsed p = parse(b.text);
    EXPECT_EQ(p.status, GD_ERR_INVALID) << b.text;
    EXPECT_NE(p.message.find(b.says), std::string::npos) << b.text << ": " << p.message;
  }
  std::string many;
  for (int k = 0; k <= GD_MAX_DEVICES; ++k) many += k ? ",0" : "0";
  EXPECT_NE(parse(many.c_str()).message.find("more than 64 devices"), std::string::npos);
}

TEST(DeviceList, ParamsAreChecked) {
  Rows r = uniform_rows(100, 0, 10, 5);
  gd_params p;
  gd_params_init(&p);
  p.eps = 1;
  p.minpoints = 2;
  std::vector<int32_t> ids(r.size());
  gd_error err;
  p.ndevices = 2;  // devices NULL
  EXPECT_EQ(gd_cluster_points(r.x.data(), r.y.data(), r.kinds.data(), 100, &p, ids.data(),
                              nullptr, &err),
            GD_ERR_INVALID);
  int bad[] = {0, -3};
  p.devices = bad;
  EXPECT_EQ(gd_cluster_points(r.x.data(), r.y.data(), r.kinds.data(), 100, &p, ids.data(),
                              nullptr, &err),
            GD_ERR_INVALID);
  EXPECT_NE(std::string(err.message).find("ordinals must be"), std::string::npos) << err.message;
  // The CPU back end takes a valid list and ignores it.
  int ok[] = {0, 0};
  p.devices = ok;
  EXPECT_EQ(gd_cluster_points(r.x.data(), r.y.data(), r.kinds.data(), 100, &p, ids.data(),
                              nullptr, &err),
            GD_OK);
}

#ifdef GD_HAVE_CUDA

struct SplitResult {
  std::vector<int32_t> ids;
  gd::cuda::RunInfo info;
  gd_run_stats stats{};
};

// r on the logical devices devs, strips of at most max_points loaded points.
SplitResult split_run(const Rows& r, double eps, int64_t minpoints, const std::vector<int>& devs,
                      uint64_t max_points, size_t budget = 0) {
  gd_params p = params_for(eps, minpoints, budget);
  p.devices = devs.data();
  p.ndevices = static_cast<int>(devs.size());
  gd::CancelToken none(p);
  gd::cuda::Options opts;
  opts.max_strip_points = max_points;
  SplitResult out;
  std::vector<uint32_t> rep(r.size(), 12345);
  gd::cuda::cluster_host(view(r), p, none, rep.data(), out.stats, opts, &out.info);
  out.ids = ids_of(r, rep, minpoints);
  return out;
}

// The split over each list vs one device in the same strips and vs the CPU.
void expect_split_matches(const Rows& r, double eps, int64_t minpoints, uint64_t max_points,
                          const std::string& what) {
  std::vector<int32_t> want = cpu_ids(r, eps, minpoints);
  SplitResult one = split_run(r, eps, minpoints, {0}, max_points);
  EXPECT_EQ(first_difference(one.ids, want), -1) << what << ": one device vs CPU";
  for (const std::vector<int>& devs : {std::vector<int>{0, 0}, std::vector<int>{0, 0, 0}}) {
    SplitResult got = split_run(r, eps, minpoints, devs, max_points);
    long d = first_difference(got.ids, want);
    EXPECT_EQ(d, -1) << what << ", eps " << eps << " minpoints " << minpoints << ", "
                     << devs.size() << " logical devices, " << got.info.strips
                     << " strips of at most " << max_points << ": row " << d << " split "
                     << (d >= 0 ? got.ids[d] : 0) << " CPU " << (d >= 0 ? want[d] : 0);
    EXPECT_EQ(first_difference(got.ids, one.ids), -1) << what << ": split vs one device";
    EXPECT_EQ(got.info.devices, devs.size());
    EXPECT_EQ(got.stats.devices, static_cast<int32_t>(devs.size()));
    EXPECT_EQ(got.info.strips, one.info.strips) << what << ": the same plan";
  }
}

class GpuDevicesSplit : public ::testing::TestWithParam<ShapeCase> {};

TEST_P(GpuDevicesSplit, SameIdsAsOneDeviceAndCpu) {
  GD_REQUIRE_GPU();
  auto [shape, eps, minpoints] = GetParam();
  Rows r = wide_shape(shape, 311);
  expect_split_matches(r, eps, minpoints, r.size() / 10, "a tenth");
}

INSTANTIATE_TEST_SUITE_P(Random, GpuDevicesSplit, all_shape_cases(), shape_case_name);

// Pairs that one side sees and the other does not (as in test_gpu_strips),
// cut by strips of every size, the strips spread over logical devices.
TEST(GpuDevicesSplitExact, OneSidedPairs) {
  GD_REQUIRE_GPU();
  Rows r = one_sided_copies();
  for (int64_t m : {1, 2, 3, 4})
    for (uint64_t cap : {64, 200, 700}) expect_split_matches(r, 1.0, m, cap, "one-sided");
}

// Chains at exactly eps (give or take an ulp) along x, cut at every strip.
TEST(GpuDevicesSplitExact, ChainsAtTheEpsBoundary) {
  GD_REQUIRE_GPU();
  std::mt19937_64 rng(321);
  Rows r;
  double eps = 1.0 / 3.0;
  double x = 1e6 + 0.1;
  for (int k = 0; k < 6000; ++k) {
    r.add(x, (k % 3) * 0.25 * eps);
    double step = eps;
    if (rng() % 3 == 0) step = std::nextafter(step, 2 * eps);
    if (rng() % 3 == 0) step = std::nextafter(step, 0.0);
    x += step;
  }
  for (int64_t m : {2, 4})
    for (uint64_t cap : {300, 1000}) expect_split_matches(r, eps, m, cap, "chain");
}

// Through the C API: split_min_points splits (no test knob), the budget of
// one device splits when split_min_points is 0, and a smaller partition runs
// on params.device alone.
TEST(GpuDevicesApi, ThresholdAndBudgetSplit) {
  GD_REQUIRE_GPU();
  Rows r = blob_rows(400000, 60, 4000, 8, 331);
  RunResult cpu = cluster_on(r, 1.0, 5, GD_BACKEND_CPU);
  ASSERT_EQ(cpu.status, GD_OK);
  int devs[] = {0, 0};
  auto run = [&](int64_t split_min, size_t budget) {
    gd_params p = params_for(1.0, 5, budget);
    p.devices = devs;
    p.ndevices = 2;
    p.split_min_points = split_min;
    RunResult out;
    out.ids.assign(r.size(), -7);
    out.status = gd_cluster_points(r.x.data(), r.y.data(), r.kinds.data(),
                                   static_cast<int64_t>(r.size()), &p, out.ids.data(), &out.stats,
                                   &out.err);
    return out;
  };
  RunResult by_threshold = run(100000, 0);
  ASSERT_EQ(by_threshold.status, GD_OK) << by_threshold.err.message;
  EXPECT_EQ(by_threshold.stats.devices, 2);
  EXPECT_GE(by_threshold.stats.strips, 4);
  EXPECT_EQ(first_difference(by_threshold.ids, cpu.ids), -1);
  // 400k points need ~19 MB for the sort stage: over an 8 MiB budget.
  RunResult by_budget = run(0, size_t{8} << 20);
  ASSERT_EQ(by_budget.status, GD_OK) << by_budget.err.message;
  EXPECT_EQ(by_budget.stats.devices, 2);
  EXPECT_EQ(first_difference(by_budget.ids, cpu.ids), -1);
  RunResult below = run(int64_t{1} << 40, 0);
  ASSERT_EQ(below.status, GD_OK) << below.err.message;
  EXPECT_EQ(below.stats.devices, 1);
  EXPECT_EQ(below.stats.strips, 0);
  EXPECT_EQ(first_difference(below.ids, cpu.ids), -1);
}

// Logical devices on one GPU share its budget.
TEST(GpuDevicesApi, SharedGpuSplitsTheBudget) {
  GD_REQUIRE_GPU();
  Rows r = wide_shape(Shape::kBlobs, 341);
  size_t budget = size_t{64} << 20;
  SplitResult got = split_run(r, 1.0, 4, {0, 0}, r.size() / 8, budget);
  EXPECT_EQ(got.info.budget_bytes, budget / 2);
  EXPECT_LE(got.info.peak_device_bytes, budget / 2);
  EXPECT_EQ(first_difference(got.ids, cpu_ids(r, 1.0, 4)), -1);
}

// "all": every visible device; a missing ordinal is GD_ERR_NO_DEVICE with
// its number, even for a partition that would not be split.
TEST(GpuDevicesApi, AllAndMissingOrdinals) {
  GD_REQUIRE_GPU();
  Rows r = wide_shape(Shape::kUniform, 351);
  std::vector<int32_t> want = cpu_ids(r, 1.0, 4);
  gd_params p = params_for(1.0, 4);
  p.ndevices = GD_DEVICES_ALL;
  p.split_min_points = 1;
  std::vector<int32_t> ids(r.size());
  gd_run_stats st{};
  gd_error err;
  ASSERT_EQ(gd_cluster_points(r.x.data(), r.y.data(), r.kinds.data(),
                              static_cast<int64_t>(r.size()), &p, ids.data(), &st, &err),
            GD_OK)
      << err.message;
  EXPECT_EQ(first_difference(ids, want), -1);
  int count = gd_gpu_device_count();
  EXPECT_GE(count, 1);
  EXPECT_EQ(st.devices, count > 1 ? count : 1);
  int missing[] = {0, 1023};
  p.devices = missing;
  p.ndevices = 2;
  p.split_min_points = int64_t{1} << 40;
  EXPECT_EQ(gd_cluster_points(r.x.data(), r.y.data(), r.kinds.data(),
                              static_cast<int64_t>(r.size()), &p, ids.data(), &st, &err),
            GD_ERR_NO_DEVICE);
  EXPECT_NE(std::string(err.message).find("CUDA device 1023 of gpu_dbscan.devices does not exist"),
            std::string::npos)
      << err.message;
}

// A cancel stops every device's thread; the device works afterwards.
TEST(GpuDevicesCancel, CancelMidSplit) {
  GD_REQUIRE_GPU();
  Rows r = uniform_rows(3000000, 0, 3000, 361);
  std::atomic<int> polls{0};
  gd_params p = params_for(1.0, 5);
  int devs[] = {0, 0};
  p.devices = devs;
  p.ndevices = 2;
  p.should_cancel = [](void* arg) { return ++*static_cast<std::atomic<int>*>(arg) > 40 ? 1 : 0; };
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
  Rows small = blob_rows(20000, 10, 300, 4, 362);
  EXPECT_EQ(split_run(small, 1.0, 5, {0, 0}, 4000).ids, cpu_ids(small, 1.0, 5));
}

#else

TEST(GpuDevices, NotBuiltWithCuda) { GTEST_SKIP() << "core built without CUDA"; }

#endif

}  // namespace
}  // namespace gd_test
