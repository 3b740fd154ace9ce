// transfer_bench.cpp — times the GPU back end's host<->device transfer modes
// (gd::cuda::Options::transfer_mode) on 1M and 10M uniform points; built and
// run by hand on the device machine (see test/gpu/run, stage "xfer").
#include <algorithm>
#include <cstdio>
#include <random>
#include <vector>

#include "../../cuda/gd_cuda.hpp"

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
    const char* names[] = {"pageable, no staging", "staged, 4 copy threads", "staged, 1 copy thread"};
    for (int mode : {0, 1, 2, 0, 1, 2}) {
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
  }
}
