// ids.hpp — the one id numbering (rule 5 of rules/dbscan_rules.hpp):
// clusters get ids 0..k-1 in the order of each cluster's first row.  Walk
// the rows in order and ask for each clustered row's id through the slot of
// its representative; a slot holds kNoise until its cluster is first met.
// Used by labels.cpp (rows to ids), cpu_small.cpp and cuda/strips.cu (ranks
// that assign_ids takes as they are); the device pipeline computes the same
// ranks in parallel (cuda/ranks.cuh, rank_roots: each root's first row by
// an atomic minimum, the first rows flagged, then a scan), and assign_ids
// checks them.
#pragma once

#include <cstdint>
#include <limits>

#include "backend.hpp"

namespace gd {

class FirstRowIds {
 public:
  // The id of the cluster whose slot this is, numbered now if it is new.
  uint32_t id(uint32_t& slot) {
    if (slot == kNoise) slot = next();
    return slot;
  }

  // A new id (a cluster of one row that has no slot: an EMPTY row with
  // minpoints <= 1).  Ids are int32 in the output.
  uint32_t next() {
    if (count_ == static_cast<uint32_t>(std::numeric_limits<int32_t>::max()))
      throw Error(GD_ERR_INVALID, "more clusters than int32 ids can number");
    return count_++;
  }

  uint32_t count() const { return count_; }

 private:
  uint32_t count_ = 0;
};

}  // namespace gd
