// cpu_phases.hpp — the stages of the CPU DBSCAN, one file each, in order:
// cpu_grid.cpp (sort by cell), cpu_core_flags.cpp, cpu_union.cpp,
// cpu_border.cpp; cpu_dbscan.cpp runs them.
#pragma once

#include <atomic>
#include <cstdint>
#include <vector>

#include "cpu_grid.hpp"
#include "cpu_window.hpp"
#include "parallel.hpp"
#include "union_find.hpp"

namespace gd {

// Per sorted point.
constexpr uint8_t kCoreFlag = 1;   // at least minpoints neighbours
constexpr uint8_t kDenseFlag = 2;  // in a dense cell: its points are all core and pairwise neighbours
using CoreFlags = BigVector<uint8_t>;

// Cells handed to a thread at a time.
inline size_t cell_grain(const Grid& grid, const ThreadTeam& team) {
  size_t g = grid.cells.size() / (static_cast<size_t>(team.size()) * 32);
  return std::max<size_t>(1, std::min<size_t>(g, 256));
}

// Polls the cancel flag after about every 2^20 units of work.
class WorkPoller {
 public:
  explicit WorkPoller(const CancelToken& cancel) : cancel_(cancel) {}
  void add(size_t work) {
    done_ += work;
    if (done_ >= (size_t{1} << 20)) {
      done_ = 0;
      cancel_.throw_if_requested();
    }
  }

 private:
  const CancelToken& cancel_;
  size_t done_ = 0;
};

// flags[i] for every sorted point: kCoreFlag, plus kDenseFlag for dense cells.
// counts, when given, receives each sorted point's neighbour count capped at
// max(minpoints, 1) (the minpoints sweep derives every smaller level from it).
void mark_core_points(const Grid& grid, double eps, int64_t minpoints, CoreFlags& flags,
                      ThreadTeam& team, uint32_t* counts = nullptr);

// The core points of each cell: sorted positions core[first[c] .. first[c + 1]),
// ascending, so that the union and border stages visit core points only
// (where points are sparse about half of a window is not core).
struct CoreLists {
  MemoryCharge charge;
  BigVector<uint32_t> first;  // per cell, and one past the last
  BigVector<uint32_t> core;

  CoreLists(const Grid& grid, const uint8_t* flags, ThreadTeam& team);
};

// How core points are joined: Linkage and pair_join (rules/dbscan_rules.hpp).

// Unions the core points as the linkage says (dense cells wholesale).
// claimed_one_way, when given, is set when a pair seen one way only was
// joined through a first claimer (the minpoints sweep cannot reuse such sets).
void union_core_points(const Grid& grid, double eps, const CoreFlags& flags,
                       const CoreLists& lists, AtomicUnionFind& uf, ThreadTeam& team,
                       Linkage linkage = Linkage::kDbscan,
                       std::atomic<bool>* claimed_one_way = nullptr);

// The sorted position of x's first claimer: the core point r with the
// smallest point index such that within(r, x) (r searching); kNoise when
// there is none, searched over the core lists (CoreLists).  rows: the
// window of x's cell; without it, it is found.
// t: eps_threshold(eps).
uint32_t first_claimer(const Grid& grid, const CoreLists& lists, double eps, double t,
                       uint32_t x, const CellRange* rows);
uint32_t first_claimer(const Grid& grid, const CoreLists& lists, double eps, uint32_t x);

// rep[point index]: the root of a core point's set; for a border point, the
// root of its first claimer; else kNoise.
void assign_borders(const Grid& grid, double eps, const CoreFlags& flags,
                    const CoreLists& lists, const AtomicUnionFind& uf, uint32_t* rep, ThreadTeam& team);

}  // namespace gd
