// parallel.cpp — starting, signal-masking and joining the CPU worker threads.
#include "parallel.hpp"

#include <pthread.h>
#include <signal.h>

#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace gd {

namespace {

// Blocks every signal in the calling thread for its lifetime; threads started
// meanwhile inherit the full mask, so no signal is ever delivered to them.
class BlockAllSignals {
 public:
  BlockAllSignals() {
    sigset_t all;
    sigfillset(&all);
    ok_ = pthread_sigmask(SIG_SETMASK, &all, &saved_) == 0;
  }
  ~BlockAllSignals() {
    if (ok_) pthread_sigmask(SIG_SETMASK, &saved_, nullptr);
  }
  BlockAllSignals(const BlockAllSignals&) = delete;
  BlockAllSignals& operator=(const BlockAllSignals&) = delete;

 private:
  sigset_t saved_;
  bool ok_;
};

}  // namespace

int hardware_threads() {
  // hardware_concurrency reads /sys on every call (microseconds): once.
  static const unsigned hw = std::thread::hardware_concurrency();
  return hw == 0 ? 1 : static_cast<int>(std::min(hw, 1024u));
}

int resolve_threads(const gd_params& params, size_t items) {
  const size_t ceiling = static_cast<size_t>(
      params.threads > 0 ? std::min(params.threads, 1024) : hardware_threads());
  const size_t per = params.min_items_per_thread > 0
                         ? static_cast<size_t>(params.min_items_per_thread)
                         : static_cast<size_t>(GD_MIN_ITEMS_PER_THREAD);
  const size_t useful = std::max<size_t>(1, items / per);
  return static_cast<int>(std::min(ceiling, useful));
}

std::thread start_quiet_thread(std::function<void()> fn) {
  BlockAllSignals blocked;
  return std::thread(std::move(fn));
}

void ThreadTeam::run(const std::function<void(int)>& fn) {
  aborted_.store(false, std::memory_order_relaxed);
  if (size_ == 1) {
    fn(0);
    return;
  }

  std::exception_ptr first;
  std::mutex first_mutex;
  auto member = [&](int t) {
    try {
      fn(t);
    } catch (...) {
      aborted_.store(true, std::memory_order_relaxed);
      std::lock_guard<std::mutex> lock(first_mutex);
      if (!first) first = std::current_exception();
    }
  };

  std::vector<std::thread> workers;
  int started = 1;
  {
    BlockAllSignals blocked;
    try {
      workers.reserve(size_ - 1);
      for (; started < size_; ++started) workers.emplace_back(member, started);
    } catch (...) {
      // Could not start every thread: the caller runs the missing members.
    }
  }
  member(0);
  for (int t = started; t < size_; ++t) member(t);
  for (auto& w : workers) w.join();
  if (first) std::rethrow_exception(first);
}

}  // namespace gd
