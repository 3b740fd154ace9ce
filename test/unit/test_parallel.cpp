// test_parallel.cpp — how many threads a phase starts (issue 11): as many as
// its work pays for, never more than params.threads, one for small inputs
// whatever params.threads asks.
#include <gtest/gtest.h>

#include <thread>

#include "gd_core.h"
#include "parallel.hpp"

namespace {

gd_params with_threads(int threads, int64_t min_items = 0) {
  gd_params p;
  gd_params_init(&p);
  p.threads = threads;
  p.min_items_per_thread = min_items;
  return p;
}

TEST(Parallel, SmallInputsRunOnOneThread) {
  // 500 partitions of 40 rows at threads = 64 once started 64 threads each
  for (int threads : {0, 1, 2, 16, 64, 4096})
    for (size_t items : {0, 1, 40, 1000, GD_MIN_ITEMS_PER_THREAD - 1, 2 * GD_MIN_ITEMS_PER_THREAD - 1})
      EXPECT_EQ(gd::resolve_threads(with_threads(threads), items), 1)
          << "threads " << threads << ", items " << items;
}

TEST(Parallel, ThreadsFollowTheWork) {
  const size_t per = GD_MIN_ITEMS_PER_THREAD;
  EXPECT_EQ(gd::resolve_threads(with_threads(64), 2 * per), 2);
  EXPECT_EQ(gd::resolve_threads(with_threads(64), 5 * per + 7), 5);
  EXPECT_EQ(gd::resolve_threads(with_threads(64), 1000 * per), 64);
  EXPECT_EQ(gd::resolve_threads(with_threads(3), 1000 * per), 3);
  // a setting beyond 1024 is held at 1024
  EXPECT_EQ(gd::resolve_threads(with_threads(4096), 100000 * per), 1024);
  EXPECT_EQ(gd_hardware_threads(), gd::hardware_threads());
}

TEST(Parallel, ZeroMeansTheCores) {
  unsigned hw = std::thread::hardware_concurrency();
  int cores = hw == 0 ? 1 : static_cast<int>(hw);
  EXPECT_EQ(gd::resolve_threads(with_threads(0), 100000 * GD_MIN_ITEMS_PER_THREAD), cores);
  EXPECT_EQ(gd::resolve_threads(with_threads(0), 40), 1);
}

TEST(Parallel, MinItemsPerThreadOverride) {
  EXPECT_EQ(gd::resolve_threads(with_threads(4, 1), 40), 4);
  EXPECT_EQ(gd::resolve_threads(with_threads(4, 10), 40), 4);
  EXPECT_EQ(gd::resolve_threads(with_threads(4, 20), 40), 2);
  EXPECT_EQ(gd::resolve_threads(with_threads(4, 100), 40), 1);
}

}  // namespace
