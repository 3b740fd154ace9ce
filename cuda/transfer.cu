// transfer.cu — host <-> device copies at the bus's speed.
//
// The caller's arrays are pageable (palloc'd in a backend), and a pageable
// cudaMemcpy is as slow as the one host thread the driver copies with
// through its own staging.  Large transfers therefore go through lanes: up to
// kMaxLanes host threads, each with two pinned staging halves and a stream of
// its own.  Lane t copies its own contiguous share of the points: into half b
// on the host, then across the bus from half b while it fills half 1-b, so
// the host copies of all lanes and the DMA overlap.  The ids come back the
// same way, each lane's share landing once in the caller's array.
//
// The lanes (16 MiB of pinned memory, the streams, the events) are made on a
// process's first large transfer and kept for its life, like its CUDA
// context: pinning memory costs about as much per call as the copy itself,
// which is what made the earlier per-call staging slower than plain copies.
// A PostgreSQL backend never forks, and the postmaster never touches CUDA, so
// nothing pinned is inherited.  drop_lanes() frees them before the context is
// reset (gpu_dbscan.cu).  Measured in BENCHMARKS.md (start-up and transfers).
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>
#include <cub/device/device_reduce.cuh>

#include "grid.cuh"
#include "parallel.hpp"
#include "trace.cuh"

