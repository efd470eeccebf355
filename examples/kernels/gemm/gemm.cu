// C[m, n] = A[m, k] * B[k, n]: row-major, fp16 in, fp32 accumulate, fp16 out.
//
// gemm_tc: a tiled tensor-core GEMM for sm_80 and later (mma.sync m16n8k16, ldmatrix, cp.async).
//   * A block of WARPS_M x WARPS_N warps computes a BLOCK_M x BLOCK_N tile of C; each warp a
//     (BLOCK_M / WARPS_M) x (BLOCK_N / WARPS_N) sub-tile, held in fp32 registers.
//   * The k dimension is walked BLOCK_K at a time through a ring of STAGES shared-memory buffers filled
//     with cp.async, so that STAGES - 1 tiles are in flight while one is multiplied.
//   * Shared-memory rows are padded by SMEM_PAD halves (0 or 8): with 8, the 16-byte rows that one
//     ldmatrix phase reads fall in distinct banks (row stride = an odd number of 16-byte units).
//   * Blocks are numbered GROUP_M tile-rows at a time (a band of GROUP_M x (n / BLOCK_N) tiles), so that
//     blocks running together share A and B tiles in L2.
// The tile sizes must divide the problem (the spec's restrictions say so): there is no tail code.
//
// reference_gemm: one thread per element of C, a plain fp32 loop over k.
//
// Tunables BLOCK_M, BLOCK_N, BLOCK_K, WARPS_M, WARPS_N, STAGES are template arguments (in that order);
// SMEM_PAD and GROUP_M come as -D defines. NVRTC-compatible: no host headers.

#include <cuda_fp16.h>

#ifndef SMEM_PAD
#define SMEM_PAD 8
#endif
#ifndef GROUP_M
#define GROUP_M 8
#endif

namespace {

__device__ __forceinline__ unsigned smem_u32(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ void cp_async_16(unsigned dst, const void* src) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(src));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}

__device__ __forceinline__ void ldmatrix_x4(unsigned (&r)[4], unsigned addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr));
}
__device__ __forceinline__ void ldmatrix_x4_trans(unsigned (&r)[4], unsigned addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr));
}

// d = a * b + d for one m16n8k16 tile (fp16 inputs, fp32 accumulators).
__device__ __forceinline__ void mma_16816(float (&d)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
      "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

}  // namespace

