// startup_probe.cpp — what a process's first GPU clustering pays for, piece
// by piece, and the bus's own speed; built and run by test/gpu/run (stage
// "startup").  One fresh process per invocation:
//
//   startup_probe pieces   cuInit, context, first allocations, pinning, the
//                          availability probe, then three 1M-point runs
//   startup_probe first    what a backend does: gd_gpu_available, then three
//                          1M-point runs (the first pays the start-up)
//   startup_probe bus      10M points' bytes: pageable, pinned and registered
//                          copies each way
//
// Run with CUDA_MODULE_LOADING=EAGER to compare with CUDA's default (lazy).
#include <cuda.h>
#include <cuda_runtime.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "gd_core.h"

namespace {

double now_ms() {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

struct Clock {
  double t = now_ms();
  double lap() {
    double u = now_ms(), d = u - t;
    t = u;
    return d;
  }
};

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}

void runs(uint32_t n, int count) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(0, 1000 * std::sqrt(n / 1e6));
  std::vector<double> x(n), y(n);
  for (uint32_t i = 0; i < n; ++i) x[i] = u(rng), y[i] = u(rng);
  std::vector<uint8_t> kind(n, GD_ROW_POINT);
  std::vector<int32_t> ids(n);
  gd_params p;
  gd_params_init(&p);
  p.eps = 1;
  p.minpoints = 10;
  p.backend = GD_BACKEND_GPU;
  for (int r = 0; r < count; ++r) {
    gd_run_stats st{};
    gd_error err{};
    Clock c;
    gd_status s = gd_cluster_points(x.data(), y.data(), kind.data(), n, &p, ids.data(), &st, &err);
    double wall = c.lap();
    if (s != GD_OK) {
      std::printf("run %d: error %s\n", r + 1, err.message);
      std::exit(1);
    }
    std::printf("  run %d (%u points): wall %.1f ms = xfer %.1f sort %.1f core %.1f union %.1f "
                "label %.1f (core total %.1f)\n",
                r + 1, n, wall, st.t_transfer * 1e3, st.t_sort * 1e3, st.t_core * 1e3,
                st.t_union * 1e3, st.t_label * 1e3, st.t_total * 1e3);
  }
}

void pieces() {
  Clock c;
  CUresult r = cuInit(0);
  std::printf("  cuInit                      %8.1f ms (%d)\n", c.lap(), static_cast<int>(r));
  int count = 0;
  check(cudaGetDeviceCount(&count), "cudaGetDeviceCount");
  std::printf("  cudaGetDeviceCount          %8.1f ms (runtime start)\n", c.lap());
  cudaDeviceProp prop;
  check(cudaGetDeviceProperties(&prop, 0), "props");
  std::printf("  cudaGetDeviceProperties     %8.1f ms (%s)\n", c.lap(), prop.name);
  check(cudaSetDevice(0), "set");
  check(cudaFree(nullptr), "cudaFree(0)");
  std::printf("  context (cudaFree(0))       %8.1f ms\n", c.lap());
  size_t fr = 0, tot = 0;
  check(cudaMemGetInfo(&fr, &tot), "meminfo");
  std::printf("  cudaMemGetInfo              %8.1f ms (context holds ~%.0f MiB)\n", c.lap(),
              (tot - fr) / 1048576.0);
  void* d = nullptr;
  check(cudaMalloc(&d, 4), "malloc");
  check(cudaFree(d), "free");
  std::printf("  first cudaMalloc+cudaFree   %8.1f ms\n", c.lap());
  cudaStream_t s;
  check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "stream");
  std::printf("  cudaStreamCreate            %8.1f ms\n", c.lap());
  check(cudaMallocAsync(&d, 1 << 20, s), "mallocasync");
  check(cudaFreeAsync(d, s), "freeasync");
  check(cudaStreamSynchronize(s), "sync");
  std::printf("  first cudaMallocAsync (pool)%8.1f ms\n", c.lap());
  void* h = nullptr;
  check(cudaHostAlloc(&h, 4, cudaHostAllocDefault), "hostalloc");
  std::printf("  cudaHostAlloc 4 B           %8.1f ms\n", c.lap());
  check(cudaFreeHost(h), "freehost");
  check(cudaHostAlloc(&h, 16 << 20, cudaHostAllocDefault), "hostalloc");
  std::printf("  cudaHostAlloc 16 MiB        %8.1f ms\n", c.lap());
  check(cudaFreeHost(h), "freehost");
  std::printf("  cudaFreeHost 16 MiB         %8.1f ms\n", c.lap());
  gd_error err{};
  int ok = gd_gpu_available(0, &err);
  std::printf("  gd_gpu_available            %8.1f ms (%d)\n", c.lap(), ok);
}

