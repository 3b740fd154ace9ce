// test_graph.cpp — gd_candidate_pairs and gd_cluster_graph.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <random>
#include <set>
#include <utility>

#include "core_helpers.hpp"
#include "pair_helpers.hpp"

namespace gd_test {
namespace {

TEST(CandidatePairs, MatchBruteForce) {
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    std::vector<gd_box> boxes = random_boxes(1500, seed % 2 ? 100 : 30, 2, seed);
    std::vector<uint8_t> kinds(boxes.size(), GD_ROW_OTHER);
    for (size_t i = 0; i < kinds.size(); i += 7) kinds[i] = GD_ROW_POINT;
    for (size_t i = 3; i < kinds.size(); i += 11) kinds[i] = GD_ROW_EMPTY;
    for (size_t i = 5; i < kinds.size(); i += 13) kinds[i] = GD_ROW_NULL;
    for (double eps : {0.0, 0.5, 3.0}) {
      PairSet want = literal_pairs(boxes, kinds, eps);
      for (int threads : {1, 3}) EXPECT_EQ(candidate_pairs(boxes, kinds, eps, threads), want);
    }
  }
}

TEST(CandidatePairs, InclusiveGapAndSuperset) {
  // Touching and exactly-eps-apart boxes are candidates; the list may hold a
  // pair farther apart only by rounding-level amounts.
  std::vector<gd_box> boxes = {{0, 0, 1, 1}, {1, 0, 2, 1}, {2.5, 0, 3, 1}, {0, 1.5, 1, 2}};
  std::vector<uint8_t> kinds(4, GD_ROW_OTHER);
  PairSet got = candidate_pairs(boxes, kinds, 0.5, 2);
  EXPECT_EQ(got, (PairSet{{0, 1}, {1, 2}, {0, 3}, {1, 3}}));
  PairSet none = candidate_pairs(boxes, kinds, 0.49, 2);
  EXPECT_EQ(none, (PairSet{{0, 1}}));
  std::vector<gd_box> big = random_boxes(800, 1e6, 10, 9);
  std::vector<uint8_t> bk(big.size(), GD_ROW_OTHER);
  PairSet lo = literal_pairs(big, bk, 2e3), hi = literal_pairs(big, bk, 2e3 * (1 + 1e-6) + 1e-3);
  PairSet mid = candidate_pairs(big, bk, 2e3, 2);
  EXPECT_TRUE(std::includes(mid.begin(), mid.end(), lo.begin(), lo.end()));
  EXPECT_TRUE(std::includes(hi.begin(), hi.end(), mid.begin(), mid.end()));
}

TEST(CandidatePairs, TallDataSweepsAlongY) {
  std::vector<gd_box> boxes;
  for (int i = 0; i < 3000; ++i) boxes.push_back({0.0, 0.3 * i, 0.1, 0.3 * i + 0.1});
  std::vector<uint8_t> kinds(boxes.size(), GD_ROW_OTHER);
  int64_t count = 0;
  EXPECT_EQ(candidate_pairs(boxes, kinds, 0.45, 2, &count), literal_pairs(boxes, kinds, 0.45));
  EXPECT_EQ(count, 2999);  // gaps of 0.2 are within 0.45, gaps of 0.5 are not
}

TEST(CandidatePairs, ShapeMixesMatchBruteForce) {
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    std::vector<gd_box> boxes = shape_mix(seed);
    std::vector<uint8_t> kinds(boxes.size(), GD_ROW_OTHER);
    for (size_t i = 4; i < kinds.size(); i += 17) kinds[i] = GD_ROW_EMPTY;
    for (double eps : {0.0, 1.0, 40.0}) {
      PairSet want = literal_pairs(boxes, kinds, eps);
      for (int threads : {1, 3}) EXPECT_EQ(candidate_pairs(boxes, kinds, eps, threads), want);
    }
  }
  // Few boxes (no tree level), and exactly a tree's fan-out and one more.
  for (size_t n : {2, 5, 16, 17, 257}) {
    std::vector<gd_box> boxes = shape_mix(n);
    boxes.resize(std::min(n, boxes.size()));
    std::vector<uint8_t> kinds(boxes.size(), GD_ROW_OTHER);
    EXPECT_EQ(candidate_pairs(boxes, kinds, 5.0, 2), literal_pairs(boxes, kinds, 5.0));
  }
}

