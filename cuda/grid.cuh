// grid.cuh — the uniform grid shared by every stage of the device pipeline:
// points sorted by cell, the cells' point ranges and bounding boxes, and for
// each cell the five rows of cells (ix+a, iy-2..iy+2), a = -2..2, that hold
// every point within eps of any point of the cell.
//
// Why five rows of five cells are enough: the cell side s (in half units, see
// grid.cu) is at least eps/sqrt(2) plus a margin that covers the rounding of
// floor((x - xmin) / s), so two points within eps of each other land at most
// two cells apart on each axis.
//
// The neighbour relation (PostGIS's, one-sided), its square-root-free form
// (fl(dx*dx + dy*dy) <= t, t = eps_threshold(eps)) and the exact bounds over
// a cell's box that let the kernels skip or take whole cells (sees_any_in,
// sees_all_in, seen_by_any_in, seen_by_all_in) are the CPU's, from one
// header: core/rules/neighbour.hpp.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "backend.hpp"
#include "bounds.hpp"
#include "rules/neighbour.hpp"
#include "cuda_util.cuh"

namespace gd {
namespace cuda {

constexpr uint32_t kNone = UINT32_MAX;

using Box = gd::Box2;

// One half-open range of cells [lo, hi) in the sorted cell order: one row of
// a cell's neighbourhood.
struct CellRange {
  uint32_t lo, hi;
};

// Non-owning view of the grid, passed to kernels by value.
struct GridView {
  uint32_t n;              // points
  uint32_t ncells;         // non-empty cells
  double eps;
  double t;                // neighbour threshold on dx*dx + dy*dy (see above)
  const double2* p;        // coordinates in cell order
  const uint32_t* idx;     // original point index of each sorted point
  const uint32_t* cell_of; // cell of each sorted point
  const uint32_t* start;   // ncells + 1 offsets into the sorted points
  const Box* box;          // actual bounding box of each cell's points
  const uint8_t* dense;    // cell: count >= minpoints, its box's corners see each other
  const CellRange* rows;   // 5 per cell
};

// Batches of warps: warp w of the sorted points (32 consecutive points, which
// share cells and so caches) belongs to batch w % nbatches, so every batch is
// a uniform sample of the data (Gowanlock et al.'s strided batches) and the
// batches take about the same time.
struct Batch {
  uint32_t index;
  uint32_t count;
};

__device__ __forceinline__ bool batch_point(const Batch& b, uint32_t n, uint32_t* i) {
  uint64_t t = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  uint64_t warp = t >> 5;
  uint64_t p = ((warp * b.count + b.index) << 5) | (t & 31);
  if (p >= n) return false;
  *i = static_cast<uint32_t>(p);
  return true;
}

inline uint64_t batch_threads(const Batch& b, uint32_t n) {
  uint64_t warps = (static_cast<uint64_t>(n) + 31) / 32;
  uint64_t mine = warps > b.index ? (warps - b.index + b.count - 1) / b.count : 0;
  return mine * 32;
}

// Block-level early exit once the host has cancelled the run: queued batch
// kernels then finish at once.
__device__ __forceinline__ bool cancelled(const volatile int* flag) {
  __shared__ int stop;
  if (threadIdx.x == 0) stop = *flag;
  __syncthreads();
  return stop != 0;
}

// What the grid stage hands to the later stages, owned.
struct Grid {
  uint32_t n = 0;
  uint32_t ncells = 0;
  device_buffer<double2> p;
  device_buffer<uint32_t> idx;
  device_buffer<uint32_t> cell_of;
  device_buffer<uint32_t> start;
  device_buffer<Box> box;
  device_buffer<uint8_t> dense;
  device_buffer<CellRange> rows;
  uint64_t work = 0;  // estimated candidate tests, for the batch plan

  double eps = 0;
  double t = 0;       // eps_threshold(eps)

