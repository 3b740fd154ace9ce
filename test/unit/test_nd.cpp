// test_nd.cpp — n-D DBSCAN (gd_cluster_points_nd, gd_neighbour_pairs_nd and
// the CPU stages behind them) against a brute-force reference built from the
// n-D predicate written out again and reference_graph_dbscan.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "gd_core.h"
#include "nd_points.hpp"
#include "parallel.hpp"
#include "nd_helpers.hpp"
#include "reference.hpp"

namespace {

using gd_test::reference_graph_dbscan;
using namespace gd_test::nd;

std::vector<int32_t> run_nd(const NdRows& r, double eps, int64_t minpoints, int threads = 0,
                            gd_backend backend = GD_BACKEND_CPU, gd_run_stats* stats = nullptr) {
  return run_nd_typed(r, eps, minpoints, backend, nullptr, stats, threads);
}

void expect_reference(const NdRows& r, double eps, int64_t minpoints,
                      std::vector<int> thread_counts = {0, 1, 3}) {
  std::vector<int32_t> want = reference_graph_dbscan(r.kinds, ref_neighbours(r, eps), minpoints);
  for (int threads : thread_counts) {
    std::vector<int32_t> got = run_nd(r, eps, minpoints, threads);
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < want.size(); ++i)
      if (got[i] != want[i] && bad++ == 0) first = i;
    ASSERT_EQ(bad, 0u) << r.dims << "-D, " << r.size() << " rows, eps " << eps << " minpoints "
                       << minpoints << " threads " << threads << ": row " << first << " got "
                       << got[first] << " want " << want[first];
  }
}

TEST(Nd, PredicateWithTwoAxesIsTheBoxAndDistanceTest) {
  // |dx| <= eps, |dy| <= eps on the rounded differences, then the 2D path's
  // distance test (the 2D path's own box is PostGIS's rounded query box).
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(-2, 2);
  for (int i = 0; i < 100000; ++i) {
    double p[2] = {u(rng), u(rng)}, q[2] = {u(rng), u(rng)}, eps = std::fabs(u(rng));
    const bool box = std::fabs(q[0] - p[0]) <= eps && std::fabs(q[1] - p[1]) <= eps;
    ASSERT_EQ(gd::within_eps_d<2>(p, q, eps),
              box && gd::within_distance(p[0], p[1], q[0], q[1], eps));
  }
}

TEST(Nd, UniformMatchesReferenceInEveryDimension) {
  for (int dims = 3; dims <= 8; ++dims) {
    NdRows r = uniform(dims, 700, 10, 100 + dims);
    // Typical spacing of 700 points in a 10^d cube.
    const double s = 10 / std::pow(700.0, 1.0 / dims);
    for (double f : {0.3, 0.8, 1.2, 2.0})
      for (int64_t m : {0, 1, 2, 4, 10}) expect_reference(r, s * f, m, {0, 2});
  }
}

TEST(Nd, BlobsMatchReference) {
  for (int dims : {3, 4, 6, 8}) {
    NdRows r = blobs(dims, 1500, 5, 50, 1.0, 200 + dims);
    for (double eps : {0.3, 0.7, 1.5})
      for (int64_t m : {2, 5, 12}) expect_reference(r, eps, m);
  }
}

TEST(Nd, CellsSpreadOverUncutAxesMatchReference) {
  // Crowded cells that are not small: joined by searches inside a cell, then
  // through one set (or pair by pair where a cell stays several sets).
  for (int dims : {4, 6, 8}) {
    NdRows r = spread_over_uncut_axes(dims, 1500, 300 + dims);
    for (double eps : {0.3, 0.5, 0.9, 1.6})
      for (int64_t m : {2, 5, 12}) expect_reference(r, eps, m);
  }
}

