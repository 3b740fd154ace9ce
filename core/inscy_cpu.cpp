// inscy_cpu.cpp — the CPU back end of the subspace clustering (inscy.hpp):
// neighbour counts with early exit and per-subspace union-find, on the
// project's thread team.  Each point scans its window on the dim of the
// subspace where its window is shortest (every neighbour lies in it) and
// first tests the next shortest dim alone (near_on).
#include <algorithm>
#include <atomic>

#include "inscy.hpp"
#include "inscy_pair_bound.hpp"
#include "parallel.hpp"

namespace gd {
namespace inscy {
namespace {

class CpuBackend final : public Backend {
 public:
  CpuBackend(const Prepared& pr, const gd_params& params, const CancelToken& cancel,
             size_t budget)
      : pr_(pr), params_(params), cancel_(cancel), budget_(budget), mean_w_(pr.d, 0.0),
        rank_(pr.perm.size()) {
    for (int k = 0; k < pr.d; ++k) {
      const uint32_t* perm = pr.perm.data() + size_t(k) * pr.n;
      uint32_t* rank = rank_.data() + size_t(k) * pr.n;
      uint64_t sum = 0;
      for (uint32_t i = 0; i < pr.n; ++i) {
        rank[perm[i]] = i;
        sum += pr.window(k, i);
      }
      mean_w_[k] = pr.n ? double(sum) / pr.n : 0.0;
    }
  }

  gd_backend kind() const override { return GD_BACKEND_CPU; }
  size_t batch_bytes() const override { return std::min<size_t>(budget_ / 4, size_t(256) << 20); }

  void count(const Batch& b, int64_t mu, int64_t need, std::vector<uint8_t>& flags) override {
    const size_t total = b.pts.size();
    flags.assign(total, 0);
    const int s = b.s;
    if (b.s >= 2) {  // pair bounds, when they pay (inscy_pair_bound.hpp)
      const size_t est = scan_estimate(b), nsub = b.size();
      const int threads = threads_for_work(est);
      if (est > 4 * size_t(pr_.n) * nsub && nsub >= size_t(threads)) {
        ThreadTeam team(
            std::min<int>(resolve_threads(params_, nsub * pr_.n), static_cast<int>(nsub)),
            cancel_);
        count_bounded(b, mu, need, flags, team);
        return;
      }
    }
    ThreadTeam team(threads_for(b), cancel_);
    team.for_dynamic(total, 64, [&](size_t begin, size_t end) {
      size_t sub = std::upper_bound(b.offsets.begin(), b.offsets.end(), begin) -
                   b.offsets.begin() - 1;
      for (size_t i = begin; i < end; ++i) {
        while (b.offsets[sub + 1] <= i) ++sub;
        const int64_t cnt = count_one(b.dims.data() + sub * s, s, b.pts[i], need);
        flags[i] = static_cast<uint8_t>((cnt >= mu ? kCandidate : 0) | (cnt >= need ? kDense : 0));
      }
    });
  }

  void components(const Batch& b, std::vector<uint32_t>& comp) override {
    const size_t nsub = b.size();
    comp.assign(b.pts.size(), 0);
    ThreadTeam team(threads_for(b), cancel_);
    std::vector<std::vector<int32_t>> local(team.size());
    std::atomic<size_t> next{0};
    const int s = b.s;
    const uint32_t n = pr_.n;
    const int d = pr_.d;
    const double t = pr_.t;
    team.run([&](int member) {
      std::vector<int32_t>& loc = local[member];
      loc.assign(n, -1);
      for (;;) {
        cancel_.throw_if_requested();
        const size_t sub = next.fetch_add(1, std::memory_order_relaxed);
        if (sub >= nsub) return;
        const uint8_t* dims = b.dims.data() + sub * s;
        const uint32_t* pts = b.pts.data() + b.offsets[sub];
        uint32_t* parent = comp.data() + b.offsets[sub];
        const uint32_t m = static_cast<uint32_t>(b.offsets[sub + 1] - b.offsets[sub]);
        for (uint32_t i = 0; i < m; ++i) {
          loc[pts[i]] = static_cast<int32_t>(i);
          parent[i] = i;
        }
        auto find = [&](uint32_t x) {
          while (parent[x] != x) {
            parent[x] = parent[parent[x]];
            x = parent[x];
          }
          return x;
        };
        for (uint32_t i = 0; i < m; ++i) {
          if ((i & 1023) == 0) cancel_.throw_if_requested();
          const uint32_t p = pts[i];
          const Scan sc = choose_scan(pr_.lo.data(), pr_.hi.data(), n, dims, s, p);
          const uint32_t* perm = pr_.perm.data() + size_t(sc.k1) * n;
          const uint32_t lo = pr_.lo[size_t(sc.k1) * n + p], hi = pr_.hi[size_t(sc.k1) * n + p];
          const double* xp = pr_.x.data() + size_t(p) * d;
          for (uint32_t pos = lo; pos < hi; ++pos) {
            const uint32_t q = perm[pos];
            if (q <= p || !near_on(xp, pr_.x.data() + size_t(q) * d, sc.k2, t)) continue;
            const int32_t j = loc[q];
            if (j < 0) continue;
            uint32_t a = find(i), c = find(static_cast<uint32_t>(j));
            if (a == c || !near_in(xp, pr_.x.data() + size_t(q) * d, dims, s, t)) continue;
            // the smaller index stays the root: a root is its component's minimum
            if (a < c) parent[c] = a; else parent[a] = c;
          }
        }
        for (uint32_t i = 0; i < m; ++i) {
          parent[i] = find(i);
          loc[pts[i]] = -1;
        }
      }
    });
  }

