// test_cluster_points.cpp — gd_cluster_points against the brute-force
// reference, id for id, on seeded random inputs.
#include <gtest/gtest.h>

#include <string>
#include <tuple>

#include "core_helpers.hpp"
#include "shapes.hpp"

namespace gd_test {
namespace {

class MatchesReference : public ::testing::TestWithParam<ShapeCase> {};

TEST_P(MatchesReference, ThreadCounts) {
  auto [shape, eps, minpoints] = GetParam();
  Rows r = make_shape(shape, 1234 + static_cast<uint64_t>(shape) * 17 + minpoints);
  expect_matches_reference(r, eps, minpoints, {1, 2, 3, 4});
}

TEST_P(MatchesReference, WithEmptyAndNullRows) {
  auto [shape, eps, minpoints] = GetParam();
  Rows r = make_shape(shape, 99 + static_cast<uint64_t>(shape));
  sprinkle_empty_and_null(r, 8, 5);
  expect_matches_reference(r, eps, minpoints, {2});
}

INSTANTIATE_TEST_SUITE_P(Random, MatchesReference, all_shape_cases(), shape_case_name);

}  // namespace
}  // namespace gd_test
