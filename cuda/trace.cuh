// trace.cuh — a diagnostic timeline of the pipeline's steps, off unless
// GD_CUDA_TRACE is set in the environment (then a trace point costs one
// branch):
//   GD_CUDA_TRACE=1       at each trace point the stream is drained (by
//                         polling an event, as RunContext::wait does, so the
//                         memory pool behaves as in an untraced run) and the
//                         host microseconds since the previous point go to
//                         stderr;
//   GD_CUDA_TRACE=events  nothing is drained: each trace point on a stream
//                         records a timing event, and at the end of the run
//                         (RunContext's destructor) the device time between
//                         each point and the one before is summed by point
//                         and printed; the sweeps print their values'
//                         timeline too (SweepDownloads).
#pragma once

#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace gd {
namespace cuda {

inline const char* trace_mode() {
  static const char* v = std::getenv("GD_CUDA_TRACE");
  return v;
}

inline bool trace_events() {
  static const bool on = trace_mode() != nullptr && std::strcmp(trace_mode(), "events") == 0;
  return on;
}

inline bool trace_on() {
  static const bool on = trace_mode() != nullptr && !trace_events();
  return on;
}

// The events recorded by this thread's trace points since the last flush.
struct TraceEvents {
  struct Mark {
    const char* what;
    cudaEvent_t event;
  };
  std::vector<Mark> marks;
};

inline TraceEvents& trace_events_of_thread() {
  static thread_local TraceEvents t;
  return t;
}

inline void trace_point(cudaStream_t s, const char* what) {
  if (trace_events()) {
    cudaEvent_t e;
    if (s != nullptr && cudaEventCreate(&e) == cudaSuccess) {
      if (cudaEventRecord(e, s) == cudaSuccess)
        trace_events_of_thread().marks.push_back({what, e});
      else
        (void)cudaEventDestroy(e);
    }
    return;
  }
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

// GD_CUDA_TRACE=events: the device time from each point to the next, summed
// by point (in the order each first appeared), printed and forgotten.  The
// caller has waited for the work traced.
inline void trace_flush() {
  auto& marks = trace_events_of_thread().marks;
  if (marks.empty()) return;
  struct Sum {
    const char* what;
    double ms;
    int count;
  };
  std::vector<Sum> sums;
  for (size_t i = 1; i < marks.size(); ++i) {
    float ms = 0;
    (void)cudaEventSynchronize(marks[i].event);
    if (cudaEventElapsedTime(&ms, marks[i - 1].event, marks[i].event) != cudaSuccess) ms = 0;
    size_t j = 0;
    while (j < sums.size() && std::strcmp(sums[j].what, marks[i].what) != 0) ++j;
    if (j == sums.size()) sums.push_back({marks[i].what, 0, 0});
    sums[j].ms += ms;
    sums[j].count += 1;
  }
  double total = 0;
  for (const Sum& s : sums) total += s.ms;
  for (const Sum& s : sums)
    std::fprintf(stderr, "trace events %-34s %9.3f ms in %3d (%8.1f us each)\n", s.what, s.ms,
                 s.count, 1e3 * s.ms / s.count);
  std::fprintf(stderr, "trace events %-34s %9.3f ms from the first point (\"%s\")\n", "total",
               total, marks[0].what);
  for (const auto& m : marks) (void)cudaEventDestroy(m.event);
  marks.clear();
  (void)cudaGetLastError();
}

}  // namespace cuda
}  // namespace gd