  GridView view() const {
    return GridView{n,          ncells,       eps,       t,            p.data(),     idx.data(),
                    cell_of.data(), start.data(), box.data(), dense.data(), rows.data()};
  }
};

using Bounds = gd::Bounds;  // bounds.hpp

// transfer.cu: copies x, y to the device (through the process's pinned
// lanes, see there) and reduces their bounds.
struct TransferPlan {
  uint32_t chunk_points = 0;  // points per staged piece; 0 = automatic
  bool direct = false;        // plain pageable copies, no staging
  unsigned copy_threads = 0;  // most lanes (host threads), at most 8; 0 = the machine's
};
void upload_points(RunContext& ctx, const double* x, const double* y, uint32_t n,
                   const TransferPlan& plan, device_buffer<double>* dx, device_buffer<double>* dy,
                   Bounds* bounds);
// bytes from host memory to device memory as upload_points copies its two
// arrays (one path, transfer.cu's upload_arrays: the lanes from 4 MiB in
// all), queued on the run's stream (the caller waits).
void upload_array(RunContext& ctx, const void* src, void* dst, size_t bytes,
                  const TransferPlan& plan);
// Bounds of device-resident points.
Bounds device_bounds(RunContext& ctx, const double* dx, const double* dy, uint32_t n);
// Copies the per-point representatives back.
void download_reps(RunContext& ctx, const uint32_t* d_rep, uint32_t n, uint32_t* rep,
                   const TransferPlan& plan);
// Copies of representatives already complete, one after another, by a crew
// of threads kept for the crew's life (a sweep's): each copy is shared over
// the lanes from 1 MiB (a lane a MiB: the copy has to hide behind the next
// value's 0.2-0.3 ms at 1M points; plain copies below), without starting
// threads per copy (at 1M points that cost about as much as the 4 MB copy).
// The thread that owns the run may queue more work on its stream meanwhile.
// post() queues a copy and returns; `then` runs once it is complete, copies
// finishing in the order posted, one `then` at a time.  The crew holds the process's lanes
// while it lives.  wait_done() rethrows the first error of a copy or a
// `then` (a cancel included); the destructor finishes the copies under way,
// drops the rest and joins.
class DownloadCrew {
 public:
  DownloadCrew(RunContext& ctx, uint32_t n, const TransferPlan& plan);
  ~DownloadCrew();
  DownloadCrew(const DownloadCrew&) = delete;
  DownloadCrew& operator=(const DownloadCrew&) = delete;
  void post(const uint32_t* d_rep, uint32_t* rep, std::function<void()> then);
  // Returns once the first `count` copies posted are complete.
  void wait_done(size_t count);
  double copy_seconds() const;  // the copies' time (not their `then`), once all are done

 private:
  struct Crew;
  void shut() noexcept;
  std::unique_ptr<Crew> crew_;
};

// A sweep's values on their way down, largest first (k = values-1 .. 0):
// value k's ranks in device buffer k % R, then copied by a DownloadCrew into
// out[k] (out null: a host buffer of the sweep's) and emitted, while the
// device clusters the next values; a buffer is taken again once its copy
// and emit are done.  R: 3 at least (the device two values ahead of the
// copies), up to 8 within 320 MB (H200, 1M points, 16 values: 8 buffers 8.3
// ms against 9.0 with 3 on uniform eps 1; at 10M points, 3 buffers of 40 MB
// held the host in buffer() while the device ran dry: ~0.4 ms a value on
// blobs), past the third only while each takes at most a quarter of the
// budget's room left, fewer (two at least) where the budget or the device
// refuses more, so that a sweep near the budget runs with fewer buffers
// rather than on the strips.  GD_CUDA_TRACE=events prints each value's times (trace.cuh).
class SweepDownloads {
 public:
  SweepDownloads(RunContext& ctx, uint32_t n, size_t values, const TransferPlan& plan,
                 uint32_t* const* out,
                 const std::function<void(size_t, const uint32_t*)>& emit);
  ~SweepDownloads();
  // Value k's device buffer, once the copy of the value before in it is done.
  uint32_t* buffer(size_t k);
  // Value k is queued on the run's stream (again, if queued afresh).
  void queued(size_t k);
  // Waits for value k's work on the device; the run's stream goes on.
  void wait(size_t k);
  // Value k goes down (after wait(k)).
  void post(size_t k);
  // Value 0 waited for and posted, every copy and emit done; the copies' seconds.
  double finish();

