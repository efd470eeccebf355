#pragma once
// The pieces every attention mainloop shares, written once: element types, the shared-memory tile
// layout (padded or xor-swizzled), cp.async tile loads, GQA indexing, bottom-right causal masking,
// the online-softmax constants, and the epilogue's row writes.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <math_constants.h>  // CUDART_INF_F

#include "attention/params.h"

namespace evotune_attention {

constexpr float kLog2e = 1.4426950408889634f;
constexpr float kLn2 = 0.6931471805599453f;

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

// Copies rows [0, kRows) of a [*, D] row-major global tile into shared memory; rows at or past
// valid_rows are zero-filled. All kThreads threads of the CTA take part.
// kAllRowsValid: the caller knows the whole tile lies inside the tensor, so no per-row check is made
// (most K/V blocks; only the last one of a ragged sequence needs it).
template <typename T, int D, int kRows, int kLayout, int kVecBytes, int kThreads, bool kAllRowsValid = false>
__device__ __forceinline__ void load_tile(T* smem, const T* gmem, int valid_rows) {
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
    // An invalid row still needs a mapped source address; row 0 of the tile always exists.
    const T* src = gmem + (valid ? row : 0) * D + col;
    cp_async<kVecBytes>(smem + TileLayout<D, kLayout>::offset(row, col), src, valid);
  }
}

// Which CTA does which rows, and which K/V blocks it must visit.
struct WorkTile {
  int batch, head, kv_head;
  int m0;         // first query row of this CTA
  int n_blocks;   // K/V blocks to visit
  int diagonal;   // skv - sq: query row i may see keys 0 .. i + diagonal (bottom-right causal)
};

template <int kBlockM, int kBlockN, bool kCausal>
__device__ __forceinline__ WorkTile make_work_tile(const AttentionParams& p) {
  WorkTile w;
  // Causal: the last row tiles see the most keys; hand them out first so that the short tiles fill
  // the tail of the grid instead of the long ones.
  const int m_block = kCausal ? gridDim.x - 1 - blockIdx.x : blockIdx.x;
  w.m0 = m_block * kBlockM;
  w.head = blockIdx.y;
  w.batch = blockIdx.z;
  w.kv_head = w.head / (p.hq / p.hkv);  // GQA/MQA: heads share K/V by index, nothing is replicated
  w.diagonal = p.skv - p.sq;
  int keys = p.skv;
  if (kCausal) {
    // The last row of this tile sees keys up to (m0 + kBlockM - 1) + diagonal.
    keys = min(p.skv, w.m0 + kBlockM + w.diagonal);
  }
  w.n_blocks = (keys + kBlockN - 1) / kBlockN;
  return w;
}

// How many leading K/V blocks need no masking at all: masked blocks are always a suffix (the end of
// the keys, and for causal the blocks right of the tile's first row's diagonal). The pipeline runs the
// two parts as separate loops so the unmasked one carries no masking code.
template <int kBlockN, bool kCausal>
__device__ __forceinline__ int unmasked_blocks(const WorkTile& w, int skv) {
  int full = skv / kBlockN;
  if (kCausal) full = min(full, (w.m0 + w.diagonal + 1) / kBlockN);
  return min(full, w.n_blocks);
}

// Element (row, key) is visible. Padded keys and keys right of the diagonal get -inf, never zero.
template <bool kCausal>
__device__ __forceinline__ bool key_visible(int row, int key, int skv, int diagonal) {
  return key < skv && (!kCausal || key <= row + diagonal);
}

template <typename T>
__device__ __forceinline__ const T* head_ptr(const void* base, int batch, int heads, int head, int seq, int D) {
  return static_cast<const T*>(base) + (static_cast<long long>(batch) * heads + head) * seq * D;
}

// Final row statistics -> output: o_row / l, and lse = (m + log2 l) * ln 2 for the scaled scores
// (m is the running max in the log2 domain).
__device__ __forceinline__ float finish_lse(float row_max_log2, float row_sum) {
  return row_sum > 0.0f ? (row_max_log2 + __log2f(row_sum)) * kLn2 : -CUDART_INF_F;
}

// In-kernel timer: with EVOTUNE_CTA_CLOCK, each CTA records how many SM clock cycles it ran.
struct CtaClock {
#ifdef EVOTUNE_CTA_CLOCK
  long long start = clock64();
  __device__ __forceinline__ void stop(const AttentionParams& p) const {
    __syncthreads();
    if (threadIdx.x == 0 && p.cta_cycles != nullptr) {
      const unsigned cta = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
      p.cta_cycles[cta] = static_cast<unsigned long long>(clock64() - start);
    }
  }
#else
  __device__ __forceinline__ void stop(const AttentionParams&) const {}
#endif
};

}  // namespace evotune_attention
