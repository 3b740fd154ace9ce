// inscy_bench.cpp — the subspace clustering (gd_inscy.h) on the GPU-INSCY
// paper's real data sets at the paper's parameters (bench/inscy_data.hpp),
// CPU and GPU side by side with the paper's GPU-INSCY times.
//
//   gd_inscy_bench [--sets glass,vowel,pendigits,sky_1x2] [--cpu-max-n N] [--reps R]
//                  [--rows N]   (only the first N rows of each set)
//                  [--threads N] (CPU threads, gd_params.threads; default 0: all cores)
//
// Per set: n, d, kept clusters, their distinct subspaces, subspaces evaluated,
// the best of R runs on each back end (seconds), the paper's time and the
// ratios.  The CPU is skipped above --cpu-max-n rows (default: no limit), the
// GPU when none is usable.  Both back ends must give the same clusters.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "gd_inscy.h"
#include "inscy_data.hpp"

namespace {

struct Outcome {
  bool ok = false;
  double best = 0;
  gd_inscy_result res{};
  std::string why;
};

Outcome time_backend(const gd_inscy_data::DataSet& ds, const gd_inscy_params& ip,
                     gd_backend backend, int reps, int threads) {
  Outcome o;
  gd_params gp;
  gd_params_init(&gp);
  gp.backend = backend;
  gp.threads = threads;
  for (int r = 0; r < reps; ++r) {
    gd_inscy_result res;
    gd_error err;
    auto t0 = std::chrono::steady_clock::now();
    gd_status st = gd_inscy(ds.rows.data(), ds.n, ds.d, &ip, &gp, &res, nullptr, &err);
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (st != GD_OK) {
      o.why = err.message;
      return o;
    }
    if (!o.ok || s < o.best) o.best = s;
    if (o.ok) gd_inscy_result_free(&o.res);
    o.res = res;
    o.ok = true;
  }
  return o;
}

bool same(const gd_inscy_result& a, const gd_inscy_result& b) {
  if (a.nclusters != b.nclusters || a.nmembers != b.nmembers) return false;
  for (int64_t i = 0; i < a.nclusters; ++i)
    if (a.clusters[i].dims != b.clusters[i].dims || a.clusters[i].size != b.clusters[i].size ||
        a.clusters[i].first != b.clusters[i].first)
      return false;
  return std::memcmp(a.members, b.members, sizeof(int32_t) * a.nmembers) == 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string sets = "glass,vowel,pendigits,sky_1x2";
  long cpu_max_n = -1;
  int reps = 3;
  long max_rows = -1;
  int threads = 0;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--sets") && i + 1 < argc) sets = argv[++i];
    else if (!std::strcmp(argv[i], "--cpu-max-n") && i + 1 < argc) cpu_max_n = std::atol(argv[++i]);
    else if (!std::strcmp(argv[i], "--reps") && i + 1 < argc) reps = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--rows") && i + 1 < argc) max_rows = std::atol(argv[++i]);
    else if (!std::strcmp(argv[i], "--threads") && i + 1 < argc) threads = std::atoi(argv[++i]);
    else {
      std::fprintf(stderr,
                   "usage: %s [--sets a,b] [--cpu-max-n N] [--reps R] [--rows N] [--threads N]\n",
                   argv[0]);
      return 2;
    }
  }
  gd_error why;
  const bool gpu = gd_gpu_available(0, &why) != 0;
  std::printf("# eps 0.01, mu 8, F 1, r 1, min_size int(0.05 n); best of %d; GPU %s\n", reps,
              gpu ? "yes" : why.message);
  std::printf("%-10s %7s %3s %8s %9s %9s %10s %10s %10s %10s %10s %s\n", "set", "n", "d",
              "clusters", "subspaces", "evaluated", "cpu_s", "gpu_s", "paper_s", "paper/gpu",
              "cpu/gpu", "same");
  int rc = 0;
  for (const auto& spec : gd_inscy_data::specs()) {
    if (("," + sets + ",").find(std::string(",") + spec.name + ",") == std::string::npos) continue;
    gd_inscy_data::DataSet ds;
    std::string err;
    if (!gd_inscy_data::load(spec, ds, &err)) {
      std::printf("%-10s %s\n", spec.name, err.c_str());
      rc = 1;
      continue;
    }
    if (max_rows > 0 && ds.n > max_rows) {  // a prefix (the paper's smaller sky sets)
      ds.n = static_cast<int>(max_rows);
      ds.rows.resize(size_t(ds.n) * ds.d);
    }
    gd_inscy_params ip{0.01, 8, gd_inscy_data::paper_min_size(ds.n), 1.0, 1.0};
    Outcome c, g;
    if (cpu_max_n < 0 || ds.n <= cpu_max_n) c = time_backend(ds, ip, GD_BACKEND_CPU, reps, threads);
    if (gpu) {
      time_backend(ds, ip, GD_BACKEND_GPU, 1, threads);  // warm-up
      g = time_backend(ds, ip, GD_BACKEND_GPU, reps, threads);
    }
    const gd_inscy_result& r = g.ok ? g.res : c.res;
    auto num = [](bool ok, double v) {
      static char buf[4][32];
      static int k = 0;
      k = (k + 1) % 4;
      if (ok) std::snprintf(buf[k], sizeof buf[k], "%.4f", v); else std::snprintf(buf[k], sizeof buf[k], "-");
      return buf[k];
    };
    const char* agree = (c.ok && g.ok) ? (same(c.res, g.res) ? "yes" : "NO") : "-";
    if (c.ok && g.ok && !same(c.res, g.res)) rc = 1;
    std::printf("%-10s %7d %3d %8lld %9lld %9lld %10s %10s %10.4f %10s %10s %s\n", ds.name.c_str(),
                ds.n, ds.d, (long long)r.nclusters, (long long)r.subspaces, (long long)r.evaluated,
                num(c.ok, c.best), num(g.ok, g.best), ds.paper_gpu_s,
                num(g.ok, g.ok ? ds.paper_gpu_s / g.best : 0),
                num(c.ok && g.ok, c.ok && g.ok ? c.best / g.best : 0), agree);
    if (!c.why.empty()) std::printf("  cpu: %s\n", c.why.c_str());
    if (!g.why.empty()) std::printf("  gpu: %s\n", g.why.c_str());
    std::fflush(stdout);
    if (c.ok) gd_inscy_result_free(&c.res);
    if (g.ok) gd_inscy_result_free(&g.res);
  }
  return rc;
}
