// nd_api.cpp — the extern "C" entry points for n-D points (gd_core.h):
// gd_cluster_points_nd and gd_neighbour_pairs_nd.  Like api.cpp, each runs
// under guarded(): nothing escapes to the C caller.
#include <chrono>
#include <cmath>
#include <cstring>
#include <vector>

#include "api_guard.hpp"
#include "api_rows.hpp"
#include "nd_points.hpp"

namespace {

using namespace gd::api;

void check_dims(int dims) {
  if (dims < gd::kMinDims || dims > gd::kMaxDims)
    invalid("points must have %d to %d coordinates, got %d", gd::kMinDims, gd::kMaxDims, dims);
}

// The GD_ROW_POINT rows' coordinates, compacted in row order, and (when
// row_of is given) each point's row; checks every row.
std::vector<double> compact_points(const double* coords, int dims, const uint8_t* row_kind,
                                   int64_t nrows, std::vector<uint32_t>* row_of) {
  std::vector<double> out;
  out.reserve(static_cast<size_t>(nrows) * dims);
  for (int64_t r = 0; r < nrows; ++r) {
    const uint8_t kind = row_kind[r];
    if (kind == GD_ROW_EMPTY || kind == GD_ROW_NULL) continue;
    if (kind != GD_ROW_POINT)
      invalid("row %lld has kind %d; n-D rows are points, EMPTY or NULL",
              static_cast<long long>(r), static_cast<int>(kind));
    if (!coords) invalid("coords is NULL");
    const double* p = coords + r * dims;
    for (int k = 0; k < dims; ++k)
      if (!std::isfinite(p[k]))
        invalid("row %lld has a non-finite coordinate %g on axis %d", static_cast<long long>(r),
                p[k], k);
    out.insert(out.end(), p, p + dims);
    if (row_of) row_of->push_back(static_cast<uint32_t>(r));
  }
  if (static_cast<int64_t>(out.size() / dims) > kMaxPoints)
    invalid("%lld points in one partition, at most %lld are supported",
            static_cast<long long>(out.size() / dims), static_cast<long long>(kMaxPoints));
  return out;
}

}  // namespace

extern "C" {

gd_status gd_cluster_points_nd(const double* coords, int dims, const uint8_t* row_kind,
                               int64_t nrows, const gd_params* params, int32_t* cluster_ids,
                               gd_run_stats* stats, gd_error* err) {
  return gd_cluster_points_nd_typed(coords, dims, row_kind, nrows, params, cluster_ids, nullptr,
                                    stats, err);
}

gd_status gd_cluster_points_nd_typed(const double* coords, int dims, const uint8_t* row_kind,
                                     int64_t nrows, const gd_params* params,
                                     int32_t* cluster_ids, uint8_t* point_types,
                                     gd_run_stats* stats, gd_error* err) {
  // Two axes: the 2D path, on either back end.
  if (dims == 2) {
    std::vector<double> x, y;
    gd_status st = guarded(err, [&] {
      if (nrows < 0) invalid("nrows must be >= 0, got %lld", static_cast<long long>(nrows));
      if (nrows > 0 && (!row_kind || !coords)) invalid("row_kind or coords is NULL");
      x.assign(static_cast<size_t>(nrows), 0.0);
      y.assign(static_cast<size_t>(nrows), 0.0);
      for (int64_t r = 0; r < nrows; ++r) {
        if (row_kind[r] != GD_ROW_POINT) continue;
        x[r] = coords[2 * r];
        y[r] = coords[2 * r + 1];
      }
    });
    if (st != GD_OK) return st;
    return gd_cluster_points_typed(x.data(), y.data(), row_kind, nrows, params, cluster_ids,
                                   point_types, stats, err);
  }

  return guarded(err, [&] {
    auto t0 = std::chrono::steady_clock::now();
    gd_run_stats st;
    std::memset(&st, 0, sizeof st);
    check_params(params);
    check_dims(dims);
    if (nrows < 0) invalid("nrows must be >= 0, got %lld", static_cast<long long>(nrows));
    if (nrows > 0 && (!row_kind || !cluster_ids)) invalid("row_kind or cluster_ids is NULL");

    std::vector<double> pts = compact_points(coords, dims, row_kind, nrows, nullptr);
    const uint32_t npoints = static_cast<uint32_t>(pts.size() / dims);
    st.backend = params->backend;
    st.points = npoints;

    std::vector<uint32_t> rep(npoints, gd::kNoise);
    std::vector<uint8_t> core(point_types ? npoints : 0);
    uint8_t* core_out = point_types ? core.data() : nullptr;
    if (!(params->minpoints >= 2 && npoints < params->minpoints)) {
      const gd::NdPointsView view{pts.data(), dims, npoints};
      gd::CancelToken cancel(*params);
      if (params->backend == GD_BACKEND_GPU)
        gd::gpu_nd_cluster(view, *params, cancel, rep.data(), st, core_out);
      else
        gd::nd_cluster(view, *params, cancel, rep.data(), st, core_out);
    } else {
      core_out = nullptr;  // no point is core
    }
    std::vector<double>().swap(pts);
    auto tl = std::chrono::steady_clock::now();
    gd::assign_ids(row_kind, nrows, rep.data(), params->minpoints, cluster_ids);
    if (point_types)
      fill_point_types(row_kind, nrows, core_out, cluster_ids, params->minpoints, point_types);
    st.t_label += seconds_since(tl);
    st.t_total = seconds_since(t0);
    if (stats) *stats = st;
  });
}

gd_status gd_neighbour_pairs_nd(const double* coords, int dims, const uint8_t* row_kind,
                                int64_t nrows, double eps, const gd_params* params,
                                gd_pair_list* out, gd_error* err) {
  return guarded(err, [&] {
    gd_params defaults;
    params = check_pair_search(out, eps, nrows, params, &defaults);
    check_dims(dims);
    if (nrows > 0 && !row_kind) invalid("row_kind is NULL");
    std::vector<uint32_t> row_of;
    std::vector<double> pts = compact_points(coords, dims, row_kind, nrows, &row_of);
    gd::CancelToken cancel(*params);
    gd::nd_neighbour_pairs(
        gd::NdPointsView{pts.data(), dims, static_cast<uint32_t>(row_of.size())}, row_of.data(),
        eps, *params, cancel, out);
  });
}

}  // extern "C"
