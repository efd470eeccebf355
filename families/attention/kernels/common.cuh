#pragma once
// The pieces every attention mainloop shares, written once: element types, the shared-memory tile
// layout (padded or xor-swizzled), cp.async tile loads, GQA indexing, bottom-right causal masking,
// the online-softmax constants, and the epilogue's row writes.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <math_constants.h>  // CUDART_INF_F

#include "attention/params.h"
#include "attention/split_kv.h"

namespace evotune_attention {

// inline: external linkage. A namespace-scope constexpr has internal linkage, and NVRTC names the symbols of
// internal entities with the compiling process's id, so two compiles of the same source gave different CUBIN
// bytes (and an exported header that depended on which process compiled it).
inline constexpr float kLog2e = 1.4426950408889634f;
inline constexpr float kLn2 = 0.6931471805599453f;

enum SmemLayout { kPadded = 0, kSwizzled = 1 };

// Element type traits: storage, pairs, and conversion.
template <typename T>
struct Element;
template <>
struct Element<__half> {
  using Pair = __half2;
  static __device__ __forceinline__ float to_float(__half x) { return __half2float(x); }
  static __device__ __forceinline__ Pair pack(float lo, float hi) { return __floats2half2_rn(lo, hi); }
};
template <>
struct Element<__nv_bfloat16> {
  using Pair = __nv_bfloat162;
  static __device__ __forceinline__ float to_float(__nv_bfloat16 x) { return __bfloat162float(x); }
  static __device__ __forceinline__ Pair pack(float lo, float hi) { return __floats2bfloat162_rn(lo, hi); }
};

template <typename Pair>
__device__ __forceinline__ unsigned pair_bits(Pair p) {
  return *reinterpret_cast<unsigned*>(&p);
}

// Where (row, col) of a [rows x D] tile of 2-byte elements lives in shared memory, in elements.
// Padded: each row is D + 8 elements (16 bytes of padding), so the 8 rows an ldmatrix phase reads start
// in different banks. Swizzled: rows are dense and the 16-byte chunk index is xor-ed with row % 8, the
// same effect without the padding bytes. col may be any element index.
template <int D, int kLayout>
struct TileLayout {
  static_assert(D % 64 == 0, "the swizzle needs at least 8 chunks of 16 bytes per row");
  static constexpr int kRowStride = kLayout == kPadded ? D + 8 : D;
  __host__ __device__ static constexpr int elements(int rows) { return rows * kRowStride; }
  static __device__ __forceinline__ int offset(int row, int col) {
    if constexpr (kLayout == kPadded) {
      return row * kRowStride + col;
    } else {
      return row * kRowStride + ((((col >> 3) ^ (row & 7))) << 3) + (col & 7);
    }
  }
};

__device__ __forceinline__ unsigned smem_address(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

// One asynchronous global -> shared copy of kBytes (4, 8 or 16). Out-of-range rows copy 0 source bytes,
// which fills the destination with zeros: padded K/V rows must hold finite values, because a masked
// probability (exactly 0) times a NaN left in shared memory would still be NaN.
template <int kBytes>
__device__ __forceinline__ void cp_async(void* smem, const void* gmem, bool valid) {
  const unsigned dst = smem_address(smem);
  const int src_bytes = valid ? kBytes : 0;
  if constexpr (kBytes == 16) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(gmem), "r"(src_bytes));
  } else {
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;\n" ::"r"(dst), "l"(gmem), "n"(kBytes),
                 "r"(src_bytes));
  }
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int kPending>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending));
}

// Copies rows [0, kRows) of a tile into shared memory, all kThreads threads of the CTA taking part:
// `row_source(row)` gives the global address of a row (only asked for valid rows and for row 0, which
// always exists and stands in as a mapped source address for the rest); rows at or past valid_rows are
// zero-filled. kAllRowsValid: the caller knows the whole tile lies inside the tensor, so no per-row
// check is made (most K/V blocks; only the last one of a ragged sequence needs it).
template <typename T, int D, int kRows, int kLayout, int kVecBytes, int kThreads, bool kAllRowsValid,
          class RowSource>
