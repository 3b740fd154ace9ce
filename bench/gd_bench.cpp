// gd_bench.cpp — the clustering core alone, CPU against GPU, no PostgreSQL.
//
// For every (data set, size, eps) it times gd_cluster_points on each back end
// (best of --runs), checks that the GPU's ids equal the CPU's row for row (ids
// are canonical: numbered by each cluster's first row, so equal clusters give
// equal arrays), and prints Markdown tables ready for BENCHMARKS.md:
//
//   gd_bench [--sizes 1M,10M] [--datasets uniform,blobs] [--eps 1,2,5]
//            [--minpoints 10] [--runs 3] [--threads 0] [--backends cpu,gpu]
//            [--device 0] [--seed 42] [--budget MB] [--min-items N]
//
// --min-items sets gd_params.min_items_per_thread (0: the default,
// GD_MIN_ITEMS_PER_THREAD): with --min-items 1 --threads T every phase runs
// on T threads however small the input, which is how that default is
// measured (docs/reliability.md).
//
// --budget caps the GPU back end's device memory (gd_params.device_memory_budget):
// points that do not fit are clustered in strips (cuda/strips.cu), so the GPU
// column then times the out-of-core path; the resident column is left out.
//
// --devices LIST (e.g. 0,1, all, or 0,0 for two logical devices on one GPU):
// the multi-device split instead (devices_report): each partition split over
// the list against one device in the same strips and one device in one
// piece, side by side, with the device part of each.
//
// --dims D (3 to 8): points of D coordinates instead (datasets.hpp's n-D sets,
// gd_cluster_points_nd on each back end and, built with CUDA, the device's
// n-D pipeline on resident points), one table (nd_report).
//
// Built with the CUDA back end, it also times "points already on the device":
// gd::cuda::cluster_device on device-resident x, y (uploaded once, outside the
// timing), the clustering core without the host<->device copies, its runs back
// to back on a reused workspace (gd::cuda::Options::keep_device_pool).
#include <sys/utsname.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <limits>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "bench_args.hpp"
#include "datasets.hpp"
#include "gd_core.h"

#if defined(GD_HAVE_CUDA) && defined(__has_include)
#if __has_include("gd_cuda.hpp")
#include "gd_cuda.hpp"
#define GD_BENCH_RESIDENT 1
#endif
#endif

using gd_bench::eps_label;
using gd_bench::size_label;
using gd_bench::split;

namespace {

struct Options {
  std::vector<int64_t> sizes{1000000, 10000000};
  std::vector<std::string> datasets{"uniform", "blobs"};
  std::vector<double> eps{1.0, 2.0, 5.0};
  int64_t minpoints = 10;
  int runs = 3;
  int threads = 0;
  bool cpu = true;
  bool gpu = true;
  int device = 0;
  uint64_t seed = 42;
  size_t budget_mb = 0;        // --budget: GPU device memory budget, 0 = default
  int64_t min_items = 0;       // --min-items: gd_params.min_items_per_thread
  std::vector<int64_t> sweep;  // --sweep: minpoints values (see sweep_report)
  std::vector<int> thread_steps;  // --thread-steps: see threads_report
  std::vector<int> devices;       // --devices: see devices_report
  bool devices_all = false;       // --devices all
  int dims = 2;                   // --dims: see nd_report
};

[[noreturn]] void usage(const char* why) {
  std::fprintf(stderr,
               "gd_bench: %s\n"
               "usage: gd_bench [--sizes 1M,10M] [--datasets uniform,blobs] [--eps 1,2,5]\n"
               "                [--minpoints 10] [--runs 3] [--threads 0] [--backends cpu,gpu]\n"
               "                [--dims 3..8]\n"
               "                [--device 0] [--seed 42] [--budget MB] [--sweep 2,3,...,17]\n"
               "                [--min-items N] [--thread-steps 1,2,4,8,16] [--devices 0,0|all]\n",
               why);
  std::exit(2);
}

// A size argument, or the usage and exit (bench_args.hpp's spellings).
int64_t parse_size(const std::string& s) {
  const int64_t n = gd_bench::parse_size(s);
  if (n < 0) usage(("bad size (positive, at most 2^32 - 1): " + s).c_str());
  return n;
}

Options parse_options(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; i++) {
    std::string a = argv[i];
    if (a == "-h" || a == "--help") usage("help");
    if (i + 1 >= argc) usage(("missing value after " + a).c_str());
    std::string v = argv[++i];
    if (a == "--sizes") {
      o.sizes.clear();
      for (auto& s : split(v)) o.sizes.push_back(parse_size(s));
    } else if (a == "--datasets") {
      o.datasets = split(v);
    } else if (a == "--eps") {
      o.eps.clear();
      for (auto& s : split(v)) o.eps.push_back(std::atof(s.c_str()));
    } else if (a == "--minpoints") {
      o.minpoints = std::atoll(v.c_str());
    } else if (a == "--runs") {
      o.runs = std::max(1, std::atoi(v.c_str()));
    } else if (a == "--threads") {
      o.threads = std::atoi(v.c_str());
    } else if (a == "--dims") {
      o.dims = std::atoi(v.c_str());
      if (o.dims < 3 || o.dims > 8) usage("--dims takes 3 to 8");
    } else if (a == "--backends") {
      o.cpu = o.gpu = false;
      for (auto& b : split(v)) {
        if (b == "cpu") o.cpu = true;
        else if (b == "gpu") o.gpu = true;
        else usage(("unknown backend: " + b).c_str());
      }
    } else if (a == "--device") {
      o.device = std::atoi(v.c_str());
    } else if (a == "--seed") {
      o.seed = std::strtoull(v.c_str(), nullptr, 10);
    } else if (a == "--budget") {
      o.budget_mb = std::strtoull(v.c_str(), nullptr, 10);
    } else if (a == "--min-items") {
      o.min_items = std::atoll(v.c_str());
    } else if (a == "--thread-steps") {
      for (auto& s : split(v)) o.thread_steps.push_back(std::max(1, std::atoi(s.c_str())));
    } else if (a == "--devices") {
      int buf[GD_MAX_DEVICES], count = 0;
      gd_error err{};
      if (gd_parse_devices(v.c_str(), buf, &count, &err) != GD_OK) usage(err.message);
      o.devices_all = count == GD_DEVICES_ALL;
      o.devices.assign(buf, buf + std::max(count, 0));
      if (!o.devices_all && o.devices.empty()) usage("--devices needs a list or all");
    } else if (a == "--sweep") {
      for (auto& s : split(v)) o.sweep.push_back(std::atoll(s.c_str()));
    } else {
      usage(("unknown option: " + a).c_str());
    }
  }
  if (o.sizes.empty() || o.datasets.empty() || o.eps.empty()) usage("empty list");
  return o;
}