// Issue 11: boxes overlapping along one axis and far apart on the other were
// all compared (a sweep along x over lines spanning the whole extent): 200,000
// lines cost 2 * 10^10 box tests.  A box index finds their 0 pairs at once.
TEST(CandidatePairs, ParallelLinesAreNotQuadratic) {
  for (bool horizontal : {true, false}) {
    std::vector<gd_box> boxes;
    for (int i = 0; i < 200000; ++i) {
      const double c = i * 10.0;
      boxes.push_back(horizontal ? gd_box{0, c, 1e7, c} : gd_box{c, 0, c, 1e7});
    }
    std::vector<uint8_t> kinds(boxes.size(), GD_ROW_OTHER);
    const auto t0 = std::chrono::steady_clock::now();
    int64_t count = -1;
    candidate_pairs(boxes, kinds, 1.0, 2, &count);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_EQ(count, 0);
    EXPECT_LT(s, 3.0) << "200,000 parallel lines took " << s << " s";
    // Lines 1 apart: each meets its two neighbours.
    for (auto& b : boxes) {
      if (horizontal) b.ymin = b.ymax = b.ymin / 10;
      else b.xmin = b.xmax = b.xmin / 10;
    }
    candidate_pairs(boxes, kinds, 1.0, 2, &count);
    EXPECT_EQ(count, 199999);
  }
}

TEST(CandidatePairs, EpsInfinityPairsEverything) {
  std::vector<gd_box> boxes = random_boxes(300, 1e9, 1, 10);
  std::vector<uint8_t> kinds(boxes.size(), GD_ROW_OTHER);
  int64_t count = 0;
  candidate_pairs(boxes, kinds, std::numeric_limits<double>::infinity(), 2, &count);
  EXPECT_EQ(count, 300 * 299 / 2);
}

TEST(CandidatePairs, Invalid) {
  std::vector<gd_box> boxes = {{0, 0, 1, 1}, {0, 0, NAN, 1}, {2, 2, 1, 3}};
  std::vector<uint8_t> kinds = {GD_ROW_OTHER, GD_ROW_OTHER, GD_ROW_OTHER};
  gd_pair_list list;
  gd_error err;
  EXPECT_EQ(gd_candidate_pairs(boxes.data(), kinds.data(), 3, 1.0, nullptr, &list, &err),
            GD_ERR_INVALID);
  EXPECT_NE(std::string(err.message).find("row 1"), std::string::npos) << err.message;
  EXPECT_EQ(list.pairs, nullptr);
  kinds[1] = GD_ROW_NULL;  // NULL rows are not read
  EXPECT_EQ(gd_candidate_pairs(boxes.data(), kinds.data(), 3, 1.0, nullptr, &list, &err),
            GD_ERR_INVALID);
  EXPECT_NE(std::string(err.message).find("row 2"), std::string::npos) << err.message;
  kinds[2] = GD_ROW_EMPTY;
  EXPECT_EQ(gd_candidate_pairs(boxes.data(), kinds.data(), 3, 1.0, nullptr, &list, &err), GD_OK);
  EXPECT_EQ(list.count, 0);
  EXPECT_EQ(gd_candidate_pairs(boxes.data(), kinds.data(), 3, NAN, nullptr, &list, &err),
            GD_ERR_INVALID);
  EXPECT_EQ(gd_candidate_pairs(boxes.data(), kinds.data(), 3, -1, nullptr, &list, &err),
            GD_ERR_INVALID);
  EXPECT_EQ(gd_candidate_pairs(boxes.data(), kinds.data(), 3, 1, nullptr, nullptr, &err),
            GD_ERR_INVALID);
  gd_pair_list_free(nullptr);
}

// Edges of point rows within eps, by brute force.
std::vector<gd_pair> point_edges(const Rows& r, double eps) {
  std::vector<gd_pair> edges;
  for (size_t i = 0; i < r.size(); ++i)
    for (size_t j = i + 1; j < r.size(); ++j)
      if (r.kinds[i] == GD_ROW_POINT && r.kinds[j] == GD_ROW_POINT &&
          ref_within(r.x[i], r.y[i], r.x[j], r.y[j], eps))
        edges.push_back({uint32_t(i), uint32_t(j)});
  return edges;
}

std::vector<int32_t> cluster_graph(const std::vector<uint8_t>& kinds,
                                   const std::vector<gd_pair>& edges, int64_t minpoints,
                                   gd_status* status = nullptr) {
  std::vector<int32_t> ids(kinds.size(), -7);
  gd_error err;
  gd_status st = gd_cluster_graph(kinds.data(), static_cast<int64_t>(kinds.size()), edges.data(),
                                  static_cast<int64_t>(edges.size()), minpoints, ids.data(), &err);
  if (status)
    *status = st;
  else
    EXPECT_EQ(st, GD_OK) << err.message;
  return ids;
}

