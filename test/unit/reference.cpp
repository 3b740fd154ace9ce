// reference.cpp — see reference.hpp.
#include "reference.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <numeric>
#include <sstream>

#include "gd_core.h"

namespace gd_test {

namespace {

bool is_point(uint8_t k) { return k == GD_ROW_POINT; }

struct SimpleUnionFind {
  std::vector<size_t> parent;
  explicit SimpleUnionFind(size_t n) : parent(n) { std::iota(parent.begin(), parent.end(), 0); }
  size_t find(size_t a) {
    while (parent[a] != a) a = parent[a] = parent[parent[a]];
    return a;
  }
  void unite(size_t a, size_t b) {
    a = find(a);
    b = find(b);
    if (a != b) parent[std::max(a, b)] = std::min(a, b);
  }
};

}  // namespace

bool ref_within(double px, double py, double qx, double qy, double eps) {
  double dx = qx - px;
  double dy = qy - py;
  return std::fabs(dx) <= eps && std::fabs(dy) <= eps && std::sqrt(dx * dx + dy * dy) <= eps;
}

std::vector<int32_t> canonical_ids(const std::vector<int32_t>& ids) {
  std::map<int32_t, int32_t> renumber;
  std::vector<int32_t> out(ids.size());
  for (size_t i = 0; i < ids.size(); ++i) {
    if (ids[i] < 0) {
      out[i] = -1;
      continue;
    }
    auto it = renumber.find(ids[i]);
    if (it == renumber.end()) it = renumber.emplace(ids[i], int32_t(renumber.size())).first;
    out[i] = it->second;
  }
  return out;
}

std::vector<int32_t> reference_graph_dbscan(const std::vector<uint8_t>& kinds,
                                            const std::vector<std::vector<bool>>& nb,
                                            int64_t minpoints) {
  const size_t n = kinds.size();
  auto geom = [&](size_t i) { return kinds[i] == GD_ROW_POINT || kinds[i] == GD_ROW_OTHER; };

  std::vector<bool> core(n, false);
  for (size_t i = 0; i < n; ++i) {
    if (!geom(i)) continue;
    int64_t count = 0;
    for (size_t j = 0; j < n; ++j) count += geom(j) && (i == j || nb[i][j]);
    core[i] = count >= std::max<int64_t>(minpoints, 1);
  }
  SimpleUnionFind uf(n);
  for (size_t i = 0; i < n; ++i)
    for (size_t j = i + 1; j < n; ++j)
      if (core[i] && core[j] && nb[i][j]) uf.unite(i, j);

  std::vector<int64_t> label(n, -1);  // a row standing for the cluster
  for (size_t i = 0; i < n; ++i) {
    if (kinds[i] == GD_ROW_EMPTY && minpoints <= 1) label[i] = static_cast<int64_t>(i);
    if (!geom(i)) continue;
    if (core[i]) {
      label[i] = static_cast<int64_t>(uf.find(i));
      continue;
    }
    for (size_t j = 0; j < n; ++j) {  // smallest-row core neighbour
      if (core[j] && nb[i][j]) {
        label[i] = static_cast<int64_t>(uf.find(j));
        break;
      }
    }
  }
  std::vector<int32_t> raw(n);
  for (size_t i = 0; i < n; ++i) raw[i] = label[i] < 0 ? -1 : static_cast<int32_t>(label[i]);
  return canonical_ids(raw);
}

std::vector<int32_t> reference_dbscan(const std::vector<double>& x, const std::vector<double>& y,
                                      const std::vector<uint8_t>& kinds, double eps,
                                      int64_t minpoints) {
  const size_t n = kinds.size();
  std::vector<std::vector<bool>> nb(n, std::vector<bool>(n, false));
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < n; ++j)
      nb[i][j] = is_point(kinds[i]) && is_point(kinds[j]) && ref_within(x[i], y[i], x[j], y[j], eps);
  return reference_graph_dbscan(kinds, nb, minpoints);
}