// ---- the machine ------------------------------------------------------------

std::string trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ' || s.back() == '\t')) s.pop_back();
  size_t i = 0;
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) i++;
  return s.substr(i);
}

std::string proc_field(const char* path, const char* key) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.compare(0, std::strlen(key), key) == 0) {
      size_t colon = line.find(':');
      if (colon != std::string::npos) return trim(line.substr(colon + 1));
    }
  }
  return "unknown";
}

std::string shell_line(const char* cmd) {
  std::string out;
  if (FILE* p = popen(cmd, "r")) {
    char buf[512];
    while (std::fgets(buf, sizeof buf, p)) out += buf;
    pclose(p);
  }
  return trim(out);
}

// Other work on the machine skews every timing: the report says how busy it was.
std::string load_average() {
  std::ifstream in("/proc/loadavg");
  double a = 0, b = 0, c = 0;
  if (!(in >> a >> b >> c)) return "unknown";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f %.2f %.2f", a, b, c);
  return buf;
}

std::string utc_now() {
  char buf[64];
  std::time_t t = std::time(nullptr);
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M UTC", std::gmtime(&t));
  return buf;
}

// ---- one measurement ---------------------------------------------------------

struct Result {
  bool ran = false;
  std::string error;        // set when the back end failed
  double best = 0.0;        // seconds, best of runs (wall clock around the call)
  gd_run_stats stats{};     // from the best run
  std::vector<int32_t> ids;
};

double now_s() {
  using clock = std::chrono::steady_clock;
  return std::chrono::duration<double>(clock::now().time_since_epoch()).count();
}

Result time_backend(const gd_bench::PointSet& ps, const std::vector<uint8_t>& kinds, double eps,
                    const Options& o, gd_backend backend) {
  Result r;
  gd_params params;
  gd_params_init(&params);
  params.eps = eps;
  params.minpoints = o.minpoints;
  params.backend = backend;
  params.threads = o.threads;
  params.min_items_per_thread = o.min_items;
  params.device = o.device;
  params.device_memory_budget = o.budget_mb << 20;
  const int64_t n = static_cast<int64_t>(ps.x.size());
  r.ids.assign(n, 0);
  std::vector<int32_t> ids(n);
  r.best = std::numeric_limits<double>::infinity();
  for (int run = 0; run < o.runs; run++) {
    gd_run_stats stats{};
    gd_error err{};
    double t0 = now_s();
    gd_status st = gd_cluster_points(ps.x.data(), ps.y.data(), kinds.data(), n, &params,
                                     ids.data(), &stats, &err);
    double t = now_s() - t0;
    if (st != GD_OK) {
      r.error = err.message[0] ? err.message : "error";
      r.ran = false;
      return r;
    }
    if (t < r.best) {
      r.best = t;
      r.stats = stats;
    }
    if (run == 0) r.ids = ids;
  }
  r.ran = true;
  return r;
}

#ifdef GD_BENCH_RESIDENT
// GPU with the points already in device memory: the core alone, no copies.
// The representatives are brought back and numbered outside the timing.
Result time_resident(const gd_bench::PointSet& ps, const std::vector<uint8_t>& kinds, double eps,
                     const Options& o) {
  Result r;
  gd_params params;
  gd_params_init(&params);
  params.eps = eps;
  params.minpoints = o.minpoints;
  params.backend = GD_BACKEND_GPU;
  params.device = o.device;
  const int64_t n = static_cast<int64_t>(ps.x.size());
  try {
    gd::CancelToken cancel(params);
    gd::cuda::DevicePoints dp(ps.x.data(), ps.y.data(), static_cast<uint32_t>(n), o.device);
    // Runs back to back on a reused workspace: the device memory of one run
    // stays mapped in the pool for the next (as ArborX's Kokkos memory space
    // keeps its own), handed back after the last.
    gd::cuda::Options opts;
    opts.keep_device_pool = true;
    r.best = std::numeric_limits<double>::infinity();
    for (int run = 0; run < o.runs; run++) {
      gd_run_stats stats{};
      double t0 = now_s();
      gd::cuda::cluster_device(dp.x(), dp.y(), dp.size(), params, cancel, dp.rep(), stats, opts);
      double t = now_s() - t0;
      if (t < r.best) {
        r.best = t;
        r.stats = stats;
      }
      if (run == 0) {
        std::vector<uint32_t> rep(n);
        dp.copy_reps_to_host(rep.data());
        r.ids.resize(n);
        gd::assign_ids(kinds.data(), n, rep.data(), o.minpoints, r.ids.data());
      }
    }
    gd::cuda::release_device_pool(o.device);
    r.ran = true;
  } catch (const std::exception& e) {
    r.error = e.what();
    r.ran = false;
  }
  return r;
}
#endif

