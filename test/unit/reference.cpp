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
  // p's query box, its bounds rounded in double, inclusive.
  const double xlo = px - eps, xhi = px + eps, ylo = py - eps, yhi = py + eps;
  if (qx < xlo || qx > xhi || qy < ylo || qy > yhi) return false;
  double dx = qx - px;
  double dy = qy - py;
  return std::sqrt(dx * dx + dy * dy) <= eps;
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
  constexpr size_t kNone = SIZE_MAX;
  // sees[p][q]: within(p, q), p searching.
  std::vector<std::vector<bool>> sees(n, std::vector<bool>(n, false));
  for (size_t p = 0; p < n; ++p)
    for (size_t q = 0; q < n; ++q)
      sees[p][q] = is_point(kinds[p]) && is_point(kinds[q]) &&
                   ref_within(x[p], y[p], x[q], y[q], eps);

  // Core: p's own view.
  std::vector<bool> core(n, false);
  for (size_t p = 0; p < n; ++p) {
    int64_t count = 0;
    for (size_t q = 0; q < n; ++q) count += sees[p][q];
    core[p] = is_point(kinds[p]) && count >= std::max<int64_t>(minpoints, 1);
  }
  // First claimer: the smallest core r that sees x.
  std::vector<size_t> claimer(n, kNone);
  for (size_t xi = 0; xi < n; ++xi)
    for (size_t r = 0; r < n && claimer[xi] == kNone; ++r)
      if (core[r] && sees[r][xi]) claimer[xi] = r;

  SimpleUnionFind uf(n);
  if (minpoints <= 1) {
    // union_dbscan_minpoints_1: p and q join when either sees the other.
    for (size_t p = 0; p < n; ++p)
      for (size_t q = 0; q < p; ++q)
        if (sees[p][q] || sees[q][p]) uf.unite(p, q);
  } else {
    // The later row's view joins two core points; every point joins its first claimer.
    for (size_t p = 0; p < n; ++p)
      for (size_t q = 0; q < p; ++q)
        if (core[p] && core[q] && sees[p][q]) uf.unite(p, q);
    for (size_t xi = 0; xi < n; ++xi)
      if (claimer[xi] != kNone) uf.unite(xi, claimer[xi]);
  }

  std::vector<int32_t> raw(n, -1);
  for (size_t i = 0; i < n; ++i) {
    if (kinds[i] == GD_ROW_EMPTY && minpoints <= 1) raw[i] = static_cast<int32_t>(i);
    if (is_point(kinds[i]) && (core[i] || claimer[i] != kNone))
      raw[i] = static_cast<int32_t>(uf.find(i));
  }
  return canonical_ids(raw);
}

namespace {

// union_dbscan of liblwgeom/lwgeom_geos_cluster.c of PostGIS 3.3.2,
// statement by statement (without its num_geoms <= min_points bail-out, which
// the glue applies): is_row(i) says whether row i takes part (an EMPTY or
// NULL row is in no box), query(p) is dbscan_update_context's STRtree hits
// for p, within(p, q) the distance test lwgeom_mindistance2d_tolerance <= eps.
template <class IsRow, class Query, class Within>
std::vector<int32_t> postgis_loop(const std::vector<uint8_t>& kinds, int64_t minpoints,
                                  IsRow is_row, Query query, Within within) {
  const size_t n = kinds.size();
  SimpleUnionFind uf(n);
  std::vector<char> in_a_cluster(n, 0), is_in_core(n, 0);
  if (minpoints <= 1) {
    // union_dbscan_minpoints_1
    std::fill(in_a_cluster.begin(), in_a_cluster.end(), 1);
    for (size_t p = 0; p < n; ++p) {
      if (!is_row(p)) continue;
      for (size_t q : query(p))
        if (uf.find(p) != uf.find(q) && within(p, q)) uf.unite(p, q);
    }
  } else {
    // union_dbscan_general with union_if_available
    const size_t min_points = static_cast<size_t>(minpoints);
    auto union_if_available = [&](size_t p, size_t q) {
      if (in_a_cluster[q]) {
        if (is_in_core[q]) uf.unite(p, q);
      } else {
        uf.unite(p, q);
        in_a_cluster[q] = 1;
      }
    };
    std::vector<size_t> neighbors;
    for (size_t p = 0; p < n; ++p) {
      if (!is_row(p)) continue;
      std::vector<size_t> hits = query(p);
      if (hits.size() < min_points) continue;
      neighbors.clear();
      for (size_t q : hits) {
        if (neighbors.size() >= min_points) {
          if (uf.find(p) == uf.find(q)) continue;
          if (in_a_cluster[q] && !is_in_core[q]) continue;
        }
        if (within(p, q)) {
          if (neighbors.size() < min_points) {
            neighbors.push_back(q);
            if (neighbors.size() == min_points) {
              is_in_core[p] = 1;
              in_a_cluster[p] = 1;
              for (size_t j : neighbors) union_if_available(p, j);
            }
          } else {
            union_if_available(p, q);
          }
        }
      }
    }
  }
  std::vector<int32_t> raw(n, -1);
  for (size_t i = 0; i < n; ++i) {
    if (kinds[i] == GD_ROW_EMPTY && minpoints <= 1) raw[i] = static_cast<int32_t>(i);
    if (is_row(i) && in_a_cluster[i]) raw[i] = static_cast<int32_t>(uf.find(i));
  }
  return canonical_ids(raw);
}

}  // namespace