__device__ __forceinline__ void copy_tile_rows(T* smem, const RowSource& row_source, int valid_rows) {
  constexpr int kElemsPerCopy = kVecBytes / 2;
  constexpr int kCopiesPerRow = D / kElemsPerCopy;
  constexpr int kCopies = kRows * kCopiesPerRow;
  constexpr int kRounds = (kCopies + kThreads - 1) / kThreads;
  // Few threads with narrow copies make many rounds; unrolling all of them costs registers (address
  // arithmetic per copy) that the mainloop needs more.
  constexpr int kUnroll = kRounds <= 8 ? kRounds : 4;
#pragma unroll kUnroll
  for (int round = 0; round < kRounds; ++round) {
    const int i = round * kThreads + static_cast<int>(threadIdx.x);
    if (kCopies % kThreads != 0 && i >= kCopies) break;
    const int row = i / kCopiesPerRow;
    const int col = (i % kCopiesPerRow) * kElemsPerCopy;
    const bool valid = kAllRowsValid || row < valid_rows;
    cp_async<kVecBytes>(smem + TileLayout<D, kLayout>::offset(row, col), row_source(valid ? row : 0) + col,
                        valid);
  }
}

// A [*, D] global tile of rows `row_stride` elements apart: row r at gmem + r * row_stride. 32-bit offsets
// within the tile (the host keeps position strides below kAttentionMaxPositionStride, so that 256 rows fit): a
// 64-bit multiply per copy cost the LLaMA decode kernel 9%, and registers the mainloop needs.
template <typename T, int D, int kRows, int kLayout, int kVecBytes, int kThreads, bool kAllRowsValid = false>
__device__ __forceinline__ void load_tile(T* smem, const T* gmem, int row_stride, int valid_rows) {
  static_assert(kRows * kAttentionMaxPositionStride <= (1LL << 31), "a tile's row offsets fit in 32 bits");
  copy_tile_rows<T, D, kRows, kLayout, kVecBytes, kThreads, kAllRowsValid>(
      smem, [gmem, row_stride](int row) { return gmem + row * row_stride; }, valid_rows);
}

// Element offset of row (batch, head, position) of a tensor laid out at `s`.
__device__ __forceinline__ long long row_offset(const TensorStrides& s, int batch, int head, int position) {
  return batch * s.batch + head * s.head + position * s.seq;
}

// The tile's Q rows: each from its own head and query when packed (one contiguous run of rows otherwise).
template <typename T, int D, int kRows, int kLayout, int kVecBytes, int kThreads, class Tile>
__device__ __forceinline__ void load_q_tile(T* smem, const Tile& w, const AttentionParams& p) {
  const T* q = static_cast<const T*>(p.q);
  copy_tile_rows<T, D, kRows, kLayout, kVecBytes, kThreads, false>(
      smem,
      [&](int row) {
        return q + row_offset(p.q_strides, w.batch, w.head_of(row), w.query(row));
      },
      w.rows - w.m0);
}

// A row (batch, head, query) of the output: `index` numbers it densely, (batch * hq + head) * sq + query, in
// the LSE and the split workspace (evotune's own buffers, always dense); `o` is its first element in O (the
// caller's tensor, at p.o_strides).
struct OutputRow {
  long long index;
  long long o;
  __device__ __forceinline__ bool valid() const { return index >= 0; }
};

