// test_gpu_pairs.cpp — the pair searches on the GPU: gd_candidate_pairs
// (boxes, cuda/box_pairs.cu) and gd_neighbour_pairs_nd (n-D points, the
// geography path's chords; cuda/nd_dbscan.cu) with GD_BACKEND_GPU give the
// CPU's pairs exactly (the literal definition on small sets), in one run of
// the write pass or (boxes) in many under a small device budget, with the
// pair limit's clean error.  Skipped where no GPU is usable.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <utility>
#include <vector>

#include "graph.hpp"
#include "nd_helpers.hpp"
#include "nd_points.hpp"
#include "pair_helpers.hpp"
#include "test_gpu_helpers.hpp"

namespace gd_test {
namespace {

using namespace nd;

std::vector<uint8_t> mixed_kinds(size_t n) {
  std::vector<uint8_t> kinds(n, GD_ROW_OTHER);
  for (size_t i = 0; i < n; i += 7) kinds[i] = GD_ROW_POINT;
  for (size_t i = 3; i < n; i += 11) kinds[i] = GD_ROW_EMPTY;
  for (size_t i = 5; i < n; i += 13) kinds[i] = GD_ROW_NULL;
  return kinds;
}

TEST(GpuPairs, CandidatePairsMatchTheDefinition) {
  GD_REQUIRE_GPU();
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    std::vector<gd_box> boxes = random_boxes(1500, seed % 2 ? 100 : 30, 2, seed);
    std::vector<uint8_t> kinds = mixed_kinds(boxes.size());
    for (double eps : {0.0, 0.5, 3.0})
      EXPECT_EQ(candidate_pairs(boxes, kinds, eps, 0, nullptr, GD_BACKEND_GPU),
                literal_pairs(boxes, kinds, eps))
          << "seed " << seed << " eps " << eps;
  }
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    std::vector<gd_box> boxes = shape_mix(seed);
    std::vector<uint8_t> kinds(boxes.size(), GD_ROW_OTHER);
    for (double eps : {0.0, 1.0, 40.0})
      EXPECT_EQ(candidate_pairs(boxes, kinds, eps, 0, nullptr, GD_BACKEND_GPU),
                literal_pairs(boxes, kinds, eps));
  }
  // no tree level, one level of roots, two levels
  for (size_t n : {2, 5, 16, 17, 257, 4097}) {
    std::vector<gd_box> boxes = random_boxes(n, 50, 1, n);
    std::vector<uint8_t> kinds(boxes.size(), GD_ROW_OTHER);
    EXPECT_EQ(candidate_pairs(boxes, kinds, 1.0, 0, nullptr, GD_BACKEND_GPU),
              literal_pairs(boxes, kinds, 1.0))
        << n << " boxes";
  }
}

// Larger sets against the CPU's list: many tree levels, eps infinite (every
// pair), and a budget small enough that the write pass takes many runs.
TEST(GpuPairs, CandidatePairsMatchTheCpu) {
  GD_REQUIRE_GPU();
  std::vector<gd_box> boxes = random_boxes(200000, 2000, 3, 41);
  std::vector<uint8_t> kinds = mixed_kinds(boxes.size());
  for (double eps : {0.0, 1.0, 4.0}) {
    int64_t gpu_count = 0, cpu_count = 0;
    PairSet cpu = candidate_pairs(boxes, kinds, eps, 0, &cpu_count);
    EXPECT_EQ(candidate_pairs(boxes, kinds, eps, 0, &gpu_count, GD_BACKEND_GPU), cpu)
        << "eps " << eps;
    EXPECT_EQ(gpu_count, cpu_count);
    if (eps == 4.0) {
      EXPECT_GT(cpu_count, 300000);
      // 20,000 boxes' arrays take about 1.5 MB: the runs hold ~30,000 pairs
      std::vector<gd_box> few(boxes.begin(), boxes.begin() + 20000);
      std::vector<uint8_t> fk(kinds.begin(), kinds.begin() + 20000);
      EXPECT_EQ(candidate_pairs(few, fk, 40.0, 0, nullptr, GD_BACKEND_GPU, 2u << 20),
                candidate_pairs(few, fk, 40.0, 0));
    }
  }
  std::vector<gd_box> few(boxes.begin(), boxes.begin() + 3000);
  std::vector<uint8_t> fk(3000, GD_ROW_OTHER);
  int64_t all = 0;
  candidate_pairs(few, fk, INFINITY, 0, &all, GD_BACKEND_GPU);
  EXPECT_EQ(all, 3000LL * 2999 / 2);
  // 200,000 parallel lines: no pair, found without comparing them all
  std::vector<gd_box> lines;
  for (int i = 0; i < 200000; ++i) lines.push_back({0.0, 3.0 * i, 1e6, 3.0 * i});
  std::vector<uint8_t> lk(lines.size(), GD_ROW_OTHER);
  EXPECT_TRUE(candidate_pairs(lines, lk, 1.0, 0, nullptr, GD_BACKEND_GPU).empty());
}

