// test_large_pairs.cpp — pair lists and neighbour counts past 32 bits
// (issue 5): the offsets of a pair list are 64-bit, a list that would not
// fit in memory is refused with a clean GD_ERR_NOMEM before it is
// allocated, and a partition whose every point is within eps of every
// other one gets the counts its construction fixes.
//
// The runs that really cross 2^31 pairs need about 17 GB and a minute:
// they are the BigPairs suite, skipped unless GD_BIG_TESTS=1 (see
// test/reliability/big_pairs.sh and README.md, Reliability).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

#include "core_helpers.hpp"
#include "graph.hpp"
#include "nd_points.hpp"
#include "pair_collect.hpp"

namespace gd_test {
namespace {

constexpr int64_t k2p31 = int64_t{1} << 31;

gd_params cpu_params(double eps, int64_t minpoints) {
  gd_params p;
  gd_params_init(&p);
  p.eps = eps;
  p.minpoints = minpoints;
  return p;
}

// n copies of one box: every pair is a candidate.
std::vector<gd_box> same_boxes(size_t n) { return std::vector<gd_box>(n, gd_box{0, 0, 1, 1}); }

// n points on a golden-angle spiral filling a disk of radius 0.49 around
// (cx, cy): every pair is at most 0.98 apart, so within eps = 1 with a margin
// far beyond rounding, and the points spread over several grid cells (the
// cell side is about eps / sqrt(2)), so no cell holds them all.
void spiral_disk(size_t n, double cx, double cy, std::vector<double>& x, std::vector<double>& y) {
  const double golden = M_PI * (3 - std::sqrt(5.0));
  for (size_t i = 0; i < n; ++i) {
    const double r = 0.49 * std::sqrt((i + 0.5) / n), t = golden * i;
    x.push_back(cx + r * std::cos(t));
    y.push_back(cy + r * std::sin(t));
  }
}


TEST(PairOffsets, SumPast32Bits) {
  // Three blocks of 2^31 pairs and a small one: offsets 0, 2^31, 2^32,
  // 3 * 2^31 + 5, total 3 * 2^31 + 12.  Nothing is allocated.
  const std::vector<int64_t> counts = {k2p31, k2p31, k2p31 + 5, 7};
  const std::vector<int64_t> off =
      gd::pair_offsets(counts, std::numeric_limits<int64_t>::max(), "pairs");
  ASSERT_EQ(off.size(), 5u);
  EXPECT_EQ(off[0], 0);
  EXPECT_EQ(off[1], k2p31);
  EXPECT_EQ(off[2], 2 * k2p31);
  EXPECT_EQ(off[3], 3 * k2p31 + 5);
  EXPECT_EQ(off[4], 3 * k2p31 + 12);
}

TEST(PairOffsets, OverTheLimitIsNoMemory) {
  const std::vector<int64_t> counts = {k2p31, k2p31, 1};
  try {
    gd::pair_offsets(counts, 2 * k2p31, "candidate pairs");
    FAIL() << "no error past the limit";
  } catch (const gd::Error& e) {
    EXPECT_EQ(e.status(), GD_ERR_NOMEM);
    EXPECT_NE(std::string(e.what()).find("too many candidate pairs"), std::string::npos) << e.what();
  }
  // Exactly at the limit is fine.
  EXPECT_EQ(gd::pair_offsets(counts, 2 * k2p31 + 1, "pairs").back(), 2 * k2p31 + 1);
}

TEST(PairOffsets, DefaultLimitIsHalfTheMemory) {
  const int64_t most = gd::default_max_pairs();
  EXPECT_GT(most, 1000000);  // any machine that runs the tests has more than 18 MB
  EXPECT_LE(most, std::numeric_limits<int64_t>::max() / gd::kPairBytes);
}

// gd::candidate_pairs with a pair limit: the list or a clean error.
TEST(CandidatePairs, PairLimitIsACleanError) {
  const size_t n = 1000;  // 499,500 pairs
  const int64_t all = static_cast<int64_t>(n * (n - 1) / 2);
  std::vector<gd_box> boxes = same_boxes(n);
  std::vector<uint8_t> kinds(n, GD_ROW_OTHER);
  gd_params p;
  gd_params_init(&p);
  p.threads = 2;
  p.min_items_per_thread = 1;  // several threads even on small inputs
  gd::CancelToken cancel(p);
  gd_pair_list list{nullptr, 0};
  try {
    gd::candidate_pairs(boxes.data(), kinds.data(), n, 0.5, p, cancel, &list, all - 1);
    FAIL() << "no error one pair past the limit";
  } catch (const gd::Error& e) {
    EXPECT_EQ(e.status(), GD_ERR_NOMEM);
    EXPECT_NE(std::string(e.what()).find("too many candidate pairs"), std::string::npos) << e.what();
  }
  EXPECT_EQ(list.pairs, nullptr);
  EXPECT_EQ(list.count, 0);

  gd::candidate_pairs(boxes.data(), kinds.data(), n, 0.5, p, cancel, &list, all);
  ASSERT_EQ(list.count, all);
  // Every pair once: pair (i, j) is at index j (j - 1) / 2 + i of a triangle.
  std::vector<uint8_t> seen(static_cast<size_t>(all), 0);
  for (int64_t k = 0; k < list.count; ++k) {
    const gd_pair q = list.pairs[k];
    ASSERT_LT(q.i, q.j);
    ASSERT_LT(q.j, n);
    ++seen[static_cast<size_t>(q.j) * (q.j - 1) / 2 + q.i];
  }
  for (int64_t k = 0; k < all; ++k) ASSERT_EQ(seen[k], 1) << "pair slot " << k;
  gd_pair_list_free(&list);
}

TEST(NeighbourPairsNd, PairLimitIsACleanError) {
  const uint32_t n = 800;  // 319,600 pairs: at most sqrt(0.98^2 + 0.1^2) < 1 apart
  const int64_t all = int64_t{n} * (n - 1) / 2;
  std::vector<double> x, y;
  spiral_disk(n, 10, -20, x, y);
  std::vector<double> coords;
  std::vector<uint32_t> row_of(n);
  for (uint32_t i = 0; i < n; ++i) {
    coords.insert(coords.end(), {x[i], y[i], 0.1 * (i % 2)});
    row_of[i] = 2 * i;  // rows of another partition layout: pairs name rows
  }
  gd_params p;
  gd_params_init(&p);
  p.threads = 2;
  p.min_items_per_thread = 1;  // several threads even on small inputs
  gd::CancelToken cancel(p);
  gd_pair_list list{nullptr, 0};
  const gd::NdPointsView view{coords.data(), 3, n};
  EXPECT_THROW(gd::nd_neighbour_pairs(view, row_of.data(), 1.0, p, cancel, &list, all - 1),
               gd::Error);
  EXPECT_EQ(list.pairs, nullptr);
  gd::nd_neighbour_pairs(view, row_of.data(), 1.0, p, cancel, &list, all);
  ASSERT_EQ(list.count, all);
  for (int64_t k = 0; k < list.count; ++k) {
    ASSERT_LT(list.pairs[k].i, list.pairs[k].j);
    ASSERT_EQ(list.pairs[k].i % 2, 0u);
  }
  gd_pair_list_free(&list);
}

// Through the C API: past the default limit (half the physical memory) the
// answer is GD_ERR_NOMEM, found by counting alone; skipped where the limit
// needs more than about 5e9 pair tests (a machine with over ~90 GB).
TEST(CandidatePairs, PastTheMemoryLimitThroughTheApi) {
  const int64_t most = gd::default_max_pairs();
  const double n_min = std::ceil(std::sqrt(2.0 * static_cast<double>(most))) + 2;
  if (n_min * n_min / 2 > 5e9) GTEST_SKIP() << "the limit (" << most << " pairs) takes too long";
  const size_t n = static_cast<size_t>(n_min);
  ASSERT_GT(static_cast<double>(n) * (n - 1) / 2, static_cast<double>(most));
  std::vector<gd_box> boxes = same_boxes(n);
  std::vector<uint8_t> kinds(n, GD_ROW_OTHER);
  gd_params p;
  gd_params_init(&p);
  gd_pair_list list;
  gd_error err;
  EXPECT_EQ(gd_candidate_pairs(boxes.data(), kinds.data(), static_cast<int64_t>(n), 0.5, &p, &list,
                               &err),
            GD_ERR_NOMEM);
  EXPECT_NE(std::string(err.message).find("too many candidate pairs"), std::string::npos)
      << err.message;
  EXPECT_EQ(list.pairs, nullptr);
  EXPECT_EQ(list.count, 0);
}

// Every point within eps of every other, over several cells, plus one far
// point: with minpoints = the disk's n each disk point is core with a count
// of exactly n (one cluster; the far point is noise), with n + 1 nothing is
// core.  CI-sized; test/pgtap/84_large_partitions.sql runs 70,000 points
// (4.9e9 ordered pairs) through SQL.
TEST(LargePartitions, AllWithinEpsCountsExactly) {
  const size_t n = 6000;
  std::vector<double> x, y;
  spiral_disk(n, 1e3, 2e3, x, y);
  x.push_back(1e3 + 100);
  y.push_back(2e3);
  std::vector<uint8_t> kinds(n + 1, GD_ROW_POINT);
  for (int64_t minpoints : {int64_t(n), int64_t(n) + 1}) {
    for (int threads : {1, 2}) {
      gd_params p = cpu_params(1.0, minpoints);
      p.threads = threads;
      p.min_items_per_thread = 1;  // several threads even on small inputs
      std::vector<int32_t> ids(n + 1, -7);
      std::vector<uint8_t> types(n + 1, 9);
      gd_error err;
      gd_run_stats st;
      ASSERT_EQ(gd_cluster_points_typed(x.data(), y.data(), kinds.data(), n + 1, &p, ids.data(),
                                        types.data(), &st, &err),
                GD_OK)
          << err.message;
      EXPECT_GT(st.cells, 1) << "the disk should span several cells";
      const bool core = minpoints == int64_t(n);
      for (size_t i = 0; i < n; ++i) {
        ASSERT_EQ(ids[i], core ? 0 : GD_NOISE) << "row " << i << " minpoints " << minpoints;
        ASSERT_EQ(types[i], core ? GD_POINT_CORE : GD_POINT_NOISE) << "row " << i;
      }
      EXPECT_EQ(ids[n], GD_NOISE);
      EXPECT_EQ(types[n], GD_POINT_NOISE);
    }
  }
}

// The same through the sweep, with minpoints values around the count and
// past 32 bits (a value read as 32 bits would be 1 or n).
TEST(LargePartitions, SweepAroundTheCount) {
  const size_t n = 3000;
  std::vector<double> x, y;
  spiral_disk(n, -5, 7, x, y);
  x.push_back(50);
  y.push_back(50);
  std::vector<uint8_t> kinds(n + 1, GD_ROW_POINT);
  const std::vector<int64_t> values = {int64_t(n) + 1, int64_t(n), (int64_t{1} << 32) + 1,
                                       (int64_t{1} << 32) + int64_t(n), INT32_MAX, 2};
  gd_params p = cpu_params(1.0, 0);
  std::vector<int32_t> ids(values.size() * (n + 1), -7);
  gd_error err;
  ASSERT_EQ(gd_cluster_points_sweep(x.data(), y.data(), kinds.data(), n + 1, &p, values.data(),
                                    values.size(), ids.data(), nullptr, &err),
            GD_OK)
      << err.message;
  for (size_t k = 0; k < values.size(); ++k) {
    const bool core = values[k] <= int64_t(n);
    for (size_t i = 0; i < n; ++i)
      ASSERT_EQ(ids[k * (n + 1) + i], core ? 0 : GD_NOISE) << "minpoints " << values[k];
    EXPECT_EQ(ids[k * (n + 1) + n], GD_NOISE) << "minpoints " << values[k];
  }
}

// ---- past 2^31 pairs for real (GD_BIG_TESTS=1; about 17 GB) ----

bool big_tests() {
  const char* v = std::getenv("GD_BIG_TESTS");
  return v && std::string(v) == "1";
}

// 65,537 copies of one box: 65,537 * 65,536 / 2 = 2,147,516,416 pairs, just
// past 2^31 (16 GiB of pairs).  Then the graph of all of them: every row has
// 65,537 neighbours (itself included), so minpoints 65,537 makes one
// cluster and 65,538 makes only noise.
TEST(BigPairs, CandidatePairsAndGraphPast2To31) {
  if (!big_tests()) GTEST_SKIP() << "set GD_BIG_TESTS=1 (needs about 17 GB)";
  const uint32_t n = 65537;
  const int64_t all = int64_t{n} * (n - 1) / 2;
  ASSERT_GT(all, k2p31);
  std::vector<gd_box> boxes = same_boxes(n);
  std::vector<uint8_t> kinds(n, GD_ROW_OTHER);
  gd_params p;
  gd_params_init(&p);
  gd::CancelToken cancel(p);
  gd_pair_list list{nullptr, 0};
  gd::candidate_pairs(boxes.data(), kinds.data(), n, 0.5, p, cancel, &list,
                      std::numeric_limits<int64_t>::max());
  ASSERT_EQ(list.count, all);
  // Each row j is the larger end of exactly j pairs: a 64-bit histogram.
  {
    std::vector<int64_t> larger(n, 0), smaller(n, 0);
    for (int64_t k = 0; k < list.count; ++k) {
      ASSERT_LT(list.pairs[k].i, list.pairs[k].j);
      ++larger[list.pairs[k].j];
      ++smaller[list.pairs[k].i];
    }
    for (uint32_t r = 0; r < n; ++r) {
      ASSERT_EQ(larger[r], r);
      ASSERT_EQ(smaller[r], n - 1 - r);
    }
  }
  std::vector<int32_t> ids(n);
  gd_error err;
  ASSERT_EQ(gd_cluster_graph(kinds.data(), n, list.pairs, list.count, n, ids.data(), &err), GD_OK)
      << err.message;
  for (uint32_t r = 0; r < n; ++r) ASSERT_EQ(ids[r], 0) << "row " << r;
  ASSERT_EQ(gd_cluster_graph(kinds.data(), n, list.pairs, list.count, int64_t{n} + 1, ids.data(),
                             &err),
            GD_OK)
      << err.message;
  for (uint32_t r = 0; r < n; ++r) ASSERT_EQ(ids[r], GD_NOISE) << "row " << r;
  gd_pair_list_free(&list);
}

}  // namespace
}  // namespace gd_test
