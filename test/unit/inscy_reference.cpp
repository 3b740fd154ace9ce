// inscy_reference.cpp — the brute-force subspace clustering of
// inscy_reference.hpp, step by step as the definition states it.
#include "inscy_reference.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace gd_test {

std::vector<SubspaceCluster> reference_inscy(const std::vector<double>& rows, int n, int d,
                                             const InscyParams& p) {
  // 1. normalise each column
  std::vector<double> x(rows.size());
  for (int j = 0; j < d; ++j) {
    double mn = rows[j], mx = rows[j];
    for (int i = 0; i < n; ++i) {
      mn = std::min(mn, rows[size_t(i) * d + j]);
      mx = std::max(mx, rows[size_t(i) * d + j]);
    }
    for (int i = 0; i < n; ++i)
      x[size_t(i) * d + j] = mx == mn ? 0.0 : (rows[size_t(i) * d + j] - mn) / (mx - mn);
  }

  struct Found {
    uint64_t mask;
    std::vector<int> dims;
    std::vector<int> members;
  };
  std::vector<Found> found;
  std::vector<char> adj(size_t(n) * n);
  for (uint64_t mask = 1; mask < (uint64_t(1) << d); ++mask) {
    std::vector<int> dims;
    for (int j = 0; j < d; ++j)
      if (mask >> j & 1) dims.push_back(j);
    const int s = static_cast<int>(dims.size());
    // 2. neighbours
    std::vector<int> count(n, 0);
    for (int a = 0; a < n; ++a)
      for (int b = 0; b < n; ++b) {
        double sum = 0;
        for (int j : dims) {
          double diff = x[size_t(a) * d + j] - x[size_t(b) * d + j];
          sum = sum + diff * diff;
        }
        adj[size_t(a) * n + b] = a != b && std::sqrt(sum) <= p.eps;
        count[a] += adj[size_t(a) * n + b];
      }
    // 3. dense
    const double c = std::pow(M_PI, s / 2.0) / std::tgamma(s / 2.0 + 1.0);
    const double thr = std::max(p.density_factor * n * c * std::pow(p.eps, s), double(p.mu));
    std::vector<char> dense(n);
    for (int a = 0; a < n; ++a) dense[a] = double(count[a]) >= thr;
    // 4. components of the dense points
    std::vector<int> comp(n, -1);
    for (int a = 0; a < n; ++a) {
      if (!dense[a] || comp[a] >= 0) continue;
      std::vector<int> members{a}, stack{a};
      comp[a] = a;
      while (!stack.empty()) {
        int u = stack.back();
        stack.pop_back();
        for (int v = 0; v < n; ++v)
          if (dense[v] && comp[v] < 0 && adj[size_t(u) * n + v]) {
            comp[v] = a;
            members.push_back(v);
            stack.push_back(v);
          }
      }
      if (int64_t(members.size()) >= p.min_size) {
        std::sort(members.begin(), members.end());
        found.push_back(Found{mask, dims, members});
      }
    }
  }
  // 5. redundancy by decreasing s
  std::vector<const Found*> kept;
  for (int s = d; s >= 1; --s)
    for (const Found& f : found) {
      if (int(f.dims.size()) != s) continue;
      bool drop = false;
      for (const Found* o : kept) {
        if (o->dims.size() <= f.dims.size() || (o->mask & f.mask) != f.mask) continue;
        std::vector<int> both;
        std::set_intersection(f.members.begin(), f.members.end(), o->members.begin(),
                              o->members.end(), std::back_inserter(both));
        if (!both.empty() && double(f.members.size()) * p.redundancy < double(o->members.size()))
          drop = true;
      }
      if (!drop) kept.push_back(&f);
    }
  // 6. output
  std::vector<SubspaceCluster> out;
  for (const Found* f : kept) out.push_back(SubspaceCluster{f->dims, f->members});
  std::sort(out.begin(), out.end(), [](const SubspaceCluster& a, const SubspaceCluster& b) {
    if (a.dims.size() != b.dims.size()) return a.dims.size() < b.dims.size();
    if (a.dims != b.dims) return a.dims < b.dims;
    return a.members[0] < b.members[0];
  });
  return out;
}

static std::string show(const SubspaceCluster& c) {
  std::ostringstream o;
  o << "dims {";
  for (size_t i = 0; i < c.dims.size(); ++i) o << (i ? "," : "") << c.dims[i];
  o << "} " << c.members.size() << " members {";
  for (size_t i = 0; i < c.members.size() && i < 12; ++i) o << (i ? "," : "") << c.members[i];
  o << (c.members.size() > 12 ? ",...}" : "}");
  return o.str();
}

std::string first_difference(const std::vector<SubspaceCluster>& got,
                             const std::vector<SubspaceCluster>& want) {
  for (size_t i = 0; i < std::max(got.size(), want.size()); ++i) {
    if (i < got.size() && i < want.size() && got[i] == want[i]) continue;
    std::ostringstream o;
    o << "cluster " << i << " of " << got.size() << " / " << want.size() << ": got "
      << (i < got.size() ? show(got[i]) : "nothing") << ", want "
      << (i < want.size() ? show(want[i]) : "nothing");
    return o.str();
  }
  return "";
}

}  // namespace gd_test