TEST(Nd, SlabOnTheFourthAxisKeepsEveryNeighbour) {
  // One crowded cell (the first three axes equal), the fourth axis a lattice
  // at exactly eps far from 0 (where fl(q - p) rounds): each cell's slab of
  // the fourth axis must hold every point the predicate passes.
  for (double offset : {0.0, 1e6, -3e9, 1e15}) {
    for (double step : {0.1, 0.3, 1.0 / 3}) {
      NdRows r{5, {}, {}};
      for (int i = 0; i < 200; ++i)
        r.add({0.5, 0.5, 0.5, offset + step * (i % 100), i < 100 ? 0.0 : step / 2});
      for (double eps : {step, std::nextafter(step, 0.0), std::nextafter(step, 1.0), 2 * step})
        for (int64_t m : {2, 3, 5}) expect_reference(r, eps, m, {0, 2});
    }
  }
}

TEST(Nd, DenseSmallCellPairsMatchReference) {
  // Dense 3-D blobs on fine cells: most cells small, pairs of them joined by
  // their boxes or by the first core pair found between them.
  NdRows r = blobs(3, 6000, 4, 6, 0.5, 31);
  for (double eps : {0.12, 0.25, 0.4})
    for (int64_t m : {2, 10, 40}) expect_reference(r, eps, m, {0, 2});
}

TEST(Nd, RandomDenseBlobsMatchReference) {
  for (const NdCase& c : random_dense_blobs(30, 2026))  // nd_helpers.hpp
    for (int64_t m : {1, 4, 25}) expect_reference(c.rows, c.eps, m, {2});
}

TEST(Nd, BoxPairTestsBoundEveryPair) {
  // boxes_near_d false: no pair of the two boxes' points within eps;
  // boxes_all_d true: every pair within eps (points on the boxes' corners
  // and inside them, boxes apart, touching and overlapping).
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> u(0, 1), w(0, 0.6);
  for (int t = 0; t < 20000; ++t) {
    double lo[2][3], hi[2][3], pts[2][8][3];
    for (int b = 0; b < 2; ++b)
      for (int k = 0; k < 3; ++k) {
        lo[b][k] = u(rng);
        hi[b][k] = lo[b][k] + w(rng) * (t % 3 == 0 ? 0 : 1);
      }
    for (int b = 0; b < 2; ++b)
      for (int j = 0; j < 8; ++j)
        for (int k = 0; k < 3; ++k)
          pts[b][j][k] = j < 4 ? ((j >> (k % 2)) & 1 ? hi[b][k] : lo[b][k])
                               : lo[b][k] + u(rng) * (hi[b][k] - lo[b][k]);
    const double eps = w(rng);
    const bool near = gd::boxes_near_d<3>(lo[0], hi[0], lo[1], hi[1], eps);
    const bool all = gd::boxes_all_d<3>(lo[0], hi[0], lo[1], hi[1], eps);
    for (int i = 0; i < 8; ++i)
      for (int j = 0; j < 8; ++j) {
        const bool within = gd::within_eps_d<3>(pts[0][i], pts[1][j], eps);
        ASSERT_TRUE(!within || near) << "case " << t;
        ASSERT_TRUE(!all || within) << "case " << t;
      }
  }
}

TEST(Nd, TwoAxesThroughTheNdStagesMatchReference) {
  // gd_cluster_points_nd sends dims == 2 to the 2D path; the n-D stages
  // themselves must still be right with two axes.
  NdRows r = blobs(2, 1200, 4, 30, 1.0, 31);
  for (double eps : {0.2, 0.6, 1.4}) {
    for (int64_t m : {1, 3, 8}) {
      std::vector<int32_t> want = reference_graph_dbscan(r.kinds, ref_neighbours(r, eps), m);
      std::vector<double> pts;
      std::vector<uint32_t> row_of;
      for (size_t i = 0; i < r.size(); ++i) {
        if (r.kinds[i] != GD_ROW_POINT) continue;
        pts.insert(pts.end(), r.at(i), r.at(i) + 2);
        row_of.push_back(static_cast<uint32_t>(i));
      }
      gd_params p;
      gd_params_init(&p);
      p.eps = eps;
      p.minpoints = m;
      std::vector<uint32_t> rep(row_of.size());
      gd_run_stats stats{};
      gd::CancelToken cancel(p);
      gd::nd_cluster(gd::NdPointsView{pts.data(), 2, static_cast<uint32_t>(row_of.size())}, p,
                     cancel, rep.data(), stats);
      std::vector<int32_t> got(r.size());
      gd::assign_ids(r.kinds.data(), static_cast<int64_t>(r.size()), rep.data(), m, got.data());
      ASSERT_EQ(got, want) << "eps " << eps << " minpoints " << m;
    }
  }
}

