#pragma once
// The online softmax and the epilogue's row writes, once for every tensor-core mainloop (mma.sync and
// wgmma). Both hold scores and outputs in the same register layout: a thread owns two rows, r and r + 8 of
// a 16-row tile (r = lane / 4 within it), and of each 8-column tile n the columns 2c and 2c + 1
// (c = lane % 4): x[n][0..1] are row r's, x[n][2..3] row r + 8's. That is mma.sync's m16n8 accumulator,
// and each warp's 16 rows of a wgmma m64nN accumulator. A row's four owners are one quad of lanes.
#include "attention/common.cuh"

namespace evotune_attention {

// The running max of a row meets a block's max: the new max is kept (in the scores' own units), and the
// exp2 argument offset of the block's probabilities (`reference`, scale * log2(e) * max) and the factor
// for what was accumulated before (`correction`) are returned. A row that has seen only masked keys keeps
// max -inf; its reference is 0 instead, so exp2 gives 0 rather than NaN (-inf - -inf). Every mainloop's
// softmax goes through here (the scalar one too, with its own register layout).
// kLazy: `row_max` is the row's reference, not its max: it moves only when a block's max exceeds it by more
// than a margin of 8 (log2 units), so the probabilities stay below 2^8 = 256 (exact in fp32, fp16 and bf16
// alike: the softmax is the same for any reference) and the output is rescaled only then, not each time
// the max creeps up (with random scores, nearly every block of a short tile; FlashAttention-4 does the same
// on Blackwell). The LSE and the split merges read the reference, which is what the sums are relative to.
// (The margin is a literal: a namespace-scope constant is emitted into the CUBIN under a symbol NVRTC names
// per process, and an exported CUBIN must be the same bytes from every compile.)
struct MaxUpdate {
  float reference, correction;
};
template <bool kLazy = false>
__device__ __forceinline__ MaxUpdate raise_max(float& row_max, float block_max, float scale_log2) {
  if constexpr (kLazy) {
    // -inf + margin is -inf: a row's first block with a visible key always sets the reference.
    const bool raise = block_max * scale_log2 > fmaf(row_max, scale_log2, 8.0f);
    const float new_max = raise ? block_max : row_max;
    const float reference = new_max == -CUDART_INF_F ? 0.0f : new_max * scale_log2;
    const MaxUpdate update{reference, raise ? exp2f(row_max * scale_log2 - reference) : 1.0f};
    row_max = new_max;
    return update;
  } else {
    const float new_max = fmaxf(row_max, block_max);
    const float reference = new_max == -CUDART_INF_F ? 0.0f : new_max * scale_log2;
    const MaxUpdate update{reference, exp2f(row_max * scale_log2 - reference)};
    row_max = new_max;
    return update;
  }
}

// One K/V block's update of the running softmax of the thread's two rows: masks (kMasked: keys past skv,
// and with kCausal keys right of the diagonal, get -inf), raises the running max, turns the scores `s`
// into probabilities exp(scale * (s - max)) in place, adds them to the running sums, and returns in
// `correction` the factor each row's output accumulated so far must be multiplied by (exactly 1 once the
// max has settled, and with kLazyRescale while it stays within the margin of the reference). The max is kept on the raw scores (the scale is positive, so it commutes with the max);
// one FFMA per element then forms scale*log2(e)*(s - max) for exp2. Reductions run as a tree of four
// partial results: a serial chain over a row's values is latency the tensor pipe waits through.
// kFromFirst: the partial results start from tiles 0 and 1's values rather than from -inf and 0 (max(x, -inf)
// and 0 + x are instructions the compiler may not drop, as 0 + -0 is +0: eight of each per row and block);
// the results are the same bits. Only where the softmax is on the loop's critical path: the wgmma loop
// without overlap gained 1.5% by it (b8 hq16 s768 d64), the overlapped one lost 3.3-3.9%, its softmax
// running beside the P.V wgmma (evidence/results/h100/hopper/probe/call40).
//   local_row: the tile row of x[.][0] (row r); first_key: the key of column 0 of tile 0.
template <bool kMasked, bool kCausal, bool kLazyRescale, bool kFromFirst = false, int kNTiles, class Tile>
__device__ __forceinline__ void online_softmax(float (&s)[kNTiles][4], float (&row_max)[2], float (&row_sum)[2],
                                               float (&correction)[2], float scale_log2, const Tile& w,
                                               int local_row, int first_key, int skv, int lane) {
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    if constexpr (kMasked) {
      // key_visible's rule as one bound per row: the row sees keys below min(skv, query + diagonal + 1), so
      // element (nt, e), key first_key + (lane % 4) * 2 + nt * 8 + e, is masked from a column limit on; the
      // compare is then against a constant per element.
      const int query = w.query(local_row + h * 8);
      const int visible_end = kCausal ? min(skv, query + w.diagonal + 1) : skv;
      const int limit = visible_end - first_key - (lane & 3) * 2;
#pragma unroll
      for (int nt = 0; nt < kNTiles; ++nt) {
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          if (nt * 8 + e >= limit) s[nt][2 * h + e] = -CUDART_INF_F;
        }
      }
    }
    static_assert(!kFromFirst || kNTiles >= 2, "the partial results start from tiles 0 and 1");
    float partial_max[4] = {-CUDART_INF_F, -CUDART_INF_F, -CUDART_INF_F, -CUDART_INF_F};
#pragma unroll
    for (int nt = 0; nt < kNTiles; ++nt) {
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        float& partial = partial_max[nt % 2 * 2 + e];
        partial = kFromFirst && nt < 2 ? s[nt][2 * h + e] : fmaxf(partial, s[nt][2 * h + e]);
      }
    }
    float block_max = fmaxf(fmaxf(partial_max[0], partial_max[1]), fmaxf(partial_max[2], partial_max[3]));
    block_max = fmaxf(block_max, __shfl_xor_sync(0xffffffffu, block_max, 1));
    block_max = fmaxf(block_max, __shfl_xor_sync(0xffffffffu, block_max, 2));
    const MaxUpdate update = raise_max<kLazyRescale>(row_max[h], block_max, scale_log2);
    const float reference = update.reference;
    correction[h] = update.correction;
    float partial_sum[4] = {0.0f, 0.0f, 0.0f, 0.0f};
