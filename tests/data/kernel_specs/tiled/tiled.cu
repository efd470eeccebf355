// C = A * B (row-major, fp32) with BLOCK_M x BLOCK_N tiles staged through dynamic shared memory in
// BLOCK_K steps: the tile shape is template arguments, the warp count a #define (WARPS).
#include "tile_shape.cuh"

template <int BLOCK_M, int BLOCK_N, int BLOCK_K>
__global__ void tiled_matmul(const float* A, const float* B, float* C, int m, int n, int k) {
  static_assert(WARPS != 3, "WARPS=3 is refused by this kernel");
  constexpr int threads = tile_threads(WARPS);
  constexpr int per_thread = (BLOCK_M * BLOCK_N + threads - 1) / threads;
  extern __shared__ float shared[];
  float* a_tile = shared;                      // BLOCK_M x BLOCK_K
  float* b_tile = shared + BLOCK_M * BLOCK_K;  // BLOCK_K x BLOCK_N
  const int row0 = blockIdx.y * BLOCK_M, col0 = blockIdx.x * BLOCK_N;
  float acc[per_thread] = {};
  for (int k0 = 0; k0 < k; k0 += BLOCK_K) {
    for (int i = threadIdx.x; i < BLOCK_M * BLOCK_K; i += threads) {
      const int r = i / BLOCK_K, c = i % BLOCK_K;
      a_tile[i] = row0 + r < m && k0 + c < k ? A[static_cast<long long>(row0 + r) * k + k0 + c] : 0.f;
    }
    for (int i = threadIdx.x; i < BLOCK_K * BLOCK_N; i += threads) {
      const int r = i / BLOCK_N, c = i % BLOCK_N;
      b_tile[i] = k0 + r < k && col0 + c < n ? B[static_cast<long long>(k0 + r) * n + col0 + c] : 0.f;
    }
    __syncthreads();
    for (int j = 0; j < per_thread; ++j) {
      const int t = threadIdx.x + j * threads;
      if (t >= BLOCK_M * BLOCK_N) break;
      const int r = t / BLOCK_N, c = t % BLOCK_N;
      float sum = 0.f;
      for (int kk = 0; kk < BLOCK_K; ++kk) sum += a_tile[r * BLOCK_K + kk] * b_tile[kk * BLOCK_N + c];
      acc[j] += sum;
    }
    __syncthreads();
  }
  for (int j = 0; j < per_thread; ++j) {
    const int t = threadIdx.x + j * threads;
    if (t >= BLOCK_M * BLOCK_N) break;
    const int r = row0 + t / BLOCK_N, c = col0 + t % BLOCK_N;
    if (r < m && c < n) C[static_cast<long long>(r) * n + c] = acc[j];
  }
}

extern "C" __global__ void reference_matmul(const float* A, const float* B, float* C, int m, int n, int k) {
  const int r = blockIdx.y, c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= n) return;
  float sum = 0.f;
  for (int i = 0; i < k; ++i) sum += A[static_cast<long long>(r) * k + i] * B[static_cast<long long>(i) * n + c];
  C[static_cast<long long>(r) * n + c] = sum;
}
