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
// rank_reps does on the device: the host back end's union-find
// (union_find.hpp), representatives (rules/dbscan_rules.hpp) and numbering
// (rules/ids.hpp).
//
// Strips are sized from the budget (kStripBytesPerPoint a loaded point); a
// strip that still runs out of memory restarts the plan with strips half as
// large.  Points so dense that 6r of x holds more than a strip can take are
// GD_ERR_DEVICE_NOMEM (the CPU path under backend = auto).
#include <algorithm>
#include <cmath>
#include <cstdio>
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

class StripRun {
 public:
  // The host loops over all points run on a team of threads (as many as the
  // points pay for, at most gd_params.threads or every core: resolve_threads):
  // the strip path is host-bound.
  StripRun(RunContext& ctx, const PointsView& pts, const gd_params& params, const Options& opts,
           gd_run_stats& stats)
      : ctx_(ctx),
        pts_(pts),
        params_(params),
        opts_(opts),
        stats_(stats),
        team_(resolve_threads(params, pts.n), ctx.cancel()) {}

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

  // Runs the planned strips; ranks into rep.
  void run(uint32_t* rep, RunInfo* info) {
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
    uint64_t loaded_total = 0;
    int64_t cells = 0;
    const auto ns = static_cast<int64_t>(strips_.size());
    for (size_t k = 0; k < strips_.size(); ++k) {
      report_step(static_cast<int64_t>(k), ns);
      stats_.cells = 0;
      run_strip(k, info);
      loaded_total += gidx_.size();
      cells += stats_.cells;
    }
    report_step(ns, ns);
    stats_.cells = cells;
    stats_.strips = static_cast<int64_t>(strips_.size());
    if (info != nullptr) {
      info->strips = static_cast<uint32_t>(strips_.size());
      info->strip_points = loaded_total;
    }
    Stopwatch sw;
    rank_clusters(rep);
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
    if ((i & 0xfffff) == 0) ctx_.check_cancel();
  }

  // The strip's points in row order, with their roles and bounds.
  Bounds gather(size_t k) {
    const Strip& s = strips_[k];
    uint32_t tlo = s.b0 > bins_.k ? s.b0 - bins_.k : 0, thi = s.b1 + bins_.k;
    size_t m = member_start_[k + 1] - member_start_[k];
    const uint32_t* ids = members_.data() + member_start_[k];
    x_.resize(m);
    y_.resize(m);
    role_.resize(m);
    gidx_.assign(ids, ids + m);
    std::vector<Bounds> part(team_.size(), empty_bounds());
    team_.for_static(m, [&](int t, size_t lb, size_t le) {
      Bounds b = empty_bounds();
      for (size_t l = lb; l < le; ++l) {
        uint32_t i = ids[l];
        uint32_t bin = bin_of_[i];
        double x = pts_.x[i], y = pts_.y[i];
        x_[l] = x;
        y_[l] = y;
        role_[l] = bin >= s.b0 && bin < s.b1   ? kStripOwned
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

  void run_strip(size_t k, RunInfo* info) {
    Stopwatch sw;
    Bounds bounds = gather(k);
    uint32_t m = static_cast<uint32_t>(gidx_.size());
    if (m == 0) return;  // bins with no point and no neighbour
    cudaStream_t st = ctx_.stream();
    auto dx = ctx_.alloc<double>(m, "strip x");
    auto dy = ctx_.alloc<double>(m, "strip y");
    auto drole = ctx_.alloc<uint8_t>(m, "strip roles");
    auto dcore = ctx_.alloc<uint8_t>(m, "strip core flags");
    CUDA_TRY(cudaMemcpyAsync(dx.data(), x_.data(), sizeof(double) * m, cudaMemcpyHostToDevice, st));
    CUDA_TRY(cudaMemcpyAsync(dy.data(), y_.data(), sizeof(double) * m, cudaMemcpyHostToDevice, st));
    CUDA_TRY(cudaMemcpyAsync(drole.data(), role_.data(), m, cudaMemcpyHostToDevice, st));
    stats_.t_transfer += sw.lap();
    StripRoles roles{drole.data(), dcore.data()};
    device_buffer<uint32_t> drep =
        cluster_on_device(ctx_, dx.data(), dy.data(), m, bounds, params_, opts_, stats_, sw, &dx,
                          &dy, nullptr, info, &roles);
    sw.lap();
    rep_.resize(m);
    core_l_.resize(m);
    CUDA_TRY(cudaMemcpyAsync(rep_.data(), drep.data(), sizeof(uint32_t) * m,
                             cudaMemcpyDeviceToHost, st));
    CUDA_TRY(cudaMemcpyAsync(core_l_.data(), dcore.data(), m, cudaMemcpyDeviceToHost, st));
    ctx_.wait();
    stats_.t_transfer += sw.lap();
    merge();
    stats_.t_union += sw.lap();
  }

  // The strip's exact answers into the run's union-find.
  void merge() {
    uint32_t m = static_cast<uint32_t>(gidx_.size());
    for (uint32_t l = 0; l < m; ++l) {
      uint32_t g = gidx_[l];
      uint32_t r = rep_[l];
      if (role_[l] != kStripHalo && core_l_[l]) {
        core_[g] = 1;
        uf_.unite(g, gidx_[r]);
      } else if (role_[l] == kStripOwned && !core_l_[l]) {
        claim_[g] = r == kNoise ? kNoise : gidx_[r];
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

  RunContext& ctx_;
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
  // One strip's points and answers, reused.
  std::vector<double> x_, y_;
  std::vector<uint32_t> gidx_, rep_;
  std::vector<uint8_t> role_, core_l_;
};

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
                       uint64_t max_points) {
  Stopwatch sw;
  StripRun run(ctx, pts, params, opts, stats);
  run.prepare();
  stats.t_sort += sw.lap();
  uint64_t cap = max_points != 0 ? max_points : ctx.budget_limit() / kStripBytesPerPoint;
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
                    ctx.budget_limit() / 1048576.0);
      throw Error(GD_ERR_DEVICE_NOMEM, msg);
    }
    try {
      run.run(rep, info);
      return;
    } catch (const Error& e) {
      if (e.status() != GD_ERR_DEVICE_NOMEM || cap <= kMinStripPoints) throw;
      cap /= 2;
    }
  }
}

}  // namespace cuda
}  // namespace gd
