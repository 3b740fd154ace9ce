// api.cpp — the extern "C" entry points of gd_core.h.  Each validates its
// arguments, runs the C++ core, and turns every exception into a gd_error:
// nothing ever escapes to the (C, longjmp-using) caller.
#include <chrono>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>
#include <string>
#include <vector>

#include "api_guard.hpp"
#include "api_rows.hpp"
#include "backend.hpp"
#include "big_alloc.hpp"
#include "cpu_small.hpp"
#include "graph.hpp"
#include "memory_ledger.hpp"

#include "parallel.hpp"

namespace {

using gd::Error;
using namespace gd::api;

// The rows of a partition of at most kSmallPoints points, clustered by
// cpu_cluster_small with nothing allocated: the points compacted on the
// stack when some rows are not points.
void cluster_small_rows(const double* x, const double* y, const uint8_t* row_kind, int64_t nrows,
                        int64_t npoints, double eps, int64_t minpoints, int32_t* cluster_ids,
                        uint8_t* point_types) {
  double cx[gd::kSmallPoints], cy[gd::kSmallPoints];
  uint32_t rep[gd::kSmallPoints];
  uint8_t core[gd::kSmallPoints];
  gd::PointsView pts{x, y, static_cast<uint32_t>(npoints)};
  if (npoints != nrows) {
    uint32_t p = 0;
    for (int64_t r = 0; r < nrows; ++r) {
      if (row_kind[r] != GD_ROW_POINT) continue;
      cx[p] = x[r];
      cy[p] = y[r];
      ++p;
    }
    pts = gd::PointsView{cx, cy, p};
  }
  gd::cpu_cluster_small(pts, eps, minpoints, rep, point_types ? core : nullptr);
  gd::assign_ids(row_kind, nrows, rep, minpoints, cluster_ids);
  if (point_types) fill_point_types(row_kind, nrows, core, cluster_ids, minpoints, point_types);
}

}  // namespace

