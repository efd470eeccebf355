#pragma once
// Tensor-core mainloop: mma.sync m16n8k16 (fp32 accumulate) with ldmatrix operand loads.
// Each warp owns kWarpRows = block_m / warps query rows (one or two 16-row MMA tiles). S = Q.K^T and
// the running O live in registers in the MMA accumulator layout; the probabilities P are converted to
// 16-bit in registers and reused directly as the A operand of P.V (the C layout of two adjacent n8
// tiles is the A layout of one k16 tile), so S and P never touch shared memory.
#include "attention/common.cuh"

namespace evotune_attention {

template <typename T>
__device__ __forceinline__ void mma_16816(float (&c)[4], const unsigned (&a)[4], unsigned b0, unsigned b1);

template <>
__device__ __forceinline__ void mma_16816<__half>(float (&c)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
      : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

template <>
__device__ __forceinline__ void mma_16816<__nv_bfloat16>(float (&c)[4], const unsigned (&a)[4], unsigned b0,
                                                         unsigned b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
      : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

__device__ __forceinline__ void ldmatrix_x4(unsigned (&r)[4], const void* smem) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(smem_address(smem)));
}

__device__ __forceinline__ void ldmatrix_x4_trans(unsigned (&r)[4], const void* smem) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(smem_address(smem)));
}

template <class Cfg>
struct MmaMainloop {
  using T = typename Cfg::T;
  using Layout = typename Cfg::Layout;
  static constexpr int D = Cfg::D;
  static constexpr int kBlockN = Cfg::kBlockN;
  static constexpr int kWarpRows = Cfg::kBlockM / Cfg::kWarps;
  static constexpr int kMTiles = kWarpRows / 16;
  static constexpr int kNTiles = kBlockN / 8;
  static constexpr int kDTiles = D / 8;
  static constexpr int kKSteps = D / 16;
  // Q's fragments (D/16 x 4 registers per 16-row tile) either stay in registers for the whole loop, or
  // are re-read from shared memory with ldmatrix for every K/V block, freeing those registers for
  // occupancy. The family allows registers only with one 16-row tile per warp.
  static constexpr bool kQInRegisters = Cfg::kQInRegisters;
  static_assert(!kQInRegisters || kMTiles == 1, "Q fragments in registers need one 16-row tile per warp");
  static_assert(kWarpRows % 16 == 0 && (kMTiles == 1 || kMTiles == 2), "a warp owns 16 or 32 rows");
  static_assert(kBlockN % 16 == 0 && D % 16 == 0, "MMA tiles are 16 wide");
  static constexpr int kScratchBytes = 0;

  float o[kMTiles][kDTiles][4];
  float row_max[kMTiles][2];  // of the raw (unscaled) scores
  float row_sum[kMTiles][2];  // this thread's partial sums; reduced over the quad at the end
  unsigned q_frag[kQInRegisters ? kKSteps : 1][4];
  const T* q_smem;
  int warp, lane;

  __device__ __forceinline__ MmaMainloop() : warp(threadIdx.x / 32), lane(threadIdx.x % 32) {
#pragma unroll
    for (int mt = 0; mt < kMTiles; ++mt) {
#pragma unroll
      for (int dt = 0; dt < kDTiles; ++dt) o[mt][dt][0] = o[mt][dt][1] = o[mt][dt][2] = o[mt][dt][3] = 0.0f;
      row_max[mt][0] = row_max[mt][1] = -CUDART_INF_F;
      row_sum[mt][0] = row_sum[mt][1] = 0.0f;
    }
  }

  __device__ __forceinline__ const T* q_fragment_address(int mt, int kk) const {
    return q_smem + Layout::offset(warp * kWarpRows + mt * 16 + (lane & 15), kk * 16 + (lane >> 4) * 8);
  }

  __device__ __forceinline__ void load_q(const T* smem) {
    q_smem = smem;
    if constexpr (kQInRegisters) {
#pragma unroll
      for (int kk = 0; kk < kKSteps; ++kk) ldmatrix_x4(q_frag[kk], q_fragment_address(0, kk));
    }
  }

  using Scores = float[kMTiles][kNTiles][4];

