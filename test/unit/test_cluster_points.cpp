// test_cluster_points.cpp — gd_cluster_points against the brute-force
// reference, id for id, on seeded random inputs.
#include <gtest/gtest.h>

#include <string>
#include <tuple>

#include "core_helpers.hpp"

namespace gd_test {
namespace {

enum class Shape { kUniform, kBlobs, kDuplicates, kLattice, kSparse };

Rows make(Shape shape, uint64_t seed) {
  switch (shape) {
    case Shape::kUniform:
      return uniform_rows(2000, 0, 40, seed);
    case Shape::kBlobs:
      return blob_rows(2500, 6, 40, 0.8, seed);
    case Shape::kDuplicates:
      return duplicate_rows(2000, 150, 30, seed);
    case Shape::kLattice:
      return lattice_rows(40, 0.5, -3, 7, seed);
    case Shape::kSparse:
      return uniform_rows(1500, -1000, 1000, seed);
  }
  return {};
}

using Case = std::tuple<Shape, double /*eps*/, int64_t /*minpoints*/>;

class MatchesReference : public ::testing::TestWithParam<Case> {};

TEST_P(MatchesReference, ThreadCounts) {
  auto [shape, eps, minpoints] = GetParam();
  Rows r = make(shape, 1234 + static_cast<uint64_t>(shape) * 17 + minpoints);
  expect_matches_reference(r, eps, minpoints, {1, 2, 3, 4});
}

TEST_P(MatchesReference, WithEmptyAndNullRows) {
  auto [shape, eps, minpoints] = GetParam();
  Rows r = make(shape, 99 + static_cast<uint64_t>(shape));
  sprinkle_empty_and_null(r, 8, 5);
  expect_matches_reference(r, eps, minpoints, {2});
}

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  static const char* names[] = {"Uniform", "Blobs", "Duplicates", "Lattice", "Sparse"};
  auto [shape, eps, minpoints] = info.param;
  std::string e = std::to_string(eps);
  for (char& ch : e)
    if (ch == '.') ch = '_';
  return std::string(names[static_cast<int>(shape)]) + "_eps" + e + "_min" +
         std::to_string(minpoints);
}

INSTANTIATE_TEST_SUITE_P(
    Random, MatchesReference,
    ::testing::Combine(::testing::Values(Shape::kUniform, Shape::kBlobs, Shape::kDuplicates,
                                         Shape::kLattice, Shape::kSparse),
                       ::testing::Values(0.0, 0.5, 1.0, 2.5),
                       ::testing::Values<int64_t>(0, 1, 2, 4, 12)),
    case_name);

}  // namespace
}  // namespace gd_test
