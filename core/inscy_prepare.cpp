// inscy_prepare.cpp — what both back ends of the subspace clustering read:
// normalised columns, each dim's sort order and each point's window on it
// (inscy.hpp), the exact form of the eps test and the density thresholds.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <utility>

#include "inscy.hpp"

namespace gd {
namespace inscy {

double sqrt_limit(double eps) {
  const double inf = std::numeric_limits<double>::infinity();
  double t = eps * eps;
  if (!std::isfinite(t)) return inf;
  // sqrt is monotone: {x : sqrt(x) <= eps} is [0, t]; a few steps find t.
  while (t < inf && std::sqrt(t) <= eps) t = std::nextafter(t, inf);
  while (t > 0 && std::sqrt(t) > eps) t = std::nextafter(t, 0.0);
  return t;
}

int64_t dense_need(const gd_inscy_params& p, uint32_t n, int s) {
  const double pi = 3.14159265358979323846;
  const double c = std::pow(pi, s / 2.0) / std::tgamma(s / 2.0 + 1.0);
  double thr = p.density_factor * static_cast<double>(n) * c * std::pow(p.eps, s);
  thr = std::max(thr, static_cast<double>(p.mu));
  if (!(thr <= static_cast<double>(n))) return static_cast<int64_t>(n) + 1;  // unreachable
  return static_cast<int64_t>(std::ceil(thr));
}

namespace {

// Sorts (value, index) pairs, in index order on entry, by value and then
// index, as std::sort would.  Values that are all >= +0 (the normalised
// columns) order as their bit patterns do, as unsigned integers, so a stable
// LSD radix sort over the pattern's bytes does it in O(8 n), skipping the
// bytes that all values share.  Anything else (a NaN) goes to std::sort.
void sort_by_value(std::vector<std::pair<double, uint32_t>>& v,
                   std::vector<std::pair<double, uint32_t>>& scratch) {
  const size_t n = v.size();
  for (const auto& e : v)
    if (!(e.first >= 0) || std::signbit(e.first)) {
      std::sort(v.begin(), v.end());
      return;
    }
  scratch.resize(n);
  auto bits = [](double x) {
    uint64_t b;
    std::memcpy(&b, &x, sizeof b);
    return b;
  };
  size_t count[256];
  for (int shift = 0; shift < 64; shift += 8) {
    std::fill(count, count + 256, 0);
    for (const auto& e : v) ++count[(bits(e.first) >> shift) & 255];
    if (n == 0 || count[(bits(v[0].first) >> shift) & 255] == n) continue;  // one byte for all
    size_t at = 0;
    for (size_t& c : count) {
      const size_t here = c;
      c = at;
      at += here;
    }
    for (const auto& e : v) scratch[count[(bits(e.first) >> shift) & 255]++] = e;
    v.swap(scratch);
  }
}

}  // namespace

Prepared prepare(const double* rows, uint32_t n, int d, double eps) {
  Prepared pr;
  pr.n = n;
  pr.d = d;
  pr.t = sqrt_limit(eps);
  pr.x.assign(size_t(n) * d, 0.0);
  for (int j = 0; j < d; ++j) {
    double mn = std::numeric_limits<double>::infinity(), mx = -mn;
    for (uint32_t i = 0; i < n; ++i) {
      mn = std::min(mn, rows[size_t(i) * d + j]);
      mx = std::max(mx, rows[size_t(i) * d + j]);
    }
    if (n == 0 || !(mx > mn)) continue;  // a constant column: all 0
    const double range = mx - mn;
    for (uint32_t i = 0; i < n; ++i)
      pr.x[size_t(i) * d + j] = (rows[size_t(i) * d + j] - mn) / range;
  }

  pr.perm.resize(size_t(d) * n);
  pr.lo.resize(size_t(d) * n);
  pr.hi.resize(size_t(d) * n);

  std::vector<std::pair<double, uint32_t>> order(n), scratch;
  const double t = pr.t;
  for (int k = 0; k < d; ++k) {
    for (uint32_t i = 0; i < n; ++i) order[i] = {pr.x[size_t(i) * d + k], i};
    sort_by_value(order, scratch);  // by value, ties by index
    uint32_t* perm = pr.perm.data() + size_t(k) * n;
    for (uint32_t i = 0; i < n; ++i) perm[i] = order[i].second;
    // Windows by two pointers: near(a, w) only gets harder as a moves away
    // from w, so both ends of the window move right as a grows.
    auto near = [t](double a, double w) {
      const double diff = a - w;
      return diff * diff <= t;
    };
    uint32_t lo = 0, hi = 0;
    for (uint32_t i = 0; i < n; ++i) {
      const double a = order[i].first;
      while (!near(a, order[lo].first)) ++lo;
      if (hi < i + 1) hi = i + 1;
      while (hi < n && near(a, order[hi].first)) ++hi;
      pr.lo[size_t(k) * n + perm[i]] = lo;
      pr.hi[size_t(k) * n + perm[i]] = hi;
    }
  }
  return pr;
}

}  // namespace inscy
}  // namespace gd
