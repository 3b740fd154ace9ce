// nd_helpers.hpp — n-D rows for the tests of the n-D paths (test_nd.cpp on
// the CPU, test_gpu_nd.cpp on the device): generators, the predicate written
// out again, brute-force neighbours and point types, and the entry point run.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "gd_core.h"
#include "test_params.hpp"

namespace gd_test {
namespace nd {

// Rows of d-dimensional points, row-major.
struct NdRows {
  int dims;
  std::vector<double> coords;
  std::vector<uint8_t> kinds;
  size_t size() const { return kinds.size(); }
  const double* at(size_t r) const { return coords.data() + r * dims; }
  void add(const std::vector<double>& p, uint8_t kind = GD_ROW_POINT) {
    coords.insert(coords.end(), p.begin(), p.end());
    kinds.push_back(kind);
  }
};

// The predicate of gd_core.h for n-D points, literally.
inline bool ref_within_nd(const double* p, const double* q, int dims, double eps) {
  double sum = 0;
  for (int k = 0; k < dims; ++k) {
    double d = q[k] - p[k];
    if (std::fabs(d) > eps) return false;
    sum = sum + d * d;
  }
  return std::sqrt(sum) <= eps;
}

inline std::vector<std::vector<bool>> ref_neighbours(const NdRows& r, double eps) {
  const size_t n = r.size();
  std::vector<std::vector<bool>> nb(n, std::vector<bool>(n, false));
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < n; ++j)
      nb[i][j] = r.kinds[i] == GD_ROW_POINT && r.kinds[j] == GD_ROW_POINT &&
                 ref_within_nd(r.at(i), r.at(j), r.dims, eps);
  return nb;
}

inline NdRows uniform(int dims, size_t n, double extent, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0, extent);
  NdRows r{dims, {}, {}};
  std::vector<double> p(dims);
  for (size_t i = 0; i < n; ++i) {
    for (double& c : p) c = u(rng);
    r.add(p);
  }
  return r;
}

// Gaussian blobs, a fifth of the rows uniform noise, a few NULL and EMPTY rows.
inline NdRows blobs(int dims, size_t n, int nblobs, double extent, double sigma, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0, extent);
  std::normal_distribution<double> g(0, sigma);
  std::vector<std::vector<double>> centre(nblobs, std::vector<double>(dims));
  for (auto& c : centre)
    for (double& v : c) v = u(rng);
  NdRows r{dims, {}, {}};
  std::vector<double> p(dims);
  for (size_t i = 0; i < n; ++i) {
    if (i % 37 == 5) {
      r.add(std::vector<double>(dims, 0.0), i % 2 ? GD_ROW_NULL : GD_ROW_EMPTY);
      continue;
    }
    const auto& c = centre[rng() % nblobs];
    for (int k = 0; k < dims; ++k) p[k] = i % 5 == 4 ? u(rng) : c[k] + g(rng);
    r.add(p);
  }
  return r;
}

// Points close together on the first three axes (which the grid cuts) and
// apart on the others: clumps 3 apart on axis 3, spread 0.4 on every later
// axis, a chain along axis 3 with steps of 0.45, and a tenth of the rows
// noise.  A cell then holds several clumps, or one clump as several sets
// at a small eps, or one set of hundreds of points at a large one.
inline NdRows spread_over_uncut_axes(int dims, size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0, 1);
  NdRows r{dims, {}, {}};
  std::vector<double> p(dims);
  for (size_t i = 0; i < n; ++i) {
    for (int k = 0; k < 3; ++k) p[k] = u(rng);
    if (i % 10 == 9) {
      for (int k = 3; k < dims; ++k) p[k] = 25 * u(rng);
    } else if (i % 10 == 8) {
      p[3] = 20 + 0.45 * static_cast<double>(i / 10 % 100);
      for (int k = 4; k < dims; ++k) p[k] = 0.1 * u(rng);
    } else {
      const double at = 3.0 * static_cast<double>(rng() % 5);
      for (int k = 3; k < dims; ++k) p[k] = (k == 3 ? at : 0.0) + 0.8 * u(rng) - 0.4;
    }
    r.add(p);
  }
  return r;
}

// A data set and the eps to cluster it at.
struct NdCase {
  NdRows rows;
  double eps;
};

// Seeded random dense blob sets of 3 or 4 dimensions, eps around the cells'
// scale: fine and coarse grids, small cells joined by boxes or by pairs,
// cells that are not small, duplicates.
inline std::vector<NdCase> random_dense_blobs(int sets, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<NdCase> out;
  for (int t = 0; t < sets; ++t) {
    const int dims = 3 + static_cast<int>(rng() % 2);
    const double extent = 0.5 + static_cast<double>(rng() % 40) / 10.0;
    const double sigma = 0.02 + static_cast<double>(rng() % 100) / 400.0;
    NdRows r = blobs(dims, 300 + rng() % 1200, 1 + static_cast<int>(rng() % 4), extent, sigma,
                     rng());
    const double eps = sigma * (0.1 + static_cast<double>(rng() % 40) / 10.0);
    out.push_back(NdCase{std::move(r), eps});
  }
  return out;
}