TEST(GpuPairs, CandidatePairLimitIsACleanError) {
  GD_REQUIRE_GPU();
  std::vector<gd_box> boxes = random_boxes(2000, 10, 1, 5);
  std::vector<uint8_t> kinds(boxes.size(), GD_ROW_OTHER);
  int64_t all = 0;
  candidate_pairs(boxes, kinds, 1.0, 0, &all);
  ASSERT_GT(all, 10000);
  gd_params p;
  gd_params_init(&p);
  p.backend = GD_BACKEND_GPU;
  gd::CancelToken cancel(p);
  gd_pair_list list{nullptr, 0, 0};
  try {
    gd::candidate_pairs(boxes.data(), kinds.data(), 2000, 1.0, p, cancel, &list, all - 1);
    ADD_FAILURE() << "no error past the limit";
  } catch (const gd::Error& e) {
    EXPECT_EQ(e.status(), GD_ERR_NOMEM) << e.what();
  }
  EXPECT_EQ(list.pairs, nullptr);
  gd::candidate_pairs(boxes.data(), kinds.data(), 2000, 1.0, p, cancel, &list, all);
  EXPECT_EQ(list.count, all);
  gd_pair_list_free(&list);
}

// gd_neighbour_pairs_nd_band's list (inner < 0: gd_neighbour_pairs_nd's),
// sorted, checked for order.
std::vector<std::pair<uint32_t, uint32_t>> nd_pairs(const NdRows& r, double eps,
                                                    gd_backend backend, size_t budget = 0,
                                                    double inner = -1) {
  gd_params p = test_params(eps, 0, backend, 0, budget);
  gd_pair_list list;
  gd_error err;
  std::vector<std::pair<uint32_t, uint32_t>> out;
  EXPECT_EQ(gd_neighbour_pairs_nd_band(r.coords.data(), r.dims, r.kinds.data(),
                                       static_cast<int64_t>(r.size()), inner, eps, &p, &list,
                                       &err),
            GD_OK)
      << err.message;
  for (int64_t k = 0; k < list.count; ++k) {
    EXPECT_LT(list.pairs[k].i, list.pairs[k].j);
    out.emplace_back(list.pairs[k].i, list.pairs[k].j);
  }
  gd_pair_list_free(&list);
  std::sort(out.begin(), out.end());
  EXPECT_EQ(std::adjacent_find(out.begin(), out.end()), out.end()) << "a pair listed twice";
  return out;
}

// Points on the unit sphere (the geography path's), in clumps and spread.
NdRows sphere(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> g(0, 1), near(0, 0.002);
  NdRows r;
  r.dims = 3;
  for (size_t i = 0; i < n; ++i) {
    double v[3] = {g(rng), g(rng), g(rng)};
    if (i % 3 != 0 && i > 0) {  // near an earlier point
      const double* q = r.at(rng() % i);
      for (int k = 0; k < 3; ++k) v[k] = q[k] + near(rng);
    }
    const double len = std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    for (double& c : v) c /= len;
    r.coords.insert(r.coords.end(), v, v + 3);
    r.kinds.push_back(i % 17 == 4 ? GD_ROW_NULL : i % 23 == 6 ? GD_ROW_EMPTY : GD_ROW_POINT);
  }
  return r;
}

