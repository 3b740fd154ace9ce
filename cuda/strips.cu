// strips.cu — points that do not fit the device memory budget in one piece,
// clustered strip by strip (the out-of-core path), with the same answer.
//
// The x axis is cut into bins a quarter of the reach r wide, r = eps plus the
// rounding of PostGIS's search-box bounds and of dx, so that two points of
// which one sees the other are at most k = ceil(r / w) + 1 bins apart.  A
// strip owns the bins [b0, b1) and loads the points of [b0 - 3k, b1 + 3k), in
// row order; the device pipeline (pipeline.cuh) runs over them as over a
// whole set.  Within the strip:
//   - core flags are exact for the points of [b0 - 2k, b1 + 2k), all of whose
//     neighbours are loaded.  Elsewhere a flag can only be missing (a point
//     short of neighbours), never wrong the other way; a dense cell's points
//     are core in any subset that holds the cell;
//   - the trusted points, [b0 - k, b1 + k), have exact claimers (every core
//     within their reach has an exact flag), so a pair of trusted core points
//     is joined or not exactly as in the whole run, and the union stage tests
//     only such pairs (union_find.cu);
//   - an owned point that is not core has its exact first claimer.
// A strip hands back, for each trusted core point, the original index of its
// set's root, and for each owned border point the root of its claimer's set.
// On the host one union-find over all points joins each trusted core point
// with that root: every joined pair (a, b) of the whole run is a pair of
// trusted points of the strip that owns a (b is within k bins of a), so the
// strips' sets together make the whole run's clusters.  Borders then take
// their claimer's cluster, and clusters are ranked by their first point, as
// rank_roots does on the device: the host back end's union-find
// (union_find.hpp), representatives (rules/dbscan_rules.hpp) and numbering
// (rules/ids.hpp).
//
// Strips are sized from the budget (kStripBytesPerPoint a loaded point); a
// strip that still runs out of memory restarts the plan with strips half as
// large.  Points so dense that 6r of x holds more than a strip can take are
// GD_ERR_DEVICE_NOMEM (the CPU path under backend = auto).
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <memory>
#include <mutex>
#include <vector>

#include "parallel.hpp"
#include "pipeline.cuh"
#include "rules/ids.hpp"
#include "union_find.hpp"

namespace gd {
namespace cuda {

namespace {

// Device bytes one loaded point may cost at the run's peak: the sort stage's
// 48, the later per-point arrays, and the per-cell arrays with as many cells
// as points at worst.
constexpr uint64_t kStripBytesPerPoint = 160;
constexpr uint64_t kMinStripPoints = 1024;
constexpr uint32_t kMaxBins = 1u << 22;
constexpr uint32_t kBinsPerReach = 4;
// Strips per logical device when a partition is split over several.
constexpr uint64_t kStripsPerDevice = 2;

__global__ void gather_trusted_kernel(GridView g, const uint8_t* __restrict__ role,
                                      uint8_t* __restrict__ trusted) {
  uint64_t i = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= g.n) return;
  trusted[i] = role[g.idx[i]] != kStripHalo ? 1 : 0;
}

__global__ void scatter_core_kernel(GridView g, const uint8_t* __restrict__ core,
                                    uint8_t* __restrict__ out) {
  uint64_t i = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= g.n) return;
  out[g.idx[i]] = core[i];
}

// Bins of x, in half units as in grid.cu (no difference of two finite
// coordinates overflows).
struct Bins {
  double hxmin = 0;
  double hw = 1;       // half of a bin's width
  uint32_t count = 1;
  uint32_t k = 1;      // reach in bins

