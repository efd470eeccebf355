#pragma once
// mma=wgmma's resource arithmetic, written once and compiled by both compilers: by NVRTC into
// mainloop_wgmma.cuh (the shared-memory carve-up, the setmaxnreg counts) and by the host compiler into the
// validity rules and the launch plan (attention_family.cpp). Only plain arithmetic here, no CUDA types.
#if defined(__CUDACC__)
#define EVOTUNE_WGMMA_CONSTEXPR __host__ __device__ constexpr
#else
#define EVOTUNE_WGMMA_CONSTEXPR constexpr
#endif

namespace evotune_wgmma {

// A CTA is one producer warpgroup and block_m / 64 consumer warpgroups.
EVOTUNE_WGMMA_CONSTEXPR int consumers(int block_m) { return block_m / 64; }
EVOTUNE_WGMMA_CONSTEXPR int threads(int block_m) { return (consumers(block_m) + 1) * 128; }

// Registers per thread the launch gives (__launch_bounds__(threads, min_ctas)): the register file shared by
// the min_ctas CTAs an SM must hold, in steps of 8, at most 248 where setmaxnreg is used (its largest count
// is 256 minus the 8 it reserves).
EVOTUNE_WGMMA_CONSTEXPR int launch_registers(int block_m, int min_ctas) {
  return (65536 / (threads(block_m) * min_ctas)) / 8 * 8 > 248 ? 248 : (65536 / (threads(block_m) * min_ctas)) / 8 * 8;
}

// Registers per consumer thread. With producer_regs > 0 (setmaxnreg) the producer warpgroup keeps that
// many and the consumers share the rest of the CTA's share, in multiples of 8, at most 256; without it each
// thread has what the launch gives, 255 at most.
EVOTUNE_WGMMA_CONSTEXPR int consumer_registers(int block_m, int producer_regs, int min_ctas) {
  return producer_regs == 0
             ? (threads(block_m) * min_ctas <= 256 ? 255 : launch_registers(block_m, min_ctas))
             : ((launch_registers(block_m, min_ctas) * threads(block_m) - producer_regs * 128) /
                (consumers(block_m) * 128)) / 8 * 8 > 256
                   ? 256
                   : ((launch_registers(block_m, min_ctas) * threads(block_m) - producer_regs * 128) /
                      (consumers(block_m) * 128)) / 8 * 8;
}

// Shared memory, in bytes from a 1024-aligned base (the 128-byte swizzle's atoms must be aligned): the
// q_buffers Q tiles (two: the next tile's Q loads while this one's runs and leaves through its own), the
// output tile the rows leave from by TMA store (o_store 1, tma: block_m x d; 2, tma_half: half the head
// dim's 64-column blocks, a ring the rows pass through one column block at a time), the `stages` K slots,
// the `stages` V slots (dense 128-byte-swizzled rows of 2-byte elements), then the
// mbarriers: a full and an empty per Q buffer, a full and an empty per K and per V slot, then 16 bytes of
// scheduler words: the tile index the producer hands the consumers with each Q buffer (scheduler=dynamic),
// stream_k's "this CTA merges the tile" flag and its tail iteration count. The allocation asks for 1 KiB
// more, the slack of aligning its base.
EVOTUNE_WGMMA_CONSTEXPR int q_bytes(int block_m, int d) { return block_m * d * 2; }
EVOTUNE_WGMMA_CONSTEXPR int kv_bytes(int block_n, int d) { return block_n * d * 2; }
// o_store: 0 threads (no output tile), 1 tma, 2 tma_half.
EVOTUNE_WGMMA_CONSTEXPR int o_tile_bytes(int block_m, int d, int o_store) {
  return o_store == 0 ? 0 : o_store == 1 ? q_bytes(block_m, d) : q_bytes(block_m, d) / 2;
}
EVOTUNE_WGMMA_CONSTEXPR int barrier_offset(int block_m, int block_n, int stages, int d, int q_buffers, int o_store) {
  return q_buffers * q_bytes(block_m, d) + o_tile_bytes(block_m, d, o_store) + 2 * stages * kv_bytes(block_n, d);
}
EVOTUNE_WGMMA_CONSTEXPR int barriers(int stages, int q_buffers) { return 2 * q_buffers + 4 * stages; }
EVOTUNE_WGMMA_CONSTEXPR int tile_slot_offset(int block_m, int block_n, int stages, int d, int q_buffers,
                                             int o_store) {
  return barrier_offset(block_m, block_n, stages, d, q_buffers, o_store) + barriers(stages, q_buffers) * 8;
}
EVOTUNE_WGMMA_CONSTEXPR int shared_bytes(int block_m, int block_n, int stages, int d, int q_buffers, int o_store) {
  return 1024 + tile_slot_offset(block_m, block_n, stages, d, q_buffers, o_store) + 16;
}

}  // namespace evotune_wgmma
