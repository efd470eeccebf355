// Y[r, :] = softmax(X[r, :]) for a row-major X[rows, cols]: fp16 in and out, fp32 math, stable
// (the row maximum is subtracted before exponentiating).
//
// softmax_rows: a group of THREADS_PER_ROW threads handles one row; a block holds ROWS_PER_BLOCK rows.
// Threads move VEC halves per load/store (2, 4, 8 or 16 bytes). CACHE decides where the row waits
// between reading it and writing the result:
//   0  nowhere: pass 1 reads the row computing the running max and sum (the online form); pass 2 reads
//      it again (usually from L2) and writes. ITEMS = vectors each thread loads per step (in flight).
//   1  registers: each thread loads its ITEMS vectors once, then max, sum of exp, write.
//      ITEMS * THREADS_PER_ROW * VEC must cover the row (the spec picks the smallest such ITEMS).
//   2  shared memory: pass 1 reads global memory (ITEMS vectors per step) and keeps the raw row in
//      dynamic shared memory; pass 2 reads it back from there (each thread its own elements, so no
//      barrier is needed between the passes).
// Row maxima and sums are reduced with warp shuffles inside a warp, and through shared memory across
// the warps of a row when THREADS_PER_ROW > 32.
//
// reference_softmax: one thread per row, max in fp32, exponentials and sum in double.
//
// All five tunables are template arguments: softmax_rows<THREADS_PER_ROW, ROWS_PER_BLOCK, VEC, CACHE, ITEMS>.
// NVRTC-compatible: no host headers.

#include <cuda_fp16.h>

namespace {

template <int V>
struct alignas(2 * V) HalfVec {
  __half h[V];
};

__device__ __forceinline__ float neg_inf() { return __int_as_float(0xff800000); }

// Reduce over the TPR threads of a row: xor-shuffles stay inside aligned groups of min(TPR, 32) lanes;
// for TPR > 32 the warps of a row meet in `red` (every thread of the block must call this).
template <int TPR, bool IS_MAX>
__device__ __forceinline__ float row_reduce(float v, float* red, int row_in_block, int t) {
  constexpr int W = TPR < 32 ? TPR : 32;
#pragma unroll
  for (int o = W / 2; o > 0; o >>= 1) {
    const float u = __shfl_xor_sync(0xffffffffu, v, o);
    v = IS_MAX ? fmaxf(v, u) : v + u;
  }
  if constexpr (TPR > 32) {
    constexpr int NW = TPR / 32;
    if ((t & 31) == 0) red[row_in_block * NW + (t >> 5)] = v;
    __syncthreads();
    v = red[row_in_block * NW];
#pragma unroll
    for (int i = 1; i < NW; ++i) v = IS_MAX ? fmaxf(v, red[row_in_block * NW + i]) : v + red[row_in_block * NW + i];
    __syncthreads();  // `red` is reused by the next reduction
  }
  return v;
}

// Fold VEC values into a running (max, sum of exp(x - max)).
template <int VEC>
__device__ __forceinline__ void online_update(float& m, float& s, const HalfVec<VEC>& x) {
  float vm = __half2float(x.h[0]);
#pragma unroll
  for (int e = 1; e < VEC; ++e) vm = fmaxf(vm, __half2float(x.h[e]));
  if (vm > m) {
    s *= __expf(m - vm);  // m = -inf the first time: exp(-inf) = 0 and s was 0
    m = vm;
  }
#pragma unroll
  for (int e = 0; e < VEC; ++e) s += __expf(__half2float(x.h[e]) - m);
}

template <int VEC>
__device__ __forceinline__ void write_normalized(HalfVec<VEC>* y, int v, const HalfVec<VEC>& x, float m, float inv) {
  HalfVec<VEC> out;
#pragma unroll
  for (int e = 0; e < VEC; ++e) out.h[e] = __float2half_rn(__expf(__half2float(x.h[e]) - m) * inv);
  y[v] = out;
}

}  // namespace