void bus() {
  const size_t n = 10000000, up = n * 16, down = n * 4;
  std::vector<char> src(up, 1);
  char* dev = nullptr;
  check(cudaMalloc(&dev, up), "malloc");
  check(cudaMemcpy(dev, src.data(), up, cudaMemcpyHostToDevice), "warm");
  auto rate = [](size_t b, double ms) { return b / ms / 1e6; };
  Clock c;
  check(cudaMemcpy(dev, src.data(), up, cudaMemcpyHostToDevice), "h2d pageable");
  double t = c.lap();
  std::printf("  H2D 160 MB pageable             %6.1f ms  %5.1f GB/s\n", t, rate(up, t));
  char* pin = nullptr;
  check(cudaHostAlloc(reinterpret_cast<void**>(&pin), up, cudaHostAllocDefault), "pin");
  t = c.lap();
  std::printf("  cudaHostAlloc 160 MB            %6.1f ms\n", t);
  std::memset(pin, 1, up);
  c.lap();
  check(cudaMemcpy(dev, pin, up, cudaMemcpyHostToDevice), "h2d pinned");
  t = c.lap();
  std::printf("  H2D 160 MB pinned               %6.1f ms  %5.1f GB/s\n", t, rate(up, t));
  check(cudaMemcpy(pin, dev, down, cudaMemcpyDeviceToHost), "d2h pinned");
  t = c.lap();
  std::printf("  D2H 40 MB pinned                %6.1f ms  %5.1f GB/s\n", t, rate(down, t));
  std::memcpy(src.data(), pin, up);
  t = c.lap();
  std::printf("  host memcpy 160 MB, one thread  %6.1f ms  %5.1f GB/s\n", t, rate(up, t));
  check(cudaFreeHost(pin), "freehost");
  c.lap();
  check(cudaHostRegister(src.data(), up, cudaHostRegisterDefault), "register");
  t = c.lap();
  std::printf("  cudaHostRegister 160 MB         %6.1f ms\n", t);
  check(cudaMemcpy(dev, src.data(), up, cudaMemcpyHostToDevice), "h2d registered");
  t = c.lap();
  std::printf("  H2D 160 MB registered           %6.1f ms  %5.1f GB/s\n", t, rate(up, t));
  check(cudaHostUnregister(src.data()), "unregister");
  t = c.lap();
  std::printf("  cudaHostUnregister 160 MB       %6.1f ms\n", t);
  std::vector<char> fresh_touched(down, 0);
  c.lap();
  check(cudaMemcpy(fresh_touched.data(), dev, down, cudaMemcpyDeviceToHost), "d2h pageable");
  t = c.lap();
  std::printf("  D2H 40 MB pageable (touched)    %6.1f ms  %5.1f GB/s\n", t, rate(down, t));
  char* fresh = static_cast<char*>(std::malloc(down));
  c.lap();
  check(cudaMemcpy(fresh, dev, down, cudaMemcpyDeviceToHost), "d2h pageable fresh");
  t = c.lap();
  std::printf("  D2H 40 MB pageable (untouched)  %6.1f ms  %5.1f GB/s\n", t, rate(down, t));
  std::free(fresh);
  check(cudaFree(dev), "free");
}

}  // namespace

int main(int argc, char** argv) {
  std::string mode = argc > 1 ? argv[1] : "pieces";
  const char* loading = std::getenv("CUDA_MODULE_LOADING");
  std::printf("startup_probe %s (CUDA_MODULE_LOADING=%s)\n", mode.c_str(),
              loading ? loading : "default");
  Clock total;
  if (mode == "pieces") {
    pieces();
    runs(1000000, 3);
  } else if (mode == "first") {
    Clock c;
    gd_error err{};
    int ok = gd_gpu_available(0, &err);
    std::printf("  gd_gpu_available            %8.1f ms (%d)\n", c.lap(), ok);
    runs(1000000, 3);
  } else if (mode == "bus") {
    bus();
  } else {
    std::fprintf(stderr, "usage: startup_probe pieces|first|bus\n");
    return 2;
  }
  std::printf("  process total               %8.1f ms\n", total.lap());
  return 0;
}
