// out[0] = X[0] + X[1] + ... + X[n - 1], fp32, in one kernel launch.
//
// reduce_sum: a grid-stride sum. Each block walks tiles of BLOCK * ITEMS vectors of VEC floats (a
// vector is one 4-, 8- or 16-byte load), every thread keeping ITEMS independent loads in flight and
// ITEMS running sums. The block's threads then meet (warp shuffles, then shared memory) and thread 0
// stores the block's sum in partials[blockIdx.x]. The last block to finish (an atomic arrival counter
// after a memory fence) adds the partials in double precision, adds the n % VEC tail elements, writes
// out[0], and sets the counter back to 0 so the next launch starts clean.
//
// Why this shape: evotune poisons out[0] before each checked run and launches the kernel back to back
// with no host code in between, so out[0] is written and never read, and all scratch state (partials,
// counter: inputs filled with zeros once) is left as the next launch needs it.
//
// reference_sum: one block, a double-precision strided sum and tree; it touches no scratch.
//
// BLOCK, ITEMS and VEC are template arguments: reduce_sum<BLOCK, ITEMS, VEC>. BLOCKS_PER_SM only sets
// the grid (the spec's launch). NVRTC-compatible: no host headers.

namespace {

template <int V>
struct alignas(4 * V) FloatVec {
  float v[V];
};

template <typename T>
__device__ __forceinline__ T warp_sum(T x) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) x += __shfl_xor_sync(0xffffffffu, x, o);
  return x;
}

// Sum of x over the block; the result is valid in thread 0. `scratch` holds one T per warp.
template <int BLOCK, typename T>
__device__ __forceinline__ T block_sum(T x, T* scratch) {
  constexpr int WARPS = BLOCK / 32;
  x = warp_sum(x);
  if constexpr (WARPS > 1) {
    if ((threadIdx.x & 31) == 0) scratch[threadIdx.x >> 5] = x;
    __syncthreads();
    if (threadIdx.x < 32) {
      x = threadIdx.x < WARPS ? scratch[threadIdx.x] : T(0);
      x = warp_sum(x);
    }
    __syncthreads();  // scratch may be reused
  }
  return x;
}

}  // namespace

template <int BLOCK, int ITEMS, int VEC>
__global__ void __launch_bounds__(BLOCK)
reduce_sum(const float* __restrict__ X, float* partials, unsigned* counter, float* out, int n) {
  static_assert(BLOCK % 32 == 0 && BLOCK <= 1024, "BLOCK: whole warps, at most 1024");
  using Vec = FloatVec<VEC>;
  __shared__ float scratch_f[BLOCK / 32];
  __shared__ double scratch_d[BLOCK / 32];
  __shared__ bool is_last;

  const Vec* xv = reinterpret_cast<const Vec*>(X);
  const long long nv = n / VEC;  // whole vectors; the n % VEC tail is added by the last block
  constexpr long long TILE = static_cast<long long>(BLOCK) * ITEMS;
  const long long stride = static_cast<long long>(gridDim.x) * TILE;

  float acc[ITEMS];
#pragma unroll
  for (int i = 0; i < ITEMS; ++i) acc[i] = 0.0f;

  for (long long base = blockIdx.x * TILE + threadIdx.x; base < nv; base += stride) {
    Vec buf[ITEMS];
    if (base + (ITEMS - 1) * BLOCK < nv) {  // a whole tile: ITEMS unchecked loads in flight
#pragma unroll
      for (int i = 0; i < ITEMS; ++i) buf[i] = xv[base + i * BLOCK];
    } else {
#pragma unroll
      for (int i = 0; i < ITEMS; ++i) {
        if (base + i * BLOCK < nv) {
          buf[i] = xv[base + i * BLOCK];
        } else {
#pragma unroll
          for (int e = 0; e < VEC; ++e) buf[i].v[e] = 0.0f;
        }
      }
    }
#pragma unroll
    for (int i = 0; i < ITEMS; ++i)
#pragma unroll
      for (int e = 0; e < VEC; ++e) acc[i] += buf[i].v[e];
  }
  float sum = 0.0f;
#pragma unroll
  for (int i = 0; i < ITEMS; ++i) sum += acc[i];
  sum = block_sum<BLOCK>(sum, scratch_f);

  if (threadIdx.x == 0) {
    partials[blockIdx.x] = sum;
    __threadfence();  // the partial is visible device-wide before this block is counted
    is_last = atomicAdd(counter, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (!is_last) return;

  // The last block: every other block's partial is in memory (their fences came before their counts).
  double total = 0.0;
  for (int b = threadIdx.x; b < static_cast<int>(gridDim.x); b += BLOCK) total += static_cast<double>(__ldcg(partials + b));
  const int tail = n - static_cast<int>(nv * VEC);  // 0 .. VEC - 1 elements
  if (threadIdx.x < tail) total += static_cast<double>(X[nv * VEC + threadIdx.x]);
  total = block_sum<BLOCK>(total, scratch_d);
  if (threadIdx.x == 0) {
    out[0] = static_cast<float>(total);
    *counter = 0u;  // ready for the next launch
  }
}

// The reference: one block of 1024 threads, a strided sum in double, then a tree in shared memory.
// Launched as block 1024, grid 1.
extern "C" __global__ void reference_sum(const float* X, float* partials, unsigned* counter, float* out, int n) {
  (void)partials, (void)counter;  // the kernel's scratch: not the reference's business
  __shared__ double s[1024];
  double sum = 0.0;
#pragma unroll 8
  for (int i = threadIdx.x; i < n; i += blockDim.x) sum += static_cast<double>(X[i]);
  s[threadIdx.x] = sum;
  __syncthreads();
  for (int half = blockDim.x / 2; half > 0; half >>= 1) {
    if (threadIdx.x < half) s[threadIdx.x] += s[threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[0] = static_cast<float>(s[0]);
}
