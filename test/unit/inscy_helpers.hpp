// inscy_helpers.hpp — running the core's subspace clustering (gd_inscy.h) from
// the unit tests, and the seeded data with planted subspace clusters.
#pragma once

#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "gd_inscy.h"
#include "inscy_reference.hpp"

namespace gd_test {

struct InscyRun {
  gd_status status = GD_OK;
  gd_error err{};
  gd_run_stats stats{};
  std::vector<SubspaceCluster> clusters;
  int64_t evaluated = 0;
};

inline InscyRun run_inscy(const std::vector<double>& rows, int n, int d, const InscyParams& p,
                          gd_backend backend, int threads = 0, size_t budget = 0,
                          int (*cancel)(void*) = nullptr) {
  gd_params gp;
  gd_params_init(&gp);
  gp.backend = backend;
  gp.threads = threads;
  gp.device_memory_budget = budget;
  gp.should_cancel = cancel;
  gd_inscy_params ip{p.eps, p.mu, p.min_size, p.density_factor, p.redundancy};
  gd_inscy_result res;
  InscyRun out;
  out.status = gd_inscy(rows.data(), n, d, &ip, &gp, &res, &out.stats, &out.err);
  if (out.status != GD_OK) return out;
  for (int64_t c = 0; c < res.nclusters; ++c) {
    SubspaceCluster sc;
    for (int j = 0; j < 64; ++j)
      if (res.clusters[c].dims >> j & 1) sc.dims.push_back(j);
    for (int64_t k = 0; k < res.clusters[c].size; ++k)
      sc.members.push_back(res.members[res.clusters[c].first + k]);
    out.clusters.push_back(sc);
  }
  out.evaluated = res.evaluated;
  gd_inscy_result_free(&res);
  return out;
}

// n points uniform in [0,1]^d, then `planted` groups: each takes `group`
// random points and pulls them, on a random subset of 2..d-1 dims, to
// within `spread` of a centre.  quantum > 0 rounds every value to a multiple
// of it (ties at eps when eps is a multiple of quantum).
inline std::vector<double> planted_rows(int n, int d, int planted, int group, double spread,
                                        double quantum, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<double> x(size_t(n) * d);
  for (double& v : x) v = u(rng);
  for (int g = 0; g < planted; ++g) {
    std::vector<double> centre(d);
    for (double& c : centre) c = u(rng);
    std::vector<int> dims;
    for (int j = 0; j < d; ++j)
      if (u(rng) < 0.5) dims.push_back(j);
    if (dims.size() < 2) dims = {0, d - 1};
    for (int k = 0; k < group; ++k) {
      int i = static_cast<int>(rng() % n);
      for (int j : dims) x[size_t(i) * d + j] = centre[j] + (u(rng) - 0.5) * 2 * spread;
    }
  }
  if (quantum > 0)
    for (double& v : x) v = std::round(v / quantum) * quantum;
  return x;
}

// The core on `backend` against the reference.
inline void expect_matches_reference(const std::vector<double>& rows, int n, int d,
                                     const InscyParams& p, gd_backend backend,
                                     size_t* nclusters = nullptr) {
  std::vector<SubspaceCluster> want = reference_inscy(rows, n, d, p);
  InscyRun got = run_inscy(rows, n, d, p, backend);
  ASSERT_EQ(got.status, GD_OK) << got.err.message;
  EXPECT_EQ(first_difference(got.clusters, want), "")
      << "n " << n << " d " << d << " eps " << p.eps << " mu " << p.mu << " min_size "
      << p.min_size << " F " << p.density_factor << " r " << p.redundancy;
  if (nclusters) *nclusters = want.size();
}

}  // namespace gd_test