// Which CTA does which rows, and which K/V blocks it must visit. The grid is (query tiles x splits,
// heads, batch): heads are the query heads, or the KV heads when packed (kPack: a tile's rows are the
// group's query heads interleaved, split_kv.h), and each tile's K/V blocks are cut into `splits`
// chunks, one per CTA (kSplits: the count when compiled in, 0 when the launch plan passes it).
template <bool kPack, int kSplits>
struct WorkTile {
  int batch, head, kv_head;  // head: the CTA's query head, or (packed) the first head of its group
  int m0;                    // first row of this CTA, in packed rows when kPack
  int rows;                  // rows of one (batch, CTA head): sq, or sq * group when packed
  int group;                 // query heads per KV head
  int begin, end;            // K/V blocks to visit: [begin, end), this CTA's chunk
  int diagonal;              // skv - sq: query i may see keys 0 .. i + diagonal (bottom-right causal)
  int split, splits;
  int tile;  // this CTA's query tile (m0 / block_m)

  __device__ __forceinline__ int query(int local_row) const {
    return kPack ? evotune_split::packed_query(m0 + local_row, group) : m0 + local_row;
  }
  __device__ __forceinline__ int head_of(int local_row) const {
    return kPack ? head + evotune_split::packed_head_in_group(m0 + local_row, group) : head;
  }
  // Output goes to the split workspace (fp32 partials and their LSE), not to O.
  __device__ __forceinline__ bool partial() const {
    return kSplits == 1 ? false : kSplits > 1 ? true : splits > 1;
  }
  // The same tile, compiled as split (kAs > 1) or not (kAs == 1): for splits=auto, whose count is the
  // launch's, so that code past one runtime branch knows it (see attention.cuh).
  template <int kAs>
  __device__ __forceinline__ WorkTile<kPack, kAs> as() const {
    WorkTile<kPack, kAs> t;
    t.batch = batch, t.head = head, t.kv_head = kv_head, t.m0 = m0, t.rows = rows, t.group = group;
    t.begin = begin, t.end = end, t.diagonal = diagonal, t.split = split, t.splits = splits, t.tile = tile;
    return t;
  }
  // Where a tile row's output goes (OutputRow), index -1 past the last row.
  __device__ __forceinline__ OutputRow output_row(int local_row, const AttentionParams& p) const {
    if (m0 + local_row >= rows) return OutputRow{-1, 0};
    const int h = head_of(local_row), q = query(local_row);
    return OutputRow{(static_cast<long long>(batch) * p.hq + h) * p.sq + q, row_offset(p.o_strides, batch, h, q)};
  }
};

// The work tile of grid position (x, y, z) in a grid of `x_extent` = query tiles x splits columns: x is
// the query tile and the chunk of its K/V range, y the head (the KV head when packed), z the batch; `group`
// = hq / hkv and `kv_head` y's KV head, worked out by the caller.
template <int kBlockM, int kBlockN, bool kCausal, bool kPack, int kSplits>
__device__ __forceinline__ WorkTile<kPack, kSplits> make_work_tile_at(const AttentionParams& p, int x, int y, int z,
                                                                      int x_extent, int group, int kv_head) {
  WorkTile<kPack, kSplits> w;
  w.splits = kSplits > 0 ? kSplits : p.splits;
  const int tile = x / w.splits;
  w.split = x - tile * w.splits;
  // Causal: the last row tiles see the most keys; hand them out first so that the short tiles fill
  // the tail of the grid instead of the long ones.
  const int m_block = kCausal ? x_extent / w.splits - 1 - tile : tile;
  w.m0 = m_block * kBlockM;
  w.tile = m_block;
  w.batch = z;
  w.group = group;
  w.kv_head = kv_head;  // GQA/MQA: heads share K/V by index, nothing is replicated
  w.head = kPack ? y * group : y;
  w.rows = evotune_split::tile_rows(p.sq, w.group, kPack);
  w.diagonal = p.skv - p.sq;
  const evotune_split::BlockRange range = evotune_split::tile_blocks(
      w.m0, kBlockM, w.rows, w.group, kPack, p.sq, p.skv, kCausal, kBlockN, w.splits, w.split);
  w.begin = range.begin;
  w.end = range.end;
  return w;
}

