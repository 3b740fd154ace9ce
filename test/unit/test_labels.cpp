// test_labels.cpp — assign_ids, the numbering shared by both back ends.
#include <gtest/gtest.h>

#include <vector>

#include "backend.hpp"

namespace {

std::vector<int32_t> ids_of(const std::vector<uint8_t>& kinds, const std::vector<uint32_t>& rep,
                            int64_t minpoints) {
  std::vector<int32_t> ids(kinds.size(), -7);
  gd::assign_ids(kinds.data(), static_cast<int64_t>(kinds.size()), rep.data(), minpoints,
                 ids.data());
  return ids;
}

TEST(Labels, NumberedByFirstRow) {
  std::vector<uint8_t> kinds(6, GD_ROW_POINT);
  EXPECT_EQ(ids_of(kinds, {4, 2, 4, gd::kNoise, 0, 2}, 2),
            (std::vector<int32_t>{0, 1, 0, -1, 2, 1}));
}

TEST(Labels, RepresentativesOfAnyValue) {
  // A back end may use values beyond the point count (hash-map path).
  std::vector<uint8_t> kinds(5, GD_ROW_POINT);
  EXPECT_EQ(ids_of(kinds, {1000000, 7, 1000000, 3, 7}, 2), (std::vector<int32_t>{0, 1, 0, 2, 1}));
}

TEST(Labels, EmptyNullAndOtherRows) {
  std::vector<uint8_t> kinds = {GD_ROW_EMPTY, GD_ROW_POINT, GD_ROW_NULL, GD_ROW_OTHER,
                                GD_ROW_EMPTY, GD_ROW_POINT};
  std::vector<uint32_t> rep = {1, 0, gd::kNoise};  // one per POINT/OTHER row
  EXPECT_EQ(ids_of(kinds, rep, 0), (std::vector<int32_t>{0, 1, -1, 2, 3, -1}));
  EXPECT_EQ(ids_of(kinds, rep, 1), (std::vector<int32_t>{0, 1, -1, 2, 3, -1}));
  EXPECT_EQ(ids_of(kinds, rep, 2), (std::vector<int32_t>{-1, 0, -1, 1, -1, -1}));
}

TEST(Labels, UnknownKindThrows) {
  std::vector<uint8_t> kinds = {GD_ROW_POINT, 17};
  std::vector<uint32_t> rep = {0};
  std::vector<int32_t> ids(2);
  EXPECT_THROW(gd::assign_ids(kinds.data(), 2, rep.data(), 0, ids.data()), gd::Error);
}

}  // namespace