// The first CUDA call of a process creates its context (hundreds of ms);
// a tiny clustering before timing keeps that out of every table row.
void warm_up_gpu(const Options& o) {
  gd_bench::PointSet ps = gd_bench::make_uniform(1000, 1);
  std::vector<uint8_t> kinds(ps.x.size(), GD_ROW_POINT);
  Options once = o;
  once.runs = 1;
  (void)time_backend(ps, kinds, 1.0, once, GD_BACKEND_GPU);
}

// ---- formatting --------------------------------------------------------------

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

std::string secs(const Result& r) {
  if (!r.ran) return r.error.empty() ? "—" : "error";
  return fmt("%.4f", r.best);
}

std::string phases(const Result& r) {
  if (!r.ran) return "—";
  const gd_run_stats& s = r.stats;
  std::string out;
  if (s.backend == GD_BACKEND_GPU) out += fmt("xfer %.4f / ", s.t_transfer);
  out += fmt("sort %.4f / ", s.t_sort);
  out += fmt("core %.4f / ", s.t_core);
  out += fmt("union %.4f / ", s.t_union);
  out += fmt("label %.4f", s.t_label);
  if (s.backend == GD_BACKEND_GPU && s.batches > 1) out += " (" + std::to_string(s.batches) + " batches)";
  return out;
}

struct Row {
  std::string dataset;
  int64_t n;
  double eps;
  Result cpu, gpu, res;
  int64_t clusters = 0;
  double noise = 0.0;
  std::string ids;  // MATCH / DIFF (k rows) / —
  int64_t cells = 0;
};

void summarise(Row& row) {
  const Result& ref = row.cpu.ran ? row.cpu : row.gpu;
  if (!ref.ran) return;
  int32_t maxid = -1;
  int64_t noise = 0;
  for (int32_t id : ref.ids) {
    if (id == GD_NOISE) noise++;
    maxid = std::max(maxid, id);
  }
  row.clusters = static_cast<int64_t>(maxid) + 1;
  row.noise = ref.ids.empty() ? 0.0 : static_cast<double>(noise) / ref.ids.size();
  row.cells = ref.stats.cells;
  // Against the CPU's ids when the CPU ran, else the resident run against the GPU's.
  auto compare = [](const Result& a, const Result& b) -> std::string {
    int64_t diff = 0;
    for (size_t i = 0; i < a.ids.size(); i++) diff += a.ids[i] != b.ids[i];
    return diff == 0 ? "MATCH" : "DIFF (" + std::to_string(diff) + " rows)";
  };
  std::vector<std::string> verdicts;
  if (row.cpu.ran && row.gpu.ran) verdicts.push_back(compare(row.cpu, row.gpu));
  if (row.res.ran && (row.cpu.ran || row.gpu.ran))
    verdicts.push_back("resident " + compare(ref, row.res));
  row.ids.clear();
  for (auto& v : verdicts) row.ids += (row.ids.empty() ? "" : ", ") + v;
  if (row.ids.empty()) row.ids = "—";
}

void print_tables(const std::vector<Row>& rows, int64_t minpoints) {
  auto speedup = [](const Result& cpu, const Result& gpu) {
    return (cpu.ran && gpu.ran && gpu.best > 0) ? fmt("%.1fx", cpu.best / gpu.best) : std::string("—");
  };
  std::printf("\n| data set | points | eps | CPU s | GPU s | GPU resident s | CPU / GPU | CPU / GPU resident | clusters | noise | GPU ids vs CPU |\n");
  std::printf("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
  for (const Row& r : rows) {
    std::printf("| %s | %s | %s | %s | %s | %s | %s | %s | %lld | %.1f%% | %s |\n", r.dataset.c_str(),
                size_label(r.n).c_str(), eps_label(r.eps).c_str(), secs(r.cpu).c_str(),
                secs(r.gpu).c_str(), secs(r.res).c_str(), speedup(r.cpu, r.gpu).c_str(),
                speedup(r.cpu, r.res).c_str(), static_cast<long long>(r.clusters), 100.0 * r.noise,
                r.ids.c_str());
  }
  std::printf("\nminpoints %lld; seconds are wall time around the call, best of the runs: CPU and GPU are\n"
              "gd_cluster_points (host arrays in, ids out); GPU resident is gd::cuda::cluster_device on points\n"
              "already in device memory (no copies, representatives left on the device), its runs back to\n"
              "back on a reused workspace (device memory kept in the pool between them).\n",
              static_cast<long long>(minpoints));

  std::printf("\nPer-phase seconds (gd_run_stats of the best run):\n\n");
  std::printf("| data set | points | eps | grid cells | CPU phases | GPU phases | GPU resident phases |\n");
  std::printf("|---|---:|---:|---:|---|---|---|\n");
  for (const Row& r : rows) {
    std::printf("| %s | %s | %s | %lld | %s | %s | %s |\n", r.dataset.c_str(), size_label(r.n).c_str(),
                eps_label(r.eps).c_str(), static_cast<long long>(r.cells), phases(r.cpu).c_str(),
                phases(r.gpu).c_str(), phases(r.res).c_str());
  }
  bool any_error = false;
  for (const Row& r : rows) {
    for (const Result* res : {&r.cpu, &r.gpu, &r.res}) {
      if (!res->ran && !res->error.empty()) {
        if (!any_error) std::printf("\nErrors:\n\n");
        any_error = true;
        std::printf("- %s %s eps %s %s: %s\n", r.dataset.c_str(), size_label(r.n).c_str(),
                    eps_label(r.eps).c_str(), res == &r.cpu ? "CPU" : res == &r.gpu ? "GPU" : "GPU resident", res->error.c_str());
      }
    }
  }
}

}  // namespace

