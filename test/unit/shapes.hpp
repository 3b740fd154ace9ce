// shapes.hpp — the families of seeded random data sets that the CPU and GPU
// suites both run through (parameterised tests), and their test names.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <tuple>

#include "datagen.hpp"

namespace gd_test {

enum class Shape { kUniform, kBlobs, kDuplicates, kLattice, kSparse };

// One data set of the family; large: the bigger sizes the GPU suite uses.
inline Rows make_shape(Shape shape, uint64_t seed, bool large = false) {
  switch (shape) {
    case Shape::kUniform:
      return uniform_rows(large ? 3000 : 2000, 0, 40, seed);
    case Shape::kBlobs:
      return blob_rows(large ? 4000 : 2500, 6, 40, 0.8, seed);
    case Shape::kDuplicates:
      return duplicate_rows(large ? 3000 : 2000, 150, 30, seed);
    case Shape::kLattice:
      return lattice_rows(large ? 50 : 40, 0.5, -3, 7, seed);
    case Shape::kSparse:
      return uniform_rows(large ? 2000 : 1500, -1000, 1000, seed);
  }
  return {};
}

using ShapeCase = std::tuple<Shape, double /*eps*/, int64_t /*minpoints*/>;

inline std::string shape_case_name(const ::testing::TestParamInfo<ShapeCase>& info) {
  static const char* names[] = {"Uniform", "Blobs", "Duplicates", "Lattice", "Sparse"};
  auto [shape, eps, minpoints] = info.param;
  std::string e = std::to_string(eps);
  for (char& ch : e)
    if (ch == '.') ch = '_';
  return std::string(names[static_cast<int>(shape)]) + "_eps" + e + "_min" +
         std::to_string(minpoints);
}

// Every family at eps 0, 0.5, 1, 2.5 and minpoints 0, 1, 2, 4, 12.
inline auto all_shape_cases() {
  return ::testing::Combine(::testing::Values(Shape::kUniform, Shape::kBlobs, Shape::kDuplicates,
                                              Shape::kLattice, Shape::kSparse),
                            ::testing::Values(0.0, 0.5, 1.0, 2.5),
                            ::testing::Values<int64_t>(0, 1, 2, 4, 12));
}

// A family's data set laid out along x, so that strips are narrow beside it:
// twelve copies side by side, 60 units apart (an exact shift: lattices stay
// at exactly eps), one after another in row order.  A slab 6 * eps wide then
// holds well under a tenth of the points, so strips of a tenth fit.
inline Rows wide_shape(Shape shape, uint64_t seed) {
  Rows base = make_shape(shape, seed, true);
  Rows r;
  for (int copy = 0; copy < 12; ++copy)
    for (size_t i = 0; i < base.size(); ++i) r.add(base.x[i] + 60.0 * copy, base.y[i]);
  return r;
}

// Pairs that one side sees and the other does not (PostGIS's rounded search
// box): p = (x0, -1e-20) sees q = (x0, 1) at eps 1 (fl(-1e-20 + 1) = 1), q
// does not see p (fl(1 - 1) = 0 > -1e-20).  The tiny offsets are on y, near
// 0, so every copy along x (exact offsets 4 apart, 400 copies) has them.
inline Rows one_sided_copies() {
  Rows r;
  for (int copy = 0; copy < 400; ++copy) {
    double x0 = copy * 4.0;
    double tiny = copy % 2 == 0 ? -1e-20 : -0.0;
    r.add(x0, tiny);
    r.add(x0, 1.0);
    r.add(x0 + 1e-3, 1.0);
    r.add(x0, 2.0);
    r.add(x0 + 0.5, tiny);
    r.add(x0 + 1.5, 1e-20);
  }
  return r;
}

}  // namespace gd_test
