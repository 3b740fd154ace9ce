// hd.hpp — GD_HD: a function the CPU and the CUDA back ends both compile
// (__host__ __device__ under nvcc, nothing elsewhere), for the rules that
// must be bit for bit one code on both.
#pragma once

#if defined(__CUDACC__)
#define GD_HD __host__ __device__
#else
#define GD_HD
#endif
