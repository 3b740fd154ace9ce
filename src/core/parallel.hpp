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

#include "backend.hpp"

namespace gd {

// Threads to use for `items` units of work: `requested` when positive, else
// all cores, but one thread for small inputs where starting threads costs
// more than it saves.
int resolve_threads(int requested, size_t items);

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
