// gpu_dbscan.cu — the CUDA back end's entry points and the pipeline that
// strings the stages together:
//
//   upload (transfer.cu) -> grid (grid.cu) -> core flags (core_flags.cu)
//   -> union-find over core pairs (union_find.cu) -> borders, representatives
//   and their ranks (labels.cu) -> download
//
// Each stage enqueues its kernels on the run's stream; the host waits once per
// stage (RunContext::wait), polling the cancel token while it does.  Memory is
// charged to a budget (params.device_memory_budget, 0 = half the free device
// memory at the start); the neighbour stages run in strided batches sized by
// the grid's work estimate and never need memory for pairs.  CUDA is touched
// only inside these functions, never at library load.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "gd_cuda.hpp"
#include "grid.cuh"
#include "pipeline.cuh"
#include "trace.cuh"

namespace gd {

namespace cuda {

namespace {

constexpr uint64_t kDefaultWorkPerBatch = uint64_t{1} << 28;

}  // namespace

uint32_t plan_batches(uint64_t work, uint32_t n, const Options& opts) {
  uint64_t per = opts.work_per_batch ? opts.work_per_batch : kDefaultWorkPerBatch;
  uint64_t nb = work / per + 1;
  if (opts.max_batch_points != 0)
    nb = std::max<uint64_t>(nb, (static_cast<uint64_t>(n) + opts.max_batch_points - 1) /
                                    opts.max_batch_points);
  uint64_t warps = (static_cast<uint64_t>(n) + 31) / 32;
  nb = std::min(nb, std::max<uint64_t>(warps, 1));
  return static_cast<uint32_t>(std::max<uint64_t>(nb, 1));
}

namespace {

void check_fits(const RunContext& ctx, uint32_t n) {
  size_t need = gather_stage_bytes(n);
  if (need > ctx.budget_limit()) {
    char msg[300];
    std::snprintf(msg, sizeof msg,
                  "%u points need about %.1f MiB of GPU memory, the budget is %.1f MiB "
                  "(gpu_dbscan.device_memory_budget)",
                  n, need / 1048576.0, ctx.budget_limit() / 1048576.0);
    throw Error(GD_ERR_DEVICE_NOMEM, msg);
  }
}

void start_stats(gd_run_stats& stats, uint32_t n) {
  stats.backend = GD_BACKEND_GPU;
  stats.points = n;
  stats.cells = 0;
  stats.batches = 0;
  stats.strips = 0;
  stats.t_transfer = stats.t_sort = stats.t_core = stats.t_union = stats.t_label = 0;
  stats.t_total = 0;
}

// The whole set in one piece: upload, cluster, download.
void cluster_whole(RunContext& ctx, const PointsView& pts, const gd_params& params,
                   uint32_t* rep, gd_run_stats& stats, const Options& opts, RunInfo* info,
                   Stopwatch& sw, uint8_t* core) {
  check_fits(ctx, pts.n);
  device_buffer<double> dx, dy;
  Bounds bounds;
  sw.lap();
  const TransferPlan plan = transfer_plan(opts, params);
  upload_points(ctx, pts.x, pts.y, pts.n, plan, &dx, &dy, &bounds);
  stats.t_transfer += sw.lap();
  // Core flags for point types: given order, copied back once with the ids.
  device_buffer<uint8_t> d_core;
  if (core != nullptr) d_core = ctx.alloc<uint8_t>(pts.n, "core flags out");
  device_buffer<uint32_t> d_rep = cluster_on_device(ctx, dx.data(), dy.data(), pts.n, bounds,
                                                    params, opts, stats, sw, &dx, &dy, nullptr,
                                                    info, nullptr, d_core.data());
  sw.lap();
  if (core != nullptr)
    CUDA_TRY(cudaMemcpyAsync(core, d_core.data(), pts.n, cudaMemcpyDeviceToHost, ctx.stream()));
  download_reps(ctx, d_rep.data(), pts.n, rep, plan);
  ctx.wait();
  stats.t_transfer += sw.lap();
}

}  // namespace

TransferPlan transfer_plan(const Options& opts, const gd_params& params) {
  TransferPlan plan;
  plan.chunk_points = opts.chunk_points;
  plan.direct = opts.transfer_mode == 1;
  // the lanes' host threads count as clustering threads (gpu_dbscan.threads)
  plan.copy_threads =
      opts.transfer_mode == 2 ? 1 : static_cast<unsigned>(std::max(params.threads, 0));
  return plan;
}

// A lower bound of the run's peak, known before anything is allocated: when
// the sorted coordinates are gathered, the unsorted coordinates (16 bytes a
// point), the sorted keys and order (12), the sorted coordinates (16) and the
// cell numbers (4) are all held.  The budget tracker enforces the rest as the
// run goes.
size_t gather_stage_bytes(uint32_t n) { return static_cast<size_t>(n) * 48; }

// Everything after the points are on the device (pipeline.cuh).
device_buffer<uint32_t> cluster_on_device(RunContext& ctx, const double* dx, const double* dy,
                                          uint32_t n, const Bounds& bounds,
                                          const gd_params& params, const Options& opts,
                                          gd_run_stats& stats, Stopwatch& sw,
                                          device_buffer<double>* own_x,
                                          device_buffer<double>* own_y, uint32_t* d_rep,
                                          RunInfo* info, const StripRoles* strip,
                                          uint8_t* core_out) {
  if (!(std::isfinite(bounds.xmin) && std::isfinite(bounds.xmax) && std::isfinite(bounds.ymin) &&
        std::isfinite(bounds.ymax)))
    throw Error(GD_ERR_INVALID, "point coordinates must be finite");
  double eps = params.eps;
  int64_t minpoints = params.minpoints;

  trace_point(ctx.stream(), "start of pipeline");
  Grid grid = build_grid(ctx, dx, dy, n, bounds, eps, minpoints, stats, own_x, own_y);
  stats.t_sort += sw.lap();
  GridView g = grid.view();

  uint32_t nb = plan_batches(grid.work, n, opts);
  stats.batches += nb;
  device_buffer<uint8_t> trusted;
  if (strip != nullptr) {
    trusted = ctx.alloc<uint8_t>(n, "trusted flags of the strip");
    gather_trusted(ctx, g, strip->role, trusted.data());
  }
  if (info != nullptr) info->work_estimate = grid.work;

  auto core = ctx.alloc<uint8_t>(n, "core flags");
  core_flags(ctx, g, minpoints, nb, core.data());
  trace_point(ctx.stream(), "core flags");
  ctx.wait();
  stats.t_core += sw.lap();

  auto parent = ctx.alloc<uint32_t>(n, "union-find parents");
  join_and_claim(ctx, g, core.data(), trusted.data(), minpoints, nb, stats, sw, parent.data());
  trusted.reset();
  // The cell of each point is no longer needed: its buffer takes the
  // representatives when the caller gave none.
  device_buffer<uint32_t> out;
  if (d_rep == nullptr) {
    out = std::move(grid.cell_of);
    d_rep = out.data();
  }
  final_labels(ctx, g, core.data(), parent.data(), d_rep, strip != nullptr);
  parent.reset();
  if (strip != nullptr) core_out = strip->core_out;
  if (core_out != nullptr) scatter_core(ctx, g, core.data(), core_out);
  core.reset();
  ctx.wait();
  stats.t_label += sw.lap();
  if (info != nullptr) {
    info->budget_bytes = ctx.budget_limit();
    info->peak_device_bytes = ctx.budget_peak();
  }
  return out;
}

namespace {

// Destroys the contexts of a split, each with its device current (its
// stream-ordered frees and pool trim are that device's), then makes `device`
// current again.
void release_contexts(std::vector<std::unique_ptr<RunContext>>& owned, int device) {
  for (auto& c : owned) {
    if (c == nullptr) continue;
    (void)cudaSetDevice(c->device());
    c.reset();
  }
  (void)cudaSetDevice(device);
}

// The logical devices of params (gd_params.devices), every ordinal checked
// against the devices this process sees.
std::vector<int> logical_devices(const gd_params& params) {
  if (params.ndevices == 0) return {params.device};
  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) {
    (void)cudaGetLastError();
    throw Error(GD_ERR_NO_DEVICE, std::string("no CUDA device: ") + cudaGetErrorString(err));
  }
  std::vector<int> devs;
  if (params.ndevices == GD_DEVICES_ALL) {
    for (int d = 0; d < count; ++d) devs.push_back(d);
    if (devs.empty()) throw Error(GD_ERR_NO_DEVICE, "no CUDA device (gpu_dbscan.devices = all)");
    return devs;
  }
  devs.assign(params.devices, params.devices + params.ndevices);
  for (int d : devs)
    if (d >= count)
      throw Error(GD_ERR_NO_DEVICE, "CUDA device " + std::to_string(d) +
                                        " of gpu_dbscan.devices does not exist (" +
                                        std::to_string(count) + " found)");
  return devs;
}

// A partition split over several devices: one context per logical device
// (a GPU named k times gives each of its k a k-th of its budget), the
// strips spread over them, the same host merge.
void cluster_split(const std::vector<int>& devs, const PointsView& pts, const gd_params& params,
                   const CancelToken& cancel, uint32_t* rep, gd_run_stats& stats,
                   const Options& opts, RunInfo* info, uint8_t* core) {
  std::vector<std::unique_ptr<RunContext>> owned;
  std::vector<RunContext*> ctxs;
  for (int d : devs) {
    auto share = static_cast<unsigned>(std::count(devs.begin(), devs.end(), d));
    owned.push_back(std::make_unique<RunContext>(d, params.device_memory_budget, cancel, share));
    ctxs.push_back(owned.back().get());
  }
  stats.device = devs.front();
  stats.devices = static_cast<int32_t>(devs.size());
  try {
    cluster_in_strips_on(ctxs, pts, params, rep, stats, opts, info, opts.max_strip_points, core);
  } catch (...) {
    release_contexts(owned, params.device);
    throw;
  }
  release_contexts(owned, params.device);
}

}  // namespace

// Core flags (sorted order) -> parent[]: the core sets joined (union-find
// over sorted indexes), each border point's entry its first claimer
// (kNone: noise).  Shared by one clustering and each value of a sweep.
void join_and_claim(RunContext& ctx, const GridView& g, const uint8_t* core,
                    const uint8_t* trusted, int64_t minpoints, uint32_t nb, gd_run_stats& stats,
                    Stopwatch& sw, uint32_t* parent, const UnionStep& step) {
  // Claimers (minpoints > 1 only: with fewer every point is core and pairs
  // are joined when either side sees the other) start from each cell's
  // smallest core; a sweep step's borders from its smallest new core.
  const bool stepping = minpoints > 1 && step.from_previous;
  device_buffer<uint64_t> own_min, new_min;
  uint64_t* cell_min = step.cell_min_core;
  if (stepping) {
    new_min = smallest_cores(ctx, g, core, 2);
    trace_point(ctx.stream(), "smallest new cores");
  }
  if (stepping && cell_min != nullptr) {
    lower_smallest_cores(ctx, cell_min, new_min.data(), g.ncells);
  } else if (minpoints > 1) {
    own_min = smallest_cores(ctx, g, core);
    if (cell_min != nullptr)
      CUDA_TRY(cudaMemcpyAsync(cell_min, own_min.data(), sizeof(uint64_t) * g.ncells,
                               cudaMemcpyDeviceToDevice, ctx.stream()));
    else
      cell_min = own_min.data();
  }
  trace_point(ctx.stream(), "smallest cores");
  union_core_pairs(ctx, g, core, cell_min, trusted, minpoints, nb, parent, step);
  trace_point(ctx.stream(), "union");
  if (step.timed) {
    ctx.wait();
    stats.t_union += sw.lap();
  }

  // A sweep step: the claimers of the previous value, bettered by new cores.
  if (minpoints > 1)
    assign_borders(ctx, g, core, stepping ? new_min.data() : cell_min, stepping, nb, parent);
  trace_point(ctx.stream(), "borders");
}

// Points that do not fit the budget in one piece (too many for the sort
// stage, or a later stage ran out of budget or of device memory) are
// clustered in strips (strips.cu): the same answer, in more time.  With a
// device list (gd_params.devices), such a partition, or one of at least
// split_min_points points, is split over the devices; the others run on
// params.device alone.
void cluster_host(const PointsView& pts, const gd_params& params, const CancelToken& cancel,
                  uint32_t* rep, gd_run_stats& stats, const Options& opts, RunInfo* info,
                  uint8_t* core) {
  Stopwatch total, sw;
  start_stats(stats, pts.n);
  stats.device = params.device;
  stats.devices = 1;
  std::vector<int> devs = logical_devices(params);
  if (pts.n == 0) return;
  bool split = false;
  {
    RunContext ctx(params.device, params.device_memory_budget, cancel);
    if (devs.size() > 1) {
      split = opts.max_strip_points != 0 ||
              (params.split_min_points > 0 ? pts.n >= static_cast<uint64_t>(params.split_min_points)
                                           : gather_stage_bytes(pts.n) > ctx.budget_limit());
    }
    if (split) {
      // (the contexts of the split are made below, after this one is gone)
    } else if (opts.max_strip_points != 0 || gather_stage_bytes(pts.n) > ctx.budget_limit()) {
      cluster_in_strips(ctx, pts, params, rep, stats, opts, info, opts.max_strip_points, core);
    } else {
      try {
        cluster_whole(ctx, pts, params, rep, stats, opts, info, sw, core);
      } catch (const Error& e) {
        if (e.status() != GD_ERR_DEVICE_NOMEM) throw;
        start_stats(stats, pts.n);
        stats.device = params.device;
        stats.devices = 1;
        cluster_in_strips(ctx, pts, params, rep, stats, opts, info, pts.n / 2, core);
      }
    }
  }
  if (split) cluster_split(devs, pts, params, cancel, rep, stats, opts, info, core);
  stats.t_total = total.lap();
}

void cluster_device(const double* d_x, const double* d_y, uint32_t n, const gd_params& params,
                    const CancelToken& cancel, uint32_t* d_rep, gd_run_stats& stats,
                    const Options& opts, RunInfo* info) {
  Stopwatch total, sw;
  start_stats(stats, n);
  if (n == 0) return;
  trace_point(nullptr, "cluster_device: called");
  RunContext ctx(params.device, params.device_memory_budget, cancel);
  ctx.keep_pool(opts.keep_device_pool);
  // The caller's x, y stay: only the sort stage's own buffers count.
  check_fits(ctx, n);
  trace_point(ctx.stream(), "cluster_device: context");
  Bounds bounds = device_bounds(ctx, d_x, d_y, n);
  trace_point(ctx.stream(), "bounds");
  stats.t_sort += sw.lap();
  cluster_on_device(ctx, d_x, d_y, n, bounds, params, opts, stats, sw, nullptr, nullptr, d_rep,
                    info);
  stats.t_total = total.lap();
}

DevicePoints::DevicePoints(const double* x, const double* y, uint32_t n, int device)
    : n_(n), device_(device) {
  CUDA_TRY(cudaSetDevice(device));
  size_t m = std::max<size_t>(n, 1);
  try {
    CUDA_TRY(cudaMalloc(&x_, sizeof(double) * m));
    CUDA_TRY(cudaMalloc(&y_, sizeof(double) * m));
    CUDA_TRY(cudaMalloc(&rep_, sizeof(uint32_t) * m));
    CUDA_TRY(cudaMemcpy(x_, x, sizeof(double) * n, cudaMemcpyHostToDevice));
    CUDA_TRY(cudaMemcpy(y_, y, sizeof(double) * n, cudaMemcpyHostToDevice));
  } catch (...) {
    this->~DevicePoints();
    throw;
  }
}

DevicePoints::~DevicePoints() {
  (void)cudaSetDevice(device_);
  if (x_ != nullptr) (void)cudaFree(x_);
  if (y_ != nullptr) (void)cudaFree(y_);
  if (rep_ != nullptr) (void)cudaFree(rep_);
  x_ = y_ = nullptr;
  rep_ = nullptr;
}

void DevicePoints::copy_reps_to_host(uint32_t* rep) const {
  CUDA_TRY(cudaSetDevice(device_));
  CUDA_TRY(cudaMemcpy(rep, rep_, sizeof(uint32_t) * n_, cudaMemcpyDeviceToHost));
}

void release_device_pool(int device) {
  CUDA_TRY(cudaSetDevice(device));
  CUDA_TRY(cudaDeviceSynchronize());
  cudaMemPool_t pool;
  CUDA_TRY(cudaDeviceGetDefaultMemPool(&pool, device));
  CUDA_TRY(cudaMemPoolTrimTo(pool, 0));
}

size_t device_memory_used(int device) {
  CUDA_TRY(cudaSetDevice(device));
  CUDA_TRY(cudaDeviceSynchronize());
  size_t free_b = 0, total_b = 0;
  CUDA_TRY(cudaMemGetInfo(&free_b, &total_b));
  return total_b - free_b;
}

// A CUDA error (out of memory from another process, a driver fault) can
// leave this process's context unusable for every later run of the session.
// Every buffer is freed by the time the entry point sees the error: drop the
// process's primary context (this process's alone, not the device) so that
// the next run starts from a fresh one.
void reset_after(const Error& e) noexcept {
  if (e.status() == GD_ERR_DEVICE || e.status() == GD_ERR_DEVICE_NOMEM) {
    drop_lanes();
    (void)cudaDeviceReset();
    (void)cudaGetLastError();
  }
}

namespace {
__global__ void probe_kernel(int* out) { *out = 42; }
}  // namespace

}  // namespace cuda

