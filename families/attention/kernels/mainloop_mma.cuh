#pragma once
// Tensor-core mainloop: mma.sync m16n8k16 (fp32 accumulate) with ldmatrix operand loads.
// The warps form (warps / kv_warps) row groups x kv_warps key groups: a warp owns kWarpRows query rows
// (one or two 16-row MMA tiles) and, of each K/V block, kWarpKeys = block_n / kv_warps keys, with its own
// online softmax over them. Key groups exist for tiles with few rows (decode): every warp then has work,
// and the epilogue merges the key groups' row statistics and outputs through shared memory, with the
// same rule as the split-KV combine. S = Q.K^T and
// the running O live in registers in the MMA accumulator layout; the probabilities P are converted to
// 16-bit in registers and reused directly as the A operand of P.V (the C layout of two adjacent n8
// tiles is the A layout of one k16 tile), so S and P never touch shared memory.
#include "attention/common.cuh"
#include "attention/softmax.cuh"

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
  static constexpr int kKvWarps = Cfg::kKvWarps;
  static constexpr int kRowWarps = Cfg::kWarps / kKvWarps;
  static constexpr int kWarpRows = Cfg::kBlockM / kRowWarps;
  static constexpr int kWarpKeys = kBlockN / kKvWarps;
  static constexpr int kMTiles = kWarpRows / 16;
  static constexpr int kNTiles = kWarpKeys / 8;
  static constexpr int kDTiles = D / 8;
  static constexpr int kKSteps = D / 16;
  // Q's fragments (D/16 x 4 registers per 16-row tile) either stay in registers for the whole loop, or
  // are re-read from shared memory with ldmatrix for every K/V block, freeing those registers for
  // occupancy. The family allows registers only with one 16-row tile per warp.
  static constexpr bool kQInRegisters = Cfg::kQInRegisters;
  static_assert(!kQInRegisters || kMTiles == 1, "Q fragments in registers need one 16-row tile per warp");
  static_assert(kWarpRows % 16 == 0 && (kMTiles == 1 || kMTiles == 2), "a warp owns 16 or 32 rows");
  static_assert(Cfg::kWarps % kKvWarps == 0 && kWarpKeys % 16 == 0 && D % 16 == 0, "MMA tiles are 16 wide");
  static constexpr int kScratchBytes = 0;

  float o[kMTiles][kDTiles][4];
  float row_max[kMTiles][2];  // of the raw (unscaled) scores
  float row_sum[kMTiles][2];  // this thread's partial sums; reduced over the quad at the end
  unsigned q_frag[kQInRegisters ? kKSteps : 1][4];
  const T* q_smem;
  int row_warp, key_warp, lane;  // this warp's row group and key group

  __device__ __forceinline__ MmaMainloop()
      : row_warp(threadIdx.x / 32 / kKvWarps), key_warp(threadIdx.x / 32 % kKvWarps), lane(threadIdx.x % 32) {
#pragma unroll
    for (int mt = 0; mt < kMTiles; ++mt) {
#pragma unroll
      for (int dt = 0; dt < kDTiles; ++dt) o[mt][dt][0] = o[mt][dt][1] = o[mt][dt][2] = o[mt][dt][3] = 0.0f;
      row_max[mt][0] = row_max[mt][1] = -CUDART_INF_F;
      row_sum[mt][0] = row_sum[mt][1] = 0.0f;
    }
  }

  __device__ __forceinline__ const T* q_fragment_address(int mt, int kk) const {
    return q_smem + Layout::offset(row_warp * kWarpRows + mt * 16 + (lane & 15), kk * 16 + (lane >> 4) * 8);
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
        ldmatrix_x4(b,
                    k_smem + Layout::offset(key_warp * kWarpKeys + np * 16 + (lane & 7) + ((lane >> 4) << 3),
                                            kk * 16 + ((lane >> 3) & 1) * 8));
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

  using Tile = typename Cfg::Tile;

  template <bool kMasked>
  __device__ __forceinline__ void compute_block(const T* k_smem, const T* v_smem, int n0, const Tile& w,
                                                const AttentionParams& p) {
    Scores s;
    compute_scores(s, k_smem);
    if constexpr (Cfg::kFullBarrier) __syncthreads();
    softmax_and_pv<kMasked>(s, v_smem, n0, w, p);
  }

  // The online-softmax update with block scores s (softmax.cuh), then O += P.V.
  template <bool kMasked>
  __device__ __forceinline__ void softmax_and_pv(Scores& s, const T* v_smem, int n0, const Tile& w,
                                                 const AttentionParams& p) {
    const float scale_log2 = p.softmax_scale * kLog2e;
#pragma unroll
    for (int mt = 0; mt < kMTiles; ++mt) {
      float correction[2];
      online_softmax<kMasked, Cfg::kCausal, false>(s[mt], row_max[mt], row_sum[mt], correction, scale_log2, w,
                                                   row_warp * kWarpRows + mt * 16 + (lane >> 2),
                                                   n0 + key_warp * kWarpKeys, p.skv, lane);
      rescale_output(o[mt], correction);
    }
    if constexpr (Cfg::kFullBarrier) __syncthreads();

    // O += P.V, P from registers.
#pragma unroll
    for (int kc = 0; kc < kWarpKeys / 16; ++kc) {
      unsigned a[kMTiles][4];
#pragma unroll
      for (int mt = 0; mt < kMTiles; ++mt) probabilities_as_a<T>(a[mt], s[mt], kc);
#pragma unroll
      for (int dp = 0; dp < kDTiles / 2; ++dp) {
        unsigned b[4];
        ldmatrix_x4_trans(
            b, v_smem + Layout::offset(key_warp * kWarpKeys + kc * 16 + (lane & 7) + ((lane >> 3) & 1) * 8,
                                       dp * 16 + (lane >> 4) * 8));
#pragma unroll
        for (int mt = 0; mt < kMTiles; ++mt) {
          mma_16816<T>(o[mt][2 * dp], a[mt], b[0], b[1]);
          mma_16816<T>(o[mt][2 * dp + 1], a[mt], b[2], b[3]);
        }
      }
    }
    if constexpr (Cfg::kFullBarrier) __syncthreads();
  }

  // Shared memory the key groups' merge needs (floats per lane: O, then max and sum per row half), in
  // the K/V buffers, which the pipeline hands over once every warp is done with them.
  static constexpr int kMergeFloats = kMTiles * kDTiles * 4 + kMTiles * 4;
  static constexpr int kMergeBytes = (kKvWarps - 1) * kRowWarps * kMergeFloats * 32 * 4;
  static_assert(kMergeBytes <= 2 * Cfg::kStages * Layout::elements(kBlockN) * 2,
                "the key groups' merge fits in the K/V buffers (the host rule, attention_family.cpp)");

  // Key groups 1.. hand their row max, partial sums and O to key group 0 of their row group, which
  // rescales both to the larger max and adds (split_kv.h's combine rule, on unnormalized rows). The
  // warps of a row group share the accumulator layout, so a lane's values go to the same lane: stored
  // lane-minor, no bank conflicts.
  __device__ __forceinline__ bool merge_key_groups(const AttentionParams& p, void* reusable_smem) {
    float* slots = static_cast<float*>(reusable_smem);
    auto slot = [&](int group) {
      return slots + (row_warp * (kKvWarps - 1) + group - 1) * kMergeFloats * 32 + lane;
    };
    if (key_warp > 0) {
      float* mine = slot(key_warp);
      int i = 0;
#pragma unroll
      for (int mt = 0; mt < kMTiles; ++mt) {
#pragma unroll
        for (int dt = 0; dt < kDTiles; ++dt) {
#pragma unroll
          for (int e = 0; e < 4; ++e) mine[(i++) * 32] = o[mt][dt][e];
        }
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          mine[(i++) * 32] = row_max[mt][h];
          mine[(i++) * 32] = row_sum[mt][h];
        }
      }
    }
    __syncthreads();
    if (key_warp > 0) return false;
    const float scale_log2 = p.softmax_scale * kLog2e;
#pragma unroll 1
    for (int group = 1; group < kKvWarps; ++group) {
      const float* theirs = slot(group);
#pragma unroll
      for (int mt = 0; mt < kMTiles; ++mt) {
        const int base = mt * (kDTiles * 4 + 4);
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const float their_max = theirs[(base + kDTiles * 4 + 2 * h) * 32];
          const float their_sum = theirs[(base + kDTiles * 4 + 2 * h + 1) * 32];
          const float new_max = fmaxf(row_max[mt][h], their_max);
          const float reference = new_max == -CUDART_INF_F ? 0.0f : new_max * scale_log2;
          const float mine_scale = exp2f(row_max[mt][h] * scale_log2 - reference);
          const float their_scale = exp2f(their_max * scale_log2 - reference);
          row_sum[mt][h] = row_sum[mt][h] * mine_scale + their_sum * their_scale;
          row_max[mt][h] = new_max;
#pragma unroll
          for (int dt = 0; dt < kDTiles; ++dt) {
#pragma unroll
            for (int e = 0; e < 2; ++e) {
              o[mt][dt][2 * h + e] =
                  o[mt][dt][2 * h + e] * mine_scale + theirs[(base + dt * 4 + 2 * h + e) * 32] * their_scale;
            }
          }
        }
      }
    }
    return true;
  }

  // Rows normalized by their softmax sum, written through common.cuh (to O, or to the split workspace).
  // reusable_smem: the K/V buffers, free once the pipeline calls this.
  // AnyTile: the work tile, possibly with its split count fixed at compile time (attention.cuh).
  template <class AnyTile>
  __device__ __forceinline__ void epilogue(const AnyTile& w, const AttentionParams& p, void* reusable_smem) {
    if constexpr (kKvWarps > 1) {
      if (!merge_key_groups(p, reusable_smem)) return;  // this warp's keys are in key group 0's rows now
    }
#pragma unroll
    for (int mt = 0; mt < kMTiles; ++mt)
      store_rows<T, D>(w, p, o[mt], row_max[mt], row_sum[mt], row_warp * kWarpRows + mt * 16 + (lane >> 2), lane);
  }
};

}  // namespace evotune_attention
