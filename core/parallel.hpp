// parallel.hpp — a team of threads for one phase of the CPU back end.
//
// The calling thread is member 0 of the team and does its share of the work;
// the other members are std::threads started with every signal blocked, so
// that PostgreSQL's signal handlers only ever run on the calling thread.  All
// members are joined before run() returns or throws; the first exception
// thrown by any member (cancellation included) is rethrown to the caller.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <functional>
#include <thread>

#include "backend.hpp"

namespace gd {

// Threads to use for `items` units of work: as many as the work pays for
// (one per params.min_items_per_thread items, GD_MIN_ITEMS_PER_THREAD when
// 0, and at least one), but at most params.threads when positive, else at
// most the machine's cores.  A small input runs on the calling thread alone
// whatever params.threads says: starting threads would cost more than they
// save.
int resolve_threads(const gd_params& params, size_t items);

// The machine's hardware threads, at least 1 (read once).
int hardware_threads();

// Starts fn on a new thread with every signal blocked, as ThreadTeam's members
// (for threads kept longer than one phase, e.g. the sweep's copy crew).
std::thread start_quiet_thread(std::function<void()> fn);

class ThreadTeam {
 public:
  ThreadTeam(int nthreads, const CancelToken& cancel)
      : size_(std::max(1, nthreads)), cancel_(cancel) {}

  int size() const { return size_; }
  const CancelToken& cancel() const { return cancel_; }

  // Runs fn(t) for every member t in [0, size()).
  void run(const std::function<void(int)>& fn);

  // fn(begin, end) over [0, n) in chunks of `grain`, handed out on demand;
  // polls the cancel flag before each chunk.
  template <class F>
  void for_dynamic(size_t n, size_t grain, F&& fn) {
    if (n == 0) return;
    grain = std::max<size_t>(grain, 1);
    std::atomic<size_t> next{0};
    run([&](int) {
      for (;;) {
        if (aborted_.load(std::memory_order_relaxed)) return;
        cancel_.throw_if_requested();
        size_t begin = next.fetch_add(grain, std::memory_order_relaxed);
        if (begin >= n) return;
        fn(begin, std::min(n, begin + grain));
      }
    });
  }

  // fn(t, begin, end): one contiguous block of [0, n) per member, in order.
  template <class F>
  void for_static(size_t n, F&& fn) {
    run([&](int t) {
      cancel_.throw_if_requested();
      fn(t, block_begin(n, t), block_begin(n, t + 1));
    });
  }

  size_t block_begin(size_t n, int t) const {
    return static_cast<size_t>((static_cast<unsigned __int128>(n) * t) / size_);
  }

 private:
  int size_;
  const CancelToken& cancel_;
  std::atomic<bool> aborted_{false};  // a member failed: the others stop early
};

}  // namespace gd
