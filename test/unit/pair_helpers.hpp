// pair_helpers.hpp — candidate pairs of boxes for the tests: the literal
// definition pair by pair, gd_candidate_pairs' list as a set, random boxes
// and shapes that a sweep along one axis handles badly (test_graph.cpp,
// test_gpu_pairs.cpp).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <utility>
#include <vector>

#include "gd_core.h"
#include "test_params.hpp"

namespace gd_test {

// Pairs of rows i < j.
using PairSet = std::set<std::pair<uint32_t, uint32_t>>;

inline bool is_geometry(uint8_t k) { return k == GD_ROW_POINT || k == GD_ROW_OTHER; }

// Every pair of geometry rows whose boxes are within eps, pair by pair.
inline PairSet literal_pairs(const std::vector<gd_box>& boxes, const std::vector<uint8_t>& kinds,
                      double eps) {
  PairSet out;
  for (size_t i = 0; i < boxes.size(); ++i) {
    for (size_t j = i + 1; j < boxes.size(); ++j) {
      if (!is_geometry(kinds[i]) || !is_geometry(kinds[j])) continue;
      const gd_box &a = boxes[i], &b = boxes[j];
      double gx = std::max(b.xmin - a.xmax, a.xmin - b.xmax);
      double gy = std::max(b.ymin - a.ymax, a.ymin - b.ymax);
      if (gx <= eps && gy <= eps) out.emplace(uint32_t(i), uint32_t(j));
    }
  }
  return out;
}

// gd_candidate_pairs' list as a set, checked for order and duplicates; on
// the GPU with backend GD_BACKEND_GPU (budget: its device memory budget).
inline PairSet candidate_pairs(const std::vector<gd_box>& boxes, const std::vector<uint8_t>& kinds,
                               double eps, int threads, int64_t* count = nullptr,
                               gd_backend backend = GD_BACKEND_CPU, size_t budget = 0) {
  gd_params p = test_params(eps, 0, backend, threads, budget);
  gd_pair_list list;
  gd_error err;
  gd_status st = gd_candidate_pairs(boxes.data(), kinds.data(), static_cast<int64_t>(boxes.size()),
                                    eps, &p, &list, &err);
  EXPECT_EQ(st, GD_OK) << err.message;
  PairSet out;
  for (int64_t k = 0; k < list.count; ++k) {
    EXPECT_LT(list.pairs[k].i, list.pairs[k].j);
    out.emplace(list.pairs[k].i, list.pairs[k].j);
  }
  EXPECT_EQ(out.size(), static_cast<size_t>(list.count)) << "duplicate pairs";
  if (count) *count = list.count;
  gd_pair_list_free(&list);
  EXPECT_EQ(list.pairs, nullptr);
  return out;
}

inline std::vector<gd_box> random_boxes(size_t n, double extent, double size, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0, extent), s(0, size);
  std::vector<gd_box> boxes(n);
  for (auto& b : boxes) {
    b.xmin = u(rng);
    b.ymin = u(rng);
    b.xmax = b.xmin + (rng() % 4 == 0 ? 0 : s(rng));
    b.ymax = b.ymin + (rng() % 4 == 0 ? 0 : s(rng));
  }
  return boxes;
}

// Shapes whose boxes a sweep along one axis handles badly, beside small
// ones: long horizontal and vertical lines, diagonals (boxes as large as the
// extent), nested boxes, and small polygons between them.
inline std::vector<gd_box> shape_mix(uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0, 1000), s(0, 3);
  std::vector<gd_box> boxes;
  for (int i = 0; i < 300; ++i) {
    const double a = u(rng), b = u(rng), c = u(rng);
    switch (i % 6) {
      case 0: boxes.push_back({0, a, 1000, a}); break;          // horizontal line
      case 1: boxes.push_back({a, 0, a, 1000}); break;          // vertical line
      case 2: boxes.push_back({std::min(a, b), std::min(a, c), std::max(a, b), std::max(a, c)}); break;
      case 3: boxes.push_back({500 - a / 2, 500 - a / 2, 500 + a / 2, 500 + a / 2}); break;  // nested
      default: {
        const double w = s(rng), h = s(rng);
        boxes.push_back({a, b, a + w, b + h});  // small polygon
      }
    }
  }
  std::shuffle(boxes.begin(), boxes.end(), rng);
  return boxes;
}

}  // namespace gd_test
