// api_sweep.cpp — the extern "C" minpoints sweeps of gd_core.h: one
// neighbour search (points) or one neighbour graph (other geometries) serves
// every minpoints value.
#include <algorithm>
#include <chrono>
#include <cstring>
#include <vector>

#include "api_guard.hpp"
#include "api_levels.hpp"
#include "api_rows.hpp"
#include "backend.hpp"
#include "graph.hpp"
#include "sweep.hpp"

namespace {

using namespace gd::api;

// Value k's ids at cluster_ids + k * nrows.
std::vector<int32_t*> level_outputs(int32_t* cluster_ids, int64_t nrows, int64_t nvalues) {
  std::vector<int32_t*> out(static_cast<size_t>(nvalues));
  for (int64_t k = 0; k < nvalues; ++k) out[k] = cluster_ids + k * nrows;
  return out;
}

}  // namespace

extern "C" {

gd_status gd_cluster_points_sweep(const double* x, const double* y, const uint8_t* row_kind,
                                  int64_t nrows, const gd_params* params,
                                  const int64_t* minpoints, int64_t nminpoints,
                                  int32_t* cluster_ids, gd_run_stats* stats, gd_error* err) {
  return guarded(err, [&] {
    auto t0 = std::chrono::steady_clock::now();
    gd_run_stats st;
    std::memset(&st, 0, sizeof st);
    check_params(params);
    check_sweep(minpoints, nminpoints, nrows);
    const int64_t npoints = check_point_rows(x, y, row_kind, nrows, *params);
    if (nrows > 0 && !cluster_ids) invalid("cluster_ids is NULL");
    const Levels levels(minpoints, nminpoints);

    // Level k's scratch (the CPU's) is the output of its first request,
    // which emit() writes only after its last read (row ids fill
    // nrows >= npoints slots).  Where every row is a point the GPU's ranks
    // are the ids (as in gd_cluster_points): it writes them there itself.
    std::vector<uint32_t*> best(levels.values.size());
    for (size_t k = 0; k < best.size(); ++k)
      best[k] = reinterpret_cast<uint32_t*>(cluster_ids + levels.first_request[k] * nrows);
    const bool gpu = params->backend == GD_BACKEND_GPU;
    const bool ids_direct = gpu && npoints == nrows;
    auto emit = [&](size_t level, const uint32_t* rep) {
      const int64_t first = levels.first_request[level];
      int32_t* ids = cluster_ids + first * nrows;
      if (!(ids_direct && rep == best[level]))
        gd::assign_ids(row_kind, nrows, rep, minpoints[first], ids);
      for (int64_t k = first + 1; k < nminpoints; ++k)
        if (levels.of_request[k] == level)
          std::memcpy(cluster_ids + k * nrows, ids, sizeof(int32_t) * nrows);
    };

    CompactPoints pts(x, y, row_kind, nrows, npoints);
    gd::CancelToken cancel(*params);
    if (gpu)
      gd::gpu_sweep(pts.view(), params->eps, levels.values, *params, cancel,
                    ids_direct ? best.data() : nullptr, emit, st);
    else
      gd::cpu_sweep(pts.view(), params->eps, levels.values, *params, cancel, best.data(), emit,
                    st);
    st.t_total = seconds_since(t0);
    if (stats) *stats = st;
  });
}

gd_status gd_cluster_graph_sweep(const uint8_t* row_kind, int64_t nrows, const gd_pair* edges,
                                 int64_t nedges, const int64_t* minpoints, int64_t nminpoints,
                                 int32_t* cluster_ids, gd_error* err) {
  return guarded(err, [&] {
    check_sweep(minpoints, nminpoints, nrows);
    check_graph(row_kind, nrows, edges, nedges, cluster_ids);
    // The graph is the costly part and is already built: the counts once,
    // then one pass per value.
    gd::cluster_graph_levels(row_kind, nrows, edges, nedges, minpoints,
                             static_cast<size_t>(nminpoints),
                             level_outputs(cluster_ids, nrows, nminpoints).data());
  });
}

gd_status gd_cluster_graph_directed_sweep(const uint8_t* row_kind, int64_t nrows,
                                          const gd_pair* edges, const uint8_t* dirs,
                                          int64_t nedges, const int64_t* minpoints,
                                          int64_t nminpoints, int32_t* cluster_ids,
                                          gd_error* err) {
  return guarded(err, [&] {
    check_sweep(minpoints, nminpoints, nrows);
    check_graph(row_kind, nrows, edges, nedges, cluster_ids);
    gd::cluster_graph_levels(row_kind, nrows, edges, nedges, minpoints,
                             static_cast<size_t>(nminpoints),
                             level_outputs(cluster_ids, nrows, nminpoints).data(), nullptr, dirs);
  });
}

}  // extern "C"
