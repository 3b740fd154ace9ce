// nd_dbscan.cpp — the CPU DBSCAN over n-D points (see nd_points.hpp): grid,
// core flags, union of core points, borders, on every core with ThreadTeam.
//
// A cell is small when the corners of its points' box pass the predicate:
// then every pair of its points is a pair of neighbours (the predicate is
// monotone), its points count each other without a test, and its core points
// are one set without a test.  With at most three axes the cells are made so
// that this is the rule.  Two small cells are joined by their first pair of
// core points within eps, after box tests that decide "no pair" or "every
// pair" at once.  Other cells join their core points by searches that drop
// each point once reached (unite_within), and then, their core points one
// set, join each core point of a neighbouring cell through its first core
// point within eps (unite_into_set); only a cell left in several sets goes
// pair by pair, skipping pairs already in one set.
#include <algorithm>

#include "cpu_phases.hpp"
#include "stopwatch.hpp"
#include "nd_points.hpp"
#include "rules/small_cells.hpp"
#include "union_find.hpp"

namespace gd {

namespace {

constexpr uint8_t kCore = 1;
// Core, and not at a sweep's previous value: unite() looks at pairs with
// such a point only.  A clustering from scratch marks every core point so.
constexpr uint8_t kFresh = 2;
constexpr uint8_t kNewCore = kCore | kFresh;
constexpr uint32_t kNone = UINT32_MAX;
// Cells of fewer points are tested point by point, with no box test first.
constexpr uint32_t kBoxTestPoints = 4;

template <int D>
class NdStages {
 public:
  NdStages(const NdGrid& grid, double eps, ThreadTeam& team)
      : g_(grid), eps_(eps), team_(team), ncells_(grid.ncells()) {
    grain_ = std::max<size_t>(1, std::min<size_t>(256, ncells_ / (team.size() * 32u)));
  }

  // flags_[i] for every sorted point: kNewCore or 0; small_ and boxes_ per cell.
  // A neighbouring cell of a few points or more is skipped when its box's
  // point nearest p is beyond eps and counted whole when its farthest corner
  // is within (rules/neighbour.hpp), as on the device.  counts (may be null)
  // takes each sorted point's neighbours counted up to the need, for a
  // sweep's smaller values (core_at).
  void mark_core(int64_t minpoints, uint32_t* counts = nullptr) {
    const int64_t need = core_need(minpoints);
    small_.assign(ncells_, 0);
    boxes_.resize(ncells_ * 2 * D);
    flags_.assign(g_.perm.size(), 0);
    for_each_cell([&](uint32_t c, NdWindow&, WorkPoller&) {  // the counts read these
      double* lo = &boxes_[static_cast<size_t>(c) * 2 * D];
      box(g_.start[c], g_.start[c + 1], lo, lo + D);
      small_[c] = within_eps_d<D>(lo, lo + D, eps_);
    });
    for_each_cell([&](uint32_t c, NdWindow& window, WorkPoller& poller) {
      const uint32_t b = g_.start[c], e = g_.start[c + 1];
      const bool small = small_[c];
      if ((small && static_cast<int64_t>(e - b) >= need) || need <= 1) {
        std::fill(&flags_[b], &flags_[b] + (e - b), kNewCore);
        if (counts != nullptr) std::fill(counts + b, counts + e, static_cast<uint32_t>(need));
        return;
      }
      CellRange rows[NdWindow::kMaxRanges];
      const int nrows = window.cells_at(c, rows);
      const int64_t own = small ? e - b : 0;  // counted without a test
      for (uint32_t p = b; p < e; ++p) {
        const double* pp = g_.point(p);
        const NdGrid::Reach reach = g_.slab_reach(pp, eps_);
        CoreCount found(minpoints, own);  // rules/dbscan_rules.hpp: stops at need
        size_t visited = 0;
        for (int r = 0; r < nrows && !found.core(); ++r) {
          for (uint32_t n = rows[r].begin; n < rows[r].end && !found.core(); ++n) {
            if (small && n == c) continue;
            const uint32_t qb = g_.start[n], qe = g_.start[n + 1];
            if (qe - qb >= kBoxTestPoints) {
              const double* lo = &boxes_[static_cast<size_t>(n) * 2 * D];
              if (!box_near_d<D>(pp, lo, lo + D, eps_)) continue;
              if (box_all_d<D>(pp, lo, lo + D, eps_)) {
                found.add(qe - qb);
                continue;
              }
            }
            const PointRange sl = g_.slab(n, reach);
            for (uint32_t q = sl.begin; q < sl.end; ++q)
              if (within_eps_d<D>(pp, g_.point(q), eps_) && found.add()) break;
            visited += sl.end - sl.begin;
          }
        }
        poller.add(visited);
        if (found.core()) flags_[p] = kNewCore;
        if (counts != nullptr) counts[p] = static_cast<uint32_t>(found.core() ? need : found.found);
      }
    });
  }

