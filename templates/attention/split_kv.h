#pragma once
// Split-KV (flash-decoding) and packed GQA: the index arithmetic and the combine rule, written once and
// compiled by both compilers: by NVRTC into every attention kernel (whatever its mainloop) and the
// combine kernel, and by the host compiler into the launch planning and the CPU tests that emulate the
// algorithm against the fp64 reference. Only plain arithmetic here, no CUDA types.
//
// Split-KV: the K/V blocks one CTA would visit, [0, n_blocks), are cut into `splits` contiguous chunks of
// ceil(n_blocks / splits) blocks; chunk s is [s * chunk, min((s + 1) * chunk, n_blocks)), possibly empty
// (causal tiles near the top see few blocks). Each chunk's CTA writes its rows' output normalized by its
// own softmax sum, in fp32, and its LSE (-inf for an empty chunk); the combine weighs chunk s by
// exp(lse_s - lse), lse = log(sum_s exp(lse_s)).
//
// Packed GQA: the group = hq / hkv query heads that share a KV head are one CTA's rows. Packed row r of a
// (batch, KV head) holds query r / group of head kv_head * group + r % group, so a tile of block_m
// packed rows covers block_m / group consecutive queries of every head in the group, and K/V are read
// once per KV head instead of once per query head.
#if defined(__CUDACC__)
#define EVOTUNE_HOST_DEVICE __host__ __device__ __forceinline__
#else
#include <cmath>
#define EVOTUNE_HOST_DEVICE inline
#endif

namespace evotune_split {

struct BlockRange {
  int begin, end;  // K/V blocks [begin, end); empty when begin >= end
};

EVOTUNE_HOST_DEVICE int ceil_div(int a, int b) {
  return (a + b - 1) / b;
}

// The K/V blocks chunk `split` of `splits` visits, out of n_blocks.
EVOTUNE_HOST_DEVICE BlockRange split_range(int n_blocks, int splits, int split) {
  const int chunk = ceil_div(n_blocks, splits);
  const int begin = split * chunk;
  const int end = begin + chunk < n_blocks ? begin + chunk : n_blocks;
  return BlockRange{begin < n_blocks ? begin : n_blocks, end};
}

// The K/V blocks that chunk `split` of the tile of rows [m0, m0 + block_m) visits (rows: the rows of one
// (batch, CTA head), packed or not). Causal (bottom-right): the tile's last row sees keys up to its
// query + skv - sq, and no block past that is visited.
EVOTUNE_HOST_DEVICE BlockRange tile_blocks(int m0, int block_m, int rows, int group, bool packed, int sq,
                                           int skv, bool causal, int block_n, int splits, int split) {
  int keys = skv;
  if (causal) {
    const int last = (m0 + block_m < rows ? m0 + block_m : rows) - 1;
    const int query = packed ? last / group : last;
    const int visible = query + skv - sq + 1;
    keys = visible < skv ? visible : skv;
  }
  return split_range(ceil_div(keys, block_n), splits, split);
}

// Packed (or plain, group 1) row -> query index and head within the KV head's group.
EVOTUNE_HOST_DEVICE int packed_query(int packed_row, int group) {
  return packed_row / group;
}
EVOTUNE_HOST_DEVICE int packed_head_in_group(int packed_row, int group) {
  return packed_row % group;
}

// Rows of one (batch, CTA head): sq, or sq * group when packed.
EVOTUNE_HOST_DEVICE int tile_rows(int sq, int group, bool packed) {
  return packed ? sq * group : sq;
}

// The combine rule for one row. `lse` holds each chunk's natural-log LSE (-inf: the chunk saw no key).
// Fills weights[s] = exp(lse_s - lse_total) (they sum to 1) and returns lse_total; -inf when every
// chunk was empty (then every weight is 0). Scalar form, for the host and for the CPU tests; the
// combine kernel does the same with the chunks spread over a warp's lanes.
EVOTUNE_HOST_DEVICE float combine_lse(float max_lse, float sum_exp) {
#if defined(__CUDACC__)
  return sum_exp > 0.0f ? max_lse + logf(sum_exp) : -__int_as_float(0x7f800000);
#else
  return sum_exp > 0.0f ? max_lse + std::log(sum_exp) : -INFINITY;
#endif
}

EVOTUNE_HOST_DEVICE float combine_weight(float lse_chunk, float max_lse) {
  // An empty chunk (lse -inf) weighs 0; max_lse is finite whenever any chunk is not empty.
#if defined(__CUDACC__)
  return lse_chunk == -__int_as_float(0x7f800000) ? 0.0f : expf(lse_chunk - max_lse);
#else
  return lse_chunk == -INFINITY ? 0.0f : std::exp(lse_chunk - max_lse);
#endif
}

}  // namespace evotune_split

#undef EVOTUNE_HOST_DEVICE