TEST(Nd, TwoAxesEqualTheTwoDimensionalPath) {
  NdRows r = blobs(2, 2000, 6, 40, 1.0, 5);
  std::vector<double> x, y;
  for (size_t i = 0; i < r.size(); ++i) {
    x.push_back(r.at(i)[0]);
    y.push_back(r.at(i)[1]);
  }
  gd_params p;
  gd_params_init(&p);
  p.eps = 0.8;
  p.minpoints = 4;
  std::vector<int32_t> want(r.size());
  gd_error err;
  ASSERT_EQ(gd_cluster_points(x.data(), y.data(), r.kinds.data(), static_cast<int64_t>(r.size()),
                              &p, want.data(), nullptr, &err),
            GD_OK);
  EXPECT_EQ(run_nd(r, 0.8, 4), want);
}

TEST(Nd, DuplicatesAndDenseCells) {
  // Few locations, many copies: dense cells, dense cell pairs decided by
  // their boxes, and cells of copies that are not all core.
  for (int dims : {3, 5}) {
    NdRows r = copies(dims);
    for (double eps : {0.0, 0.5, 0.75, 1.0})
      for (int64_t m : {2, 30, 80, 200}) expect_reference(r, eps, m);
  }
}

TEST(Nd, LatticeAtExactlyEps) {
  NdRows r = lattice();
  for (double eps : {0.5, std::nextafter(0.5, 0.0), std::sqrt(2.0) * 0.5, std::sqrt(3.0) * 0.5})
    for (int64_t m : {2, 3, 5, 7, 9}) expect_reference(r, eps, m);
}

TEST(Nd, HugeExtentTinyEps) {
  // More cells than a 64-bit key holds: the (cell, index) sort.
  NdRows r = huge_extent();
  for (double eps : {0.0, 0.3, 0.6}) expect_reference(r, eps, 2);
}

TEST(Nd, InfiniteAndZeroEps) {
  NdRows r = blobs(4, 300, 3, 10, 0.5, 9);
  for (int64_t m : {0, 2, 250, 400}) {
    expect_reference(r, std::numeric_limits<double>::infinity(), m);
    expect_reference(r, 0.0, m);
  }
}

TEST(Nd, TinyEpsAndSubnormalDifferences) {
  NdRows r{3, {}, {}};
  for (int i = 0; i < 50; ++i) {
    double t = std::ldexp(static_cast<double>(i % 7), -1070);  // subnormal steps
    r.add({t, 1e-300 * (i % 3), 0.0});
  }
  for (double eps : {0.0, 1e-320, 1e-300, 3e-300}) expect_reference(r, eps, 2);
}

TEST(Nd, TooFewPointsForMinpointsIsAllNoise) {
  NdRows r = uniform(3, 5, 1, 1);
  std::vector<int32_t> ids = run_nd(r, 100, 6);
  for (int32_t id : ids) EXPECT_EQ(id, GD_NOISE);
}

TEST(Nd, FullFineCellsArePairwiseNeighbours) {
  // Fine cells are made for dense data: a cell full to its sides must be
  // "small" (its corners within eps), so its points count and join each
  // other without a test; coarse cells hold every neighbour within one cell.
  for (double eps : {1e-3, 0.5, 1.0, 7.0}) {
    gd::AxisBox box;
    for (int a = 0; a < 3; ++a) box.lo[a] = 0, box.hi[a] = 100;
    const gd::CellMap fine = gd::choose_cells(box, 3, true, eps);
    const double lo[3] = {0, 0, 0}, hi[3] = {fine.side, fine.side, fine.side};
    EXPECT_TRUE(gd::within_eps_d<3>(lo, hi, eps)) << "eps " << eps << " side " << fine.side;
    EXPECT_GT(fine.side * std::sqrt(3.0), 0.99 * eps);  // not smaller than it needs to be
    EXPECT_GT(gd::choose_cells(box, 3, false, eps).side, eps);
  }
}