  // Rule 1 at a smaller minpoints from the counts of mark_core.  With
  // from_previous (a sweep going down: the core points only grow), only the
  // points core now but not at the previous value are kNewCore.
  void core_at(int64_t minpoints, const uint32_t* counts, bool from_previous) {
    const int64_t need = core_need(minpoints);
    team_.for_static(flags_.size(), [&](int, size_t begin, size_t end) {
      for (size_t i = begin; i < end; ++i) {
        const bool was = from_previous && (flags_[i] & kCore);
        flags_[i] = static_cast<int64_t>(counts[i]) < need ? 0 : was ? kCore : kNewCore;
      }
    });
  }

  // Joins every pair of core points within eps that is not joined yet: the
  // pairs with a kFresh point (every pair of core points in a clustering
  // from scratch; in a sweep's later value uf holds the previous value's
  // sets, where the pairs of points core then are joined already and the
  // others are sets of their own).  Each pair of cells with such a point is
  // met once, from the smaller of its cells that holds one; the cells without
  // one are not visited at all (not even their window).
  void unite(AtomicUnionFind& uf) {
    // unite_within's lists, one a member, together at most a word a point
    // (each holds the largest cell its member met); the team's other members
    // are threads of this call, the caller's list is freed on the way out.
    const MemoryCharge lists(static_cast<int64_t>(g_.perm.size()) * 4, "the union's searches");
    struct Release {
      ~Release() { std::vector<uint32_t>().swap(open_scratch()); }
    } release;
    first_core_.assign(ncells_, kNone);
    fresh_.assign(ncells_, 0);
    if (!claimer_.empty()) near_fresh_.assign(ncells_, 0);
    for_each_cell([&](uint32_t c, NdWindow&, WorkPoller&) {
      uint32_t p = g_.start[c];
      while (p < g_.start[c + 1] && !(flags_[p] & kCore)) ++p;
      if (p < g_.start[c + 1]) first_core_[c] = p;
      for (uint32_t q = p; q < g_.start[c + 1]; ++q)
        if (flags_[q] & kFresh) {
          fresh_[c] = 1;
          break;
        }
    });
    for_each_cell([&](uint32_t c, NdWindow& window, WorkPoller& poller) {
      const uint32_t b = g_.start[c], e = g_.start[c + 1];
      const uint32_t first = first_core_[c];
      if (!fresh_[c]) return;  // no core point, or met from its fresh neighbours
      bool one_set = true;       // c's core points are one set now
      if (small_[c]) {
        for (uint32_t p = first + 1; p < e; ++p)  // pairwise neighbours: one set
          if (flags_[p] & kCore) uf.unite(first, p);
      } else {
        one_set = unite_within(c, uf, poller) <= 1;
      }
      CellRange rows[NdWindow::kMaxRanges];
      const int nrows = window.cells_at(c, rows);
      if (!near_fresh_.empty())  // the window is symmetric: c is in each n's
        for (int r = 0; r < nrows; ++r)
          for (uint32_t n = rows[r].begin; n < rows[r].end; ++n)
            __atomic_store_n(&near_fresh_[n], uint8_t{1}, __ATOMIC_RELAXED);
      for (int r = 0; r < nrows; ++r) {
        for (uint32_t n = rows[r].begin; n < rows[r].end; ++n) {
          // a pair of cells from the smaller of its fresh ones
          if (n == c || (n < c && fresh_[n]) || first_core_[n] == kNone) continue;
          if (small_[c] && small_[n])
            unite_sets(c, n, uf, poller);
          else if (one_set)
            unite_into_set(c, n, uf, poller);
          else
            unite_across(b, e, n, uf, poller);
        }
      }
    });
  }

  // A sweep keeps each non-core point's first claimer from one value to the
  // next (borders' `again`); 4 bytes a point, charged here.
  void keep_claimers() {
    claimer_charge_ = MemoryCharge(static_cast<int64_t>(g_.perm.size()) * 4, "the sweep's claimers");
    claimer_.assign(g_.perm.size(), kNoise);
  }