std::vector<int32_t> postgis_order_dbscan(const std::vector<double>& x,
                                          const std::vector<double>& y,
                                          const std::vector<uint8_t>& kinds, double eps,
                                          int64_t minpoints) {
  const size_t n = kinds.size();
  auto is_row = [&](size_t i) { return is_point(kinds[i]); };
  // dbscan_update_context: the hits of p's box grown by eps, the bounds
  // computed in double.
  auto query = [&](size_t p) {
    const double xlo = x[p] - eps, xhi = x[p] + eps, ylo = y[p] - eps, yhi = y[p] + eps;
    std::vector<size_t> hits;
    for (size_t q = 0; q < n; ++q)
      if (is_point(kinds[q]) && !(x[q] < xlo || x[q] > xhi || y[q] < ylo || y[q] > yhi))
        hits.push_back(q);
    return hits;
  };
  // lwgeom_mindistance2d_tolerance(geoms[p], geoms[q]) for two points.
  auto within = [&](size_t p, size_t q) {
    double hside = x[q] - x[p], vside = y[q] - y[p];
    return std::sqrt(hside * hside + vside * vside) <= eps;
  };
  return postgis_loop(kinds, minpoints, is_row, query, within);
}

std::vector<int32_t> postgis_order_graph_dbscan(const std::vector<uint8_t>& kinds,
                                                const std::vector<std::vector<bool>>& sees,
                                                int64_t minpoints) {
  // The hits and the distance test folded into sees (p sees itself).
  const size_t n = kinds.size();
  auto is_row = [&](size_t i) { return kinds[i] == GD_ROW_POINT || kinds[i] == GD_ROW_OTHER; };
  auto query = [&](size_t p) {
    std::vector<size_t> hits;
    for (size_t q = 0; q < n; ++q)
      if (is_row(q) && (q == p || sees[p][q])) hits.push_back(q);
    return hits;
  };
  auto within = [](size_t, size_t) { return true; };
  return postgis_loop(kinds, minpoints, is_row, query, within);
}

std::string check_invariants(const std::vector<double>& x, const std::vector<double>& y,
                             const std::vector<uint8_t>& kinds, double eps, int64_t minpoints,
                             const std::vector<int32_t>& ids) {
  const size_t n = kinds.size();
  std::ostringstream fail;
  if (ids.size() != n) return "wrong number of ids";
  if (ids != canonical_ids(ids)) return "ids are not numbered by first row";

  // Every (p, q) with within(p, q), p searching, through a sweep over x.
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
        if (ref_within(x[i], y[i], x[j], y[j], eps)) fn(i, j);
        if (ref_within(x[j], y[j], x[i], y[i], eps)) fn(j, i);
      }
    }
  };

  std::vector<int64_t> count(n, 0);
  for_each_neighbour([&](size_t p, size_t) { ++count[p]; });
  std::vector<bool> core(n);
  for (size_t i = 0; i < n; ++i)
    core[i] = is_point(kinds[i]) && count[i] >= std::max<int64_t>(minpoints, 1);

  // Core points joined directly: the later row's view (either with
  // minpoints <= 1); first claimers: the smallest core that sees a point.
  SimpleUnionFind uf(n);
  std::vector<size_t> claimer(n, SIZE_MAX);
  std::string err;
  for_each_neighbour([&](size_t p, size_t q) {
    if (!core[p]) return;
    claimer[q] = std::min(claimer[q], p);
    if (!err.empty() || !core[q] || (q > p && minpoints >= 2)) return;
    uf.unite(p, q);
    if (ids[p] != ids[q]) {
      std::ostringstream s;
      s << "core row " << p << " sees core row " << q << " but they have ids " << ids[p]
        << " and " << ids[q];
      err = s.str();
    }
  });
  if (!err.empty()) return err;
  for (size_t i = 0; i < n; ++i) {
    if (!core[i] || claimer[i] == SIZE_MAX) continue;
    uf.unite(i, claimer[i]);
    if (ids[i] != ids[claimer[i]]) {
      std::ostringstream s;
      s << "core row " << i << " has id " << ids[i] << ", its first claimer row " << claimer[i]
        << " has id " << ids[claimer[i]];
      return s.str();
    }
  }

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
        } else if (claimer[i] != SIZE_MAX) {
          if (ids[i] != ids[claimer[i]])
            s << "border row " << i << " has id " << ids[i] << ", its first claimer row "
              << claimer[i] << " has id " << ids[claimer[i]];
        } else if (ids[i] != -1) {
          s << "row " << i << " is claimed by no core point but has id " << ids[i];
        }
    }
    if (!s.str().empty()) return s.str();
  }
  return "";
}

}  // namespace gd_test