 private:
  RunContext& ctx_;
  const size_t values_;
  uint32_t* const* out_;
  const std::function<void(size_t, const uint32_t*)>& emit_;
  std::vector<device_buffer<uint32_t>> d_rep_;
  std::vector<std::vector<uint32_t>> own_;
  Event done_[2];       // values k and k+1
  struct Timeline;      // GD_CUDA_TRACE=events: each value's times, printed by finish()
  std::unique_ptr<Timeline> timeline_;
  DownloadCrew crew_;   // declared last: joined before the buffers go
};

// Frees the process's lanes (before its context is reset).
void drop_lanes() noexcept;

// grid.cu: cell keys, sort, cell ranges, boxes, dense flags, neighbourhood
// rows and the work estimate.  x, y are consumed (released once gathered).
Grid build_grid(RunContext& ctx, const double* dx, const double* dy, uint32_t n,
                const Bounds& bounds, double eps, int64_t minpoints, gd_run_stats& stats,
                device_buffer<double>* release_x, device_buffer<double>* release_y);

// core_flags.cu
void core_flags(RunContext& ctx, const GridView& g, int64_t minpoints, uint32_t nbatches,
                uint8_t* core);
// core_flags.cu: each point's neighbour count (itself included), capped at
// cap >= 2 (the grid built with minpoints = cap), sorted order.
void core_counts(RunContext& ctx, const GridView& g, uint32_t cap, uint32_t nbatches,
                 uint32_t* counts);

// labels.cu: each cell's core with the smallest original index, as
// claimers.cuh's core_key (kNoCore for a cell without one); only = 2: among
// the cores new at a sweep step (core[j] == 2).
device_buffer<uint64_t> smallest_cores(RunContext& ctx, const GridView& g, const uint8_t* core,
                                       uint8_t only = 0);
// The same for any n points sorted by cell (cell_of non-decreasing, every one
// of ncells cells holding a point; idx: original indexes): the n-D grid's.
device_buffer<uint64_t> smallest_cores(RunContext& ctx, const uint32_t* cell_of, const uint32_t* idx,
                                       const uint8_t* core, uint32_t n, uint32_t ncells,
                                       uint8_t only = 0);
// cell_min[c] = min(cell_min[c], by[c]) for the ncells cells.
void lower_smallest_cores(RunContext& ctx, uint64_t* cell_min, const uint64_t* by, uint32_t ncells);

// How union_core_pairs starts.  A full run: parent[] is set afresh.  A
// sweep step (from_previous, minpoints > 1, no strip): parent[] holds the
// union-find of the previous, larger minpoints value over its core points,
// and core[i] is 2 for a point that is core now and was not then (1 for one
// core at both); only pairs with such a point are tested (union_find.cu
// says why that is exact unless the claimer rule decides a pair).
// claimer_used (device, null: not asked) is set to 1 when the claimer rule
// decided some pair.
// timed = false: join_and_claim queues the borders without waiting for the
// union first (a sweep queues its values back to back; t_union then stays 0).
// cell_min_core (device, ncells, null: none): a sweep's smallest core of each
// cell kept from one value to the next, which a step lowers by its new cores
// (the core set only grows as minpoints falls) instead of finding it afresh
// from every point, and a value afresh fills.
struct UnionStep {
  bool from_previous = false;
  int* claimer_used = nullptr;
  bool timed = true;
  uint64_t* cell_min_core = nullptr;
};

// union_find.cu: parent[] over sorted indices (set here, then the core
// pairs joined).  cell_min_core (smallest_cores) is needed when minpoints > 1;
// trusted (sorted order, null: all) limits the pairs to those of two trusted
// points.
void union_core_pairs(RunContext& ctx, const GridView& g, const uint8_t* core,
                      const uint64_t* cell_min_core, const uint8_t* trusted, int64_t minpoints,
                      uint32_t nbatches, uint32_t* parent, const UnionStep& step = UnionStep());

// labels.cu: borders then final representatives in original point order.
// step (a sweep step: parent[] of a point not core holds its claimer at the
// previous value; cell_min_core: smallest_cores(..., 2)): only new cores
// are searched.
void assign_borders(RunContext& ctx, const GridView& g, const uint8_t* core,
                    const uint64_t* cell_min_core, bool step, uint32_t nbatches,
                    uint32_t* parent);
// Then out[original index] = its cluster's rank (ranks.cuh: clusters 0..k-1
// in the order of their first point) or kNoise; reps_only (the strips):
// its set's root's original index instead.  pos: as for rank_roots.
void final_labels(RunContext& ctx, const GridView& g, const uint8_t* core, const uint32_t* parent,
                  uint32_t* out, bool reps_only = false, const uint32_t* pos = nullptr);

}  // namespace cuda
}  // namespace gd
