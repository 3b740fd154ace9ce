// inscy_driver.cpp — the subspace clustering's levels (gd_inscy.h), shared by
// both back ends: level 1 on the host from the windows, then level by level
// the subspaces whose every subset passed (Apriori), each looking only at the
// points that are candidates (>= mu neighbours) in all its subsets, batches
// of subspaces handed to the back end for neighbour counts and components;
// then the redundancy step and the output order.
//
// Pruning (it cannot change the output): a neighbour in S' is one in every
// subset S, so a point with >= mu neighbours in S' has >= mu in S, and a dense
// point of any level has >= mu neighbours.  A subspace with fewer than
// min_size candidates holds no cluster, nor does any superset: it "fails" and
// no superset is generated.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unordered_map>

#include "inscy.hpp"
#include "memory_ledger.hpp"

namespace gd {
namespace inscy {
namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

struct Cluster {
  uint64_t mask;
  int s;
  std::vector<uint32_t> members;  // ascending
};

// Subspaces that passed at one level, with their candidate bitsets.
struct Passed {
  std::vector<uint64_t> masks;
  std::vector<uint64_t> bits;  // words per subspace
  std::unordered_map<uint64_t, uint32_t> index;
  void add(uint64_t mask, const uint64_t* b, size_t words) {
    index.emplace(mask, static_cast<uint32_t>(masks.size()));
    masks.push_back(mask);
    bits.insert(bits.end(), b, b + words);
  }
};

[[noreturn]] void over_budget(const char* what, double need, double budget) {
  char msg[300];
  std::snprintf(msg, sizeof msg,
                "subspace clustering needs %.1f MiB for %s, the budget is %.1f MiB "
                "(gpu_dbscan.device_memory_budget)",
                need / 1048576.0, what, budget / 1048576.0);
  throw Error(GD_ERR_NOMEM, msg);
}

class Driver {
 public:
  Driver(const Prepared& pr, const gd_inscy_params& ip, const CancelToken& cancel, Backend& be,
         size_t budget, MemoryCharge& ledger, gd_run_stats& stats)
      : pr_(pr), ip_(ip), cancel_(cancel), be_(be), budget_(budget), ledger_(ledger),
        stats_(stats), words_((pr.n + 63) / 64) {}

  std::vector<Cluster> clusters;
  int64_t evaluated = 0;

  void run() {
    Passed passed = level_one();
    for (int s = 2; s <= pr_.d && !passed.masks.empty(); ++s) {
      auto t0 = Clock::now();
      const int64_t before = evaluated;
      passed = level(s, passed);
      if (std::getenv("GD_INSCY_TRACE"))
        std::fprintf(stderr, "level %d: %lld evaluated, %zu passed, %.3f s\n", s,
                     static_cast<long long>(evaluated - before), passed.masks.size(), since(t0));
    }
  }

 private:
  // Sorts distinct point ids ascending; a long list through a bitset of all
  // points (scratch: words_ words, left all 0), in O(n / 64 + size).
  void sort_ids(std::vector<uint32_t>& ids, std::vector<uint64_t>& scratch) const {
    if (ids.size() * 16 < pr_.n) {
      std::sort(ids.begin(), ids.end());
      return;
    }
    for (uint32_t p : ids) scratch[p / 64] |= uint64_t(1) << (p % 64);
    size_t at = 0;
    for (size_t w = 0; w < words_; ++w) {
      for (uint64_t b = scratch[w]; b; b &= b - 1)
        ids[at++] = static_cast<uint32_t>(w * 64 + __builtin_ctzll(b));
      scratch[w] = 0;
    }
  }

  // Level 1 from the windows: p's neighbours on dim k are its window less
  // itself; the dense points' components are runs in k's sorted order
  // (neighbours on one dim: p <= q <= r and p ~ r give p ~ q and q ~ r).
  Passed level_one() {
    Passed out;
    const uint32_t n = pr_.n;
    const int64_t need = dense_need(ip_, n, 1);
    std::vector<uint64_t> bits(words_), scratch(words_);
    std::vector<uint32_t> run;
    for (int k = 0; k < pr_.d; ++k) {
      cancel_.throw_if_requested();
      ++evaluated;
      std::fill(bits.begin(), bits.end(), 0);
      int64_t ncand = 0;
      for (uint32_t p = 0; p < n; ++p)
        if (int64_t(pr_.window(k, p)) - 1 >= ip_.mu) {
          bits[p / 64] |= uint64_t(1) << (p % 64);
          ++ncand;
        }
      if (ncand >= ip_.min_size) out.add(uint64_t(1) << k, bits.data(), words_);
      const uint32_t* perm = pr_.perm.data() + size_t(k) * n;
      auto flush = [&] {
        if (int64_t(run.size()) >= ip_.min_size) {
          sort_ids(run, scratch);
          add_cluster(Cluster{uint64_t(1) << k, 1, run});
        }
        run.clear();
      };
      const uint8_t dim = static_cast<uint8_t>(k);
      for (uint32_t pos = 0; pos < n; ++pos) {
        const uint32_t p = perm[pos];
        if (int64_t(pr_.window(k, p)) - 1 < need) continue;
        if (!run.empty() &&
            !near_in(pr_.x.data() + size_t(run.back()) * pr_.d, pr_.x.data() + size_t(p) * pr_.d,
                     &dim, 1, pr_.t))
          flush();
        run.push_back(p);
      }
      flush();
    }
    return out;
  }