  uint32_t of(double x) const {
    double u = (0.5 * x - hxmin) / hw;
    if (!(u > 0)) return 0;
    return u >= static_cast<double>(count) ? count - 1 : static_cast<uint32_t>(u);
  }
};

// The error bound behind k: (0.5x - hxmin) / hw is off by far less than a bin
// (count <= 2^22, relative rounding 2^-52), so points within r of each other
// are at most ceil(r / w) + 1 bins apart.
Bins plan_bins(double xmin, double xmax, double eps) {
  double m = std::max(std::fabs(xmin), std::fabs(xmax)) + eps;
  // fl(px + eps) is at most half an ulp past px + eps, and fl(qx - px) <= eps
  // leaves qx - px at most an ulp past eps: 4 ulps of m cover both.
  double ulp = std::ldexp(1.0, std::max(std::ilogb(m), -1022) - 52);
  double hr = std::max(0.5 * eps + 2 * ulp, std::ldexp(1.0, -1000));
  if (!std::isfinite(hr)) throw Error(GD_ERR_DEVICE_NOMEM, "an infinite eps cannot be split");
  Bins b;
  b.hxmin = 0.5 * xmin;
  double hext = 0.5 * xmax - b.hxmin;
  double want = hext / (hr / kBinsPerReach);
  b.count = want >= kMaxBins ? kMaxBins : std::max<uint32_t>(static_cast<uint32_t>(want), 1);
  b.hw = hext > 0 ? hext / b.count : 1.0;
  b.k = static_cast<uint32_t>(std::min(std::ceil(hr / b.hw), 1e9)) + 1;
  return b;
}

// What one logical device needs to run strips: its context, a team of host
// threads for its gathers, its phase times, and one strip's host buffers
// (reused strip after strip).
struct StripWorker {
  StripWorker(RunContext& c, int threads) : ctx(c), team(threads, c.cancel()) {}

  RunContext& ctx;
  ThreadTeam team;
  gd_run_stats stats{};
  int64_t cells = 0;
  RunInfo info;
  double busy = 0;  // seconds of copies and device pipeline, over its strips
  std::vector<double> x, y;
  std::vector<uint32_t> gidx, rep;
  std::vector<uint8_t> role, core_l;
};

class StripRun {
 public:
  // The host loops over all points run on a team of threads (as many as the
  // points pay for, at most gd_params.threads or every core: resolve_threads):
  // the strip path is host-bound.
  StripRun(const CancelToken& cancel, const PointsView& pts, const gd_params& params,
           const Options& opts, gd_run_stats& stats)
      : cancel_(cancel),
        pts_(pts),
        params_(params),
        opts_(opts),
        stats_(stats),
        team_(resolve_threads(params, pts.n), cancel) {}

  // Bounds (finite coordinates only), bins and each point's bin.
  void prepare() {
    int nt = team_.size();
    std::vector<double> lo(nt, INFINITY), hi(nt, -INFINITY);
    std::vector<char> finite(nt, 1);
    // (Each member keeps its own sums in locals and writes them once: the
    // shared vectors' neighbouring slots would otherwise share cache lines.)
    team_.for_static(pts_.n, [&](int t, size_t b, size_t e) {
      double l = INFINITY, h = -INFINITY;
      bool ok = true;
      for (size_t i = b; i < e; ++i) {
        double x = pts_.x[i], y = pts_.y[i];
        ok &= std::isfinite(x) && std::isfinite(y);
        l = std::min(l, x);
        h = std::max(h, x);
      }
      lo[t] = l;
      hi[t] = h;
      finite[t] = ok;
    });
    if (std::find(finite.begin(), finite.end(), 0) != finite.end())
      throw Error(GD_ERR_INVALID, "point coordinates must be finite");
    bins_ = plan_bins(*std::min_element(lo.begin(), lo.end()),
                      *std::max_element(hi.begin(), hi.end()), params_.eps);
    bin_of_.resize(pts_.n);
    team_.for_static(pts_.n, [&](int, size_t b, size_t e) {
      for (size_t i = b; i < e; ++i) bin_of_[i] = bins_.of(pts_.x[i]);
    });
    prefix_.assign(static_cast<size_t>(bins_.count) + 1, 0);
    for (uint32_t i = 0; i < pts_.n; ++i) {
      ++prefix_[bin_of_[i] + 1];
      poll(i);
    }
    for (uint32_t b = 0; b < bins_.count; ++b) prefix_[b + 1] += prefix_[b];
  }

  // Strips of at most cap loaded points; false when one bin and its halo
  // alone hold more (*densest: that count).
  bool plan(uint64_t cap, uint64_t* densest) {
    strips_.clear();
    uint32_t b0 = 0;
    while (b0 < bins_.count) {
      uint64_t one = loaded(b0, b0 + 1);
      if (one > cap) {
        *densest = one;
        return false;
      }
      uint32_t lo = b0 + 1, hi = bins_.count;  // largest b1 in [lo, hi] that fits
      while (lo < hi) {
        uint32_t mid = lo + (hi - lo + 1) / 2;
        if (loaded(b0, mid) <= cap)
          lo = mid;
        else
          hi = mid - 1;
      }
      strips_.push_back({b0, lo});
      b0 = lo;
    }
    return true;
  }

