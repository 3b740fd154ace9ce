// core_diff.cpp — differential fuzzing of the clustering core: random small
// data sets through the CPU path (1 to 4 threads), the GPU path when one is
// usable, the minpoints sweep, and the brute-force references of
// test/unit/reference.cpp (PostGIS's row-order algorithm emulated statement
// by statement, and the rules written out).  Every answer must be the same
// ids, exactly (ours are numbered by first row).  With --nd, the 3-D path
// with every z = 0 as well (off by default: its relation, |d_k| <= eps on
// each axis, differs from the 2-D query box at the last bit, e.g. --replay
// 619).
//
//   core_diff [--sets N] [--seed S] [--max-n N] [--gpu] [--nd] [--seconds T]
//   core_diff --replay SEED [--gpu] [--nd]   one set, printed with every answer
//
// Set i uses seed S + i (S defaults to the time): a difference prints that
// seed and the command that replays it.  Data: uniform points, few sites
// (duplicates), lattices at exactly eps and an ulp off it, coordinates from
// 1e-300 (squares underflow) to 1e300 (squares overflow), offsets of 1e15,
// mixed signs near zero, NULL and EMPTY rows; eps 0, a lattice step times
// 1, sqrt 2, 1.5, 3 or 1 - 1e-12, or infinity; minpoints 0 to n + 1.
// Build and run: test/fuzz/core_diff.sh (see there).  Exit status 1 when a
// difference was found, 2 on a usage error.
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "gd_core.h"
#include "reference.hpp"

namespace {

struct Set {
  uint64_t seed = 0;
  std::vector<double> x, y;
  std::vector<uint8_t> kind;
  double eps = 0;
  int64_t minpoints = 0;
  std::string what;
};

double pick(std::mt19937_64& rng, std::initializer_list<double> v) {
  std::uniform_int_distribution<size_t> d(0, v.size() - 1);
  return *(v.begin() + d(rng));
}

Set make_set(uint64_t seed, int max_n) {
  Set s;
  s.seed = seed;
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u01(0.0, 1.0);
  auto uint = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };

  const int n = uint(0, max_n);
  const double scale = pick(rng, {1.0, 1.0, 1e-300, 1e-160, 1e-5, 1e5, 1e150, 1e300});
  const double offset = u01(rng) < 0.2 ? pick(rng, {1e15, -1e15, 1e5}) * (scale > 1e100 ? 0 : 1) : 0;
  const double step = pick(rng, {1.0, 0.5, 0.25, 0.1, 0.3, 0.7}) * scale;
  const int pattern = uint(0, 5);
  const int sites = uint(1, 10);
  const double null_frac = u01(rng) < 0.3 ? 0.1 : 0.0;
  const double empty_frac = u01(rng) < 0.3 ? 0.1 : 0.0;

  static const char* names[] = {"uniform", "sites", "lattice", "lattice+ulp", "near zero",
                                "line"};
  char buf[200];
  for (int i = 0; i < n; ++i) {
    double px = 0, py = 0;
    switch (pattern) {
      case 0:  // uniform in a square of a few steps
        px = offset + step * 4 * u01(rng);
        py = offset + step * 4 * u01(rng);
        break;
      case 1:  // a few sites: duplicates
      {
        std::mt19937_64 site_rng(seed * 7919 + static_cast<uint64_t>(uint(0, sites - 1)));
        px = offset + step * static_cast<double>(site_rng() % 6);
        py = offset + step * static_cast<double>(site_rng() % 6);
        break;
      }
      case 2:  // lattice at exactly the step
        px = offset + step * uint(0, 5);
        py = offset + step * uint(0, 5);
        break;
      case 3:  // lattice, each coordinate moved by up to two ulps
        px = offset + step * uint(0, 5);
        py = offset + step * uint(0, 5);
        for (int k = uint(-2, 2); k != 0; k += k > 0 ? -1 : 1)
          px = std::nextafter(px, k > 0 ? INFINITY : -INFINITY);
        for (int k = uint(-2, 2); k != 0; k += k > 0 ? -1 : 1)
          py = std::nextafter(py, k > 0 ? INFINITY : -INFINITY);
        break;
      case 4:  // mixed signs near zero
        px = step * (u01(rng) - 0.5) * pick(rng, {1.0, 1e-10, 1e-300});
        py = step * (u01(rng) - 0.5) * pick(rng, {1.0, 1e-10, 1e-300});
        break;
      default:  // points on a line at the step
        px = offset + step * i;
        py = offset + step * 0.5 * i;
        break;
    }
    double r = u01(rng);
    uint8_t k = r < null_frac ? GD_ROW_NULL : r < null_frac + empty_frac ? GD_ROW_EMPTY : GD_ROW_POINT;
    s.x.push_back(k == GD_ROW_POINT ? px : 0.0);
    s.y.push_back(k == GD_ROW_POINT ? py : 0.0);
    s.kind.push_back(k);
  }
  double f = pick(rng, {0.0, 1.0, 1.0, std::sqrt(2.0), 1.5, 3.0, 1.0 - 1e-12, INFINITY});
  s.eps = f == 0.0 ? 0.0 : std::isinf(f) ? INFINITY : step * f;
  switch (uint(0, 7)) {
    case 0: s.minpoints = 0; break;
    case 1: s.minpoints = 1; break;
    case 2: case 3: s.minpoints = 2; break;
    case 4: s.minpoints = uint(3, 5); break;
    case 5: s.minpoints = n; break;
    case 6: s.minpoints = n + 1; break;
    default: s.minpoints = uint(2, 10); break;
  }
  std::snprintf(buf, sizeof buf, "%s, n %d, scale %g, offset %g, step %g, eps %g, minpoints %" PRId64,
                names[pattern], n, scale, offset, step, s.eps, s.minpoints);
  s.what = buf;
  return s;
}

