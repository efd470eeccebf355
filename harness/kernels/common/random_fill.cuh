#pragma once
// Seeded, reproducible random tensors generated on the device: element i of stream `seed` is a pure
// function of (seed, i), so inputs are identical on every run and every GPU, and distinct streams give
// distinct tensors. Normal(0, 1) via Box-Muller over a SplitMix64 counter hash.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

__device__ __forceinline__ unsigned long long splitmix64(unsigned long long x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

template <typename T>
__global__ void fill_normal(T* out, long long n, unsigned long long seed) {
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    const unsigned long long bits = splitmix64(seed * 0x2545F4914F6CDD1Dull + static_cast<unsigned long long>(i));
    // Two 24-bit uniforms in (0, 1]: never 0, so log() is finite.
    const float u1 = (static_cast<float>(bits >> 40) + 1.0f) * (1.0f / 16777216.0f);
    const float u2 = static_cast<float>((bits >> 16) & 0xFFFFFFull) * (1.0f / 16777216.0f);
    const float value = sqrtf(-2.0f * logf(u1)) * cospif(2.0f * u2);
    out[i] = static_cast<T>(value);
  }
}
