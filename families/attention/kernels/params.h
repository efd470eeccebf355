#pragma once
// Kernel arguments of the attention family, shared by the host (C++) and the kernels (NVRTC): only
// fixed-size scalars and pointers, so both compilers lay the struct out identically.

// Where a tensor's rows are: element (batch, head, position, column) at batch * batch_stride + head *
// head_stride + position * seq_stride + column, in elements. Each row of d elements is contiguous; the rest is
// free, so BHSD-contiguous tensors and the BSHD views a model hands over (Q after its projection and RoPE, O
// written back in Q's order) are both read and written in place. The host checks what the kernels need:
// strides multiples of 8 elements (16 bytes: cp.async's widest copy, TMA's stride unit), pointers 16-byte
// aligned.
struct TensorStrides {
  long long batch, head, seq;
};
// Position strides stay below this: the kernels address a tile's rows (up to 256) with 32-bit offsets.
inline constexpr long long kAttentionMaxPositionStride = 1LL << 23;

struct AttentionParams {
  const void* q;  // [b, hq, sq, d]   fp16 or bf16, rows at q_strides
  const void* k;  // [b, hkv, skv, d]
  const void* v;  // [b, hkv, skv, d]
  void* o;        // [b, hq, sq, d]
  TensorStrides q_strides, k_strides, v_strides, o_strides;
  float* lse;     // [b, hq, sq] natural-log log-sum-exp of the scaled scores, or null
  unsigned long long* cta_cycles;  // clock64 cycles per CTA (kernels built with EVOTUNE_CTA_CLOCK), or null
  // Split-KV workspace (splits > 1): each chunk's output rows in fp32, normalized by the chunk's own
  // softmax sum, [splits][b * hq * sq][d], and their LSE, [splits][b * hq * sq]; the combine kernel
  // reads them. Sized by the host's launch plan (attention_family.h).
  float* partial_o;
  float* partial_lse;
  // Counters in the workspace (zero between launches; each launch leaves them at zero): combine=last_cta,
  // one per query tile, so that the chunk that finishes last merges the tile's rows itself instead of a
  // second kernel; scheduler=dynamic (wgmma), one, from which the CTAs draw their next tiles.
  unsigned* counters;
  int b, hq, hkv, sq, skv;
  int splits;           // K/V chunks per (query tile, head, batch): the launch plan's, 1 = no split
  float softmax_scale;  // multiplies Q.K before the softmax; usually 1/sqrt(d)
  // tile_order=sections (wgmma): the (batch, head) pairs of one L2 section, the launch plan's (0 or 1: each
  // head a section of its own, the order of tile_order=heads).
  int section_heads;
};

// A divisor of non-negative ints with its multiplier and shift worked out on the host (make_fast_divisor), so
// that a kernel divides by it with a multiply-high and a shift (fast_divide) instead of the ~20 instructions
// of a division by a run-time value: the wgmma schedulers decode a tile index into (query tile, head, batch)
// at every tile, in the serial chain of the consumers and the producer.
struct FastDivisor {
  int divisor;
  unsigned multiplier, shift;
};

#if defined(__CUDACC__)
#define EVOTUNE_PARAMS_FUNCTION __host__ __device__ __forceinline__
#else
#define EVOTUNE_PARAMS_FUNCTION inline
#endif

// The round-up method (Granlund and Montgomery): with l = ceil(log2(divisor)) and multiplier =
// ceil(2^(31 + l) / divisor), n * multiplier / 2^(31 + l) is n / divisor plus less than 1 / divisor for every
// n < 2^31, so its floor is the quotient; multiplier < 2^32 for divisor >= 2. Divisor 1 is taken apart.
EVOTUNE_PARAMS_FUNCTION FastDivisor make_fast_divisor(int divisor) {
  FastDivisor d{divisor, 0u, 0u};
  if (divisor > 1) {
    unsigned l = 0;
    while ((1ull << l) < static_cast<unsigned long long>(divisor)) ++l;
    d.multiplier = static_cast<unsigned>(((1ull << (31 + l)) + static_cast<unsigned long long>(divisor) - 1) /
                                         static_cast<unsigned long long>(divisor));
    d.shift = l - 1;  // the multiply-high already shifted by 32
  }
  return d;
}

// n / d.divisor, for 0 <= n < 2^31.
EVOTUNE_PARAMS_FUNCTION int fast_divide(int n, const FastDivisor& d) {
#if defined(__CUDA_ARCH__)
  const unsigned high = __umulhi(static_cast<unsigned>(n), d.multiplier);
#else
  const unsigned high =
      static_cast<unsigned>((static_cast<unsigned long long>(static_cast<unsigned>(n)) * d.multiplier) >> 32);
#endif
  return d.divisor == 1 ? n : static_cast<int>(high >> d.shift);
}

// A TMA tensor descriptor (the driver's CUtensorMap): 128 opaque bytes, 64-byte aligned. Encoded on the
// host (cuTensorMapEncodeTiled), read by the TMA unit from the kernel's parameter space.
struct alignas(64) TensorMapBytes {
  unsigned long long opaque[16];
};

// Kernel arguments of mma=wgmma (mainloop_wgmma.cuh): the TMA descriptors of Q, K, V (and O) over the tensors
// `params` points at, then the common arguments. attention_family.cpp's kernel_arguments() builds both.
struct TmaAttentionParams {
  TensorMapBytes q;  // 5-D {d, group or 1, sq, hkv or hq, b}: packed GQA reads a group's heads in one box
  TensorMapBytes k;  // 4-D {d, skv, hkv, b}
  TensorMapBytes v;
  TensorMapBytes o;  // o_store=tma: as q over O, a box of one consumer warpgroup's 64 rows; else unused
  AttentionParams params;
  // 1 where a tensor's batch and head merge into one dimension (batch stride = heads x head stride: dense
  // BHSD), so that its descriptor has one rank less: Q and O 4-D {d, group, sq, b x heads}, K and V 3-D
  // {d, skv, b x hkv}, addressed with one coordinate less; the rank the dense layout had before strided
  // layouts, kept for it. K and V share theirs.
  int q_merged, kv_merged, o_merged;
  // The persistent schedulers' tile index is x + x_extent * (y + y_extent * batch) (common.cuh's LinearTiles):
  // x_extent = query tiles x splits, y_extent = heads (the KV heads when packed); `group` = hq / hkv.
  FastDivisor x_extent, y_extent, group;
  // tile_order=sections (LinearTiles): the tile sequence is cut into sections of section_heads.divisor (batch,
  // head) pairs, x_extent of their tiles each (section_tiles = both), the last one of last_section_heads
  // pairs where they do not divide evenly; full_sections counts the whole ones.
  FastDivisor section_tiles, section_heads, last_section_heads;
  int full_sections;
};

// A tile of the launch's sequence: x, its query tile (x_extent's column), and yz, its flattened (batch, head)
// pair, y + y_extent * batch.
struct TileCoordinates {
  int x, yz;
};

// Tile `index` in tile_order=sections (common.cuh's LinearTiles): section after section, each x-major over
// its (batch, head) pairs.
EVOTUNE_PARAMS_FUNCTION TileCoordinates section_order_tile(int index, const TmaAttentionParams& a) {
  const int section = fast_divide(index, a.section_tiles);
  const int within = index - section * a.section_tiles.divisor;
  const FastDivisor& heads = section >= a.full_sections ? a.last_section_heads : a.section_heads;
  const int x = fast_divide(within, heads);
  return TileCoordinates{x, section * a.section_heads.divisor + (within - x * heads.divisor)};
}
