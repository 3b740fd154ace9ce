// neighbour.hpp — the one home of the neighbour predicates, for the CPU
// back end (core/), the CUDA back end (cuda/ includes this header) and the
// PostgreSQL glue (gd_within_distance in gd_core.h).  Header-only and GD_HD
// so that the hot loops inline it on both; every operation is rounded on its
// own (the *_rn helpers), so the answer is bit for bit the same whatever the
// compiler would contract (the build also passes -ffp-contract=off and nvcc
// -fmad=false).
//
// Two relations:
//   - 2D geometry: PostGIS 3.3.2's, one-sided (within, below);
//   - POINT Z, float8[] and geography as xyz: the symmetric n-D test
//     (within_eps_d, at the end).
#pragma once

#include <cmath>
#include <cstdint>

#include "hd.hpp"

namespace gd {

// Rounded sums and products, each operation on its own whatever the compiler
// flags (the intrinsics on the device; the build's -ffp-contract=off on the
// host).
GD_HD_INLINE double add_rn(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dadd_rn(a, b);
#else
  return a + b;
#endif
}
GD_HD_INLINE double sub_rn(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dsub_rn(a, b);
#else
  return a - b;
#endif
}
GD_HD_INLINE double mul_rn(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dmul_rn(a, b);
#else
  return a * b;
#endif
}

// ---- 2D: PostGIS's relation ------------------------------------------------
//
// As PostGIS 3.3.2 computes it (union_dbscan in liblwgeom/lwgeom_geos_cluster.c).
// DIRECTION: p is the point searching, q the point found.  PostGIS asks its
// index for the points inside p's box [fl(px - eps), fl(px + eps)] x
// [fl(py - eps), fl(py + eps)] (inclusive, the sums rounded in double) and
// keeps those with sqrt(dx*dx + dy*dy) <= eps, dx = qx - px, in double, never
// contracted into a fused multiply-add.
//
// The distance test is symmetric (fl(a - b) = -fl(b - a)); the box is not:
// at the last bit within(p, q) and within(q, p) can differ (coordinates of
// mixed sign or different binades, where fl(px + eps) rounds: p = -1e-20
// sees q = 1 at eps 1, q does not see p), and where dx*dx underflows the box
// alone decides ((0 0) and (1e-170 0) are not neighbours at eps 0).  Who is
// asking matters (rules/dbscan_rules.hpp holds the rules built on this).
//
// When either direction holds, |qx - px| and |qy - py| are at most
// max(eps, 2^-500) * (1 + 2^-52): the distance test bounds |fl(dx)| by eps
// unless dx*dx underflows, and then |dx| < 2^-500.  Every operation is
// monotone: the query box's bounds grow with px, the distance with |qx - px|
// and |qy - py|.  So if within(c0, c1) and within(c1, c0) for the corners
// c0 = (xmin, ymin), c1 = (xmax, ymax) of a box, then within(p, q) for every
// pair of points of the box, and over the points of a box B the relation is
// bounded without a distance test per point (the *_in helpers below).

// An axis-aligned box: a grid cell's points' bounding box on both back ends.
struct Box2 {
  double x0, y0, x1, y1;
};

// p's query box, for loops over many q (compilers keep FP operations that
// might trap inside a loop: hoist the box by hand).
struct QueryBox {
  double xlo, xhi, ylo, yhi;
};
GD_HD_INLINE QueryBox query_box(double px, double py, double eps) {
  return QueryBox{sub_rn(px, eps), add_rn(px, eps), sub_rn(py, eps), add_rn(py, eps)};
}
GD_HD_INLINE bool in_box(const QueryBox& b, double qx, double qy) {
  return qx >= b.xlo && qx <= b.xhi && qy >= b.ylo && qy <= b.yhi;
}

// q inside p's query box.
GD_HD_INLINE bool in_query_box(double px, double py, double qx, double qy, double eps) {
  return in_box(query_box(px, py, eps), qx, qy);
}

// fl(fl(dx*dx) + fl(dy*dy)), dx = fl(qx - px): symmetric in p and q.
GD_HD_INLINE double dist2(double px, double py, double qx, double qy) {
  const double dx = sub_rn(qx, px);
  const double dy = sub_rn(qy, py);
  return add_rn(mul_rn(dx, dx), mul_rn(dy, dy));
}

// The distance test alone (symmetric).
GD_HD_INLINE bool within_distance(double px, double py, double qx, double qy, double eps) {
  return sqrt(dist2(px, py, qx, qy)) <= eps;
}

// q is p's neighbour when p searches (see above); in a loop over q,
// in_box(box, q) && within_distance(p, q) with box = query_box(p) hoisted.
GD_HD_INLINE bool within(double px, double py, double qx, double qy, double eps) {
  return in_query_box(px, py, qx, qy, eps) && within_distance(px, py, qx, qy, eps);
}

// Both directions at once: bit 0 within(p, q), bit 1 within(q, p).  The
// cheap test first: the distance test fails unless |fl(dx)| and |fl(dy)| are
// at most max(eps, 2^-500) (past 2^-500, dx*dx is normal and
// sqrt(fl(dx*dx)) == |fl(dx)|), so most pairs cost what a symmetric test does.
GD_HD_INLINE unsigned within_each_way(double px, double py, double qx, double qy, double eps) {
  const double reach = eps > 0x1p-500 ? eps : 0x1p-500;
  const double dx = sub_rn(qx, px);
  const double dy = sub_rn(qy, py);
  if (!(fabs(dx) <= reach && fabs(dy) <= reach) ||
      !(sqrt(add_rn(mul_rn(dx, dx), mul_rn(dy, dy))) <= eps))
    return 0;
  return static_cast<unsigned>(in_query_box(px, py, qx, qy, eps)) |
         static_cast<unsigned>(in_query_box(qx, qy, px, py, eps)) << 1;
}

// ---- the same relation without a square root -------------------------------
//
// Correctly rounded sqrt is monotone, so the sums s that pass the distance
// test are exactly {s <= t} for one double t = eps_threshold(eps), found once
// per run on the host (rules/neighbour.cpp): dist2(p, q) <= t is bit for bit
// within_distance(p, q, eps).  The device kernels and the box bounds use it.
double eps_threshold(double eps);

GD_HD_INLINE bool within_distance_t(double px, double py, double qx, double qy, double t) {
  return dist2(px, py, qx, qy) <= t;
}

// within(p, q, eps), given t = eps_threshold(eps).
GD_HD_INLINE bool sees(double px, double py, double qx, double qy, double eps, double t) {
  return in_query_box(px, py, qx, qy, eps) && within_distance_t(px, py, qx, qy, t);
}

// sees() as 0 or 1, box = query_box(px, py, eps), with no branch, so that a
// loop counting over q vectorises.
GD_HD_INLINE unsigned sees_bit(const QueryBox& box, double px, double py, double qx, double qy,
                               double t) {
  return static_cast<unsigned>(qx >= box.xlo) & static_cast<unsigned>(qx <= box.xhi) &
         static_cast<unsigned>(qy >= box.ylo) & static_cast<unsigned>(qy <= box.yhi) &
         static_cast<unsigned>(dist2(px, py, qx, qy) <= t);
}

// The points of B are pairwise neighbours, both ways: its corners see each
// other (fl(px - eps) <= qx is hardest for px = x1, qx = x0, which is what
// (x1, y1) seeing (x0, y0) tests, and so on).
GD_HD_INLINE bool pairwise_neighbours(const Box2& b, double eps, double t) {
  return sees(b.x0, b.y0, b.x1, b.y1, eps, t) && sees(b.x1, b.y1, b.x0, b.y0, eps, t);
}

// p's distance to B's nearest point (a point of B, though maybe not one of
// the data): a lower bound of the distance part over B.
GD_HD_INLINE bool near_corner_ok(double px, double py, const Box2& b, double t) {
  const double cx = fmin(fmax(px, b.x0), b.x1);
  const double cy = fmin(fmax(py, b.y0), b.y1);
  return within_distance_t(px, py, cx, cy, t);
}

// p's distance to B's farthest corner (|fl(x - px)| is monotone in x, so the
// farther end of each axis): an upper bound of the distance part over B.
GD_HD_INLINE bool far_corner_ok(double px, double py, const Box2& b, double t) {
  const double fx = (fabs(sub_rn(b.x0, px)) >= fabs(sub_rn(b.x1, px))) ? b.x0 : b.x1;
  const double fy = (fabs(sub_rn(b.y0, py)) >= fabs(sub_rn(b.y1, py))) ? b.y0 : b.y1;
  return within_distance_t(px, py, fx, fy, t);
}

// False: p sees no point of B.  (Its search box misses B, or B's nearest
// point is beyond eps.)
GD_HD_INLINE bool sees_any_in(double px, double py, const Box2& b, double eps, double t) {
  return sub_rn(px, eps) <= b.x1 && b.x0 <= add_rn(px, eps) && sub_rn(py, eps) <= b.y1 &&
         b.y0 <= add_rn(py, eps) && near_corner_ok(px, py, b, t);
}

// True: p sees every point of B.
GD_HD_INLINE bool sees_all_in(double px, double py, const Box2& b, double eps, double t) {
  return sub_rn(px, eps) <= b.x0 && b.x1 <= add_rn(px, eps) && sub_rn(py, eps) <= b.y0 &&
         b.y1 <= add_rn(py, eps) && far_corner_ok(px, py, b, t);
}

// False: no point r of B sees p.  (fl(rx - eps) >= fl(x0 - eps) and
// fl(rx + eps) <= fl(x1 + eps) for every rx in [x0, x1].)
GD_HD_INLINE bool seen_by_any_in(double px, double py, const Box2& b, double eps, double t) {
  return sub_rn(b.x0, eps) <= px && px <= add_rn(b.x1, eps) && sub_rn(b.y0, eps) <= py &&
         py <= add_rn(b.y1, eps) && near_corner_ok(px, py, b, t);
}

// True: every point r of B sees p.
GD_HD_INLINE bool seen_by_all_in(double px, double py, const Box2& b, double eps, double t) {
  return sub_rn(b.x1, eps) <= px && px <= add_rn(b.x0, eps) && sub_rn(b.y1, eps) <= py &&
         py <= add_rn(b.y0, eps) && far_corner_ok(px, py, b, t);
}

// ---- n-D: the symmetric relation ---------------------------------------------
//
// q is a neighbour of p when |q_k - p_k| <= eps on every axis k and
// sqrt(d_0*d_0 + d_1*d_1 + ...) <= eps, the squares summed in axis order, in
// IEEE double with no fused multiply-add.  The 2D relation above uses
// PostGIS's rounded query box instead of |q_k - p_k| <= eps; the two differ
// only where the box rounds across a point.  Every operation is monotone in
// each |q_k - p_k|, so if the two corners of a box pass, every pair of points
// inside the box passes.
template <int D>
GD_HD_INLINE bool within_eps_d(const double* p, const double* q, double eps) {
  // Without a branch per axis: candidates that fail on some axis are common
  // in more than three dimensions (the grid cuts three), and the branches
  // mispredict on the host and diverge on the device.
  double s = 0;
  bool near = true;
  for (int k = 0; k < D; ++k) {
    const double d = sub_rn(q[k], p[k]);
    near &= fabs(d) <= eps;
    s = add_rn(s, mul_rn(d, d));
  }
  return near & (sqrt(s) <= eps);
}

// Some point of the box [lo, hi] may be a neighbour of p: the box's point
// nearest p passes.  Every |fl(q_k - p_k)| over the box is at least the
// nearest point's (rounding is monotone) and the relation is monotone in
// each, so a failure rules out the whole box.
template <int D>
GD_HD_INLINE bool box_near_d(const double* p, const double* lo, const double* hi, double eps) {
  double c[D];
  for (int k = 0; k < D; ++k) c[k] = p[k] < lo[k] ? lo[k] : p[k] > hi[k] ? hi[k] : p[k];
  return within_eps_d<D>(p, c, eps);
}

// Every point of the box [lo, hi] is a neighbour of p: the corner farthest
// from p passes.
template <int D>
GD_HD_INLINE bool box_all_d(const double* p, const double* lo, const double* hi, double eps) {
  double c[D];
  for (int k = 0; k < D; ++k)
    c[k] = fabs(sub_rn(lo[k], p[k])) >= fabs(sub_rn(hi[k], p[k])) ? lo[k] : hi[k];
  return within_eps_d<D>(p, c, eps);
}

// Two boxes [alo, ahi] and [blo, bhi]: some pair of points, one in each, may
// be neighbours.  For p in one and q in the other |fl(q_k - p_k)| is at least
// fl(gap_k), gap_k the boxes' distance on axis k (rounding is monotone), and
// the relation is monotone in each.
template <int D>
GD_HD_INLINE bool boxes_near_d(const double* alo, const double* ahi, const double* blo,
                               const double* bhi, double eps) {
  double gap[D], zero[D];
  for (int k = 0; k < D; ++k) {
    const double g1 = sub_rn(blo[k], ahi[k]), g2 = sub_rn(alo[k], bhi[k]);
    gap[k] = g1 > g2 ? (g1 > 0 ? g1 : 0) : (g2 > 0 ? g2 : 0);
    zero[k] = 0;
  }
  return within_eps_d<D>(zero, gap, eps);
}

// Every pair of points of the two boxes is a neighbour pair: the corners of
// their union pass.
template <int D>
GD_HD_INLINE bool boxes_all_d(const double* alo, const double* ahi, const double* blo,
                              const double* bhi, double eps) {
  double lo[D], hi[D];
  for (int k = 0; k < D; ++k) {
    lo[k] = alo[k] < blo[k] ? alo[k] : blo[k];
    hi[k] = ahi[k] > bhi[k] ? ahi[k] : bhi[k];
  }
  return within_eps_d<D>(lo, hi, eps);
}

}  // namespace gd
