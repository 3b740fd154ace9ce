// core_helpers.hpp — calling the core's C API from the tests.
#pragma once

#include <gtest/gtest.h>

#include <vector>

#include "datagen.hpp"
#include "gd_core.h"
#include "test_params.hpp"
#include "reference.hpp"

namespace gd_test {

struct RunResult {
  gd_status status;
  gd_error err;
  gd_run_stats stats;
  std::vector<int32_t> ids;
};

inline RunResult cluster(const Rows& r, double eps, int64_t minpoints, int threads = 0,
                         gd_backend backend = GD_BACKEND_CPU, size_t budget = 0) {
  gd_params p = test_params(eps, minpoints, backend, threads, budget);
  RunResult run;
  run.ids.assign(r.size(), -7);
  run.status = gd_cluster_points(r.x.data(), r.y.data(), r.kinds.data(),
                                 static_cast<int64_t>(r.size()), &p, run.ids.data(), &run.stats,
                                 &run.err);
  return run;
}

// Clusters r with the core at each thread count and checks the ids against
// the reference exactly (and the invariants).
inline void expect_matches_reference(const Rows& r, double eps, int64_t minpoints,
                                     std::vector<int> thread_counts = {0}) {
  std::vector<int32_t> want = reference_dbscan(r.x, r.y, r.kinds, eps, minpoints);
  for (int threads : thread_counts) {
    RunResult run = cluster(r, eps, minpoints, threads);
    ASSERT_EQ(run.status, GD_OK) << run.err.message;
    ASSERT_EQ(run.ids.size(), want.size());
    size_t mismatches = 0, first = 0;
    for (size_t i = 0; i < want.size(); ++i)
      if (run.ids[i] != want[i] && mismatches++ == 0) first = i;
    EXPECT_EQ(mismatches, 0u) << "eps " << eps << " minpoints " << minpoints << " threads "
                              << threads << ": first mismatch at row " << first << ": got "
                              << run.ids[first] << ", want " << want[first];
    if (threads == thread_counts.front()) {
      EXPECT_EQ(check_invariants(r.x, r.y, r.kinds, eps, minpoints, run.ids), "");
    }
  }
}

}  // namespace gd_test
