#pragma once
// The GPU reference for the attention family, and the softmax of the unfused cuBLAS baseline.
//
// attention_reference<T, D, kCausal, kRoundLikeInputs>: two passes over the keys in fp32 (pass 1: row
// max and sum; pass 2: probabilities and P.V), so no online rescaling enters the reference.
//   kRoundLikeInputs = false: the fp32 reference every kernel is compared with.
//   kRoundLikeInputs = true:  a plain same-precision implementation (scores and probabilities rounded
//     to T, as an unfused fp16/bf16 pipeline stores them; output rounded to T). Its error against the
//     fp32 reference sets the tolerance, in the FlashAttention spirit.
// A CTA of 128 threads owns 16 query rows and streams 32-key tiles of K and V through shared memory (8-key
// tiles at d=256: 32 keys of K and V in fp32 would pass the 48 KiB of static shared memory a kernel may have).
#include "attention/common.cuh"

namespace evotune_attention {

constexpr int kRefRows = 16;
constexpr int kRefThreads = 128;
constexpr int kRefThreadsPerRow = kRefThreads / kRefRows;  // 8

template <typename T>
__device__ __forceinline__ float round_to(float x) {
  return Element<T>::to_float(static_cast<T>(x));
}

}  // namespace evotune_attention

template <typename T, int D, bool kCausal, bool kRoundLikeInputs>
__global__ void __launch_bounds__(128) attention_reference(const __grid_constant__ AttentionParams p, float* out,
                                                           float* lse) {
  using namespace evotune_attention;
  constexpr int kRefKeys = D <= 128 ? 32 : 8;
  constexpr int kRefKeysPerThread = kRefKeys / kRefThreadsPerRow;  // 4 (d=256: 1)
  __shared__ float q_tile[kRefRows][D];
  __shared__ float k_tile[kRefKeys][D + 1];
  __shared__ float v_tile[kRefKeys][D];
  __shared__ float p_tile[kRefRows][kRefKeys];

  const int batch = blockIdx.z, head = blockIdx.y, m0 = blockIdx.x * kRefRows;
  const int kv_head = head / (p.hq / p.hkv);
  const int diagonal = p.skv - p.sq;
  const T* q = head_ptr<T>(p.q, p.q_strides, batch, head);
  const T* k = head_ptr<T>(p.k, p.k_strides, batch, kv_head);
  const T* v = head_ptr<T>(p.v, p.v_strides, batch, kv_head);
  const int r = threadIdx.x / kRefThreadsPerRow;  // this thread's row in the tile
  const int part = threadIdx.x % kRefThreadsPerRow;
  const int row = m0 + r;

  for (int i = threadIdx.x; i < kRefRows * D; i += kRefThreads) {
    const int rr = i / D, c = i % D;
    q_tile[rr][c] = m0 + rr < p.sq ? Element<T>::to_float(q[(m0 + rr) * p.q_strides.seq + c]) : 0.0f;
  }

  auto load_keys = [&](int n0, bool with_v) {
    __syncthreads();
    for (int i = threadIdx.x; i < kRefKeys * D; i += kRefThreads) {
      const int kk = i / D, c = i % D;
      const bool valid = n0 + kk < p.skv;
      k_tile[kk][c] = valid ? Element<T>::to_float(k[(n0 + kk) * p.k_strides.seq + c]) : 0.0f;
      if (with_v) v_tile[kk][c] = valid ? Element<T>::to_float(v[(n0 + kk) * p.v_strides.seq + c]) : 0.0f;
    }
    __syncthreads();
  };
  // This thread's scores for keys part, part + 8, ... of the tile; -inf where not visible.
  auto scores = [&](int n0, float (&s)[kRefKeysPerThread]) {
    for (int i = 0; i < kRefKeysPerThread; ++i) {
      const int kk = part + i * kRefThreadsPerRow;
      float dot = 0.0f;
      for (int c = 0; c < D; ++c) dot += q_tile[r][c] * k_tile[kk][c];
      if (kRoundLikeInputs) dot = round_to<T>(dot);
      s[i] = key_visible<kCausal>(row, n0 + kk, p.skv, diagonal) ? dot * p.softmax_scale : -CUDART_INF_F;
    }
  };
  auto row_reduce_max = [](float x) {
    for (int o = kRefThreadsPerRow / 2; o > 0; o /= 2) x = fmaxf(x, __shfl_xor_sync(0xffffffffu, x, o));
    return x;
  };
  auto row_reduce_sum = [](float x) {
    for (int o = kRefThreadsPerRow / 2; o > 0; o /= 2) x += __shfl_xor_sync(0xffffffffu, x, o);
    return x;
  };

  // Pass 1: max and sum of exp over all visible keys.
  float m = -CUDART_INF_F, l = 0.0f;
  for (int n0 = 0; n0 < p.skv; n0 += kRefKeys) {
    load_keys(n0, false);
    float s[kRefKeysPerThread];
    scores(n0, s);
    float tile_max = -CUDART_INF_F;
    for (int i = 0; i < kRefKeysPerThread; ++i) tile_max = fmaxf(tile_max, s[i]);
    tile_max = row_reduce_max(tile_max);
    const float new_m = fmaxf(m, tile_max);
    if (new_m == -CUDART_INF_F) continue;
    float tile_sum = 0.0f;
    for (int i = 0; i < kRefKeysPerThread; ++i) tile_sum += expf(s[i] - new_m);
    l = l * expf(m - new_m) + row_reduce_sum(tile_sum);
    m = new_m;
  }

  // Pass 2: probabilities and P.V. Thread owns output columns part, part + 8, ...
  constexpr int kCols = D / kRefThreadsPerRow;
  float acc[kCols];
  for (int i = 0; i < kCols; ++i) acc[i] = 0.0f;
  for (int n0 = 0; n0 < p.skv; n0 += kRefKeys) {
    load_keys(n0, true);
    float s[kRefKeysPerThread];
    scores(n0, s);
    for (int i = 0; i < kRefKeysPerThread; ++i) {
      float prob = l > 0.0f ? expf(s[i] - m) / l : 0.0f;
      if (kRoundLikeInputs) prob = round_to<T>(prob);
      p_tile[r][part + i * kRefThreadsPerRow] = prob;
    }
    __syncwarp();
    for (int i = 0; i < kCols; ++i) {
      const int c = part + i * kRefThreadsPerRow;
      float sum = 0.0f;
      for (int kk = 0; kk < kRefKeys; ++kk) sum += p_tile[r][kk] * v_tile[kk][c];
      acc[i] += sum;
    }
  }
  if (row >= p.sq) return;
  const long long out_row = (static_cast<long long>(batch) * p.hq + head) * p.sq + row;
  for (int i = 0; i < kCols; ++i) {
    const float value = kRoundLikeInputs ? round_to<T>(acc[i]) : acc[i];
    out[out_row * D + part + i * kRefThreadsPerRow] = value;
  }
  if (part == 0 && lse != nullptr) lse[out_row] = l > 0.0f ? m + logf(l) : -CUDART_INF_F;
}