  // Runs the planned strips on the given logical devices; ranks into rep.
  // One device: strip after strip on the calling thread.  Several: one host
  // thread per device (member 0 the calling thread, which alone reports
  // progress), each taking the next strip until none is left; the merges
  // into the run's one union-find take turns (its result does not depend on
  // their order: roots are the smallest index of a set, each border point is
  // claimed by its owning strip alone, and core flags are exact wherever a
  // strip hands one back).
  void run(const std::vector<RunContext*>& ctxs, uint32_t* rep, RunInfo* info, uint8_t* core) {
    uint32_t n = pts_.n;
    {
      Stopwatch sw;
      assign_members();
      stats_.t_sort += sw.lap();
    }
    parent_.reset(new std::atomic<uint32_t>[n]);
    uf_ = UnionFindRef(parent_.get(), n);
    for (uint32_t i = 0; i < n; ++i) uf_.init(i, i);
    core_.assign(n, 0);
    claim_.assign(n, kNoise);
    const size_t nd = ctxs.size();
    const auto ns = static_cast<int64_t>(strips_.size());
    const int per = nd == 1 ? team_.size() : std::max(1, team_.size() / static_cast<int>(nd));
    std::vector<std::unique_ptr<StripWorker>> workers;
    for (RunContext* c : ctxs) workers.push_back(std::make_unique<StripWorker>(*c, per));
    Stopwatch wall;
    if (nd == 1) {
      for (size_t k = 0; k < strips_.size(); ++k) {
        report_step(static_cast<int64_t>(k), ns);
        run_strip(k, *workers[0], false);
      }
    } else {
      std::atomic<size_t> next{0};
      std::atomic<int64_t> done{0};
      std::atomic<bool> stop{false};
      ThreadTeam devices(static_cast<int>(nd), cancel_);
      devices.run([&](int d) {
        StripWorker& w = *workers[d];
        try {
          CUDA_TRY(cudaSetDevice(w.ctx.device()));
          for (;;) {
            if (stop.load(std::memory_order_relaxed)) return;
            size_t k = next.fetch_add(1);
            if (k >= strips_.size()) return;
            if (d == 0) report_step(done.load(), ns);
            run_strip(k, w, true);
            done.fetch_add(1);
          }
        } catch (...) {
          stop.store(true);
          throw;
        }
      });
    }
    report_step(ns, ns);
    double strip_wall = wall.lap();
    uint64_t loaded_total = 0;
    int64_t cells = 0;
    double busy_max = 0, busy_sum = 0;
    for (const auto& w : workers) {
      stats_.t_transfer += w->stats.t_transfer;
      stats_.t_sort += w->stats.t_sort;
      stats_.t_core += w->stats.t_core;
      stats_.t_union += w->stats.t_union;
      stats_.t_label += w->stats.t_label;
      stats_.batches += w->stats.batches;
      cells += w->cells;
      loaded_total += w->info.strip_points;
      busy_max = std::max(busy_max, w->busy);
      busy_sum += w->busy;
      if (info != nullptr) {
        info->budget_bytes = std::max(info->budget_bytes, w->info.budget_bytes);
        info->peak_device_bytes = std::max(info->peak_device_bytes, w->info.peak_device_bytes);
        info->work_estimate = std::max(info->work_estimate, w->info.work_estimate);
      }
    }
    stats_.cells = cells;
    stats_.strips = ns;
    if (info != nullptr) {
      info->strips = static_cast<uint32_t>(ns);
      info->strip_points = loaded_total;
      info->devices = static_cast<uint32_t>(nd);
      info->strip_wall_s = strip_wall;
      info->device_busy_max_s = busy_max;
      info->device_busy_sum_s = busy_sum;
    }
    Stopwatch sw;
    rank_clusters(rep);
    // Every point is owned by one strip, and owned points are trusted: core_
    // is exact for every point.
    if (core != nullptr) std::copy(core_.begin(), core_.end(), core);
    stats_.t_label += sw.lap();
  }

