// nd_grid.cpp — the n-D grid (see nd_points.hpp): bounding box on the grid
// axes, cell side, cell keys, sort by cell, cell ranges; the window of a cell.
#include <algorithm>
#include <cmath>
#include <limits>

#include "cpu_grid.hpp"
#include "nd_points.hpp"
#include "radix_sort.hpp"

namespace gd {

namespace {

// Cells that NdGrid::slab searches: at least this many points, spread over
// more than this many reaches on the fourth axis (1M 6-D points in clumps
// one reach wide there took 400 ms with a search in every crowded cell, 235
// without; gaussian blobs of 4 to 8 coordinates gain 1.2-1.9x).
constexpr uint32_t kSlabPoints = 16;
constexpr double kSlabReaches = 4;

AxisBox axis_box(const NdPointsView& pts, int axes, ThreadTeam& team) {
  std::vector<AxisBox> part(team.size());
  team.for_static(pts.n, [&](int t, size_t begin, size_t end) {
    AxisBox b;
    for (size_t i = begin; i < end; ++i) {
      const double* p = pts.coords + i * pts.dims;
      for (int a = 0; a < axes; ++a) {
        b.lo[a] = std::min(b.lo[a], p[a]);
        b.hi[a] = std::max(b.hi[a], p[a]);
      }
    }
    part[t] = b;
  });
  AxisBox all;
  for (const AxisBox& b : part) {
    for (int a = 0; a < axes; ++a) {
      all.lo[a] = std::min(all.lo[a], b.lo[a]);
      all.hi[a] = std::max(all.hi[a], b.hi[a]);
    }
  }
  return all;
}

// Cells and their starts from the sorted points' cells.
template <class CellAt>
void cell_ranges(uint32_t n, CellAt cell_at, NdGrid& grid) {
  grid.cells.clear();
  grid.start.clear();
  NdCell prev{{0, 0, 0}};
  for (uint32_t i = 0; i < n; ++i) {
    NdCell k = cell_at(i);
    if (i == 0 || prev < k) {
      grid.cells.push_back(k);
      grid.start.push_back(i);
      prev = k;
    }
  }
  grid.start.push_back(n);
}

// Keys c0 * n1 * n2 + c1 * n2 + c2 fit in 64 bits: radix sort them.
void sort_by_key(const NdPointsView& pts, const CellMap& m, const uint64_t count[3], NdGrid& grid,
                 ThreadTeam& team) {
  BigVector<uint64_t> keys(pts.n);
  BigVector<uint32_t> idx(pts.n);
  team.for_static(pts.n, [&](int, size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i) {
      NdCell k = m.cell_of(pts.coords + i * pts.dims);
      keys[i] = (static_cast<uint64_t>(k.c[0]) * count[1] + static_cast<uint64_t>(k.c[1])) *
                    count[2] +
                static_cast<uint64_t>(k.c[2]);
      idx[i] = static_cast<uint32_t>(i);
    }
  });
  const uint64_t max_key = keys.empty() ? 0 : *std::max_element(keys.begin(), keys.end());
  const int bits = max_key == 0 ? 0 : 64 - __builtin_clzll(max_key);
  radix_sort(keys, idx, bits, team);
  cell_ranges(
      pts.n,
      [&](uint32_t i) {
        uint64_t key = keys[i];
        NdCell k;
        k.c[2] = static_cast<int64_t>(key % count[2]);
        key /= count[2];
        k.c[1] = static_cast<int64_t>(key % count[1]);
        k.c[0] = static_cast<int64_t>(key / count[1]);
        return k;
      },
      grid);
  grid.perm = std::move(idx);
}

// Too many cells for a 64-bit key (tiny eps over a huge extent): sort
// (cell, index) pairs.
void sort_by_cell(const NdPointsView& pts, const CellMap& m, NdGrid& grid, ThreadTeam& team) {
  struct Item {
    NdCell cell;
    uint32_t index;
  };
  BigVector<Item> items(pts.n);
  team.for_static(pts.n, [&](int, size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i)
      items[i] = Item{m.cell_of(pts.coords + i * pts.dims), static_cast<uint32_t>(i)};
  });
  team.cancel().throw_if_requested();
  std::sort(items.begin(), items.end(), [](const Item& a, const Item& b) {
    return a.cell < b.cell || (!(b.cell < a.cell) && a.index < b.index);
  });
  cell_ranges(pts.n, [&](uint32_t i) { return items[i].cell; }, grid);
  grid.perm.resize(pts.n);
  for (uint32_t i = 0; i < pts.n; ++i) grid.perm[i] = items[i].index;
}

}  // namespace

CellMap choose_cells(const AxisBox& box, int axes, bool fine, double reach) {
  CellMap m;
  m.axes = axes;
  double extent = 0;
  for (int a = 0; a < axes; ++a) {
    m.origin[a] = box.lo[a];
    extent = std::max(extent, box.hi[a] - box.lo[a]);
  }
  const double f = fine ? 0.999 / std::sqrt(static_cast<double>(axes)) : 1.001;
  double side = neighbour_reach(reach) * f + 1e-12 * extent;
  if (std::isfinite(side))
    m.side = side;
  else
    m.single = true;
  return m;
}