void gpu_cluster(const PointsView& pts, const gd_params& params, const CancelToken& cancel,
                 uint32_t* rep, gd_run_stats& stats, uint8_t* core) {
  try {
    cuda::cluster_host(pts, params, cancel, rep, stats, cuda::Options(), nullptr, core);
  } catch (const Error& e) {
    cuda::reset_after(e);
    throw;
  }
}

int gpu_device_count() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return count;
}

// A usable device: the runtime loads, the ordinal exists, its compute
// capability has code in this build (8.0 and later), and a small allocation
// and a kernel launch work.  Nothing is cached, so the answer stays right in a
// process forked after an earlier call.
bool gpu_available(int device, std::string* why) {
  auto fail = [&](const std::string& w) {
    (void)cudaGetLastError();
    if (why != nullptr) *why = w;
    return false;
  };
  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  // No driver (cudaErrorInsufficientDriver: the runtime finds no libcuda, or
  // an older one) and no device read alike to a user: say so first, with
  // CUDA's own words after it.
  if (err == cudaErrorInsufficientDriver || err == cudaErrorNoDevice)
    return fail(std::string("no NVIDIA driver or GPU found (CUDA: ") + cudaGetErrorString(err) + ")");
  if (err != cudaSuccess) return fail(std::string("no CUDA device: ") + cudaGetErrorString(err));
  if (count == 0) return fail("no NVIDIA driver or GPU found (CUDA: no device)");
  if (device < 0 || device >= count)
    return fail("CUDA device " + std::to_string(device) + " does not exist (" +
                std::to_string(count) + " found)");
  cudaDeviceProp prop;
  err = cudaGetDeviceProperties(&prop, device);
  if (err != cudaSuccess)
    return fail(std::string("cudaGetDeviceProperties failed: ") + cudaGetErrorString(err));
  if (prop.major < 8)
    return fail(std::string(prop.name) + " has compute capability " + std::to_string(prop.major) +
                "." + std::to_string(prop.minor) + "; gpu_dbscan needs 8.0 or later");
  err = cudaSetDevice(device);
  if (err != cudaSuccess) return fail(std::string("cudaSetDevice failed: ") + cudaGetErrorString(err));
  int* probe = nullptr;
  err = cudaMalloc(&probe, sizeof(int));
  if (err != cudaSuccess) return fail(std::string("cudaMalloc failed: ") + cudaGetErrorString(err));
  cuda::probe_kernel<<<1, 1>>>(probe);
  err = cudaGetLastError();
  if (err == cudaSuccess) err = cudaDeviceSynchronize();
  int value = 0;
  if (err == cudaSuccess) err = cudaMemcpy(&value, probe, sizeof value, cudaMemcpyDeviceToHost);
  (void)cudaFree(probe);
  if (err != cudaSuccess) return fail(std::string("kernel launch failed: ") + cudaGetErrorString(err));
  if (value != 42) return fail("probe kernel returned a wrong value");
  return true;
}

}  // namespace gd