TEST(ClusterGraph, PointsMatchReference) {
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    Rows r = seed % 2 ? blob_rows(1200, 4, 20, 0.7, seed) : uniform_rows(1200, 0, 20, seed);
    if (seed > 2) sprinkle_empty_and_null(r, 9, seed);
    for (double eps : {0.0, 0.4, 1.0}) {
      std::vector<gd_pair> edges = point_edges(r, eps);
      std::mt19937_64 rng(seed);
      std::shuffle(edges.begin(), edges.end(), rng);
      for (size_t k = 0; k < edges.size(); k += 2) std::swap(edges[k].i, edges[k].j);
      for (int64_t m : {0, 1, 2, 4, 9}) {
        std::vector<int32_t> want = reference_dbscan(r.x, r.y, r.kinds, eps, m);
        EXPECT_EQ(cluster_graph(r.kinds, edges, m), want) << "eps " << eps << " minpoints " << m;
        EXPECT_EQ(cluster(r, eps, m).ids, want);
      }
    }
  }
}

TEST(ClusterGraph, CandidatesThenExactTestMatchReference) {
  Rows r = blob_rows(1500, 5, 20, 0.6, 21);
  std::vector<gd_box> boxes(r.size());
  for (size_t i = 0; i < r.size(); ++i) boxes[i] = {r.x[i], r.y[i], r.x[i], r.y[i]};
  gd_pair_list list;
  gd_error err;
  ASSERT_EQ(gd_candidate_pairs(boxes.data(), r.kinds.data(), static_cast<int64_t>(r.size()), 0.5,
                               nullptr, &list, &err),
            GD_OK);
  std::vector<gd_pair> edges;
  for (int64_t k = 0; k < list.count; ++k) {
    gd_pair e = list.pairs[k];
    if (ref_within(r.x[e.i], r.y[e.i], r.x[e.j], r.y[e.j], 0.5)) edges.push_back(e);
  }
  gd_pair_list_free(&list);
  EXPECT_EQ(edges.size(), point_edges(r, 0.5).size());
  for (int64_t m : {0, 3, 6})
    EXPECT_EQ(cluster_graph(r.kinds, edges, m), reference_dbscan(r.x, r.y, r.kinds, 0.5, m));
}

TEST(ClusterGraph, RandomGraphsWithOtherRows) {
  std::mt19937_64 rng(22);
  for (int trial = 0; trial < 30; ++trial) {
    const size_t n = 60;
    std::vector<uint8_t> kinds(n);
    for (auto& k : kinds) {
      uint64_t v = rng() % 10;
      k = v == 0 ? GD_ROW_NULL : v == 1 ? GD_ROW_EMPTY : v < 5 ? GD_ROW_POINT : GD_ROW_OTHER;
    }
    std::vector<std::vector<bool>> nb(n, std::vector<bool>(n, false));
    std::vector<gd_pair> edges;
    for (size_t i = 0; i < n; ++i)
      for (size_t j = i + 1; j < n; ++j)
        if (is_geometry(kinds[i]) && is_geometry(kinds[j]) && rng() % 12 == 0) {
          nb[i][j] = nb[j][i] = true;
          edges.push_back({uint32_t(j), uint32_t(i)});
        }
    for (int64_t m : {0, 1, 2, 3, 4, 6})
      EXPECT_EQ(cluster_graph(kinds, edges, m), reference_graph_dbscan(kinds, nb, m))
          << "trial " << trial << " minpoints " << m;
  }
}

std::vector<int32_t> cluster_graph_directed(const std::vector<uint8_t>& kinds,
                                            const std::vector<gd_pair>& edges,
                                            const std::vector<uint8_t>& dirs, int64_t minpoints,
                                            gd_status* status = nullptr) {
  std::vector<int32_t> ids(kinds.size(), -7);
  gd_error err;
  gd_status st = gd_cluster_graph_directed(kinds.data(), static_cast<int64_t>(kinds.size()),
                                           edges.data(), dirs.data(),
                                           static_cast<int64_t>(edges.size()), minpoints,
                                           ids.data(), nullptr, &err);
  if (status)
    *status = st;
  else
    EXPECT_EQ(st, GD_OK) << err.message;
  return ids;
}

