// test_gpu_nd.cpp — points of 3 to 8 dimensions on the GPU
// (gd_cluster_points_nd[_typed] with GD_BACKEND_GPU, cuda/nd_dbscan.cu):
// the same ids and point types as the CPU's n-D path, row for row, and the
// brute-force definition on small sets; coarse and fine cells, small and
// dense cells, ties at eps, cells too many for one sort key, infinite and
// zero eps, budgets, cancel, device memory given back, the device-resident
// entry.  Skipped where no GPU is usable.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "nd_helpers.hpp"
#include "nd_points.hpp"
#include "reference.hpp"
#include "test_gpu_helpers.hpp"

namespace gd_test {
namespace {

using namespace nd;

// GPU ids and types == CPU ids and types (== the definition when small).
void expect_gpu_nd(const NdRows& r, double eps, int64_t minpoints, bool with_reference) {
  std::vector<uint8_t> gt(r.size(), 9), ct(r.size(), 9);
  gd_run_stats gs{}, cs{};
  std::vector<int32_t> gpu = run_nd_typed(r, eps, minpoints, GD_BACKEND_GPU, &gt, &gs);
  std::vector<int32_t> cpu = run_nd_typed(r, eps, minpoints, GD_BACKEND_CPU, &ct, &cs);
  if (!(minpoints >= 2 && static_cast<int64_t>(r.size()) < minpoints)) {
    EXPECT_EQ(gs.backend, GD_BACKEND_GPU);
  }
  long d = first_difference(gpu, cpu);
  ASSERT_EQ(d, -1) << r.dims << "-D, " << r.size() << " rows, eps " << eps << " minpoints "
                   << minpoints << ": row " << d << " GPU " << (d >= 0 ? gpu[d] : 0) << " CPU "
                   << (d >= 0 ? cpu[d] : 0);
  ASSERT_EQ(gt, ct) << r.dims << "-D eps " << eps << " minpoints " << minpoints;
  // ids alone (no core flags copied back) are the same
  EXPECT_EQ(run_nd_typed(r, eps, minpoints, GD_BACKEND_GPU, nullptr), gpu);
  if (with_reference) {
    std::vector<int32_t> want = reference_graph_dbscan(r.kinds, ref_neighbours(r, eps), minpoints);
    d = first_difference(gpu, want);
    ASSERT_EQ(d, -1) << "GPU vs reference, " << r.dims << "-D eps " << eps << " minpoints "
                     << minpoints << ": row " << d;
    EXPECT_EQ(gt, reference_types(r, eps, minpoints, want));
  }
}

TEST(GpuNd, UniformMatchesReferenceInEveryDimension) {
  GD_REQUIRE_GPU();
  for (int dims = 3; dims <= 8; ++dims) {
    NdRows r = uniform(dims, 700, 10, 100 + dims);
    const double s = 10 / std::pow(700.0, 1.0 / dims);
    for (double f : {0.3, 0.8, 1.2, 2.0})
      for (int64_t m : {0, 1, 2, 4, 10}) expect_gpu_nd(r, s * f, m, true);
  }
}

TEST(GpuNd, BlobsMatchReference) {
  GD_REQUIRE_GPU();
  for (int dims : {3, 4, 6, 8}) {
    NdRows r = blobs(dims, 1500, 5, 50, 1.0, 200 + dims);
    for (double eps : {0.3, 0.7, 1.5})
      for (int64_t m : {2, 5, 12}) expect_gpu_nd(r, eps, m, true);
  }
}

TEST(GpuNd, CellsSpreadOverUncutAxesMatchReference) {
  GD_REQUIRE_GPU();
  for (int dims : {4, 6, 8}) {
    NdRows r = spread_over_uncut_axes(dims, 1500, 300 + dims);
    for (double eps : {0.3, 0.5, 0.9, 1.6})
      for (int64_t m : {2, 5, 12}) expect_gpu_nd(r, eps, m, true);
  }
}

TEST(GpuNd, DenseSmallCellPairsMatchReference) {
  GD_REQUIRE_GPU();
  // Pairs of small cells are joined per cell pair: one thread where both
  // hold few points (sparse fringes), one warp from the larger otherwise
  // (the blobs' centres hold 100 to 200 points a cell at eps 0.4).
  NdRows r = blobs(3, 20000, 4, 6, 0.3, 31);
  for (double eps : {0.12, 0.25, 0.4})
    for (int64_t m : {2, 10, 40}) expect_gpu_nd(r, eps, m, true);
}

TEST(GpuNd, RandomDenseBlobsMatchReference) {
  GD_REQUIRE_GPU();
  for (const NdCase& c : random_dense_blobs(30, 2026))  // Nd.RandomDenseBlobsMatchReference's
    for (int64_t m : {1, 4, 25}) expect_gpu_nd(c.rows, c.eps, m, true);
}

TEST(GpuNd, LargerSetsMatchTheCpuOnCoarseAndFineCells) {
  GD_REQUIRE_GPU();
  // Sparse (coarse cells, few points each) and dense (fine cells, most of
  // them small, pairs of cells joined by one pair or by their boxes).
  for (int dims : {3, 4, 7}) {
    NdRows sparse = uniform(dims, 200000, 100, 300 + dims);
    NdRows dense = blobs(dims, 200000, 20, 100, 1.5, 400 + dims);
    for (int64_t m : {1, 3, 10, 40}) {
      expect_gpu_nd(sparse, dims == 3 ? 1.5 : 4.0, m, false);
      expect_gpu_nd(dense, 0.5, m, false);
      expect_gpu_nd(dense, 2.0, m, false);
    }
  }
}

TEST(GpuNd, DuplicatesAndDenseCells) {
  GD_REQUIRE_GPU();
  for (int dims : {3, 5}) {
    NdRows r = copies(dims);
    for (double eps : {0.0, 0.5, 0.75, 1.0})
      for (int64_t m : {1, 2, 30, 80, 200}) expect_gpu_nd(r, eps, m, true);
  }
}

TEST(GpuNd, LatticeAtExactlyEps) {
  GD_REQUIRE_GPU();
  NdRows r = lattice();
  for (double eps : {0.5, std::nextafter(0.5, 0.0), std::sqrt(2.0) * 0.5, std::sqrt(3.0) * 0.5})
    for (int64_t m : {2, 3, 5, 7, 9}) expect_gpu_nd(r, eps, m, true);
}

TEST(GpuNd, CellsTooManyForOneSortKey) {
  GD_REQUIRE_GPU();
  // Tiny eps over a huge extent: a stable sort pass per axis.
  NdRows r = huge_extent();
  for (double eps : {0.0, 0.3, 0.6}) expect_gpu_nd(r, eps, 2, true);
}

TEST(GpuNd, InfiniteZeroAndTinyEps) {
  GD_REQUIRE_GPU();
  NdRows r = blobs(4, 300, 3, 10, 0.5, 9);
  for (int64_t m : {0, 2, 250, 400}) {
    expect_gpu_nd(r, std::numeric_limits<double>::infinity(), m, true);
    expect_gpu_nd(r, 0.0, m, true);
  }
  NdRows t{3, {}, {}};
  for (int i = 0; i < 50; ++i) t.add({std::ldexp(static_cast<double>(i % 7), -1070), 1e-300 * (i % 3), 0.0});
  for (double eps : {0.0, 1e-320, 1e-300, 3e-300}) expect_gpu_nd(t, eps, 2, true);
}

TEST(GpuNd, SweepEqualsTheCpuSweep) {
  GD_REQUIRE_GPU();
  const std::vector<int64_t> values = {5, 0, 2, 30, 5, 1, 100000, 12};
  for (const NdRows& r : {uniform(3, 50000, 40, 81), blobs(5, 50000, 8, 60, 1.0, 82),
                          blobs(3, 40000, 4, 10, 0.5, 83), copies(3)}) {
    for (double eps : {0.5, 1.5}) {
      gd_run_stats stats{};
      const auto gpu = run_nd_sweep(r, eps, values, GD_BACKEND_GPU, GD_ND_SWEEP_AUTO, &stats);
      const auto cpu = run_nd_sweep(r, eps, values, GD_BACKEND_CPU, GD_ND_SWEEP_AUTO);
      EXPECT_EQ(stats.backend, GD_BACKEND_GPU);
      for (size_t k = 0; k < values.size(); ++k)
        ASSERT_EQ(gpu[k], cpu[k]) << r.dims << "-D eps " << eps << " minpoints " << values[k];
    }
  }
}

// Consecutive values, so that each value's union-find starts from the
// previous one's (only the pairs of new core points tested), with 1 among
// them (a union from scratch again): the dense random blob sets, some with
// NULL and EMPTY rows (the ranks through the host's numbering), and 10^5
// points of fine cells.
TEST(GpuNd, SweepFromEachValueToTheNextEqualsTheCpu) {
  GD_REQUIRE_GPU();
  std::vector<int64_t> values;
  for (int64_t m = 1; m <= 17; ++m) values.push_back(m);
  values.push_back(40);
  int t = 0;
  for (NdCase& c : random_dense_blobs(12, 77)) {
    if (t++ % 2 == 0) {
      c.rows.kinds[3] = GD_ROW_NULL;
      c.rows.kinds[7] = GD_ROW_EMPTY;
    }
    const auto gpu = run_nd_sweep(c.rows, c.eps, values, GD_BACKEND_GPU, GD_ND_SWEEP_AUTO);
    const auto cpu = run_nd_sweep(c.rows, c.eps, values, GD_BACKEND_CPU, GD_ND_SWEEP_AUTO);
    for (size_t k = 0; k < values.size(); ++k)
      ASSERT_EQ(gpu[k], cpu[k]) << "set " << t << ", " << c.rows.dims << "-D eps " << c.eps
                                << " minpoints " << values[k];
  }
  // Crowded cells that are not small, one set or several, value by value.
  for (int dims : {4, 6}) {
    const NdRows r = spread_over_uncut_axes(dims, 3000, 400 + dims);
    for (double eps : {0.3, 0.9}) {
      const auto gpu = run_nd_sweep(r, eps, values, GD_BACKEND_GPU, GD_ND_SWEEP_AUTO);
      const auto cpu = run_nd_sweep(r, eps, values, GD_BACKEND_CPU, GD_ND_SWEEP_AUTO);
      for (size_t k = 0; k < values.size(); ++k)
        ASSERT_EQ(gpu[k], cpu[k]) << dims << "-D spread, eps " << eps << " minpoints "
                                  << values[k];
    }
  }
  const NdRows big = blobs(3, 100000, 12, 60, 1.0, 91);
  for (double eps : {0.3, 1.2}) {
    const auto gpu = run_nd_sweep(big, eps, values, GD_BACKEND_GPU, GD_ND_SWEEP_AUTO);
    for (size_t k = 0; k < values.size(); ++k)
      ASSERT_EQ(gpu[k], run_nd_typed(big, eps, values[k], GD_BACKEND_CPU, nullptr))
          << "eps " << eps << " minpoints " << values[k];
  }
}

#ifdef GD_HAVE_CUDA
TEST(GpuNd, ABudgetTooSmallIsDeviceNoMemAndNothingLeaks) {
  GD_REQUIRE_GPU();
  NdRows r = blobs(3, 300000, 10, 100, 1.0, 77);
  std::vector<int32_t> want = run_nd_typed(r, 0.8, 5, GD_BACKEND_GPU, nullptr);
  const size_t before = gd::cuda::device_memory_used(0);
  gd_params p;
  gd_params_init(&p);
  p.eps = 0.8;
  p.minpoints = 5;
  p.backend = GD_BACKEND_GPU;
  p.device_memory_budget = size_t{1} << 20;
  std::vector<int32_t> ids(r.size());
  gd_error err;
  EXPECT_EQ(gd_cluster_points_nd(r.coords.data(), 3, r.kinds.data(),
                                 static_cast<int64_t>(r.size()), &p, ids.data(), nullptr, &err),
            GD_ERR_DEVICE_NOMEM);
  EXPECT_NE(std::string(err.message).find("device_memory_budget"), std::string::npos)
      << err.message;
  for (int k = 0; k < 3; ++k) EXPECT_EQ(run_nd_typed(r, 0.8, 5, GD_BACKEND_GPU, nullptr), want);
  const size_t after = gd::cuda::device_memory_used(0);
  EXPECT_LE(after, before + (size_t{4} << 20)) << "before " << before << " after " << after;
}

#endif  // GD_HAVE_CUDA

TEST(GpuNd, CancelStopsTheRunAndTheNextIsRight) {
  GD_REQUIRE_GPU();
  NdRows r = blobs(3, 2000000, 30, 100, 2.0, 88);
  NdRows small = blobs(3, 5000, 5, 20, 1.0, 89);
  std::vector<int32_t> want = run_nd_typed(small, 0.7, 4, GD_BACKEND_CPU, nullptr);
  for (int at : {1, 2, 4, 8, 16}) {
    std::atomic<int> polls{0};
    gd_params p;
    gd_params_init(&p);
    p.eps = 3.0;
    p.minpoints = 50;
    p.backend = GD_BACKEND_GPU;
    p.should_cancel = [](void* arg) {
      auto* s = static_cast<std::pair<std::atomic<int>*, int>*>(arg);
      return ++*s->first >= s->second ? 1 : 0;
    };
    std::pair<std::atomic<int>*, int> state{&polls, at};
    p.cancel_arg = &state;
    std::vector<int32_t> ids(r.size());
    gd_error err;
    gd_status st = gd_cluster_points_nd(r.coords.data(), 3, r.kinds.data(),
                                        static_cast<int64_t>(r.size()), &p, ids.data(), nullptr,
                                        &err);
    if (st == GD_OK) continue;  // finished before that many polls
    EXPECT_EQ(st, GD_ERR_CANCELLED) << err.message;
    EXPECT_EQ(run_nd_typed(small, 0.7, 4, GD_BACKEND_GPU, nullptr), want) << "after cancel " << at;
  }
}

#ifdef GD_HAVE_CUDA
TEST(GpuNd, DeviceResidentEntryMatchesTheHostPath) {
  GD_REQUIRE_GPU();
  for (int dims : {3, 6}) {
    NdRows r = uniform(dims, 100000, 30, 500 + dims);
    std::vector<double> pts;
    for (size_t i = 0; i < r.size(); ++i) pts.insert(pts.end(), r.at(i), r.at(i) + dims);
    const uint32_t n = static_cast<uint32_t>(r.size());
    gd_params p;
    gd_params_init(&p);
    p.eps = dims == 3 ? 0.9 : 4.0;
    p.minpoints = 6;
    p.backend = GD_BACKEND_GPU;
    gd::CancelToken cancel(p);
    gd::cuda::DeviceNdPoints dev(pts.data(), dims, n, 0);
    gd_run_stats stats{};
    gd::cuda::cluster_nd_device(dev.coords(), dims, n, p, cancel, dev.rep(), stats);
    std::vector<uint32_t> rep(n);
    dev.copy_reps_to_host(rep.data());
    std::vector<int32_t> ids(n);
    gd::assign_ids(r.kinds.data(), n, rep.data(), p.minpoints, ids.data());
    EXPECT_EQ(ids, run_nd_typed(r, p.eps, p.minpoints, GD_BACKEND_CPU, nullptr));
    EXPECT_EQ(stats.backend, GD_BACKEND_GPU);
    EXPECT_GT(stats.cells, 0);
  }
}

#endif  // GD_HAVE_CUDA

}  // namespace
}  // namespace gd_test