  // rep[point index]: the root of a core point's set; for a border point the
  // root of its core neighbour with the smallest point index; else kNoise.
  // again (a sweep's later value, after unite() from the previous value's
  // sets; keep_claimers): a point not core now was not core then, and its
  // core neighbours now are those of then and the new core points within
  // reach, so its claimer is the smaller of the kept one and the first new
  // core point in reach: only the cells holding new core points are read,
  // and none in a cell whose window holds none.
  void borders(const AtomicUnionFind& uf, uint32_t* rep, uint8_t* core, bool again = false) {
    const uint32_t* perm = g_.perm.data();
    auto find = [&uf](uint32_t i) { return uf.find(i); };
    const bool keep = !claimer_.empty();
    again = again && keep;
    const uint8_t offer = again ? kFresh : kCore;  // the points that may claim
    for_each_cell([&](uint32_t c, NdWindow& window, WorkPoller& poller) {
      CellRange rows[NdWindow::kMaxRanges];
      int nrows = -1;
      const bool same = again && !near_fresh_[c];
      for (uint32_t p = g_.start[c]; p < g_.start[c + 1]; ++p) {
        if (core != nullptr) core[perm[p]] = flags_[p] & kCore;
        if (flags_[p] & kCore) {
          rep[perm[p]] = representative(true, p, kNoise, find);
          continue;
        }
        uint32_t best = again ? claimer_[p] : kNoise;
        if (!same) {
          if (nrows < 0) nrows = window.cells_at(c, rows);
          const double* pp = g_.point(p);
          const NdGrid::Reach reach = g_.slab_reach(pp, eps_);
          uint32_t best_index = best == kNoise ? kNoise : perm[best];
          size_t work = 0;
          for (int r = 0; r < nrows; ++r) {
            for (uint32_t n = rows[r].begin; n < rows[r].end; ++n) {
              if (first_core_[n] == kNone || (again && !fresh_[n])) continue;
              const PointRange sl = g_.slab(n, reach);
              for (uint32_t q = sl.begin; q < sl.end; ++q) {
                if ((flags_[q] & offer) && perm[q] < best_index &&
                    within_eps_d<D>(pp, g_.point(q), eps_)) {
                  best_index = perm[q];
                  best = q;
                }
              }
              work += sl.end - sl.begin + 1;
            }
          }
          poller.add(work);
          if (keep) claimer_[p] = best;
        }
        rep[perm[p]] = representative(false, p, best, find);
      }
    });
  }

 private:
  // fn(c, window, poller) for every cell c, cells handed out to the team a
  // few at a time; each member has its own window (it keeps search hints).
  template <class Fn>
  void for_each_cell(Fn&& fn) {
    team_.for_dynamic(ncells_, grain_, [&](size_t c0, size_t c1) {
      NdWindow window(g_);
      WorkPoller poller(team_.cancel());
      for (size_t c = c0; c < c1; ++c) fn(static_cast<uint32_t>(c), window, poller);
    });
  }

  void box(uint32_t b, uint32_t e, double* lo, double* hi) const {
    std::copy_n(g_.point(b), D, lo);
    std::copy_n(g_.point(b), D, hi);
    for (uint32_t i = b + 1; i < e; ++i) {
      const double* p = g_.point(i);
      for (int k = 0; k < D; ++k) {
        lo[k] = std::min(lo[k], p[k]);
        hi[k] = std::max(hi[k], p[k]);
      }
    }
  }

  // A pair of core points that may still need joining: not both core at
  // the previous value.
  bool open_pair(uint32_t p, uint32_t q) const {
    return (flags_[q] & kCore) && ((flags_[p] | flags_[q]) & kFresh);
  }

