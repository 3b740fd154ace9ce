// inscy.cu — the GPU back end of the subspace clustering (core/inscy.hpp).
//
// The driver hands over all the subspaces of a level at once (in batches that
// fit the budget), as GPU-INSCY processes every descriptor of a recursion
// level together:
//   count:      one warp per (subspace, point) pair scans the point's window
//               on the subspace's dim where it is shortest (the next
//               shortest tested first), 32 candidates a step, and stops once
//               the count reaches the density need;
//   components: one warp per (subspace, dense point) pair unites the point
//               with its later dense neighbours in the subspace's own slice
//               of a lock-free union-find (union_find.cuh), whose roots are
//               each component's smallest index, as on the CPU.
// The neighbour test is inscy.hpp's near_in, compiled with -fmad=false.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "cuda_util.cuh"
#include "inscy.hpp"
#include "union_find.cuh"

namespace gd {
namespace inscy {
namespace {

using cuda::device_buffer;

constexpr unsigned kWarpsPerBlock = 8;
constexpr unsigned kFull = 0xffffffffu;

struct DevPrepared {
  const double* x;
  const uint32_t* perm;
  const uint32_t* lo;
  const uint32_t* hi;
  uint32_t n;
  int d;
  double t;
};

struct DevBatch {
  const uint8_t* dims;
  const uint64_t* offsets;
  const uint32_t* pts;
  uint64_t nsub;
  uint64_t npairs;
  int s;
};

// The subspace of pair i: the last offset <= i.
__device__ inline uint64_t subspace_of(const DevBatch& b, uint64_t i) {
  uint64_t l = 0, r = b.nsub;  // offsets[l] <= i < offsets[r]
  while (r - l > 1) {
    uint64_t m = (l + r) / 2;
    if (b.offsets[m] <= i) l = m; else r = m;
  }
  return l;
}

// p's window on its scan dim (inscy.hpp's choose_scan), and the dim it tests first.
__device__ inline int scan_window(const DevPrepared& pr, const uint8_t* dims, int s, uint32_t p,
                                 const uint32_t** perm, uint32_t* lo, uint32_t* hi) {
  const Scan sc = choose_scan(pr.lo, pr.hi, pr.n, dims, s, p);
  *perm = pr.perm + size_t(sc.k1) * pr.n;
  *lo = pr.lo[size_t(sc.k1) * pr.n + p];
  *hi = pr.hi[size_t(sc.k1) * pr.n + p];
  return sc.k2;
}

__global__ void count_kernel(DevPrepared pr, DevBatch b, int64_t mu, int64_t need,
                             const volatile int* cancelled, uint8_t* flags) {
  const unsigned lane = threadIdx.x % 32;
  const uint64_t warps = uint64_t(gridDim.x) * (blockDim.x / 32);
  for (uint64_t i = (uint64_t(blockIdx.x) * blockDim.x + threadIdx.x) / 32; i < b.npairs;
       i += warps) {
    if (*cancelled) return;
    const uint64_t sub = subspace_of(b, i);
    const uint8_t* dims = b.dims + sub * b.s;
    const uint32_t p = b.pts[i];
    const uint32_t* perm;
    uint32_t lo, hi;
    const int k2 = scan_window(pr, dims, b.s, p, &perm, &lo, &hi);
    const double* xp = pr.x + size_t(p) * pr.d;
    int64_t cnt = 0;
    for (uint32_t base = lo; base < hi && cnt < need; base += 32) {
      const uint32_t pos = base + lane;
      bool ok = false;
      if (pos < hi) {
        const uint32_t q = perm[pos];
        const double* xq = pr.x + size_t(q) * pr.d;
        ok = q != p && near_on(xp, xq, k2, pr.t) && near_in(xp, xq, dims, b.s, pr.t);
      }
      cnt += __popc(__ballot_sync(kFull, ok));
    }
    if (lane == 0)
      flags[i] = static_cast<uint8_t>((cnt >= mu ? kCandidate : 0) | (cnt >= need ? kDense : 0));
  }
}

// Index of q among pts[0..m) (ascending), or -1.
__device__ inline int64_t find_point(const uint32_t* pts, uint64_t m, uint32_t q) {
  uint64_t l = 0, r = m;
  while (l < r) {
    uint64_t mid = (l + r) / 2;
    if (pts[mid] < q) l = mid + 1; else r = mid;
  }
  return (l < m && pts[l] == q) ? int64_t(l) : -1;
}

__global__ void init_kernel(DevBatch b, uint32_t* parent) {
  for (uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < b.npairs;
       i += uint64_t(gridDim.x) * blockDim.x) {
    const uint64_t sub = subspace_of(b, i);
    parent[i] = static_cast<uint32_t>(i - b.offsets[sub]);
  }
}

__global__ void union_kernel(DevPrepared pr, DevBatch b, const volatile int* cancelled,
                             uint32_t* parent) {
  const unsigned lane = threadIdx.x % 32;
  const uint64_t warps = uint64_t(gridDim.x) * (blockDim.x / 32);
  for (uint64_t i = (uint64_t(blockIdx.x) * blockDim.x + threadIdx.x) / 32; i < b.npairs;
       i += warps) {
    if (*cancelled) return;
    const uint64_t sub = subspace_of(b, i);
    const uint64_t off = b.offsets[sub];
    const uint64_t m = b.offsets[sub + 1] - off;
    const uint8_t* dims = b.dims + sub * b.s;
    const uint32_t p = b.pts[i];
    const uint32_t me = static_cast<uint32_t>(i - off);
    const uint32_t* perm;
    uint32_t lo, hi;
    const int k2 = scan_window(pr, dims, b.s, p, &perm, &lo, &hi);
    const double* xp = pr.x + size_t(p) * pr.d;
    uint32_t* par = parent + off;
    for (uint32_t pos = lo + lane; pos < hi; pos += 32) {
      const uint32_t q = perm[pos];
      if (q <= p) continue;
      const double* xq = pr.x + size_t(q) * pr.d;
      if (!near_on(xp, xq, k2, pr.t) || !near_in(xp, xq, dims, b.s, pr.t)) continue;
      const int64_t j = find_point(b.pts + off, m, q);
      if (j >= 0) cuda::uf_unite(par, me, static_cast<uint32_t>(j));
    }
  }
}

// Each point's root, into an array of its own: finds still halve paths in
// parent, and such a write could land after a root was stored there.
__global__ void flatten_kernel(DevBatch b, uint32_t* parent, uint32_t* root) {
  for (uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < b.npairs;
       i += uint64_t(gridDim.x) * blockDim.x) {
    const uint64_t sub = subspace_of(b, i);
    const uint64_t off = b.offsets[sub];
    root[i] = cuda::uf_find(parent + off, static_cast<uint32_t>(i - off));
  }
}

unsigned warp_grid(uint64_t warps) {
  uint64_t blocks = (warps + kWarpsPerBlock - 1) / kWarpsPerBlock;
  return static_cast<unsigned>(std::max<uint64_t>(1, std::min<uint64_t>(blocks, 1u << 20)));
}

class GpuBackend final : public Backend {
 public:
  GpuBackend(const Prepared& pr, const gd_params& params, const CancelToken& cancel)
      : ctx_(params.device, params.device_memory_budget, cancel), pr_(pr) {
    cuda::Stopwatch sw;
    x_ = ctx_.alloc<double>(pr.x.size(), "subspace clustering points");
    perm_ = ctx_.alloc<uint32_t>(pr.perm.size(), "subspace clustering sort orders");
    lo_ = ctx_.alloc<uint32_t>(pr.lo.size(), "subspace clustering windows");
    hi_ = ctx_.alloc<uint32_t>(pr.hi.size(), "subspace clustering windows");
    upload(x_, pr.x);
    upload(perm_, pr.perm);
    upload(lo_, pr.lo);
    upload(hi_, pr.hi);
    ctx_.wait();
    t_transfer += sw.lap();
  }