TEST(Nd, SweepEqualsOneCallPerValueOnBothPaths) {
  // Values unsorted, repeated, 0 and 1 (every point core), above the points.
  const std::vector<int64_t> values = {5, 0, 2, 30, 5, 1, 100000, 12};
  const NdRows sets[] = {uniform(3, 1500, 10, 71), blobs(4, 1500, 5, 30, 1.0, 72), copies(3),
                         copies(5), lattice()};
  for (const NdRows& r : sets) {
    for (double eps : {0.0, 0.5, 1.2}) {
      for (int path : {GD_ND_SWEEP_AUTO, GD_ND_SWEEP_PAIRS, GD_ND_SWEEP_LEVELS}) {
        const auto got = run_nd_sweep(r, eps, values, GD_BACKEND_CPU, path);
        for (size_t k = 0; k < values.size(); ++k)
          ASSERT_EQ(got[k], run_nd(r, eps, values[k]))
              << r.dims << "-D eps " << eps << " path " << path << " minpoints " << values[k];
      }
    }
  }
}

TEST(Nd, LevelSweepFromEachValueToTheNextEqualsOneCall) {
  // The grid path of a sweep joins each value's sets from the previous
  // (larger) value's, looking only at pairs with a point that became core:
  // every value of a long run, in any order, against its own call, on dense
  // blobs (cells with and without new core points side by side), with NULL
  // and EMPTY rows, in 3 and 4 dimensions.
  std::vector<int64_t> values;
  for (int64_t v = 17; v >= 1; --v) values.push_back(v);
  values.push_back(40);
  values.push_back(6);
  for (int dims : {3, 4}) {
    NdRows r = blobs(dims, 12000, 12, 40, 1.5, 75 + dims);
    for (size_t i = 0; i < r.size(); i += 97) r.kinds[i] = i % 2 ? GD_ROW_NULL : GD_ROW_EMPTY;
    for (double eps : {0.4, 1.0}) {
      const auto got = run_nd_sweep(r, eps, values, GD_BACKEND_CPU, GD_ND_SWEEP_LEVELS);
      for (size_t k = 0; k < values.size(); ++k)
        ASSERT_EQ(got[k], run_nd(r, eps, values[k]))
            << dims << "-D eps " << eps << " minpoints " << values[k];
    }
  }
  // Crowded cells that are not small (one set, or several), against the
  // definition written out.
  const NdRows r = spread_over_uncut_axes(6, 1500, 81);
  for (double eps : {0.3, 0.9}) {
    const auto nb = ref_neighbours(r, eps);
    const auto got = run_nd_sweep(r, eps, values, GD_BACKEND_CPU, GD_ND_SWEEP_LEVELS);
    for (size_t k = 0; k < values.size(); ++k)
      ASSERT_EQ(got[k], reference_graph_dbscan(r.kinds, nb, values[k]))
          << "6-D spread, eps " << eps << " minpoints " << values[k];
  }
}

TEST(Nd, SweepOfDenseDataClustersValueByValue) {
  // 20,000 points pairwise within eps: 2e8 neighbour pairs (1.6 GB, seconds
  // to list), which the sweep does not list: it clusters each value on the
  // grid (t_core is that path's; the pair path spends none).
  NdRows r = uniform(3, 20000, 0.2, 73);
  gd_run_stats stats{};
  const auto got = run_nd_sweep(r, 1.0, {5, 19999, 20001}, GD_BACKEND_CPU, GD_ND_SWEEP_AUTO, &stats);
  EXPECT_GT(stats.t_core, 0.0);
  EXPECT_EQ(got[0], run_nd(r, 1.0, 5));
  EXPECT_EQ(got[1], run_nd(r, 1.0, 19999));
  EXPECT_EQ(got[2], std::vector<int32_t>(r.size(), GD_NOISE));
  // and a sparse set lists its pairs
  gd_run_stats sparse{};
  (void)run_nd_sweep(uniform(3, 5000, 50, 74), 1.0, {2, 5}, GD_BACKEND_CPU, GD_ND_SWEEP_AUTO,
                     &sparse);
  EXPECT_EQ(sparse.t_core, 0.0);
}

