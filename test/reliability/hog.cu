// hog.cu — holds almost all free device memory, for test/reliability/gpu_faults.sh.
//
//   hog [--leave-mb M] [--seconds S] [--device D]
//
// Allocates the device's free memory but M MiB (default 32) in chunks of
// 1 GiB down to 1 MiB, touches it, prints "holding N MiB, F MiB free of T
// MiB" and sleeps S seconds (default 120) or until SIGTERM/SIGINT; exits 1
// when no memory could be taken.  Build: nvcc -O2 -o hog hog.cu
#include <cuda_runtime.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <vector>

#include <unistd.h>

static volatile std::sig_atomic_t stop = 0;
static void on_signal(int) { stop = 1; }

int main(int argc, char** argv) {
  size_t leave_mb = 32;
  double seconds = 120;
  int device = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--leave-mb")) leave_mb = std::strtoull(argv[i + 1], nullptr, 10);
    else if (!std::strcmp(argv[i], "--seconds")) seconds = std::atof(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--device")) device = std::atoi(argv[i + 1]);
    else {
      std::fprintf(stderr, "usage: hog [--leave-mb M] [--seconds S] [--device D]\n");
      return 2;
    }
  }
  std::signal(SIGTERM, on_signal);
  std::signal(SIGINT, on_signal);
  cudaError_t err = cudaSetDevice(device);
  if (err == cudaSuccess) err = cudaFree(nullptr);  // the context
  if (err != cudaSuccess) {
    std::printf("hog: no device: %s\n", cudaGetErrorString(err));
    return 1;
  }
  size_t free_b = 0, total_b = 0;
  cudaMemGetInfo(&free_b, &total_b);
  const size_t mib = size_t{1} << 20;
  const size_t leave = leave_mb * mib;
  size_t want = free_b > leave ? free_b - leave : 0;
  std::vector<void*> held;
  size_t got = 0;
  for (size_t chunk = size_t{1} << 30; chunk >= mib; chunk >>= 1) {
    while (got + chunk <= want) {
      void* p = nullptr;
      if (cudaMalloc(&p, chunk) != cudaSuccess) {
        (void)cudaGetLastError();
        break;
      }
      cudaMemset(p, 0xab, chunk);  // really resident
      held.push_back(p);
      got += chunk;
    }
  }
  cudaDeviceSynchronize();
  cudaMemGetInfo(&free_b, &total_b);
  std::printf("holding %zu MiB, %zu MiB free of %zu MiB\n", got / mib, free_b / mib, total_b / mib);
  std::fflush(stdout);
  if (got == 0) return 1;
  const std::time_t end = std::time(nullptr) + static_cast<std::time_t>(seconds);
  while (!stop && std::time(nullptr) < end) usleep(100000);
  for (void* p : held) cudaFree(p);
  return 0;
}
