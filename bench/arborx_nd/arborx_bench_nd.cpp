// arborx_bench_nd.cpp — ArborX 2.1's DBSCAN on exactly the n-D points of
// gd_bench --dims (bench/datasets.cpp's make_dataset_nd, same seed): the 3-D
// twin of the anchors' arborx_bench (2-D), timed the same way, same report.
//
//   arborx_bench_nd [--dims 3] [--sizes 1M,10M] [--datasets uniform,blobs] [--eps 1,2,5]
//                   [--minpoints 10] [--runs 3] [--seed 42] [--impls fdbscan,densebox]
//                   [--precisions float,double] [--labels-out DIR] [--budget S]
//                   [--device N] [--kokkos-... options]
//
// Points: generated once per data set and size on the host in double, as
// ArborX::Point<AB_DIM,float> and <AB_DIM,double> copied to the device once,
// outside all timing. For each eps, precision (double first) and
// implementation: one warm-up call, then --runs timed calls of
// ArborX::dbscan(exec, points, eps, minpoints, labels, params), each the wall
// time between a Kokkos::fence() before and one after; the best is reported.
// The labels view is preallocated and stays on the device.
//
// Differences from the 2-D driver, for a device call's time limit: a variant
// whose warm-up took over 5 s is not repeated (its one call is reported);
// --budget S starts no variant after S seconds (its row says "skipped"). The
// main table's rows are printed as they are measured, so a run that is
// killed keeps them; the points' fingerprints follow the table.
//
// The dimension is a compile-time constant (AB_DIM, 3 unless the build says
// otherwise); --dims must equal it. One source, three translation units for a
// parallel build: ARBORX_BENCH_PART=0 (main), 1 (float), 2 (double).
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "nd_common.hpp"

#ifndef AB_DIM
#define AB_DIM 3
#endif
#ifndef ARBORX_BENCH_PART
#define AB_MAIN 1
#define AB_FLOAT 1
#define AB_DOUBLE 1
#elif ARBORX_BENCH_PART == 0
#define AB_MAIN 1
#elif ARBORX_BENCH_PART == 1
#define AB_FLOAT 1
#elif ARBORX_BENCH_PART == 2
#define AB_DOUBLE 1
#else
#error "ARBORX_BENCH_PART must be 0, 1 or 2"
#endif

#if defined(AB_FLOAT) || defined(AB_DOUBLE)
#include <ArborX_DBSCAN.hpp>
#include <ArborX_Point.hpp>
#endif
#if defined(AB_MAIN) && defined(__has_include)
#if __has_include(<ArborX_Version.hpp>)
#include <ArborX_Version.hpp>
#define AB_HAVE_ARBORX_VERSION 1
#endif
#endif
#ifdef AB_MAIN
#include <sys/utsname.h>
#endif

namespace ab {

enum class Impl { fdbscan, densebox };
enum class Precision { float32, float64 };
constexpr double kLongRun = 5.0;  // seconds: a slower warm-up is not repeated

inline double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

struct Timing {
  std::string error;          // what dbscan() threw
  double warmup = 0.0;        // seconds of the warm-up call
  std::vector<double> times;  // seconds of each timed call (none after a long warm-up)
  double best = 0.0;
};

// The device copy of one data set in one precision.
class Runner {
 public:
  virtual ~Runner() = default;
  virtual double upload_seconds() const = 0;
  // One warm-up and runs timed calls; labels get the last call's.
  virtual Timing run(double eps, int minpts, Impl impl, int runs, std::vector<int>& labels) = 0;
};
std::unique_ptr<Runner> make_runner_float(const std::vector<double>& coords);
std::unique_ptr<Runner> make_runner_double(const std::vector<double>& coords);

}  // namespace ab

// ---- ArborX, once per coordinate type ---------------------------------------

#if defined(AB_FLOAT) || defined(AB_DOUBLE)
namespace ab {
namespace {

template <typename Coord>
class RunnerImpl final : public Runner {
 public:
  using ExecSpace = Kokkos::DefaultExecutionSpace;
  using MemSpace = ExecSpace::memory_space;
  using Point = ArborX::Point<AB_DIM, Coord>;