  // S = Q.K^T for one K block. With Cfg::kQkSplit == 2 the head-dim reduction alternates between two
  // accumulator sets (even and odd 16-wide steps), summed at the end: twice the independent HMMA
  // chains at half the length, for when too few warps per scheduler leave HMMA latency exposed.
  __device__ __forceinline__ void compute_scores(Scores& s, const T* k_smem) const {
    constexpr int kSets = Cfg::kQkSplit;
    float acc[kSets][kMTiles][kNTiles][4];
#pragma unroll
    for (int set = 0; set < kSets; ++set) {
#pragma unroll
      for (int mt = 0; mt < kMTiles; ++mt) {
#pragma unroll
        for (int nt = 0; nt < kNTiles; ++nt) {
          acc[set][mt][nt][0] = acc[set][mt][nt][1] = acc[set][mt][nt][2] = acc[set][mt][nt][3] = 0.0f;
        }
      }
    }
#pragma unroll
    for (int kk = 0; kk < kKSteps; ++kk) {
      const int set = kk % kSets;
      unsigned a[kMTiles][4];
#pragma unroll
      for (int mt = 0; mt < kMTiles; ++mt) {
        if constexpr (kQInRegisters) {
#pragma unroll
          for (int i = 0; i < 4; ++i) a[mt][i] = q_frag[kk][i];
        } else {
          ldmatrix_x4(a[mt], q_fragment_address(mt, kk));
        }
      }
#pragma unroll
      for (int np = 0; np < kNTiles / 2; ++np) {
        unsigned b[4];
        ldmatrix_x4(b, k_smem + Layout::offset(np * 16 + (lane & 7) + ((lane >> 4) << 3), kk * 16 + ((lane >> 3) & 1) * 8));
#pragma unroll
        for (int mt = 0; mt < kMTiles; ++mt) {
          mma_16816<T>(acc[set][mt][2 * np], a[mt], b[0], b[1]);
          mma_16816<T>(acc[set][mt][2 * np + 1], a[mt], b[2], b[3]);
        }
      }
    }
#pragma unroll
    for (int mt = 0; mt < kMTiles; ++mt) {
#pragma unroll
      for (int nt = 0; nt < kNTiles; ++nt) {
#pragma unroll
        for (int i = 0; i < 4; ++i) {
          s[mt][nt][i] = kSets == 1 ? acc[0][mt][nt][i] : acc[0][mt][nt][i] + acc[kSets - 1][mt][nt][i];
        }
      }
    }
  }

  template <bool kMasked>
  __device__ __forceinline__ void compute_block(const T* k_smem, const T* v_smem, int n0, const WorkTile& w,
                                                const AttentionParams& p) {
    Scores s;
    compute_scores(s, k_smem);
    if constexpr (Cfg::kFullBarrier) __syncthreads();
    softmax_and_pv<kMasked>(s, v_smem, n0, w, p);
  }

  // The online-softmax update with block scores s, then O += P.V.
  template <bool kMasked>
  __device__ __forceinline__ void softmax_and_pv(Scores& s, const T* v_smem, int n0, const WorkTile& w,
                                                 const AttentionParams& p) {
    // Online softmax. Thread holds rows (lane/4) and (lane/4 + 8) of each 16-row tile. The running max
    // is kept on the raw scores (the scale is positive, so the max commutes with it); one FFMA per
    // element then forms scale*log2(e)*(s - max) for exp2. Reductions run as a tree of four partial
    // results: a serial chain over a row's 2*kNTiles values is latency the tensor pipe waits through.
    const float scale_log2 = p.softmax_scale * kLog2e;
#pragma unroll
    for (int mt = 0; mt < kMTiles; ++mt) {
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int row = w.m0 + warp * kWarpRows + mt * 16 + (lane >> 2) + h * 8;
        if constexpr (kMasked) {
#pragma unroll
          for (int nt = 0; nt < kNTiles; ++nt) {
#pragma unroll
            for (int e = 0; e < 2; ++e) {
              if (!key_visible<Cfg::kCausal>(row, n0 + nt * 8 + (lane & 3) * 2 + e, p.skv, w.diagonal)) {
                s[mt][nt][2 * h + e] = -CUDART_INF_F;
              }
            }
          }
        }
        float partial_max[4] = {-CUDART_INF_F, -CUDART_INF_F, -CUDART_INF_F, -CUDART_INF_F};
#pragma unroll
        for (int nt = 0; nt < kNTiles; ++nt) {
          partial_max[nt % 2 * 2] = fmaxf(partial_max[nt % 2 * 2], s[mt][nt][2 * h]);
          partial_max[nt % 2 * 2 + 1] = fmaxf(partial_max[nt % 2 * 2 + 1], s[mt][nt][2 * h + 1]);
        }
        float block_max = fmaxf(fmaxf(partial_max[0], partial_max[1]), fmaxf(partial_max[2], partial_max[3]));
        block_max = fmaxf(block_max, __shfl_xor_sync(0xffffffffu, block_max, 1));
        block_max = fmaxf(block_max, __shfl_xor_sync(0xffffffffu, block_max, 2));
        const float new_max = fmaxf(row_max[mt][h], block_max);
        // A row that has seen only masked keys keeps max -inf; subtracting 0 instead keeps exp2 at 0
        // rather than NaN (-inf - -inf).
        const float reference = new_max == -CUDART_INF_F ? 0.0f : new_max * scale_log2;
        const float correction = exp2f(row_max[mt][h] * scale_log2 - reference);
        row_max[mt][h] = new_max;
        // Once the max has settled, corrections are exactly 1 for the whole warp: skip the multiplies.
        if (!__all_sync(0xffffffffu, correction == 1.0f)) {
          row_sum[mt][h] *= correction;
#pragma unroll
          for (int dt = 0; dt < kDTiles; ++dt) {
            o[mt][dt][2 * h] *= correction;
            o[mt][dt][2 * h + 1] *= correction;
          }
        }
        float partial_sum[4] = {0.0f, 0.0f, 0.0f, 0.0f};
#pragma unroll
        for (int nt = 0; nt < kNTiles; ++nt) {
#pragma unroll
          for (int e = 0; e < 2; ++e) {
            const float prob = exp2f(fmaf(s[mt][nt][2 * h + e], scale_log2, -reference));
            s[mt][nt][2 * h + e] = prob;
            partial_sum[nt % 2 * 2 + e] += prob;
          }
        }
        row_sum[mt][h] += (partial_sum[0] + partial_sum[1]) + (partial_sum[2] + partial_sum[3]);
      }
    }
    if constexpr (Cfg::kFullBarrier) __syncthreads();