extern "C" {

void gd_params_init(gd_params* params) {
  if (!params) return;
  std::memset(params, 0, sizeof *params);
  params->eps = 0;
  params->minpoints = 0;
  params->backend = GD_BACKEND_CPU;
  params->threads = 0;
  params->device = 0;
  params->device_memory_budget = 0;
  params->should_cancel = nullptr;
  params->cancel_arg = nullptr;
  params->report_step = nullptr;
  params->report_arg = nullptr;
  params->min_items_per_thread = 0;
  params->max_pairs = 0;
}

gd_status gd_cluster_points(const double* x, const double* y, const uint8_t* row_kind,
                            int64_t nrows, const gd_params* params, int32_t* cluster_ids,
                            gd_run_stats* stats, gd_error* err) {
  return gd_cluster_points_typed(x, y, row_kind, nrows, params, cluster_ids, nullptr, stats, err);
}

gd_status gd_cluster_points_typed(const double* x, const double* y, const uint8_t* row_kind,
                                  int64_t nrows, const gd_params* params, int32_t* cluster_ids,
                                  uint8_t* point_types, gd_run_stats* stats, gd_error* err) {
  return guarded(err, [&] {
    check_params(params);
    const int64_t npoints = check_point_rows(x, y, row_kind, nrows, *params);
    if (nrows > 0 && !cluster_ids) invalid("cluster_ids is NULL");
    gd_run_stats st;
    std::memset(&st, 0, sizeof st);
    st.backend = params->backend;
    st.points = npoints;

    const int64_t minpoints = params->minpoints;
    if (minpoints >= 2 && npoints < minpoints) {
      // No point can have minpoints neighbours: all noise, as in PostGIS.
      for (int64_t r = 0; r < nrows; ++r) cluster_ids[r] = GD_NOISE;
      if (point_types) fill_point_types(row_kind, nrows, nullptr, cluster_ids, minpoints, point_types);
    } else if (params->backend == GD_BACKEND_CPU && npoints <= gd::kSmallPoints) {
      // A handful of points (the many small partitions of a window query):
      // not timed, a clock read costs as much as the clustering.
      cluster_small_rows(x, y, row_kind, nrows, npoints, params->eps, minpoints, cluster_ids,
                         point_types);
    } else {
      auto t0 = std::chrono::steady_clock::now();
      CompactPoints pts(x, y, row_kind, nrows, npoints);
      std::vector<uint8_t> core(point_types ? npoints : 0);
      uint8_t* core_out = point_types ? core.data() : nullptr;
      gd::CancelToken cancel(*params);
      const bool gpu = params->backend == GD_BACKEND_GPU;
      // The GPU's representatives are ranks, which are the ids when every row
      // is a point (assign_ids would copy them unchanged, kNoise being
      // GD_NOISE): they are then copied from the device straight into
      // cluster_ids.
      const bool ids_direct = gpu && npoints == nrows;
      static_assert(sizeof(uint32_t) == sizeof(int32_t), "ids and ranks share a layout");
      gd::BigVector<uint32_t> rep(ids_direct ? 0 : npoints);  // each written by the back end
      uint32_t* rep_out = ids_direct ? reinterpret_cast<uint32_t*>(cluster_ids) : rep.data();
      if (gpu)
        gd::gpu_cluster(pts.view(), *params, cancel, rep_out, st, core_out);
      else
        gd::cpu_cluster(pts.view(), *params, cancel, rep_out, st, core_out);
      pts.release();

      auto tl = std::chrono::steady_clock::now();
      if (!ids_direct) gd::assign_ids(row_kind, nrows, rep.data(), minpoints, cluster_ids);
      st.t_label += seconds_since(tl);
      if (point_types)
        fill_point_types(row_kind, nrows, core.empty() ? nullptr : core.data(), cluster_ids,
                         minpoints, point_types);
      st.t_total = seconds_since(t0);
    }
    if (stats) *stats = st;
  });
}

gd_status gd_candidate_pairs(const gd_box* boxes, const uint8_t* row_kind, int64_t nrows,
                             double eps, const gd_params* params, gd_pair_list* out,
                             gd_error* err) {
  return guarded(err, [&] {
    gd_params defaults;
    params = check_pair_search(out, eps, nrows, params, &defaults);
    if (nrows > 0 && (!boxes || !row_kind)) invalid("boxes or row_kind is NULL");
    gd::CancelToken cancel(*params);
    gd::candidate_pairs(boxes, row_kind, nrows, eps, *params, cancel, out, max_pairs_of(*params));
  });
}

void gd_pair_list_free(gd_pair_list* list) {
  if (!list) return;
  std::free(list->pairs);
  gd::memory_refund(list->charged);
  list->pairs = nullptr;
  list->count = 0;
  list->charged = 0;
}

gd_status gd_cluster_graph(const uint8_t* row_kind, int64_t nrows, const gd_pair* edges,
                           int64_t nedges, int64_t minpoints, int32_t* cluster_ids,
                           gd_error* err) {
  return gd_cluster_graph_typed(row_kind, nrows, edges, nedges, minpoints, cluster_ids, nullptr,
                                err);
}

gd_status gd_cluster_graph_typed(const uint8_t* row_kind, int64_t nrows, const gd_pair* edges,
                                 int64_t nedges, int64_t minpoints, int32_t* cluster_ids,
                                 uint8_t* point_types, gd_error* err) {
  return guarded(err, [&] {
    check_minpoints(minpoints);
    check_graph(row_kind, nrows, edges, nedges, cluster_ids);
    std::vector<uint8_t> core(point_types ? nrows : 0);
    gd::cluster_graph(row_kind, nrows, edges, nedges, minpoints, cluster_ids,
                      point_types ? core.data() : nullptr);
    if (point_types)
      fill_point_types(row_kind, nrows, core.data(), cluster_ids, minpoints, point_types);
  });
}

gd_status gd_cluster_graph_directed(const uint8_t* row_kind, int64_t nrows, const gd_pair* edges,
                                    const uint8_t* dirs, int64_t nedges, int64_t minpoints,
                                    int32_t* cluster_ids, uint8_t* point_types, gd_error* err) {
  return guarded(err, [&] {
    check_minpoints(minpoints);
    check_graph(row_kind, nrows, edges, nedges, cluster_ids);
    std::vector<uint8_t> core(point_types ? nrows : 0);
    gd::cluster_graph(row_kind, nrows, edges, nedges, minpoints, cluster_ids,
                      point_types ? core.data() : nullptr, dirs);
    if (point_types)
      fill_point_types(row_kind, nrows, core.data(), cluster_ids, minpoints, point_types);
  });
}

int gd_gpu_available(int device, gd_error* why) {
  int available = 0;
  gd_status st = guarded(why, [&] {
    std::string reason;
    available = gd::gpu_available(device, &reason) ? 1 : 0;
    if (!available) throw Error(GD_ERR_NO_DEVICE, reason.empty() ? "no usable CUDA device" : reason);
  });
  return st == GD_OK ? available : 0;
}

int gd_hardware_threads(void) { return gd::hardware_threads(); }

int gd_gpu_device_count(void) {
  try {
    return gd::gpu_device_count();
  } catch (...) {
    return 0;
  }
}

int gd_built_with_cuda(void) {
#ifdef GD_HAVE_CUDA
  return 1;
#else
  return 0;
#endif
}

}  // extern "C"
