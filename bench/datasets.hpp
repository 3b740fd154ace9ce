// datasets.hpp — the benchmark's point sets, generated from fixed seeds.
//
// The generator is our own (splitmix64 + xoshiro256**, Box–Muller for the
// normal draws) rather than <random>'s distributions, whose outputs differ
// between standard libraries: the same seed gives the same points everywhere.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace gd_bench {

struct PointSet {
  std::string name;       // "uniform" or "blobs"
  std::vector<double> x;  // row order is generation order (a shuffled mix for blobs)
  std::vector<double> y;
};

// n points uniform in [0,1000]^2.
PointSet make_uniform(int64_t n, uint64_t seed);

// 50 gaussian blobs (sigma uniform in [10,30], centres uniform in
// [0,1000]^2) holding 90% of the rows, and 10% uniform noise in
// [0,1000]^2; every 10th row is noise, the others pick a blob at random.
PointSet make_blobs(int64_t n, uint64_t seed);

// make_uniform or make_blobs by name; throws std::invalid_argument otherwise.
PointSet make_dataset(const std::string& name, int64_t n, uint64_t seed);

// Points of dims coordinates (3 to 8), row-major: "uniform" in [0,100]^dims,
// or "blobs": 50 gaussian blobs (sigma uniform in [1,3], centres uniform in
// the cube) holding 90% of the rows and 10% uniform noise (every 10th row).
// At 10M points in 3D: 10 points per unit cube where uniform.
struct NdPointSet {
  std::string name;
  int dims = 0;
  std::vector<double> coords;  // dims per point
};
NdPointSet make_dataset_nd(const std::string& name, int64_t n, int dims, uint64_t seed);

}  // namespace gd_bench
