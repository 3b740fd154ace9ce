// hd.hpp — GD_HD: a function the CPU and the CUDA back ends both compile
// (__host__ __device__ under nvcc, nothing elsewhere), for the rules that
// must be bit for bit one code on both.
#pragma once

#if defined(__CUDACC__)
#define GD_HD __host__ __device__
#define GD_HD_INLINE __host__ __device__ __forceinline__
#else
#define GD_HD
#define GD_HD_INLINE inline
#endif

// GD_HD_INLINE: the predicates of the kernels' inner loops, inlined as the
// device code's own __forceinline__ functions were.