TEST(Nd, SweepOfNullAndEmptyRowsOnly) {
  NdRows r{3, {}, {}};
  r.add({0, 0, 0}, GD_ROW_NULL);
  r.add({0, 0, 0}, GD_ROW_EMPTY);
  const auto got = run_nd_sweep(r, 1.0, {0, 3}, GD_BACKEND_CPU, GD_ND_SWEEP_AUTO);
  EXPECT_EQ(got[0], run_nd(r, 1.0, 0));
  EXPECT_EQ(got[1], run_nd(r, 1.0, 3));
}

TEST(Nd, GpuRequestWithoutAGpuIsADeviceFailure) {
  // With a usable GPU the device tests (test_gpu_nd.cpp) cover this request.
  gd_error why;
  if (gd_gpu_available(0, &why)) GTEST_SKIP() << "a GPU is usable here";
  NdRows r = blobs(3, 500, 3, 10, 0.5, 2);
  gd_params p;
  gd_params_init(&p);
  p.eps = 0.5;
  p.minpoints = 4;
  p.backend = GD_BACKEND_GPU;
  std::vector<int32_t> ids(r.size());
  gd_error err;
  const gd_status st = gd_cluster_points_nd(r.coords.data(), 3, r.kinds.data(),
                                            static_cast<int64_t>(r.size()), &p, ids.data(),
                                            nullptr, &err);
  // a device failure, which backend = auto retries on the CPU
  EXPECT_TRUE(st == GD_ERR_NO_DEVICE || st == GD_ERR_DEVICE) << st << ": " << err.message;
  EXPECT_NE(std::string(err.message), "");
}

TEST(Nd, PointTypesMatchReference) {
  for (int dims : {3, 5}) {
    NdRows r = blobs(dims, 1200, 4, 30, 1.0, 60 + dims);
    for (double eps : {0.4, 1.2})
      for (int64_t m : {0, 1, 3, 9}) {
        std::vector<uint8_t> types(r.size(), 9);
        std::vector<int32_t> ids = run_nd_typed(r, eps, m, GD_BACKEND_CPU, &types);
        EXPECT_EQ(ids, run_nd(r, eps, m));
        EXPECT_EQ(types, reference_types(r, eps, m, ids)) << dims << "-D eps " << eps << " m " << m;
      }
  }
}

TEST(Nd, NeighbourPairsMatchBruteForce) {
  for (int dims : {2, 3, 7, 6}) {
    // (6-D: spread over the axes the grid does not cut, crowded cells
    // searched by their slab on the fourth axis)
    NdRows r = dims == 6 ? spread_over_uncut_axes(6, 900, 46)
                         : blobs(dims, 900, 4, 20, 1.0, 40 + dims);
    for (double eps : {0.0, 0.5, 1.5}) {
      std::set<std::pair<uint32_t, uint32_t>> want;
      for (size_t i = 0; i < r.size(); ++i)
        for (size_t j = i + 1; j < r.size(); ++j)
          if (r.kinds[i] == GD_ROW_POINT && r.kinds[j] == GD_ROW_POINT &&
              ref_within_nd(r.at(i), r.at(j), dims, eps))
            want.emplace(static_cast<uint32_t>(i), static_cast<uint32_t>(j));
      gd_pair_list list;
      gd_error err;
      ASSERT_EQ(gd_neighbour_pairs_nd(r.coords.data(), dims, r.kinds.data(),
                                      static_cast<int64_t>(r.size()), eps, nullptr, &list, &err),
                GD_OK)
          << err.message;
      std::set<std::pair<uint32_t, uint32_t>> got;
      for (int64_t k = 0; k < list.count; ++k) {
        EXPECT_LT(list.pairs[k].i, list.pairs[k].j);
        got.emplace(list.pairs[k].i, list.pairs[k].j);
      }
      EXPECT_EQ(static_cast<size_t>(list.count), got.size()) << "a pair was listed twice";
      EXPECT_EQ(got, want) << dims << "-D, eps " << eps;
      gd_pair_list_free(&list);
    }
  }
}

