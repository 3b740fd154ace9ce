// compare_nd.cpp — arborx_bench_nd's labels (--labels-out DIR) against our
// exact answer on the same points, row by row: the n-D twin of the anchors'
// compare_gd. Links the core (libgd_core.a, CPU back end); no Kokkos.
//
//   compare_nd --labels-out DIR [--dims 3] [--sizes ..] [--datasets ..] [--eps ..]
//              [--minpoints 10] [--seed 42] [--points-out FILE]
//
// It takes arborx_bench_nd's whole command line (options it does not know are
// skipped, with their value). For each data set, size and eps it runs
// gd_cluster_points_nd_typed once on the CPU, then compares every label file of
// that triple in DIR (up to four: impl x precision):
//   noise ≠ gd    rows noise in one answer and not in the other;
//   cluster ≠ gd  rows in another cluster (noise status, or clusters that are
//                 not each other's majority counterpart: border points given
//                 to another neighbouring cluster count here);
//   core ≠ gd     the same over the rows gd calls core, whose partition DBSCAN
//                 fixes: 0 unless the neighbour test rounds differently.
// --points-out FILE: the points' fingerprints, made by the project's own
// generator built with the host compiler (run.sh diffs them with the driver's).
// Exit status 1 when a core row differs in a float64 variant or nothing was compared.
#include <chrono>
#include <fstream>

#include "gd_core.h"
#include "nd_common.hpp"

int main(int argc, char** argv) {
  std::string dir, points_out;
  std::vector<std::string> sizes{"1M", "10M"}, datasets{"uniform", "blobs"}, eps_list{"1", "2", "5"};
  int dims = 3;
  int64_t minpts = 10;
  uint64_t seed = 42;
  for (int i = 1; i + 1 < argc; i++) {
    std::string a = argv[i], v = argv[++i];
    if (a == "--labels" || a == "--labels-out") dir = v;
    else if (a == "--points-out") points_out = v;
    else if (a == "--dims") dims = std::atoi(v.c_str());
    else if (a == "--sizes") sizes = nd::split(v);
    else if (a == "--datasets") datasets = nd::split(v);
    else if (a == "--eps") eps_list = nd::split(v);
    else if (a == "--minpoints" || a == "--minpts") minpts = std::atoll(v.c_str());
    else if (a == "--seed") seed = std::strtoull(v.c_str(), nullptr, 10);
  }
  if (dir.empty()) {
    std::fprintf(stderr, "usage: compare_nd --labels-out DIR [--dims 3] [--sizes ..] [--datasets ..] [--eps ..] "
                         "[--minpoints 10] [--seed 42] [--points-out FILE]\n");
    return 2;
  }
  std::ofstream pts;
  if (!points_out.empty()) pts.open(points_out);
  std::printf("| data set | points | eps | impl | precision | clusters (arborx / gd) | noise ≠ gd | cluster ≠ gd | core ≠ gd | gd CPU s |\n");
  std::printf("|---|---:|---:|---|---|---:|---:|---:|---:|---:|\n");
  std::fflush(stdout);
  int rc = 0, compared = 0;
  for (const std::string& name : datasets) {
    for (const std::string& s : sizes) {
      const int64_t n = nd::parse_size(s);
      if (n < 1) {
        std::fprintf(stderr, "compare_nd: bad size %s\n", s.c_str());
        return 2;
      }
      gd_bench::NdPointSet ps = gd_bench::make_dataset_nd(name, n, dims, seed);
      if (pts.is_open()) pts << nd::points_line(ps, seed) << std::endl;
      std::vector<uint8_t> kinds(n, GD_ROW_POINT);
      for (const std::string& e : eps_list) {
        gd_params p;
        gd_params_init(&p);
        p.eps = std::atof(e.c_str());
        p.minpoints = minpts;
        p.backend = GD_BACKEND_CPU;
        std::vector<int32_t> gd(n);
        std::vector<uint8_t> types(n);
        gd_error err{};
        auto t0 = std::chrono::steady_clock::now();
        if (gd_cluster_points_nd_typed(ps.coords.data(), dims, kinds.data(), n, &p, gd.data(), types.data(),
                                       nullptr, &err) != GD_OK) {
          std::fprintf(stderr, "compare_nd: gd_cluster_points_nd_typed: %s\n", err.message);
          return 1;
        }
        const double gd_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        const int64_t kg = nd::clusters_of(gd);
        std::vector<int32_t> gd_core;
        for (int64_t i = 0; i < n; i++)
          if (types[i] == GD_POINT_CORE) gd_core.push_back(gd[i]);
        for (const char* impl : {"fdbscan", "densebox"}) {
          for (const char* prec : {"double", "float"}) {
            const std::string path = nd::label_path(dir, name, dims, n, seed, p.eps, impl, prec);
            std::ifstream in(path, std::ios::binary);
            if (!in) continue;
            std::vector<int32_t> ax(n);
            in.read(reinterpret_cast<char*>(ax.data()), std::streamsize(n * sizeof(int32_t)));
            if (!in || in.peek() != std::char_traits<char>::eof()) {
              std::fprintf(stderr, "compare_nd: %s does not hold %lld int32\n", path.c_str(), (long long)n);
              rc = 1;
              continue;
            }
            const int64_t ka = nd::clusters_of(ax);
            int64_t dn = 0, dcn = 0;
            const int64_t dc = nd::partition_diff(ax, ka, gd, kg, dn);
            std::vector<int32_t> ax_core;
            for (int64_t i = 0; i < n; i++)
              if (types[i] == GD_POINT_CORE) ax_core.push_back(ax[i]);
            const int64_t dcore = nd::partition_diff(ax_core, ka, gd_core, kg, dcn);
            const bool f64 = std::string(prec) == "double";
            std::printf("| %s | %s | %s | %s | %s | %lld / %lld | %lld | %lld | %lld | %.3f |\n", name.c_str(),
                        nd::size_label(n).c_str(), nd::eps_label(p.eps).c_str(),
                        std::string(impl) == "fdbscan" ? "FDBSCAN" : "FDBSCAN-DenseBox", f64 ? "float64" : "float32",
                        (long long)ka, (long long)kg, (long long)dn, (long long)dc, (long long)dcore, gd_s);
            std::fflush(stdout);
            compared++;
            if (dcore != 0 && f64) rc = 1;
          }
        }
      }
    }
  }
  std::printf("\n%d label files compared with gd's exact CPU answer (gd_cluster_points_nd_typed; %d-D, "
              "minpoints %lld, seed %llu)\n",
              compared, dims, (long long)minpts, (unsigned long long)seed);
  return compared == 0 ? 1 : rc;
}
