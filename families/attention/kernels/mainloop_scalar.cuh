#pragma once
// Scalar mainloop: plain fp32 FMAs on the CUDA cores, no tensor cores. The comparison point that shows
// what the tensor-core path buys. kThreadsPerRow consecutive threads (within one warp) share a query
// row: each computes a strided subset of the row's scores and owns a strided subset of its output
// columns; probabilities go through a shared-memory row buffer so every thread of the row can use all
// of them for P.V.
#include "attention/common.cuh"
#include "attention/softmax.cuh"

namespace evotune_attention {

template <class Cfg>
struct ScalarMainloop {
  using T = typename Cfg::T;
  using Layout = typename Cfg::Layout;
  static constexpr int D = Cfg::D;
  static constexpr int kBlockM = Cfg::kBlockM;
  static constexpr int kBlockN = Cfg::kBlockN;
  static constexpr int kThreadsPerRow = Cfg::kThreads / kBlockM;
  static_assert(kThreadsPerRow >= 1 && kThreadsPerRow <= 32 && (kThreadsPerRow & (kThreadsPerRow - 1)) == 0,
                "a row's threads are a power of two within one warp");
  static_assert(kBlockN % kThreadsPerRow == 0 && D % kThreadsPerRow == 0, "rows split evenly");
  static constexpr int kKeysPerThread = kBlockN / kThreadsPerRow;
  static constexpr int kColsPerThread = D / kThreadsPerRow;
  static constexpr int kScratchBytes = kBlockM * kBlockN * 4;  // the probability rows

  float o[kColsPerThread];
  float row_max = -CUDART_INF_F;
  float row_sum = 0.0f;
  const T* q_smem;
  float* p_smem;
  int row_local, part;

  __device__ __forceinline__ ScalarMainloop()
      : row_local(threadIdx.x / kThreadsPerRow), part(threadIdx.x % kThreadsPerRow) {
#pragma unroll
    for (int i = 0; i < kColsPerThread; ++i) o[i] = 0.0f;
  }

  __device__ __forceinline__ void set_scratch(void* scratch) { p_smem = static_cast<float*>(scratch); }
  __device__ __forceinline__ void load_q(const T* smem) { q_smem = smem; }

  // Reduces over the kThreadsPerRow consecutive lanes that share a row.
  template <typename Op>
  __device__ __forceinline__ float row_reduce(float x, Op op) const {
#pragma unroll
    for (int offset = kThreadsPerRow / 2; offset > 0; offset /= 2) x = op(x, __shfl_xor_sync(0xffffffffu, x, offset));
    return x;
  }

  using Tile = typename Cfg::Tile;

  template <bool kMasked>
  __device__ __forceinline__ void compute_block(const T* k_smem, const T* v_smem, int n0, const Tile& w,
                                                const AttentionParams& p) {
    const float scale_log2 = p.softmax_scale * kLog2e;
    const int query = w.query(row_local);
    float s[kKeysPerThread];
    float block_max = -CUDART_INF_F;
#pragma unroll
    for (int i = 0; i < kKeysPerThread; ++i) {
      const int key = part + i * kThreadsPerRow;
      float dot = 0.0f;
#pragma unroll 8
      for (int c = 0; c < D; ++c) {
        dot += Element<T>::to_float(q_smem[Layout::offset(row_local, c)]) *
               Element<T>::to_float(k_smem[Layout::offset(key, c)]);
      }
      float x = dot * scale_log2;
      if (kMasked && !key_visible<Cfg::kCausal>(query, n0 + key, p.skv, w.diagonal)) x = -CUDART_INF_F;
      s[i] = x;
      block_max = fmaxf(block_max, x);
    }
    block_max = row_reduce(block_max, [](float a, float b) { return fmaxf(a, b); });
    if constexpr (Cfg::kFullBarrier) __syncthreads();

    // The scores are already scaled (x = dot * scale * log2 e), so the max update's scale is 1.
    const auto [reference, correction] = raise_max(row_max, block_max, 1.0f);
    row_sum *= correction;
#pragma unroll
    for (int i = 0; i < kColsPerThread; ++i) o[i] *= correction;
#pragma unroll
    for (int i = 0; i < kKeysPerThread; ++i) {
      const float prob = exp2f(s[i] - reference);
      row_sum += prob;
      p_smem[row_local * kBlockN + part + i * kThreadsPerRow] = prob;
    }
    // The row's threads are in one warp: a warp barrier publishes the probabilities among them.
    if constexpr (Cfg::kFullBarrier) {
      __syncthreads();
    } else {
      __syncwarp();
    }

#pragma unroll
    for (int i = 0; i < kColsPerThread; ++i) {
      const int col = part + i * kThreadsPerRow;
      float acc = 0.0f;
#pragma unroll 8
      for (int key = 0; key < kBlockN; ++key) {
        acc += p_smem[row_local * kBlockN + key] * Element<T>::to_float(v_smem[Layout::offset(key, col)]);
      }
      o[i] += acc;
    }
    // The next block overwrites the probability rows.
    if constexpr (Cfg::kFullBarrier) {
      __syncthreads();
    } else {
      __syncwarp();
    }
  }

  // AnyTile: the work tile, possibly with its split count fixed at compile time (attention.cuh).
  template <class AnyTile>
  __device__ __forceinline__ void epilogue(const AnyTile& w, const AttentionParams& p, void* /*reusable_smem*/) {
    const float sum = row_reduce(row_sum, [](float a, float b) { return a + b; });
    const float inverse = sum > 0.0f ? 1.0f / sum : 0.0f;
    const OutputRow row = w.output_row(row_local, p);
    if (!row.valid()) return;
#pragma unroll
    for (int i = 0; i < kColsPerThread; ++i)
      store_output<T, D>(w, p, row, part + i * kThreadsPerRow, o[i] * inverse);
    if (part == 0) store_lse(w, p, row, finish_lse(row_max, sum));
  }
};

}  // namespace evotune_attention