  // One level: generate, prune, count, cluster.
  Passed level(int s, const Passed& prev) {
    Passed out;
    prev_bytes_ = passed_bytes(prev.masks.size());
    const int64_t need = dense_need(ip_, pr_.n, s);
    // a batch holds about 16 bytes a pair on the host (and on the device)
    const size_t pair_cap =
        std::max<size_t>(std::min(be_.batch_bytes(), budget_ / 4) / 16, pr_.n);
    Batch batch;
    batch.s = s;
    batch.offsets.push_back(0);
    // Room for the whole batch at once: growing by doubling would copy it
    // and touch fresh pages each time (a large part of a small run).  Only
    // the pages written are ever touched.
    const size_t gen_max = prev.masks.size() * size_t(pr_.d);  // subspaces this level may generate
    batch.pts.reserve(std::min<size_t>(pair_cap + pr_.n, gen_max * pr_.n));
    std::vector<uint64_t> masks;
    std::vector<uint64_t> bits(words_);
    std::vector<uint32_t> subsets;
    for (uint64_t S : prev.masks) {
      cancel_.throw_if_requested();
      const int top = 63 - __builtin_clzll(S);
      for (int j = top + 1; j < pr_.d; ++j) {
        const uint64_t T = S | (uint64_t(1) << j);
        // every subset of T with one dim less must have passed
        subsets.clear();
        bool ok = true;
        for (uint64_t rest = T; rest && ok; rest &= rest - 1) {
          auto it = prev.index.find(T & ~(rest & -rest));
          if (it == prev.index.end()) ok = false; else subsets.push_back(it->second);
        }
        if (!ok) continue;
        // its points: candidates in every subset
        std::copy(prev.bits.begin() + size_t(subsets[0]) * words_,
                  prev.bits.begin() + size_t(subsets[0] + 1) * words_, bits.begin());
        for (size_t i = 1; i < subsets.size(); ++i) {
          const uint64_t* o = prev.bits.data() + size_t(subsets[i]) * words_;
          for (size_t w = 0; w < words_; ++w) bits[w] &= o[w];
        }
        int64_t cnt = 0;
        for (size_t w = 0; w < words_; ++w) cnt += __builtin_popcountll(bits[w]);
        if (cnt < ip_.min_size) continue;
        masks.push_back(T);
        for (uint64_t rest = T; rest; rest &= rest - 1)
          batch.dims.push_back(static_cast<uint8_t>(__builtin_ctzll(rest)));
        for (size_t w = 0; w < words_; ++w)
          for (uint64_t b = bits[w]; b; b &= b - 1)
            batch.pts.push_back(static_cast<uint32_t>(w * 64 + __builtin_ctzll(b)));
        batch.offsets.push_back(batch.pts.size());
        if (batch.pts.size() >= pair_cap) {
          process(batch, masks, need, out);
          batch.dims.clear();
          batch.pts.clear();
          batch.offsets.assign(1, 0);
          masks.clear();
        }
      }
    }
    if (!masks.empty()) process(batch, masks, need, out);
    return out;
  }