std::string ids_text(const std::vector<int32_t>& ids) {
  std::string t = "{";
  for (size_t i = 0; i < ids.size(); ++i) {
    if (i) t += ",";
    t += ids[i] == GD_NOISE ? std::string("-") : std::to_string(ids[i]);
  }
  return t + "}";
}

struct Runner {
  bool gpu = false;
  bool nd = false;
  bool verbose = false;
  uint64_t differences = 0;
  uint64_t runs = 0;
  uint64_t points = 0;
  std::string replay_hint;

  void report(const Set& s, const char* path, const std::vector<int32_t>& got,
              const std::vector<int32_t>& want, const char* want_name) {
    ++differences;
    std::printf("DIFF seed=%" PRIu64 " %s: %s gives %s, %s gives %s\n  (%s)\n  replay: %s --replay %" PRIu64
                "%s%s\n",
                s.seed, s.what.c_str(), path, ids_text(got).c_str(), want_name,
                ids_text(want).c_str(), "x y kind below", replay_hint.c_str(), s.seed,
                gpu ? " --gpu" : "", nd ? " --nd" : "");
    for (size_t i = 0; i < s.x.size(); ++i)
      std::printf("    %zu: %a %a kind %d\n", i, s.x[i], s.y[i], s.kind[i]);
  }

  // One core call; false (and a report) when it fails.
  bool call(const Set& s, gd_backend backend, int threads, std::vector<int32_t>& ids,
            const char* path) {
    gd_params p;
    gd_params_init(&p);
    p.eps = s.eps;
    p.minpoints = s.minpoints;
    p.backend = backend;
    p.threads = threads;
    p.min_items_per_thread = 1;  // several threads even on small sets
    gd_error err;
    std::memset(&err, 0, sizeof err);
    ids.assign(s.x.size(), -7);
    ++runs;
    gd_status st = gd_cluster_points(s.x.data(), s.y.data(), s.kind.data(),
                                     static_cast<int64_t>(s.x.size()), &p, ids.data(), nullptr, &err);
    if (st != GD_OK) {
      ++differences;
      std::printf("DIFF seed=%" PRIu64 " %s: %s failed: status %d, %s\n", s.seed, s.what.c_str(),
                  path, static_cast<int>(st), err.message);
      return false;
    }
    return true;
  }