// Random directed graphs (mostly two-way edges, some one-way, ends in either
// order) against PostGIS's loop over the same relation; the typed and sweep
// variants give the same ids.
TEST(ClusterGraphDirected, RandomGraphsMatchPostgisLoop) {
  std::mt19937_64 rng(23);
  for (int trial = 0; trial < 300; ++trial) {
    const size_t n = 2 + rng() % 40;
    std::vector<uint8_t> kinds(n);
    for (auto& k : kinds) {
      uint64_t v = rng() % 10;
      k = v == 0 ? GD_ROW_NULL : v == 1 ? GD_ROW_EMPTY : v < 5 ? GD_ROW_POINT : GD_ROW_OTHER;
    }
    const uint64_t density = 2 + rng() % 8, one_way = 1 + rng() % 3;
    std::vector<std::vector<bool>> sees(n, std::vector<bool>(n, false));
    std::vector<gd_pair> edges;
    std::vector<uint8_t> dirs;
    for (size_t i = 0; i < n; ++i)
      for (size_t j = i + 1; j < n; ++j) {
        if (!is_geometry(kinds[i]) || !is_geometry(kinds[j]) || rng() % density != 0) continue;
        uint8_t d = rng() % one_way == 0 ? uint8_t(1 + rng() % 2) : uint8_t(GD_EDGE_BOTH);
        sees[i][j] = d & GD_EDGE_I_SEES_J;
        sees[j][i] = d & GD_EDGE_J_SEES_I;
        if (rng() % 2) {
          edges.push_back({uint32_t(i), uint32_t(j)});
          dirs.push_back(d);
        } else {  // the same edge from the other end
          edges.push_back({uint32_t(j), uint32_t(i)});
          dirs.push_back(uint8_t((d & 1) << 1 | (d >> 1)));
        }
      }
    std::vector<int64_t> ms = {0, 1, 2, 3, 4, 6};
    std::vector<int32_t> all(ms.size() * n, -7);
    gd_error err;
    ASSERT_EQ(gd_cluster_graph_directed_sweep(kinds.data(), int64_t(n), edges.data(), dirs.data(),
                                              int64_t(edges.size()), ms.data(), int64_t(ms.size()),
                                              all.data(), &err),
              GD_OK)
        << err.message;
    for (size_t k = 0; k < ms.size(); ++k) {
      std::vector<int32_t> want = postgis_order_graph_dbscan(kinds, sees, ms[k]);
      EXPECT_EQ(cluster_graph_directed(kinds, edges, dirs, ms[k]), want)
          << "trial " << trial << " minpoints " << ms[k];
      EXPECT_EQ(std::vector<int32_t>(all.begin() + k * n, all.begin() + (k + 1) * n), want)
          << "sweep, trial " << trial << " minpoints " << ms[k];
    }
  }
}

// Two-way edges only: the directed entry point is gd_cluster_graph, and
// PostGIS's loop agrees with the symmetric reference.
TEST(ClusterGraphDirected, BothWaysIsTheSymmetricGraph) {
  std::mt19937_64 rng(24);
  for (int trial = 0; trial < 30; ++trial) {
    const size_t n = 50;
    std::vector<uint8_t> kinds(n);
    for (auto& k : kinds) k = rng() % 8 == 0 ? GD_ROW_EMPTY : GD_ROW_OTHER;
    std::vector<std::vector<bool>> nb(n, std::vector<bool>(n, false));
    std::vector<gd_pair> edges;
    for (size_t i = 0; i < n; ++i)
      for (size_t j = i + 1; j < n; ++j)
        if (kinds[i] == GD_ROW_OTHER && kinds[j] == GD_ROW_OTHER && rng() % 10 == 0) {
          nb[i][j] = nb[j][i] = true;
          edges.push_back({uint32_t(i), uint32_t(j)});
        }
    std::vector<uint8_t> both(edges.size(), GD_EDGE_BOTH);
    for (int64_t m : {0, 2, 3, 5}) {
      std::vector<int32_t> want = reference_graph_dbscan(kinds, nb, m);
      EXPECT_EQ(postgis_order_graph_dbscan(kinds, nb, m), want);
      EXPECT_EQ(cluster_graph_directed(kinds, edges, both, m), want);
      EXPECT_EQ(cluster_graph(kinds, edges, m), want);
    }
  }
}

