#pragma once
// The merge of a split-KV launch (combine=kernel: a second kernel; combine=last_cta: the tile's last CTA):
// merges each row's chunks (fp32 partial outputs, each
// normalized by its chunk's own softmax sum, and their LSEs) into O and the LSE, weighing chunk s by
// exp(lse_s - lse) (split_kv.h). One warp per row: lanes spread over the chunks for the LSE reductions
// and over the head dim (D / 32 consecutive fp32 columns each, one or two vector loads) for the sum. The same
// for every mainloop: every mainloop writes its partials through common.cuh's store functions.
#include "attention/common.cuh"

namespace evotune_attention {

inline constexpr int kCombineThreads = 128;  // rows per CTA: kCombineThreads / 32 (inline: common.cuh's kLog2e)

// A lane's D / 32 fp32 columns: one vector load (d=64, 128), or two (d=256).
template <int kCols>
struct ColumnVector;
template <>
struct ColumnVector<2> {
  using type = float2;
};
template <>
struct ColumnVector<4> {
  using type = float4;
};
template <>
struct ColumnVector<8> {
  struct type {
    float4 low, high;
  };
};
template <int kCols>
__device__ __forceinline__ typename ColumnVector<kCols>::type load_columns(const float* at) {
  if constexpr (kCols == 8) {
    const float4* halves = reinterpret_cast<const float4*>(at);
    return {__ldcg(halves), __ldcg(halves + 1)};
  } else {
    return __ldcg(reinterpret_cast<const typename ColumnVector<kCols>::type*>(at));
  }
}

// Merges one row's chunks into O and the LSE; a whole warp calls it (the shuffles need all 32 lanes).
// The partials are read through L2 (ld.cg): with combine=last_cta they were written moments ago by other
// CTAs, and this SM's L1 must not answer for them.
//
// A decode call is short, and this merge sits at the end of its critical path, so it is written for
// latency: L2 round trips, not bytes, are its cost. Lane l reads chunk l's LSE once (chunks l + 32, ...
// too when there are more than 32), the max and the sum reduce across lanes, and each lane keeps its
// chunk's weight; the accumulation then takes each chunk's weight from its lane by a shuffle and issues
// kInFlight chunks' partial loads before it uses any of them. A loop that re-read each chunk's LSE before
// its partial would pay two dependent round trips per chunk.
template <typename T, int D>
__device__ __forceinline__ void combine_row(const AttentionParams& p, const OutputRow& out_row, int lane) {
  static_assert(D == 64 || D == 128 || D == 256, "a lane holds D / 32 columns in one or two vectors");
  constexpr int kCols = D / 32;
  using Vec = typename ColumnVector<kCols>::type;
  constexpr int kInFlight = 8;
  const long long rows = static_cast<long long>(p.b) * p.hq * p.sq;
  const int splits = p.splits;
  const long long row = out_row.index;
  const float* lse = p.partial_lse + row;

  const float first_lse = lane < splits ? __ldcg(lse + lane * rows) : -CUDART_INF_F;
  float max_lse = first_lse;
  for (int s = lane + 32; s < splits; s += 32) max_lse = fmaxf(max_lse, __ldcg(lse + s * rows));
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2)
    max_lse = fmaxf(max_lse, __shfl_xor_sync(0xffffffffu, max_lse, offset));
  const float first_weight = evotune_split::combine_weight(first_lse, max_lse);  // 0 past the last chunk
  float sum = first_weight;
  for (int s = lane + 32; s < splits; s += 32) sum += evotune_split::combine_weight(__ldcg(lse + s * rows), max_lse);
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, offset);
  const float inverse = sum > 0.0f ? 1.0f / sum : 0.0f;

  float acc[kCols];
#pragma unroll
  for (int c = 0; c < kCols; ++c) acc[c] = 0.0f;
  const float* partial = p.partial_o + row * D + lane * kCols;
  for (int base = 0; base < splits; base += 32) {
    // This lane's weight is chunk base + lane's; every chunk was written (an empty one as zeros, LSE -inf,
    // weight 0), so any chunk below `splits` may be read.
    const float mine = base == 0 ? first_weight * inverse
                       : base + lane < splits
                           ? evotune_split::combine_weight(__ldcg(lse + (base + lane) * rows), max_lse) * inverse
                           : 0.0f;
    const int count = min(32, splits - base);
    for (int i = 0; i < count; i += kInFlight) {
      Vec x[kInFlight];
#pragma unroll
      for (int k = 0; k < kInFlight; ++k) {
        if (i + k < count) x[k] = load_columns<kCols>(partial + (base + i + k) * rows * D);
      }
#pragma unroll
      for (int k = 0; k < kInFlight; ++k) {
        const float weight = __shfl_sync(0xffffffffu, mine, (i + k) & 31);
        if (i + k < count) {
          const float* v = reinterpret_cast<const float*>(&x[k]);
#pragma unroll
          for (int c = 0; c < kCols; ++c) acc[c] += weight * v[c];
        }
      }
    }
  }
  T* out = static_cast<T*>(p.o) + out_row.o + lane * kCols;