// The band between two thresholds: the pairs within eps that are not
// within inner, by the same predicate at each (gd_neighbour_pairs_nd_band).
TEST(Nd, NeighbourPairsBandMatchBruteForce) {
  for (int dims : {3, 5}) {
    NdRows r = blobs(dims, 900, 4, 20, 1.0, 50 + dims);
    r.kinds[5] = GD_ROW_NULL;
    r.kinds[9] = GD_ROW_EMPTY;
    struct Band {
      double inner, eps;
    };
    for (const Band& b : {Band{0.3, 0.5}, Band{0.0, 0.4}, Band{-1, 0.5}, Band{0.7, 0.7},
                          Band{0.5, 1.5}}) {
      std::set<std::pair<uint32_t, uint32_t>> want;
      for (size_t i = 0; i < r.size(); ++i)
        for (size_t j = i + 1; j < r.size(); ++j)
          if (r.kinds[i] == GD_ROW_POINT && r.kinds[j] == GD_ROW_POINT &&
              ref_within_nd(r.at(i), r.at(j), dims, b.eps) &&
              !(b.inner >= 0 && ref_within_nd(r.at(i), r.at(j), dims, b.inner)))
            want.emplace(static_cast<uint32_t>(i), static_cast<uint32_t>(j));
      gd_pair_list list;
      gd_error err;
      ASSERT_EQ(gd_neighbour_pairs_nd_band(r.coords.data(), dims, r.kinds.data(),
                                           static_cast<int64_t>(r.size()), b.inner, b.eps,
                                           nullptr, &list, &err),
                GD_OK)
          << err.message;
      std::set<std::pair<uint32_t, uint32_t>> got;
      for (int64_t k = 0; k < list.count; ++k) got.emplace(list.pairs[k].i, list.pairs[k].j);
      EXPECT_EQ(static_cast<size_t>(list.count), got.size());
      EXPECT_EQ(got, want) << dims << "-D, band (" << b.inner << ", " << b.eps << "]";
      if (b.inner == b.eps) {
        EXPECT_TRUE(want.empty());
      }
      gd_pair_list_free(&list);
    }
  }
  gd_pair_list list;
  gd_error err;
  const double c[3] = {0, 0, 0};
  const uint8_t k[1] = {GD_ROW_POINT};
  EXPECT_EQ(gd_neighbour_pairs_nd_band(c, 3, k, 1, std::nan(""), 1.0, nullptr, &list, &err),
            GD_ERR_INVALID);
}

// gd_params.max_pairs: a longer list is GD_ERR_NOMEM before anything is
// allocated (its count stops early), the exact count passes, < 0 is invalid.
TEST(Nd, NeighbourPairsHeldToMaxPairs) {
  NdRows r = blobs(3, 3000, 2, 5, 0.5, 21);
  gd_params p = gd_test::test_params(0.5, 0, GD_BACKEND_CPU, 2);
  gd_pair_list list;
  gd_error err;
  ASSERT_EQ(gd_neighbour_pairs_nd(r.coords.data(), 3, r.kinds.data(),
                                  static_cast<int64_t>(r.size()), 0.5, &p, &list, &err),
            GD_OK);
  const int64_t all = list.count;
  gd_pair_list_free(&list);
  ASSERT_GT(all, 100000);
  for (int64_t cap : {int64_t{1}, all / 10, all - 1}) {
    p.max_pairs = cap;
    EXPECT_EQ(gd_neighbour_pairs_nd(r.coords.data(), 3, r.kinds.data(),
                                    static_cast<int64_t>(r.size()), 0.5, &p, &list, &err),
              GD_ERR_NOMEM)
        << cap;
    EXPECT_EQ(list.pairs, nullptr);
    EXPECT_EQ(list.count, 0);
  }
  p.max_pairs = all;
  ASSERT_EQ(gd_neighbour_pairs_nd(r.coords.data(), 3, r.kinds.data(),
                                  static_cast<int64_t>(r.size()), 0.5, &p, &list, &err),
            GD_OK);
  EXPECT_EQ(list.count, all);
  gd_pair_list_free(&list);
  p.max_pairs = -1;
  EXPECT_EQ(gd_neighbour_pairs_nd(r.coords.data(), 3, r.kinds.data(),
                                  static_cast<int64_t>(r.size()), 0.5, &p, &list, &err),
            GD_ERR_INVALID);
}

