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
// The neighbour predicate, gd::within_eps, is PostGIS's inclusive box test
// |dx| <= eps, |dy| <= eps, then sqrt(fl(dx*dx + dy*dy)) <= eps, with
// correctly rounded operations and no FMA.  Correctly rounded sqrt is
// monotone, so the set of sums s that pass its last test is exactly {s <= t}
// for one double t, found once on the host (eps_threshold in grid.cu): the
// kernels test fl(dx*dx + dy*dy) <= t, bit for bit the same answer without a
// sqrt.
//
// The exact-pruning helpers below rely on one fact: every operation in the
// predicate (subtraction, squaring, addition, the comparison) is monotone.  So for a point p and a box B holding q, the
// predicate computed with the box's nearest point is a lower bound of the
// predicate for q, and with the box's farthest corner an upper bound; a cell
// can be skipped or taken whole without a distance test, with the same answer
// bit for bit.
#pragma once

#include <cstdint>

#include "backend.hpp"
#include "cuda_util.cuh"

namespace gd {
namespace cuda {

constexpr uint32_t kNone = UINT32_MAX;

struct Box {
  double x0, y0, x1, y1;
};

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
  const uint8_t* dense;    // cell: count >= minpoints and box diagonal within eps
  const CellRange* rows;   // 5 per cell
};

// gd::within_eps(px, py, qx, qy, eps), given t = eps_threshold(eps).  The
// intrinsics round each operation on its own, whatever the compiler flags.
__host__ __device__ __forceinline__ bool near(double px, double py, double qx, double qy,
                                              double eps, double t) {
#if defined(__CUDA_ARCH__)
  double dx = __dsub_rn(qx, px);
  double dy = __dsub_rn(qy, py);
  return fabs(dx) <= eps && fabs(dy) <= eps &&
         __dadd_rn(__dmul_rn(dx, dx), __dmul_rn(dy, dy)) <= t;
#else
  double dx = qx - px;
  double dy = qy - py;
  return fabs(dx) <= eps && fabs(dy) <= eps && dx * dx + dy * dy <= t;
#endif
}

// The largest double t with sqrt(t) <= eps (correctly rounded), so that
// near(..., t) == within_eps(..., eps) for every pair.  grid.cu.
double eps_threshold(double eps);

// p's distance to B's nearest point is within eps: some point of B may be.
__device__ __forceinline__ bool box_may_touch(double px, double py, const Box& b, double eps,
                                              double t) {
  double cx = fmin(fmax(px, b.x0), b.x1);
  double cy = fmin(fmax(py, b.y0), b.y1);
  return near(px, py, cx, cy, eps, t);
}

// p's distance to B's farthest corner is within eps: every point of B is.
__device__ __forceinline__ bool box_all_within(double px, double py, const Box& b, double eps,
                                               double t) {
  double fx = (fabs(b.x0 - px) >= fabs(b.x1 - px)) ? b.x0 : b.x1;
  double fy = (fabs(b.y0 - py) >= fabs(b.y1 - py)) ? b.y0 : b.y1;
  return near(px, py, fx, fy, eps, t);
}

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

struct Bounds {
  double xmin, xmax, ymin, ymax;
};

// transfer.cu: copies x, y to the device through pinned staging buffers,
// chunk by chunk on two streams; each chunk's bounds are reduced while the
// next chunk is copied.  Returns the device copies and the bounds.
struct TransferPlan {
  uint32_t chunk_points = 0;  // 0 = automatic
  bool direct = false;        // plain pageable copies, no staging
  unsigned copy_threads = 0;  // host threads for staging copies; 0 = up to 4
};
void upload_points(RunContext& ctx, const double* x, const double* y, uint32_t n,
                   const TransferPlan& plan, device_buffer<double>* dx, device_buffer<double>* dy,
                   Bounds* bounds);
// Bounds of device-resident points.
Bounds device_bounds(RunContext& ctx, const double* dx, const double* dy, uint32_t n);
// Copies the per-point representatives back.
void download_reps(RunContext& ctx, const uint32_t* d_rep, uint32_t n, uint32_t* rep,
                   const TransferPlan& plan);

// grid.cu: cell keys, sort, cell ranges, boxes, dense flags, neighbourhood
// rows and the work estimate.  x, y are consumed (released once gathered).
Grid build_grid(RunContext& ctx, const double* dx, const double* dy, uint32_t n,
                const Bounds& bounds, double eps, int64_t minpoints, gd_run_stats& stats,
                device_buffer<double>* release_x, device_buffer<double>* release_y);

// core_flags.cu
void core_flags(RunContext& ctx, const GridView& g, int64_t minpoints, uint32_t nbatches,
                uint8_t* core);

// union_find.cu: parent[] over sorted indices; dense cells joined at init.
void init_parents(RunContext& ctx, const GridView& g, uint32_t* parent);
void union_core_pairs(RunContext& ctx, const GridView& g, const uint8_t* core,
                      uint32_t nbatches, uint32_t* parent);

// labels.cu: borders then final representatives in original point order.
void assign_borders(RunContext& ctx, const GridView& g, const uint8_t* core,
                    uint32_t nbatches, uint32_t* parent);
void final_reps(RunContext& ctx, const GridView& g, const uint8_t* core, const uint32_t* parent,
                uint32_t* rep_out);

}  // namespace cuda
}  // namespace gd