 private:
  struct Strip {
    uint32_t b0, b1;
  };

  // The bins a strip owning [b0, b1) loads: [lo, hi).
  uint32_t load_lo(uint32_t b0) const {
    uint32_t h = 3 * bins_.k;
    return b0 > h ? b0 - h : 0;
  }
  uint32_t load_hi(uint32_t b1) const {
    return static_cast<uint32_t>(std::min<uint64_t>(uint64_t{b1} + 3 * bins_.k, bins_.count));
  }
  uint64_t loaded(uint32_t b0, uint32_t b1) const {
    return prefix_[load_hi(b1)] - prefix_[load_lo(b0)];
  }

  // Each strip's points, in row order, in one pass over the points: a
  // point's bin is loaded by a run of consecutive strips (the loaded ranges
  // grow with the strip), found per bin once.
  void assign_members() {
    size_t ns = strips_.size();
    std::vector<uint32_t> first(bins_.count), last(bins_.count);
    size_t lo = 0, hi = 0;  // strips [lo, hi) load bin b
    for (uint32_t b = 0; b < bins_.count; ++b) {
      while (lo < ns && load_hi(strips_[lo].b1) <= b) ++lo;
      while (hi < ns && load_lo(strips_[hi].b0) <= b) ++hi;
      first[b] = static_cast<uint32_t>(lo);
      last[b] = static_cast<uint32_t>(hi);
    }
    // Each member counts its block's points per strip; the counts, taken
    // block by block, give each member where it writes in each strip, so
    // every strip's points stay in row order.
    int nt = team_.size();
    std::vector<uint64_t> at(static_cast<size_t>(nt) * ns, 0);  // [t * ns + k]
    team_.for_static(pts_.n, [&](int t, size_t b, size_t e) {
      std::vector<uint64_t> mine(ns, 0);
      for (size_t i = b; i < e; ++i) {
        uint32_t bin = bin_of_[i];
        for (uint32_t k = first[bin]; k < last[bin]; ++k) ++mine[k];
      }
      std::copy(mine.begin(), mine.end(), at.begin() + static_cast<size_t>(t) * ns);
    });
    member_start_.assign(ns + 1, 0);
    uint64_t total = 0;
    for (size_t k = 0; k < ns; ++k) {
      member_start_[k] = total;
      for (int t = 0; t < nt; ++t) {
        uint64_t c = at[static_cast<size_t>(t) * ns + k];
        at[static_cast<size_t>(t) * ns + k] = total;
        total += c;
      }
    }
    member_start_[ns] = total;
    members_.resize(total);
    team_.for_static(pts_.n, [&](int t, size_t b, size_t e) {
      std::vector<uint64_t> fill(at.begin() + static_cast<size_t>(t) * ns,
                                 at.begin() + static_cast<size_t>(t + 1) * ns);
      for (size_t i = b; i < e; ++i) {
        uint32_t bin = bin_of_[i];
        for (uint32_t k = first[bin]; k < last[bin]; ++k)
          members_[fill[k]++] = static_cast<uint32_t>(i);
      }
    });
  }

  void report_step(int64_t done, int64_t total) const {
    if (params_.report_step != nullptr) params_.report_step(params_.report_arg, done, total);
  }

  void poll(uint64_t i) {
    if ((i & 0xfffff) == 0) cancel_.throw_if_requested();
  }

  // The strip's points in row order, with their roles and bounds.
  Bounds gather(size_t k, StripWorker& w) {
    const Strip& s = strips_[k];
    uint32_t tlo = s.b0 > bins_.k ? s.b0 - bins_.k : 0, thi = s.b1 + bins_.k;
    size_t m = member_start_[k + 1] - member_start_[k];
    const uint32_t* ids = members_.data() + member_start_[k];
    w.x.resize(m);
    w.y.resize(m);
    w.role.resize(m);
    w.gidx.assign(ids, ids + m);
    std::vector<Bounds> part(w.team.size(), empty_bounds());
    w.team.for_static(m, [&](int t, size_t lb, size_t le) {
      Bounds b = empty_bounds();
      for (size_t l = lb; l < le; ++l) {
        uint32_t i = ids[l];
        uint32_t bin = bin_of_[i];
        double x = pts_.x[i], y = pts_.y[i];
        w.x[l] = x;
        w.y[l] = y;
        w.role[l] = bin >= s.b0 && bin < s.b1   ? kStripOwned
                    : bin >= tlo && bin < thi ? kStripTrusted
                                              : kStripHalo;
        extend(b, x, y);
      }
      part[t] = b;
    });
    Bounds b = empty_bounds();
    for (const Bounds& q : part) b = gd::merge(b, q);
    return b;
  }

