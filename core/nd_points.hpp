// nd_points.hpp — DBSCAN over points of 2 to 8 dimensions (POINT Z, float8[]
// rows, geography as unit-sphere xyz): the predicate, the grid, the stages.
//
// The rules and ids are those of every path (rules/dbscan_rules.hpp, rules/ids.hpp); only
// the neighbour test has more axes: q is a neighbour of p when
// |q_k - p_k| <= eps on every axis k and sqrt(d_0*d_0 + d_1*d_1 + ...) <= eps,
// the squares summed in axis order, in IEEE double with no fused
// multiply-add.  The relation is symmetric; the 2D path (rules/neighbour.hpp) uses
// PostGIS's rounded query box instead of |q_k - p_k| <= eps, which differs
// only where the box rounds across a point (gd_cluster_points_nd sends two
// axes to the 2D path).
//
// Stages, one file each: nd_grid.cpp (points sorted by cell), nd_dbscan.cpp
// (core flags, union of core points, borders), nd_pairs.cpp (neighbour pairs,
// for the geography path); nd_api.cpp holds the C entry points.
#pragma once

#include <cmath>
#include <cstdint>
#include <functional>
#include <type_traits>
#include <vector>

#include "backend.hpp"
#include "big_alloc.hpp"
#include "cpu_window.hpp"
#include "memory_ledger.hpp"
#include "nd_cells.hpp"
#include "pair_collect.hpp"
#include "parallel.hpp"

namespace gd {

constexpr int kMinDims = GD_ND_MIN_DIMS;
constexpr int kMaxDims = GD_ND_MAX_DIMS;

// Non-empty points of one partition in row order, row-major: point i is
// coords[i * dims .. i * dims + dims).
struct NdPointsView {
  const double* coords;
  int dims;
  uint32_t n;
};

// The n-D neighbour predicate, within_eps_d<D>: rules/neighbour.hpp.

// Calls fn(std::integral_constant<int, D>{}) for D = dims (2..8).
template <class Fn>
decltype(auto) dispatch_dims(int dims, Fn&& fn) {
  switch (dims) {
    case 2: return fn(std::integral_constant<int, 2>{});
    case 3: return fn(std::integral_constant<int, 3>{});
    case 4: return fn(std::integral_constant<int, 4>{});
    case 5: return fn(std::integral_constant<int, 5>{});
    case 6: return fn(std::integral_constant<int, 6>{});
    case 7: return fn(std::integral_constant<int, 7>{});
    case 8: return fn(std::integral_constant<int, 8>{});
    default: throw Error(GD_ERR_INVALID, "points must have 2 to 8 coordinates");
  }
}

// Points sorted by cell.  Coarse cells are cubes of side about eps on the
// first min(dims, 3) axes: a neighbour lies in the 3^axes window, and the
// other axes are left to the exact test.  Fine cells (dims <= 3 only) have a
// diagonal of about eps (side eps / sqrt(dims)), so the points of a cell are
// usually pairwise neighbours, and a neighbour lies at most 2 cells away on
// each axis (the 5^axes window): more cells to visit, but dense data is
// counted and joined cell by cell instead of point by point.  With more than
// three coordinates the points of a crowded cell spread far on the fourth
// axis are in order of that coordinate (ties by point index), so a search
// takes only the cell's slab within reach on that axis too (slab()): the
// grid's three axes leave the others to the exact test, and points far apart
// on them crowd the same cells.
struct NdGrid {
  MemoryCharge charge;          // the vectors below and the sort's scratch (memory_ledger.hpp)
  int dims = 0;                 // coordinates per point
  int axes = 0;                 // grid axes: min(dims, 3)
  int radius = 1;               // the window: cells at most this far on each axis
  // big_alloc.hpp: resize() leaves the new elements unset
  BigVector<uint32_t> perm;   // sorted position -> point index
  BigVector<double> coords;   // coordinates in sorted order, dims per point
  BigVector<NdCell> cells;    // non-empty cells, ascending
  BigVector<uint32_t> start;  // points of cell c: [start[c], start[c+1])
  std::vector<uint8_t> by_fourth;  // per cell: its points in order of the fourth coordinate

  uint32_t ncells() const { return static_cast<uint32_t>(cells.size()); }
  const double* point(uint32_t i) const { return coords.data() + static_cast<size_t>(i) * dims; }
  // The points of cell c that may lie within eps of p (the predicate's
  // |fl(q_k - p_k)| <= eps) on the fourth axis: every such point; the whole
  // cell where it is not by_fourth.  A search over many cells takes p's
  // interval once (slab_reach) and each cell's slab of it.
  struct Reach {
    double lo = 0, hi = 0;
  };
  Reach slab_reach(const double* p, double eps) const;
  PointRange slab(uint32_t c, const Reach& r) const {
    if (by_fourth.empty() || !by_fourth[c]) return PointRange{start[c], start[c + 1]};
    return slab_of_sorted(c, r);
  }
  PointRange slab(uint32_t c, const double* p, double eps) const {
    return slab(c, slab_reach(p, eps));
  }