#pragma unroll
    for (int nt = 0; nt < kNTiles; ++nt) {
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        const float prob = exp2f(fmaf(s[nt][2 * h + e], scale_log2, -reference));
        s[nt][2 * h + e] = prob;
        float& partial = partial_sum[nt % 2 * 2 + e];
        partial = kFromFirst && nt < 2 ? prob : partial + prob;
      }
    }
    row_sum[h] = row_sum[h] * correction[h] + ((partial_sum[0] + partial_sum[1]) + (partial_sum[2] + partial_sum[3]));
  }
}

// Multiplies the output accumulated so far by the rows' corrections. Once the max has settled the
// corrections are exactly 1 for the whole warp, and the multiplies are skipped.
template <int kDTiles>
__device__ __forceinline__ void rescale_output(float (&o)[kDTiles][4], const float (&correction)[2]) {
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    if (!__all_sync(0xffffffffu, correction[h] == 1.0f)) {
#pragma unroll
      for (int dt = 0; dt < kDTiles; ++dt) {
        o[dt][2 * h] *= correction[h];
        o[dt][2 * h + 1] *= correction[h];
      }
    }
  }
}

// The probabilities of key columns [16 kc, 16 kc + 16) as the 16-bit A operand of P.V (mma.sync m16n8k16,
// or wgmma from registers): the accumulator layout of two adjacent 8-column tiles is the A layout of one
// 16-wide k step.
template <typename T, int kNTiles>
__device__ __forceinline__ void probabilities_as_a(unsigned (&a)[4], const float (&s)[kNTiles][4], int kc) {
  a[0] = pair_bits(Element<T>::pack(s[2 * kc][0], s[2 * kc][1]));
  a[1] = pair_bits(Element<T>::pack(s[2 * kc][2], s[2 * kc][3]));
  a[2] = pair_bits(Element<T>::pack(s[2 * kc + 1][0], s[2 * kc + 1][1]));
  a[3] = pair_bits(Element<T>::pack(s[2 * kc + 1][2], s[2 * kc + 1][3]));
}

// The end of a row: its softmax sum, reduced over the row's quad of lanes, and what normalizes it (0 for a
// row that saw no key); the LSE it writes comes from the same sum and the running max (finish_lse).
struct RowTotal {
  float sum, inverse;
};
__device__ __forceinline__ RowTotal row_total(float partial_sum) {
  float sum = partial_sum;
  sum += __shfl_xor_sync(0xffffffffu, sum, 1);
  sum += __shfl_xor_sync(0xffffffffu, sum, 2);
  return RowTotal{sum, sum > 0.0f ? 1.0f / sum : 0.0f};
}
__device__ __forceinline__ float row_lse(float row_max, float sum, const AttentionParams& p) {
  return finish_lse(row_max * p.softmax_scale * kLog2e, sum);
}

// The epilogue of the thread's two rows: sums reduced over the quad, rows normalized and written through
// common.cuh (to O, or to the split workspace when the tile is one chunk of a split), with their LSE.
template <typename T, int D, class Tile>
__device__ __forceinline__ void store_rows(const Tile& w, const AttentionParams& p, const float (&o)[D / 8][4],
                                           const float (&row_max)[2], const float (&row_sum)[2], int local_row,
                                           int lane) {
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const RowTotal total = row_total(row_sum[h]);
    const OutputRow row = w.output_row(local_row + h * 8, p);
    if (row.valid()) {
#pragma unroll
      for (int dt = 0; dt < D / 8; ++dt) {
        store_output_pair<T, D>(w, p, row, dt * 8 + (lane & 3) * 2, o[dt][2 * h] * total.inverse,
                                o[dt][2 * h + 1] * total.inverse);
      }
      if ((lane & 3) == 0) store_lse(w, p, row, row_lse(row_max[h], total.sum, p));
    }
  }
}

}  // namespace evotune_attention
