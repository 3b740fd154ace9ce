// test_small.cpp — the all-pairs path for partitions of a few points
// (cpu_small.cpp) against the general CPU path (grid, core flags,
// union-find, borders: cpu_cluster) and PostGIS's row-order algorithm, id
// for id and point type for point type, on many seeded tiny sets: random,
// duplicates, lattices at exactly eps, eps 0, one-sided rounding near zero,
// squares that underflow, huge coordinates; with EMPTY and NULL rows
// sprinkled in.  A failure names its family, seed, eps and minpoints.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "api_rows.hpp"
#include "backend.hpp"
#include "core_helpers.hpp"
#include "cpu_small.hpp"

namespace gd_test {
namespace {

struct Typed {
  std::vector<int32_t> ids;
  std::vector<uint8_t> types;
};

// Through the C API on the CPU: at most kSmallPoints points take the
// all-pairs path.
Typed through_api(const Rows& r, double eps, int64_t minpoints) {
  gd_params p;
  gd_params_init(&p);
  p.eps = eps;
  p.minpoints = minpoints;
  p.backend = GD_BACKEND_CPU;
  Typed out;
  out.ids.assign(r.size(), -7);
  out.types.assign(r.size(), 77);
  gd_run_stats stats;
  gd_error err;
  gd_status st = gd_cluster_points_typed(r.x.data(), r.y.data(), r.kinds.data(),
                                         static_cast<int64_t>(r.size()), &p, out.ids.data(),
                                         out.types.data(), &stats, &err);
  EXPECT_EQ(st, GD_OK) << err.message;
  return out;
}

// The points of r compacted in row order.
struct Compact {
  std::vector<double> x, y;
  gd::PointsView view() const {
    return gd::PointsView{x.data(), y.data(), static_cast<uint32_t>(x.size())};
  }
};

Compact compact(const Rows& r) {
  Compact c;
  for (size_t i = 0; i < r.size(); ++i)
    if (r.kinds[i] == GD_ROW_POINT) {
      c.x.push_back(r.x[i]);
      c.y.push_back(r.y[i]);
    }
  return c;
}

// The general CPU path on the same points, whatever their number (no
// all-noise shortcut either): grid, core flags, union-find, borders.
Typed through_general(const Rows& r, double eps, int64_t minpoints) {
  Compact c = compact(r);
  gd_params p;
  gd_params_init(&p);
  p.eps = eps;
  p.minpoints = minpoints;
  p.threads = 1;
  p.min_items_per_thread = 1;  // several threads even on small inputs
  gd::CancelToken cancel(p);
  gd_run_stats stats{};
  std::vector<uint32_t> rep(c.x.size());
  std::vector<uint8_t> core(c.x.size());
  Typed out;
  out.ids.assign(r.size(), -7);
  out.types.assign(r.size(), 77);
  if (!c.x.empty()) gd::cpu_cluster(c.view(), p, cancel, rep.data(), stats, core.data());
  gd::assign_ids(r.kinds.data(), static_cast<int64_t>(r.size()), rep.data(), minpoints,
                 out.ids.data());
  gd::api::fill_point_types(r.kinds.data(), static_cast<int64_t>(r.size()), core.data(),
                            out.ids.data(), minpoints, out.types.data());
  return out;
}

std::string describe(const Rows& r) {
  std::ostringstream s;
  s.precision(17);
  for (size_t i = 0; i < r.size(); ++i) {
    if (r.kinds[i] == GD_ROW_NULL)
      s << " NULL";
    else if (r.kinds[i] == GD_ROW_EMPTY)
      s << " EMPTY";
    else
      s << " (" << r.x[i] << " " << r.y[i] << ")";
  }
  return s.str();
}

// The three agree on r at eps for every minpoints in 0..6 and one above the
// row count.
void expect_all_agree(const Rows& r, double eps, const std::string& what) {
  const int64_t n = static_cast<int64_t>(r.size());
  for (int64_t minpoints : {int64_t{0}, int64_t{1}, int64_t{2}, int64_t{3}, int64_t{4},
                            int64_t{5}, int64_t{6}, n + 1}) {
    Typed fast = through_api(r, eps, minpoints);
    Typed general = through_general(r, eps, minpoints);
    std::vector<int32_t> postgis = postgis_order_dbscan(r.x, r.y, r.kinds, eps, minpoints);
    ASSERT_EQ(fast.ids, general.ids) << what << " eps " << eps << " minpoints " << minpoints
                                     << ":" << describe(r);
    ASSERT_EQ(fast.ids, postgis) << what << " eps " << eps << " minpoints " << minpoints << ":"
                                 << describe(r);
    ASSERT_EQ(fast.types, general.types) << what << " eps " << eps << " minpoints " << minpoints
                                         << ":" << describe(r);
  }
}

// Some rows turned EMPTY or NULL (their coordinates must not be read).
void sprinkle(Rows& r, std::mt19937_64& rng) {
  if (rng() % 3 != 0) return;
  for (size_t i = 0; i < r.size(); ++i) {
    uint64_t v = rng() % 8;
    if (v == 0) r.kinds[i] = GD_ROW_NULL;
    if (v == 1) r.kinds[i] = GD_ROW_EMPTY;
    if (r.kinds[i] != GD_ROW_POINT) r.x[i] = r.y[i] = NAN;
  }
}

// A size for a tiny set: mostly 0 to 4 rows, up to a few past kSmallPoints.
size_t tiny_size(std::mt19937_64& rng) {
  if (rng() % 4 != 0) return rng() % 5;
  return rng() % (gd::kSmallPoints + 4);
}

double ulps(double v, int k) {
  for (; k > 0; --k) v = std::nextafter(v, INFINITY);
  for (; k < 0; ++k) v = std::nextafter(v, -INFINITY);
  return v;
}

// A family: fills r (size rows) and returns its eps.
using Family = double (*)(Rows& r, size_t size, std::mt19937_64& rng);

double family_uniform(Rows& r, size_t size, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(0, 3);
  for (size_t i = 0; i < size; ++i) {
    double px = u(rng), py = u(rng);
    r.add(px, py);
  }
  return 1.0;
}

double family_duplicates(Rows& r, size_t size, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(0, 2);
  double px[3], py[3];
  for (int k = 0; k < 3; ++k) {
    px[k] = u(rng);
    py[k] = u(rng);
  }
  const int pool = 1 + static_cast<int>(rng() % 3);
  for (size_t i = 0; i < size; ++i) {
    int k = static_cast<int>(rng() % pool);
    r.add(px[k], py[k]);
  }
  const double eps[] = {0.0, 0.5, 1.0, 3.0};
  return eps[rng() % 4];
}

// Points on a lattice of step eps: neighbours at exactly eps, where the
// rounding of p +- eps and of the distance decides.
double family_lattice(Rows& r, size_t size, std::mt19937_64& rng) {
  const double steps[] = {1.0, 0.1, 0.3, 1e-3, 0.7, 1e5};
  const double step = steps[rng() % 6];
  const double x0 = (rng() % 2) ? 0.0 : -2 * step;
  for (size_t i = 0; i < size; ++i) {
    double px = x0 + static_cast<double>(rng() % 4) * step;
    double py = static_cast<double>(rng() % 4) * step;
    r.add(px, py);
  }
  return step;
}

// eps 0: only duplicates can be neighbours; neighbours one ulp apart are not.
double family_eps_zero(Rows& r, size_t size, std::mt19937_64& rng) {
  const double base[] = {0.0, 1.0, -3.5, 1e-300};
  for (size_t i = 0; i < size; ++i) {
    double px = ulps(base[rng() % 4], static_cast<int>(rng() % 3) - 1);
    double py = (rng() % 2) ? 0.0 : ulps(0.0, 1);
    r.add(px, py);
  }
  return 0.0;
}

// Mixed signs near zero and values next to eps: within(p, q) and
// within(q, p) differ (p = -1e-20 sees q = 1 at eps 1, q does not see p).
double family_one_sided(Rows& r, size_t size, std::mt19937_64& rng) {
  const double xs[] = {-1e-20, 1e-20, 0.0, 1.0, -1.0, 2.0, ulps(1.0, 1), ulps(1.0, -1),
                       ulps(-1.0, 1), -1e-17, 0.5, ulps(2.0, -1)};
  for (size_t i = 0; i < size; ++i) {
    double px = xs[rng() % 12];
    double py = (rng() % 4) ? 0.0 : xs[rng() % 12];
    r.add(px, py);
  }
  return 1.0;
}

// Squares that underflow: the box alone decides.
double family_underflow(Rows& r, size_t size, std::mt19937_64& rng) {
  const double xs[] = {0.0, 1e-170, 2e-170, -1e-170, 1e-300, 5e-324};
  for (size_t i = 0; i < size; ++i) {
    double px = xs[rng() % 6], py = xs[rng() % 6];
    r.add(px, py);
  }
  const double eps[] = {0.0, 1e-170, 1e-300, 2e-170};
  return eps[rng() % 4];
}

// Huge coordinates, eps small beside them: fl(p + eps) rounds.
double family_huge(Rows& r, size_t size, std::mt19937_64& rng) {
  for (size_t i = 0; i < size; ++i) {
    double px = 1e15 + static_cast<double>(rng() % 5) * 0.25;
    double py = -1e15 - static_cast<double>(rng() % 3) * 0.5;
    r.add(px, py);
  }
  const double eps[] = {0.25, 0.3, 0.5, 0.125};
  return eps[rng() % 4];
}

// Infinite eps: everything is one cluster.
double family_infinite_eps(Rows& r, size_t size, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(-1e300, 1e300);
  for (size_t i = 0; i < size; ++i) {
    double px = u(rng), py = u(rng);
    r.add(px, py);
  }
  return INFINITY;
}

struct NamedFamily {
  const char* name;
  Family fill;
};

const NamedFamily kFamilies[] = {
    {"uniform", family_uniform},         {"duplicates", family_duplicates},
    {"lattice", family_lattice},         {"eps_zero", family_eps_zero},
    {"one_sided", family_one_sided},     {"underflow", family_underflow},
    {"huge", family_huge},               {"infinite_eps", family_infinite_eps},
};

class SmallPath : public ::testing::TestWithParam<NamedFamily> {};

TEST_P(SmallPath, AgreesWithGeneralPathAndPostgis) {
  const NamedFamily& family = GetParam();
  for (uint64_t seed = 0; seed < 600; ++seed) {
    std::mt19937_64 rng(seed * 7919 + 17);
    Rows r;
    double eps = family.fill(r, tiny_size(rng), rng);
    sprinkle(r, rng);
    std::ostringstream what;
    what << family.name << " seed " << seed;
    expect_all_agree(r, eps, what.str());
    if (HasFatalFailure()) return;
  }
}

INSTANTIATE_TEST_SUITE_P(Families, SmallPath, ::testing::ValuesIn(kFamilies),
                         [](const ::testing::TestParamInfo<NamedFamily>& info) {
                           return std::string(info.param.name);
                         });

TEST(SmallPath, OneSidedPairByHand) {
  // p = -1e-20 sees q = 1 at eps 1, q does not see p.  minpoints 2: p is
  // core (itself and q), q is not (itself only); p claims q: one cluster.
  Rows r;
  r.add(-1e-20, 0);
  r.add(1, 0);
  EXPECT_EQ(through_api(r, 1, 2).ids, (std::vector<int32_t>{0, 0}));
  EXPECT_EQ(through_api(r, 1, 2).types, (std::vector<uint8_t>{GD_POINT_CORE, GD_POINT_BORDER}));
  // The other row order: q = 1 first, not core, is claimed by p all the same.
  Rows s;
  s.add(1, 0);
  s.add(-1e-20, 0);
  EXPECT_EQ(through_api(s, 1, 2).ids, (std::vector<int32_t>{0, 0}));
  // minpoints 3: nobody is core.
  EXPECT_EQ(through_api(r, 1, 3).ids, (std::vector<int32_t>{-1, -1}));
  expect_all_agree(r, 1, "by hand");
  expect_all_agree(s, 1, "by hand, reversed");
}

TEST(SmallPath, RanksAreClusterOrder) {
  // Three clusters met in the order 1, 0, 2 of their smallest members'
  // ranks: rep must be 0, 1, 2 by first point.
  const double x[] = {10, 0, 10, 20, 0, 20};
  const double y[] = {0, 0, 0, 0, 0, 0};
  uint32_t rep[6];
  uint8_t core[6];
  gd::cpu_cluster_small(gd::PointsView{x, y, 6}, 1, 2, rep, core);
  EXPECT_EQ(std::vector<uint32_t>(rep, rep + 6), (std::vector<uint32_t>{0, 1, 0, 2, 1, 2}));
  EXPECT_EQ(std::vector<uint8_t>(core, core + 6), (std::vector<uint8_t>{1, 1, 1, 1, 1, 1}));
}

TEST(SmallPath, BoundarySizes) {
  // kSmallPoints points take the all-pairs path, one more the grid: both
  // agree with PostGIS on a chain at exactly eps.
  for (uint32_t n : {gd::kSmallPoints - 1, gd::kSmallPoints, gd::kSmallPoints + 1}) {
    Rows r;
    for (uint32_t i = 0; i < n; ++i) r.add(0.1 * i, 0.0);
    expect_all_agree(r, 0.1, "chain of " + std::to_string(n));
  }
}

}  // namespace
}  // namespace gd_test