// ---- minpoints sweeps (gd_cluster_points_sweep, _nd_sweep with --dims) ------
//
// --sweep m1,m2,...: for each back end asked for (--backends; the GPU when
// usable), data set, size and eps, the best of --runs of one
// gd_cluster_points_sweep over all the values against one gd_cluster_points
// per value, the ratio of the sweep to one clustering at the largest value
// (the sweep's counting is capped there) and to the mean single call, and
// one gd_cluster_points_typed at the largest value (point types).  Checks
// that each value's ids are those of its own call on the same back end and,
// on the GPU, those of the CPU sweep (when the CPU was asked for too).
static int sweep_report(const Options& o, bool gpu_ok) {
  std::printf("\nminpoints sweep over %zu values, %d-D points\n\n", o.sweep.size(),
              o.dims > 2 ? o.dims : 2);
  std::printf("| backend | data set | points | eps | sweep s | one call at largest s | mean one call s | all calls s | sweep / one at largest | sweep / mean one | typed call at largest s | ids |\n");
  std::printf("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
  const int64_t largest = *std::max_element(o.sweep.begin(), o.sweep.end());
  std::vector<gd_backend> backends;
  if (o.cpu) backends.push_back(GD_BACKEND_CPU);
  if (gpu_ok) {
    warm_up_gpu(o);
    backends.push_back(GD_BACKEND_GPU);
  }
  for (const std::string& name : o.datasets) {
    for (int64_t n : o.sizes) {
      // The three calls on this data set: 2-D points or, with --dims, n-D.
      gd_bench::PointSet ps;
      gd_bench::NdPointSet nd;
      if (o.dims > 2)
        nd = gd_bench::make_dataset_nd(name, n, o.dims, o.seed);
      else
        ps = gd_bench::make_dataset(name, n, o.seed);
      std::vector<uint8_t> kinds(n, GD_ROW_POINT), types(n);
      const int64_t nv = static_cast<int64_t>(o.sweep.size());
      auto sweep_call = [&](const gd_params* p, int32_t* ids, gd_error* e) {
        return o.dims > 2 ? gd_cluster_points_nd_sweep(nd.coords.data(), o.dims, kinds.data(), n,
                                                       p, o.sweep.data(), nv, ids, nullptr, e)
                          : gd_cluster_points_sweep(ps.x.data(), ps.y.data(), kinds.data(), n, p,
                                                    o.sweep.data(), nv, ids, nullptr, e);
      };
      auto one_call = [&](const gd_params* p, int32_t* ids, uint8_t* t, gd_error* e) {
        if (o.dims > 2)
          return t ? gd_cluster_points_nd_typed(nd.coords.data(), o.dims, kinds.data(), n, p, ids,
                                                t, nullptr, e)
                   : gd_cluster_points_nd(nd.coords.data(), o.dims, kinds.data(), n, p, ids,
                                          nullptr, e);
        return t ? gd_cluster_points_typed(ps.x.data(), ps.y.data(), kinds.data(), n, p, ids, t,
                                           nullptr, e)
                 : gd_cluster_points(ps.x.data(), ps.y.data(), kinds.data(), n, p, ids, nullptr,
                                     e);
      };
      std::vector<int32_t> all(static_cast<size_t>(n) * o.sweep.size()), one(n), cpu_all;
      for (double eps : o.eps) {
        cpu_all.clear();
        for (gd_backend backend : backends) {
          gd_params params;
          gd_params_init(&params);
          params.eps = eps;
          params.threads = o.threads;
          params.min_items_per_thread = o.min_items;
          params.backend = backend;
          params.device = o.device;
          params.device_memory_budget = o.budget_mb * 1024 * 1024;
          gd_error err{};
          double sweep_s = 1e300, largest_s = 1e300, calls_s = 0, typed_s = 1e300;
          for (int run = 0; run < o.runs; run++) {
            double t0 = now_s();
            if (sweep_call(&params, all.data(), &err) != GD_OK) usage(err.message);
            sweep_s = std::min(sweep_s, now_s() - t0);
          }
          bool same = true;
          for (size_t k = 0; k < o.sweep.size(); k++) {
            params.minpoints = o.sweep[k];
            double best = 1e300;
            for (int run = 0; run < o.runs; run++) {
              double t0 = now_s();
              if (one_call(&params, one.data(), nullptr, &err) != GD_OK) usage(err.message);
              best = std::min(best, now_s() - t0);
            }
            calls_s += best;
            if (o.sweep[k] == largest) largest_s = best;
            same = same && std::equal(one.begin(), one.end(), all.begin() + k * n);
          }
          params.minpoints = largest;
          for (int run = 0; run < o.runs; run++) {
            double t0 = now_s();
            if (one_call(&params, one.data(), types.data(), &err) != GD_OK) usage(err.message);
            typed_s = std::min(typed_s, now_s() - t0);
          }
          if (backend == GD_BACKEND_CPU) cpu_all = all;
          else if (!cpu_all.empty()) same = same && cpu_all == all;
          std::printf("| %s | %s | %s | %s | %.4f | %.4f | %.4f | %.4f | %.2f | %.2f | %.4f | %s |\n",
                      backend == GD_BACKEND_GPU ? "gpu" : "cpu", name.c_str(),
                      size_label(n).c_str(), eps_label(eps).c_str(), sweep_s, largest_s,
                      calls_s / o.sweep.size(), calls_s, sweep_s / largest_s,
                      sweep_s / (calls_s / o.sweep.size()), typed_s,
                      same ? "identical" : "DIFFER");
          std::fflush(stdout);
        }
      }
    }
  }
  return 0;
}

// ---- n-D points (--dims) -------------------------------------------------------
//
// For each n-D data set, size and eps: gd_cluster_points_nd on the CPU and
// the GPU (host arrays in, ids out) and, built with CUDA, the device's n-D
// pipeline on resident points (its runs back to back on a reused
// workspace), best of --runs; the GPU's ids against the CPU's row for row.
// A measurement whose first run takes longer than this is not repeated (a
// cliff must not eat a device call's time).
constexpr double kLongRun = 5.0;

static int nd_report(const Options& o, bool gpu_ok) {
  std::printf("\n%d-D points (datasets.hpp), minpoints %lld\n\n", o.dims,
              static_cast<long long>(o.minpoints));
  std::printf("| data set | dims | points | eps | CPU s | GPU s | GPU resident s | cells | CPU / GPU | CPU / resident | ids |\n");
  std::printf("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
  for (const std::string& name : o.datasets) {
    for (int64_t n : o.sizes) {
      std::fprintf(stderr, "generating %s %dD %s ...\n", name.c_str(), o.dims, size_label(n).c_str());
      gd_bench::NdPointSet ps;
      try {
        ps = gd_bench::make_dataset_nd(name, n, o.dims, o.seed);
      } catch (const std::exception& e) {
        usage(e.what());
      }
      std::vector<uint8_t> kinds(n, GD_ROW_POINT);
      for (double eps : o.eps) {
        gd_params params;
        gd_params_init(&params);
        params.eps = eps;
        params.minpoints = o.minpoints;
        params.threads = o.threads;
        params.min_items_per_thread = o.min_items;
        params.device = o.device;
        params.device_memory_budget = o.budget_mb << 20;
        auto time_on = [&](gd_backend backend, std::vector<int32_t>& ids, gd_run_stats& stats) {
          params.backend = backend;
          ids.assign(n, 0);
          double best = std::numeric_limits<double>::infinity();
          for (int run = 0; run < o.runs; run++) {
            gd_error err{};
            double t0 = now_s();
            if (gd_cluster_points_nd(ps.coords.data(), o.dims, kinds.data(), n, &params,
                                     ids.data(), &stats, &err) != GD_OK) {
              std::fprintf(stderr, "  %s: %s\n", backend == GD_BACKEND_GPU ? "GPU" : "CPU", err.message);
              return -1.0;
            }
            best = std::min(best, now_s() - t0);
            if (best > kLongRun) break;  // one run of a slow case is enough
          }
          return best;
        };
        std::vector<int32_t> cpu_ids, gpu_ids, res_ids;
        gd_run_stats cpu_stats{}, gpu_stats{};
        double cpu_s = -1, gpu_s = -1, res_s = -1;
        if (o.cpu) {
          std::fprintf(stderr, "  eps %g CPU ...\n", eps);
          cpu_s = time_on(GD_BACKEND_CPU, cpu_ids, cpu_stats);
          std::fprintf(stderr, "  CPU phases: sort %.4f / core %.4f / union %.4f / label %.4f\n",
                       cpu_stats.t_sort, cpu_stats.t_core, cpu_stats.t_union, cpu_stats.t_label);
        }
        if (gpu_ok) {
          std::fprintf(stderr, "  eps %g GPU ...\n", eps);
          gpu_s = time_on(GD_BACKEND_GPU, gpu_ids, gpu_stats);
#ifdef GD_BENCH_RESIDENT
          std::fprintf(stderr, "  eps %g GPU resident ...\n", eps);
          try {
            params.backend = GD_BACKEND_GPU;
            gd::CancelToken cancel(params);
            gd::cuda::DeviceNdPoints dp(ps.coords.data(), o.dims, static_cast<uint32_t>(n), o.device);
            gd::cuda::Options opts;
            opts.keep_device_pool = true;
            res_s = std::numeric_limits<double>::infinity();
            for (int run = 0; run < o.runs; run++) {
              gd_run_stats stats{};
              double t0 = now_s();
              gd::cuda::cluster_nd_device(dp.coords(), o.dims, static_cast<uint32_t>(n), params,
                                          cancel, dp.rep(), stats, opts);
              const double took = now_s() - t0;
              if (took < res_s)  // the best run's stages, beside the table
                std::fprintf(stderr, "  resident phases: sort %.4f / core %.4f / union %.4f / label %.4f (%llu batches)\n",
                             stats.t_sort, stats.t_core, stats.t_union, stats.t_label,
                             static_cast<unsigned long long>(stats.batches));
              res_s = std::min(res_s, took);
              if (run == 0) {
                std::vector<uint32_t> rep(n);
                dp.copy_reps_to_host(rep.data());
                res_ids.resize(n);
                gd::assign_ids(kinds.data(), n, rep.data(), o.minpoints, res_ids.data());
              }
              if (res_s > kLongRun) break;
            }
            gd::cuda::release_device_pool(o.device);
          } catch (const std::exception& e) {
            std::fprintf(stderr, "  GPU resident: %s\n", e.what());
            res_s = -1;
          }
#endif
        }
        std::string same = "—";
        if (cpu_s >= 0 && gpu_s >= 0)
          same = cpu_ids == gpu_ids && (res_s < 0 || res_ids == cpu_ids) ? "identical" : "DIFFER";
        auto cell = [](double v) { return v < 0 ? std::string("—") : fmt("%.4f", v); };
        auto ratio = [](double a, double b) { return a < 0 || b <= 0 ? std::string("—") : fmt("%.1fx", a / b); };
        std::printf("| %s | %d | %s | %s | %s | %s | %s | %lld | %s | %s | %s |\n", name.c_str(),
                    o.dims, size_label(n).c_str(), eps_label(eps).c_str(), cell(cpu_s).c_str(),
                    cell(gpu_s).c_str(), cell(res_s).c_str(),
                    static_cast<long long>(gpu_s >= 0 ? gpu_stats.cells : cpu_stats.cells),
                    ratio(cpu_s, gpu_s).c_str(), ratio(cpu_s, res_s).c_str(), same.c_str());
        std::fflush(stdout);
      }
    }
  }
  return 0;
}

// ---- threads against work (gd_params.min_items_per_thread) ----------------
//
// --thread-steps 1,2,4,...: for each data set, size and eps, the median time
// of gd_cluster_points (CPU) on each number of threads with every phase
// forced onto that many threads (min_items_per_thread 1), in microseconds,
// repeated until each measurement has taken about 0.2 s.  Where T threads
// first beat one thread, n / T is the work one thread needs to pay for
// itself: what GD_MIN_ITEMS_PER_THREAD is set from.
static int threads_report(const Options& o) {
  std::printf("\nthreads against work, CPU, every phase on T threads (median us)\n\n| data set | points | eps |");
  for (int t : o.thread_steps) std::printf(" T=%d |", t);
  std::printf(" fastest |\n|---|---:|---:|");
  for (size_t i = 0; i <= o.thread_steps.size(); i++) std::printf("---:|");
  std::printf("\n");
  for (const std::string& name : o.datasets) {
    for (int64_t n : o.sizes) {
      gd_bench::PointSet ps = gd_bench::make_dataset(name, n, o.seed);
      std::vector<uint8_t> kinds(n, GD_ROW_POINT);
      std::vector<int32_t> ids(n);
      for (double eps : o.eps) {
        std::printf("| %s | %s | %s |", name.c_str(), size_label(n).c_str(), eps_label(eps).c_str());
        double best = 1e300;
        int best_t = 0;
        for (int t : o.thread_steps) {
          gd_params params;
          gd_params_init(&params);
          params.eps = eps;
          params.minpoints = o.minpoints;
          params.threads = t;
          params.min_items_per_thread = 1;
          gd_error err{};
          std::vector<double> times;
          double spent = 0;
          while (spent < 0.2 || times.size() < 5) {
            double t0 = now_s();
            if (gd_cluster_points(ps.x.data(), ps.y.data(), kinds.data(), n, &params, ids.data(),
                                  nullptr, &err) != GD_OK)
              usage(err.message);
            double dt = now_s() - t0;
            times.push_back(dt);
            spent += dt;
          }
          std::nth_element(times.begin(), times.begin() + times.size() / 2, times.end());
          double med = times[times.size() / 2];
          if (med < best) best = med, best_t = t;
          std::printf(" %.0f |", med * 1e6);
        }
        std::printf(" T=%d |\n", best_t);
        std::fflush(stdout);
      }
    }
  }
  return 0;
}

// ---- several devices (gd_params.devices) ----------------------------------
//
// --devices LIST: for each data set, size and eps, from host arrays:
//   - one GPU in one piece (gd_cluster_points on --device, as the GPU column);
//   - the list: the partition split into strips over its logical devices
//     (split_min_points 1, strips sized by the split), one host thread each;
//   - one device running the same strips one after another (the plan the
//     split used), so that the two differ only in the spreading.
// "Device part" is each logical device's copies and device pipeline summed
// over its strips (gd::cuda::RunInfo): the one device's total against the
// busiest logical device of the list.  On one GPU named twice the logical
// devices share its SMs and copy engines: the ratio measures the overlap of
// two streams, not a speedup of two GPUs.  Ids are compared row for row
// against the one-piece run.
#ifdef GD_BENCH_RESIDENT
namespace {

struct SplitTiming {
  bool ran = false;
  std::string error;
  double best = 0;
  gd::cuda::RunInfo info;
  std::vector<int32_t> ids;
};

SplitTiming time_split(const gd_bench::PointSet& ps, const std::vector<uint8_t>& kinds,
                       double eps, const Options& o, const std::vector<int>& devs,
                       uint64_t max_strip_points) {
  SplitTiming r;
  gd_params params;
  gd_params_init(&params);
  params.eps = eps;
  params.minpoints = o.minpoints;
  params.backend = GD_BACKEND_GPU;
  params.threads = o.threads;
  params.device = devs.front();
  params.device_memory_budget = o.budget_mb << 20;
  params.devices = devs.data();
  params.ndevices = static_cast<int>(devs.size());
  params.split_min_points = 1;
  gd::cuda::Options opts;
  opts.max_strip_points = max_strip_points;
  const auto n = static_cast<uint32_t>(ps.x.size());
  std::vector<uint32_t> rep(n);
  r.best = std::numeric_limits<double>::infinity();
  try {
    gd::CancelToken cancel(params);
    for (int run = 0; run < o.runs; run++) {
      gd_run_stats stats{};
      gd::cuda::RunInfo info;
      double t0 = now_s();
      gd::cuda::cluster_host(gd::PointsView{ps.x.data(), ps.y.data(), n}, params, cancel,
                             rep.data(), stats, opts, &info);
      double t = now_s() - t0;
      if (t < r.best) {
        r.best = t;
        r.info = info;
      }
      if (run == 0) {
        r.ids.resize(n);
        gd::assign_ids(kinds.data(), n, rep.data(), o.minpoints, r.ids.data());
      }
    }
    r.ran = true;
  } catch (const std::exception& e) {
    r.error = e.what();
  }
  return r;
}

std::string compare_ids(const std::vector<int32_t>& a, const std::vector<int32_t>& b) {
  if (a.size() != b.size()) return "—";
  int64_t diff = 0;
  for (size_t i = 0; i < a.size(); i++) diff += a[i] != b[i];
  return diff == 0 ? "MATCH" : "DIFF (" + std::to_string(diff) + " rows)";
}

int devices_report(const Options& o) {
  std::vector<int> devs = o.devices;
  if (o.devices_all)
    for (int d = 0; d < gd_gpu_device_count(); ++d) devs.push_back(d);
  std::string list;
  for (int d : devs) list += (list.empty() ? "" : ",") + std::to_string(d);
  std::printf("\nSeveral devices: the list %s (%zu logical devices on %d visible GPUs) against "
              "device %d\n\n",
              list.c_str(), devs.size(), gd_gpu_device_count(), devs.front());
  std::printf("| data set | points | eps | strips | 1 GPU one piece s | 1 device strips s | list "
              "strips s | one piece / list | 1-dev strips / list | strip loop 1 dev / list s | "
              "device part 1 dev / list s | device-part ratio | ids (list, 1-dev strips) vs one "
              "piece |\n");
  std::printf("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
  std::fflush(stdout);
  for (const std::string& name : o.datasets) {
    for (int64_t n : o.sizes) {
      std::fprintf(stderr, "generating %s %s ...\n", name.c_str(), size_label(n).c_str());
      gd_bench::PointSet ps = gd_bench::make_dataset(name, n, o.seed);
      std::vector<uint8_t> kinds(n, GD_ROW_POINT);
      for (double eps : o.eps) {
        // (Each result goes to stderr as it comes: a run cut short keeps them.)
        std::fprintf(stderr, "  eps %g one piece ...\n", eps);
        Result whole = time_backend(ps, kinds, eps, o, GD_BACKEND_GPU);
        std::fprintf(stderr, "  one GPU, gd_cluster_points: %s s (%lld strips) %s\n",
                     secs(whole).c_str(), static_cast<long long>(whole.stats.strips),
                     whole.error.c_str());
        std::fprintf(stderr, "  eps %g list ...\n", eps);
        SplitTiming multi = time_split(ps, kinds, eps, o, devs, 0);
        std::fprintf(stderr, "  list %s: %.3f s, %u strips, strip loop %.3f s, device part max %.3f "
                     "s (sum %.3f), ids vs one GPU %s %s\n",
                     list.c_str(), multi.best, multi.info.strips, multi.info.strip_wall_s,
                     multi.info.device_busy_max_s, multi.info.device_busy_sum_s,
                     compare_ids(multi.ids, whole.ids).c_str(), multi.error.c_str());
        std::fprintf(stderr, "  eps %g one device, the same strips ...\n", eps);
        SplitTiming one = time_split(ps, kinds, eps, o, {devs.front()},
                                     multi.ran ? multi.info.strip_cap : 0);
        std::fprintf(stderr, "  one device, same strips: %.3f s, %u strips, strip loop %.3f s, "
                     "device part %.3f s, ids vs one GPU %s %s\n",
                     one.best, one.info.strips, one.info.strip_wall_s, one.info.device_busy_sum_s,
                     compare_ids(one.ids, whole.ids).c_str(), one.error.c_str());
        auto ratio = [](bool ok, double a, double b) {
          return ok && b > 0 ? fmt("%.2fx", a / b) : std::string("—");
        };
        bool both = multi.ran && one.ran;
        std::string ids = compare_ids(multi.ids, whole.ids) + ", " + compare_ids(one.ids, whole.ids);
        std::printf("| %s | %s | %s | %u | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
                    name.c_str(), size_label(n).c_str(), eps_label(eps).c_str(),
                    multi.ran ? multi.info.strips : 0, secs(whole).c_str(),
                    one.ran ? fmt("%.3f", one.best).c_str() : one.error.c_str(),
                    multi.ran ? fmt("%.3f", multi.best).c_str() : multi.error.c_str(),
                    ratio(whole.ran && multi.ran, whole.best, multi.best).c_str(),
                    ratio(both, one.best, multi.best).c_str(),
                    both ? (fmt("%.3f", one.info.strip_wall_s) + " / " +
                            fmt("%.3f", multi.info.strip_wall_s)).c_str()
                         : "—",
                    both ? (fmt("%.3f", one.info.device_busy_sum_s) + " / " +
                            fmt("%.3f", multi.info.device_busy_max_s)).c_str()
                         : "—",
                    ratio(both, one.info.device_busy_sum_s, multi.info.device_busy_max_s).c_str(),
                    ids.c_str());
        std::fflush(stdout);
        if (!whole.ran) std::printf("\n- one piece: %s\n", whole.error.c_str());
      }
    }
  }
  std::printf("\nminpoints %lld; wall seconds around the call from host arrays (ids out), best of "
              "%d; \"strip loop\" is the wall time of the strips' gather, copies, device work "
              "and merge; \"device part\" is a device's copies and device pipeline summed over "
              "its strips (the list: its busiest logical device).\n",
              static_cast<long long>(o.minpoints), o.runs);
  return 0;
}

}  // namespace
#endif

int main(int argc, char** argv) {
  Options o = parse_options(argc, argv);

  gd_error why{};
  bool gpu_ok = o.gpu && gd_gpu_available(o.device, &why) != 0;
  std::string gpu_name = shell_line(
      "nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>/dev/null | head -1");
  struct utsname un {};
  uname(&un);

  std::printf("## gd_bench — core alone (no PostgreSQL)\n\n");
  std::printf("- date: %s\n", utc_now().c_str());
  std::printf("- host: %s, Linux %s\n", un.nodename, un.release);
  std::printf("- CPU: %s, %u hardware threads; memory %.0f GiB\n",
              proc_field("/proc/cpuinfo", "model name").c_str(), std::thread::hardware_concurrency(),
              std::atof(proc_field("/proc/meminfo", "MemTotal").c_str()) / 1048576.0);
  std::printf("- GPU: %s\n", gpu_name.empty() ? "none found (nvidia-smi)" : gpu_name.c_str());
  std::printf("- core built with CUDA: %s; GPU back end: %s\n", gd_built_with_cuda() ? "yes" : "no",
              gpu_ok ? "usable" : (o.gpu ? (std::string("not usable: ") + why.message).c_str() : "not asked for"));
  std::printf("- load average at start (1, 5, 15 min): %s\n", load_average().c_str());
  std::printf("- CPU threads: %s (min items per thread %lld); runs per measurement: %d (best kept); seed %llu\n",
              o.threads == 0 ? "all" : std::to_string(o.threads).c_str(),
              static_cast<long long>(o.min_items), o.runs,
              static_cast<unsigned long long>(o.seed));
  std::fflush(stdout);

  if (!o.sweep.empty()) return sweep_report(o, gpu_ok);
  if (!o.thread_steps.empty()) return threads_report(o);
  if (gpu_ok) warm_up_gpu(o);
  if (o.dims > 2) return nd_report(o, gpu_ok);
#ifdef GD_BENCH_RESIDENT
  if (!o.devices.empty() || o.devices_all) {
    if (!gpu_ok) usage("--devices needs a usable GPU");
    return devices_report(o);
  }
#endif

  std::vector<Row> rows;
  for (const std::string& name : o.datasets) {
    for (int64_t n : o.sizes) {
      std::fprintf(stderr, "generating %s %s ...\n", name.c_str(), size_label(n).c_str());
      gd_bench::PointSet ps;
      try {
        ps = gd_bench::make_dataset(name, n, o.seed);
      } catch (const std::exception& e) {
        usage(e.what());
      }
      std::vector<uint8_t> kinds(n, GD_ROW_POINT);
      for (double eps : o.eps) {
        Row row;
        row.dataset = name;
        row.n = n;
        row.eps = eps;
        if (o.cpu) {
          std::fprintf(stderr, "  eps %g CPU ...\n", eps);
          row.cpu = time_backend(ps, kinds, eps, o, GD_BACKEND_CPU);
        }
        if (gpu_ok) {
          std::fprintf(stderr, "  eps %g GPU ...\n", eps);
          row.gpu = time_backend(ps, kinds, eps, o, GD_BACKEND_GPU);
#ifdef GD_BENCH_RESIDENT
          if (o.budget_mb == 0) {
            std::fprintf(stderr, "  eps %g GPU resident ...\n", eps);
            row.res = time_resident(ps, kinds, eps, o);
          }
#endif
        }
        summarise(row);
        // Keep the ids out of memory once compared: 100M rows are 400 MB each.
        row.cpu.ids.clear();
        row.cpu.ids.shrink_to_fit();
        row.gpu.ids.clear();
        row.gpu.ids.shrink_to_fit();
        row.res.ids.clear();
        row.res.ids.shrink_to_fit();
        std::fprintf(stderr, "  eps %g: CPU %s s, GPU %s s, GPU resident %s s, %s\n", eps,
                     secs(row.cpu).c_str(), secs(row.gpu).c_str(), secs(row.res).c_str(),
                     row.ids.c_str());
        rows.push_back(std::move(row));
      }
    }
  }
  print_tables(rows, o.minpoints);
  std::printf("\nLoad average at the end (1, 5, 15 min): %s\n", load_average().c_str());
  return 0;
}
