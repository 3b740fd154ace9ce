// test_reference.cpp — the brute-force reference itself: the literal rules
// agree with PostGIS's row-order algorithm, and hand-checked small cases.
#include <gtest/gtest.h>

#include "datagen.hpp"
#include "reference.hpp"

namespace gd_test {
namespace {

TEST(Reference, AgreesWithPostgisRowOrderAlgorithm) {
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    Rows r = seed % 2 ? uniform_rows(150, 0, 10, seed) : blob_rows(150, 3, 10, 0.4, seed);
    if (seed % 3 == 0) sprinkle_empty_and_null(r, 10, seed);
    for (double eps : {0.0, 0.5, 1.0, 2.0}) {
      for (int64_t minpoints : {0, 1, 2, 3, 5, 8}) {
        ASSERT_EQ(reference_dbscan(r.x, r.y, r.kinds, eps, minpoints),
                  postgis_order_dbscan(r.x, r.y, r.kinds, eps, minpoints))
            << "seed " << seed << " eps " << eps << " minpoints " << minpoints;
      }
    }
  }
}

TEST(Reference, HandCheckedChain) {
  // 0 - 1 - 2 are a chain 1 apart, 3 is alone; eps 1.
  Rows r;
  r.add(0, 0);
  r.add(1, 0);
  r.add(2, 0);
  r.add(10, 0);
  EXPECT_EQ(reference_dbscan(r.x, r.y, r.kinds, 1.0, 0), (std::vector<int32_t>{0, 0, 0, 1}));
  EXPECT_EQ(reference_dbscan(r.x, r.y, r.kinds, 1.0, 2), (std::vector<int32_t>{0, 0, 0, -1}));
  // minpoints 3: only row 1 is core, 0 and 2 are its borders.
  EXPECT_EQ(reference_dbscan(r.x, r.y, r.kinds, 1.0, 3), (std::vector<int32_t>{0, 0, 0, -1}));
  // Every point has 4 neighbours within 100: all core, even with nrows == minpoints.
  EXPECT_EQ(reference_dbscan(r.x, r.y, r.kinds, 100.0, 4), (std::vector<int32_t>{0, 0, 0, 0}));
  EXPECT_EQ(reference_dbscan(r.x, r.y, r.kinds, 100.0, 5), (std::vector<int32_t>{-1, -1, -1, -1}));
}

TEST(Reference, InvariantCheckerCatchesWrongIds) {
  Rows r = blob_rows(300, 3, 10, 0.3, 7);
  std::vector<int32_t> ids = reference_dbscan(r.x, r.y, r.kinds, 0.5, 4);
  EXPECT_EQ(check_invariants(r.x, r.y, r.kinds, 0.5, 4, ids), "");
  size_t noise = 0, member = 0;
  while (ids[noise] != -1) ++noise;
  while (ids[member] == -1) ++member;
  std::vector<int32_t> bad = ids;
  bad[noise] = ids[member];
  EXPECT_NE(check_invariants(r.x, r.y, r.kinds, 0.5, 4, canonical_ids(bad)), "");
  bad = ids;
  bad[member] = -1;
  EXPECT_NE(check_invariants(r.x, r.y, r.kinds, 0.5, 4, bad), "");
}

}  // namespace
}  // namespace gd_test