  void process(const Batch& batch, const std::vector<uint64_t>& masks, int64_t need, Passed& out) {
    evaluated += static_cast<int64_t>(masks.size());
    ++stats_.batches;
    auto t0 = Clock::now();
    std::vector<uint8_t> flags;
    be_.count(batch, ip_.mu, need, flags);
    stats_.t_core += since(t0);
    cancel_.throw_if_requested();

    Batch dense;
    dense.s = batch.s;
    dense.offsets.push_back(0);
    std::vector<uint64_t> dense_masks;
    std::vector<uint64_t> bits(words_);
    for (size_t i = 0; i < batch.size(); ++i) {
      int64_t ncand = 0, ndense = 0;
      for (uint64_t k = batch.offsets[i]; k < batch.offsets[i + 1]; ++k) {
        ncand += (flags[k] & kCandidate) != 0;
        ndense += (flags[k] & kDense) != 0;
      }
      if (ncand >= ip_.min_size) {
        std::fill(bits.begin(), bits.end(), 0);
        for (uint64_t k = batch.offsets[i]; k < batch.offsets[i + 1]; ++k)
          if (flags[k] & kCandidate) bits[batch.pts[k] / 64] |= uint64_t(1) << (batch.pts[k] % 64);
        const double held = passed_bytes(out.masks.size() + 1) + prev_bytes_ + held_prev_ +
                            cluster_bytes_;
        account(held, "the candidate sets of a level");
        out.add(masks[i], bits.data(), words_);
      }
      if (ndense >= ip_.min_size) {
        dense_masks.push_back(masks[i]);
        dense.dims.insert(dense.dims.end(), batch.dims.begin() + i * batch.s,
                          batch.dims.begin() + (i + 1) * batch.s);
        for (uint64_t k = batch.offsets[i]; k < batch.offsets[i + 1]; ++k)
          if (flags[k] & kDense) dense.pts.push_back(batch.pts[k]);
        dense.offsets.push_back(dense.pts.size());
      }
    }
    if (dense_masks.empty()) return;

    t0 = Clock::now();
    std::vector<uint32_t> comp;
    be_.components(dense, comp);
    stats_.t_union += since(t0);
    cancel_.throw_if_requested();
    std::vector<uint32_t> size;
    for (size_t i = 0; i < dense.size(); ++i) {
      const uint64_t b = dense.offsets[i], e = dense.offsets[i + 1];
      size.assign(e - b, 0);
      for (uint64_t k = b; k < e; ++k) ++size[comp[k]];
      for (uint64_t k = b; k < e; ++k) {
        const uint32_t root = static_cast<uint32_t>(k - b);
        if (comp[k] != root || int64_t(size[root]) < ip_.min_size) continue;
        Cluster c{dense_masks[i], batch.s, {}};
        c.members.reserve(size[root]);
        for (uint64_t m = k; m < e; ++m)
          if (comp[m] == root) c.members.push_back(dense.pts[m]);
        add_cluster(std::move(c));
      }
    }
  }

 public:
  double held_prev_ = 0;  // the prepared input's bytes

 private:
  // Host bytes of `count` passed subspaces: bitset, mask, hash entry.
  double passed_bytes(size_t count) const { return double(count) * (words_ * 8.0 + 72.0); }

  // What the run holds now: within the budget, and charged to the memory
  // ledger (gpu_dbscan.max_query_memory and max_total_memory).
  void account(double held, const char* what) {
    if (held > double(budget_)) over_budget(what, held, budget_);
    ledger_.set(static_cast<int64_t>(held), what);
  }

  // Keeps a cluster found; the clusters found count against the budget too.
  void add_cluster(Cluster&& c) {
    cluster_bytes_ += double(c.members.size()) * 4.0 + 48.0;
    account(cluster_bytes_ + prev_bytes_ + held_prev_, "the clusters found");
    clusters.push_back(std::move(c));
  }

