// neighbour.cpp — the host parts of the neighbour predicate (neighbour.hpp):
// the square-root-free threshold, and the distance test for the C glue.
#include "rules/neighbour.hpp"

#include <cmath>
#include <string>

#include "backend.hpp"

namespace gd {

double eps_threshold(double eps) {
  constexpr double inf = __builtin_huge_val();
  if (std::isinf(eps)) return inf;
  auto passes = [eps](double s) { return std::sqrt(s) <= eps; };
  double t = eps * eps;  // within an ulp or two of the answer (inf past 1.3e154)
  for (int k = 0; k < 64 && !passes(t); ++k) t = std::nextafter(t, -inf);
  for (int k = 0; k < 64; ++k) {
    double up = std::nextafter(t, inf);
    if (!passes(up)) break;
    t = up;
  }
  if (!passes(t) || passes(std::nextafter(t, inf)))
    throw Error(GD_ERR_INTERNAL, "no exact neighbour threshold for eps " + std::to_string(eps));
  return t;
}

}  // namespace gd

// Cannot throw: no guard needed.
extern "C" int gd_within_distance(double px, double py, double qx, double qy, double eps) {
  return gd::within_distance(px, py, qx, qy, eps) ? 1 : 0;
}

extern "C" int gd_within(double px, double py, double qx, double qy, double eps) {
  return gd::within(px, py, qx, qy, eps) ? 1 : 0;
}