  // One strip on w's device; shared: other workers merge at the same time.
  void run_strip(size_t k, StripWorker& w, bool shared) {
    Stopwatch sw;
    Bounds bounds = gather(k, w);
    uint32_t m = static_cast<uint32_t>(w.gidx.size());
    w.info.strip_points += m;
    if (m == 0) return;  // bins with no point and no neighbour
    RunContext& ctx = w.ctx;
    cudaStream_t st = ctx.stream();
    w.stats.t_transfer += sw.lap();
    Stopwatch busy;
    auto dx = ctx.alloc<double>(m, "strip x");
    auto dy = ctx.alloc<double>(m, "strip y");
    auto drole = ctx.alloc<uint8_t>(m, "strip roles");
    auto dcore = ctx.alloc<uint8_t>(m, "strip core flags");
    CUDA_TRY(cudaMemcpyAsync(dx.data(), w.x.data(), sizeof(double) * m, cudaMemcpyHostToDevice, st));
    CUDA_TRY(cudaMemcpyAsync(dy.data(), w.y.data(), sizeof(double) * m, cudaMemcpyHostToDevice, st));
    CUDA_TRY(cudaMemcpyAsync(drole.data(), w.role.data(), m, cudaMemcpyHostToDevice, st));
    w.stats.t_transfer += sw.lap();
    StripRoles roles{drole.data(), dcore.data()};
    w.stats.cells = 0;
    device_buffer<uint32_t> drep =
        cluster_on_device(ctx, dx.data(), dy.data(), m, bounds, params_, opts_, w.stats, sw, &dx,
                          &dy, nullptr, &w.info, &roles);
    w.cells += w.stats.cells;
    sw.lap();
    w.rep.resize(m);
    w.core_l.resize(m);
    CUDA_TRY(cudaMemcpyAsync(w.rep.data(), drep.data(), sizeof(uint32_t) * m,
                             cudaMemcpyDeviceToHost, st));
    CUDA_TRY(cudaMemcpyAsync(w.core_l.data(), dcore.data(), m, cudaMemcpyDeviceToHost, st));
    ctx.wait();
    w.busy += busy.lap();
    w.stats.t_transfer += sw.lap();
    {
      std::unique_lock<std::mutex> lock(merge_mutex_, std::defer_lock);
      if (shared) lock.lock();
      merge(w);
    }
    w.stats.t_union += sw.lap();
  }

  // The strip's exact answers into the run's union-find.
  void merge(const StripWorker& w) {
    uint32_t m = static_cast<uint32_t>(w.gidx.size());
    const std::vector<uint32_t>& gidx = w.gidx;
    for (uint32_t l = 0; l < m; ++l) {
      uint32_t g = gidx[l];
      uint32_t r = w.rep[l];
      if (w.role[l] != kStripHalo && w.core_l[l]) {
        core_[g] = 1;
        uf_.unite(g, gidx[r]);
      } else if (w.role[l] == kStripOwned && !w.core_l[l]) {
        claim_[g] = r == kNoise ? kNoise : gidx[r];
      }
      poll(l);
    }
  }

  // Ranks 0..k-1 in the order of each cluster's first point; bin_of_ is
  // reused for the rank of each root.
  void rank_clusters(uint32_t* rep) {
    std::vector<uint32_t>& rank = bin_of_;
    std::fill(rank.begin(), rank.end(), kNoise);
    FirstRowIds ids;
    auto find = [this](uint32_t i) { return uf_.find(i); };
    for (uint32_t g = 0; g < pts_.n; ++g) {
      uint32_t root = representative(core_[g] != 0, g, claim_[g], find);
      rep[g] = root == kNoise ? kNoise : ids.id(rank[root]);
      poll(g);
    }
  }

