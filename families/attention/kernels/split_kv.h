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

// Stream-K tail (scheduler=stream_k, mma=wgmma). One CTA per SM walks whole work tiles, a grid stride
// apart, as long as every CTA has one: the first tiles - tail_tiles of them. The tail, the last
// tiles % ctas tiles (all of them when there are fewer tiles than CTAs), would leave most SMs idle for a
// whole tile's time; instead its K/V iterations (blocks, in tile order) are cut into `ctas` contiguous
// ranges of nearly equal length, one per CTA. A range covers pieces of one or more tiles; a piece that is
// not its whole tile is "partial": its rows go to a workspace slot (fp32, normalized by the piece's own
// sum, with their LSE, as a split-KV chunk's), and the CTA that finishes the tile's last piece merges the
// slots by the split-KV rule. Only a range's first and last pieces can be partial, so CTA c owns two
// slots: 2c for its first piece, 2c + 1 for its last.
// A tile's cost is its K/V blocks, at least 1: a tile that sees no key (causal, sq > skv) still has its
// empty rows written by whoever gets its one iteration.
// The arithmetic is 32-bit (lighter on the producer's few registers): (ctas + 1) x the tail's iterations
// must stay below 2^31, which the host's rules check (attention_family.cpp).
struct StreamKPiece {
  int tile;          // the tail tile: tiles - tail_tiles + tile in the launch's order
  int begin, end;    // its iterations this piece covers, [begin, end) of its cost
  int slot;          // -1: the whole tile (written directly); else the workspace slot of a partial piece
  int prefix;        // iterations of the tail tiles before this one
};

EVOTUNE_HOST_DEVICE int stream_k_tail_tiles(int tiles, int ctas) {
  return tiles % ctas;  // all of them when tiles < ctas
}

// The first iteration of CTA `cta`'s range; CTA cta's range is [start(cta), start(cta + 1)).
EVOTUNE_HOST_DEVICE int stream_k_start(int iterations, int ctas, int cta) {
  return cta * iterations / ctas;
}

// Whether CTA `cta`'s range holds any iteration (with fewer iterations than CTAs some hold none).
EVOTUNE_HOST_DEVICE bool stream_k_holds_piece(int iterations, int ctas, int cta) {
  return stream_k_start(iterations, ctas, cta) < stream_k_start(iterations, ctas, cta + 1);
}

// The partial slot of CTA `cta`'s piece of the tail tile starting at iteration `prefix`: its first piece
// (its range starts inside that tile) or its last.
EVOTUNE_HOST_DEVICE int stream_k_slot(int iterations, int ctas, int cta, int prefix) {
  return 2 * cta + (stream_k_start(iterations, ctas, cta) >= prefix ? 0 : 1);
}

// The CTAs whose ranges meet tail iterations [prefix, prefix + cost): first is the smallest whose range
// ends past prefix, last the largest whose range starts before prefix + cost. CTAs with empty ranges
// (fewer iterations than CTAs) in between hold no piece: callers skip them.
EVOTUNE_HOST_DEVICE int stream_k_first_cta(int iterations, int ctas, int prefix) {
  return ((prefix + 1) * ctas + iterations - 1) / iterations - 1;
}
EVOTUNE_HOST_DEVICE int stream_k_last_cta(int iterations, int ctas, int prefix, int cost) {
  const int last = ((prefix + cost) * ctas + iterations - 1) / iterations - 1;
  return last < ctas - 1 ? last : ctas - 1;
}

// Piece `k` (0, 1, ...) of CTA `cta`'s range; false when the range has fewer pieces. cost(t): the
// iterations of tail tile t (>= 1); uniform_cost > 0 says every tile costs that (no walk needed).
template <class Cost>
EVOTUNE_HOST_DEVICE bool stream_k_piece(const Cost& cost, int uniform_cost, int iterations, int ctas, int cta,
                                        int k, StreamKPiece& piece) {
  const int start = stream_k_start(iterations, ctas, cta), end = stream_k_start(iterations, ctas, cta + 1);
  if (start >= end) return false;
  int tile;
  int prefix;
  if (uniform_cost > 0) {
    tile = start / uniform_cost + k;
    prefix = tile * uniform_cost;
    if (prefix >= end) return false;
  } else {
    tile = 0;
    prefix = 0;
    while (prefix + cost(tile) <= start) prefix += cost(tile++);
    for (int i = 0; i < k; ++i) {
      prefix += cost(tile++);
      if (prefix >= end) return false;
    }
  }
  const int n = uniform_cost > 0 ? uniform_cost : cost(tile);
  piece.tile = tile;
  piece.prefix = prefix;
  piece.begin = (start > prefix ? start : prefix) - prefix;
  piece.end = (end < prefix + n ? end : prefix + n) - prefix;
  piece.slot = piece.begin == 0 && piece.end == n ? -1 : 2 * cta + (k == 0 ? 0 : 1);
  return true;
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