 private:
  PointRange slab_of_sorted(uint32_t c, const Reach& r) const;
};

// reach: the largest |q_k - p_k| of a neighbour pair (eps, or the threshold
// of the pair search); the grid is complete for it.  fine asks for fine
// cells (ignored with more than three axes).
NdGrid build_nd_grid(const NdPointsView& pts, double reach, bool fine, ThreadTeam& team);

// The cells around a cell: for each combination of offsets -r..r on all grid
// axes but the last, one contiguous range of cells (offsets -r..r on the last
// axis), found by exponential search from the previous cell's bounds.  The
// first range is the cell's own column.
class NdWindow {
 public:
  static constexpr int kMaxRanges = 25;

  explicit NdWindow(const NdGrid& grid) : grid_(grid) {}

  // Fills ranges[0..count) with the window of cell c as point ranges; returns count.
  int points_at(uint32_t c, PointRange ranges[kMaxRanges]);
  // The same as cell ranges.
  int cells_at(uint32_t c, CellRange ranges[kMaxRanges]);

 private:
  const NdGrid& grid_;
  uint32_t lo_[kMaxRanges] = {};
  uint32_t hi_[kMaxRanges] = {};
  bool have_hints_ = false;
};

// The CPU back end for D >= 2: rep[point index] = its cluster's
// representative (a sorted position), kNoise for noise.
// core (when given) takes each point's core flag (1 core, else 0).
void nd_cluster(const NdPointsView& pts, const gd_params& params, const CancelToken& cancel,
                uint32_t* rep, gd_run_stats& stats, uint8_t* core = nullptr);

// The grid nd_cluster clusters on: coarse cells, or fine ones (at most three
// dimensions) where use_fine_cells says (nd_cells.hpp).
NdGrid nd_cluster_grid(const NdPointsView& pts, double eps, ThreadTeam& team);

// Candidate tests of one pass over grid: each cell's points times its
// window's points (twice the candidate pairs, at most).
uint64_t nd_window_work(const NdGrid& grid, ThreadTeam& team);

// Neighbour pairs per point within eps on grid (of reach eps), estimated
// from `samples` points spread over the sorted order, each one's
// neighbours counted up to `cap` (so at most cap / 2 a point).
double nd_sample_pairs_per_point(const NdGrid& grid, double eps, uint32_t samples, uint32_t cap);

// nd_cluster for each minpoints value levels[k] in turn on one grid (of
// nd_cluster_grid), emit(k, rep) after each; with several values each
// point's neighbours are counted once, up to the largest value's need.
void nd_cluster_levels(const NdPointsView& pts, const NdGrid& grid, const gd_params& params,
                       ThreadTeam& team, const std::vector<int64_t>& levels,
                       const std::function<void(size_t, const uint32_t*)>& emit, uint32_t* rep,
                       gd_run_stats& stats, uint8_t* core = nullptr);

// The GPU back end for 3 to 8 dimensions (cuda/nd_dbscan.cu, or a stub that
// throws GD_ERR_NO_DEVICE when built without CUDA): the clusters of
// nd_cluster, rep as cluster ranks (0..k-1 in the order of each cluster's
// first point), core as nd_cluster's.
void gpu_nd_cluster(const NdPointsView& pts, const gd_params& params, const CancelToken& cancel,
                    uint32_t* rep, gd_run_stats& stats, uint8_t* core = nullptr);

// The same at each minpoints value levels[k] (ascending, each at most the
// number of points), emit(k, ranks) in turn from the largest: one upload,
// one grid and one neighbour count serve every value.  The ranks are copied
// into out[k] (pts.n entries; where every row is a point they are the ids)
// or, out null, into host buffers of the sweep's (emit reads them then).
void gpu_nd_sweep(const NdPointsView& pts, const gd_params& params,
                  const std::vector<int64_t>& levels, const CancelToken& cancel,
                  const std::function<void(size_t, const uint32_t*)>& emit,
                  uint32_t* const* out, gd_run_stats& stats);

// Every pair of points within eps under the n-D predicate, as the rows
// (row_of[point index], increasing) i < j, into out (malloc'ed), on the
// back end params.backend names; with inner >= 0, only those not within
// inner too (a band).  More than max_pairs pairs: GD_ERR_NOMEM, before the
// list is allocated.
void nd_neighbour_pairs(const NdPointsView& pts, const uint32_t* row_of, double eps,
                        const gd_params& params, const CancelToken& cancel, gd_pair_list* out,
                        int64_t max_pairs = default_max_pairs(), double inner = -1);

// nd_neighbour_pairs on the GPU (cuda/nd_dbscan.cu, or the stub): the same
// pairs (in another order) from the device's grid of 3 to 8 dimensions.
void gpu_nd_pairs(const NdPointsView& pts, const uint32_t* row_of, double eps,
                  const gd_params& params, const CancelToken& cancel, gd_pair_list* out,
                  int64_t max_pairs, double inner);

// The same over a grid of the points already built (coarse or fine cells,
// complete for eps), on team.
void nd_neighbour_pairs(const NdGrid& grid, const uint32_t* row_of, double eps, ThreadTeam& team,
                        gd_pair_list* out, int64_t max_pairs = default_max_pairs(),
                        double inner = -1);

}  // namespace gd
