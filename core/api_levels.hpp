// api_levels.hpp — the minpoints values of a sweep as the entry points
// check them and group them (api_sweep.cpp for 2D points and graphs,
// nd_api.cpp for n-D points).
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "api_guard.hpp"

namespace gd {
namespace api {

// The checks of a sweep's minpoints values and output size.
inline void check_sweep(const int64_t* minpoints, int64_t nminpoints, int64_t nrows) {
  if (nminpoints < 1) invalid("a sweep needs at least one minpoints value");
  if (!minpoints) invalid("minpoints is NULL");
  for (int64_t k = 0; k < nminpoints; ++k) check_minpoints(minpoints[k]);
  if (nrows > 0 && nminpoints > std::numeric_limits<int64_t>::max() / nrows)
    invalid("%lld minpoints values x %lld rows are too many ids",
            static_cast<long long>(nminpoints), static_cast<long long>(nrows));
}

// The distinct core thresholds of a sweep (minpoints 0 and 1 are both 1:
// every point is core), ascending, and each request's index among them.
struct Levels {
  std::vector<int64_t> values;
  std::vector<size_t> of_request;
  std::vector<int64_t> first_request;  // per level: the first request that asked for it

  Levels(const int64_t* minpoints, int64_t n) {
    for (int64_t k = 0; k < n; ++k) values.push_back(std::max<int64_t>(minpoints[k], 1));
    std::sort(values.begin(), values.end());
    values.erase(std::unique(values.begin(), values.end()), values.end());
    if (values.size() > UINT16_MAX)
      invalid("%zu distinct minpoints values in one sweep, at most %d are supported",
              values.size(), UINT16_MAX);
    first_request.assign(values.size(), -1);
    for (int64_t k = 0; k < n; ++k) {
      const int64_t v = std::max<int64_t>(minpoints[k], 1);
      const size_t level = std::lower_bound(values.begin(), values.end(), v) - values.begin();
      of_request.push_back(level);
      if (first_request[level] < 0) first_request[level] = k;
    }
  }
};

}  // namespace api
}  // namespace gd
