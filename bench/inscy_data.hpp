// inscy_data.hpp — the GPU-INSCY paper's real data sets (../shared/data/inscy,
// see its README) for the subspace clustering's benchmark and unit tests:
// the CSV read with strtod, the class column dropped (glass, pendigits), and
// the paper's parameters (eps 0.01, mu 8, F 1, r 1, min_size int(0.05 * n)).
#pragma once

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace gd_inscy_data {

struct DataSet {
  std::string name;
  int n = 0;
  int d = 0;
  std::vector<double> rows;  // n x d, row-major
  double paper_gpu_s = 0;    // the paper's GPU-INSCY time (Fig. 7)
};

struct Spec {
  const char* name;
  const char* file;
  int features;  // the first `features` columns; the rest (the class) dropped
  double paper_gpu_s;
};

inline const std::vector<Spec>& specs() {
  static const std::vector<Spec> s = {{"glass", "glass.csv", 9, 0.0615},
                                      {"vowel", "vowel.csv", 10, 0.0373},
                                      {"pendigits", "pendigits.csv", 16, 3.04},
                                      {"sky_1x2", "sky_1x2.csv", 17, 283.4}};
  return s;
}

// The folder holding the CSVs: $GD_INSCY_DATA, else the shared folder beside
// the checkout (GD_INSCY_DEFAULT_DIR, set by CMake from the source folder).
#ifndef GD_INSCY_DEFAULT_DIR
#define GD_INSCY_DEFAULT_DIR "../shared/data/inscy"
#endif
inline std::string data_dir() {
  const char* env = std::getenv("GD_INSCY_DATA");
  return env && *env ? env : GD_INSCY_DEFAULT_DIR;
}

// Reads one data set; false (and *why) when the file is missing or malformed.
inline bool load(const Spec& spec, DataSet& out, std::string* why) {
  std::string path = data_dir() + "/" + spec.file;
  std::ifstream in(path);
  if (!in) {
    if (why) *why = "cannot open " + path;
    return false;
  }
  out = DataSet{};
  out.name = spec.name;
  out.d = spec.features;
  out.paper_gpu_s = spec.paper_gpu_s;
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    std::stringstream ss(line);
    std::string tok;
    int col = 0;
    while (std::getline(ss, tok, ',')) {
      if (col < spec.features) out.rows.push_back(std::strtod(tok.c_str(), nullptr));
      ++col;
    }
    if (col < spec.features) {
      if (why) *why = path + ": a short line";
      return false;
    }
    ++out.n;
  }
  return true;
}

// min_size as the paper computes it: int(0.05 * n).
inline long paper_min_size(int n) { return static_cast<long>(0.05 * n); }

}  // namespace gd_inscy_data
