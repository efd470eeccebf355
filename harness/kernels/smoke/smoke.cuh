#pragma once
// The smoke family: a small templated kernel that exercises the whole compile/load/launch path
// (templates, cuda_fp16.h from the toolkit, static shared memory, barriers) and whose output is easy to
// check exactly. It is not tuned; evotune's self-test and compile benchmark use it.
#include <cuda_fp16.h>

// Each block sums kBlock * kItems consecutive elements of x (as float), times `scale`, into
// out[blockIdx.x]. Elements past n count as zero.
template <int kBlock, int kItems, typename T>
__global__ void __launch_bounds__(kBlock)
    block_sum(const T* __restrict__ x, float* __restrict__ out, int n, float scale) {
  static_assert((kBlock & (kBlock - 1)) == 0, "the tree reduction needs a power-of-two block");
  __shared__ float partial[kBlock];
  const int base = blockIdx.x * kBlock * kItems;
  float acc = 0.0f;
#pragma unroll
  for (int i = 0; i < kItems; ++i) {
    const int index = base + i * kBlock + static_cast<int>(threadIdx.x);
    if (index < n) acc += static_cast<float>(x[index]);
  }
  partial[threadIdx.x] = acc;
  __syncthreads();
  for (int stride = kBlock / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = partial[0] * scale;
}
