// test_gpu_block_cache.cpp — a run's freed blocks kept for its next
// buffers of the same size (cuda_util.cuh's BlockCache): handed out again,
// charged to the budget while kept, let go when a buffer needs their room,
// the oldest let go past kMaxBlocks, and the budget still refuses what it
// cannot hold.  Skipped where no GPU is usable.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "test_gpu_helpers.hpp"

#ifdef GD_HAVE_CUDA
#include "../../cuda/cuda_util.cuh"
#endif

namespace gd_test {
namespace {

#ifdef GD_HAVE_CUDA

constexpr size_t kMiB = size_t{1} << 20;

TEST(GpuBlockCache, ReusesBlocksWithinTheBudget) {
  GD_REQUIRE_GPU();
  gd_params p = params_for(1.0, 2);
  gd::CancelToken none(p);
  gd::cuda::RunContext ctx(0, 64 * kMiB, none);
  const gd::cuda::MemoryBudget& b = ctx.budget();
  void* first = nullptr;
  {
    auto a = ctx.alloc<uint32_t>(kMiB, "a");
    first = a.data();
    EXPECT_EQ(b.used(), 4 * kMiB);
  }
  EXPECT_EQ(b.used(), 0u);
  EXPECT_EQ(b.kept(), 4 * kMiB);
  {
    auto same = ctx.alloc<uint32_t>(kMiB, "same size");
    EXPECT_EQ(same.data(), first);
    EXPECT_EQ(b.kept(), 0u);
    auto other = ctx.alloc<uint8_t>(kMiB, "another size");
    EXPECT_NE(other.data(), first);
    EXPECT_EQ(b.used(), 5 * kMiB);
  }
  EXPECT_EQ(b.kept(), 5 * kMiB);
  {
    // 62 MiB fit the budget only once the kept 5 MiB go.
    auto big = ctx.alloc<uint8_t>(62 * kMiB, "big");
    EXPECT_EQ(b.kept(), 0u);
    EXPECT_EQ(b.used(), 62 * kMiB);
    EXPECT_EQ(cudaMemsetAsync(big.data(), 0, big.bytes(), ctx.stream()), cudaSuccess);
  }
  EXPECT_EQ(b.peak(), 62 * kMiB);
  // More than the budget: refused as without the cache, nothing charged.
  try {
    auto too_big = ctx.alloc<uint8_t>(65 * kMiB, "too big");
    ADD_FAILURE() << "65 MiB allocated within a 64 MiB budget";
  } catch (const gd::Error& e) {
    EXPECT_EQ(e.status(), GD_ERR_DEVICE_NOMEM);
    EXPECT_NE(std::string(e.what()).find("budget"), std::string::npos) << e.what();
  }
  EXPECT_EQ(b.used(), 0u);
  // Sizes that never come again: at most kMaxBlocks kept, the newest.
  const size_t many = gd::cuda::BlockCache::kMaxBlocks + 16;
  size_t newest = 0;
  for (size_t i = 1; i <= many; ++i) {
    auto once = ctx.alloc<uint8_t>(i * 1024, "a size once");
    if (i > many - gd::cuda::BlockCache::kMaxBlocks) newest += i * 1024;
  }
  EXPECT_EQ(b.kept(), newest);
  EXPECT_EQ(b.used(), 0u);
  ctx.wait();
}

#endif  // GD_HAVE_CUDA

}  // namespace
}  // namespace gd_test
