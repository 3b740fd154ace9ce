// stopwatch.hpp — seconds between laps, for the per-phase times of
// gd_run_stats, on both back ends.
#pragma once

#include <chrono>

namespace gd {

class Stopwatch {
 public:
  Stopwatch() : t0_(std::chrono::steady_clock::now()) {}
  // Seconds since the previous lap (or the start).
  double lap() {
    auto t = std::chrono::steady_clock::now();
    double s = std::chrono::duration<double>(t - t0_).count();
    t0_ = t;
    return s;
  }

 private:
  std::chrono::steady_clock::time_point t0_;
};

}  // namespace gd
