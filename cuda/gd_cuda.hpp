// gd_cuda.hpp — internal entry points of the CUDA back end, for the unit
// tests and the benchmark (plain C++: no CUDA header needed to include it).
// The core's own entry points are gd::gpu_cluster / gd::gpu_available in
// core/backend.hpp; this header adds knobs the SQL path does not need and
// a way to cluster points that already live on the device, so that the
// benchmark can time the clustering core without the host<->device copies.
//
// Only meaningful when the library is built with CUDA (GD_HAVE_CUDA=1).
#pragma once

#include <cstddef>
#include <cstdint>

#include <vector>

#include "backend.hpp"
#include "sweep.hpp"

namespace gd {

struct NdPointsView;  // nd_points.hpp

namespace cuda {

struct Options {
  // Candidate distance tests one batch launch may make (estimate); 0 = 2^28.
  uint64_t work_per_batch = 0;
  // At most this many points per batch; 0 = no cap.  Tests use it to force
  // many batches.
  uint32_t max_batch_points = 0;
  // Points per staged piece of a transfer; 0 = automatic.  Non-zero sends
  // even small sets through the lanes (tests).
  uint32_t chunk_points = 0;
  // Host <-> device copies (transfer.cu): 0 = through the process's pinned
  // lanes, one host thread per lane (default: bus speed, see BENCHMARKS.md);
  // 1 = plain copies from and to the caller's pageable memory; 2 = the lanes,
  // one host thread.
  int transfer_mode = 0;
  // At most this many points loaded per strip (strips.cu), forcing the strip
  // path even when the whole set fits; 0 = strips only when it does not.
  // Tests use it.
  uint64_t max_strip_points = 0;
  // cluster_device only: leave the run's freed memory in the device's memory
  // pool when it ends instead of handing it back to the driver, so that a run
  // that follows at once finds it mapped (a reused workspace); the caller
  // hands it back with release_device_pool.  The benchmark's resident timing
  // sets it; the SQL path never does (an idle backend holds nothing).
  bool keep_device_pool = false;
};

struct RunInfo {
  size_t budget_bytes = 0;       // the budget the run was held to
  size_t peak_device_bytes = 0;  // most device memory it held at once
  uint64_t work_estimate = 0;    // candidate tests estimated from the grid
  uint32_t strips = 0;           // strips the points were clustered in (0: one piece)
  uint64_t strip_points = 0;     // points loaded over all strips (halos counted again)
  uint64_t strip_cap = 0;        // most points one strip could load (the plan that ran)
  // Several devices (gd_params.devices): the logical devices the strips ran
  // on (0: one piece; 1: strips on one device), the wall seconds of the strip
  // loop (every strip's gather, copies, device pipeline and merge), and of
  // each logical device's copies and device pipeline (its "device part"),
  // summed over its strips: the largest and the sum over devices.
  uint32_t devices = 0;
  double strip_wall_s = 0;
  double device_busy_max_s = 0;
  double device_busy_sum_s = 0;
};

// gd::gpu_cluster with options: host points in, per-point representatives
// out: cluster ranks (0..k-1 in the order of each cluster's first point, so
// that assign_ids maps them in one pass), kNoise for noise; core (when not
// null) takes each point's core flag (1 core, else 0), for point types.
void cluster_host(const PointsView& pts, const gd_params& params, const CancelToken& cancel,
                  uint32_t* rep, gd_run_stats& stats, const Options& opts,
                  RunInfo* info = nullptr, uint8_t* core = nullptr);

// gd::gpu_sweep with options (sweep.cu): levels distinct, ascending, each
// >= 1; emit(level, rep) once per level, rep as cluster_host's (out[level]
// where out is given).  opts.max_strip_points forces the value-by-value
// strip path.
void sweep_host(const PointsView& pts, double eps, const std::vector<int64_t>& levels,
                const gd_params& params, const CancelToken& cancel, uint32_t* const* out,
                const SweepEmit& emit, gd_run_stats& stats, const Options& opts);

// Same as cluster_host, with x, y and rep in device memory (of params.device); stats.t_transfer
// stays 0.  Used by the benchmark to time the core alone.
void cluster_device(const double* d_x, const double* d_y, uint32_t n, const gd_params& params,
                    const CancelToken& cancel, uint32_t* d_rep, gd_run_stats& stats,
                    const Options& opts = Options(), RunInfo* info = nullptr);

// Device-resident copies of a point set plus room for the representatives,
// for cluster_device (RAII; cudaMalloc'd outside any run's budget).
class DevicePoints {
 public:
  DevicePoints(const double* x, const double* y, uint32_t n, int device);
  DevicePoints(const DevicePoints&) = delete;
  DevicePoints& operator=(const DevicePoints&) = delete;
  ~DevicePoints();
  const double* x() const { return x_; }
  const double* y() const { return y_; }
  uint32_t* rep() const { return rep_; }
  uint32_t size() const { return n_; }
  void copy_reps_to_host(uint32_t* rep) const;

 private:
  double* x_ = nullptr;
  double* y_ = nullptr;
  uint32_t* rep_ = nullptr;
  uint32_t n_ = 0;
  int device_ = 0;
};

// The n-D pipeline (nd_dbscan.cu, 3 to 8 dimensions): gd::gpu_nd_cluster with
// options, and the same on device-resident row-major coordinates (rep in
// device memory, stats.t_transfer 0), for the benchmark.
void cluster_nd_host(const NdPointsView& pts, const gd_params& params, const CancelToken& cancel,
                     uint32_t* rep, gd_run_stats& stats, const Options& opts,
                     uint8_t* core = nullptr);
void sweep_nd_host(const NdPointsView& pts, const gd_params& params,
                   const std::vector<int64_t>& levels, const CancelToken& cancel,
                   const SweepEmit& emit, uint32_t* const* out, gd_run_stats& stats);
void cluster_nd_device(const double* d_coords, int dims, uint32_t n, const gd_params& params,
                       const CancelToken& cancel, uint32_t* d_rep, gd_run_stats& stats,
                       const Options& opts = Options());
// gd::gpu_nd_pairs with its device run (the pairs within eps, or in the band
// between inner and eps, of 3 to 8 dimensions).
void nd_pairs_host(const NdPointsView& pts, const uint32_t* row_of, double eps, double inner,
                   const gd_params& params, const CancelToken& cancel, gd_pair_list* out,
                   int64_t max_pairs);

// Device-resident n-D points plus room for the representatives (RAII).
class DeviceNdPoints {
 public:
  DeviceNdPoints(const double* coords, int dims, uint32_t n, int device);
  DeviceNdPoints(const DeviceNdPoints&) = delete;
  DeviceNdPoints& operator=(const DeviceNdPoints&) = delete;
  ~DeviceNdPoints();
  const double* coords() const { return coords_; }
  uint32_t* rep() const { return rep_; }
  void copy_reps_to_host(uint32_t* rep) const;

 private:
  double* coords_ = nullptr;
  uint32_t* rep_ = nullptr;
  uint32_t n_ = 0;
  int device_ = 0;
};

// Hands the memory a keep_device_pool run left in the device's pool back to
// the driver.
void release_device_pool(int device);

// Bytes of device memory in use on the device (total - free), for the tests
// that check that repeated runs do not grow it.
size_t device_memory_used(int device);

}  // namespace cuda
}  // namespace gd
