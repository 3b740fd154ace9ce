// datagen.hpp — seeded test inputs for the core's unit tests.
#pragma once

#include <cmath>
#include <cstdint>
#include <random>
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

}  // namespace gd_test