    // O += P.V, P from registers.
#pragma unroll
    for (int kc = 0; kc < kBlockN / 16; ++kc) {
      unsigned a[kMTiles][4];
#pragma unroll
      for (int mt = 0; mt < kMTiles; ++mt) {
        a[mt][0] = pair_bits(Element<T>::pack(s[mt][2 * kc][0], s[mt][2 * kc][1]));
        a[mt][1] = pair_bits(Element<T>::pack(s[mt][2 * kc][2], s[mt][2 * kc][3]));
        a[mt][2] = pair_bits(Element<T>::pack(s[mt][2 * kc + 1][0], s[mt][2 * kc + 1][1]));
        a[mt][3] = pair_bits(Element<T>::pack(s[mt][2 * kc + 1][2], s[mt][2 * kc + 1][3]));
      }
#pragma unroll
      for (int dp = 0; dp < kDTiles / 2; ++dp) {
        unsigned b[4];
        ldmatrix_x4_trans(b, v_smem + Layout::offset(kc * 16 + (lane & 7) + ((lane >> 3) & 1) * 8, dp * 16 + (lane >> 4) * 8));
#pragma unroll
        for (int mt = 0; mt < kMTiles; ++mt) {
          mma_16816<T>(o[mt][2 * dp], a[mt], b[0], b[1]);
          mma_16816<T>(o[mt][2 * dp + 1], a[mt], b[2], b[3]);
        }
      }
    }
    if constexpr (Cfg::kFullBarrier) __syncthreads();
  }

  __device__ __forceinline__ void epilogue(const WorkTile& w, const AttentionParams& p, void*) {
    T* out = static_cast<T*>(p.o) + (static_cast<long long>(w.batch) * p.hq + w.head) * p.sq * D;
#pragma unroll
    for (int mt = 0; mt < kMTiles; ++mt) {
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        float sum = row_sum[mt][h];
        sum += __shfl_xor_sync(0xffffffffu, sum, 1);
        sum += __shfl_xor_sync(0xffffffffu, sum, 2);
        const float inverse = sum > 0.0f ? 1.0f / sum : 0.0f;
        const int row = w.m0 + warp * kWarpRows + mt * 16 + (lane >> 2) + h * 8;
        if (row < p.sq) {
#pragma unroll
          for (int dt = 0; dt < kDTiles; ++dt) {
            *reinterpret_cast<typename Element<T>::Pair*>(out + static_cast<long long>(row) * D + dt * 8 + (lane & 3) * 2) =
                Element<T>::pack(o[mt][dt][2 * h] * inverse, o[mt][dt][2 * h + 1] * inverse);
          }
          if (p.lse != nullptr && (lane & 3) == 0) {
            p.lse[(static_cast<long long>(w.batch) * p.hq + w.head) * p.sq + row] =
                finish_lse(row_max[mt][h] * p.softmax_scale * kLog2e, sum);
          }
        }
      }
    }
  }
};

}  // namespace evotune_attention