NdGrid build_nd_grid(const NdPointsView& pts, double reach, bool fine, ThreadTeam& team) {
  NdGrid grid;
  grid.dims = pts.dims;
  grid.axes = std::min(pts.dims, 3);
  fine = fine && pts.dims <= 3;
  grid.radius = fine ? 2 : 1;
  if (pts.n == 0) {
    grid.start.assign(1, 0);
    return grid;
  }
  grid.charge = MemoryCharge(static_cast<int64_t>(pts.n) * (48 + 8 * pts.dims), "the grid");
  AxisBox box = axis_box(pts, grid.axes, team);
  CellMap m = choose_cells(box, grid.axes, fine, reach);

  const CellCounts k = cell_counts(m, box);
  if (k.one_key())
    sort_by_key(pts, m, k.count, grid, team);
  else
    sort_by_cell(pts, m, grid, team);

  const int d = pts.dims;
  if (d > 3) {
    // The points of a cell of kSlabPoints or more spread over more than
    // kSlabReaches reaches on the fourth axis, by that coordinate
    // (NdGrid::slab); in a narrower cell a slab would hold most of it.
    grid.charge.add(static_cast<int64_t>(grid.ncells()), "the grid");
    grid.by_fourth.assign(grid.ncells(), 0);
    const size_t grain = std::max<size_t>(1, grid.ncells() / (team.size() * 16u));
    auto fourth = [&](uint32_t i) { return pts.coords[static_cast<size_t>(i) * d + 3]; };
    team.for_dynamic(grid.ncells(), grain, [&](size_t c0, size_t c1) {
      for (size_t c = c0; c < c1; ++c) {
        uint32_t* b = grid.perm.data() + grid.start[c];
        uint32_t* e = grid.perm.data() + grid.start[c + 1];
        if (e - b < static_cast<std::ptrdiff_t>(kSlabPoints)) continue;
        const auto [lo, hi] = std::minmax_element(
            b, e, [&](uint32_t i, uint32_t j) { return fourth(i) < fourth(j); });
        if (!(fourth(*hi) - fourth(*lo) > kSlabReaches * reach)) continue;
        std::sort(b, e, [&](uint32_t i, uint32_t j) {
          return fourth(i) < fourth(j) || (fourth(i) == fourth(j) && i < j);
        });
        grid.by_fourth[c] = 1;
      }
    });
  }
  grid.coords.resize(static_cast<size_t>(pts.n) * d);
  team.for_static(pts.n, [&](int, size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i)
      std::copy_n(pts.coords + static_cast<size_t>(grid.perm[i]) * d, d,
                  grid.coords.data() + i * d);
  });
  return grid;
}

NdGrid::Reach NdGrid::slab_reach(const double* p, double eps) const {
  if (by_fourth.empty()) return Reach{};  // no slabs (fewer than four coordinates)
  // |fl(q - v)| <= eps puts q within eps (1 + 2^-53) of v; fl(v -+ r) with
  // r = eps + 4 ulps of |v| + eps lies beyond that by at least 3 ulps.
  const double v = p[3];
  const double m = std::fabs(v) + eps;
  const double r = eps + std::ldexp(1.0, std::max(std::ilogb(m), -1022) - 50);
  return Reach{v - r, v + r};
}

PointRange NdGrid::slab_of_sorted(uint32_t c, const Reach& reach) const {
  const uint32_t b = start[c], e = start[c + 1];
  const double lo = reach.lo, hi = reach.hi;
  auto fourth = [&](uint32_t i) { return coords[static_cast<size_t>(b + i) * dims + 3]; };
  const uint32_t k = e - b;
  const uint32_t first = partition_point_near(k, 0, [&](uint32_t i) { return fourth(i) < lo; });
  const uint32_t last =
      partition_point_near(k, first, [&](uint32_t i) { return !(fourth(i) > hi); });
  return PointRange{b + first, b + last};
}

int NdWindow::cells_at(uint32_t c, CellRange ranges[kMaxRanges]) {
  static constexpr int kOffset[5] = {0, -1, 1, -2, 2};
  const NdCell* cells = grid_.cells.data();
  const uint32_t ncells = grid_.ncells();
  const NdCell& k = cells[c];
  const int last = grid_.axes - 1;
  const int width = 2 * grid_.radius + 1;
  const int count = last == 2 ? width * width : width;
  for (int r = 0; r < count; ++r) {
    NdCell low = k;
    low.c[0] += kOffset[r % width];
    if (last == 2) low.c[1] += kOffset[r / width];
    NdCell high = low;
    low.c[last] = k.c[last] - grid_.radius;
    high.c[last] = k.c[last] + grid_.radius;
    uint32_t lo = partition_point_near(ncells, have_hints_ ? lo_[r] : c,
                                       [&](uint32_t i) { return cells[i] < low; });
    uint32_t hi = partition_point_near(ncells, have_hints_ ? std::max(hi_[r], lo) : lo,
                                       [&](uint32_t i) { return cells[i] <= high; });
    lo_[r] = lo;
    hi_[r] = hi;
    ranges[r] = CellRange{lo, hi};
  }
  have_hints_ = true;
  return count;
}

int NdWindow::points_at(uint32_t c, PointRange ranges[kMaxRanges]) {
  CellRange cells[kMaxRanges];
  int count = cells_at(c, cells);
  for (int r = 0; r < count; ++r)
    ranges[r] = PointRange{grid_.start[cells[r].begin], grid_.start[cells[r].end]};
  return count;
}

}  // namespace gd
