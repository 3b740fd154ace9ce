// test_gpu_helpers.hpp — running the GPU back end from the device tests.
// Every GPU test starts with GD_REQUIRE_GPU(), which skips it when no usable
// device is there (CI has none), saying why.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core_helpers.hpp"

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

}  // namespace gd_test