namespace gd {
namespace cuda {

namespace cub = CUB_NS_QUALIFIER;
namespace thrust = THRUST_NS_QUALIFIER;

namespace {

struct PointBounds {
  const double* x;
  const double* y;
  __host__ __device__ Bounds operator()(uint64_t i) const { return Bounds{x[i], x[i], y[i], y[i]}; }
};

struct MergeBounds {
  __host__ __device__ Bounds operator()(const Bounds& a, const Bounds& b) const {
    return Bounds{fmin(a.xmin, b.xmin), fmax(a.xmax, b.xmax), fmin(a.ymin, b.ymin),
                  fmax(a.ymax, b.ymax)};
  }
};

constexpr double kInf = __builtin_huge_val();
const Bounds kEmptyBounds{kInf, -kInf, kInf, -kInf};

using BoundsIter = thrust::transform_iterator<PointBounds, thrust::counting_iterator<uint64_t>>;

BoundsIter bounds_iter(const double* x, const double* y, uint64_t first) {
  return BoundsIter(thrust::counting_iterator<uint64_t>(first), PointBounds{x, y});
}

size_t reduce_temp_bytes(uint32_t items) {
  size_t bytes = 0;
  CUDA_TRY(cub::DeviceReduce::Reduce(nullptr, bytes, bounds_iter(nullptr, nullptr, 0),
                                     static_cast<Bounds*>(nullptr), items, MergeBounds{},
                                     kEmptyBounds, nullptr));
  return bytes;
}

constexpr unsigned kMaxLanes = 8;
constexpr size_t kHalfBytes = size_t{1} << 20;  // one staging half; two per lane
// Below this many bytes a plain copy is as fast: the lanes' threads and
// events cost more than they save.
constexpr size_t kLaneMinBytes = size_t{4} << 20;

struct Lane {
  char* half[2] = {nullptr, nullptr};
  cudaStream_t stream = nullptr;
  cudaEvent_t done[2] = {nullptr, nullptr};  // the last copy from / into each half
};

// The process's lanes, on one device.
class Lanes {
 public:
  explicit Lanes(int device) : device_(device) {
    try {
      CUDA_TRY(cudaHostAlloc(reinterpret_cast<void**>(&block_), kMaxLanes * 2 * kHalfBytes,
                             cudaHostAllocDefault));
      for (unsigned t = 0; t < kMaxLanes; ++t) {
        Lane& l = lane_[t];
        l.half[0] = block_ + (2 * t) * kHalfBytes;
        l.half[1] = block_ + (2 * t + 1) * kHalfBytes;
        CUDA_TRY(cudaStreamCreateWithFlags(&l.stream, cudaStreamNonBlocking));
        for (auto& e : l.done) CUDA_TRY(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
      }
    } catch (...) {
      release();
      throw;
    }
  }
  Lanes(const Lanes&) = delete;
  Lanes& operator=(const Lanes&) = delete;
  ~Lanes() { release(); }
  int device() const { return device_; }
  Lane& operator[](unsigned t) { return lane_[t]; }

 private:
  void release() noexcept {
    for (auto& l : lane_) {
      if (l.stream != nullptr) (void)cudaStreamSynchronize(l.stream);
      for (auto& e : l.done)
        if (e != nullptr) (void)cudaEventDestroy(e);
      if (l.stream != nullptr) (void)cudaStreamDestroy(l.stream);
      l = Lane{};
    }
    if (block_ != nullptr) (void)cudaFreeHost(block_);
    block_ = nullptr;
    (void)cudaGetLastError();
  }
  int device_;
  char* block_ = nullptr;
  Lane lane_[kMaxLanes];
};

std::mutex lanes_mutex;
std::unique_ptr<Lanes> lanes_of_process;

// The lanes for the current device, made on first use; the caller holds
// lanes_mutex.
Lanes& lanes_for(int device) {
  if (lanes_of_process && lanes_of_process->device() != device) lanes_of_process.reset();
  if (!lanes_of_process) lanes_of_process.reset(new Lanes(device));
  return *lanes_of_process;
}

void sync_event(cudaEvent_t e) { CUDA_TRY(cudaEventSynchronize(e)); }

// One copy job of a lane: bytes from src to dst (one of them on the device).
struct Span {
  const char* src;
  char* dst;
  size_t bytes;
};

// Up: each piece is copied into a staging half on the host, then sent from
// it on the lane's stream; a half is filled again once its last send is done.
void lane_up(Lane& l, const Span* spans, int nspans, size_t piece, const CancelToken& cancel) {
  int b = 0;
  for (int s = 0; s < nspans; ++s) {
    for (size_t off = 0; off < spans[s].bytes; off += piece) {
      size_t len = std::min(piece, spans[s].bytes - off);
      cancel.throw_if_requested();
      sync_event(l.done[b]);
      std::memcpy(l.half[b], spans[s].src + off, len);
      CUDA_TRY(cudaMemcpyAsync(spans[s].dst + off, l.half[b], len, cudaMemcpyHostToDevice,
                               l.stream));
      CUDA_TRY(cudaEventRecord(l.done[b], l.stream));
      b ^= 1;
    }
  }
}

// Down: piece k+1 crosses the bus into one half while piece k is copied out
// of the other into the caller's array.
void lane_down(Lane& l, const Span& span, size_t piece, const CancelToken& cancel) {
  size_t npieces = (span.bytes + piece - 1) / piece;
  auto enqueue = [&](size_t k) {
    size_t off = k * piece;
    size_t len = std::min(piece, span.bytes - off);
    CUDA_TRY(cudaMemcpyAsync(l.half[k & 1], span.src + off, len, cudaMemcpyDeviceToHost,
                             l.stream));
    CUDA_TRY(cudaEventRecord(l.done[k & 1], l.stream));
  };
  if (npieces > 0) enqueue(0);
  for (size_t k = 0; k < npieces; ++k) {
    if (k + 1 < npieces) enqueue(k + 1);
    cancel.throw_if_requested();
    sync_event(l.done[k & 1]);
    size_t off = k * piece;
    std::memcpy(span.dst + off, l.half[k & 1], std::min(piece, span.bytes - off));
  }
}

// per_lane: the bytes that make one more lane worth its thread.
unsigned lane_count(const TransferPlan& plan, size_t bytes, size_t per_lane = kLaneMinBytes) {
  unsigned want = plan.copy_threads != 0 ? plan.copy_threads
                                         : static_cast<unsigned>(hardware_threads());
  size_t useful = std::max<size_t>(1, bytes / per_lane);
  return static_cast<unsigned>(std::min<size_t>({want, kMaxLanes, useful}));
}

size_t piece_bytes(const TransferPlan& plan, size_t unit) {
  if (plan.chunk_points == 0) return kHalfBytes;
  return std::max<size_t>(unit, std::min(kHalfBytes, size_t{plan.chunk_points} * unit));
}

// Runs fn(lane, t) on `count` lanes, lane t on thread t.  The lanes'
// streams first wait for the work queued on the run's stream, which then
// waits for theirs.
template <class F>
void on_lanes(RunContext& ctx, unsigned count, F&& fn) {
  std::lock_guard<std::mutex> hold(lanes_mutex);
  int device = 0;
  CUDA_TRY(cudaGetDevice(&device));
  Lanes& lanes = lanes_for(device);
  Event ready;
  CUDA_TRY(cudaEventRecord(ready, ctx.stream()));
  for (unsigned t = 0; t < count; ++t) CUDA_TRY(cudaStreamWaitEvent(lanes[t].stream, ready, 0));
  // Every lane's stream is joined back into the main stream, also when a
  // lane failed, so that the run's buffers are freed only after the copies.
  struct Join {
    cudaStream_t main;
    Lanes& lanes;
    unsigned count;
    ~Join() {
      for (unsigned t = 0; t < count; ++t) {
        cudaEvent_t e;
        if (cudaEventCreateWithFlags(&e, cudaEventDisableTiming) != cudaSuccess) continue;
        if (cudaEventRecord(e, lanes[t].stream) == cudaSuccess) (void)cudaStreamWaitEvent(main, e, 0);
        (void)cudaEventDestroy(e);
      }
    }
  } join{ctx.stream(), lanes, count};
  ThreadTeam team(static_cast<int>(count), ctx.cancel());
  team.run([&](int t) {
    CUDA_TRY(cudaSetDevice(device));  // a fresh thread starts on device 0
    fn(lanes[static_cast<unsigned>(t)], static_cast<unsigned>(t), count);
  });
}

// [begin, end) of n items for lane t of count.
uint64_t share(uint64_t n, unsigned t, unsigned count) {
  return static_cast<uint64_t>((static_cast<unsigned __int128>(n) * t) / count);
}

// Lane t's share of n representatives on their way down.
Span reps_share(const uint32_t* d_rep, uint32_t n, uint32_t* rep, unsigned t, unsigned count) {
  uint64_t a = share(n, t, count), e = share(n, t + 1, count);
  return Span{reinterpret_cast<const char*>(d_rep + a), reinterpret_cast<char*>(rep + a),
              sizeof(uint32_t) * (e - a)};
}

}  // namespace

void drop_lanes() noexcept {
  std::lock_guard<std::mutex> hold(lanes_mutex);
  lanes_of_process.reset();
}

Bounds device_bounds(RunContext& ctx, const double* dx, const double* dy, uint32_t n) {
  auto temp = ctx.alloc<uint8_t>(std::max<size_t>(reduce_temp_bytes(n), 1), "bounds reduction");
  auto out = ctx.alloc<Bounds>(1, "bounds");
  size_t bytes = temp.size();
  CUDA_TRY(cub::DeviceReduce::Reduce(temp.data(), bytes, bounds_iter(dx, dy, 0), out.data(), n,
                                     MergeBounds{}, kEmptyBounds, ctx.stream()));
  Bounds b;
  CUDA_TRY(cudaMemcpyAsync(&b, out.data(), sizeof b, cudaMemcpyDeviceToHost, ctx.stream()));
  ctx.wait();
  return b;
}

namespace {

// count arrays of `bytes` each, src[k] to dst[k]: lane t takes its share of
// every one (shares of whole doubles, the last one any odd tail); a plain
// copy each below kLaneMinBytes in all.
void upload_arrays(RunContext& ctx, const void* const* src, void* const* dst, int count,
                   size_t bytes, const TransferPlan& plan) {
  if (plan.direct || (bytes * count < kLaneMinBytes && plan.chunk_points == 0)) {
    for (int k = 0; k < count; ++k)
      CUDA_TRY(cudaMemcpyAsync(dst[k], src[k], bytes, cudaMemcpyHostToDevice, ctx.stream()));
    return;
  }
  constexpr int kMaxArrays = 2;
  if (count > kMaxArrays) throw Error(GD_ERR_INTERNAL, "upload_arrays: too many arrays");
  const uint64_t items = bytes / sizeof(double);
  on_lanes(ctx, lane_count(plan, bytes * count), [&](Lane& l, unsigned t, unsigned lanes) {
    const uint64_t a = share(items, t, lanes) * sizeof(double);
    const uint64_t e = t + 1 == lanes ? bytes : share(items, t + 1, lanes) * sizeof(double);
    Span spans[kMaxArrays];
    for (int k = 0; k < count; ++k)
      spans[k] = Span{static_cast<const char*>(src[k]) + a, static_cast<char*>(dst[k]) + a, e - a};
    lane_up(l, spans, count, piece_bytes(plan, sizeof(double)), ctx.cancel());
  });
}

}  // namespace

void upload_array(RunContext& ctx, const void* src, void* dst, size_t bytes,
                  const TransferPlan& plan) {
  upload_arrays(ctx, &src, &dst, 1, bytes, plan);
}

void upload_points(RunContext& ctx, const double* x, const double* y, uint32_t n,
                   const TransferPlan& plan, device_buffer<double>* dx, device_buffer<double>* dy,
                   Bounds* bounds) {
  *dx = ctx.alloc<double>(n, "point x coordinates");
  *dy = ctx.alloc<double>(n, "point y coordinates");
  const void* src[2] = {x, y};
  void* dst[2] = {dx->data(), dy->data()};
  upload_arrays(ctx, src, dst, 2, sizeof(double) * n, plan);
  *bounds = device_bounds(ctx, dx->data(), dy->data(), n);
}

void download_reps(RunContext& ctx, const uint32_t* d_rep, uint32_t n, uint32_t* rep,
                   const TransferPlan& plan) {
  size_t bytes = sizeof(uint32_t) * n;
  if (plan.direct || (bytes < kLaneMinBytes && plan.chunk_points == 0)) {
    CUDA_TRY(cudaMemcpyAsync(rep, d_rep, bytes, cudaMemcpyDeviceToHost, ctx.stream()));
    ctx.wait();
    return;
  }
  on_lanes(ctx, lane_count(plan, bytes), [&](Lane& l, unsigned t, unsigned count) {
    lane_down(l, reps_share(d_rep, n, rep, t, count), piece_bytes(plan, sizeof(uint32_t)),
              ctx.cancel());
  });
  ctx.wait();
}

// ---- DownloadCrew ----------------------------------------------------------
//
// Crew thread t copies its share of every job in turn (lane t's pieces; one
// thread and plain copies for a small set); thread 0 then waits for the
// others' shares and runs the job's `then`, so jobs finish in order.

struct DownloadCrew::Crew {
  struct Job {
    const uint32_t* d_rep;
    uint32_t* rep;
    std::function<void()> then;
    unsigned left;  // shares not copied yet
  };

