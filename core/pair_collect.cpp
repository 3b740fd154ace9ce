// pair_collect.cpp — the size checks of the pair lists (pair_collect.hpp).
#include "pair_collect.hpp"

#include <unistd.h>

#include <cinttypes>
#include <cstdio>
#include <limits>

namespace gd {

int64_t default_max_pairs() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page <= 0) return std::numeric_limits<int64_t>::max() / kPairBytes;
  const unsigned __int128 half = static_cast<unsigned __int128>(pages) * page / 2;
  const unsigned __int128 most = half / kPairBytes;
  return most > static_cast<unsigned __int128>(std::numeric_limits<int64_t>::max())
             ? std::numeric_limits<int64_t>::max()
             : static_cast<int64_t>(most);
}

std::vector<int64_t> pair_offsets(const std::vector<int64_t>& counts, int64_t max_pairs,
                                  const char* what) {
  std::vector<int64_t> offset(counts.size() + 1);
  int64_t total = 0;
  for (size_t b = 0; b < counts.size(); ++b) {
    offset[b] = total;
    // Each count is at most the pairs of one block, far below 2^62: the sum
    // is checked at every step, so it cannot wrap before the test.
    total += counts[b];
    if (total > max_pairs) break;
  }
  if (total > max_pairs) {
    char msg[300];
    std::snprintf(msg, sizeof msg,
                  "too many %s in one partition: more than the %" PRId64 " (%" PRId64
                  " MB) that half the physical memory holds; use a smaller eps or more partitions",
                  what, max_pairs, (max_pairs / 1024 * kPairBytes + 1023) / 1024);
    throw Error(GD_ERR_NOMEM, msg);
  }
  offset[counts.size()] = total;
  return offset;
}

}  // namespace gd
