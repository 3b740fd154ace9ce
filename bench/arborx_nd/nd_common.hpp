// nd_common.hpp — what arborx_bench_nd and compare_nd share: gd_bench's
// spelling of sizes and eps, the points' fingerprint, the label files' names,
// ids numbered as gd_bench's and the partition difference of two labellings.
// C++17, no Kokkos.
#pragma once

#include <algorithm>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "bench_args.hpp"
#include "datasets.hpp"

namespace nd {

// The argument spellings of gd_bench (bench_args.hpp).
using gd_bench::eps_label;
using gd_bench::parse_size;
using gd_bench::size_label;
using gd_bench::split;

// DIR/arborx_<set>_<dims>d_<size>_seed<seed>_eps<eps>_<fdbscan|densebox>_<float|double>.i32
inline std::string label_path(const std::string& dir, const std::string& set, int dims, int64_t n,
                              uint64_t seed, double eps, const char* impl, const char* prec) {
  return dir + "/arborx_" + set + "_" + std::to_string(dims) + "d_" + size_label(n) + "_seed" +
         std::to_string(seed) + "_eps" + eps_label(eps) + "_" + impl + "_" + prec + ".i32";
}

// "points ..." as the anchors' points_digest.hpp, over dims coordinates:
// FNV-1a of every coordinate's 64 bits in row-major order, the sum of each
// axis, the first three points.
inline std::string points_line(const gd_bench::NdPointSet& ps, uint64_t seed) {
  const int d = ps.dims;
  const size_t n = d ? ps.coords.size() / d : 0;
  uint64_t h = 0xcbf29ce484222325ULL;
  std::vector<double> sum(d, 0.0);
  for (size_t i = 0; i < ps.coords.size(); i++) {
    uint64_t v;
    std::memcpy(&v, &ps.coords[i], 8);
    for (int b = 0; b < 8; b++) {
      h ^= (v >> (8 * b)) & 0xffu;
      h *= 0x100000001b3ULL;
    }
    sum[i % d] += ps.coords[i];
  }
  char buf[128];
  std::snprintf(buf, sizeof buf, " n=%zu dims=%d seed=%" PRIu64 " fnv1a64=%016" PRIx64 " sums=", n, d, seed, h);
  std::string out = "points " + ps.name + buf;
  for (int k = 0; k < d; k++) {
    std::snprintf(buf, sizeof buf, "%s%.17g", k ? "," : "", sum[k]);
    out += buf;
  }
  out += " first=";
  for (size_t i = 0; i < n && i < 3; i++) {
    out += i ? " (" : "(";
    for (int k = 0; k < d; k++) {
      std::snprintf(buf, sizeof buf, "%s%.17g", k ? "," : "", ps.coords[i * d + k]);
      out += buf;
    }
    out += ")";
  }
  return out;
}

// ArborX's labels (a representative row; -1 noise) as gd_bench's ids: 0..k-1
// by each cluster's first row, noise -1. Returns k, or -1 for a label out of range.
inline int64_t canonical_ids(const std::vector<int>& labels, std::vector<int32_t>& ids) {
  const size_t n = labels.size();
  std::vector<int32_t> id_of_rep(n, -1);
  ids.assign(n, -1);
  int32_t k = 0;
  for (size_t i = 0; i < n; i++) {
    const int rep = labels[i];
    if (rep == -1) continue;
    if (rep < 0 || static_cast<size_t>(rep) >= n) return -1;
    if (id_of_rep[rep] < 0) id_of_rep[rep] = k++;
    ids[i] = id_of_rep[rep];
  }
  return k;
}

inline int64_t clusters_of(const std::vector<int32_t>& ids) {
  int32_t m = -1;
  for (int32_t v : ids) m = std::max(m, v);
  return static_cast<int64_t>(m) + 1;
}

// Rows whose cluster differs between labellings a (ka clusters) and b (kb), as
// the anchors' partition_diff: noise in one only, or in clusters that are not
// each other's majority counterpart (Boyer–Moore vote both ways). Equal
// partitions give 0; a border point given to another cluster counts 1.
inline int64_t partition_diff(const std::vector<int32_t>& a, int64_t ka, const std::vector<int32_t>& b, int64_t kb,
                              int64_t& noise_diff) {
  std::vector<int32_t> cand_a(ka, -1), cand_b(kb, -1);
  std::vector<int64_t> votes_a(ka, 0), votes_b(kb, 0);
  auto vote = [](int32_t& cand, int64_t& votes, int32_t x) {
    if (votes == 0) cand = x, votes = 1;
    else if (cand == x) votes++;
    else votes--;
  };
  for (size_t i = 0; i < a.size(); i++) {
    if (a[i] >= 0 && b[i] >= 0) {
      vote(cand_a[a[i]], votes_a[a[i]], b[i]);
      vote(cand_b[b[i]], votes_b[b[i]], a[i]);
    }
  }
  int64_t diff = 0;
  noise_diff = 0;
  for (size_t i = 0; i < a.size(); i++) {
    if ((a[i] < 0) != (b[i] < 0)) {
      noise_diff++;
      diff++;
    } else if (a[i] >= 0 && (cand_a[a[i]] != b[i] || cand_b[b[i]] != a[i])) {
      diff++;
    }
  }
  return diff;
}

}  // namespace nd
