// test_gpu_helpers.hpp — running the GPU back end from the device tests.
// Every GPU test starts with GD_REQUIRE_GPU(), which skips it when no usable
// device is there (CI has none), saying why.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core_helpers.hpp"

#ifdef GD_HAVE_CUDA
#include "../../cuda/gd_cuda.hpp"
#endif

namespace gd_test {

inline bool gpu_usable(std::string* why) {
  gd_error err;
  if (gd_gpu_available(0, &err)) return true;
  if (why != nullptr) *why = err.message;
  return false;
}

#define GD_REQUIRE_GPU()                                      \
  do {                                                        \
    std::string gd_why_;                                      \
    if (!::gd_test::gpu_usable(&gd_why_))                     \
      GTEST_SKIP() << "no usable GPU: " << gd_why_;           \
  } while (0)

inline RunResult cluster_on(const Rows& r, double eps, int64_t minpoints, gd_backend backend,
                            size_t budget = 0) {
  return cluster(r, eps, minpoints, 0, backend, budget);
}

// Row index of the first difference, or -1.
inline long first_difference(const std::vector<int32_t>& a, const std::vector<int32_t>& b) {
  if (a.size() != b.size()) return 0;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i] != b[i]) return static_cast<long>(i);
  return -1;
}

// GPU ids == CPU ids (== reference when with_reference), row for row.
inline void expect_gpu_matches(const Rows& r, double eps, int64_t minpoints,
                               bool with_reference = true) {
  RunResult gpu = cluster_on(r, eps, minpoints, GD_BACKEND_GPU);
  ASSERT_EQ(gpu.status, GD_OK) << gpu.err.message;
  EXPECT_EQ(gpu.stats.backend, GD_BACKEND_GPU);
  RunResult cpu = cluster_on(r, eps, minpoints, GD_BACKEND_CPU);
  ASSERT_EQ(cpu.status, GD_OK) << cpu.err.message;
  long d = first_difference(gpu.ids, cpu.ids);
  EXPECT_EQ(d, -1) << "GPU vs CPU, eps " << eps << " minpoints " << minpoints << ", n "
                   << r.size() << ": row " << d << " GPU " << (d >= 0 ? gpu.ids[d] : 0) << " CPU "
                   << (d >= 0 ? cpu.ids[d] : 0);
  if (with_reference) {
    std::vector<int32_t> want = reference_dbscan(r.x, r.y, r.kinds, eps, minpoints);
    d = first_difference(gpu.ids, want);
    EXPECT_EQ(d, -1) << "GPU vs reference, eps " << eps << " minpoints " << minpoints << ": row "
                     << d << " GPU " << (d >= 0 ? gpu.ids[d] : 0) << " reference "
                     << (d >= 0 ? want[d] : 0);
    EXPECT_EQ(check_invariants(r.x, r.y, r.kinds, eps, minpoints, gpu.ids), "");
  }
}

#ifdef GD_HAVE_CUDA

// The GPU back end's internal entry point (gd_cuda.hpp) with its options:
// per-point representatives turned into ids as api.cpp numbers them.
// test_params for the GPU, with the library's threading of host work.
inline gd_params params_for(double eps, int64_t minpoints, size_t budget = 0) {
  gd_params p = test_params(eps, minpoints, GD_BACKEND_GPU, 0, budget);
  gd_params defaults;
  gd_params_init(&defaults);
  p.min_items_per_thread = defaults.min_items_per_thread;
  return p;
}

inline gd::PointsView view(const Rows& r) {
  return gd::PointsView{r.x.data(), r.y.data(), static_cast<uint32_t>(r.size())};
}

// Per-point representatives -> canonical ids, as api.cpp numbers them.
inline std::vector<int32_t> ids_of(const Rows& r, const std::vector<uint32_t>& rep, int64_t minpoints) {
  std::vector<int32_t> ids(r.size());
  gd::assign_ids(r.kinds.data(), static_cast<int64_t>(r.size()), rep.data(), minpoints,
                 ids.data());
  return ids;
}

inline std::vector<int32_t> cpu_ids(const Rows& r, double eps, int64_t minpoints) {
  gd_params p = params_for(eps, minpoints);
  p.backend = GD_BACKEND_CPU;
  gd::CancelToken none(p);
  gd_run_stats st{};
  std::vector<uint32_t> rep(r.size());
  gd::cpu_cluster(view(r), p, none, rep.data(), st);
  return ids_of(r, rep, minpoints);
}

struct GpuResult {
  std::vector<int32_t> ids;
  gd_run_stats stats{};
  gd::cuda::RunInfo info;
};

inline GpuResult gpu_run(const Rows& r, double eps, int64_t minpoints, const gd::cuda::Options& opts,
                  size_t budget = 0) {
  gd_params p = params_for(eps, minpoints, budget);
  gd::CancelToken none(p);
  GpuResult out;
  std::vector<uint32_t> rep(r.size(), 12345);
  gd::cuda::cluster_host(view(r), p, none, rep.data(), out.stats, opts, &out.info);
  out.ids = ids_of(r, rep, minpoints);
  return out;
}

#endif  // GD_HAVE_CUDA

}  // namespace gd_test