  Crew(RunContext& c, uint32_t npoints, const TransferPlan& plan) : ctx(c), n(npoints) {
    // The lanes from a staging half up, a lane a half (not from
    // kLaneMinBytes): the copy hides behind the device's next values.
    // H200, 16 values at 1M points: 12 ms against 13-16 with plain pageable
    // copies (4 MB in ~0.5 ms); smaller pieces and a lane a half megabyte
    // were slower (the lanes' driver calls and the run's launches contend).
    const size_t bytes = sizeof(uint32_t) * n;
    plain = plan.direct || (bytes < kHalfBytes && plan.chunk_points == 0);
    count = plain ? 1 : lane_count(plan, bytes, kHalfBytes);
    piece = piece_bytes(plan, sizeof(uint32_t));
    CUDA_TRY(cudaGetDevice(&device));
    if (!plain) {
      hold = std::unique_lock<std::mutex>(lanes_mutex);
      lanes = &lanes_for(device);
    }
  }

  void copy_share(const Job& job, unsigned t) {
    if (plain) {
      CUDA_TRY(cudaMemcpyAsync(job.rep, job.d_rep, sizeof(uint32_t) * n, cudaMemcpyDeviceToHost,
                               plain_stream));
      CUDA_TRY(cudaStreamSynchronize(plain_stream));
      return;
    }
    lane_down((*lanes)[t], reps_share(job.d_rep, n, job.rep, t, count), piece, ctx.cancel());
  }

