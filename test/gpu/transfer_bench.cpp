// transfer_bench.cpp — times the GPU back end's host<->device transfer modes
// (gd::cuda::Options::transfer_mode) on 1M and 10M uniform points, then the
// whole entry point, host arrays in and ids out (gd_cluster_points, wall
// clock, the figure of issue 9's target); built and run by test/gpu/run,
// stage "xfer".
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <random>
#include <vector>

#include "../../cuda/gd_cuda.hpp"
#include "gd_core.h"

int main() {
  for (uint32_t n : {1000000u, 10000000u}) {
    std::mt19937_64 rng(7);
    std::uniform_real_distribution<double> u(0, 1000 * std::sqrt(n / 1e6));
    std::vector<double> x(n), y(n);
    for (uint32_t i = 0; i < n; ++i) x[i] = u(rng), y[i] = u(rng);
    std::vector<uint32_t> rep(n);
    gd_params p;
    gd_params_init(&p);
    p.eps = 1;
    p.minpoints = 10;
    p.backend = GD_BACKEND_GPU;
    gd::CancelToken none(p);
    gd::PointsView pts{x.data(), y.data(), n};
#ifdef GD_XFER_BASE  // built against the core before the lanes (commit 4683864)
    const char* names[] = {"pageable (old default)", "staged, 4 copy threads", "staged, 1 thread"};
#else
    const char* names[] = {"lanes (default)", "pageable, no staging", "lanes, 1 host thread"};
#endif
    for (int mode : {1, 0, 2, 1, 0, 2}) {
      gd::cuda::Options o;
      o.transfer_mode = mode;
      double best = 1e9, total = 1e9;
      for (int r = 0; r < 3; ++r) {
        gd_run_stats st{};
        gd::cuda::cluster_host(pts, p, none, rep.data(), st, o);
        best = std::min(best, st.t_transfer);
        total = std::min(total, st.t_total);
      }
      std::printf("n %9u  %-24s  transfer %.2f ms  total %.2f ms\n", n, names[mode], best * 1e3,
                  total * 1e3);
    }
    // The entry point as the database calls it: every row a point, the ids
    // array freshly allocated (untouched pages, as a large palloc).
    std::vector<uint8_t> kind(n, GD_ROW_POINT);
    double best = 1e9;
    gd_run_stats bst{};
    for (int r = 0; r < 5; ++r) {
      std::unique_ptr<int32_t[]> ids(new int32_t[n]);
      gd_run_stats st{};
      gd_error err{};
      auto t0 = std::chrono::steady_clock::now();
      gd_status s = gd_cluster_points(x.data(), y.data(), kind.data(), n, &p, ids.get(), &st, &err);
      double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (s != GD_OK) {
        std::printf("gd_cluster_points: %s\n", err.message);
        return 1;
      }
      if (t < best) best = t, bst = st;
    }
    std::printf("n %9u  gd_cluster_points wall %.2f ms (best of 5): xfer %.2f sort %.2f core %.2f "
                "union %.2f label %.2f, core total %.2f\n",
                n, best * 1e3, bst.t_transfer * 1e3, bst.t_sort * 1e3, bst.t_core * 1e3,
                bst.t_union * 1e3, bst.t_label * 1e3, bst.t_total * 1e3);
  }
}
