// cuda_util.cuh — the device back end's plumbing: one error path (CUDA_TRY),
// RAII device memory charged against the run's memory budget, streams and
// events, and the one place where the host waits for the device (and polls
// for cancellation while it does).
#pragma once

#include <cuda_runtime.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "backend.hpp"

#include "stopwatch.hpp"

namespace gd {
namespace cuda {

// Turns a CUDA error into the core's exception type.  An allocation failure
// is GD_ERR_DEVICE_NOMEM (backend=auto falls back to the CPU on it), anything
// else GD_ERR_DEVICE.
[[noreturn]] void throw_cuda_error(cudaError_t err, const char* call, const char* file, int line);

#define CUDA_TRY(call)                                                   \
  do {                                                                   \
    cudaError_t gd_cuda_err_ = (call);                                   \
    if (gd_cuda_err_ != cudaSuccess)                                     \
      ::gd::cuda::throw_cuda_error(gd_cuda_err_, #call, __FILE__, __LINE__); \
  } while (0)

// After every kernel launch (name: a string literal): a bad configuration or
// a missing kernel image shows up here, not at the next synchronisation.
#define GD_CHECK_LAUNCH(name)                                                  \
  do {                                                                         \
    cudaError_t gd_cuda_err_ = cudaGetLastError();                             \
    if (gd_cuda_err_ != cudaSuccess)                                           \
      ::gd::cuda::throw_cuda_error(gd_cuda_err_, name " launch", __FILE__, __LINE__); \
  } while (0)

// Device memory a run may hold: every device_buffer is charged here before it
// is allocated, so the budget is never exceeded, and peak() says how much the
// run needed.  Blocks a BlockCache keeps (kept()) are held too, so they count
// against the limit, but not as used: an allocation that finds no room lets
// them go first (device_buffer).
class MemoryBudget {
 public:
  explicit MemoryBudget(size_t limit) : limit_(limit) {}
  void acquire(size_t bytes, const char* what);
  void release(size_t bytes) { used_ -= bytes; }
  bool fits(size_t bytes) const { return bytes <= limit_ && used_ + kept_ <= limit_ - bytes; }
  void keep(size_t bytes) {  // a buffer's block kept by the cache
    used_ -= bytes;
    kept_ += bytes;
  }
  void reuse(size_t bytes) {  // a kept block handed out again
    kept_ -= bytes;
    used_ += bytes;
    if (used_ > peak_) peak_ = used_;
  }
  void drop_kept(size_t bytes) { kept_ -= bytes; }
  size_t limit() const { return limit_; }
  size_t used() const { return used_; }
  size_t kept() const { return kept_; }
  size_t peak() const { return peak_; }

 private:
  size_t limit_;
  size_t used_ = 0;
  size_t kept_ = 0;
  size_t peak_ = 0;
};

// Blocks of a run's buffers, kept when the buffers go for its next buffers
// of the same size (RunContext::alloc).  A sweep allocates the same scratch
// at every value: ~20 cudaMallocAsync and cudaFreeAsync calls a value, at
// 1M points as long on the host as the value's kernels on the device
// (BENCHMARKS.md, the sweeps' sixth pass).  Every block is allocated on the
// run's main stream and the work of other streams is joined back to it
// before a buffer goes, so the stream order that makes cudaFreeAsync safe
// makes the reuse safe too.  At most kMaxBlocks are kept, the oldest freed
// first (a strip's sizes never come again).
class BlockCache {
 public:
  static constexpr size_t kMaxBlocks = 64;
  BlockCache() { blocks_.reserve(kMaxBlocks); }  // keep() then never allocates
  // A kept block of exactly `bytes`, or null.
  void* take(size_t bytes);
  // p's block kept (charged to the budget as kept).
  void keep(void* p, size_t bytes, cudaStream_t stream, MemoryBudget& budget) noexcept;
  // Frees every kept block (stream-ordered) and takes them off the budget.
  void release_all(cudaStream_t stream, MemoryBudget& budget) noexcept;
  bool empty() const { return blocks_.empty(); }

 private:
  std::vector<std::pair<size_t, void*>> blocks_;
};

// A typed device allocation with its size and stream, allocated in stream
// order (cudaMallocAsync) or handed out by the run's BlockCache, and given
// back to that cache when the buffer goes (the cache frees in stream order),
// so a buffer can be dropped while kernels that use it are still queued.
// Made by RunContext::alloc only.
template <class T>
class device_buffer {
 public:
  device_buffer() = default;
  device_buffer(size_t count, cudaStream_t stream, MemoryBudget& budget, const char* what,
                BlockCache& cache)
      : count_(count), stream_(stream), budget_(&budget), cache_(&cache) {
    size_t bytes = count * sizeof(T);
    if (count != 0 && bytes / count != sizeof(T))
      throw Error(GD_ERR_DEVICE_NOMEM, std::string("size overflow allocating ") + what);
    if (bytes == 0) return;
    if (void* kept = cache.take(bytes)) {
      budget.reuse(bytes);
      ptr_ = static_cast<T*>(kept);
      return;
    }
    if (!budget.fits(bytes)) cache.release_all(stream, budget);
    budget.acquire(bytes, what);
    void* p = nullptr;
    cudaError_t err = cudaMallocAsync(&p, bytes, stream);
    if (err != cudaSuccess && !cache.empty()) {
      (void)cudaGetLastError();  // the device's own memory: let the kept blocks go, once more
      cache.release_all(stream, budget);
      err = cudaMallocAsync(&p, bytes, stream);
    }
    if (err != cudaSuccess) {
      budget.release(bytes);
      (void)cudaGetLastError();
      throw_cuda_error(err, what, __FILE__, __LINE__);
    }
    ptr_ = static_cast<T*>(p);
  }
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;
  device_buffer(device_buffer&& o) noexcept { swap(o); }
  device_buffer& operator=(device_buffer&& o) noexcept {
    if (this != &o) {
      reset();
      swap(o);
    }
    return *this;
  }
  ~device_buffer() { reset(); }

  void reset() noexcept {
    if (ptr_ != nullptr) cache_->keep(ptr_, count_ * sizeof(T), stream_, *budget_);
    ptr_ = nullptr;
    count_ = 0;
    budget_ = nullptr;
    cache_ = nullptr;
  }
  T* data() const { return ptr_; }
  size_t size() const { return count_; }
  size_t bytes() const { return count_ * sizeof(T); }

 private:
  void swap(device_buffer& o) noexcept {
    std::swap(ptr_, o.ptr_);
    std::swap(count_, o.count_);
    std::swap(stream_, o.stream_);
    std::swap(budget_, o.budget_);
    std::swap(cache_, o.cache_);
  }
  T* ptr_ = nullptr;
  size_t count_ = 0;
  cudaStream_t stream_ = nullptr;
  MemoryBudget* budget_ = nullptr;
  BlockCache* cache_ = nullptr;
};

class Stream {
 public:
  Stream();
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  ~Stream();
  cudaStream_t get() const { return s_; }
  operator cudaStream_t() const { return s_; }

 private:
  cudaStream_t s_ = nullptr;
};

class Event {
 public:
  Event();
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  ~Event();
  cudaEvent_t get() const { return e_; }
  operator cudaEvent_t() const { return e_; }

 private:
  cudaEvent_t e_ = nullptr;
};

// Everything one run owns on the device apart from its buffers: the device,
// the streams, the budget and the cancel flag the kernels read.  Declared
// before the buffers so that it is destroyed after them: its destructor waits
// for the queued work (which exits early once the flag is set), so the
// stream-ordered frees have run, and hands the freed memory back to the
// driver, leaving the device as it was found.
//
// A device list may name one GPU several times (gpu_dbscan.devices = '0,0'):
// each entry is a RunContext of its own, with its own streams and budget, and
// share = how many entries name that GPU divides its budget (the session's,
// or the default) between them.
class RunContext {
 public:
  RunContext(int device, size_t budget_bytes, const CancelToken& cancel, unsigned share = 1);
  RunContext(const RunContext&) = delete;
  RunContext& operator=(const RunContext&) = delete;
  ~RunContext();

  int device() const { return device_; }
  cudaStream_t stream() const { return main_.get(); }
  cudaStream_t side_stream() const { return side_.get(); }
  MemoryBudget& budget() { return budget_; }
  const CancelToken& cancel() const { return cancel_; }
  size_t budget_limit() const { return budget_.limit(); }
  size_t budget_peak() const { return budget_.peak(); }
  // Flag in device memory, set (by a memset on the side stream, which runs
  // beside the kernels) when the run is cancelled, so that queued batch
  // kernels return at once.  Device memory, not mapped host memory: every
  // block reads it, and a read across the bus per block cost ~1 us each.
  const volatile int* cancel_flag_device() const { return flag_dev_; }
  // Leave the freed memory in the device's pool at the end of the run
  // (Options::keep_device_pool), for a caller that runs again at once.
  void keep_pool(bool keep) { keep_pool_ = keep; }

  // The host's one wait per stage: polls the stream with short sleeps and the
  // cancel token in between; throws on a device error or a cancel.
  void wait(cudaStream_t s);
  void wait() { wait(main_.get()); }
  // The same wait for an event already recorded (work queued after it goes on).
  void wait_event(cudaEvent_t e);
  void check_cancel();

  // On the main stream, through the run's block cache.
  template <class T>
  device_buffer<T> alloc(size_t count, const char* what) {
    return device_buffer<T>(count, main_.get(), budget_, what, cache_);
  }

 private:
  int device_;
  const CancelToken& cancel_;
  MemoryBudget budget_;
  BlockCache cache_;  // emptied by the destructor, after every buffer of the run went
  Stream main_;
  Stream side_;
  Event done_;
  int* flag_dev_ = nullptr;
  bool keep_pool_ = false;
};

using Stopwatch = gd::Stopwatch;  // stopwatch.hpp

constexpr unsigned kBlock = 256;

inline unsigned grid_for(uint64_t threads, unsigned block = kBlock) {
  uint64_t g = (threads + block - 1) / block;
  return static_cast<unsigned>(g == 0 ? 1 : g);
}

}  // namespace cuda
}  // namespace gd
