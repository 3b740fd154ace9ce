// api_rows.hpp — the rows of a 2D partition as the entry points check and
// pass them on (api.cpp, api_sweep.cpp): row kinds and coordinates checked,
// points compacted in row order, point types from core flags and ids.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "api_guard.hpp"
#include "parallel.hpp"

namespace gd {
namespace api {

// Checks the rows of a partition of points; returns the number of points.
inline int64_t check_point_rows(const double* x, const double* y, const uint8_t* row_kind,
                                int64_t nrows) {
  if (nrows < 0) invalid("nrows must be >= 0, got %lld", static_cast<long long>(nrows));
  if (nrows > 0 && !row_kind) invalid("row_kind is NULL");
  int64_t npoints = 0;
  for (int64_t r = 0; r < nrows; ++r) {
    switch (row_kind[r]) {
      case GD_ROW_POINT:
        if (!x || !y) invalid("x or y is NULL");
        if (!std::isfinite(x[r]) || !std::isfinite(y[r]))
          invalid("row %lld has a non-finite coordinate (%g, %g)", static_cast<long long>(r),
                  x[r], y[r]);
        ++npoints;
        break;
      case GD_ROW_EMPTY:
      case GD_ROW_NULL:
        break;
      case GD_ROW_OTHER:
        invalid("row %lld is not a point: use gd_cluster_graph", static_cast<long long>(r));
      default:
        invalid("row %lld has an unknown kind %d", static_cast<long long>(r),
                static_cast<int>(row_kind[r]));
    }
  }
  if (npoints > kMaxPoints)
    invalid("%lld points in one partition, at most %lld are supported",
            static_cast<long long>(npoints), static_cast<long long>(kMaxPoints));
  return npoints;
}

// The GD_ROW_POINT rows of a partition, counted by the threads params
// allows (a 10M-row partition is ~170 MB to read: ~8 ms on one core), or
// -1 when some row is wrong: a kind other than POINT, EMPTY and NULL, or a
// point row r with !finite(r).  The caller's serial check then words the
// error.  The scan counts in locals: through the pointers (row_kind, a
// uint8_t array, may alias anything) every row stored both, 19 ms on one
// core at 10M rows, and the threads' counts sat in one cache line (6-11 ms
// on 16 threads of an H200 host).
template <class Finite>
int64_t count_point_rows(const uint8_t* row_kind, int64_t nrows, const gd_params& params,
                         Finite&& finite) {
  auto scan = [&](size_t begin, size_t end, int64_t* count, bool* bad) {
    int64_t points = 0;
    bool wrong = false;
    for (size_t r = begin; r < end; ++r) {
      const uint8_t kind = row_kind[r];
      if (kind == GD_ROW_POINT) {
        ++points;
        wrong |= !finite(r);
      } else {
        wrong |= kind != GD_ROW_EMPTY && kind != GD_ROW_NULL;
      }
    }
    *count = points;
    *bad = wrong;
  };
  const int threads = nrows > 0 ? resolve_threads(params, static_cast<size_t>(nrows)) : 1;
  std::vector<int64_t> points(threads, 0);
  std::vector<uint8_t> wrong(threads, 0);
  if (threads <= 1) {
    bool bad = false;
    scan(0, static_cast<size_t>(std::max<int64_t>(nrows, 0)), &points[0], &bad);
    wrong[0] = bad;
  } else {
    CancelToken cancel(params);
    ThreadTeam team(threads, cancel);
    team.for_static(static_cast<size_t>(nrows), [&](int t, size_t begin, size_t end) {
      bool bad = false;
      scan(begin, end, &points[t], &bad);
      wrong[t] = bad;
    });
  }
  int64_t npoints = 0;
  for (int t = 0; t < threads; ++t) {
    if (wrong[t]) return -1;
    npoints += points[t];
  }
  return npoints;
}

// check_point_rows with the rows scanned by count_point_rows first; the
// serial scan above runs only to word the error when some row is wrong.
inline int64_t check_point_rows(const double* x, const double* y, const uint8_t* row_kind,
                                int64_t nrows, const gd_params& params) {
  if (nrows <= 0 || !row_kind || !x || !y) return check_point_rows(x, y, row_kind, nrows);
  const int64_t npoints = count_point_rows(row_kind, nrows, params, [&](size_t r) {
    return std::isfinite(x[r]) && std::isfinite(y[r]);
  });
  if (npoints < 0) return check_point_rows(x, y, row_kind, nrows);
  if (npoints > kMaxPoints)
    invalid("%lld points in one partition, at most %lld are supported",
            static_cast<long long>(npoints), static_cast<long long>(kMaxPoints));
  return npoints;
}

// The points of a partition compacted in row order (the caller's arrays
// when every row is one).
class CompactPoints {
 public:
  CompactPoints(const double* x, const double* y, const uint8_t* row_kind, int64_t nrows,
                int64_t npoints)
      : view_{x, y, static_cast<uint32_t>(npoints)} {
    if (npoints == nrows) return;
    x_.reserve(npoints);
    y_.reserve(npoints);
    for (int64_t r = 0; r < nrows; ++r) {
      if (row_kind[r] != GD_ROW_POINT) continue;
      x_.push_back(x[r]);
      y_.push_back(y[r]);
    }
    view_ = PointsView{x_.data(), y_.data(), static_cast<uint32_t>(npoints)};
  }

  const PointsView& view() const { return view_; }

  // Frees the copies once the back end is done with them.
  void release() {
    std::vector<double>().swap(x_);
    std::vector<double>().swap(y_);
    view_ = PointsView{nullptr, nullptr, 0};
  }

 private:
  std::vector<double> x_, y_;
  PointsView view_;
};

// The checks of a neighbour graph's arguments (gd_cluster_graph and kin).
inline void check_graph(const uint8_t* row_kind, int64_t nrows, const gd_pair* edges,
                        int64_t nedges, const int32_t* cluster_ids) {
  if (nrows < 0) invalid("nrows must be >= 0, got %lld", static_cast<long long>(nrows));
  if (nrows > kMaxPoints)
    invalid("%lld rows in one partition, at most %lld are supported",
            static_cast<long long>(nrows), static_cast<long long>(kMaxPoints));
  if (nedges < 0) invalid("nedges must be >= 0, got %lld", static_cast<long long>(nedges));
  if (nrows > 0 && (!row_kind || !cluster_ids)) invalid("row_kind or cluster_ids is NULL");
  if (nedges > 0 && !edges) invalid("edges is NULL");
}

// Point types from the core flags of the POINT and OTHER rows (in row order,
// NULL when no point can be core) and the ids; an EMPTY row is core when it
// is a cluster of its own.
inline void fill_point_types(const uint8_t* row_kind, int64_t nrows, const uint8_t* core,
                             const int32_t* ids, int64_t minpoints, uint8_t* types) {
  int64_t node = 0;
  for (int64_t r = 0; r < nrows; ++r) {
    switch (row_kind[r]) {
      case GD_ROW_POINT:
      case GD_ROW_OTHER: {
        const bool is_core = core && core[node];
        ++node;
        types[r] = is_core ? GD_POINT_CORE : ids[r] != GD_NOISE ? GD_POINT_BORDER : GD_POINT_NOISE;
        break;
      }
      case GD_ROW_EMPTY:
        types[r] = minpoints <= 1 ? GD_POINT_CORE : GD_POINT_NOISE;
        break;
      default:
        types[r] = GD_POINT_NOISE;
    }
  }
}

}  // namespace api
}  // namespace gd
