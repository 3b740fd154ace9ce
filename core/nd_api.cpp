// nd_api.cpp — the extern "C" entry points for n-D points (gd_core.h):
// gd_cluster_points_nd and gd_neighbour_pairs_nd.  Like api.cpp, each runs
// under guarded(): nothing escapes to the C caller.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <vector>

#include "api_guard.hpp"
#include "api_rows.hpp"
#include "big_alloc.hpp"
#include "parallel.hpp"
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

// The points of a partition for the back ends: the caller's coordinates
// when every row is a point, else the points compacted in row order.  The
// rows are checked by the threads params allows; compact_points words the
// error when a row is wrong.
class NdPoints {
 public:
  NdPoints(const double* coords, int dims, const uint8_t* row_kind, int64_t nrows,
           const gd_params& params) {
    const int threads = nrows > 0 ? gd::resolve_threads(params, static_cast<size_t>(nrows)) : 1;
    std::vector<int64_t> points(threads, 0);
    std::vector<uint8_t> wrong(threads, 0);
    if (nrows > 0 && coords) {
      gd::CancelToken cancel(params);
      gd::ThreadTeam team(threads, cancel);
      team.for_static(static_cast<size_t>(nrows), [&](int t, size_t begin, size_t end) {
        int64_t count = 0;
        bool bad = false;
        for (size_t r = begin; r < end; ++r) {
          if (row_kind[r] == GD_ROW_POINT) {
            ++count;
            for (int k = 0; k < dims; ++k) bad |= !std::isfinite(coords[r * dims + k]);
          } else {
            bad |= row_kind[r] != GD_ROW_EMPTY && row_kind[r] != GD_ROW_NULL;
          }
        }
        points[t] = count;
        wrong[t] = bad;
      });
    }
    int64_t npoints = 0;
    bool bad = nrows > 0 && !coords;
    for (int t = 0; t < threads; ++t) {
      npoints += points[t];
      bad |= wrong[t] != 0;
    }
    if (bad || npoints != nrows) {
      copy_ = compact_points(coords, dims, row_kind, nrows, nullptr);  // or the error
      npoints = static_cast<int64_t>(copy_.size() / dims);
      coords = copy_.data();
    } else if (npoints > kMaxPoints) {
      invalid("%lld points in one partition, at most %lld are supported",
              static_cast<long long>(npoints), static_cast<long long>(kMaxPoints));
    }
    view_ = gd::NdPointsView{coords, dims, static_cast<uint32_t>(npoints)};
  }

  const gd::NdPointsView& view() const { return view_; }
  // Every row is a point (the view is the caller's coordinates).
  bool all_points(int64_t nrows) const { return static_cast<int64_t>(view_.n) == nrows; }
  void release() {
    std::vector<double>().swap(copy_);
    view_ = gd::NdPointsView{nullptr, view_.dims, 0};
  }

 private:
  std::vector<double> copy_;
  gd::NdPointsView view_{};
};

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

    NdPoints pts(coords, dims, row_kind, nrows, *params);
    const uint32_t npoints = pts.view().n;
    st.backend = params->backend;
    st.points = npoints;

    const bool gpu = params->backend == GD_BACKEND_GPU;
    // The GPU's representatives are ranks, the ids themselves when every row
    // is a point (as in gd_cluster_points_typed): written straight into
    // cluster_ids.
    const bool ids_direct = gpu && pts.all_points(nrows);
    gd::BigVector<uint32_t> rep(ids_direct ? 0 : npoints);
    uint32_t* rep_out = ids_direct ? reinterpret_cast<uint32_t*>(cluster_ids) : rep.data();
    std::vector<uint8_t> core(point_types ? npoints : 0);
    uint8_t* core_out = point_types ? core.data() : nullptr;
    if (!(params->minpoints >= 2 && npoints < params->minpoints)) {
      gd::CancelToken cancel(*params);
      if (gpu)
        gd::gpu_nd_cluster(pts.view(), *params, cancel, rep_out, st, core_out);
      else
        gd::nd_cluster(pts.view(), *params, cancel, rep_out, st, core_out);
    } else {
      std::fill(rep_out, rep_out + npoints, gd::kNoise);
      core_out = nullptr;  // no point is core
    }
    pts.release();
    auto tl = std::chrono::steady_clock::now();
    if (!ids_direct) gd::assign_ids(row_kind, nrows, rep.data(), params->minpoints, cluster_ids);
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