// Every pair within eps lies in each other's window, for coarse and fine
// cells, with the rounding of large offsets and tiny eps.
TEST(Nd, WindowHoldsEveryNeighbour) {
  struct Case {
    int dims;
    double offset, extent, eps;
  };
  for (const Case& k : {Case{2, 0, 10, 0.7}, Case{3, 0, 10, 1.1}, Case{3, 1e12, 1e-2, 1e-3},
                        Case{3, -3e15, 50, 0.9}, Case{5, 7, 3, 0.8}, Case{3, 0, 1e-300, 0}}) {
    NdRows r = uniform(k.dims, 1500, k.extent, 77);
    for (double& c : r.coords) c += k.offset;
    for (size_t t = 7; t < r.size(); t += 7) {  // the previous point moved by eps on one axis
      std::copy_n(r.at(t - 1), k.dims, &r.coords[t * k.dims]);
      r.coords[t * k.dims + t % k.dims] += k.eps;
    }
    const uint32_t n = static_cast<uint32_t>(r.size());
    for (bool fine : {false, true}) {
      gd_params p;
      gd_params_init(&p);
      gd::CancelToken cancel(p);
      gd::ThreadTeam team(2, cancel);
      gd::NdGrid g = gd::build_nd_grid(gd::NdPointsView{r.coords.data(), k.dims, n}, k.eps, fine,
                                       team);
      std::vector<uint32_t> cell_of(n), pos_of(n);
      for (uint32_t c = 0; c < g.ncells(); ++c)
        for (uint32_t i = g.start[c]; i < g.start[c + 1]; ++i) cell_of[i] = c;
      for (uint32_t i = 0; i < n; ++i) pos_of[g.perm[i]] = i;
      gd::NdWindow window(g);
      size_t pairs = 0;
      for (uint32_t a = 0; a < n; ++a) {
        gd::CellRange rows[gd::NdWindow::kMaxRanges];
        const uint32_t ca = cell_of[pos_of[a]];
        const int count = window.cells_at(ca, rows);
        for (uint32_t b = 0; b < n; ++b) {
          if (!ref_within_nd(r.at(a), r.at(b), k.dims, k.eps)) continue;
          ++pairs;
          const uint32_t cb = cell_of[pos_of[b]];
          bool seen = false;
          for (int w = 0; w < count && !seen; ++w) seen = rows[w].begin <= cb && cb < rows[w].end;
          ASSERT_TRUE(seen) << k.dims << "-D, offset " << k.offset << ", eps " << k.eps
                            << (fine ? ", fine" : ", coarse") << ": rows " << a << " and " << b;
        }
      }
      EXPECT_GT(pairs, n) << "the case has neighbour pairs beyond the points themselves";
    }
  }
}

