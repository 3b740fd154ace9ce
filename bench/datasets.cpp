// datasets.cpp — seeded point sets for gd_bench (see datasets.hpp).
#include "datasets.hpp"

#include <cmath>
#include <stdexcept>
#include <vector>

namespace gd_bench {
namespace {

constexpr double kSide = 1000.0;
constexpr int kBlobs = 50;
constexpr double kPi = 3.14159265358979323846;

// xoshiro256** seeded through splitmix64: small, fast, the same on every platform.
class Rng {
 public:
  explicit Rng(uint64_t seed) {
    for (auto& word : s_) {
      seed += 0x9e3779b97f4a7c15ULL;
      uint64_t z = seed;
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
      z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
      word = z ^ (z >> 31);
    }
  }

  uint64_t next() {
    const uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }

  // Uniform in [0,1).
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

  // Standard normal (Box–Muller; 1 - u keeps the logarithm finite).
  double normal() {
    if (have_spare_) {
      have_spare_ = false;
      return spare_;
    }
    double r = std::sqrt(-2.0 * std::log(1.0 - uniform()));
    double a = 2.0 * kPi * uniform();
    spare_ = r * std::sin(a);
    have_spare_ = true;
    return r * std::cos(a);
  }

 private:
  static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

  uint64_t s_[4];
  double spare_ = 0.0;
  bool have_spare_ = false;
};

}  // namespace

PointSet make_uniform(int64_t n, uint64_t seed) {
  PointSet ps;
  ps.name = "uniform";
  ps.x.resize(n);
  ps.y.resize(n);
  Rng rng(seed);
  for (int64_t i = 0; i < n; i++) {
    ps.x[i] = rng.uniform() * kSide;
    ps.y[i] = rng.uniform() * kSide;
  }
  return ps;
}

PointSet make_blobs(int64_t n, uint64_t seed) {
  PointSet ps;
  ps.name = "blobs";
  ps.x.resize(n);
  ps.y.resize(n);
  Rng rng(seed);
  double cx[kBlobs], cy[kBlobs], sigma[kBlobs];
  for (int b = 0; b < kBlobs; b++) {
    cx[b] = rng.uniform() * kSide;
    cy[b] = rng.uniform() * kSide;
    sigma[b] = 10.0 + 20.0 * rng.uniform();
  }
  for (int64_t i = 0; i < n; i++) {
    if (i % 10 == 0) {
      ps.x[i] = rng.uniform() * kSide;
      ps.y[i] = rng.uniform() * kSide;
    } else {
      int b = static_cast<int>(rng.uniform() * kBlobs);
      ps.x[i] = cx[b] + sigma[b] * rng.normal();
      ps.y[i] = cy[b] + sigma[b] * rng.normal();
    }
  }
  return ps;
}

PointSet make_dataset(const std::string& name, int64_t n, uint64_t seed) {
  if (name == "uniform") return make_uniform(n, seed);
  if (name == "blobs") return make_blobs(n, seed);
  throw std::invalid_argument("unknown data set \"" + name + "\" (uniform, blobs)");
}

NdPointSet make_dataset_nd(const std::string& name, int64_t n, int dims, uint64_t seed) {
  if (name != "uniform" && name != "blobs")
    throw std::invalid_argument("unknown data set \"" + name + "\" (uniform, blobs)");
  if (dims < 3 || dims > 8) throw std::invalid_argument("dims must be 3 to 8");
  constexpr double kNdSide = 100.0;
  NdPointSet ps;
  ps.name = name;
  ps.dims = dims;
  ps.coords.resize(static_cast<size_t>(n) * dims);
  Rng rng(seed);
  std::vector<double> centre(static_cast<size_t>(kBlobs) * dims), sigma(kBlobs);
  for (int b = 0; b < kBlobs; b++) {
    for (int k = 0; k < dims; k++) centre[b * dims + k] = rng.uniform() * kNdSide;
    sigma[b] = 1.0 + 2.0 * rng.uniform();
  }
  for (int64_t i = 0; i < n; i++) {
    double* p = &ps.coords[static_cast<size_t>(i) * dims];
    if (name == "uniform" || i % 10 == 0) {
      for (int k = 0; k < dims; k++) p[k] = rng.uniform() * kNdSide;
    } else {
      int b = static_cast<int>(rng.uniform() * kBlobs);
      for (int k = 0; k < dims; k++) p[k] = centre[b * dims + k] + sigma[b] * rng.normal();
    }
  }
  return ps;
}

}  // namespace gd_bench
