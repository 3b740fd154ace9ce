// backend.hpp — the contract between the core's C API (api.cpp) and its two
// back ends, the multithreaded CPU path (cpu_*.cpp) and the CUDA path (cuda/).
//
// Both back ends receive only the non-empty points of a partition, compacted in
// row order (point index order == partition row order), and return for each
// point the representative of its cluster: the same value for every point of
// one cluster, kNoise for noise.  Numbering clusters by first row is done once,
// for both, in labels.cpp.
#pragma once

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "gd_core.h"

// The core is built without PostgreSQL: no header of the backend may reach it.
#ifdef POSTGRES_H
#error "the clustering core must not include postgres.h"
#endif

namespace gd {

constexpr uint32_t kNoise = UINT32_MAX;

// The one exception type of the core; api.cpp turns it into a gd_error.
class Error : public std::runtime_error {
 public:
  Error(gd_status status, const std::string& what)
      : std::runtime_error(what), status_(status) {}
  gd_status status() const { return status_; }

 private:
  gd_status status_;
};

// Polls the caller's cancel flag; cheap enough to call every few thousand items.
class CancelToken {
 public:
  explicit CancelToken(const gd_params& p) : fn_(p.should_cancel), arg_(p.cancel_arg) {}
  bool requested() const { return fn_ != nullptr && fn_(arg_) != 0; }
  void throw_if_requested() const {
    if (requested()) throw Error(GD_ERR_CANCELLED, "clustering cancelled");
  }

 private:
  int (*fn_)(void*);
  void* arg_;
};

// Non-empty points of one partition, in row order.
struct PointsView {
  const double* x;
  const double* y;
  uint32_t n;
};

// The neighbour relation every back end uses, as PostGIS 3.3.2 computes it
// (union_dbscan in liblwgeom/lwgeom_geos_cluster.c).  DIRECTION: p is the
// point searching, q the point found.  PostGIS asks its index for the points
// inside p's box [fl(px - eps), fl(px + eps)] x [fl(py - eps), fl(py + eps)]
// (inclusive, the sums rounded in double) and keeps those with
// sqrt(dx*dx + dy*dy) <= eps, dx = qx - px, in double, never contracted into a
// fused multiply-add (the build passes -ffp-contract=off, nvcc -fmad=false).
//
// The distance test is symmetric; the box is not: at the last bit
// within(p, q) and within(q, p) can differ (coordinates of mixed sign or
// different binades, where fl(px + eps) rounds), and where dx*dx underflows
// the box alone decides ((0 0) and (1e-170 0) are not neighbours at eps 0).
// Who is asking matters (see cpu_union.cpp for the rules built on this):
//   - core: p counts the q with within(p, q), itself included;
//   - border x: claimed by the smallest-row core r with within(r, x);
//   - core p joins core q < p (rows) when within(p, q), the later row's view,
//     and every point joins the core that claims it first;
//   - minpoints 0 or 1: p and q join when either sees the other.
// When either holds, |qx - px| and |qy - py| are at most
// max(eps, 2^-500) * (1 + 2^-52): the distance test bounds |fl(dx)| by eps
// unless dx*dx underflows, and then |dx| < 2^-500.  Every operation is
// monotone, so if within(c0, c1) and within(c1, c0) for the corners
// c0 = (xmin, ymin), c1 = (xmax, ymax) of a box, then within(p, q) for every
// pair of points of the box.
#if defined(__CUDACC__)
#define GD_HOST_DEVICE __host__ __device__
#else
#define GD_HOST_DEVICE
#endif

// p's query box, for loops over many q (compilers keep FP operations that
// might trap inside a loop: hoist the box by hand).
struct QueryBox {
  double xlo, xhi, ylo, yhi;
};
GD_HOST_DEVICE inline QueryBox query_box(double px, double py, double eps) {
  return QueryBox{px - eps, px + eps, py - eps, py + eps};
}
GD_HOST_DEVICE inline bool in_box(const QueryBox& b, double qx, double qy) {
  return qx >= b.xlo && qx <= b.xhi && qy >= b.ylo && qy <= b.yhi;
}

// q inside p's query box.
GD_HOST_DEVICE inline bool in_query_box(double px, double py, double qx, double qy, double eps) {
  return in_box(query_box(px, py, eps), qx, qy);
}

// The distance test alone (symmetric).
GD_HOST_DEVICE inline bool within_distance(double px, double py, double qx, double qy,
                                           double eps) {
  double dx = qx - px;
  double dy = qy - py;
  return sqrt(dx * dx + dy * dy) <= eps;
}

// q is p's neighbour when p searches (see above); in a loop over q,
// in_box(box, q) && within_distance(p, q) with box = query_box(p) hoisted.
GD_HOST_DEVICE inline bool within(double px, double py, double qx, double qy, double eps) {
  return in_query_box(px, py, qx, qy, eps) && within_distance(px, py, qx, qy, eps);
}

// Both directions at once: bit 0 within(p, q), bit 1 within(q, p).  The
// cheap test first: the distance test fails unless |fl(dx)| and |fl(dy)| are
// at most max(eps, 2^-500) (past 2^-500, dx*dx is normal and
// sqrt(fl(dx*dx)) == |fl(dx)|), so most pairs cost what a symmetric test does.
GD_HOST_DEVICE inline unsigned within_each_way(double px, double py, double qx, double qy,
                                               double eps) {
  const double reach = eps > 0x1p-500 ? eps : 0x1p-500;
  const double dx = qx - px;
  const double dy = qy - py;
  if (!(fabs(dx) <= reach && fabs(dy) <= reach) || !(sqrt(dx * dx + dy * dy) <= eps)) return 0;
  return static_cast<unsigned>(in_query_box(px, py, qx, qy, eps)) |
         static_cast<unsigned>(in_query_box(qx, qy, px, py, eps)) << 1;
}

// CPU back end (cpu_dbscan.cpp): fills rep[0..pts.n), and core[0..pts.n)
// (1 for a core point, else 0) when core is given.
void cpu_cluster(const PointsView& pts, const gd_params& params, const CancelToken& cancel,
                 uint32_t* rep, gd_run_stats& stats, uint8_t* core = nullptr);

// GPU back end (cuda/, or a stub that throws GD_ERR_NO_DEVICE when built
// without CUDA): fills rep[0..pts.n) with the same clusters as cpu_cluster,
// and core[0..pts.n) as cpu_cluster does when core is given.
void gpu_cluster(const PointsView& pts, const gd_params& params, const CancelToken& cancel,
                 uint32_t* rep, gd_run_stats& stats, uint8_t* core = nullptr);
bool gpu_available(int device, std::string* why);
// CUDA devices this process sees (0 without a driver, or a build without CUDA).
int gpu_device_count();

// labels.cpp: turns per-point representatives into per-row ids, numbered
// 0..k-1 by each cluster's first row; EMPTY rows are clusters of their own
// when minpoints <= 1.
void assign_ids(const uint8_t* row_kind, int64_t nrows, const uint32_t* rep, int64_t minpoints,
                int32_t* cluster_ids);

}  // namespace gd