  // The core points of a cell that is not small joined along their pairs
  // within eps, a search from each point not reached yet over the points not
  // reached yet (each test either reaches a point or leaves it for later),
  // so that a crowded cell costs about its points times the few searches
  // that reach the rest, not their square (a cell of points spread over
  // axes the grid does not cut: 1M 6-D points, 20,000 in each unit cube,
  // took 3.9 s at eps 1 pair by pair on 16 threads).  Returns the number of searches
  // started: the cell's sets of core points.
  uint32_t unite_within(uint32_t c, AtomicUnionFind& uf, WorkPoller& poller) {
    std::vector<uint32_t>& open = open_scratch();
    open.clear();
    for (uint32_t p = g_.start[c]; p < g_.start[c + 1]; ++p)
      if (flags_[p] & kCore) open.push_back(p);
    uint32_t sets = 0;
    size_t reached = 0;  // open[0, reached): reached, in search order
    while (reached < open.size()) {
      ++sets;
      ++reached;  // the next point not reached starts a search
      for (size_t f = reached - 1; f < reached; ++f) {
        const uint32_t p = open[f];
        const double* pp = g_.point(p);
        for (size_t j = reached; j < open.size(); ++j) {
          if (!within_eps_d<D>(pp, g_.point(open[j]), eps_)) continue;
          uf.unite(p, open[j]);
          std::swap(open[j], open[reached++]);
        }
        poller.add(open.size() - reached + 1);
      }
    }
    return sets;
  }

  // Cell n's core points joined with cell c's, whose core points are one
  // set: each one not in that set yet joins it through its first core point
  // of c within eps (the other pairs with c add nothing), the box of c first.
  void unite_into_set(uint32_t c, uint32_t n, AtomicUnionFind& uf, WorkPoller& poller) {
    const uint32_t first = first_core_[c];
    const double* lo = &boxes_[static_cast<size_t>(c) * 2 * D];
    for (uint32_t q = g_.start[n]; q < g_.start[n + 1]; ++q) {
      if (!(flags_[q] & kCore) || uf.find(q) == uf.find(first)) continue;
      const double* pq = g_.point(q);
      if (!box_near_d<D>(pq, lo, lo + D, eps_)) continue;
      const PointRange sl = g_.slab(c, pq, eps_);
      uint32_t p = sl.begin;
      for (; p < sl.end; ++p)
        if ((flags_[p] & kCore) && within_eps_d<D>(pq, g_.point(p), eps_)) break;
      if (p < sl.end) uf.unite(first, q);
      poller.add(p - sl.begin + 1);
    }
  }

  // Core pairs between points [b, e) and cell n, skipping pairs already in
  // one set (and, where n holds no kFresh point, the points of [b, e) that
  // are not kFresh: none of their pairs with n is open).
  void unite_across(uint32_t b, uint32_t e, uint32_t n, AtomicUnionFind& uf,
                    WorkPoller& poller) {
    const uint8_t needed = fresh_[n] ? kCore : kFresh;
    for (uint32_t p = b; p < e; ++p) {
      if (!(flags_[p] & needed)) continue;
      const double* pp = g_.point(p);
      const PointRange sl = g_.slab(n, pp, eps_);
      for (uint32_t q = sl.begin; q < sl.end; ++q) {
        if (open_pair(p, q) && uf.find(p) != uf.find(q) &&
            within_eps_d<D>(pp, g_.point(q), eps_))
          uf.unite(p, q);
      }
      poller.add(sl.end - sl.begin + 1);
    }
  }

  // Two small cells, whose core points are one set each: one pair of core
  // points within eps joins them.
  void unite_sets(uint32_t a, uint32_t n, AtomicUnionFind& uf, WorkPoller& poller) {
    const uint32_t fa = first_core_[a], fn = first_core_[n];
    if (uf.find(fa) == uf.find(fn)) return;
    const double* alo = &boxes_[static_cast<size_t>(a) * 2 * D];
    const double* nlo = &boxes_[static_cast<size_t>(n) * 2 * D];
    uint64_t tests = 0;
    if (small_cells_joined<D>(
            alo, alo + D, nlo, nlo + D, fa, g_.start[a + 1], fn, g_.start[n + 1], eps_,
            [this](uint32_t i) { return (flags_[i] & kCore) != 0; },
            [this](uint32_t i) { return g_.point(i); }, &tests))
      uf.unite(fa, fn);
    poller.add(tests);
  }

  const NdGrid& g_;
  const double eps_;
  ThreadTeam& team_;
  const size_t ncells_;
  size_t grain_;
  std::vector<uint8_t> small_;        // per cell: its points are pairwise neighbours
  std::vector<double> boxes_;         // per cell: lo[D], hi[D] of its points
  std::vector<uint32_t> first_core_;  // per cell: its first core point, or kNone
  std::vector<uint8_t> fresh_;        // per cell: a pair with one of its points may be open
  std::vector<uint8_t> flags_;        // per sorted point: kCore, kNewCore or 0
  std::vector<uint8_t> near_fresh_;   // per cell: its window holds a kFresh point (keep_claimers)
  std::vector<uint32_t> claimer_;     // per sorted point: its first claimer (keep_claimers)
  MemoryCharge claimer_charge_;