  void check(const Set& s) {
    const int64_t n = static_cast<int64_t>(s.x.size());
    for (uint8_t k : s.kind) points += k == GD_ROW_POINT;
    std::vector<int32_t> want = gd_test::postgis_order_dbscan(s.x, s.y, s.kind, s.eps, s.minpoints);
    want = gd_test::canonical_ids(want);
    std::vector<int32_t> rules = gd_test::reference_dbscan(s.x, s.y, s.kind, s.eps, s.minpoints);
    if (rules != want) report(s, "reference_dbscan (the rules)", rules, want, "postgis_order_dbscan");
    if (verbose) std::printf("%s\n  PostGIS emulation %s\n", s.what.c_str(), ids_text(want).c_str());

    std::vector<int32_t> got;
    for (int t = 1; t <= 4; ++t) {
      char path[40];
      std::snprintf(path, sizeof path, "cpu, %d thread%s", t, t > 1 ? "s" : "");
      if (call(s, GD_BACKEND_CPU, t, got, path) && got != want) report(s, path, got, want, "PostGIS emulation");
      if (verbose) std::printf("  %s %s\n", path, ids_text(got).c_str());
    }
    if (gpu && call(s, GD_BACKEND_GPU, 0, got, "gpu")) {
      if (got != want) report(s, "gpu", got, want, "PostGIS emulation");
      if (verbose) std::printf("  gpu %s\n", ids_text(got).c_str());
    }

    // 3-D with every z = 0: the same ids (README), except at the last bit.
    if (nd) {
      std::vector<double> xyz(static_cast<size_t>(n) * 3, 0.0);
      for (int64_t i = 0; i < n; ++i) {
        xyz[3 * i] = s.x[i];
        xyz[3 * i + 1] = s.y[i];
      }
      gd_params p;
      gd_params_init(&p);
      p.eps = s.eps;
      p.minpoints = s.minpoints;
      gd_error err;
      std::vector<int32_t> ids(s.x.size(), -7);
      ++runs;
      if (gd_cluster_points_nd(xyz.data(), 3, s.kind.data(), n, &p, ids.data(), nullptr, &err) != GD_OK) {
        ++differences;
        std::printf("DIFF seed=%" PRIu64 " %s: 3-D failed: %s\n", s.seed, s.what.c_str(), err.message);
      } else if (ids != want) {
        report(s, "3-D, z = 0", ids, want, "PostGIS emulation");
      }
    }

    // The sweep over a few minpoints values: each as its own clustering.
    {
      const int64_t values[] = {s.minpoints, 0, 1, 2, 3, n};
      const int64_t nv = 6;
      std::vector<int32_t> ids(static_cast<size_t>(n * nv) + 1, -7);
      gd_params p;
      gd_params_init(&p);
      p.eps = s.eps;
      p.threads = 2;
      p.min_items_per_thread = 1;  // several threads even on small sets
      gd_error err;
      ++runs;
      if (gd_cluster_points_sweep(s.x.data(), s.y.data(), s.kind.data(), n, &p, values, nv, ids.data(),
                                  nullptr, &err) != GD_OK) {
        ++differences;
        std::printf("DIFF seed=%" PRIu64 " %s: sweep failed: %s\n", s.seed, s.what.c_str(), err.message);
      } else {
        for (int64_t k = 0; k < nv; ++k) {
          std::vector<int32_t> one(ids.begin() + k * n, ids.begin() + (k + 1) * n);
          std::vector<int32_t> w = gd_test::canonical_ids(
              gd_test::postgis_order_dbscan(s.x, s.y, s.kind, s.eps, values[k]));
          if (one != w) {
            char path[60];
            std::snprintf(path, sizeof path, "sweep, minpoints %" PRId64, values[k]);
            report(s, path, one, w, "PostGIS emulation");
          }
        }
      }
    }
  }
};

int usage() {
  std::fprintf(stderr,
               "usage: core_diff [--sets N] [--seed S] [--max-n N] [--gpu] [--nd] [--seconds T] [--verbose]\n"
               "       core_diff --replay SEED [--gpu] [--nd]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  uint64_t sets = 2000;
  uint64_t seed = static_cast<uint64_t>(
      std::chrono::system_clock::now().time_since_epoch().count() / 1000);
  int max_n = 40;
  double seconds = 0;
  bool replay = false;
  Runner r;
  r.replay_hint = argv[0];
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> const char* { return i + 1 < argc ? argv[++i] : nullptr; };
    const char* v = nullptr;
    if (a == "--sets" && (v = next())) sets = std::strtoull(v, nullptr, 10);
    else if (a == "--seed" && (v = next())) seed = std::strtoull(v, nullptr, 10);
    else if (a == "--max-n" && (v = next())) max_n = std::atoi(v);
    else if (a == "--seconds" && (v = next())) seconds = std::atof(v);
    else if (a == "--replay" && (v = next())) { seed = std::strtoull(v, nullptr, 10); replay = true; }
    else if (a == "--gpu") r.gpu = true;
    else if (a == "--nd") r.nd = true;
    else if (a == "--verbose") r.verbose = true;
    else return usage();
  }
  if (max_n < 0 || max_n > 100000) return usage();
  if (r.gpu) {
    gd_error why;
    std::memset(&why, 0, sizeof why);
    if (!gd_gpu_available(0, &why)) {
      std::printf("core diff: no usable GPU (%s): the GPU path is left out\n", why.message);
      r.gpu = false;
    }
  }
  if (replay) {
    r.verbose = true;
    Set s = make_set(seed, max_n);
    r.check(s);
    for (size_t i = 0; i < s.x.size(); ++i)
      std::printf("    %zu: %.17g %.17g kind %d\n", i, s.x[i], s.y[i], s.kind[i]);
    std::printf("replay seed %" PRIu64 ": %" PRIu64 " differences\n", seed, r.differences);
    return r.differences ? 1 : 0;
  }

  auto t0 = std::chrono::steady_clock::now();
  uint64_t done = 0;
  for (; seconds > 0 || done < sets; ++done) {
    if (seconds > 0 &&
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() >= seconds)
      break;
    r.check(make_set(seed + done, max_n));
    if (r.differences > 20) {
      std::printf("core diff: stopping after 20 differences\n");
      break;
    }
  }
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("core diff: %" PRIu64 " sets (seeds %" PRIu64 "..%" PRIu64 ", up to %d rows, %" PRIu64
              " points), %" PRIu64 " core runs (cpu 1-4 threads%s%s, sweep) against the PostGIS "
              "emulation: %" PRIu64 " differences, %.1f s\n",
              done, seed, seed + (done ? done - 1 : 0), max_n, r.points, r.runs, r.gpu ? ", gpu" : "",
              r.nd ? ", 3-D" : "", r.differences, secs);
  return r.differences ? 1 : 0;
}