TEST(Nd, BadArguments) {
  gd_params p;
  gd_params_init(&p);
  p.eps = 1;
  std::vector<double> c = {0, 0, 0, 1, 1, 1};
  std::vector<uint8_t> k = {GD_ROW_POINT, GD_ROW_POINT};
  std::vector<int32_t> ids(2);
  gd_error err;
  EXPECT_EQ(gd_cluster_points_nd(c.data(), 1, k.data(), 2, &p, ids.data(), nullptr, &err),
            GD_ERR_INVALID);
  EXPECT_EQ(gd_cluster_points_nd(c.data(), 9, k.data(), 2, &p, ids.data(), nullptr, &err),
            GD_ERR_INVALID);
  c[4] = std::nan("");
  EXPECT_EQ(gd_cluster_points_nd(c.data(), 3, k.data(), 2, &p, ids.data(), nullptr, &err),
            GD_ERR_INVALID);
  EXPECT_NE(std::string(err.message).find("non-finite"), std::string::npos) << err.message;
  c[4] = 1;
  k[1] = GD_ROW_OTHER;
  EXPECT_EQ(gd_cluster_points_nd(c.data(), 3, k.data(), 2, &p, ids.data(), nullptr, &err),
            GD_ERR_INVALID);
  k[1] = GD_ROW_POINT;
  p.eps = -1;
  EXPECT_EQ(gd_cluster_points_nd(c.data(), 3, k.data(), 2, &p, ids.data(), nullptr, &err),
            GD_ERR_INVALID);
  gd_pair_list list;
  EXPECT_EQ(gd_neighbour_pairs_nd(c.data(), 3, k.data(), 2, -1, nullptr, &list, &err),
            GD_ERR_INVALID);
  EXPECT_EQ(list.pairs, nullptr);
  EXPECT_EQ(gd_neighbour_pairs_nd(c.data(), 3, k.data(), 2, std::nan(""), nullptr, &list, &err),
            GD_ERR_INVALID);
}

TEST(Nd, CancelledRunReportsCancelled) {
  NdRows r = uniform(3, 50000, 10, 4);
  gd_params p;
  gd_params_init(&p);
  p.eps = 0.5;
  p.minpoints = 5;
  p.should_cancel = [](void*) { return 1; };
  std::vector<int32_t> ids(r.size());
  gd_error err;
  EXPECT_EQ(gd_cluster_points_nd(r.coords.data(), 3, r.kinds.data(),
                                 static_cast<int64_t>(r.size()), &p, ids.data(), nullptr, &err),
            GD_ERR_CANCELLED);
}

}  // namespace

TEST(Nd, SampledPairsPerPointCountTheLattice) {
  // A 20^3 integer lattice at eps 1 (and 4-D with a fifth of the points
  // apart on the fourth axis): every point sampled gives the exact pairs per
  // point; the cap bounds each point's count; a sample of a few points stays
  // near the mean.
  for (int dims : {3, 4}) {
    NdRows r{dims, {}, {}};
    for (int i = 0; i < 8000; ++i) {
      std::vector<double> p = {double(i % 20), double(i / 20 % 20), double(i / 400)};
      if (dims == 4) p.push_back(i % 5 == 0 ? 100.0 : 0.0);
      r.add(p);
    }
    const uint32_t n = static_cast<uint32_t>(r.size());
    gd_params p;
    gd_params_init(&p);
    gd::CancelToken cancel(p);
    gd::ThreadTeam team(2, cancel);
    gd::NdGrid g = gd::build_nd_grid(gd::NdPointsView{r.coords.data(), dims, n}, 1.0, false, team);
    // Pairs written out: a point and its axis neighbour, apart on the fourth
    // axis where exactly one of them is one of the fifth.
    size_t pairs = 0;
    for (int i = 0; i < 8000; ++i)
      for (int step : {1, 20, 400})
        if ((step == 1 ? i % 20 : step == 20 ? i / 20 % 20 : i / 400) < 19 &&
            (dims == 3 || (i % 5 == 0) == ((i + step) % 5 == 0)))
          ++pairs;
    EXPECT_DOUBLE_EQ(gd::nd_sample_pairs_per_point(g, 1.0, n, 100), double(pairs) / n) << dims;
    EXPECT_DOUBLE_EQ(gd::nd_sample_pairs_per_point(g, 1.0, n, 2), 1.0) << dims;  // capped at 2
    EXPECT_NEAR(gd::nd_sample_pairs_per_point(g, 1.0, 500, 100), double(pairs) / n, 0.3) << dims;
    EXPECT_EQ(gd::nd_sample_pairs_per_point(g, 0.5, n, 100), 0.0) << dims;
  }
}
