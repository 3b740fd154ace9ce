// labels.cpp — per-point representatives to per-row ids, for both back
// ends, by the one numbering of rules/ids.hpp (ids 0..k-1 in the order of
// each cluster's first row), with EMPTY and NULL rows in their places.
#include <string>
#include <unordered_map>
#include <vector>

#include "backend.hpp"
#include "big_alloc.hpp"
#include "rules/ids.hpp"

namespace gd {

namespace {

// Representatives that are already ranks (the k-th cluster to appear in row
// order holds k; the GPU back end gives them) are their ids, when no EMPTY row
// takes an id between clusters: one sequential pass, with no branch on the
// values (kNoise cast to int32 is GD_NOISE).  Returns false, having written
// some ids, when the values are not ranks or a row needs the general path;
// assign_ids then numbers every row again.
bool assign_ranked_ids(const uint8_t* row_kind, int64_t nrows, const uint32_t* rep,
                       int64_t minpoints, int32_t* cluster_ids) {
  static_assert(static_cast<int32_t>(kNoise) == GD_NOISE, "noise must map to GD_NOISE");
  uint32_t next = 0;  // clusters seen so far; at most the points, so below INT32_MAX
  bool bad = false;
  int64_t p = 0;
  for (int64_t r = 0; r < nrows; ++r) {
    const uint8_t kind = row_kind[r];
    if (kind == GD_ROW_POINT || kind == GD_ROW_OTHER) {
      const uint32_t v = rep[p++];
      bad |= v != kNoise && v > next;
      if ((r & 4095) == 0 && bad) return false;  // roots, not ranks (the CPU's): stop early
      next += v == next;
      cluster_ids[r] = static_cast<int32_t>(v);
    } else if (kind == GD_ROW_NULL || (kind == GD_ROW_EMPTY && minpoints > 1)) {
      cluster_ids[r] = GD_NOISE;
    } else {
      return false;
    }
  }
  return !bad;
}

}  // namespace

// rep holds one value per GD_ROW_POINT or GD_ROW_OTHER row, in row order.
// Representatives below the number of such rows (what both back ends give)
// are looked up in a table, any other value in a hash map.
void assign_ids(const uint8_t* row_kind, int64_t nrows, const uint32_t* rep, int64_t minpoints,
                int32_t* cluster_ids) {
  if (assign_ranked_ids(row_kind, nrows, rep, minpoints, cluster_ids)) return;
  int64_t npoints = 0;
  for (int64_t r = 0; r < nrows; ++r)
    npoints += row_kind[r] == GD_ROW_POINT || row_kind[r] == GD_ROW_OTHER;

  // The id slots of the representatives (rules/ids.hpp).
  BigVector<uint32_t> id_of_rep(static_cast<size_t>(npoints), kNoise);
  std::unordered_map<uint32_t, uint32_t> id_of_other_rep;
  FirstRowIds ids;
  int64_t p = 0;
  for (int64_t r = 0; r < nrows; ++r) {
    switch (row_kind[r]) {
      case GD_ROW_POINT:
      case GD_ROW_OTHER: {
        uint32_t v = rep[p++];
        if (v == kNoise) {
          cluster_ids[r] = GD_NOISE;
        } else if (v < npoints) {
          cluster_ids[r] = static_cast<int32_t>(ids.id(id_of_rep[v]));
        } else {
          auto it = id_of_other_rep.try_emplace(v, kNoise).first;
          cluster_ids[r] = static_cast<int32_t>(ids.id(it->second));
        }
        break;
      }
      case GD_ROW_EMPTY:
        cluster_ids[r] = minpoints <= 1 ? static_cast<int32_t>(ids.next()) : GD_NOISE;
        break;
      case GD_ROW_NULL:
        cluster_ids[r] = GD_NOISE;
        break;
      default:
        throw Error(GD_ERR_INVALID,
                    "row " + std::to_string(r) + " has an unknown kind " +
                        std::to_string(static_cast<int>(row_kind[r])));
    }
  }
}

}  // namespace gd