// One CTA per work tile: the CTA's own.
template <int kBlockM, int kBlockN, bool kCausal, bool kPack, int kSplits>
__device__ __forceinline__ WorkTile<kPack, kSplits> make_work_tile(const AttentionParams& p) {
  const int group = p.hq / p.hkv, y = blockIdx.y;
  return make_work_tile_at<kBlockM, kBlockN, kCausal, kPack, kSplits>(p, blockIdx.x, y, blockIdx.z, gridDim.x,
                                                                      group, kPack ? y : y / group);
}

// The work tiles of a launch in one sequence, for the persistent schedulers (whose CTAs each walk several
// tiles) and, with tile_order=sections, for the grid's CTAs (by their linear block index, the order the
// hardware hands them out). The extents and the group come with their divisors from the host
// (TmaAttentionParams), read from the parameter space where they are used.
//   - kSections false (tile_order=heads): the order a grid of one CTA per tile would be scheduled in, x
//     fastest: a head's query tiles together (causal: the longest first), so that their shared K/V stays in
//     L2. Causal, the sequence then ends on the last heads' long tiles, and the CTAs that draw them set the
//     launch's end while the others have run dry.
//   - kSections true (tile_order=sections): the (batch, head) pairs are cut into sections whose K/V fit in
//     L2 (the host's launch plan sizes them); within a section the query tiles come x-major, each x over the
//     section's heads. Causal, every section runs its heads' longest tiles first and their shortest last, so
//     the launch ends on short tiles (longest-processing-time-first, within L2's reach), as
//     FlashAttention-3's LPT scheduler orders them.
template <int kBlockM, int kBlockN, bool kCausal, bool kPack, int kSplits, bool kSections = false>
struct LinearTiles {
  const TmaAttentionParams& args;
  int total;
  // `batch`: p.b, passed separately so that a caller can make it opaque (sm90::opaque) and keep the
  // total from being computed once and held in a register across a loop.
  __device__ __forceinline__ LinearTiles(const TmaAttentionParams& args, int batch) : args(args) {
    total = args.x_extent.divisor * args.y_extent.divisor * batch;
  }
  __device__ __forceinline__ int x_extent() const { return args.x_extent.divisor; }
  __device__ __forceinline__ WorkTile<kPack, kSplits> at(const AttentionParams& p, int index) const {
    if constexpr (kSections) {
      const TileCoordinates t = section_order_tile(index, args);
      const int z = fast_divide(t.yz, args.y_extent), y = t.yz - z * args.y_extent.divisor;
      return tile(p, t.x, y, z);
    } else {
      const int yz = fast_divide(index, args.x_extent), z = fast_divide(yz, args.y_extent);
      const int x = index - yz * args.x_extent.divisor, y = yz - z * args.y_extent.divisor;
      return tile(p, x, y, z);
    }
  }
  __device__ __forceinline__ WorkTile<kPack, kSplits> tile(const AttentionParams& p, int x, int y, int z) const {
    return make_work_tile_at<kBlockM, kBlockN, kCausal, kPack, kSplits>(
        p, x, y, z, args.x_extent.divisor, args.group.divisor, kPack ? y : fast_divide(y, args.group));
  }
};

// Blocks below this index need no masking at all: masked blocks are always a suffix (the end of the
// keys, and for causal the blocks right of the tile's first row's diagonal). The pipeline runs the two
// parts as separate code paths so the unmasked one carries no masking code.
template <int kBlockN, bool kCausal, class Tile>
__device__ __forceinline__ int unmasked_blocks(const Tile& w, int skv) {
  int full = skv / kBlockN;
  if (kCausal) full = min(full, (w.query(0) + w.diagonal + 1) / kBlockN);
  return full;
}

// Element (query, key) is visible. Padded keys and keys right of the diagonal get -inf, never zero.
template <bool kCausal>
__device__ __forceinline__ bool key_visible(int query, int key, int skv, int diagonal) {
  return key < skv && (!kCausal || key <= query + diagonal);
}

