// test_exact.cpp — the core against PostGIS's row-order algorithm where the
// neighbour relation is one-sided: within(p, q) and within(q, p) differ at
// the last bit (fl(px + eps) rounds, coordinates of mixed sign near zero) or
// the box alone decides (squares that underflow).  Thousands of small seeded
// sets per family; a failure names its family, seed, eps and minpoints.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <sstream>
#include <string>

#include "backend.hpp"
#include "core_helpers.hpp"

namespace gd_test {
namespace {

Rows rows_of(std::initializer_list<std::pair<double, double>> pts) {
  Rows r;
  for (const auto& p : pts) r.add(p.first, p.second);
  return r;
}

std::vector<int32_t> ids_of(const Rows& r, double eps, int64_t minpoints, int threads = 0) {
  RunResult run = cluster(r, eps, minpoints, threads);
  EXPECT_EQ(run.status, GD_OK) << run.err.message;
  return run.ids;
}

double ulp_step(double v, int k) {
  for (; k > 0; --k) v = std::nextafter(v, INFINITY);
  for (; k < 0; ++k) v = std::nextafter(v, -INFINITY);
  return v;
}

// ---- The relation --------------------------------------------------------

TEST(Exact, RelationIsOneSided) {
  // p's box [fl(-1e-20 - 1), fl(-1e-20 + 1)] = [-1, 1] holds q = 1 and
  // fl(1 - -1e-20) = 1 <= 1; q's box [0, 2] does not hold p.
  EXPECT_TRUE(gd::within(-1e-20, 0, 1, 0, 1));
  EXPECT_FALSE(gd::within(1, 0, -1e-20, 0, 1));
  EXPECT_EQ(gd::within_each_way(-1e-20, 0, 1, 0, 1), 1u);
  EXPECT_EQ(gd::within_each_way(1, 0, -1e-20, 0, 1), 2u);
  EXPECT_EQ(gd::within_each_way(0, 0, 0.5, 0.5, 1), 3u);
  EXPECT_EQ(gd::within_each_way(0, 0, 0.8, 0.8, 1), 0u);
  // dx*dx underflows: the box decides, in each direction.
  EXPECT_FALSE(gd::within(0, 0, 1e-170, 0, 0));
  EXPECT_TRUE(gd::within(0, 0, 1e-170, 0, 1e-170));
  // The reference's copy agrees.
  EXPECT_TRUE(ref_within(-1e-20, 0, 1, 0, 1));
  EXPECT_FALSE(ref_within(1, 0, -1e-20, 0, 1));
}

TEST(Exact, RandomPairsAgreeWithReferenceCopy) {
  std::mt19937_64 rng(11);
  std::uniform_int_distribution<int> ex(-80, 3);
  std::uniform_real_distribution<double> u(-1, 1);
  for (int i = 0; i < 200000; ++i) {
    double eps = std::ldexp(std::fabs(u(rng)), ex(rng) / 8);
    double px = std::ldexp(u(rng), ex(rng)), py = std::ldexp(u(rng), ex(rng));
    double qx = px + eps * u(rng) * 1.5, qy = py + eps * u(rng) * 1.5;
    ASSERT_EQ(gd::within(px, py, qx, qy, eps), ref_within(px, py, qx, qy, eps)) << i;
    unsigned both = gd::within(px, py, qx, qy, eps) | gd::within(qx, qy, px, py, eps) << 1;
    ASSERT_EQ(gd::within_each_way(px, py, qx, qy, eps), both) << i;
  }
  // Scales where squares underflow and eps is below 2^-500 (within_each_way's
  // cheap test), coordinates of mixed sign and binade, pairs at the box edge.
  std::uniform_int_distribution<int> scale(-640, -440);
  int one_sided = 0;
  for (int i = 0; i < 400000; ++i) {
    const int s = scale(rng);
    double eps = i % 17 == 0 ? 0 : std::ldexp(std::fabs(u(rng)), s);
    double px = std::ldexp(u(rng), s + ex(rng) / 4), py = std::ldexp(u(rng), s + ex(rng) / 4);
    double qx = px + eps * u(rng) * 2.5, qy = i % 3 ? py : py + eps * u(rng) * 2.5;
    if (i % 5 == 0) qx = ulp_step(px + (i % 2 ? eps : -eps), static_cast<int>(rng() % 5) - 2);
    ASSERT_EQ(gd::within(px, py, qx, qy, eps), ref_within(px, py, qx, qy, eps)) << i;
    unsigned both = gd::within(px, py, qx, qy, eps) | gd::within(qx, qy, px, py, eps) << 1;
    ASSERT_EQ(gd::within_each_way(px, py, qx, qy, eps), both)
        << std::hexfloat << px << " " << py << " " << qx << " " << qy << " " << eps;
    one_sided += both == 1 || both == 2;
  }
  EXPECT_GT(one_sided, 1000);
}

// ---- Hand-checked against PostGIS 3.3.2 (ST_ClusterDBSCAN ... OVER (ORDER BY id)) ----

TEST(Exact, CoreCountIsTheSearchersView) {
  // Row 0 sees row 1 but not row 2; row 1 (at 1) does not see row 0; each
  // point has 2 neighbours of its own: none is core at minpoints 3
  // (symmetric neighbours would make row 0 core with 3).
  Rows r = rows_of({{1, 0}, {-1e-20, 0}, {2, 0}, {100, 0}});
  EXPECT_EQ(ids_of(r, 1, 3), (std::vector<int32_t>{-1, -1, -1, -1}));
  EXPECT_EQ(postgis_order_dbscan(r.x, r.y, r.kinds, 1, 3), (std::vector<int32_t>{-1, -1, -1, -1}));
}

TEST(Exact, EarlierCoreClaimsALaterCoreThatDoesNotSeeIt) {
  // Row 0 sees row 1, row 1 does not see row 0; both are core (row 1
  // through row 2): row 0 claims row 1 before row 1 is visited.
  Rows r = rows_of({{-1e-20, 0}, {1, 0}, {1.5, 0}, {100, 0}});
  const std::vector<int32_t> want{0, 0, 0, -1};
  EXPECT_EQ(postgis_order_dbscan(r.x, r.y, r.kinds, 1, 2), want);
  EXPECT_EQ(reference_dbscan(r.x, r.y, r.kinds, 1, 2), want);
  for (int threads : {1, 2}) EXPECT_EQ(ids_of(r, 1, 2, threads), want);
}

TEST(Exact, OneSidedPairOfCoresIsNotJoinedWhenAnotherClaimedFirst) {
  // Row 1 sees row 2 but not the reverse; row 0 claims row 2 first, so
  // rows 1 and 2 stay apart.  minpoints 0 and 1 join either way.
  Rows r = rows_of({{1.9, 0}, {-1e-20, 0}, {1, 0}, {100, 0}});
  const std::vector<int32_t> want{0, 1, 0, -1};
  EXPECT_EQ(postgis_order_dbscan(r.x, r.y, r.kinds, 1, 2), want);
  EXPECT_EQ(reference_dbscan(r.x, r.y, r.kinds, 1, 2), want);
  for (int threads : {1, 2}) EXPECT_EQ(ids_of(r, 1, 2, threads), want);
  for (int64_t m : {0, 1}) {
    EXPECT_EQ(postgis_order_dbscan(r.x, r.y, r.kinds, 1, m), (std::vector<int32_t>{0, 0, 0, 1}));
    EXPECT_EQ(ids_of(r, 1, m), (std::vector<int32_t>{0, 0, 0, 1}));
  }
}

TEST(Exact, BorderIsClaimedByTheFirstCoreThatSeesIt) {
  // Row 2 (a border at 1) is seen by core row 1 (near 0, left cluster) but
  // does not see it; row 0 (right cluster) reaches it too.  The claimer is
  // the smallest core row whose box holds it.
  Rows r = rows_of({{1.9, 0}, {-1e-20, 0}, {1, 0}, {2.5, 0}, {-0.5, 0}, {100, 0}});
  for (int64_t m : {2, 3}) {
    std::vector<int32_t> want = postgis_order_dbscan(r.x, r.y, r.kinds, 1, m);
    EXPECT_EQ(reference_dbscan(r.x, r.y, r.kinds, 1, m), want) << m;
    for (int threads : {1, 2}) EXPECT_EQ(ids_of(r, 1, m, threads), want) << m;
  }
}

TEST(Exact, DenseCellNeedsBothCorners) {
  // One cell (eps is below the grid's floor): row 0 sees rows 1 and 2, they
  // do not see row 0, so at minpoints 3 only row 0 is core; the cell must
  // not be taken as dense (all core).
  const double eps = 1e-165;
  Rows r = rows_of({{-1e-185, 0}, {1e-165, 0}, {1e-165, 0}, {1, 1}});
  EXPECT_TRUE(gd::within(-1e-185, 0, 1e-165, 0, eps));
  EXPECT_FALSE(gd::within(1e-165, 0, -1e-185, 0, eps));
  gd_params p;
  gd_params_init(&p);
  p.eps = eps;
  p.minpoints = 3;
  std::vector<int32_t> ids(r.size());
  std::vector<uint8_t> types(r.size());
  gd_run_stats stats;
  gd_error err;
  ASSERT_EQ(gd_cluster_points_typed(r.x.data(), r.y.data(), r.kinds.data(),
                                    static_cast<int64_t>(r.size()), &p, ids.data(), types.data(),
                                    &stats, &err),
            GD_OK)
      << err.message;
  EXPECT_EQ(ids, (std::vector<int32_t>{0, 0, 0, -1}));
  EXPECT_EQ(types, (std::vector<uint8_t>{GD_POINT_CORE, GD_POINT_BORDER, GD_POINT_BORDER,
                                         GD_POINT_NOISE}));
  EXPECT_EQ(ids, postgis_order_dbscan(r.x, r.y, r.kinds, eps, 3));
}

// ---- Adversarial families ------------------------------------------------

struct Case {
  Rows rows;
  double eps;
};

// A lattice of spacing ~1e-165 (squares underflow to 0: the boxes decide),
// possibly straddling 0, a random subset, rows shuffled.
Case underflow_lattice(std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(0, 1);
  const double s = (0.5 + 2.5 * u(rng)) * 1e-165;
  const int side = 2 + static_cast<int>(rng() % 6);
  const int shift = static_cast<int>(rng() % 3);
  const double x0 = shift == 0 ? 0 : shift == 1 ? -side / 2 * s : u(rng) * 1e-163;
  const double y0 = rng() % 2 ? 0 : -side / 2 * s;
  Rows r;
  for (int i = 0; i < side; ++i)
    for (int j = 0; j < side; ++j)
      if (rng() % 10 < 7) r.add(x0 + i * s, y0 + j * s);
  if (r.size() == 0) r.add(x0, y0);
  // eps: a multiple of s, or the difference of two of the points, give or
  // take an ulp or two.
  double eps;
  if (rng() % 2) {
    const double factors[] = {0, 1, 1.5, 2, 2.5, std::sqrt(2.0)};
    eps = s * factors[rng() % 6];
  } else {
    const size_t a = rng() % r.size(), b = rng() % r.size();
    eps = std::fabs(rng() % 2 ? r.x[b] - r.x[a] : r.y[b] - r.y[a]);
  }
  eps = ulp_step(eps, static_cast<int>(rng() % 5) - 2);
  if (eps < 0) eps = 0;
  return {r, eps};
}

// Values at the edge of each other's boxes: a few bases of mixed sign and
// magnitude (2^-8 to 2^4 eps, or down to 2^-70 eps near zero), then
// fl(b +- eps) and its neighbours a few ulps away; points take x and y from
// the pool.  Differences between values of different binades round, so the
// two boxes of a pair may disagree.
Case box_edges(std::mt19937_64& rng, bool near_zero) {
  std::uniform_real_distribution<double> u(-1, 1);
  const double eps = std::ldexp(0.5 + std::fabs(u(rng)), static_cast<int>(rng() % 7) - 3);
  std::vector<double> pool;
  const int nbases = 1 + static_cast<int>(rng() % 3);
  for (int k = 0; k < nbases; ++k) {
    int e = near_zero ? -static_cast<int>(rng() % 70) : static_cast<int>(rng() % 12) - 8;
    pool.push_back(std::ldexp(eps * u(rng), e));
  }
  const size_t bases = pool.size();
  for (size_t k = 0; k < bases; ++k) {
    for (double sgn : {-1.0, 1.0}) {
      if (rng() % 3 == 0) continue;
      double edge = pool[k] + sgn * eps;
      pool.push_back(ulp_step(edge, static_cast<int>(rng() % 5) - 2));
      if (rng() % 2) pool.push_back(ulp_step(edge + sgn * eps, static_cast<int>(rng() % 3) - 1));
    }
  }
  Rows r;
  const size_t n = 3 + rng() % 25;
  for (size_t i = 0; i < n; ++i) {
    double x = pool[rng() % pool.size()];
    double y = rng() % 3 == 0 ? 0.0 : pool[rng() % pool.size()];
    if (rng() % 2) std::swap(x, y);
    r.add(x, y);
  }
  return {r, eps};
}

// The same scaled by 2^-560: eps is below the grid's 2^-500 floor, so cells
// are much wider than eps and hold pairs at the edge of each other's boxes
// (the dense-cell test must look at both corners); squares underflow.
Case tiny_box_edges(std::mt19937_64& rng) {
  Case c = box_edges(rng, rng() % 2);
  for (size_t i = 0; i < c.rows.size(); ++i) {
    c.rows.x[i] = std::ldexp(c.rows.x[i], -560);
    c.rows.y[i] = std::ldexp(c.rows.y[i], -560);
  }
  c.eps = std::ldexp(c.eps, -560);
  return c;
}

// Large coordinates where fl(px + eps) rounds to a coarse grid.  Differences
// of values within a factor 2 of each other are exact (Sterbenz), so here
// the relation is symmetric: the rounding of the boxes must not matter.
Case large_coordinates(std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(0, 1);
  const double base = std::ldexp(1.0 + u(rng), 20 + static_cast<int>(rng() % 30));
  const double ulp = std::nextafter(base, INFINITY) - base;
  const double eps = ulp * (0.3 + 4 * u(rng));
  Rows r;
  const size_t n = 3 + rng() % 25;
  for (size_t i = 0; i < n; ++i)
    r.add(base + ulp * static_cast<double>(rng() % 8), -base + ulp * static_cast<double>(rng() % 8));
  return {r, eps};
}

// The old symmetric test (|dx| <= eps, |dy| <= eps, distance), to show that
// the families reach cases where it gives other clusters.
std::vector<int32_t> symmetric_dbscan(const Rows& r, double eps, int64_t minpoints) {
  const size_t n = r.size();
  std::vector<std::vector<bool>> nb(n, std::vector<bool>(n));
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < n; ++j) {
      double dx = r.x[j] - r.x[i], dy = r.y[j] - r.y[i];
      nb[i][j] = std::fabs(dx) <= eps && std::fabs(dy) <= eps && std::sqrt(dx * dx + dy * dy) <= eps;
    }
  return reference_graph_dbscan(r.kinds, nb, minpoints);
}

struct Tally {
  int sets = 0, one_sided_sets = 0, differs_from_symmetric = 0;
};

void check_family(const char* family, uint64_t seed0, int nsets, Case (*make)(std::mt19937_64&),
                  Tally& tally) {
  for (int k = 0; k < nsets; ++k) {
    const uint64_t seed = seed0 + static_cast<uint64_t>(k);
    std::mt19937_64 rng(seed);
    Case c = make(rng);
    if (seed % 7 == 0) sprinkle_empty_and_null(c.rows, 6, seed);
    const Rows& r = c.rows;
    ++tally.sets;
    bool one_sided = false;
    for (size_t i = 0; i < r.size() && !one_sided; ++i)
      for (size_t j = 0; j < r.size() && !one_sided; ++j)
        one_sided = r.kinds[i] == GD_ROW_POINT && r.kinds[j] == GD_ROW_POINT &&
                    ref_within(r.x[i], r.y[i], r.x[j], r.y[j], c.eps) !=
                        ref_within(r.x[j], r.y[j], r.x[i], r.y[i], c.eps);
    tally.one_sided_sets += one_sided;
    bool differs = false;
    for (int64_t m : {0, 1, 2, 3, 4, 6}) {
      const std::vector<int32_t> want = postgis_order_dbscan(r.x, r.y, r.kinds, c.eps, m);
      std::ostringstream what;
      what.precision(17);
      what << family << " seed " << seed << " eps " << c.eps << " minpoints " << m;
      ASSERT_EQ(reference_dbscan(r.x, r.y, r.kinds, c.eps, m), want) << what.str();
      for (int threads : {1, 2}) {
        if (threads == 2 && seed % 4 != 0) continue;
        RunResult run = cluster(r, c.eps, m, threads);
        ASSERT_EQ(run.status, GD_OK) << what.str() << ": " << run.err.message;
        ASSERT_EQ(run.ids, want) << what.str() << " threads " << threads;
      }
      ASSERT_EQ(check_invariants(r.x, r.y, r.kinds, c.eps, m, want), "") << what.str();
      differs = differs || symmetric_dbscan(r, c.eps, m) != want;
    }
    tally.differs_from_symmetric += differs;
  }
  std::printf("[ exact    ] %-18s seeds %llu..%llu: %d sets, %d with one-sided pairs, %d where "
              "the symmetric test gives other clusters\n",
              family, static_cast<unsigned long long>(seed0),
              static_cast<unsigned long long>(seed0 + nsets - 1), tally.sets,
              tally.one_sided_sets, tally.differs_from_symmetric);
}

TEST(Exact, UnderflowLatticesMatchPostgisRowOrder) {
  Tally t;
  check_family("underflow lattice", 1000, 2000, underflow_lattice, t);
  EXPECT_GT(t.one_sided_sets, t.sets / 20);
  EXPECT_GT(t.differs_from_symmetric, 0);
}

TEST(Exact, BoxEdgesMatchPostgisRowOrder) {
  Tally t;
  check_family("box edges", 20000, 2500, [](std::mt19937_64& rng) { return box_edges(rng, false); },
               t);
  EXPECT_GT(t.one_sided_sets, t.sets / 20);
  EXPECT_GT(t.differs_from_symmetric, 0);
}

TEST(Exact, MixedSignNearZeroMatchPostgisRowOrder) {
  Tally t;
  check_family("mixed sign near 0", 40000, 2500,
               [](std::mt19937_64& rng) { return box_edges(rng, true); }, t);
  EXPECT_GT(t.one_sided_sets, t.sets / 20);
  EXPECT_GT(t.differs_from_symmetric, 0);
}

TEST(Exact, TinyEpsBoxEdgesMatchPostgisRowOrder) {
  Tally t;
  check_family("tiny eps box edges", 80000, 2500, tiny_box_edges, t);
  EXPECT_GT(t.one_sided_sets, t.sets / 20);
  EXPECT_GT(t.differs_from_symmetric, 0);
}

TEST(Exact, LargeCoordinatesMatchPostgisRowOrder) {
  Tally t;
  check_family("large coordinates", 60000, 1000, large_coordinates, t);
}

// Larger sets of the same kinds: dense cells, many points per cell, the
// one-sided pairs met by the union of a dense cell; several threads.
TEST(Exact, LargerAdversarialSetsMatchPostgisRowOrder) {
  for (uint64_t seed = 1; seed <= 12; ++seed) {
    std::mt19937_64 rng(seed);
    Rows r;
    double eps = 1;
    if (seed % 3 == 0) {
      // One big underflow lattice straddling 0.
      const double s = 1e-165;
      for (int i = -20; i < 20; ++i)
        for (int j = -20; j < 20; ++j) r.add(i * s, j * s);
      std::shuffle(r.kinds.begin(), r.kinds.end(), rng);  // all points: a no-op
      for (size_t i = r.size(); i > 1; --i) {
        size_t k = rng() % i;
        std::swap(r.x[i - 1], r.x[k]);
        std::swap(r.y[i - 1], r.y[k]);
      }
      eps = s * (seed % 2 ? 1.0 : 1.5);
    } else {
      // Many copies of box-edge pools.
      Case c = box_edges(rng, seed % 3 == 1);
      eps = c.eps;
      std::vector<double> xs = c.rows.x, ys = c.rows.y;
      for (int i = 0; i < 1500; ++i) {
        size_t a = rng() % xs.size(), b = rng() % xs.size();
        r.add(xs[a], rng() % 2 ? ys[b] : xs[b]);
      }
    }
    if (seed % 4 == 0) sprinkle_empty_and_null(r, 20, seed);
    for (int64_t m : {0, 1, 2, 5, 20, 200}) {
      const std::vector<int32_t> want = postgis_order_dbscan(r.x, r.y, r.kinds, eps, m);
      std::ostringstream what;
      what.precision(17);
      what << "seed " << seed << " eps " << eps << " minpoints " << m;
      ASSERT_EQ(reference_dbscan(r.x, r.y, r.kinds, eps, m), want) << what.str();
      for (int threads : {1, 2, 4}) {
        RunResult run = cluster(r, eps, m, threads);
        ASSERT_EQ(run.status, GD_OK) << run.err.message;
        ASSERT_EQ(run.ids, want) << what.str() << " threads " << threads;
      }
    }
  }
}

}  // namespace
}  // namespace gd_test
