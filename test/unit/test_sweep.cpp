// test_sweep.cpp — gd_cluster_points_sweep and gd_cluster_graph_sweep give,
// for every minpoints value, exactly gd_cluster_points' (gd_cluster_graph's)
// ids; gd_cluster_points_typed's and gd_cluster_graph_typed's point types
// follow the definitions (checked against brute-force neighbour counts).
#include <gtest/gtest.h>

#include <chrono>
#include <random>
#include <string>
#include <vector>

#include "core_helpers.hpp"

namespace {

using gd_test::Rows;

std::vector<int32_t> sweep(const Rows& r, double eps, const std::vector<int64_t>& minpoints,
                           int threads, gd_backend backend = GD_BACKEND_CPU,
                           gd_run_stats* stats = nullptr) {
  gd_params p;
  gd_params_init(&p);
  p.eps = eps;
  p.threads = threads;
  p.min_items_per_thread = 1;  // several threads even on small inputs
  p.backend = backend;
  std::vector<int32_t> ids(r.size() * minpoints.size(), -7);
  gd_error err{};
  gd_status st = gd_cluster_points_sweep(r.x.data(), r.y.data(), r.kinds.data(),
                                         static_cast<int64_t>(r.size()), &p, minpoints.data(),
                                         static_cast<int64_t>(minpoints.size()), ids.data(),
                                         stats, &err);
  EXPECT_EQ(st, GD_OK) << err.message;
  return ids;
}

// Every value's slice of the sweep equals one gd_cluster_points call.
void expect_sweep_matches(const Rows& r, double eps, const std::vector<int64_t>& minpoints,
                          const std::string& what) {
  for (int threads : {1, 0, 3}) {
    std::vector<int32_t> all = sweep(r, eps, minpoints, threads);
    for (size_t k = 0; k < minpoints.size(); ++k) {
      gd_test::RunResult one = gd_test::cluster(r, eps, minpoints[k], threads);
      ASSERT_EQ(one.status, GD_OK) << one.err.message;
      std::vector<int32_t> got(all.begin() + k * r.size(), all.begin() + (k + 1) * r.size());
      size_t bad = 0, first = 0;
      for (size_t i = 0; i < r.size(); ++i)
        if (got[i] != one.ids[i] && bad++ == 0) first = i;
      ASSERT_EQ(bad, 0u) << what << ": eps " << eps << " minpoints " << minpoints[k]
                         << " threads " << threads << ": row " << first << " got " << got[first]
                         << " want " << one.ids[first];
    }
  }
}

const std::vector<int64_t> kValues{5, 2, 1, 0, 10, 3, 5, 40, 1000000};

TEST(Sweep, UniformMatchesOneCallPerValue) {
  Rows r = gd_test::uniform_rows(4000, 0, 100, 11);
  for (double eps : {0.5, 1.5, 4.0}) expect_sweep_matches(r, eps, kValues, "uniform");
}

TEST(Sweep, BlobsMatchOneCallPerValue) {
  Rows r = gd_test::blob_rows(6000, 8, 200, 3, 12);
  for (double eps : {0.3, 1.0, 3.0}) expect_sweep_matches(r, eps, kValues, "blobs");
}

TEST(Sweep, DuplicatesEmptyAndNullRows) {
  Rows r = gd_test::duplicate_rows(3000, 120, 50, 13);
  gd_test::sprinkle_empty_and_null(r, 9, 14);
  for (double eps : {0.0, 2.0, 5.0})
    expect_sweep_matches(r, eps, {0, 1, 2, 4, 8, 16, 30, 64}, "duplicates");
}

TEST(Sweep, LatticeAtExactlyEps) {
  Rows r = gd_test::lattice_rows(40, 1.0, -3, 7, 15);
  expect_sweep_matches(r, 1.0, {1, 2, 3, 4, 5, 6}, "lattice");
}

// Rows whose neighbours are exactly eps apart after rounding, where PostGIS's
// relation is one-sided for some pairs: each level clustered on its own.
TEST(Sweep, OneSidedPairs) {
  Rows r;
  for (int i = 0; i < 400; ++i)
    if ((i * 13) % 7 != 0) r.add((10 * (i % 20) + 3 * (i / 97)) / 10.0, i / 20);
  std::vector<int64_t> values;
  for (int m = 1; m <= 10; ++m) values.push_back(m);
  expect_sweep_matches(r, 1.0, values, "offset lattice");
  Rows s;
  for (int i = 0; i < 900; ++i) s.add(1000.3 + (i % 30) * 0.1, -20.7 + (i / 30) * 0.1);
  expect_sweep_matches(s, 0.1, {1, 2, 3, 4, 5, 6}, "lattice 0.1 at 1000.3");
  expect_sweep_matches(s, 0.1, {2, 3, 4, 5, 6}, "lattice 0.1 at 1000.3 without 1");
}

TEST(Sweep, EveryValueFrom1To16) {
  Rows r = gd_test::blob_rows(5000, 5, 100, 4, 16);
  std::vector<int64_t> values;
  for (int m = 1; m <= 16; ++m) values.push_back(m);
  expect_sweep_matches(r, 1.5, values, "blobs 1..16");
}

// Tight clumps of 1 to 60 points on a lattice closer than eps: cells whose
// points are pairwise neighbours, of many depths, that see their neighbour
// cells whole (the sweep takes those by depth and hub, without scanning).
TEST(Sweep, DenseClumpsMatchOneCallPerValue) {
  std::mt19937_64 rng(31);
  std::uniform_real_distribution<double> u(-0.04, 0.04);
  Rows r;
  for (int i = 0; i < 400; ++i) {
    const double cx = (i % 20) * 0.45, cy = (i / 20) * 0.45;
    const int m = 1 + static_cast<int>(rng() % 60);
    for (int k = 0; k < m; ++k) r.add(cx + u(rng), cy + u(rng));
  }
  gd_test::sprinkle_empty_and_null(r, 23, 32);
  expect_sweep_matches(r, 1.0, {2, 3, 5, 8, 13, 21, 40, 80, 150, 400}, "clumps, eps 1");
  expect_sweep_matches(r, 0.5, {1, 2, 7, 30, 61, 62, 100}, "clumps, eps 0.5");
  expect_sweep_matches(r, 0.2, {2, 10, 40, 59}, "clumps, eps 0.2");
}

// Issue 11: every point of a partition within eps of every other, minpoints
// {2, n + 1}: the sweep scanned the whole cell from each of its points (27 s
// at 100,000 against 1 s for the two values on their own; here 50,000), and counted every
// point's neighbours up to a value above the number of points (32 s for a
// disc of diameter eps over four cells, against 0.01 s).
TEST(Sweep, DenseIsNotQuadratic) {
  using clock = std::chrono::steady_clock;
  auto seconds = [](clock::time_point t0) {
    return std::chrono::duration<double>(clock::now() - t0).count();
  };
  for (bool disc : {false, true}) {
    const size_t n = 50000;
    Rows r;
    if (disc) {  // diameter 0.99: over four cells
      std::mt19937_64 rng(33);
      std::uniform_real_distribution<double> u(-0.495, 0.495);
      while (r.size() < n) {
        const double x = u(rng), y = u(rng);
        if (x * x + y * y <= 0.495 * 0.495) r.add(x, y);
      }
    } else {  // one cell, plus a point far away: the top value is not above the count
      r = gd_test::uniform_rows(n - 1, 0, 0.5, 33);
      r.add(100, 100);
    }
    const int64_t top = disc ? static_cast<int64_t>(n) + 1 : static_cast<int64_t>(n);
    auto t0 = clock::now();
    std::vector<int32_t> all = sweep(r, 1.0, {2, top}, 0);
    const double t_sweep = seconds(t0);
    t0 = clock::now();
    gd_test::RunResult two = gd_test::cluster(r, 1.0, 2);
    gd_test::RunResult most = gd_test::cluster(r, 1.0, top);
    const double t_each = seconds(t0);
    EXPECT_EQ(std::vector<int32_t>(all.begin(), all.begin() + n), two.ids);
    EXPECT_EQ(std::vector<int32_t>(all.begin() + n, all.end()), most.ids);
    EXPECT_LT(t_sweep, 1.5 * t_each + 0.5)
        << (disc ? "disc" : "square") << ": sweep " << t_sweep << " s, each value " << t_each << " s";
  }
}

// Up to 70,000 clusters in one value and values where every point is noise:
// every row's id is its cluster's number by first row, known from how the
// rows were made (test_gpu_types_sweep.cpp runs the same on the GPU, up to
// 2^24 clusters).
TEST(Sweep, ManyClustersGiveTheKnownIds) {
  for (size_t clusters : {200, 70000}) {
    const gd_test::KnownClusters k(clusters, 3, clusters, 31);
    const std::vector<int64_t> values{2, 3, 4};
    const std::vector<int32_t> ids = sweep(k.rows, 1.0, values, 0);
    const size_t n = k.rows.size();
    for (size_t v = 0; v < values.size(); ++v) {
      const std::vector<int32_t> got(ids.begin() + v * n, ids.begin() + (v + 1) * n);
      EXPECT_TRUE(got == k.ids_at(values[v])) << clusters << " clusters, minpoints " << values[v];
    }
  }
}

TEST(Sweep, NoRowsAndNoPoints) {
  Rows none;
  EXPECT_TRUE(sweep(none, 1, {1, 2}, 0).empty());
  Rows r;
  for (int i = 0; i < 5; ++i) {
    r.x.push_back(0);
    r.y.push_back(0);
    r.kinds.push_back(i % 2 ? GD_ROW_NULL : GD_ROW_EMPTY);
  }
  std::vector<int32_t> ids = sweep(r, 1, {1, 3}, 0);
  EXPECT_EQ(ids, (std::vector<int32_t>{0, -1, 1, -1, 2, -1, -1, -1, -1, -1}));
}

// GD_BACKEND_GPU: the sweep runs on the GPU (same ids, stats say gpu), or
// fails with a device error where none is usable (GD_ERR_NO_DEVICE without
// CUDA; the PG glue then falls back under auto).
TEST(Sweep, GpuAskedRunsOnTheGpuOrSaysWhy) {
  Rows r = gd_test::uniform_rows(500, 0, 10, 17);
  const std::vector<int64_t> values{2, 4};
  std::vector<int32_t> cpu = sweep(r, 0.7, values, 0);
  gd_params p;
  gd_params_init(&p);
  p.eps = 0.7;
  p.backend = GD_BACKEND_GPU;
  std::vector<int32_t> gpu(r.size() * values.size(), -7);
  gd_run_stats st{};
  gd_error err{}, why{};
  gd_status status = gd_cluster_points_sweep(r.x.data(), r.y.data(), r.kinds.data(),
                                             static_cast<int64_t>(r.size()), &p, values.data(),
                                             2, gpu.data(), &st, &err);
  if (!gd_gpu_available(0, &why)) {
    EXPECT_TRUE(status == GD_ERR_NO_DEVICE || status == GD_ERR_DEVICE) << err.message;
    if (!gd_built_with_cuda()) {
      EXPECT_EQ(status, GD_ERR_NO_DEVICE);
    }
    return;
  }
  ASSERT_EQ(status, GD_OK) << err.message;
  EXPECT_EQ(gpu, cpu);
  EXPECT_EQ(st.backend, GD_BACKEND_GPU);
}

TEST(Sweep, BadArguments) {
  Rows r = gd_test::uniform_rows(10, 0, 10, 18);
  gd_params p;
  gd_params_init(&p);
  p.eps = 1;
  std::vector<int32_t> ids(r.size() * 2);
  gd_error err{};
  int64_t bad[] = {3, -1};
  EXPECT_EQ(gd_cluster_points_sweep(r.x.data(), r.y.data(), r.kinds.data(), 10, &p, bad, 2,
                                    ids.data(), nullptr, &err),
            GD_ERR_INVALID);
  EXPECT_EQ(gd_cluster_points_sweep(r.x.data(), r.y.data(), r.kinds.data(), 10, &p, bad, 0,
                                    ids.data(), nullptr, &err),
            GD_ERR_INVALID);
  EXPECT_EQ(gd_cluster_points_sweep(r.x.data(), r.y.data(), r.kinds.data(), 10, &p, nullptr, 1,
                                    ids.data(), nullptr, &err),
            GD_ERR_INVALID);
  EXPECT_EQ(gd_cluster_graph_sweep(r.kinds.data(), 10, nullptr, 0, bad, 2, ids.data(), &err),
            GD_ERR_INVALID);
}

// Point types against brute-force neighbour counts.
TEST(PointTypes, FollowTheDefinitions) {
  Rows r = gd_test::blob_rows(1500, 4, 60, 2, 19);
  gd_test::sprinkle_empty_and_null(r, 17, 20);
  const double eps = 1.2;
  for (int64_t minpoints : {0, 1, 3, 8}) {
    gd_params p;
    gd_params_init(&p);
    p.eps = eps;
    p.minpoints = minpoints;
    std::vector<int32_t> ids(r.size());
    std::vector<uint8_t> types(r.size(), 99);
    gd_error err{};
    ASSERT_EQ(gd_cluster_points_typed(r.x.data(), r.y.data(), r.kinds.data(),
                                      static_cast<int64_t>(r.size()), &p, ids.data(),
                                      types.data(), nullptr, &err),
              GD_OK)
        << err.message;
    EXPECT_EQ(ids, gd_test::cluster(r, eps, minpoints).ids);
    for (size_t i = 0; i < r.size(); ++i) {
      uint8_t want = GD_POINT_NOISE;
      if (r.kinds[i] == GD_ROW_EMPTY) {
        want = minpoints <= 1 ? GD_POINT_CORE : GD_POINT_NOISE;
      } else if (r.kinds[i] == GD_ROW_POINT) {
        int64_t n = 0;
        for (size_t j = 0; j < r.size(); ++j)
          n += r.kinds[j] == GD_ROW_POINT && gd_test::ref_within(r.x[i], r.y[i], r.x[j], r.y[j], eps);
        want = n >= minpoints ? GD_POINT_CORE : ids[i] >= 0 ? GD_POINT_BORDER : GD_POINT_NOISE;
      }
      ASSERT_EQ(types[i], want) << "minpoints " << minpoints << " row " << i;
    }
  }
}

// The graph forms: a path 0-1-2-3 plus an isolated row and a NULL row.
TEST(PointTypes, GraphSweepAndTypes) {
  std::vector<uint8_t> kinds{GD_ROW_OTHER, GD_ROW_POINT, GD_ROW_OTHER, GD_ROW_OTHER,
                             GD_ROW_OTHER, GD_ROW_NULL};
  std::vector<gd_pair> edges{{0, 1}, {1, 2}, {2, 3}};
  std::vector<int64_t> values{3, 1, 2};
  std::vector<int32_t> all(kinds.size() * values.size());
  gd_error err{};
  ASSERT_EQ(gd_cluster_graph_sweep(kinds.data(), 6, edges.data(), 3, values.data(), 3, all.data(),
                                   &err),
            GD_OK)
      << err.message;
  for (size_t k = 0; k < values.size(); ++k) {
    std::vector<int32_t> one(kinds.size());
    ASSERT_EQ(gd_cluster_graph(kinds.data(), 6, edges.data(), 3, values[k], one.data(), &err),
              GD_OK);
    EXPECT_EQ(std::vector<int32_t>(all.begin() + k * 6, all.begin() + (k + 1) * 6), one);
  }
  std::vector<int32_t> ids(6);
  std::vector<uint8_t> types(6);
  ASSERT_EQ(gd_cluster_graph_typed(kinds.data(), 6, edges.data(), 3, 3, ids.data(), types.data(),
                                   &err),
            GD_OK);
  EXPECT_EQ(ids, (std::vector<int32_t>{0, 0, 0, 0, -1, -1}));
  EXPECT_EQ(types, (std::vector<uint8_t>{GD_POINT_BORDER, GD_POINT_CORE, GD_POINT_CORE,
                                         GD_POINT_BORDER, GD_POINT_NOISE, GD_POINT_NOISE}));
}

}  // namespace
