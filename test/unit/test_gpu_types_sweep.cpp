// test_gpu_types_sweep.cpp — point types and minpoints sweeps on the GPU
// (gd_cluster_points_typed, gd_cluster_points_sweep with GD_BACKEND_GPU):
// the same ids and point types as the CPU, row for row, on every data
// family, on pairs that only one side sees, on duplicates with EMPTY and
// NULL rows, and through the strip path; stats say the GPU ran them.
// Skipped where no GPU is usable.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <utility>
#include <random>
#include <string>
#include <vector>

#include "backend.hpp"
#include "shapes.hpp"
#include "test_gpu_helpers.hpp"

namespace gd_test {
namespace {

Rows rows_of(std::initializer_list<std::pair<double, double>> pts) {
  Rows r;
  for (const auto& p : pts) r.add(p.first, p.second);
  return r;
}

// Ordered pairs (p, q) where p sees q and q does not see p.
size_t one_sided_pairs(const Rows& r, double eps) {
  size_t count = 0;
  for (size_t p = 0; p < r.size(); ++p)
    for (size_t q = 0; q < r.size(); ++q)
      if (p != q && r.kinds[p] == GD_ROW_POINT && r.kinds[q] == GD_ROW_POINT &&
          ref_within(r.x[p], r.y[p], r.x[q], r.y[q], eps) &&
          !ref_within(r.x[q], r.y[q], r.x[p], r.y[p], eps))
        ++count;
  return count;
}

struct Typed {
  std::vector<int32_t> ids;
  std::vector<uint8_t> types;
  gd_run_stats stats{};
};

Typed typed(const Rows& r, double eps, int64_t minpoints, gd_backend backend) {
  gd_params p;
  gd_params_init(&p);
  p.eps = eps;
  p.minpoints = minpoints;
  p.backend = backend;
  p.min_items_per_thread = 1;
  Typed t;
  t.ids.assign(r.size(), -7);
  t.types.assign(r.size(), 77);
  gd_error err{};
  gd_status st = gd_cluster_points_typed(r.x.data(), r.y.data(), r.kinds.data(),
                                         static_cast<int64_t>(r.size()), &p, t.ids.data(),
                                         t.types.data(), &t.stats, &err);
  EXPECT_EQ(st, GD_OK) << err.message;
  return t;
}

struct Swept {
  std::vector<int32_t> ids;
  gd_run_stats stats{};
};

Swept sweep(const Rows& r, double eps, const std::vector<int64_t>& values, gd_backend backend) {
  gd_params p;
  gd_params_init(&p);
  p.eps = eps;
  p.backend = backend;
  p.min_items_per_thread = 1;
  Swept s;
  s.ids.assign(r.size() * values.size(), -7);
  gd_error err{};
  gd_status st = gd_cluster_points_sweep(r.x.data(), r.y.data(), r.kinds.data(),
                                         static_cast<int64_t>(r.size()), &p, values.data(),
                                         static_cast<int64_t>(values.size()), s.ids.data(),
                                         &s.stats, &err);
  EXPECT_EQ(st, GD_OK) << err.message;
  return s;
}

void expect_types_match(const Rows& r, double eps, int64_t minpoints, const std::string& what) {
  Typed gpu = typed(r, eps, minpoints, GD_BACKEND_GPU);
  Typed cpu = typed(r, eps, minpoints, GD_BACKEND_CPU);
  if (r.size() > 0) {
    EXPECT_EQ(gpu.stats.backend, GD_BACKEND_GPU) << what;
  }
  long d = first_difference(gpu.ids, cpu.ids);
  EXPECT_EQ(d, -1) << what << ", eps " << eps << " minpoints " << minpoints << ": ids differ at row "
                   << d;
  size_t bad = 0, first = 0;
  for (size_t i = 0; i < r.size(); ++i)
    if (gpu.types[i] != cpu.types[i] && bad++ == 0) first = i;
  EXPECT_EQ(bad, 0u) << what << ", eps " << eps << " minpoints " << minpoints
                     << ": types differ at row " << first << " GPU " << int(gpu.types[first])
                     << " CPU " << int(cpu.types[first]);
}

void expect_sweep_matches(const Rows& r, double eps, const std::vector<int64_t>& values,
                          const std::string& what) {
  Swept gpu = sweep(r, eps, values, GD_BACKEND_GPU);
  Swept cpu = sweep(r, eps, values, GD_BACKEND_CPU);
  EXPECT_EQ(gpu.stats.backend, GD_BACKEND_GPU) << what;
  for (size_t k = 0; k < values.size(); ++k) {
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < r.size(); ++i) {
      size_t j = k * r.size() + i;
      if (gpu.ids[j] != cpu.ids[j] && bad++ == 0) first = i;
    }
    ASSERT_EQ(bad, 0u) << what << ", eps " << eps << " minpoints " << values[k] << ": row "
                       << first << " GPU " << gpu.ids[k * r.size() + first] << " CPU "
                       << cpu.ids[k * r.size() + first];
  }
}

// ---- every family ----------------------------------------------------------

class GpuTypes : public ::testing::TestWithParam<ShapeCase> {};

TEST_P(GpuTypes, SameTypesAndIdsAsCpu) {
  GD_REQUIRE_GPU();
  auto [shape, eps, minpoints] = GetParam();
  Rows r = make_shape(shape, 811, true);
  expect_types_match(r, eps, minpoints, "family");
  sprinkle_empty_and_null(r, 11, 812);
  expect_types_match(r, eps, minpoints, "family with EMPTY and NULL rows");
}

INSTANTIATE_TEST_SUITE_P(Families, GpuTypes, all_shape_cases(), shape_case_name);

using SweepCase = std::tuple<Shape, double>;

class GpuSweep : public ::testing::TestWithParam<SweepCase> {};

TEST_P(GpuSweep, SameIdsAsCpuSweep) {
  GD_REQUIRE_GPU();
  auto [shape, eps] = GetParam();
  Rows r = make_shape(shape, 821, true);
  // Repeats, any order, 0 and 1 (single linkage), a value above the points.
  const std::vector<int64_t> values{5, 2, 1, 0, 10, 3, 5, 40, 16, 1000000};
  expect_sweep_matches(r, eps, values, "family");
  // Every value from 2 to 30: each step from the previous value's
  // union-find brings few new core points (UnionStep).
  std::vector<int64_t> steps;
  for (int64_t m = 30; m >= 2; --m) steps.push_back(m);
  expect_sweep_matches(r, eps, steps, "family, consecutive values");
  sprinkle_empty_and_null(r, 9, 822);
  expect_sweep_matches(r, eps, values, "family with EMPTY and NULL rows");
  expect_sweep_matches(r, eps, steps, "family with EMPTY and NULL rows, consecutive values");
}

INSTANTIATE_TEST_SUITE_P(
    Families, GpuSweep,
    ::testing::Combine(::testing::Values(Shape::kUniform, Shape::kBlobs, Shape::kDuplicates,
                                         Shape::kLattice, Shape::kSparse),
                       ::testing::Values(0.0, 0.5, 1.0, 2.5)),
    [](const ::testing::TestParamInfo<SweepCase>& info) {
      return shape_case_name(::testing::TestParamInfo<ShapeCase>(
          std::make_tuple(std::get<0>(info.param), std::get<1>(info.param), int64_t{0}),
          info.index));
    });

// ---- pairs that one side sees, duplicates ------------------------------------

// Values next to zero of either sign and near +-eps (test_gpu_exact.cpp's
// MixedSignNearZero): many pairs seen one way only.
Rows mixed_sign(double eps, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<double> menu = {0.0,       -0.0,     1e-20,     -1e-20,    3e-18,
                              -3e-18,    1e-300,   -1e-300,   eps,       -eps,
                              eps / 2,   -eps / 2, 2 * eps,   -2 * eps,  std::nextafter(eps, 0.0),
                              std::nextafter(-eps, 0.0), std::nextafter(eps, 1e300),
                              std::nextafter(-eps, -1e300)};
  Rows r;
  for (int k = 0; k < 600; ++k)
    r.add(menu[rng() % menu.size()] + 5 * eps * static_cast<double>(k % 11),
          menu[rng() % menu.size()] + 5 * eps * static_cast<double>(k % 13));
  return r;
}

TEST(GpuTypesExact, OneSidedPairs) {
  GD_REQUIRE_GPU();
  const double tiny = -1e-20;
  // Test_exact's hand-checked rows: a one-sided pair joined through its
  // claimer, or not; a border claimed across a one-sided pair.
  for (const Rows& r : {rows_of({{1.9, 0}, {tiny, 0}, {1, 0}, {tiny, 0.5}}),
                        rows_of({{tiny, 0}, {1.9, 0}, {1, 0}, {tiny, 0.5}}),
                        rows_of({{1, 0}, {tiny, 0}, {tiny, 0.5}}),
                        rows_of({{1.9, 0}, {tiny, 0}, {1, 0}, {2.5, 0}, {-0.5, 0}, {100, 0}})})
    for (int64_t m : {0, 1, 2, 3, 4}) expect_types_match(r, 1.0, m, "hand-checked");
  size_t one_sided = 0;
  for (double eps : {1.0, 0.1, 2.5e-7}) {
    Rows r = mixed_sign(eps, 901);
    one_sided += one_sided_pairs(r, eps);
    for (int64_t m : {0, 1, 2, 3, 5, 8}) expect_types_match(r, eps, m, "mixed sign");
  }
  EXPECT_GT(one_sided, 0u);
}

TEST(GpuSweepExact, OneSidedPairs) {
  GD_REQUIRE_GPU();
  // test_sweep.cpp's offset lattice and lattice at 1000.3 (neighbours at
  // exactly eps after rounding), and the mixed-sign sets.
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
  size_t one_sided = 0;
  for (double eps : {1.0, 0.1, 2.5e-7}) {
    Rows m = mixed_sign(eps, 902);
    one_sided += one_sided_pairs(m, eps);
    expect_sweep_matches(m, eps, {0, 1, 2, 3, 4, 5, 6, 8, 12}, "mixed sign");
  }
  EXPECT_GT(one_sided, 0u);
}

TEST(GpuSweepExact, DuplicatesAndDenseClumps) {
  GD_REQUIRE_GPU();
  Rows d = duplicate_rows(3000, 120, 50, 13);
  sprinkle_empty_and_null(d, 9, 14);
  for (double eps : {0.0, 2.0, 5.0}) {
    expect_sweep_matches(d, eps, {0, 1, 2, 4, 8, 16, 30, 64}, "duplicates");
    for (int64_t m : {1, 2, 16, 64}) expect_types_match(d, eps, m, "duplicates");
  }
  // Clumps of 1 to 60 points (cells dense at some values, not at others).
  std::mt19937_64 rng(31);
  std::uniform_real_distribution<double> u(-0.04, 0.04);
  Rows r;
  for (int i = 0; i < 400; ++i) {
    const double cx = (i % 20) * 0.45, cy = (i / 20) * 0.45;
    const int m = 1 + static_cast<int>(rng() % 60);
    for (int k = 0; k < m; ++k) r.add(cx + u(rng), cy + u(rng));
  }
  sprinkle_empty_and_null(r, 23, 32);
  expect_sweep_matches(r, 1.0, {2, 3, 5, 8, 13, 21, 40, 80, 150, 400}, "clumps, eps 1");
  expect_sweep_matches(r, 0.2, {2, 10, 40, 59}, "clumps, eps 0.2");
  for (int64_t m : {2, 13, 59}) expect_types_match(r, 0.2, m, "clumps");
}

TEST(GpuSweepExact, EdgeCases) {
  GD_REQUIRE_GPU();
  Rows none;
  expect_sweep_matches(none, 1.0, {2, 3}, "no rows");
  Rows nulls;
  for (int i = 0; i < 5; ++i) nulls.add(NAN, NAN, i % 2 ? GD_ROW_NULL : GD_ROW_EMPTY);
  expect_sweep_matches(nulls, 1.0, {0, 1, 2}, "EMPTY and NULL only");
  expect_types_match(nulls, 1.0, 1, "EMPTY and NULL only");
  Rows few = uniform_rows(50, 0, 3, 5);
  expect_sweep_matches(few, 1.0, {60, 51, 50, 49, 2}, "values around the number of points");
  expect_sweep_matches(few, 1.0, {100, 1000}, "every value above the number of points");
  expect_types_match(few, 1.0, 50, "minpoints = points");
}

#ifdef GD_HAVE_CUDA

// The strip path: core flags of every point (point types), and a sweep
// swept value by value in strips.
TEST(GpuTypesStrips, CoreFlagsMatchCpu) {
  GD_REQUIRE_GPU();
  Rows base = make_shape(Shape::kBlobs, 831, true);
  Rows r;
  for (int copy = 0; copy < 8; ++copy)
    for (size_t i = 0; i < base.size(); ++i) r.add(base.x[i] + 60.0 * copy, base.y[i]);
  for (int64_t m : {1, 2, 5, 12}) {
    gd_params p = params_for(1.0, m);
    gd::CancelToken none(p);
    std::vector<uint32_t> rep(r.size());
    std::vector<uint8_t> core(r.size(), 9), want(r.size(), 8);
    gd_run_stats st{};
    gd::cuda::Options opts;
    opts.max_strip_points = r.size() / 4;
    gd::cuda::RunInfo info;
    gd::cuda::cluster_host(view(r), p, none, rep.data(), st, opts, &info, core.data());
    EXPECT_GE(info.strips, 3u);
    p.backend = GD_BACKEND_CPU;
    std::vector<uint32_t> crep(r.size());
    gd::cpu_cluster(view(r), p, none, crep.data(), st, want.data());
    EXPECT_EQ(core, want) << "minpoints " << m;
    EXPECT_EQ(ids_of(r, rep, m), ids_of(r, crep, m)) << "minpoints " << m;
  }
}

TEST(GpuSweepStrips, ValueByValueMatchesCpu) {
  GD_REQUIRE_GPU();
  Rows base = make_shape(Shape::kUniform, 832, true);
  Rows r;
  for (int copy = 0; copy < 8; ++copy)
    for (size_t i = 0; i < base.size(); ++i) r.add(base.x[i] + 60.0 * copy, base.y[i]);
  const std::vector<int64_t> levels{1, 2, 4, 9};
  gd_params p = params_for(1.0, 0);
  gd::CancelToken none(p);
  gd::cuda::Options opts;
  opts.max_strip_points = r.size() / 4;
  gd_run_stats st{};
  std::vector<int> seen(levels.size(), 0);
  gd::cuda::sweep_host(view(r), 1.0, levels, p, none, nullptr,
                       [&](size_t k, const uint32_t* rep) {
                         ++seen[k];
                         std::vector<uint32_t> v(rep, rep + r.size());
                         EXPECT_EQ(ids_of(r, v, levels[k]), cpu_ids(r, 1.0, levels[k]))
                             << "minpoints " << levels[k];
                       },
                       st, opts);
  EXPECT_EQ(seen, std::vector<int>(levels.size(), 1));
  EXPECT_EQ(st.backend, GD_BACKEND_GPU);
  EXPECT_GE(st.strips, 3);
}

// How each value's ranks come down: through the lanes (chunk_points sends
// even a small set through them), plain copies, or one lane; into the
// caller's memory (out) or the sweep's own; each value's ranks are those of
// one cluster_host at that value with default options.
TEST(GpuSweepTransfers, EveryCopyModeGivesOneCallsRanks) {
  GD_REQUIRE_GPU();
  Rows r = blob_rows(30000, 40, 300.0, 2.0, 77);
  const std::vector<int64_t> levels{1, 2, 3, 5, 8, 13, 21};
  gd_params p = params_for(1.0, 0);
  gd::CancelToken none(p);
  std::vector<std::vector<uint32_t>> want(levels.size(), std::vector<uint32_t>(r.size()));
  for (size_t k = 0; k < levels.size(); ++k) {
    gd_params one = params_for(1.0, levels[k]);
    gd_run_stats st{};
    gd::cuda::cluster_host(view(r), one, none, want[k].data(), st, gd::cuda::Options());
  }
  struct Mode {
    uint32_t chunk_points;
    int transfer_mode;
    bool out;
  };
  for (Mode mode : {Mode{0, 0, true}, Mode{0, 0, false}, Mode{512, 0, true}, Mode{512, 0, false},
                    Mode{777, 2, true}, Mode{0, 1, true}, Mode{0, 1, false}}) {
    gd::cuda::Options opts;
    opts.chunk_points = mode.chunk_points;
    opts.transfer_mode = mode.transfer_mode;
    std::vector<std::vector<uint32_t>> got(levels.size(),
                                           std::vector<uint32_t>(r.size(), 0xdeadbeefu));
    std::vector<uint32_t*> out;
    for (auto& g : got) out.push_back(g.data());
    std::vector<int> seen(levels.size(), 0);
    gd_run_stats st{};
    gd::cuda::sweep_host(
        view(r), 1.0, levels, p, none, mode.out ? out.data() : nullptr,
        [&](size_t k, const uint32_t* rep) {
          ++seen[k];
          if (mode.out) EXPECT_EQ(rep, got[k].data()) << "level " << k;
          else std::copy(rep, rep + r.size(), got[k].begin());
        },
        st, opts);
    const std::string what = "chunk " + std::to_string(mode.chunk_points) + " mode " +
                             std::to_string(mode.transfer_mode) + (mode.out ? " out" : " own");
    EXPECT_EQ(seen, std::vector<int>(levels.size(), 1)) << what;
    for (size_t k = 0; k < levels.size(); ++k)
      EXPECT_TRUE(got[k] == want[k]) << what << ", minpoints " << levels[k];
  }
}

// Large enough that every value's ranks go down through the lanes by
// size (above 4 MiB), through gd_cluster_points_sweep: written straight
// into the output where every row is a point, numbered by assign_ids where
// a NULL row is among them; each value's ids are those of one
// gd_cluster_points on the GPU.
TEST(GpuSweepLarge, IdsOfEveryValueMatchOneCalls) {
  GD_REQUIRE_GPU();
  Rows r = uniform_rows(1500000, 0, 700, 5);
  const std::vector<int64_t> values{9, 2, 17, 5, 9};
  for (bool with_null : {false, true}) {
    if (with_null) r.add(NAN, NAN, GD_ROW_NULL);
    Swept s = sweep(r, 1.0, values, GD_BACKEND_GPU);
    EXPECT_EQ(s.stats.backend, GD_BACKEND_GPU);
    for (size_t k = 0; k < values.size(); ++k) {
      gd_params p;
      gd_params_init(&p);
      p.eps = 1.0;
      p.minpoints = values[k];
      p.backend = GD_BACKEND_GPU;
      std::vector<int32_t> want(r.size(), -7);
      gd_error err{};
      ASSERT_EQ(gd_cluster_points(r.x.data(), r.y.data(), r.kinds.data(),
                                  static_cast<int64_t>(r.size()), &p, want.data(), nullptr, &err),
                GD_OK)
          << err.message;
      std::vector<int32_t> got(s.ids.begin() + k * r.size(), s.ids.begin() + (k + 1) * r.size());
      EXPECT_EQ(first_difference(got, want), -1)
          << "minpoints " << values[k] << (with_null ? " with a NULL row" : "");
    }
  }
}

// Up to 2^24 clusters in one value, and values where every point is noise,
// through the lanes and through a plain copy (below 1 MiB of ranks): every
// row's id is its cluster's number by first row, known from how the rows
// were made (no other back end's answer in between).
TEST(GpuSweepKnown, ManyClustersGiveTheKnownIds) {
  GD_REQUIRE_GPU();
  struct Case {
    size_t clusters;
    int size;
    size_t noise;
    const char* what;
  };
  for (const Case& c : {Case{200, 3, 50, "200 clusters, plain"},
                        Case{300, 3, 2000000, "300 clusters, lanes"},
                        Case{70000, 3, 0, "70,000 clusters, plain"},
                        Case{70000, 3, 1000000, "70,000 clusters, lanes"},
                        Case{size_t{1} << 24, 2, 0, "2^24 clusters, lanes"}}) {
    const KnownClusters k(c.clusters, c.size, c.noise, 29);
    const std::vector<int64_t> values = c.size == 3 ? std::vector<int64_t>{2, 3, 4}
                                                    : std::vector<int64_t>{2, 3};
    Swept s = sweep(k.rows, 1.0, values, GD_BACKEND_GPU);
    EXPECT_EQ(s.stats.backend, GD_BACKEND_GPU) << c.what;
    const size_t n = k.rows.size();
    for (size_t v = 0; v < values.size(); ++v) {
      std::vector<int32_t> got(s.ids.begin() + v * n, s.ids.begin() + (v + 1) * n);
      EXPECT_EQ(first_difference(got, k.ids_at(values[v])), -1)
          << c.what << ", minpoints " << values[v];
    }
  }
}

#endif  // GD_HAVE_CUDA

}  // namespace
}  // namespace gd_test
