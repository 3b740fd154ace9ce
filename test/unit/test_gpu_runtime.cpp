// test_gpu_runtime.cpp — the GPU back end's resource behaviour: batches (many
// of them give the same labels), the memory budget (held to, and a clear
// GD_ERR_DEVICE_NOMEM when it is too small), cancellation mid-run (returns
// within a second, device still usable), repeated runs without device memory
// growth, and the device-resident entry point.  Skipped where no GPU is usable.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "backend.hpp"
#include "test_gpu_helpers.hpp"


namespace gd_test {
namespace {

#ifdef GD_HAVE_CUDA

TEST(GpuBatches, ManyBatchesSameLabels) {
  GD_REQUIRE_GPU();
  Rows r = blob_rows(300000, 40, 2000, 6, 101);
  for (int64_t m : {1, 4, 12}) {
    std::vector<int32_t> want = cpu_ids(r, 1.5, m);
    gd::cuda::Options one;
    GpuResult a = gpu_run(r, 1.5, m, one);
    EXPECT_EQ(first_difference(a.ids, want), -1) << "default batches, minpoints " << m;
    gd::cuda::Options many;
    many.max_batch_points = 1000;  // 300 batches
    GpuResult b = gpu_run(r, 1.5, m, many);
    EXPECT_GE(b.stats.batches, 300);
    EXPECT_EQ(first_difference(b.ids, want), -1) << "many batches, minpoints " << m;
    gd::cuda::Options tiny;
    tiny.work_per_batch = 1;  // one batch per warp of points
    tiny.chunk_points = 4096;  // through the pinned lanes in many small pieces
    GpuResult c = gpu_run(r, 1.5, m, tiny);
    EXPECT_GE(c.stats.batches, 9000);
    EXPECT_EQ(first_difference(c.ids, want), -1) << "a batch per warp, minpoints " << m;
    gd::cuda::Options staged;
    staged.transfer_mode = 2;  // the lanes, one host thread, automatic pieces
    GpuResult d = gpu_run(r, 1.5, m, staged);
    EXPECT_EQ(first_difference(d.ids, want), -1) << "staged transfers, minpoints " << m;
    gd::cuda::Options direct;
    direct.transfer_mode = 1;  // plain pageable copies
    GpuResult e = gpu_run(r, 1.5, m, direct);
    EXPECT_EQ(first_difference(e.ids, want), -1) << "direct transfers, minpoints " << m;
  }
}

TEST(GpuBudget, HeldToAndTooSmallIsNomem) {
  GD_REQUIRE_GPU();
  Rows r = blob_rows(500000, 30, 3000, 8, 111);
  std::vector<int32_t> want = cpu_ids(r, 2.0, 8);
  gd::cuda::Options opts;
  GpuResult a = gpu_run(r, 2.0, 8, opts);
  ASSERT_EQ(first_difference(a.ids, want), -1);
  ASSERT_GT(a.info.peak_device_bytes, 0u);
  EXPECT_LE(a.info.peak_device_bytes, a.info.budget_bytes);

  // Exactly the peak: still fits, same labels.
  GpuResult b = gpu_run(r, 2.0, 8, opts, a.info.peak_device_bytes);
  EXPECT_EQ(first_difference(b.ids, want), -1);
  EXPECT_LE(b.info.peak_device_bytes, a.info.peak_device_bytes);

  // Below the peak: the run goes on in strips (strips.cu), same labels, held
  // to the budget.
  GpuResult s = gpu_run(r, 2.0, 8, opts, a.info.peak_device_bytes - 1);
  EXPECT_EQ(first_difference(s.ids, want), -1);
  EXPECT_GE(s.info.strips, 2u);
  EXPECT_LE(s.info.peak_device_bytes, a.info.peak_device_bytes - 1);

  // Far below (no strip 6*eps wide fits): GD_ERR_DEVICE_NOMEM with a message,
  // and the device still works afterwards.
  RunResult run = cluster_on(r, 2.0, 8, GD_BACKEND_GPU, size_t{1} << 16);
  EXPECT_EQ(run.status, GD_ERR_DEVICE_NOMEM) << run.err.message;
  EXPECT_NE(std::string(run.err.message).find("budget"), std::string::npos) << run.err.message;
  GpuResult c = gpu_run(r, 2.0, 8, opts);
  EXPECT_EQ(first_difference(c.ids, want), -1);
}

struct CancelState {
  std::atomic<int> polls{0};
  int cancel_at_poll = 0;  // > 0: cancel from that poll on
  std::chrono::steady_clock::time_point cancel_after{};
  bool by_time = false;
  std::chrono::steady_clock::time_point cancelled_at{};
  std::atomic<bool> fired{false};
};

int should_cancel(void* arg) {
  auto* s = static_cast<CancelState*>(arg);
  int k = ++s->polls;
  bool now = s->by_time ? std::chrono::steady_clock::now() >= s->cancel_after
                        : k >= s->cancel_at_poll;
  if (now && !s->fired.exchange(true)) s->cancelled_at = std::chrono::steady_clock::now();
  return now ? 1 : 0;
}

TEST(GpuCancel, MidRunReturnsQuicklyAndDeviceStaysUsable) {
  GD_REQUIRE_GPU();
  Rows r = blob_rows(4000000, 50, 4000, 20, 121);
  Rows small = blob_rows(20000, 10, 300, 4, 122);
  std::vector<int32_t> want_small = cpu_ids(small, 1.0, 5);
  gd::cuda::Options opts;
  (void)gpu_run(small, 1.0, 5, opts);  // context and module loading out of the way
  size_t before = gd::cuda::device_memory_used(0);

  // Cancel at each poll count from the first on: every stage gets cancelled
  // somewhere.  Then by time, in the middle of a heavy run.
  for (int at : {1, 2, 3, 5, 8, 13, 21}) {
    CancelState st;
    st.cancel_at_poll = at;
    gd_params p = params_for(3.0, 20);
    p.should_cancel = should_cancel;
    p.cancel_arg = &st;
    RunResult run;
    run.ids.assign(r.size(), 0);
    run.status = gd_cluster_points(r.x.data(), r.y.data(), r.kinds.data(),
                                   static_cast<int64_t>(r.size()), &p, run.ids.data(), &run.stats,
                                   &run.err);
    auto end = std::chrono::steady_clock::now();
    if (run.status == GD_OK) {  // finished before that many polls
      std::printf("  cancel at poll %d: finished first (%d polls)\n", at, st.polls.load());
      continue;
    }
    EXPECT_EQ(run.status, GD_ERR_CANCELLED) << run.err.message;
    ASSERT_TRUE(st.fired);
    double latency = std::chrono::duration<double>(end - st.cancelled_at).count();
    std::printf("  cancel at poll %d: %s, returned %.2f ms after the cancel\n", at,
                run.err.message, latency * 1e3);
    EXPECT_LT(latency, 1.0) << "cancel at poll " << at;
  }
  for (double delay_ms : {2.0, 10.0, 40.0}) {
    CancelState st;
    st.by_time = true;
    st.cancel_after = std::chrono::steady_clock::now() +
                      std::chrono::microseconds(static_cast<int64_t>(delay_ms * 1000));
    gd_params p = params_for(6.0, 400);
    p.should_cancel = should_cancel;
    p.cancel_arg = &st;
    std::vector<int32_t> ids(r.size());
    gd_error err;
    gd_status status = gd_cluster_points(r.x.data(), r.y.data(), r.kinds.data(),
                                         static_cast<int64_t>(r.size()), &p, ids.data(), nullptr,
                                         &err);
    auto end = std::chrono::steady_clock::now();
    if (status == GD_OK) {
      std::printf("  cancel after %.0f ms: finished first\n", delay_ms);
      continue;
    }
    EXPECT_EQ(status, GD_ERR_CANCELLED) << err.message;
    double latency = std::chrono::duration<double>(end - st.cancelled_at).count();
    std::printf("  cancel after %.0f ms: returned %.2f ms after the cancel\n", delay_ms,
                latency * 1e3);
    EXPECT_LT(latency, 1.0) << "cancel after " << delay_ms << " ms";
  }

  // The device is usable and holds no more memory than before.
  GpuResult after = gpu_run(small, 1.0, 5, opts);
  EXPECT_EQ(first_difference(after.ids, want_small), -1);
  size_t now = gd::cuda::device_memory_used(0);
  EXPECT_LE(now, before + (size_t{4} << 20)) << "before " << before << " after " << now;
}

TEST(GpuMemory, RepeatedRunsDoNotGrow) {
  GD_REQUIRE_GPU();
  Rows r = blob_rows(1000000, 30, 3000, 8, 131);
  gd::cuda::Options opts;
  GpuResult first = gpu_run(r, 2.0, 6, opts);
  size_t before = gd::cuda::device_memory_used(0);
  for (int k = 0; k < 6; ++k) {
    GpuResult again = gpu_run(r, 2.0, 6, opts);
    ASSERT_EQ(first_difference(again.ids, first.ids), -1) << "run " << k;
  }
  // A failing run (budget too small) must not leak either.
  RunResult nomem = cluster_on(r, 2.0, 6, GD_BACKEND_GPU, size_t{1} << 16);
  EXPECT_EQ(nomem.status, GD_ERR_DEVICE_NOMEM);
  size_t after = gd::cuda::device_memory_used(0);
  EXPECT_LE(after, before + (size_t{4} << 20)) << "before " << before << " after " << after;
}

TEST(GpuDeviceEntry, DeviceResidentPointsMatchHostPath) {
  GD_REQUIRE_GPU();
  Rows r = blob_rows(200000, 20, 1500, 5, 141);
  gd::cuda::Options opts;
  for (int64_t m : {0, 3, 10}) {
    GpuResult host = gpu_run(r, 1.2, m, opts);
    gd::cuda::DevicePoints dp(r.x.data(), r.y.data(), static_cast<uint32_t>(r.size()), 0);
    gd_params p = params_for(1.2, m);
    gd::CancelToken none(p);
    gd_run_stats st{};
    gd::cuda::cluster_device(dp.x(), dp.y(), dp.size(), p, none, dp.rep(), st);
    std::vector<uint32_t> rep(r.size());
    dp.copy_reps_to_host(rep.data());
    EXPECT_EQ(first_difference(ids_of(r, rep, m), host.ids), -1) << "minpoints " << m;
    EXPECT_EQ(st.t_transfer, 0.0);
    EXPECT_GT(st.cells, 0);
  }
}

TEST(GpuStats, PhasesAndCounts) {
  GD_REQUIRE_GPU();
  Rows r = blob_rows(100000, 10, 1000, 4, 151);
  RunResult run = cluster_on(r, 1.0, 5, GD_BACKEND_GPU);
  ASSERT_EQ(run.status, GD_OK) << run.err.message;
  EXPECT_EQ(run.stats.backend, GD_BACKEND_GPU);
  EXPECT_EQ(run.stats.points, 100000);
  EXPECT_GT(run.stats.cells, 0);
  EXPECT_GE(run.stats.batches, 1);
  EXPECT_GT(run.stats.t_transfer, 0.0);
  EXPECT_GT(run.stats.t_sort, 0.0);
  EXPECT_GT(run.stats.t_total, 0.0);
}

#else

TEST(GpuRuntime, NotBuiltWithCuda) { GTEST_SKIP() << "core built without CUDA"; }

#endif

}  // namespace
}  // namespace gd_test