  explicit RunnerImpl(const std::vector<double>& coords)
      : n_(static_cast<int>(coords.size() / AB_DIM)),
        points_(Kokkos::view_alloc(Kokkos::WithoutInitializing, "arborx_bench_nd::points"), n_),
        labels_(Kokkos::view_alloc(Kokkos::WithoutInitializing, "arborx_bench_nd::labels"), n_) {
    auto host = Kokkos::create_mirror_view(Kokkos::WithoutInitializing, points_);
    for (int i = 0; i < n_; i++)
      for (int k = 0; k < AB_DIM; k++) host(i)[k] = static_cast<Coord>(coords[size_t(i) * AB_DIM + k]);
    Kokkos::fence();
    double t0 = now_s();
    Kokkos::deep_copy(points_, host);
    Kokkos::fence();
    upload_s_ = now_s() - t0;
  }

  double upload_seconds() const override { return upload_s_; }

  Timing run(double eps, int minpts, Impl impl, int runs, std::vector<int>& labels) override {
    Timing t;
    ExecSpace exec;
    ArborX::DBSCAN::Parameters params;
    params.setImplementation(impl == Impl::fdbscan ? ArborX::DBSCAN::Implementation::FDBSCAN
                                                   : ArborX::DBSCAN::Implementation::FDBSCAN_DenseBox);
    params.setAlgorithm(ArborX::DBSCAN::Algorithm::DBSCAN);
    t.best = std::numeric_limits<double>::infinity();
    try {
      for (int k = 0; k <= runs; k++) {
        Kokkos::fence();
        double t0 = now_s();
        ArborX::dbscan(exec, points_, eps, minpts, labels_, params);
        Kokkos::fence();
        double s = now_s() - t0;
        if (k == 0) {
          t.warmup = s;
          if (s > kLongRun) {  // one call of a slow case is enough
            t.best = s;
            break;
          }
        } else {
          t.times.push_back(s);
          t.best = std::min(t.best, s);
        }
      }
      labels.resize(n_);
      Kokkos::View<int*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> host(labels.data(), n_);
      Kokkos::deep_copy(host, labels_);
      Kokkos::fence();
    } catch (const std::exception& e) {
      t.error = e.what();
      Kokkos::fence();  // dbscan() may have resized labels_: give it back its size
      labels_ = Kokkos::View<int*, MemSpace>(
          Kokkos::view_alloc(Kokkos::WithoutInitializing, "arborx_bench_nd::labels"), n_);
    }
    return t;
  }

 private:
  int n_;
  Kokkos::View<Point*, MemSpace> points_;
  Kokkos::View<int*, MemSpace> labels_;
  double upload_s_ = 0.0;
};

}  // namespace

#ifdef AB_FLOAT
std::unique_ptr<Runner> make_runner_float(const std::vector<double>& c) { return std::make_unique<RunnerImpl<float>>(c); }
#endif
#ifdef AB_DOUBLE
std::unique_ptr<Runner> make_runner_double(const std::vector<double>& c) { return std::make_unique<RunnerImpl<double>>(c); }
#endif

}  // namespace ab
#endif

// ---- the driver ---------------------------------------------------------------