  gd_backend kind() const override { return GD_BACKEND_GPU; }

  size_t batch_bytes() const override {
    const size_t limit = ctx_.budget_limit();
    const size_t used = x_.bytes() + perm_.bytes() + lo_.bytes() + hi_.bytes();
    return limit > used ? (limit - used) / 2 : 0;
  }

  void count(const Batch& b, int64_t mu, int64_t need, std::vector<uint8_t>& flags) override {
    cuda::Stopwatch sw;
    Uploaded u = upload_batch(b);
    auto out = ctx_.alloc<uint8_t>(b.pts.size(), "subspace clustering flags");
    t_transfer += sw.lap();
    count_kernel<<<warp_grid(b.pts.size()), kWarpsPerBlock * 32, 0, ctx_.stream()>>>(
        dev(), u.view, mu, need, ctx_.cancel_flag_device(), out.data());
    GD_CHECK_LAUNCH("inscy count");
    ctx_.wait();
    sw.lap();
    flags.resize(b.pts.size());
    download(flags, out);
    t_transfer += sw.lap();
  }

  void components(const Batch& b, std::vector<uint32_t>& comp) override {
    cuda::Stopwatch sw;
    Uploaded u = upload_batch(b);
    auto parent = ctx_.alloc<uint32_t>(b.pts.size(), "subspace clustering union-find");
    auto root = ctx_.alloc<uint32_t>(b.pts.size(), "subspace clustering components");
    t_transfer += sw.lap();
    const unsigned threads = cuda::kBlock;
    init_kernel<<<cuda::grid_for(b.pts.size()), threads, 0, ctx_.stream()>>>(u.view,
                                                                              parent.data());
    GD_CHECK_LAUNCH("inscy init");
    union_kernel<<<warp_grid(b.pts.size()), kWarpsPerBlock * 32, 0, ctx_.stream()>>>(
        dev(), u.view, ctx_.cancel_flag_device(), parent.data());
    GD_CHECK_LAUNCH("inscy union");
    flatten_kernel<<<cuda::grid_for(b.pts.size()), threads, 0, ctx_.stream()>>>(
        u.view, parent.data(), root.data());
    GD_CHECK_LAUNCH("inscy flatten");
    ctx_.wait();
    sw.lap();
    comp.resize(b.pts.size());
    download(comp, root);
    t_transfer += sw.lap();
  }