  const CancelToken& cancel_;
  const PointsView& pts_;
  const gd_params& params_;
  const Options& opts_;
  gd_run_stats& stats_;
  ThreadTeam team_;
  Bins bins_;
  std::vector<uint32_t> bin_of_;
  std::vector<uint64_t> prefix_;
  std::vector<Strip> strips_;
  // Each strip's points (indexes, row order): members_[member_start_[k] ..
  // member_start_[k + 1]).
  std::vector<uint64_t> member_start_;
  std::vector<uint32_t> members_;
  // The run's union-find, core flags and border claims, over all points.
  std::unique_ptr<std::atomic<uint32_t>[]> parent_;
  UnionFindRef uf_{nullptr, 0};
  std::vector<uint8_t> core_;
  std::vector<uint32_t> claim_;
  std::mutex merge_mutex_;
};

// Plans the strips (cap loaded points each, halved after a strip runs out of
// device memory) and runs them on ctxs.
void run_strips(const std::vector<RunContext*>& ctxs, const PointsView& pts,
                const gd_params& params, uint32_t* rep, gd_run_stats& stats, const Options& opts,
                RunInfo* info, uint64_t cap, uint8_t* core) {
  Stopwatch sw;
  StripRun run(ctxs.front()->cancel(), pts, params, opts, stats);
  run.prepare();
  stats.t_sort += sw.lap();
  size_t budget = ctxs.front()->budget_limit();
  for (RunContext* c : ctxs) budget = std::min(budget, c->budget_limit());
  cap = std::min<uint64_t>(cap, budget / kStripBytesPerPoint);
  cap = std::min<uint64_t>(cap, pts.n);
  for (;;) {
    uint64_t densest = 0;
    if (!run.plan(cap, &densest)) {
      char msg[300];
      std::snprintf(msg, sizeof msg,
                    "%llu points lie within a strip 6*eps wide: more than the %llu one strip "
                    "can hold within the GPU memory budget of %.1f MiB "
                    "(gpu_dbscan.device_memory_budget)",
                    static_cast<unsigned long long>(densest), static_cast<unsigned long long>(cap),
                    budget / 1048576.0);
      throw Error(GD_ERR_DEVICE_NOMEM, msg);
    }
    try {
      if (info != nullptr) {
        RunInfo fresh;
        *info = fresh;
        info->strip_cap = cap;
      }
      run.run(ctxs, rep, info, core);
      return;
    } catch (const Error& e) {
      if (e.status() != GD_ERR_DEVICE_NOMEM || cap <= kMinStripPoints) throw;
      cap /= 2;
    }
  }
}

}  // namespace

void gather_trusted(RunContext& ctx, const GridView& g, const uint8_t* role, uint8_t* trusted) {
  gather_trusted_kernel<<<grid_for(g.n), kBlock, 0, ctx.stream()>>>(g, role, trusted);
  GD_CHECK_LAUNCH("gather_trusted_kernel");
}

void scatter_core(RunContext& ctx, const GridView& g, const uint8_t* core, uint8_t* core_out) {
  scatter_core_kernel<<<grid_for(g.n), kBlock, 0, ctx.stream()>>>(g, core, core_out);
  GD_CHECK_LAUNCH("scatter_core_kernel");
}

void cluster_in_strips(RunContext& ctx, const PointsView& pts, const gd_params& params,
                       uint32_t* rep, gd_run_stats& stats, const Options& opts, RunInfo* info,
                       uint64_t max_points, uint8_t* core) {
  std::vector<RunContext*> one{&ctx};
  run_strips(one, pts, params, rep, stats, opts, info,
             max_points != 0 ? max_points : UINT64_MAX, core);
}

void cluster_in_strips_on(const std::vector<RunContext*>& ctxs, const PointsView& pts,
                          const gd_params& params, uint32_t* rep, gd_run_stats& stats,
                          const Options& opts, RunInfo* info, uint64_t max_points,
                          uint8_t* core) {
  // A few strips a device, so that one device's gather and merge on the host
  // overlap another's device work (and each strip's halo stays a small part).
  uint64_t per = (static_cast<uint64_t>(pts.n) + kStripsPerDevice * ctxs.size() - 1) /
                 (kStripsPerDevice * ctxs.size());
  uint64_t cap = max_points != 0 ? max_points : std::max(per, kMinStripPoints);
  run_strips(ctxs, pts, params, rep, stats, opts, info, cap, core);
}

}  // namespace cuda
}  // namespace gd
