// nd_api.cpp — the extern "C" entry points for n-D points (gd_core.h):
// gd_cluster_points_nd[_typed], gd_cluster_points_nd_sweep[_by] and
// gd_neighbour_pairs_nd.  Like api.cpp, each runs under guarded(): nothing
// escapes to the C caller.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <vector>

#include "api_guard.hpp"
#include "api_levels.hpp"
#include "api_rows.hpp"
#include "big_alloc.hpp"
#include "graph.hpp"
#include "parallel.hpp"
#include "sweep.hpp"
#include "nd_points.hpp"

namespace {

using namespace gd::api;

void check_dims(int dims) {
  if (dims < gd::kMinDims || dims > gd::kMaxDims)
    invalid("points must have %d to %d coordinates, got %d", gd::kMinDims, gd::kMaxDims, dims);
}

// The checks of a clustering call's arguments.
void check_call(const gd_params* params, int dims, const uint8_t* row_kind, int64_t nrows,
                const int32_t* cluster_ids) {
  check_params(params);
  check_dims(dims);
  if (nrows < 0) invalid("nrows must be >= 0, got %lld", static_cast<long long>(nrows));
  if (nrows > 0 && (!row_kind || !cluster_ids)) invalid("row_kind or cluster_ids is NULL");
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
// rows are checked by count_point_rows (api_rows.hpp); compact_points words
// the error when a row is wrong.
class NdPoints {
 public:
  NdPoints(const double* coords, int dims, const uint8_t* row_kind, int64_t nrows,
           const gd_params& params) {
    int64_t npoints = -1;
    if (nrows > 0 && coords && row_kind)
      npoints = count_point_rows(row_kind, nrows, params, [&](size_t r) {
        for (int k = 0; k < dims; ++k)
          if (!std::isfinite(coords[r * dims + k])) return false;
        return true;
      });
    else if (nrows == 0)
      npoints = 0;
    if (npoints != nrows) {  // a row not a point, or a wrong row
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

// Two-coordinate rows as the 2D entry points take them (x, y per row).
gd_status split_2d(const double* coords, const uint8_t* row_kind, int64_t nrows,
                   std::vector<double>* x, std::vector<double>* y, gd_error* err) {
  return guarded(err, [&] {
    if (nrows < 0) invalid("nrows must be >= 0, got %lld", static_cast<long long>(nrows));
    if (nrows > 0 && (!row_kind || !coords)) invalid("row_kind or coords is NULL");
    x->assign(static_cast<size_t>(nrows), 0.0);
    y->assign(static_cast<size_t>(nrows), 0.0);
    for (int64_t r = 0; r < nrows; ++r) {
      if (row_kind[r] != GD_ROW_POINT) continue;
      (*x)[r] = coords[2 * r];
      (*y)[r] = coords[2 * r + 1];
    }
  });
}

// A sweep of n-D points on the CPU is cheaper from the list of neighbour
// pairs (one search, then one pass over the pairs per value) than from one
// clustering per value on one grid while the grid's candidate tests stay
// below kPairSweepWork per point and value and the pairs themselves below
// kPairSweepPairs per point (estimated from a sample); above either (dense
// data, where the list would take minutes and then exceed the memory, or
// grows past what the grid's values cost) the values are clustered one by
// one, each counting with early exit.  1M points, 16 values, 2 cores: 3-D
// uniform at 2.1 pairs a point 0.83 s by pairs against 1.54 by the grid, at
// 16 pairs 4.3 against 0.93; 3-D blobs at 18 pairs 3.2 against 1.1; 4-D
// blobs at 2.9 pairs 1.2 against 2.1.
constexpr double kPairSweepWork = 32;
constexpr double kPairSweepPairs = 4;
constexpr uint32_t kPairSamples = 4096;

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
    gd_status st = split_2d(coords, row_kind, nrows, &x, &y, err);
    if (st != GD_OK) return st;
    return gd_cluster_points_typed(x.data(), y.data(), row_kind, nrows, params, cluster_ids,
                                   point_types, stats, err);
  }

  return guarded(err, [&] {
    auto t0 = std::chrono::steady_clock::now();
    gd_run_stats st;
    std::memset(&st, 0, sizeof st);
    check_call(params, dims, row_kind, nrows, cluster_ids);
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

gd_status gd_cluster_points_nd_sweep(const double* coords, int dims, const uint8_t* row_kind,
                                     int64_t nrows, const gd_params* params,
                                     const int64_t* minpoints, int64_t nminpoints,
                                     int32_t* cluster_ids, gd_run_stats* stats, gd_error* err) {
  return gd_cluster_points_nd_sweep_by(coords, dims, row_kind, nrows, params, minpoints,
                                       nminpoints, cluster_ids, stats, err, GD_ND_SWEEP_AUTO);
}

gd_status gd_cluster_points_nd_sweep_by(const double* coords, int dims, const uint8_t* row_kind,
                                        int64_t nrows, const gd_params* params,
                                        const int64_t* minpoints, int64_t nminpoints,
                                        int32_t* cluster_ids, gd_run_stats* stats,
                                        gd_error* err, int path) {
  if (dims == 2) {
    std::vector<double> x, y;
    gd_status st = split_2d(coords, row_kind, nrows, &x, &y, err);
    if (st != GD_OK) return st;
    return gd_cluster_points_sweep(x.data(), y.data(), row_kind, nrows, params, minpoints,
                                   nminpoints, cluster_ids, stats, err);
  }
  return guarded(err, [&] {
    auto t0 = std::chrono::steady_clock::now();
    gd_run_stats st;
    std::memset(&st, 0, sizeof st);
    check_call(params, dims, row_kind, nrows, cluster_ids);
    check_sweep(minpoints, nminpoints, nrows);
    const Levels levels(minpoints, nminpoints);
    NdPoints pts(coords, dims, row_kind, nrows, *params);
    const uint32_t n = pts.view().n;
    st.backend = params->backend;
    st.points = n;

    // Level k's ids go to its first request's slot, then to the others'.
    auto ids_of = [&](size_t k) { return cluster_ids + levels.first_request[k] * nrows; };
    auto copy_level = [&](size_t k) {
      for (int64_t r = levels.first_request[k] + 1; r < nminpoints; ++r)
        if (levels.of_request[r] == k)
          std::memcpy(cluster_ids + r * nrows, ids_of(k), sizeof(int32_t) * nrows);
    };
    const gd::SweepEmit emit = [&](size_t k, const uint32_t* rep) {  // rep null: no point
      gd::assign_ids(row_kind, nrows, rep, minpoints[levels.first_request[k]], ids_of(k));
      copy_level(k);
    };
    const size_t left = gd::emit_trivial_levels(levels.values, n, emit);
    const std::vector<int64_t> values(levels.values.begin(), levels.values.begin() + left);
    gd::CancelToken cancel(*params);
    gd::BigVector<uint32_t> rep;  // the representatives of one value (not the pair path's)

    if (left == 0) {
      // every level done above
    } else if (params->backend == GD_BACKEND_GPU) {
      // the device's stats, as one call's (device, devices); t_total set below
      if (pts.all_points(nrows)) {
        // The ranks are the ids (as in gd_cluster_points_nd): copied down
        // straight into each level's output.
        std::vector<uint32_t*> out(left);
        for (size_t k = 0; k < left; ++k) out[k] = reinterpret_cast<uint32_t*>(ids_of(k));
        gd::gpu_nd_sweep(pts.view(), *params, values, cancel,
                         [&](size_t k, const uint32_t*) { copy_level(k); }, out.data(), st);
      } else {
        gd::gpu_nd_sweep(pts.view(), *params, values, cancel, emit, nullptr, st);
      }
    } else {
      gd::ThreadTeam team(gd::resolve_threads(*params, n), cancel);
      auto ts = std::chrono::steady_clock::now();
      gd::NdGrid grid = gd::nd_cluster_grid(pts.view(), params->eps, team);
      st.cells = grid.ncells();
      const double work = static_cast<double>(gd::nd_window_work(grid, team));
      bool by_pairs = path == GD_ND_SWEEP_PAIRS ||
                      (path == GD_ND_SWEEP_AUTO && work <= kPairSweepWork * n * left &&
                       gd::nd_sample_pairs_per_point(grid, params->eps, kPairSamples,
                                                     16 * kPairSweepPairs) <= kPairSweepPairs);
      gd_pair_list list{};
      if (by_pairs) {
        std::vector<uint32_t> row_of;
        row_of.reserve(n);
        for (int64_t r = 0; r < nrows; ++r)
          if (row_kind[r] == GD_ROW_POINT) row_of.push_back(static_cast<uint32_t>(r));
        try {
          gd::nd_neighbour_pairs(grid, row_of.data(), params->eps, team, &list);  // the same grid
        } catch (const gd::Error& e) {
          if (e.status() != GD_ERR_NOMEM || path == GD_ND_SWEEP_PAIRS) throw;
          by_pairs = false;  // the list does not fit: one clustering per value
        }
      }
      st.t_sort += seconds_since(ts);
      if (by_pairs) {
        struct Free {
          gd_pair_list* l;
          ~Free() { gd_pair_list_free(l); }
        } free_list{&list};
        pts.release();
        auto tg = std::chrono::steady_clock::now();
        std::vector<int64_t> value(left);
        std::vector<int32_t*> out(left);
        for (size_t k = 0; k < left; ++k) {
          value[k] = minpoints[levels.first_request[k]];
          out[k] = ids_of(k);
        }
        gd::cluster_graph_levels(row_kind, nrows, list.pairs, list.count, value.data(), left,
                                 out.data());
        for (size_t k = 0; k < left; ++k) copy_level(k);
        st.t_label += seconds_since(tg);
      } else {
        rep.resize(n);
        gd::nd_cluster_levels(pts.view(), grid, *params, team, values, emit, rep.data(), st);
      }
    }
    st.t_total = seconds_since(t0);
    if (stats) *stats = st;
  });
}

gd_status gd_neighbour_pairs_nd(const double* coords, int dims, const uint8_t* row_kind,
                                int64_t nrows, double eps, const gd_params* params,
                                gd_pair_list* out, gd_error* err) {
  return gd_neighbour_pairs_nd_band(coords, dims, row_kind, nrows, -1, eps, params, out, err);
}

gd_status gd_neighbour_pairs_nd_band(const double* coords, int dims, const uint8_t* row_kind,
                                     int64_t nrows, double inner, double eps,
                                     const gd_params* params, gd_pair_list* out, gd_error* err) {
  return guarded(err, [&] {
    gd_params defaults;
    params = check_pair_search(out, eps, nrows, params, &defaults);
    if (std::isnan(inner)) invalid("inner must not be NaN");
    check_dims(dims);
    if (nrows > 0 && !row_kind) invalid("row_kind is NULL");
    std::vector<uint32_t> row_of;
    std::vector<double> pts = compact_points(coords, dims, row_kind, nrows, &row_of);
    gd::CancelToken cancel(*params);
    gd::nd_neighbour_pairs(
        gd::NdPointsView{pts.data(), dims, static_cast<uint32_t>(row_of.size())}, row_of.data(),
        eps, *params, cancel, out, max_pairs_of(*params), inner);
  });
}

}  // extern "C"
