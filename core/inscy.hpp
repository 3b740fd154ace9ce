// inscy.hpp — subspace clustering (gd_inscy.h): the prepared input both back
// ends read, one level's work as the driver (inscy_driver.cpp) hands it to a
// back end, and the two back ends (inscy_cpu.cpp, cuda/inscy.cu).
//
// The neighbour test of a subspace S (dims ascending): with
//   sum = 0; for j in S: sum = sum + (p'_j - q'_j) * (p'_j - q'_j)
// q is p's neighbour when sqrt(sum) <= eps.  sqrt is monotone, so that is
// exactly sum <= t for t the largest double with sqrt(t) <= eps
// (sqrt_limit()), and since every partial sum is a lower bound of the final
// one (rounding is monotone, the terms are >= 0), a partial sum above t ends
// the test.  The same holds of every subset of S: a neighbour in S is a
// neighbour in every subset.  In particular q lies in p's window on each dim k
// of S: the sorted positions whose value v has fl(fl(p'_k - v)^2) <= t, a
// contiguous range (the predicate is monotone in |p'_k - v|).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "backend.hpp"
#include "gd_inscy.h"

namespace gd {
namespace inscy {

// The normalised input and each point's window on each dim.
struct Prepared {
  uint32_t n = 0;
  int d = 0;
  double t = 0;                  // sum <= t  <=>  sqrt(sum) <= eps
  std::vector<double> x;         // n x d, row-major, normalised
  std::vector<uint32_t> perm;    // d x n: dim k's points by value (ties by index)
  std::vector<uint32_t> lo, hi;  // d x n: point p's window on dim k is perm[k][lo..hi)
  uint32_t window(int k, uint32_t p) const {
    return hi[size_t(k) * n + p] - lo[size_t(k) * n + p];
  }
};

// Where a point looks for its neighbours in a subspace: its window on the
// dim k1 where it is shortest (scanned), and the next shortest k2, tested
// alone first (near_on; k2 == k1 when s == 1).
struct Scan {
  int k1, k2;
};

GD_HD inline Scan choose_scan(const uint32_t* lo, const uint32_t* hi, uint32_t n,
                                      const uint8_t* dims, int s, uint32_t p) {
  uint32_t w1 = 0xffffffffu, w2 = 0xffffffffu;
  int k1 = dims[0], k2 = dims[0];
  for (int i = 0; i < s; ++i) {
    const size_t at = size_t(dims[i]) * n + p;
    const uint32_t w = hi[at] - lo[at];
    if (w < w1) {
      w2 = w1;
      k2 = k1;
      w1 = w;
      k1 = dims[i];
    } else if (w < w2) {
      w2 = w;
      k2 = dims[i];
    }
  }
  if (s == 1) k2 = k1;
  return Scan{k1, k2};
}

// The largest double t with sqrt(t) <= eps (+infinity when every sum passes).
double sqrt_limit(double eps);

// Column normalisation and windows.
Prepared prepare(const double* rows, uint32_t n, int d, double eps);

// The density threshold of a level as a neighbour count: the smallest count
// k with (double)k >= max(F * n * c(s) * eps^s, mu); above n - 1 when no
// point can reach it.
int64_t dense_need(const gd_inscy_params& p, uint32_t n, int s);

// One batch of subspaces of one level: for each, its dims and the points to
// look at (ascending).
struct Batch {
  int s = 0;
  std::vector<uint8_t> dims;       // s per subspace, ascending
  std::vector<uint64_t> offsets;   // subspace i's points are pts[offsets[i] .. offsets[i+1])
  std::vector<uint32_t> pts;
  size_t size() const { return offsets.empty() ? 0 : offsets.size() - 1; }
};

// Flags of count(): candidate (>= mu neighbours), dense (>= need_dense).
constexpr uint8_t kCandidate = 1;
constexpr uint8_t kDense = 2;

class Backend {
 public:
  virtual ~Backend() = default;
  // flags[i] for the point pts[i] of its subspace: neighbour counts stop at
  // need_dense (>= mu).
  virtual void count(const Batch& b, int64_t mu, int64_t need_dense,
                     std::vector<uint8_t>& flags) = 0;
  // b.pts are dense points; comp[i]: the smallest index i' (into b.pts, within
  // its subspace) of pts[i]'s connected component.
  virtual void components(const Batch& b, std::vector<uint32_t>& comp) = 0;
  virtual gd_backend kind() const = 0;
  // Bytes the back end lets one batch use (pairs are sized from it).
  virtual size_t batch_bytes() const = 0;
  double t_transfer = 0;
};

std::unique_ptr<Backend> make_cpu_backend(const Prepared& prep, const gd_params& params,
                                          const CancelToken& cancel, size_t budget);
// Throws GD_ERR_NO_DEVICE in a build without CUDA (inscy_gpu_stub.cpp).
std::unique_ptr<Backend> make_gpu_backend(const Prepared& prep, const gd_params& params,
                                          const CancelToken& cancel);

// The whole clustering (inscy_driver.cpp); out is filled with malloc'd arrays.
void run(const double* rows, uint32_t n, int d, const gd_inscy_params& ip,
         const gd_params& params, const CancelToken& cancel, gd_inscy_result& out,
         gd_run_stats& stats);

// Default budget for the host's level tables when params gives none.
constexpr size_t kDefaultHostBudget = size_t(4) << 30;

}  // namespace inscy
}  // namespace gd

namespace gd {
namespace inscy {

// The neighbour test of inscy.hpp's header comment over the s dims of a
// subspace (xp, xq: the two points' rows).
GD_HD inline bool near_in(const double* xp, const double* xq, const uint8_t* dims, int s,
                                   double t) {
  double sum = 0;
  for (int i = 0; i < s; ++i) {
    const double diff = xp[dims[i]] - xq[dims[i]];
    sum = sum + diff * diff;
    if (sum > t) return false;
  }
  return true;
}

// One term alone: false only when q is no neighbour of p in any subspace
// holding dim k (the sum is never below any of its terms: rounding is
// monotone and the terms are >= 0).
GD_HD inline bool near_on(const double* xp, const double* xq, int k, double t) {
  const double diff = xp[k] - xq[k];
  return diff * diff <= t;
}

}  // namespace inscy
}  // namespace gd
