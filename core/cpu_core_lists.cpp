// cpu_core_lists.cpp — the core points of each cell (CoreLists in
// cpu_phases.hpp), for the union and border stages.
#include <vector>

#include "cpu_phases.hpp"

namespace gd {

CoreLists::CoreLists(const Grid& grid, const uint8_t* f, ThreadTeam& team) {
  const size_t ncells = grid.cells.size();
  charge = MemoryCharge(static_cast<int64_t>(ncells + 1) * 4, "the core lists");
  first.resize(ncells + 1);
  // Per block of cells its core points, then each block's offset.
  std::vector<uint32_t> block(static_cast<size_t>(team.size()) + 1, 0);
  team.for_static(ncells, [&](int t, size_t c0, size_t c1) {
    uint32_t k = 0;
    for (size_t c = c0; c < c1; ++c)
      for (uint32_t p = grid.start[c]; p < grid.start[c + 1]; ++p) k += f[p] & kCoreFlag;
    block[t + 1] = k;
  });
  for (int t = 0; t < team.size(); ++t) block[t + 1] += block[t];
  const uint32_t ncore = block[team.size()];
  charge.add(static_cast<int64_t>(ncore) * 4, "the core lists");
  core.resize(ncore);
  team.for_static(ncells, [&](int t, size_t c0, size_t c1) {
    uint32_t k = block[t];
    for (size_t c = c0; c < c1; ++c) {
      first[c] = k;
      for (uint32_t p = grid.start[c]; p < grid.start[c + 1]; ++p)
        if (f[p] & kCoreFlag) core[k++] = p;
    }
  });
  first[ncells] = ncore;
}

}  // namespace gd
