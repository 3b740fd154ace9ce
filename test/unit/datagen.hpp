// datagen.hpp — seeded test inputs for the core's unit tests.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

#include "gd_core.h"

namespace gd_test {

struct Rows {
  std::vector<double> x, y;
  std::vector<uint8_t> kinds;
  size_t size() const { return kinds.size(); }
  void add(double px, double py, uint8_t kind = GD_ROW_POINT) {
    x.push_back(px);
    y.push_back(py);
    kinds.push_back(kind);
  }
};

inline Rows uniform_rows(size_t n, double lo, double hi, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(lo, hi);
  Rows r;
  for (size_t i = 0; i < n; ++i) {
    double px = u(rng), py = u(rng);
    r.add(px, py);
  }
  return r;
}

// Gaussian blobs plus uniform background noise.
inline Rows blob_rows(size_t n, int blobs, double extent, double sigma, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0, extent);
  std::normal_distribution<double> g(0, sigma);
  std::vector<double> cx(blobs), cy(blobs);
  for (int b = 0; b < blobs; ++b) {
    cx[b] = u(rng);
    cy[b] = u(rng);
  }
  Rows r;
  for (size_t i = 0; i < n; ++i) {
    if (i % 5 == 4) {
      double px = u(rng), py = u(rng);
      r.add(px, py);
    } else {
      int b = static_cast<int>(rng() % blobs);
      double px = cx[b] + g(rng), py = cy[b] + g(rng);
      r.add(px, py);
    }
  }
  return r;
}

// Points drawn from a small set of locations: many exact duplicates.
inline Rows duplicate_rows(size_t n, size_t locations, double extent, uint64_t seed) {
  Rows base = uniform_rows(locations, 0, extent, seed);
  std::mt19937_64 rng(seed + 1);
  Rows r;
  for (size_t i = 0; i < n; ++i) {
    size_t k = rng() % locations;
    r.add(base.x[k], base.y[k]);
  }
  return r;
}

// A square lattice of `side` x `side` points `step` apart, shuffled.
inline Rows lattice_rows(int side, double step, double x0, double y0, uint64_t seed) {
  Rows r;
  for (int i = 0; i < side; ++i)
    for (int j = 0; j < side; ++j) r.add(x0 + i * step, y0 + j * step);
  std::mt19937_64 rng(seed);
  for (size_t i = r.size(); i > 1; --i) {
    size_t k = rng() % i;
    std::swap(r.x[i - 1], r.x[k]);
    std::swap(r.y[i - 1], r.y[k]);
  }
  return r;
}

// Turns about one row in `every` into NULL and one in `every` into EMPTY.
inline void sprinkle_empty_and_null(Rows& r, int every, uint64_t seed) {
  std::mt19937_64 rng(seed);
  for (size_t i = 0; i < r.size(); ++i) {
    uint64_t v = rng() % (2 * every);
    if (v == 0) r.kinds[i] = GD_ROW_NULL;
    if (v == 1) r.kinds[i] = GD_ROW_EMPTY;
    if (r.kinds[i] != GD_ROW_POINT) r.x[i] = r.y[i] = NAN;  // must not be read
  }
}

// A known answer: `clusters` clusters of `size` points (at most 3, 0.5
// apart: each sees the others at eps 1) on the nodes of a square grid 4
// apart, `noise` lone points on the other nodes, the rows shuffled.  At eps
// 1 and minpoints m <= size every cluster is one cluster numbered by its
// first row; above, every row is noise.
struct KnownClusters {
  Rows rows;
  std::vector<int32_t> clustered;  // the ids at minpoints <= size
  int size;

  KnownClusters(size_t clusters, int points_each, size_t noise, uint64_t seed)
      : size(points_each) {
    const size_t nodes = clusters + noise;
    const size_t side = static_cast<size_t>(std::ceil(std::sqrt(static_cast<double>(nodes)))) + 1;
    std::vector<std::pair<size_t, int>> order;  // (node, point of the node)
    order.reserve(clusters * size + noise);
    for (size_t c = 0; c < clusters; ++c)
      for (int j = 0; j < size; ++j) order.emplace_back(c, j);
    for (size_t k = 0; k < noise; ++k) order.emplace_back(clusters + k, 0);
    std::mt19937_64 rng(seed);
    std::shuffle(order.begin(), order.end(), rng);
    rows.x.reserve(order.size());
    rows.y.reserve(order.size());
    rows.kinds.reserve(order.size());
    clustered.assign(order.size(), -1);
    std::vector<int32_t> id_of(clusters, -1);
    int32_t next = 0;
    for (size_t i = 0; i < order.size(); ++i) {
      const auto [node, j] = order[i];
      rows.add(4.0 * static_cast<double>(node % side) + (j == 1 ? 0.5 : 0.0),
               4.0 * static_cast<double>(node / side) + (j == 2 ? 0.5 : 0.0));
      if (node >= clusters) continue;
      if (id_of[node] < 0) id_of[node] = next++;
      clustered[i] = id_of[node];
    }
  }

  std::vector<int32_t> ids_at(int64_t minpoints) const {
    return minpoints <= size ? clustered : std::vector<int32_t>(rows.size(), -1);
  }
};

}  // namespace gd_test