 private:
  struct Uploaded {
    device_buffer<uint8_t> dims;
    device_buffer<uint64_t> offsets;
    device_buffer<uint32_t> pts;
    DevBatch view;
  };

  template <class T>
  void upload(device_buffer<T>& d, const std::vector<T>& h) {
    if (!h.empty())
      CUDA_TRY(cudaMemcpyAsync(d.data(), h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice,
                               ctx_.stream()));
  }

  template <class T>
  void download(std::vector<T>& h, const device_buffer<T>& d) {
    if (!h.empty())
      CUDA_TRY(cudaMemcpyAsync(h.data(), d.data(), h.size() * sizeof(T), cudaMemcpyDeviceToHost,
                               ctx_.stream()));
    ctx_.wait();
  }

  Uploaded upload_batch(const Batch& b) {
    Uploaded u;
    u.dims = ctx_.alloc<uint8_t>(b.dims.size(), "subspace clustering dims");
    u.offsets = ctx_.alloc<uint64_t>(b.offsets.size(), "subspace clustering offsets");
    u.pts = ctx_.alloc<uint32_t>(b.pts.size(), "subspace clustering points of a level");
    upload(u.dims, b.dims);
    upload(u.offsets, b.offsets);
    upload(u.pts, b.pts);
    u.view = DevBatch{u.dims.data(), u.offsets.data(), u.pts.data(), b.size(), b.pts.size(), b.s};
    return u;
  }

  DevPrepared dev() const {
    return DevPrepared{x_.data(), perm_.data(), lo_.data(), hi_.data(), pr_.n, pr_.d, pr_.t};
  }

  cuda::RunContext ctx_;  // first: destroyed after the buffers
  const Prepared& pr_;
  device_buffer<double> x_;
  device_buffer<uint32_t> perm_, lo_, hi_;
};

}  // namespace

std::unique_ptr<Backend> make_gpu_backend(const Prepared& prep, const gd_params& params,
                                          const CancelToken& cancel) {
  std::string why;
  if (!gpu_available(params.device, &why)) throw Error(GD_ERR_NO_DEVICE, why);
  return std::make_unique<GpuBackend>(prep, params, cancel);
}

}  // namespace inscy
}  // namespace gd