#ifdef AB_MAIN
namespace ab {
namespace {

const char* impl_name(Impl i) { return i == Impl::fdbscan ? "FDBSCAN" : "FDBSCAN-DenseBox"; }
const char* impl_file(Impl i) { return i == Impl::fdbscan ? "fdbscan" : "densebox"; }
const char* prec_name(Precision p) { return p == Precision::float32 ? "float32" : "float64"; }
const char* prec_file(Precision p) { return p == Precision::float32 ? "float" : "double"; }

struct Options {
  std::vector<int64_t> sizes{1000000, 10000000};
  std::vector<std::string> datasets{"uniform", "blobs"};
  std::vector<double> eps{1.0, 2.0, 5.0};
  int minpts = 10;
  int runs = 3;
  uint64_t seed = 42;
  std::vector<Impl> impls{Impl::fdbscan, Impl::densebox};
  std::vector<Precision> precisions{Precision::float64, Precision::float32};
  std::string labels_out;
  double budget = 0.0;  // seconds; 0: none
  int device = -1;
};

[[noreturn]] void usage(const std::string& why) {
  std::fprintf(stderr,
               "arborx_bench_nd: %s\n"
               "usage: arborx_bench_nd [--dims %d] [--sizes 1M,10M] [--datasets uniform,blobs] [--eps 1,2,5]\n"
               "                       [--minpoints 10] [--runs 3] [--seed 42] [--impls fdbscan,densebox]\n"
               "                       [--precisions float,double] [--labels-out DIR] [--budget S]\n"
               "                       [--device N] [--kokkos-... options]\n",
               why.c_str(), AB_DIM);
  std::exit(2);
}

Options parse_options(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; i++) {
    std::string a = argv[i];
    if (a.rfind("--kokkos", 0) == 0) continue;
    if (a == "-h" || a == "--help") usage("help");
    if (i + 1 >= argc) usage("missing value after " + a);
    std::string v = argv[++i];
    if (a == "--dims") {
      if (std::atoi(v.c_str()) != AB_DIM) usage("built for --dims " + std::to_string(AB_DIM) + " (AB_DIM)");
    } else if (a == "--sizes") {
      o.sizes.clear();
      for (auto& s : nd::split(v)) {
        int64_t n = nd::parse_size(s);
        if (n < 1) usage("bad size (ArborX indexes with int): " + s);
        o.sizes.push_back(n);
      }
    } else if (a == "--datasets") {
      o.datasets = nd::split(v);
      for (auto& d : o.datasets)
        if (d != "uniform" && d != "blobs") usage("unknown data set: " + d + " (uniform, blobs)");
    } else if (a == "--eps") {
      o.eps.clear();
      for (auto& s : nd::split(v)) {
        double e = std::atof(s.c_str());
        if (!(e > 0)) usage("bad eps: " + s);
        o.eps.push_back(e);
      }
    } else if (a == "--minpoints" || a == "--minpts") {
      o.minpts = std::atoi(v.c_str());
      if (o.minpts < 2) usage("minpoints must be >= 2 (ArborX asserts it)");
    } else if (a == "--runs") {
      o.runs = std::max(1, std::atoi(v.c_str()));
    } else if (a == "--seed") {
      o.seed = std::strtoull(v.c_str(), nullptr, 10);
    } else if (a == "--impls") {
      o.impls.clear();
      for (auto& s : nd::split(v)) {
        if (s == "fdbscan") o.impls.push_back(Impl::fdbscan);
        else if (s == "densebox") o.impls.push_back(Impl::densebox);
        else usage("unknown impl: " + s + " (fdbscan, densebox)");
      }
    } else if (a == "--precisions") {
      o.precisions.clear();
      for (auto& s : nd::split(v)) {
        if (s == "float" || s == "float32") o.precisions.push_back(Precision::float32);
        else if (s == "double" || s == "float64") o.precisions.push_back(Precision::float64);
        else usage("unknown precision: " + s + " (float, double)");
      }
      // the reference variant (double) first, as the 2-D driver
      std::stable_sort(o.precisions.begin(), o.precisions.end(), [](Precision a, Precision b) { return a > b; });
    } else if (a == "--labels-out") {
      o.labels_out = v;
    } else if (a == "--budget") {
      o.budget = std::atof(v.c_str());
    } else if (a == "--device") {
      o.device = std::atoi(v.c_str());
    } else {
      usage("unknown option: " + a);
    }
  }
  if (o.sizes.empty() || o.datasets.empty() || o.eps.empty() || o.impls.empty() || o.precisions.empty())
    usage("empty list");
  return o;
}

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

std::string first_line(const char* cmd) {
  std::string out;
  if (FILE* p = popen(cmd, "r")) {
    char buf[512];
    if (std::fgets(buf, sizeof buf, p)) out = buf;
    pclose(p);
  }
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return out;
}

struct Row {
  std::string dataset;
  int64_t n = 0;
  double eps = 0;
  Impl impl{};
  Precision precision{};
  Timing timing;
  double upload = 0.0;
  std::string state;  // "" measured; else why not: "not built", "skipped"
  int64_t clusters = -1;
  double noise = 0.0;
  std::string noise_vs_ref = "—", cluster_vs_ref = "—";
};

void print_row(const Row& r) {
  std::string best = !r.state.empty() ? r.state : !r.timing.error.empty() ? "error" : fmt("%.4f", r.timing.best);
  std::printf("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", r.dataset.c_str(), nd::size_label(r.n).c_str(),
              nd::eps_label(r.eps).c_str(), impl_name(r.impl), prec_name(r.precision), best.c_str(),
              r.clusters >= 0 ? std::to_string(r.clusters).c_str() : "—",
              r.clusters >= 0 ? fmt("%.2f%%", 100.0 * r.noise).c_str() : "—", r.noise_vs_ref.c_str(),
              r.cluster_vs_ref.c_str());
  std::fflush(stdout);
}

void print_tail(const std::vector<Row>& rows, const std::vector<std::string>& points, const Options& o) {
  std::printf("\nminpts %d (counting the point itself); seconds: wall time of ArborX::dbscan() between two\n"
              "Kokkos::fence() calls, points already on the device, labels left there; one warm-up, then best\n"
              "of %d (a warm-up over %.0f s: that one call). ref: the first variant of each (data set, points, eps);\n"
              "noise ≠ ref: rows whose noise status differs from it; cluster ≠ ref: rows in another cluster\n"
              "(noise status, or clusters that are not each other's majority counterpart).\n\n",
              o.minpts, o.runs, kLongRun);
  for (const std::string& p : points) std::printf("%s\n", p.c_str());
  std::printf("\nAll timings (seconds; warm-up first, in brackets):\n\n");
  std::printf("| data set | points | eps | impl | precision | upload s | warm-up s | runs s |\n");
  std::printf("|---|---:|---:|---|---|---:|---:|---|\n");
  for (const Row& r : rows) {
    if (!r.state.empty()) continue;
    std::string runs;
    for (double t : r.timing.times) runs += (runs.empty() ? "" : ", ") + fmt("%.4f", t);
    if (r.timing.times.empty() && r.timing.error.empty()) runs = "(warm-up only: over the limit)";
    std::printf("| %s | %s | %s | %s | %s | %.4f | [%.4f] | %s |\n", r.dataset.c_str(), nd::size_label(r.n).c_str(),
                nd::eps_label(r.eps).c_str(), impl_name(r.impl), prec_name(r.precision), r.upload, r.timing.warmup,
                r.timing.error.empty() ? runs.c_str() : r.timing.error.c_str());
  }
  int skipped = 0;
  for (const Row& r : rows) {
    skipped += r.state == "skipped";
    if (!r.timing.error.empty() && r.state.empty())
      std::printf("\nError: %s %s eps %s %s %s: %s\n", r.dataset.c_str(), nd::size_label(r.n).c_str(),
                  nd::eps_label(r.eps).c_str(), impl_name(r.impl), prec_name(r.precision), r.timing.error.c_str());
  }
  if (skipped) std::printf("\nSkipped: %d variants, started after --budget %g s\n", skipped, o.budget);
}

int bench(const Options& o) {
  const double t_start = now_s();
  struct utsname un {};
  uname(&un);
  std::string smi =
      first_line("nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>/dev/null");
  std::time_t t = std::time(nullptr);
  char date[64];
  std::strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", std::gmtime(&t));
  std::printf("## arborx_bench_nd — ArborX DBSCAN on gd_bench's %d-D points\n\n", AB_DIM);
  std::printf("- date: %s\n- host: %s, Linux %s\n- GPU (nvidia-smi): %s\n", date, un.nodename, un.release,
              smi.empty() ? "none found" : smi.c_str());
#ifdef AB_HAVE_ARBORX_VERSION
  std::printf("- ArborX %s (hash %s), ", ArborX::version().c_str(), ArborX::gitCommitHash().c_str());
#else
  std::printf("- ");
#endif
  std::printf("Kokkos %d.%d.%d; execution space %s, concurrency %d\n", KOKKOS_VERSION / 10000,
              KOKKOS_VERSION / 100 % 100, KOKKOS_VERSION % 100, Kokkos::DefaultExecutionSpace::name(),
              Kokkos::DefaultExecutionSpace().concurrency());
  std::printf("- dims: %d\n", AB_DIM);
  std::printf("- minpts %d; runs per measurement: 1 warm-up + %d (best kept); seed %llu\n\n", o.minpts, o.runs,
              static_cast<unsigned long long>(o.seed));
  std::printf("| data set | points | eps | impl | precision | best s | clusters | noise | noise ≠ ref | cluster ≠ ref |\n");
  std::printf("|---|---:|---:|---|---|---:|---:|---:|---:|---:|\n");
  std::fflush(stdout);
  if (!o.labels_out.empty()) std::filesystem::create_directories(o.labels_out);

  std::vector<Row> rows;
  std::vector<std::string> points;
  for (const std::string& name : o.datasets) {
    for (int64_t n : o.sizes) {
      std::fprintf(stderr, "generating %s %dD %s ...\n", name.c_str(), AB_DIM, nd::size_label(n).c_str());
      gd_bench::NdPointSet ps = gd_bench::make_dataset_nd(name, n, AB_DIM, o.seed);
      points.push_back(nd::points_line(ps, o.seed));
      std::fprintf(stderr, "%s\n", points.back().c_str());
      std::unique_ptr<Runner> runners[2];  // by Precision, one device copy each
      for (Precision p : o.precisions) {
        try {
          runners[int(p)] = p == Precision::float32 ? make_runner_float(ps.coords) : make_runner_double(ps.coords);
        } catch (const std::exception& e) {
          std::fprintf(stderr, "  upload %s failed: %s\n", prec_name(p), e.what());
        }
      }
      ps.coords = std::vector<double>();

      std::vector<int> labels;
      std::vector<int32_t> ids, ref_ids;
      int64_t ref_k = 0;
      for (double eps : o.eps) {
        bool have_ref = false;
        for (Precision p : o.precisions) {
          for (Impl impl : o.impls) {
            Row row;
            row.dataset = name, row.n = n, row.eps = eps, row.impl = impl, row.precision = p;
            Runner* runner = runners[int(p)].get();
            if (!runner) row.state = "not built";
            else if (o.budget > 0 && now_s() - t_start > o.budget) row.state = "skipped";
            if (!row.state.empty()) {
              print_row(row);
              rows.push_back(std::move(row));
              continue;
            }
            row.upload = runner->upload_seconds();
            std::fprintf(stderr, "  %s %s eps %g %s %s ...\n", name.c_str(), nd::size_label(n).c_str(), eps,
                         impl_name(impl), prec_name(p));
            row.timing = runner->run(eps, o.minpts, impl, o.runs, labels);
            int64_t k = row.timing.error.empty() ? nd::canonical_ids(labels, ids) : -1;
            if (row.timing.error.empty() && k < 0) row.timing.error = "labels out of range";
            if (k >= 0) {
              row.clusters = k;
              row.noise = double(std::count(ids.begin(), ids.end(), -1)) / double(n);
              if (!have_ref) {
                ref_ids = ids;
                ref_k = k;
                have_ref = true;
                row.noise_vs_ref = row.cluster_vs_ref = "ref";
              } else {
                int64_t dn = 0, dc = nd::partition_diff(ids, k, ref_ids, ref_k, dn);
                row.noise_vs_ref = std::to_string(dn);
                row.cluster_vs_ref = std::to_string(dc);
              }
              if (!o.labels_out.empty()) {
                std::string path =
                    nd::label_path(o.labels_out, name, AB_DIM, n, o.seed, eps, impl_file(impl), prec_file(p));
                std::ofstream f(path, std::ios::binary);
                f.write(reinterpret_cast<const char*>(ids.data()), std::streamsize(ids.size() * sizeof(int32_t)));
                if (!f) std::fprintf(stderr, "  could not write %s\n", path.c_str());
              }
            }
            std::fprintf(stderr, "    best %s s (warm-up %.4f s), %lld clusters%s%s\n",
                         row.timing.error.empty() ? fmt("%.4f", row.timing.best).c_str() : "error",
                         row.timing.warmup, static_cast<long long>(row.clusters),
                         row.timing.error.empty() ? "" : ": ", row.timing.error.c_str());
            print_row(row);
            rows.push_back(std::move(row));
          }
        }
      }
    }
  }
  print_tail(rows, points, o);
  for (const Row& r : rows)
    if (!r.timing.error.empty() && r.state.empty()) return 1;
  return 0;
}

}  // namespace
}  // namespace ab

int main(int argc, char** argv) {
  ab::Options o = ab::parse_options(argc, argv);
  std::vector<std::string> args(argv, argv + argc);
  if (o.device >= 0) args.push_back("--kokkos-device-id=" + std::to_string(o.device));
  std::vector<char*> kargv;
  for (auto& a : args) kargv.push_back(a.data());
  kargv.push_back(nullptr);
  int kargc = static_cast<int>(args.size());
  int rc = 0;
  {
    Kokkos::ScopeGuard guard(kargc, kargv.data());
    try {
      rc = ab::bench(o);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "arborx_bench_nd: %s\n", e.what());
      rc = 1;
    }
  }
  return rc;
}
#endif