#pragma unroll
  for (int c = 0; c < kCols; c += 2) {
    *reinterpret_cast<typename Element<T>::Pair*>(out + c) = Element<T>::pack(acc[c], acc[c + 1]);
  }
  if (p.lse != nullptr && lane == 0) p.lse[row] = evotune_split::combine_lse(max_lse, sum);
}

// The combine kernel's row `row` (dense (batch * hq + head) * sq + query), with its place in O. In 32-bit
// arithmetic below 2^31 rows (every real case): a 64-bit division is a called subroutine, on the critical path
// of a decode step.
__device__ __forceinline__ OutputRow combine_output_row(const AttentionParams& p, long long row) {
  int query, head, batch;
  if (static_cast<long long>(p.b) * p.hq * p.sq <= 0x7fffffffLL) {
    const unsigned r = static_cast<unsigned>(row), sq = static_cast<unsigned>(p.sq), hq = static_cast<unsigned>(p.hq);
    const unsigned batch_head = r / sq;
    query = static_cast<int>(r - batch_head * sq);
    batch = static_cast<int>(batch_head / hq);
    head = static_cast<int>(batch_head - static_cast<unsigned>(batch) * hq);
  } else {
    const long long batch_head = row / p.sq;
    query = static_cast<int>(row - batch_head * p.sq);
    batch = static_cast<int>(batch_head / p.hq);
    head = static_cast<int>(batch_head - static_cast<long long>(batch) * p.hq);
  }
  return OutputRow{row, row_offset(p.o_strides, batch, head, query)};
}

// combine=last_cta: called by every CTA of a split after its epilogue. The chunk that finishes its tile
// last (a counter per tile, reset by it for the next launch) merges the tile's rows, its warps taking
// rows in turn. Every thread fences its partial writes before the count, so the last CTA sees them all.
template <typename T, int D, int kBlockM, class Tile>
__device__ __forceinline__ void combine_if_last(const Tile& w, const AttentionParams& p) {
  __threadfence();
  __syncthreads();  // every thread's partials are out before the tile is counted
  unsigned done = 0;
  const unsigned counter = (blockIdx.z * gridDim.y + blockIdx.y) * (gridDim.x / w.splits) + w.tile;
  if (threadIdx.x == 0) {
    done = atomicAdd(p.counters + counter, 1u);
    if (done == static_cast<unsigned>(w.splits) - 1)
      p.counters[counter] = 0;  // ready for the next launch
  }
  if (!__syncthreads_or(threadIdx.x == 0 && done == static_cast<unsigned>(w.splits) - 1)) return;
  __threadfence();
  const int warps = blockDim.x / 32;
  for (int r = threadIdx.x / 32; r < kBlockM; r += warps) {
    const OutputRow row = w.output_row(r, p);
    if (row.valid()) combine_row<T, D>(p, row, threadIdx.x % 32);
  }
}

}  // namespace evotune_attention

// The combine kernel of a module that may split: one per module, with C linkage, so that every loader
// (the search's workers, bench, the launcher) finds it by the fixed name `attention_combine` without a
// lowered name to carry around. The compile request appends this macro with the problem's type and
// head dim only for configs that can split (attention_family.cpp).
//
// On sm_90+ the harness and the launcher launch it as a programmatic dependent launch (it may start while the
// attention kernel still runs): griddepcontrol.wait holds it until that grid has finished and its partials
// are visible. Launched plainly, the wait returns at once.
#if __CUDA_ARCH__ >= 900
#define EVOTUNE_WAIT_FOR_PREVIOUS_GRID() asm volatile("griddepcontrol.wait;" ::: "memory")
#else
#define EVOTUNE_WAIT_FOR_PREVIOUS_GRID() \
  do {                                   \
  } while (0)
#endif
#define EVOTUNE_ATTENTION_COMBINE(T, D)                                                                  \
  extern "C" __global__ void __launch_bounds__(evotune_attention::kCombineThreads)                       \
      attention_combine(const __grid_constant__ AttentionParams p) {                                     \
    EVOTUNE_WAIT_FOR_PREVIOUS_GRID();                                                                    \
    const long long row = static_cast<long long>(blockIdx.x) * (blockDim.x / 32) + threadIdx.x / 32;     \
    if (row < static_cast<long long>(p.b) * p.hq * p.sq) {                                               \
      evotune_attention::combine_row<T, D>(p, evotune_attention::combine_output_row(p, row), threadIdx.x % 32); \
    }                                                                                                    \
  }