// Small one-way cases worked out by hand from PostGIS's loop.
TEST(ClusterGraphDirected, OneWayPairs) {
  std::vector<uint8_t> kinds(3, GD_ROW_OTHER);
  // 0 sees 1 only, 1 and 2 see each other; minpoints 2: all core.
  // 0 and 1 are joined only through 1's first claimer, 0 itself.
  EXPECT_EQ(cluster_graph_directed(kinds, {{0, 1}, {1, 2}}, {GD_EDGE_I_SEES_J, GD_EDGE_BOTH}, 2),
            (std::vector<int32_t>{0, 0, 0}));
  // 1 sees 0 only: 0 sees nothing and is no core; 1 (core: it sees 0)
  // claims it.
  EXPECT_EQ(cluster_graph_directed(kinds, {{0, 1}}, {GD_EDGE_J_SEES_I}, 2),
            (std::vector<int32_t>{0, 0, -1}));
  // 0 sees 1 only: 0 is core and claims 1; 1 is no core.
  EXPECT_EQ(cluster_graph_directed(kinds, {{1, 0}}, {GD_EDGE_J_SEES_I}, 2),
            (std::vector<int32_t>{0, 0, -1}));
  // minpoints 3, 0 sees 1 and 2; 1 and 2 see each other, 2 sees 0 too:
  // cores 0 (3) and 2 (3); 1 sees 2 only (2): border, first claimer 0.
  EXPECT_EQ(cluster_graph_directed(kinds, {{0, 1}, {0, 2}, {1, 2}},
                                   {GD_EDGE_I_SEES_J, GD_EDGE_BOTH, GD_EDGE_BOTH}, 3),
            (std::vector<int32_t>{0, 0, 0}));
  // Only the earlier core 0 sees the later core 2, which 0 claims first;
  // checked against PostGIS's loop.
  std::vector<uint8_t> four(4, GD_ROW_OTHER);
  std::vector<gd_pair> e = {{0, 2}, {1, 2}, {1, 3}, {2, 3}};
  std::vector<uint8_t> d = {GD_EDGE_I_SEES_J, GD_EDGE_BOTH, GD_EDGE_BOTH, GD_EDGE_BOTH};
  std::vector<std::vector<bool>> sees(4, std::vector<bool>(4, false));
  for (size_t k = 0; k < e.size(); ++k) {
    sees[e[k].i][e[k].j] = d[k] & GD_EDGE_I_SEES_J;
    sees[e[k].j][e[k].i] = d[k] & GD_EDGE_J_SEES_I;
  }
  for (int64_t m : {1, 2, 3})
    EXPECT_EQ(cluster_graph_directed(four, e, d, m), postgis_order_graph_dbscan(four, sees, m))
        << "minpoints " << m;
  // Invalid directions.
  gd_status st;
  cluster_graph_directed(kinds, {{0, 1}}, {0}, 2, &st);
  EXPECT_EQ(st, GD_ERR_INVALID);
  cluster_graph_directed(kinds, {{0, 1}}, {4}, 2, &st);
  EXPECT_EQ(st, GD_ERR_INVALID);
}

TEST(ClusterGraph, Invalid) {
  std::vector<uint8_t> kinds = {GD_ROW_OTHER, GD_ROW_EMPTY, GD_ROW_POINT, GD_ROW_NULL};
  gd_status st;
  cluster_graph(kinds, {{0, 1}}, 2, &st);  // EMPTY row in an edge
  EXPECT_EQ(st, GD_ERR_INVALID);
  cluster_graph(kinds, {{2, 2}}, 2, &st);  // self pair
  EXPECT_EQ(st, GD_ERR_INVALID);
  cluster_graph(kinds, {{0, 9}}, 2, &st);  // out of range
  EXPECT_EQ(st, GD_ERR_INVALID);
  cluster_graph(kinds, {{0, 2}}, -1, &st);
  EXPECT_EQ(st, GD_ERR_INVALID);
  std::vector<uint8_t> bad = {GD_ROW_OTHER, 9};
  cluster_graph(bad, {}, 0, &st);
  EXPECT_EQ(st, GD_ERR_INVALID);
  EXPECT_EQ(cluster_graph(kinds, {{0, 2}}, 0), (std::vector<int32_t>{0, 1, 0, -1}));
  EXPECT_EQ(cluster_graph(kinds, {{0, 2}}, 4), (std::vector<int32_t>{-1, -1, -1, -1}));
  // No rule about nrows versus minpoints: three mutual neighbours, minpoints 3.
  std::vector<uint8_t> three(3, GD_ROW_OTHER);
  EXPECT_EQ(cluster_graph(three, {{0, 1}, {1, 2}, {0, 2}}, 3), (std::vector<int32_t>{0, 0, 0}));
  EXPECT_EQ(cluster_graph(three, {{0, 1}, {1, 2}, {0, 2}}, 4), (std::vector<int32_t>{-1, -1, -1}));
  EXPECT_EQ(cluster_graph(kinds, {{0, 2}}, 2), (std::vector<int32_t>{0, -1, 0, -1}));
}

}  // namespace
}  // namespace gd_test
