// trace.cuh — a diagnostic timeline of the pipeline's steps (GD_CUDA_TRACE=1
// in the environment): at each trace point the stream is drained (by polling
// an event, as RunContext::wait does, so the memory pool behaves as in an
// untraced run) and the host microseconds since the previous point go to
// stderr.  Off, a trace point costs one branch.
#pragma once

#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

namespace gd {
namespace cuda {

inline bool trace_on() {
  static const bool on = std::getenv("GD_CUDA_TRACE") != nullptr;
  return on;
}

inline void trace_point(cudaStream_t s, const char* what) {
  if (!trace_on()) return;
  using clock = std::chrono::steady_clock;
  static thread_local clock::time_point last = clock::now();
  if (s != nullptr) {
    cudaEvent_t e;
    if (cudaEventCreateWithFlags(&e, cudaEventDisableTiming) == cudaSuccess) {
      (void)cudaEventRecord(e, s);
      while (cudaEventQuery(e) == cudaErrorNotReady) {
      }
      (void)cudaEventDestroy(e);
    }
  }
  clock::time_point t = clock::now();
  std::fprintf(stderr, "trace %-28s %9.1f us\n", what,
               std::chrono::duration<double, std::micro>(t - last).count());
  last = clock::now();
}

}  // namespace cuda
}  // namespace gd