  void fail() {
    std::lock_guard<std::mutex> lk(m);
    if (!error) error = std::current_exception();
    cv.notify_all();
  }

  void member(unsigned t) {
    try {
      CUDA_TRY(cudaSetDevice(device));
      for (size_t j = 0;; ++j) {
        Job* job;
        {
          std::unique_lock<std::mutex> lk(m);
          cv.wait(lk, [&] { return stop || error || j < jobs.size(); });
          if (stop || error) return;
          job = &jobs[j];  // a deque's elements stay put as it grows
        }
        Stopwatch w;
        copy_share(*job, t);
        std::unique_lock<std::mutex> lk(m);
        if (--job->left == 0) cv.notify_all();
        if (t != 0) continue;
        cv.wait(lk, [&] { return job->left == 0 || stop || error; });
        if (job->left != 0) return;
        copy_s += w.lap();
        lk.unlock();
        if (job->then) job->then();
        lk.lock();
        done = j + 1;
        cv.notify_all();
      }
    } catch (...) {
      fail();
    }
  }

  void rethrow_locked() {
    if (error) std::rethrow_exception(error);
  }

  RunContext& ctx;
  uint32_t n;
  bool plain = true;
  unsigned count = 1;
  size_t piece = kHalfBytes;
  int device = 0;
  std::unique_lock<std::mutex> hold;  // lanes_mutex, while the crew uses the lanes
  Lanes* lanes = nullptr;
  Stream plain_stream;
  std::mutex m;
  std::condition_variable cv;
  std::deque<Job> jobs;
  size_t done = 0;
  bool stop = false;
  std::exception_ptr error;
  double copy_s = 0;
  std::vector<std::thread> threads;
};

DownloadCrew::DownloadCrew(RunContext& ctx, uint32_t n, const TransferPlan& plan)
    : crew_(new Crew(ctx, n, plan)) {
  crew_->threads.reserve(crew_->count);  // no reallocation with a thread in hand
  try {
    for (unsigned t = 0; t < crew_->count; ++t)
      crew_->threads.push_back(start_quiet_thread([c = crew_.get(), t] { c->member(t); }));
  } catch (...) {
    shut();
    throw;
  }
}

DownloadCrew::~DownloadCrew() { shut(); }

void DownloadCrew::shut() noexcept {
  if (!crew_) return;
  {
    std::lock_guard<std::mutex> lk(crew_->m);
    crew_->stop = true;
  }
  crew_->cv.notify_all();
  for (auto& th : crew_->threads)
    if (th.joinable()) th.join();
  // A share that failed may leave a piece in flight.
  if (crew_->lanes != nullptr)
    for (unsigned t = 0; t < crew_->count; ++t)
      (void)cudaStreamSynchronize((*crew_->lanes)[t].stream);
  (void)cudaStreamSynchronize(crew_->plain_stream);
  crew_.reset();
}

void DownloadCrew::post(const uint32_t* d_rep, uint32_t* rep, std::function<void()> then) {
  {
    std::lock_guard<std::mutex> lk(crew_->m);
    crew_->rethrow_locked();
    crew_->jobs.push_back(Crew::Job{d_rep, rep, std::move(then), crew_->count});
  }
  crew_->cv.notify_all();
}

void DownloadCrew::wait_done(size_t count) {
  for (;;) {
    {
      std::unique_lock<std::mutex> lk(crew_->m);
      crew_->cv.wait_for(lk, std::chrono::microseconds(500),
                         [&] { return crew_->done >= count || crew_->error; });
      crew_->rethrow_locked();
      if (crew_->done >= count) return;
    }
    crew_->ctx.check_cancel();
  }
}

double DownloadCrew::copy_seconds() const {
  std::lock_guard<std::mutex> lk(crew_->m);
  return crew_->copy_s;
}

// ---- SweepDownloads ----------------------------------------------------------

namespace {

size_t sweep_buffers(uint32_t n, size_t values) {
  const size_t fit = (size_t{320} << 20) / (sizeof(uint32_t) * (n > 0 ? n : 1));
  return values < 3 ? values : fit < 3 ? 3 : fit > 8 ? 8 : std::min(fit, values);
}

// Buffers past the third only while each takes at most a quarter of the
// budget's room left, so that a sweep near its budget keeps the room for
// the values' scratch (rather than running out there and going to the
// strips).
std::vector<device_buffer<uint32_t>> sweep_rep_buffers(RunContext& ctx, uint32_t n, size_t want) {
  std::vector<device_buffer<uint32_t>> bufs;
  const size_t bytes = sizeof(uint32_t) * n;
  for (size_t r = 0; r < want; ++r) {
    if (r >= 3) {
      const MemoryBudget& b = ctx.budget();
      const size_t room = b.limit() > b.used() ? b.limit() - b.used() : 0;
      if (bytes > room / 4) break;
    }
    try {
      bufs.push_back(ctx.alloc<uint32_t>(n, "sweep representatives"));
    } catch (const Error& e) {
      if (e.status() != GD_ERR_DEVICE_NOMEM || r < 2) throw;
      (void)cudaGetLastError();  // a failed cudaMallocAsync leaves its error behind
      break;
    }
  }
  return bufs;
}

}  // namespace

// When each value's work on the device ended (timing events on the run's
// stream), was posted, copied and emitted, from the sweep's first value on:
// where a sweep's time goes without draining the stream between values.
struct SweepDownloads::Timeline {
  explicit Timeline(size_t values) : device(values), host(values) {
    CUDA_TRY(cudaEventCreate(&start));
    for (auto& e : device) CUDA_TRY(cudaEventCreate(&e));
  }
  ~Timeline() {
    (void)cudaEventDestroy(start);
    for (auto e : device) (void)cudaEventDestroy(e);
  }
  double since() const {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  }
  void print() const {
    for (size_t k = device.size(); k-- > 0;) {
      float ms = -1;
      (void)cudaEventElapsedTime(&ms, start, device[k]);
      std::fprintf(stderr,
                   "trace sweep value %2zu: queued %8.3f ms, device done %8.3f, posted %8.3f, "
                   "copied %8.3f, emitted %8.3f\n",
                   k, host[k].queued, ms, host[k].posted, host[k].copied, host[k].emitted);
    }
  }
  std::chrono::steady_clock::time_point t0 = std::chrono::steady_clock::now();
  cudaEvent_t start{};
  std::vector<cudaEvent_t> device;
  struct HostTimes {
    double queued = 0, posted = 0, copied = 0, emitted = 0;  // ms from t0
  };
  std::vector<HostTimes> host;
};

SweepDownloads::~SweepDownloads() = default;

SweepDownloads::SweepDownloads(RunContext& ctx, uint32_t n, size_t values,
                               const TransferPlan& plan, uint32_t* const* out,
                               const std::function<void(size_t, const uint32_t*)>& emit)
    : ctx_(ctx),
      values_(values),
      out_(out),
      emit_(emit),
      d_rep_(sweep_rep_buffers(ctx, n, sweep_buffers(n, values))),
      own_(out != nullptr ? 0 : d_rep_.size()),
      crew_(ctx, n, plan) {
  for (auto& o : own_) o.resize(n);
  if (trace_events()) {
    timeline_.reset(new Timeline(values));
    CUDA_TRY(cudaEventRecord(timeline_->start, ctx.stream()));
  }
}

uint32_t* SweepDownloads::buffer(size_t k) {
  const size_t r = d_rep_.size();
  // Values are posted from the largest down: value k+r is copy values-1-(k+r).
  if (k + r < values_) crew_.wait_done(values_ - k - r);
  return d_rep_[k % r].data();
}

void SweepDownloads::queued(size_t k) {
  CUDA_TRY(cudaEventRecord(done_[k & 1], ctx_.stream()));
  if (timeline_) {
    CUDA_TRY(cudaEventRecord(timeline_->device[k], ctx_.stream()));
    timeline_->host[k].queued = timeline_->since();
  }
}

void SweepDownloads::wait(size_t k) { ctx_.wait_event(done_[k & 1]); }

void SweepDownloads::post(size_t k) {
  const size_t r = d_rep_.size();
  uint32_t* host = out_ != nullptr ? out_[k] : own_[k % r].data();
  const auto& emit = emit_;
  Timeline* tl = timeline_.get();
  if (tl) tl->host[k].posted = tl->since();
  crew_.post(d_rep_[k % r].data(), host, [&emit, k, host, tl] {
    if (tl) tl->host[k].copied = tl->since();
    emit(k, host);
    if (tl) tl->host[k].emitted = tl->since();
  });
}

double SweepDownloads::finish() {
  wait(0);
  post(0);
  crew_.wait_done(values_);
  if (timeline_) timeline_->print();
  return crew_.copy_seconds();
}

}  // namespace cuda
}  // namespace gd
