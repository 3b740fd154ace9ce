// test_params.hpp — the gd_params the test helpers start from: eps,
// minpoints, back end, threads (0: all cores) and device budget (0: the
// default), with several threads even on small inputs.
#pragma once

#include <cstddef>
#include <cstdint>

#include "gd_core.h"

namespace gd_test {

inline gd_params test_params(double eps, int64_t minpoints, gd_backend backend, int threads = 0,
                             size_t budget = 0) {
  gd_params p;
  gd_params_init(&p);
  p.eps = eps;
  p.minpoints = minpoints;
  p.backend = backend;
  p.threads = threads;
  p.device_memory_budget = budget;
  p.min_items_per_thread = 1;  // several threads even on small inputs
  return p;
}

}  // namespace gd_test