  // A thread's list for unite_within, kept from cell to cell within unite().
  static std::vector<uint32_t>& open_scratch() {
    static thread_local std::vector<uint32_t> open;
    return open;
  }
};

}  // namespace

NdGrid nd_cluster_grid(const NdPointsView& pts, double eps, ThreadTeam& team) {
  // Coarse cells, or fine ones where the coarse cells hold many points.
  NdGrid grid = build_nd_grid(pts, eps, false, team);
  if (use_fine_cells(pts.dims, pts.n, grid.ncells()))
    grid = build_nd_grid(pts, eps, true, team);
  return grid;
}

uint64_t nd_window_work(const NdGrid& grid, ThreadTeam& team) {
  std::vector<uint64_t> part(team.size(), 0);
  team.for_static(grid.ncells(), [&](int t, size_t begin, size_t end) {
    NdWindow window(grid);
    PointRange rows[NdWindow::kMaxRanges];
    uint64_t work = 0;
    for (size_t c = begin; c < end; ++c) {
      const int nrows = window.points_at(static_cast<uint32_t>(c), rows);
      uint64_t seen = 0;
      for (int r = 0; r < nrows; ++r) seen += rows[r].end - rows[r].begin;
      work += seen * (grid.start[c + 1] - grid.start[c]);
    }
    part[t] = work;
  });
  uint64_t work = 0;
  for (uint64_t w : part) work += w;
  return work;
}

void nd_cluster_levels(const NdPointsView& pts, const NdGrid& grid, const gd_params& params,
                       ThreadTeam& team, const std::vector<int64_t>& levels,
                       const std::function<void(size_t, const uint32_t*)>& emit, uint32_t* rep,
                       gd_run_stats& stats, uint8_t* core) {
  Stopwatch watch;
  dispatch_dims(pts.dims, [&](auto dims) {
    NdStages<decltype(dims)::value> stages(grid, params.eps, team);
    AtomicUnionFind uf(pts.n);
    // Several values: one count up to the largest value's need serves all.
    BigVector<uint32_t> counts;
    MemoryCharge charge;
    if (levels.size() > 1) {
      charge = MemoryCharge(static_cast<int64_t>(pts.n) * 4, "the neighbour counts");
      counts.resize(pts.n);
      stages.mark_core(*std::max_element(levels.begin(), levels.end()), counts.data());
      stages.keep_claimers();
    }
    // From the largest value down: the core points only grow, so each value's
    // sets start from the previous one's (a value with need <= 1, where
    // every point is core, starts afresh like the first).
    std::vector<size_t> order(levels.size());
    for (size_t k = 0; k < order.size(); ++k) order[k] = k;
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return levels[a] > levels[b]; });
    for (size_t j = 0; j < order.size(); ++j) {
      const size_t k = order[j];
      const bool from_previous = j > 0 && core_need(levels[k]) > 1;
      if (levels.size() > 1)
        stages.core_at(levels[k], counts.data(), from_previous);
      else
        stages.mark_core(levels[k]);
      stats.t_core += watch.lap();
      if (!from_previous)
        team.for_static(pts.n, [&](int, size_t b, size_t e) {
          for (size_t i = b; i < e; ++i) uf.init(static_cast<uint32_t>(i), static_cast<uint32_t>(i));
        });
      stages.unite(uf);
      stats.t_union += watch.lap();
      stages.borders(uf, rep, core, from_previous);
      emit(k, rep);
      stats.t_label += watch.lap();
    }
  });
}

void nd_cluster(const NdPointsView& pts, const gd_params& params, const CancelToken& cancel,
                uint32_t* rep, gd_run_stats& stats, uint8_t* core) {
  stats.backend = GD_BACKEND_CPU;
  stats.points = pts.n;
  if (pts.n == 0) return;
  ThreadTeam team(resolve_threads(params, pts.n), cancel);
  Stopwatch watch;
  NdGrid grid = nd_cluster_grid(pts, params.eps, team);
  stats.cells = grid.ncells();
  stats.t_sort += watch.lap();
  nd_cluster_levels(pts, grid, params, team, {params.minpoints},
                    [](size_t, const uint32_t*) {}, rep, stats, core);
}

}  // namespace gd