template <int BLOCK_M, int BLOCK_N, int BLOCK_K, int WARPS_M, int WARPS_N, int STAGES>
__global__ void __launch_bounds__(WARPS_M * WARPS_N * 32)
gemm_tc(const __half* __restrict__ A, const __half* __restrict__ B, __half* __restrict__ C, int m, int n,
        int k) {
  constexpr int THREADS = WARPS_M * WARPS_N * 32;
  constexpr int WTM = BLOCK_M / WARPS_M;  // warp tile
  constexpr int WTN = BLOCK_N / WARPS_N;
  constexpr int MI = WTM / 16;  // m16 fragments per warp
  constexpr int NI = WTN / 8;   // n8 fragments per warp
  constexpr int LDA = BLOCK_K + SMEM_PAD;  // shared row strides, halves
  constexpr int LDB = BLOCK_N + SMEM_PAD;
  constexpr int A_STAGE = BLOCK_M * LDA;  // halves per stage
  constexpr int B_STAGE = BLOCK_K * LDB;
  constexpr int A_CHUNKS = BLOCK_M * BLOCK_K / 8;  // 16-byte copies per stage
  constexpr int B_CHUNKS = BLOCK_K * BLOCK_N / 8;
  static_assert(WTM % 16 == 0 && WTN % 16 == 0, "warp tile must be a multiple of 16 x 16");
  static_assert(BLOCK_K % 16 == 0 && STAGES >= 2, "BLOCK_K multiple of 16, STAGES >= 2");
  static_assert(SMEM_PAD % 8 == 0, "rows must stay 16-byte aligned");

  extern __shared__ __align__(16) unsigned char smem_raw[];
  __half* sA = reinterpret_cast<__half*>(smem_raw);
  __half* sB = sA + STAGES * A_STAGE;

  // Grouped block order: GROUP_M tile-rows of C at a time, column by column inside the group.
  const int tiles_m = m / BLOCK_M;
  const int tiles_n = n / BLOCK_N;
  const int pid = blockIdx.x;
  const int per_group = GROUP_M * tiles_n;
  const int first_m = (pid / per_group) * GROUP_M;
  const int group_rows = min(tiles_m - first_m, GROUP_M);
  const int tile_m = first_m + (pid % per_group) % group_rows;
  const int tile_n = (pid % per_group) / group_rows;

  const int tid = threadIdx.x;
  const int lane = tid & 31;
  const int warp = tid >> 5;
  const int warp_m = warp / WARPS_N;
  const int warp_n = warp % WARPS_N;

  const __half* gA = A + static_cast<size_t>(tile_m) * BLOCK_M * k;
  const __half* gB = B + static_cast<size_t>(tile_n) * BLOCK_N;

  auto load_stage = [&](int slot, int kt) {
    const __half* a = gA + kt * BLOCK_K;
    const __half* b = gB + static_cast<size_t>(kt) * BLOCK_K * n;
    __half* da = sA + slot * A_STAGE;
    __half* db = sB + slot * B_STAGE;
#pragma unroll
    for (int i = 0; i < (A_CHUNKS + THREADS - 1) / THREADS; ++i) {
      const int c = tid + i * THREADS;
      if (A_CHUNKS % THREADS == 0 || c < A_CHUNKS) {
        const int row = c / (BLOCK_K / 8), col = (c % (BLOCK_K / 8)) * 8;
        cp_async_16(smem_u32(da + row * LDA + col), a + static_cast<size_t>(row) * k + col);
      }
    }
#pragma unroll
    for (int i = 0; i < (B_CHUNKS + THREADS - 1) / THREADS; ++i) {
      const int c = tid + i * THREADS;
      if (B_CHUNKS % THREADS == 0 || c < B_CHUNKS) {
        const int row = c / (BLOCK_N / 8), col = (c % (BLOCK_N / 8)) * 8;
        cp_async_16(smem_u32(db + row * LDB + col), b + static_cast<size_t>(row) * n + col);
      }
    }
  };

  float acc[MI][NI][4];
#pragma unroll
  for (int i = 0; i < MI; ++i)
#pragma unroll
    for (int j = 0; j < NI; ++j)
#pragma unroll
      for (int r = 0; r < 4; ++r) acc[i][j][r] = 0.0f;

  const int k_tiles = k / BLOCK_K;

  // Prologue: STAGES - 1 tiles in flight (one commit group each, empty past the end).
#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    if (s < k_tiles) load_stage(s, s);
    cp_async_commit();
  }

  // ldmatrix addresses inside a stage, per lane (see the fragment layouts of mma.m16n8k16):
  //   A (x4): lanes 0-15 give rows 0-15 at k 0, lanes 16-31 rows 0-15 at k 8.
  //   B (x4.trans): lane gives k row (lane & 7) + 8 * ((lane >> 3) & 1), n column 8 * (lane >> 4).
  const int a_row = warp_m * WTM + (lane & 15);
  const int a_col = (lane >> 4) * 8;
  const int b_row = (lane & 7) + ((lane >> 3) & 1) * 8;
  const int b_col = warp_n * WTN + (lane >> 4) * 8;

  for (int kt = 0; kt < k_tiles; ++kt) {
    cp_async_wait<STAGES - 2>();  // tile kt has landed (for this thread) ...
    __syncthreads();              // ... for every thread; and slot (kt - 1) % STAGES is free again
    {
      const int next = kt + STAGES - 1;
      if (next < k_tiles) load_stage(next % STAGES, next);
      cp_async_commit();
    }
    const int slot = kt % STAGES;
    const unsigned a_base = smem_u32(sA + slot * A_STAGE + a_row * LDA + a_col);
    const unsigned b_base = smem_u32(sB + slot * B_STAGE + b_row * LDB + b_col);
    // Fragments are double-buffered in program order: those of step kk + 1 are loaded before the MMAs
    // of step kk are issued (the asm statements are volatile, so the compiler keeps this order), and
    // the shared-memory latency hides behind the tensor-core work.
    constexpr int KSTEPS = BLOCK_K / 16;
    unsigned af[2][MI][4];
    unsigned bf[2][NI][2];
    auto load_frags = [&](int buf, int kk) {
#pragma unroll
      for (int i = 0; i < MI; ++i) ldmatrix_x4(af[buf][i], a_base + 2 * (i * 16 * LDA + kk));
#pragma unroll
      for (int j = 0; j < NI; j += 2) {
        unsigned r[4];
        ldmatrix_x4_trans(r, b_base + 2 * (kk * LDB + j * 8));
        bf[buf][j][0] = r[0];
        bf[buf][j][1] = r[1];
        bf[buf][j + 1][0] = r[2];
        bf[buf][j + 1][1] = r[3];
      }
    };
    load_frags(0, 0);
#pragma unroll
    for (int ks = 0; ks < KSTEPS; ++ks) {
      if (ks + 1 < KSTEPS) load_frags((ks + 1) & 1, (ks + 1) * 16);
#pragma unroll
      for (int i = 0; i < MI; ++i)
#pragma unroll
        for (int j = 0; j < NI; ++j) mma_16816(acc[i][j], af[ks & 1][i], bf[ks & 1][j][0], bf[ks & 1][j][1]);
    }
  }
  cp_async_wait<0>();

  // Epilogue: accumulator (i, j) holds rows g and g + 8, columns 2t and 2t + 1 of its 16 x 8 tile.
  const int g = lane >> 2, t = lane & 3;
  __half* gC = C + static_cast<size_t>(tile_m * BLOCK_M + warp_m * WTM) * n + tile_n * BLOCK_N + warp_n * WTN;
#pragma unroll
  for (int i = 0; i < MI; ++i)
#pragma unroll
    for (int j = 0; j < NI; ++j) {
      __half* p = gC + static_cast<size_t>(i * 16 + g) * n + j * 8 + 2 * t;
      *reinterpret_cast<__half2*>(p) = __floats2half2_rn(acc[i][j][0], acc[i][j][1]);
      *reinterpret_cast<__half2*>(p + 8 * static_cast<size_t>(n)) = __floats2half2_rn(acc[i][j][2], acc[i][j][3]);
    }
}

// The reference: one thread per element of C, fp32 accumulation in k order. Launched as
// block (16, 16), grid (cdiv(n, 16), cdiv(m, 16)).
extern "C" __global__ void reference_gemm(const __half* A, const __half* B, __half* C, int m, int n, int k) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= m || col >= n) return;
  float sum = 0.0f;
  for (int i = 0; i < k; ++i)
    sum += __half2float(A[static_cast<size_t>(row) * k + i]) * __half2float(B[static_cast<size_t>(i) * n + col]);
  C[static_cast<size_t>(row) * n + col] = __float2half_rn(sum);
}
