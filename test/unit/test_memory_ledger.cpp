// test_memory_ledger.cpp — the host memory ledger (memory_ledger.hpp): the
// core's allocations are charged and refunded, a charge past either limit is
// a clean GD_ERR_NOMEM naming the setting, and nothing stays charged after a
// call, whether it succeeded or failed.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core_helpers.hpp"

namespace {

using gd_test::Rows;

// Limits for the test's scope, none again after.
class Limits {
 public:
  Limits(int64_t query, int64_t total, int64_t* used, int64_t* mine) {
    gd_memory_limits l{query, total, used, mine};
    gd_memory_configure(&l);
  }
  ~Limits() { gd_memory_configure(nullptr); }
};

TEST(MemoryLedger, ChargesAndRefunds) {
  int64_t used = 0, mine = 0;
  Limits limits(1000, 0, &used, &mine);
  gd_error err{};
  EXPECT_EQ(gd_memory_charge(600, "a", &err), GD_OK);
  EXPECT_EQ(gd_memory_held(), 600);
  EXPECT_EQ(used, 600);
  EXPECT_EQ(mine, 600);
  EXPECT_EQ(gd_memory_charge(401, "the sweep's ids", &err), GD_ERR_NOMEM);
  EXPECT_NE(std::string(err.message).find("gpu_dbscan.max_query_memory"), std::string::npos)
      << err.message;
  EXPECT_NE(std::string(err.message).find("the sweep's ids"), std::string::npos) << err.message;
  EXPECT_EQ(gd_memory_held(), 600);  // the refused charge left nothing
  EXPECT_EQ(used, 600);
  EXPECT_EQ(gd_memory_charge(400, "b", &err), GD_OK);
  gd_memory_refund(1000);
  EXPECT_EQ(gd_memory_held(), 0);
  EXPECT_EQ(used, 0);
  EXPECT_EQ(mine, 0);
}

// The shared total: what other processes hold counts against it.
TEST(MemoryLedger, SharedTotal) {
  int64_t used = 5000;  // held by other sessions
  int64_t mine = 0;
  Limits limits(0, 6000, &used, &mine);
  gd_error err{};
  EXPECT_EQ(gd_memory_charge(900, "a", &err), GD_OK);
  EXPECT_EQ(gd_memory_charge(200, "b", &err), GD_ERR_NOMEM);
  EXPECT_NE(std::string(err.message).find("gpu_dbscan.max_total_memory"), std::string::npos)
      << err.message;
  EXPECT_EQ(used, 5900);
  gd_memory_refund(900);
  EXPECT_EQ(used, 5000);
  EXPECT_EQ(mine, 0);
}

// A clustering is charged while it runs and refunds everything after; a
// limit below what it needs makes it fail cleanly, with nothing left charged.
TEST(MemoryLedger, ClusteringWithinAndPastTheLimit) {
  Rows r = gd_test::uniform_rows(200000, 0, 100, 41);
  int64_t used = 0, mine = 0;
  {
    Limits none(0, 0, &used, &mine);
    gd_test::RunResult ok = gd_test::cluster(r, 0.5, 4);
    EXPECT_EQ(ok.status, GD_OK) << ok.err.message;
    EXPECT_EQ(gd_memory_held(), 0);
    EXPECT_EQ(used, 0);
  }
  {
    Limits tight(1 << 20, 0, &used, &mine);
    gd_test::RunResult bad = gd_test::cluster(r, 0.5, 4);
    EXPECT_EQ(bad.status, GD_ERR_NOMEM);
    EXPECT_NE(std::string(bad.err.message).find("gpu_dbscan.max_query_memory"), std::string::npos)
        << bad.err.message;
    EXPECT_EQ(gd_memory_held(), 0);
    EXPECT_EQ(used, 0);
  }
}

// Pair lists stay charged until gd_pair_list_free; a list past the limit is refused.
TEST(MemoryLedger, PairListsAreCharged) {
  std::vector<gd_box> boxes;
  for (int i = 0; i < 2000; ++i) boxes.push_back({i * 0.001, 0, i * 0.001 + 3, 1});
  std::vector<uint8_t> kinds(boxes.size(), GD_ROW_OTHER);
  int64_t used = 0, mine = 0;
  gd_pair_list list;
  gd_error err{};
  {
    Limits some(64 << 20, 0, &used, &mine);
    ASSERT_EQ(gd_candidate_pairs(boxes.data(), kinds.data(), 2000, 0.1, nullptr, &list, &err), GD_OK)
        << err.message;
    EXPECT_EQ(list.count, 2000 * 1999 / 2);
    EXPECT_GE(gd_memory_held(), list.count * 8);
    gd_pair_list_free(&list);
    EXPECT_EQ(gd_memory_held(), 0);
    EXPECT_EQ(used, 0);
  }
  {
    Limits tight(1 << 20, 0, &used, &mine);  // 2M pairs do not fit in 1 MB
    EXPECT_EQ(gd_candidate_pairs(boxes.data(), kinds.data(), 2000, 0.1, nullptr, &list, &err),
              GD_ERR_NOMEM);
    EXPECT_EQ(list.pairs, nullptr);
    EXPECT_EQ(gd_memory_held(), 0);
  }
}

// A sweep's edges and cells are charged and refunded too.
TEST(MemoryLedger, SweepRefundsEverything) {
  Rows r = gd_test::blob_rows(20000, 6, 100, 2, 42);
  int64_t used = 0, mine = 0;
  Limits some(256 << 20, 0, &used, &mine);
  gd_params p;
  gd_params_init(&p);
  p.eps = 1;
  std::vector<int64_t> values{2, 5, 9, 30};
  std::vector<int32_t> ids(r.size() * values.size());
  gd_error err{};
  ASSERT_EQ(gd_cluster_points_sweep(r.x.data(), r.y.data(), r.kinds.data(),
                                    static_cast<int64_t>(r.size()), &p, values.data(), 4,
                                    ids.data(), nullptr, &err),
            GD_OK)
      << err.message;
  EXPECT_EQ(gd_memory_held(), 0);
  EXPECT_EQ(used, 0);
}

}  // namespace
