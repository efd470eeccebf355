#pragma once
// Compares an output tensor (fp16, bf16 or fp32) with its fp32 reference on the GPU and reduces the
// difference to CompareFigures: max abs error, squared sums for the relative L2 error, and how many
// outputs are not finite. The reduction has a fixed shape (each block strides over the tensor in the
// same order, then one block folds the per-block partials in index order), so the same inputs always give
// bit-identical figures. Differences are taken in double, as the host comparison they replace did.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "common/compare_figures.h"

namespace evotune_compare {

constexpr int kThreads = 256;

__device__ __forceinline__ double as_double(__half x) { return static_cast<double>(__half2float(x)); }
__device__ __forceinline__ double as_double(__nv_bfloat16 x) { return static_cast<double>(__bfloat162float(x)); }
__device__ __forceinline__ double as_double(float x) { return static_cast<double>(x); }

__device__ __forceinline__ void fold(CompareFigures& into, const CompareFigures& other) {
  into.max_abs_diff = fmax(into.max_abs_diff, other.max_abs_diff);
  into.sum_sq_diff += other.sum_sq_diff;
  into.sum_sq_ref += other.sum_sq_ref;
  into.max_abs_ref = fmax(into.max_abs_ref, other.max_abs_ref);
  into.non_finite += other.non_finite;
}

__device__ __forceinline__ CompareFigures shuffle_down(const CompareFigures& f, int offset) {
  CompareFigures o;
  o.max_abs_diff = __shfl_down_sync(0xffffffffu, f.max_abs_diff, offset);
  o.sum_sq_diff = __shfl_down_sync(0xffffffffu, f.sum_sq_diff, offset);
  o.sum_sq_ref = __shfl_down_sync(0xffffffffu, f.sum_sq_ref, offset);
  o.max_abs_ref = __shfl_down_sync(0xffffffffu, f.max_abs_ref, offset);
  o.non_finite = __shfl_down_sync(0xffffffffu, f.non_finite, offset);
  return o;
}

// Folds every thread's figures into thread 0's, in a fixed order.
__device__ __forceinline__ CompareFigures block_fold(CompareFigures f) {
  __shared__ CompareFigures warps[kThreads / 32];
  for (int offset = 16; offset > 0; offset /= 2) fold(f, shuffle_down(f, offset));
  if (threadIdx.x % 32 == 0) warps[threadIdx.x / 32] = f;
  __syncthreads();
  if (threadIdx.x == 0) {
    for (int w = 1; w < kThreads / 32; ++w) fold(f, warps[w]);
  }
  return f;
}

__device__ __forceinline__ CompareFigures zero_figures() { return CompareFigures{0.0, 0.0, 0.0, 0.0, 0ull}; }

}  // namespace evotune_compare

// Stage 1: block b writes the figures of elements b*256 + t, strided by the grid, to partials[b].
template <typename T>
__global__ void __launch_bounds__(256) compare_partials(const T* out, const float* ref, long long n,
                                                        CompareFigures* partials) {
  using namespace evotune_compare;
  CompareFigures f = zero_figures();
  for (long long i = blockIdx.x * static_cast<long long>(kThreads) + threadIdx.x; i < n;
       i += static_cast<long long>(gridDim.x) * kThreads) {
    const double r = static_cast<double>(ref[i]);
    f.max_abs_ref = fmax(f.max_abs_ref, fabs(r));
    const double o = as_double(out[i]);
    if (!isfinite(o)) {
      ++f.non_finite;
      continue;
    }
    const double d = o - r;
    f.max_abs_diff = fmax(f.max_abs_diff, fabs(d));
    f.sum_sq_diff += d * d;
    f.sum_sq_ref += r * r;
  }
  f = block_fold(f);
  if (threadIdx.x == 0) partials[blockIdx.x] = f;
}

// Stage 2, one block: folds `count` partials into *result.
__global__ void __launch_bounds__(256) compare_finish(const CompareFigures* partials, int count,
                                                      CompareFigures* result) {
  using namespace evotune_compare;
  CompareFigures f = zero_figures();
  for (int i = threadIdx.x; i < count; i += kThreads) fold(f, partials[i]);
  f = block_fold(f);
  if (threadIdx.x == 0) *result = f;
}