TEST(GpuPairs, NeighbourPairsNdMatchTheDefinitionAndTheCpu) {
  GD_REQUIRE_GPU();
  for (int dims : {3, 5}) {
    NdRows r = blobs(dims, 900, 4, 20, 1.0, 40 + dims);
    r.kinds[7] = GD_ROW_NULL;
    r.kinds[11] = GD_ROW_EMPTY;
    for (double eps : {0.0, 0.5, 1.5}) {
      std::vector<std::pair<uint32_t, uint32_t>> want;
      const std::vector<std::vector<bool>> nb = ref_neighbours(r, eps);
      for (size_t i = 0; i < r.size(); ++i)
        for (size_t j = i + 1; j < r.size(); ++j)
          if (r.kinds[i] == GD_ROW_POINT && r.kinds[j] == GD_ROW_POINT && nb[i][j])
            want.emplace_back(static_cast<uint32_t>(i), static_cast<uint32_t>(j));
      EXPECT_EQ(nd_pairs(r, eps, GD_BACKEND_GPU), want) << dims << "-D eps " << eps;
    }
  }
  for (size_t n : {2, 3, 100}) {
    NdRows r = sphere(n, n);
    EXPECT_EQ(nd_pairs(r, 0.01, GD_BACKEND_GPU), nd_pairs(r, 0.01, GD_BACKEND_CPU));
  }
  NdRows s = sphere(300000, 7);
  for (double chord : {0.0, 1e-4, 3e-3, 0.02}) {
    const auto cpu = nd_pairs(s, chord, GD_BACKEND_CPU);
    EXPECT_EQ(nd_pairs(s, chord, GD_BACKEND_GPU), cpu) << "chord " << chord;
    if (chord == 3e-3) {
      EXPECT_GT(cpu.size(), 100000u);
    }
  }
  NdRows dense = blobs(4, 50000, 3, 10, 0.3, 9);
  EXPECT_EQ(nd_pairs(dense, 0.2, GD_BACKEND_GPU), nd_pairs(dense, 0.2, GD_BACKEND_CPU));
}

// The band between two chords (the geography path's edge pairs): the
// CPU's pairs, dense cells wholly within the inner chord skipped.
TEST(GpuPairs, NeighbourPairBandsMatchTheCpu) {
  GD_REQUIRE_GPU();
  NdRows s = sphere(200000, 8);
  for (double chord : {1e-4, 3e-3, 0.02})
    for (double inner : {-1.0, 0.0, chord * 0.5, chord * (1 - 1e-9), chord}) {
      const auto cpu = nd_pairs(s, chord, GD_BACKEND_CPU, 0, inner);
      EXPECT_EQ(nd_pairs(s, chord, GD_BACKEND_GPU, 0, inner), cpu)
          << "chord " << chord << " inner " << inner;
      if (inner == chord) {
        EXPECT_TRUE(cpu.empty());
      }
    }
  NdRows dense = blobs(4, 50000, 3, 10, 0.3, 9);
  EXPECT_EQ(nd_pairs(dense, 0.2, GD_BACKEND_GPU, 0, 0.1),
            nd_pairs(dense, 0.2, GD_BACKEND_CPU, 0, 0.1));
}

TEST(GpuPairs, NeighbourPairLimitIsACleanError) {
  GD_REQUIRE_GPU();
  NdRows r = blobs(3, 3000, 2, 5, 0.5, 3);
  std::vector<uint32_t> row_of;
  std::vector<double> pts;
  for (size_t i = 0; i < r.size(); ++i) {
    row_of.push_back(static_cast<uint32_t>(2 * i));  // rows of another layout
    pts.insert(pts.end(), r.at(i), r.at(i) + 3);
  }
  gd_params p;
  gd_params_init(&p);
  p.backend = GD_BACKEND_CPU;
  gd::CancelToken cancel(p);
  const gd::NdPointsView view{pts.data(), 3, static_cast<uint32_t>(r.size())};
  gd_pair_list cpu{nullptr, 0, 0}, list{nullptr, 0, 0};
  gd::nd_neighbour_pairs(view, row_of.data(), 0.5, p, cancel, &cpu);
  ASSERT_GT(cpu.count, 10000);
  p.backend = GD_BACKEND_GPU;
  try {
    gd::nd_neighbour_pairs(view, row_of.data(), 0.5, p, cancel, &list, cpu.count - 1);
    ADD_FAILURE() << "no error past the limit";
  } catch (const gd::Error& e) {
    EXPECT_EQ(e.status(), GD_ERR_NOMEM) << e.what();
  }
  EXPECT_EQ(list.pairs, nullptr);
  gd::nd_neighbour_pairs(view, row_of.data(), 0.5, p, cancel, &list, cpu.count);
  ASSERT_EQ(list.count, cpu.count);
  std::vector<std::pair<uint32_t, uint32_t>> a, b;
  for (int64_t k = 0; k < list.count; ++k) {
    a.emplace_back(list.pairs[k].i, list.pairs[k].j);
    b.emplace_back(cpu.pairs[k].i, cpu.pairs[k].j);
  }
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  EXPECT_EQ(a, b);
  gd_pair_list_free(&list);
  gd_pair_list_free(&cpu);
}

}  // namespace
}  // namespace gd_test