std::vector<int32_t> postgis_order_dbscan(const std::vector<double>& x,
                                          const std::vector<double>& y,
                                          const std::vector<uint8_t>& kinds, double eps,
                                          int64_t minpoints) {
  const size_t n = kinds.size();
  SimpleUnionFind uf(n);
  std::vector<char> in_cluster(n, 0), is_core(n, 0);
  for (size_t p = 0; p < n; ++p) {
    if (!is_point(kinds[p])) continue;
    // PostGIS queries its STRtree with p's box grown by eps, then tests the
    // distance of each hit.
    const double xlo = x[p] - eps, xhi = x[p] + eps, ylo = y[p] - eps, yhi = y[p] + eps;
    std::vector<size_t> neighbours;
    for (size_t q = 0; q < n; ++q) {
      if (!is_point(kinds[q]) || x[q] < xlo || x[q] > xhi || y[q] < ylo || y[q] > yhi) continue;
      double dx = x[q] - x[p], dy = y[q] - y[p];
      if (std::sqrt(dx * dx + dy * dy) <= eps) neighbours.push_back(q);
    }
    if (static_cast<int64_t>(neighbours.size()) < minpoints) continue;
    is_core[p] = 1;
    in_cluster[p] = 1;
    for (size_t q : neighbours) {
      if (in_cluster[q]) {
        if (is_core[q]) uf.unite(p, q);
      } else {
        uf.unite(p, q);
        in_cluster[q] = 1;
      }
    }
  }
  std::vector<int32_t> raw(n, -1);
  for (size_t i = 0; i < n; ++i) {
    if (kinds[i] == GD_ROW_EMPTY && minpoints <= 1) raw[i] = static_cast<int32_t>(i);
    if (is_point(kinds[i]) && in_cluster[i]) raw[i] = static_cast<int32_t>(uf.find(i));
  }
  return canonical_ids(raw);
}

std::string check_invariants(const std::vector<double>& x, const std::vector<double>& y,
                             const std::vector<uint8_t>& kinds, double eps, int64_t minpoints,
                             const std::vector<int32_t>& ids) {
  const size_t n = kinds.size();
  std::ostringstream fail;
  if (ids.size() != n) return "wrong number of ids";
  if (ids != canonical_ids(ids)) return "ids are not numbered by first row";

  // Neighbours of every point through a sweep over x.
  const double reach = std::max(eps, std::ldexp(1.0, -500)) * (1 + 1e-9);
  std::vector<size_t> order;
  for (size_t i = 0; i < n; ++i)
    if (is_point(kinds[i])) order.push_back(i);
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return x[a] < x[b]; });
  auto for_each_neighbour = [&](const std::function<void(size_t, size_t)>& fn) {
    for (size_t a = 0; a < order.size(); ++a) {
      size_t i = order[a];
      fn(i, i);
      for (size_t b = a + 1; b < order.size() && !(x[order[b]] - x[i] > reach); ++b) {
        size_t j = order[b];
        if (ref_within(x[i], y[i], x[j], y[j], eps)) {
          fn(i, j);
          fn(j, i);
        }
      }
    }
  };

  std::vector<int64_t> count(n, 0);
  for_each_neighbour([&](size_t i, size_t) { ++count[i]; });
  std::vector<bool> core(n);
  for (size_t i = 0; i < n; ++i)
    core[i] = is_point(kinds[i]) && count[i] >= std::max<int64_t>(minpoints, 1);

  SimpleUnionFind uf(n);
  std::vector<size_t> best_core(n, SIZE_MAX);
  std::string err;
  for_each_neighbour([&](size_t i, size_t j) {
    if (!err.empty()) return;
    if (core[i] && core[j]) {
      uf.unite(i, j);
      if (ids[i] != ids[j]) {
        std::ostringstream s;
        s << "core rows " << i << " and " << j << " are neighbours but have ids " << ids[i]
          << " and " << ids[j];
        err = s.str();
      }
    }
    if (!core[i] && core[j]) best_core[i] = std::min(best_core[i], j);
  });
  if (!err.empty()) return err;

  std::map<int32_t, size_t> component_of_id, rows_with_id;
  for (int32_t id : ids) ++rows_with_id[id];
  for (size_t i = 0; i < n; ++i) {
    std::ostringstream s;
    switch (kinds[i]) {
      case GD_ROW_NULL:
        if (ids[i] != -1) s << "NULL row " << i << " has id " << ids[i];
        break;
      case GD_ROW_EMPTY:
        if ((minpoints <= 1) != (ids[i] >= 0)) s << "EMPTY row " << i << " has id " << ids[i];
        else if (ids[i] >= 0 && rows_with_id[ids[i]] != 1)
          s << "EMPTY row " << i << " shares its id " << ids[i];
        break;
      default:
        if (core[i]) {
          if (ids[i] < 0) {
            s << "core row " << i << " is noise";
            break;
          }
          auto it = component_of_id.emplace(ids[i], uf.find(i)).first;
          if (it->second != uf.find(i))
            s << "id " << ids[i] << " holds core points that are not connected (row " << i << ")";
        } else if (best_core[i] != SIZE_MAX) {
          if (ids[i] != ids[best_core[i]])
            s << "border row " << i << " has id " << ids[i] << ", its first core neighbour row "
              << best_core[i] << " has id " << ids[best_core[i]];
        } else if (ids[i] != -1) {
          s << "row " << i << " has no core neighbour but id " << ids[i];
        }
    }
    if (!s.str().empty()) return s.str();
  }
  return "";
}

}  // namespace gd_test