// The first row of one (batch, head) of a tensor laid out at `s`.
template <typename T>
__device__ __forceinline__ const T* head_ptr(const void* base, const TensorStrides& s, int batch, int head) {
  return static_cast<const T*>(base) + batch * s.batch + head * s.head;
}

// Final row statistics -> output: o_row / l, and lse = (m + log2 l) * ln 2 for the scaled scores
// (m is the running max in the log2 domain).
__device__ __forceinline__ float finish_lse(float row_max_log2, float row_sum) {
  return row_sum > 0.0f ? (row_max_log2 + __log2f(row_sum)) * kLn2 : -CUDART_INF_F;
}

// The epilogue's writes, shared by every mainloop: a row's output goes to O (as T), or, when the CTA
// holds one chunk of a split, to the fp32 split workspace, normalized by the chunk's own sum; its LSE to
// the LSE output (when asked for) or to the workspace (always: the combine needs it).
template <typename T, int D, class Tile>
__device__ __forceinline__ void store_output_pair(const Tile& w, const AttentionParams& p, const OutputRow& row,
                                                  int col, float a, float b) {
  if (w.partial()) {
    const long long rows = static_cast<long long>(p.b) * p.hq * p.sq;
    *reinterpret_cast<float2*>(p.partial_o + (w.split * rows + row.index) * D + col) = make_float2(a, b);
  } else {
    *reinterpret_cast<typename Element<T>::Pair*>(static_cast<T*>(p.o) + row.o + col) = Element<T>::pack(a, b);
  }
}

template <typename T, int D, class Tile>
__device__ __forceinline__ void store_output(const Tile& w, const AttentionParams& p, const OutputRow& row, int col,
                                             float a) {
  if (w.partial()) {
    const long long rows = static_cast<long long>(p.b) * p.hq * p.sq;
    p.partial_o[(w.split * rows + row.index) * D + col] = a;
  } else {
    static_cast<T*>(p.o)[row.o + col] = static_cast<T>(a);
  }
}

template <class Tile>
__device__ __forceinline__ void store_lse(const Tile& w, const AttentionParams& p, const OutputRow& row, float lse) {
  if (w.partial()) {
    p.partial_lse[w.split * (static_cast<long long>(p.b) * p.hq * p.sq) + row.index] = lse;
  } else if (p.lse != nullptr) {
    p.lse[row.index] = lse;
  }
}

// The dynamic shared memory the launch gave this CTA: kernels check it against what they lay out.
__device__ __forceinline__ unsigned dynamic_smem_bytes() {
  unsigned bytes;
  asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(bytes));
  return bytes;
}

// In-kernel timer: with EVOTUNE_CTA_CLOCK, each CTA records how many SM clock cycles it ran.
struct CtaClock {
#ifdef EVOTUNE_CTA_CLOCK
  long long start = clock64();
  __device__ __forceinline__ void stop(const AttentionParams& p) const {
    __syncthreads();
    if (threadIdx.x == 0) record(p);
  }
  // Warp-specialized kernels, whose producer warps leave early: the consumer threads [first, first +
  // threads) meet on named barrier 8 (not 0, which would wait for the departed) and the first records.
  __device__ __forceinline__ void stop_consumers(const AttentionParams& p, int first, int threads) const {
    asm volatile("bar.sync 8, %0;" ::"r"(threads) : "memory");
    if (static_cast<int>(threadIdx.x) == first) record(p);
  }
  __device__ __forceinline__ void record(const AttentionParams& p) const {
    if (p.cta_cycles != nullptr) {
      const unsigned cta = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
      p.cta_cycles[cta] = static_cast<unsigned long long>(clock64() - start);
    }
  }
#else
  __device__ __forceinline__ void stop(const AttentionParams&) const {}
  __device__ __forceinline__ void stop_consumers(const AttentionParams&, int, int) const {}
#endif
};

}  // namespace evotune_attention
