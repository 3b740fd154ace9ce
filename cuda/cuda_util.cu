// cuda_util.cu — error path, budget, RAII wrappers and the host's wait loop.
#include "cuda_util.cuh"

#include "trace.cuh"

#include <cstdio>
#include <thread>

namespace gd {
namespace cuda {

void throw_cuda_error(cudaError_t err, const char* call, const char* file, int line) {
  const char* base = file;
  for (const char* p = file; *p; ++p)
    if (*p == '/') base = p + 1;
  char msg[400];
  std::snprintf(msg, sizeof msg, "%s failed at %s:%d: %s", call, base, line,
                cudaGetErrorString(err));
  throw Error(err == cudaErrorMemoryAllocation ? GD_ERR_DEVICE_NOMEM : GD_ERR_DEVICE, msg);
}

static double mib(size_t bytes) { return static_cast<double>(bytes) / (1024.0 * 1024.0); }

void MemoryBudget::acquire(size_t bytes, const char* what) {
  if (!fits(bytes)) {
    char msg[400];
    std::snprintf(msg, sizeof msg,
                  "GPU memory budget exceeded: %s needs %.1f MiB with %.1f MiB already in use, "
                  "budget %.1f MiB (gpu_dbscan.device_memory_budget)",
                  what, mib(bytes), mib(used_ + kept_), mib(limit_));
    throw Error(GD_ERR_DEVICE_NOMEM, msg);
  }
  used_ += bytes;
  if (used_ > peak_) peak_ = used_;
}

void* BlockCache::take(size_t bytes) {
  for (size_t b = 0; b < blocks_.size(); ++b) {
    if (blocks_[b].first != bytes) continue;
    void* p = blocks_[b].second;
    blocks_.erase(blocks_.begin() + static_cast<std::ptrdiff_t>(b));
    return p;
  }
  return nullptr;
}

void BlockCache::keep(void* p, size_t bytes, cudaStream_t stream, MemoryBudget& budget) noexcept {
  budget.keep(bytes);
  if (blocks_.size() == kMaxBlocks) {
    (void)cudaFreeAsync(blocks_.front().second, stream);
    budget.drop_kept(blocks_.front().first);
    blocks_.erase(blocks_.begin());
  }
  blocks_.push_back({bytes, p});
}

void BlockCache::release_all(cudaStream_t stream, MemoryBudget& budget) noexcept {
  for (const auto& b : blocks_) {
    (void)cudaFreeAsync(b.second, stream);
    budget.drop_kept(b.first);
  }
  blocks_.clear();
}

Stream::Stream() { CUDA_TRY(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking)); }
Stream::~Stream() {
  if (s_ != nullptr) (void)cudaStreamDestroy(s_);
}

Event::Event() { CUDA_TRY(cudaEventCreateWithFlags(&e_, cudaEventDisableTiming)); }
Event::~Event() {
  if (e_ != nullptr) (void)cudaEventDestroy(e_);
}

static size_t default_budget(int device) {
  (void)device;
  size_t free_b = 0, total_b = 0;
  CUDA_TRY(cudaMemGetInfo(&free_b, &total_b));
  trace_point(nullptr, "ctx: device, cudaMemGetInfo");
  return free_b / 2;
}

static int set_device(int device) {
  CUDA_TRY(cudaSetDevice(device));
  return device;
}

RunContext::RunContext(int device, size_t budget_bytes, const CancelToken& cancel, unsigned share)
    : device_(set_device(device)),
      cancel_(cancel),
      budget_((budget_bytes != 0 ? budget_bytes : default_budget(device)) / (share ? share : 1)) {
  trace_point(nullptr, "ctx: streams, event");
  // Freed memory stays in the device's pool for the rest of the run (the
  // default threshold of 0 hands it back to the driver at every
  // synchronisation, and the next allocation maps it again); the destructor
  // trims the pool.
  cudaMemPool_t pool;
  if (cudaDeviceGetDefaultMemPool(&pool, device_) == cudaSuccess) {
    uint64_t keep = UINT64_MAX;
    (void)cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep);
  }
  (void)cudaGetLastError();
  void* dev = nullptr;
  CUDA_TRY(cudaMallocAsync(&dev, sizeof(int), main_.get()));
  flag_dev_ = static_cast<int*>(dev);
  CUDA_TRY(cudaMemsetAsync(flag_dev_, 0, sizeof(int), main_.get()));
  // The cancel's memset (side stream) must land after this one.
  CUDA_TRY(cudaEventRecord(done_.get(), main_.get()));
  CUDA_TRY(cudaStreamWaitEvent(side_.get(), done_.get(), 0));
  trace_point(main_.get(), "ctx: device flag");
}

RunContext::~RunContext() {
  // Queued work exits early when the flag is set; wait for it so that the
  // stream-ordered frees of the run's buffers have happened, then give the
  // pool's memory back so that nothing stays held between runs (unless the
  // caller keeps it for its next run: keep_pool).
  trace_point(main_.get(), "ctx end: queued work");
  cache_.release_all(main_.get(), budget_);
  (void)cudaStreamSynchronize(side_.get());
  if (flag_dev_ != nullptr) (void)cudaFreeAsync(flag_dev_, main_.get());
  (void)cudaStreamSynchronize(main_.get());
  cudaMemPool_t pool;
  if (!keep_pool_ && cudaDeviceGetDefaultMemPool(&pool, device_) == cudaSuccess)
    (void)cudaMemPoolTrimTo(pool, 0);
  (void)cudaGetLastError();
  trace_point(nullptr, "ctx end: sync, pool trim");
  trace_flush();
}

void RunContext::check_cancel() {
  if (cancel_.requested()) {
    (void)cudaMemsetAsync(flag_dev_, 1, sizeof(int), side_.get());
    throw Error(GD_ERR_CANCELLED, "clustering cancelled");
  }
}

void RunContext::wait(cudaStream_t s) {
  CUDA_TRY(cudaEventRecord(done_.get(), s));
  wait_event(done_.get());
}

void RunContext::wait_event(cudaEvent_t e) {
  auto t0 = std::chrono::steady_clock::now();
  for (;;) {
    cudaError_t err = cudaEventQuery(e);
    if (err == cudaSuccess) break;
    if (err != cudaErrorNotReady) throw_cuda_error(err, "device work", __FILE__, __LINE__);
    check_cancel();
    // Polls without sleeping for the first 2 ms (most stages end by then,
    // and a sleep overshoots by 50 us or more), then short sleeps: a cancel
    // is seen within a millisecond of the flag and the CPU stays free.
    auto waited = std::chrono::steady_clock::now() - t0;
    if (waited < std::chrono::milliseconds(2))
      std::this_thread::yield();
    else
      std::this_thread::sleep_for(
          std::chrono::microseconds(waited < std::chrono::milliseconds(20) ? 50 : 500));
  }
  check_cancel();
}

}  // namespace cuda
}  // namespace gd