// Few locations, many copies (dense cells, dense cell pairs decided by their
// boxes, cells of copies that are not all core), EMPTY and NULL rows among them.
inline NdRows copies(int dims) {
  std::mt19937_64 rng(dims);
  std::uniform_int_distribution<int> loc(0, 24);
  NdRows r{dims, {}, {}};
  std::vector<double> p(dims);
  for (int i = 0; i < 1500; ++i) {
    int l = loc(rng);
    for (int k = 0; k < dims; ++k) p[k] = (l * (k + 3)) % 7 * 0.5;
    r.add(p, i % 97 == 3 ? GD_ROW_EMPTY : i % 89 == 5 ? GD_ROW_NULL : GD_ROW_POINT);
  }
  return r;
}

// A 3D lattice of step 0.5 with holes: axis neighbours at exactly 0.5,
// diagonals beyond it.
inline NdRows lattice() {
  NdRows r{3, {}, {}};
  for (int i = 0; i < 9; ++i)
    for (int j = 0; j < 9; ++j)
      for (int k = 0; k < 9; ++k)
        if ((i * 7 + j * 3 + k) % 5 != 0) r.add({i * 0.5, j * 0.5, k * 0.5});
  return r;
}

// 800 points over 2e15 in 3D, each with a close partner (or a copy): more
// cells than one 64-bit key holds at small eps.
inline NdRows huge_extent() {
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> u(-1e15, 1e15);
  NdRows r{3, {}, {}};
  for (int i = 0; i < 400; ++i) {
    std::vector<double> p = {u(rng), u(rng), u(rng)};
    r.add(p);
    p[i % 3] += 0.25 * (i % 4);
    r.add(p);
  }
  return r;
}

// The core flags of the definition and the ids -> point types.
inline std::vector<uint8_t> reference_types(const NdRows& r, double eps, int64_t minpoints,
                                            const std::vector<int32_t>& ids) {
  const std::vector<std::vector<bool>> nb = ref_neighbours(r, eps);
  std::vector<uint8_t> types(r.size());
  for (size_t i = 0; i < r.size(); ++i) {
    if (r.kinds[i] == GD_ROW_EMPTY) {
      types[i] = minpoints <= 1 ? GD_POINT_CORE : GD_POINT_NOISE;
      continue;
    }
    int64_t count = 0;
    for (size_t j = 0; j < r.size(); ++j) count += nb[i][j];
    const bool core = r.kinds[i] == GD_ROW_POINT && count >= std::max<int64_t>(minpoints, 1);
    types[i] = core ? GD_POINT_CORE : ids[i] != GD_NOISE ? GD_POINT_BORDER : GD_POINT_NOISE;
  }
  return types;
}

// gd_cluster_points_nd_typed on backend (types: null for ids alone).
inline std::vector<int32_t> run_nd_typed(const NdRows& r, double eps, int64_t minpoints,
                                         gd_backend backend, std::vector<uint8_t>* types,
                                         gd_run_stats* stats = nullptr, int threads = 0) {
  gd_params p = test_params(eps, minpoints, backend, threads);
  std::vector<int32_t> ids(r.size(), -7);
  gd_error err;
  gd_status st = gd_cluster_points_nd_typed(r.coords.data(), r.dims, r.kinds.data(),
                                            static_cast<int64_t>(r.size()), &p, ids.data(),
                                            types ? types->data() : nullptr, stats, &err);
  EXPECT_EQ(st, GD_OK) << err.message;
  return ids;
}

// gd_cluster_points_nd_sweep_by over values on backend and path: one ids
// vector per value.
inline std::vector<std::vector<int32_t>> run_nd_sweep(const NdRows& r, double eps,
                                                      const std::vector<int64_t>& values,
                                                      gd_backend backend, int path,
                                                      gd_run_stats* stats = nullptr) {
  gd_params p = test_params(eps, 0, backend);
  const size_t n = r.size();
  std::vector<int32_t> all(n * values.size(), -7);
  gd_error err;
  gd_status st = gd_cluster_points_nd_sweep_by(r.coords.data(), r.dims, r.kinds.data(),
                                               static_cast<int64_t>(n), &p, values.data(),
                                               static_cast<int64_t>(values.size()), all.data(),
                                               stats, &err, path);
  EXPECT_EQ(st, GD_OK) << err.message;
  std::vector<std::vector<int32_t>> out;
  for (size_t k = 0; k < values.size(); ++k)
    out.emplace_back(all.begin() + k * n, all.begin() + (k + 1) * n);
  return out;
}

}  // namespace nd
}  // namespace gd_test