template <int THREADS_PER_ROW, int ROWS_PER_BLOCK, int VEC, int CACHE, int ITEMS>
__global__ void __launch_bounds__(THREADS_PER_ROW * ROWS_PER_BLOCK)
softmax_rows(const __half* __restrict__ X, __half* __restrict__ Y, int rows, int cols) {
  constexpr int TPR = THREADS_PER_ROW;
  constexpr int NW = TPR > 32 ? TPR / 32 : 1;
  using Vec = HalfVec<VEC>;
  static_assert(CACHE >= 0 && CACHE <= 2, "CACHE is 0 (none), 1 (registers) or 2 (shared memory)");
  __shared__ float red[ROWS_PER_BLOCK * NW];
  extern __shared__ __align__(16) unsigned char row_cache[];  // CACHE == 2: ROWS_PER_BLOCK * cols halves

  const int r = threadIdx.x / TPR;  // row within the block
  const int t = threadIdx.x % TPR;  // thread within the row
  const int row = blockIdx.x * ROWS_PER_BLOCK + r;
  // Rows past the end still take part in the reductions (they hold barriers); they load and store nothing.
  const int nv = row < rows ? cols / VEC : 0;  // vectors in this row
  const Vec* x = reinterpret_cast<const Vec*>(X + static_cast<size_t>(row < rows ? row : 0) * cols);
  Vec* y = reinterpret_cast<Vec*>(Y + static_cast<size_t>(row < rows ? row : 0) * cols);

  if constexpr (CACHE == 1) {
    float vals[ITEMS][VEC];
    float m = neg_inf();
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
      const int v = t + i * TPR;
      if (v < nv) {
        const Vec xv = x[v];
#pragma unroll
        for (int e = 0; e < VEC; ++e) {
          vals[i][e] = __half2float(xv.h[e]);
          m = fmaxf(m, vals[i][e]);
        }
      }
    }
    m = row_reduce<TPR, true>(m, red, r, t);
    float s = 0.0f;
#pragma unroll
    for (int i = 0; i < ITEMS; ++i)
      if (t + i * TPR < nv)
#pragma unroll
        for (int e = 0; e < VEC; ++e) {
          vals[i][e] = __expf(vals[i][e] - m);
          s += vals[i][e];
        }
    const float inv = 1.0f / row_reduce<TPR, false>(s, red, r, t);
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
      const int v = t + i * TPR;
      if (v < nv) {
        Vec out;
#pragma unroll
        for (int e = 0; e < VEC; ++e) out.h[e] = __float2half_rn(vals[i][e] * inv);
        y[v] = out;
      }
    }
  } else {
    Vec* cache = reinterpret_cast<Vec*>(row_cache) + static_cast<size_t>(r) * (cols / VEC);
    // Pass 1: running max and sum, ITEMS loads in flight per thread.
    float m = neg_inf(), s = 0.0f;
    for (int base = t; base < nv; base += ITEMS * TPR) {
      Vec buf[ITEMS];
#pragma unroll
      for (int i = 0; i < ITEMS; ++i) {
        const int v = base + i * TPR;
        if (v < nv) buf[i] = x[v];
      }
#pragma unroll
      for (int i = 0; i < ITEMS; ++i) {
        const int v = base + i * TPR;
        if (v < nv) {
          online_update<VEC>(m, s, buf[i]);
          if constexpr (CACHE == 2) cache[v] = buf[i];
        }
      }
    }
    // Combine the (max, sum) pairs of the row's threads.
    const float row_max = row_reduce<TPR, true>(m, red, r, t);
    s = m == neg_inf() ? 0.0f : s * __expf(m - row_max);
    const float inv = 1.0f / row_reduce<TPR, false>(s, red, r, t);
    // Pass 2: normalize and write (this thread's own elements, from global memory or the cache).
    for (int base = t; base < nv; base += ITEMS * TPR) {
      Vec buf[ITEMS];
#pragma unroll
      for (int i = 0; i < ITEMS; ++i) {
        const int v = base + i * TPR;
        if (v < nv) buf[i] = CACHE == 2 ? cache[v] : x[v];
      }
#pragma unroll
      for (int i = 0; i < ITEMS; ++i) {
        const int v = base + i * TPR;
        if (v < nv) write_normalized<VEC>(y, v, buf[i], row_max, inv);
      }
    }
  }
}

// The reference: one thread per row. Launched as block 128, grid cdiv(rows, 128).
extern "C" __global__ void reference_softmax(const __half* X, __half* Y, int rows, int cols) {
  const int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  const __half* x = X + static_cast<size_t>(row) * cols;
  __half* y = Y + static_cast<size_t>(row) * cols;
  float m = __half2float(x[0]);
  for (int c = 1; c < cols; ++c) m = fmaxf(m, __half2float(x[c]));
  double sum = 0.0;
  for (int c = 0; c < cols; ++c) sum += exp(static_cast<double>(__half2float(x[c])) - m);
  for (int c = 0; c < cols; ++c)
    y[c] = __float2half_rn(static_cast<float>(exp(static_cast<double>(__half2float(x[c])) - m) / sum));
}