// Softmax of the unfused baseline: S (fp32, [rows, skv], row = (batch, head, query) in BHS order)
// -> P in T, with the same scale and bottom-right causal mask. One CTA of 256 threads per row.
template <typename T, bool kCausal>
__global__ void __launch_bounds__(256) baseline_softmax(const float* s, T* prob, int sq, int skv, float scale) {
  using namespace evotune_attention;
  __shared__ float partial[8];
  const long long row = blockIdx.x;
  const int query = static_cast<int>(row % sq);
  const int visible = kCausal ? min(skv, query + (skv - sq) + 1) : skv;
  const float* in = s + row * skv;
  T* out = prob + row * skv;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;

  float m = -CUDART_INF_F;
  for (int j = threadIdx.x; j < visible; j += 256) m = fmaxf(m, in[j] * scale);
  for (int o = 16; o > 0; o /= 2) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
  if (lane == 0) partial[warp] = m;
  __syncthreads();
  m = partial[0];
  for (int w = 1; w < 8; ++w) m = fmaxf(m, partial[w]);
  __syncthreads();

  float l = 0.0f;
  for (int j = threadIdx.x; j < visible; j += 256) l += __expf(in[j] * scale - m);
  for (int o = 16; o > 0; o /= 2) l += __shfl_xor_sync(0xffffffffu, l, o);
  if (lane == 0) partial[warp] = l;
  __syncthreads();
  l = 0.0f;
  for (int w = 0; w < 8; ++w) l += partial[w];
  const float inverse = 1.0f / l;
  for (int j = threadIdx.x; j < skv; j += 256) out[j] = static_cast<T>(j < visible ? __expf(in[j] * scale - m) * inverse : 0.0f);
}