 private:
  // p's neighbours in the subspace dims (s of them), counted up to need: a
  // scan of p's shortest window among them, the next shortest tested first.
  int64_t count_one(const uint8_t* dims, int s, uint32_t p, int64_t need) const {
    const uint32_t n = pr_.n;
    const int d = pr_.d;
    const double t = pr_.t;
    const Scan sc = choose_scan(pr_.lo.data(), pr_.hi.data(), n, dims, s, p);
    const uint32_t* perm = pr_.perm.data() + size_t(sc.k1) * n;
    const uint32_t lo = pr_.lo[size_t(sc.k1) * n + p], hi = pr_.hi[size_t(sc.k1) * n + p];
    const double* xp = pr_.x.data() + size_t(p) * d;
    int64_t cnt = 0;
    for (uint32_t pos = lo; pos < hi && cnt < need; ++pos) {
      const uint32_t q = perm[pos];
      const double* xq = pr_.x.data() + size_t(q) * d;
      if (q != p && near_on(xp, xq, sc.k2, t) && near_in(xp, xq, dims, s, t)) ++cnt;
    }
    return cnt;
  }

  // Threads for a batch, from the candidates its points scan (their
  // shortest windows): one thread per kWorkPerThread of them.
  static constexpr size_t kWorkPerThread = 1 << 18;
  int threads_for(const Batch& b) const {
    size_t work = 0;
    for (size_t sub = 0; sub < b.size(); ++sub)
      for (uint64_t i = b.offsets[sub]; i < b.offsets[sub + 1]; ++i)
        work += pr_.window(
            choose_scan(pr_.lo.data(), pr_.hi.data(), pr_.n, b.dims.data() + sub * b.s, b.s,
                        b.pts[i]).k1,
            b.pts[i]);
    return threads_for_work(work);
  }

  int threads_for_work(size_t work) const {
    gd_params per_work = params_;
    per_work.min_items_per_thread = kWorkPerThread;
    return resolve_threads(per_work, work);
  }

  // The same work guessed from the dims' mean windows, in O(subspaces):
  // each subspace's points times its dims' shortest mean window.
  size_t scan_estimate(const Batch& b) const {
    double work = 0;
    for (size_t sub = 0; sub < b.size(); ++sub) {
      double w = mean_w_[b.dims[sub * b.s]];
      for (int i = 1; i < b.s; ++i) w = std::min(w, mean_w_[b.dims[sub * b.s + i]]);
      work += w * double(b.offsets[sub + 1] - b.offsets[sub]);
    }
    return static_cast<size_t>(work);
  }

  // The bound's dims for a subspace: its two dims with the shortest windows
  // on average.
  std::pair<int, int> pair_for(const uint8_t* dims, int s) const {
    int k1 = dims[0], k2 = dims[1];
    if (mean_w_[k2] < mean_w_[k1]) std::swap(k1, k2);
    for (int i = 2; i < s; ++i) {
      const int k = dims[i];
      if (mean_w_[k] < mean_w_[k1]) {
        k2 = k1;
        k1 = k;
      } else if (mean_w_[k] < mean_w_[k2]) {
        k2 = k;
      }
    }
    return {k1, k2};
  }

  // Neighbour counts, one subspace per member at a time: a point whose pair
  // bound rules out mu neighbours is left at 0 (neither flag) unscanned.
  void count_bounded(const Batch& b, int64_t mu, int64_t need, std::vector<uint8_t>& flags,
                     ThreadTeam& team) {
    std::vector<PairBound> bounds(team.size());
    std::atomic<size_t> next{0};
    const int s = b.s;
    team.run([&](int member) {
      PairBound& pb = bounds[member];
      for (;;) {
        cancel_.throw_if_requested();
        const size_t sub = next.fetch_add(1, std::memory_order_relaxed);
        if (sub >= b.size()) return;
        const uint8_t* dims = b.dims.data() + sub * s;
        const auto ab = pair_for(dims, s);
        pb.build(pr_, rank_.data(), ab.first, ab.second);
        for (uint64_t i = b.offsets[sub]; i < b.offsets[sub + 1]; ++i) {
          if ((i & 1023) == 0) cancel_.throw_if_requested();
          const uint32_t p = b.pts[i];
          if (int64_t(pb.bound(pr_, p)) - 1 < mu) continue;
          const int64_t cnt = count_one(dims, s, p, need);
          flags[i] =
              static_cast<uint8_t>((cnt >= mu ? kCandidate : 0) | (cnt >= need ? kDense : 0));
        }
      }
    });
  }

  const Prepared& pr_;
  const gd_params& params_;
  const CancelToken& cancel_;
  size_t budget_;
  std::vector<double> mean_w_;  // each dim's mean window length
  // d x n: each point's position in each dim's sorted order (counted in
  // the driver's budget with the prepared input)
  std::vector<uint32_t> rank_;
};

}  // namespace

std::unique_ptr<Backend> make_cpu_backend(const Prepared& prep, const gd_params& params,
                                          const CancelToken& cancel, size_t budget) {
  return std::make_unique<CpuBackend>(prep, params, cancel, budget);
}

}  // namespace inscy
}  // namespace gd