 private:
  const Prepared& pr_;
  const gd_inscy_params& ip_;
  const CancelToken& cancel_;
  Backend& be_;
  size_t budget_;
  MemoryCharge& ledger_;
  gd_run_stats& stats_;
  size_t words_;
  double prev_bytes_ = 0;     // the previous level's passed subspaces
  double cluster_bytes_ = 0;  // the clusters found so far
};

// Lexicographic order of two subspaces of the same size: at the first
// difference of the ascending lists, the smaller dim is the lowest bit of
// a ^ b, and it belongs to the list that comes first.
bool dims_before(uint64_t a, uint64_t b) {
  if (a == b) return false;
  const uint64_t x = a ^ b;
  return (a & x & -x) != 0;
}

// Step 5: by decreasing s, drop a cluster when a kept cluster of a strict
// superset shares a point with it and |C| * r < |C'|.  C's rows are marked in
// a bitset; each kept cluster of a strict superset that is large enough is
// tested for a marked row, stopping at the first.
std::vector<const Cluster*> redundancy(const std::vector<Cluster>& all, double r, uint32_t n,
                                       const CancelToken& cancel) {
  std::vector<const Cluster*> order;
  for (const Cluster& c : all) order.push_back(&c);
  std::stable_sort(order.begin(), order.end(),
                   [](const Cluster* a, const Cluster* b) { return a->s > b->s; });
  std::vector<uint64_t> mark((n + 63) / 64, 0);
  std::vector<const Cluster*> kept, level;
  for (size_t i = 0; i < order.size();) {
    const int s = order[i]->s;
    level.clear();
    for (; i < order.size() && order[i]->s == s; ++i) {
      cancel.throw_if_requested();
      const Cluster& c = *order[i];
      const double mine = double(c.members.size()) * r;
      for (uint32_t p : c.members) mark[p / 64] |= uint64_t(1) << (p % 64);
      bool drop = false;
      for (const Cluster* o : kept) {  // all of a larger s: strict supersets when they contain c's dims
        if ((o->mask & c.mask) != c.mask || !(mine < double(o->members.size()))) continue;
        for (uint32_t q : o->members)
          if (mark[q / 64] >> (q % 64) & 1) {
            drop = true;
            break;
          }
        if (drop) break;
      }
      for (uint32_t p : c.members) mark[p / 64] = 0;
      if (!drop) level.push_back(&c);
    }
    kept.insert(kept.end(), level.begin(), level.end());
  }
  std::sort(kept.begin(), kept.end(), [](const Cluster* a, const Cluster* b) {
    if (a->s != b->s) return a->s < b->s;
    if (a->mask != b->mask) return dims_before(a->mask, b->mask);
    return a->members[0] < b->members[0];
  });
  return kept;
}

template <class T>
T* alloc_array(size_t count) {
  void* p = std::malloc(std::max<size_t>(count, 1) * sizeof(T));
  if (!p) throw std::bad_alloc();
  return static_cast<T*>(p);
}

}  // namespace

void run(const double* rows, uint32_t n, int d, const gd_inscy_params& ip,
         const gd_params& params, const CancelToken& cancel, gd_inscy_result& out,
         gd_run_stats& stats) {
  const auto t_start = Clock::now();
  const size_t budget =
      params.device_memory_budget != 0 ? params.device_memory_budget : kDefaultHostBudget;
  auto t0 = Clock::now();
  Prepared pr = prepare(rows, n, d, ip.eps);
  // perm, lo and hi; the CPU back end adds each point's rank on each dim
  const double prep_bytes = double(pr.x.size()) * 8 +
                            double(pr.perm.size()) * (params.backend == GD_BACKEND_GPU ? 12 : 16);
  if (prep_bytes > double(budget)) over_budget("the normalised points and their windows",
                                               prep_bytes, budget);
  MemoryCharge ledger(static_cast<int64_t>(prep_bytes), "the normalised points and their windows");
  stats.t_sort = since(t0);
  cancel.throw_if_requested();

  std::unique_ptr<Backend> be = params.backend == GD_BACKEND_GPU
                                    ? make_gpu_backend(pr, params, cancel)
                                    : make_cpu_backend(pr, params, cancel, budget);
  stats.backend = be->kind();
  stats.points = n;
  Driver drv(pr, ip, cancel, *be, budget, ledger, stats);
  drv.held_prev_ = prep_bytes;
  drv.run();

  t0 = Clock::now();
  std::vector<const Cluster*> kept = redundancy(drv.clusters, ip.redundancy, n, cancel);
  if (std::getenv("GD_INSCY_TRACE"))
    std::fprintf(stderr, "redundancy: %zu of %zu clusters kept, %.3f s\n", kept.size(),
                 drv.clusters.size(), since(t0));
  size_t nmembers = 0;
  uint64_t seen_mask = 0;
  int64_t subspaces = 0;
  for (size_t i = 0; i < kept.size(); ++i) {
    nmembers += kept[i]->members.size();
    if (i == 0 || kept[i]->mask != seen_mask) ++subspaces;
    seen_mask = kept[i]->mask;
  }
  gd_inscy_cluster* cl = alloc_array<gd_inscy_cluster>(kept.size());
  int32_t* mem = nullptr;
  try {
    mem = alloc_array<int32_t>(nmembers);
  } catch (...) {
    std::free(cl);
    throw;
  }
  size_t at = 0;
  for (size_t i = 0; i < kept.size(); ++i) {
    cl[i].dims = kept[i]->mask;
    cl[i].first = static_cast<int64_t>(at);
    cl[i].size = static_cast<int64_t>(kept[i]->members.size());
    for (uint32_t p : kept[i]->members) mem[at++] = static_cast<int32_t>(p);
  }
  out.clusters = cl;
  out.nclusters = static_cast<int64_t>(kept.size());
  out.members = mem;
  out.nmembers = static_cast<int64_t>(nmembers);
  out.subspaces = subspaces;
  out.evaluated = drv.evaluated;
  out.found = static_cast<int64_t>(drv.clusters.size());
  stats.cells = drv.evaluated;
  stats.t_label = since(t0);
  stats.t_transfer = be->t_transfer;
  stats.t_total = since(t_start);
}

}  // namespace inscy
}  // namespace gd
