#pragma once
// Hopper (sm_90a) building blocks of the wgmma mainloop, as raw PTX: mbarriers, TMA tensor loads, named
// barriers, register reallocation (setmaxnreg) and the wgmma shared-memory descriptors and fences. Each
// wrapper is one or two instructions; the PTX ISA's sections on them are the reference.
#include "attention/params.h"

namespace evotune_attention::sm90 {

__device__ __forceinline__ unsigned shared_address(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

// --- mbarrier: a 64-bit shared-memory barrier that counts arrivals and, for TMA, bytes (transaction count).
__device__ __forceinline__ void mbarrier_init(unsigned long long* bar, unsigned arrivals) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(shared_address(bar)), "r"(arrivals) : "memory");
}
// Makes the initialised barriers visible to the async proxy (TMA) and the other threads' waits.
__device__ __forceinline__ void mbarrier_init_fence() {
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}
// One arrival that also announces `bytes` of TMA data the phase must wait for.
__device__ __forceinline__ void mbarrier_arrive_expect_bytes(unsigned long long* bar, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(shared_address(bar)), "r"(bytes)
               : "memory");
}
__device__ __forceinline__ void mbarrier_arrive(unsigned long long* bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(shared_address(bar)) : "memory");
}
// `count` arrivals at once.
__device__ __forceinline__ void mbarrier_arrive_count(unsigned long long* bar, unsigned count) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0], %1;" ::"r"(shared_address(bar)), "r"(count) : "memory");
}
#ifdef EVOTUNE_BOUNDED_WAITS
// Check builds (`evotune bench --check`, the launcher's bounded_waits): a wait that nothing completes within
// EVOTUNE_WAIT_LIMIT_NS prints where it waited and traps, so that a host and kernel that disagree about a
// launch (a TMA box its barrier's byte count does not match) fail the launch instead of hanging the GPU.
#ifndef EVOTUNE_WAIT_LIMIT_NS
#define EVOTUNE_WAIT_LIMIT_NS 4000000000ull
#endif
__device__ __forceinline__ unsigned long long global_nanoseconds() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
__device__ __noinline__ void wait_expired(unsigned parity) {
  printf("evotune: bounded wait expired: CTA (%d, %d, %d) thread %d waited %llu ms for an mbarrier phase "
         "(parity %u) that nothing completes; trapping\n",
         blockIdx.x, blockIdx.y, blockIdx.z, threadIdx.x, EVOTUNE_WAIT_LIMIT_NS / 1000000ull, parity);
  __trap();
}
#endif

// Waits until the phase with this parity (0, 1, 0, ...) has completed. A barrier's "previous" phase
// (parity 1 before the first completes) counts as completed, so a producer's first wait on an empty slot
// passes at once.
__device__ __forceinline__ void mbarrier_wait(unsigned long long* bar, unsigned parity) {
  const unsigned address = shared_address(bar);
  unsigned done = 0;
#ifdef EVOTUNE_BOUNDED_WAITS
  unsigned long long started = 0;
  unsigned spins = 0;
#endif
  do {
    asm volatile(
        "{\n.reg .pred ready;\n"
        "mbarrier.try_wait.parity.shared::cta.b64 ready, [%1], %2;\n"
        "selp.u32 %0, 1, 0, ready;\n}\n"
        : "=r"(done)
        : "r"(address), "r"(parity)
        : "memory");
#ifdef EVOTUNE_BOUNDED_WAITS
    if (done == 0 && (++spins & 255) == 0) {  // the clock is read only once a wait has lasted
      const unsigned long long now = global_nanoseconds();
      if (started == 0) {
        started = now;
      } else if (now - started > EVOTUNE_WAIT_LIMIT_NS) {
        wait_expired(parity);
      }
    }
#endif
  } while (done == 0);
}

// --- TMA: a box of a tensor (descriptor from cuTensorMapEncodeTiled, a __grid_constant__ kernel argument)
// into shared memory, completing on `bar` (its transaction count must have been raised by the bytes).
__device__ __forceinline__ void tma_prefetch_descriptor(const TensorMapBytes* map) {
  asm volatile("prefetch.tensormap [%0];" ::"l"(reinterpret_cast<unsigned long long>(map)) : "memory");
}
__device__ __forceinline__ void tma_load_4d(void* smem, const TensorMapBytes* map, unsigned long long* bar, int c0,
                                            int c1, int c2, int c3) {
  asm volatile(
      "cp.async.bulk.tensor.4d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4, %5, %6}], "
      "[%2];" ::"r"(shared_address(smem)),
      "l"(reinterpret_cast<unsigned long long>(map)), "r"(shared_address(bar)), "r"(c0), "r"(c1), "r"(c2), "r"(c3)
      : "memory");
}
__device__ __forceinline__ void tma_load_3d(void* smem, const TensorMapBytes* map, unsigned long long* bar, int c0,
                                            int c1, int c2) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4, %5}], "
      "[%2];" ::"r"(shared_address(smem)),
      "l"(reinterpret_cast<unsigned long long>(map)), "r"(shared_address(bar)), "r"(c0), "r"(c1), "r"(c2)
      : "memory");
}
__device__ __forceinline__ void tma_load_5d(void* smem, const TensorMapBytes* map, unsigned long long* bar, int c0,
                                            int c1, int c2, int c3, int c4) {
  asm volatile(
      "cp.async.bulk.tensor.5d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4, %5, %6, "
      "%7}], [%2];" ::"r"(shared_address(smem)),
      "l"(reinterpret_cast<unsigned long long>(map)), "r"(shared_address(bar)), "r"(c0), "r"(c1), "r"(c2), "r"(c3),
      "r"(c4)
      : "memory");
}

// TMA store: a box of shared memory to the tensor (rows outside it are not written), in this thread's bulk
// async-group; commit_group closes the group, wait_group_read<N> returns once at most N of the thread's
// committed groups still read shared memory (the buffer may then be written again), wait_group<N> once
// their writes are done too.
__device__ __forceinline__ void tma_store_4d(const TensorMapBytes* map, const void* smem, int c0, int c1, int c2,
                                             int c3) {
  asm volatile("cp.async.bulk.tensor.4d.global.shared::cta.bulk_group [%0, {%2, %3, %4, %5}], [%1];" ::"l"(
                   reinterpret_cast<unsigned long long>(map)),
               "r"(shared_address(smem)), "r"(c0), "r"(c1), "r"(c2), "r"(c3)
               : "memory");
}
__device__ __forceinline__ void tma_store_5d(const TensorMapBytes* map, const void* smem, int c0, int c1, int c2,
                                             int c3, int c4) {
  asm volatile("cp.async.bulk.tensor.5d.global.shared::cta.bulk_group [%0, {%2, %3, %4, %5, %6}], [%1];" ::"l"(
                   reinterpret_cast<unsigned long long>(map)),
               "r"(shared_address(smem)), "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(c4)
               : "memory");
}
__device__ __forceinline__ void bulk_commit_group() { asm volatile("cp.async.bulk.commit_group;" ::: "memory"); }
template <int kPending>
__device__ __forceinline__ void bulk_wait_group_read() {
  asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(kPending) : "memory");
}
template <int kPending>
__device__ __forceinline__ void bulk_wait_group() {
  asm volatile("cp.async.bulk.wait_group %0;" ::"n"(kPending) : "memory");
}

// Orders this thread's generic-proxy shared-memory accesses before later async-proxy (TMA) ones: a TMA copy
// may overwrite shared memory this thread last wrote with plain stores only after it.
__device__ __forceinline__ void fence_proxy_async_shared() {
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

// --- Four 8x8 matrices of 2-byte elements from registers to shared memory: register i of lane l holds row l / 4,
// elements 2 (l % 4) and 2 (l % 4) + 1, of matrix i (an mma accumulator's layout once packed), and lane l
// gives the address of row l % 8 of matrix l / 8 (16 bytes, 16-byte aligned).
__device__ __forceinline__ void stmatrix_x4(void* row, unsigned r0, unsigned r1, unsigned r2, unsigned r3) {
  asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};" ::"r"(shared_address(row)),
               "r"(r0), "r"(r1), "r"(r2), "r"(r3)
               : "memory");
}

// --- Named barriers (ids 1..15; 0 is __syncthreads): `threads` of the CTA, a multiple of 32, meet.
__device__ __forceinline__ void named_barrier_sync(int id, int threads) {
  asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(threads) : "memory");
}
__device__ __forceinline__ void named_barrier_arrive(int id, int threads) {
  asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(threads) : "memory");
}

// --- Register reallocation between warpgroups (every warp of the warpgroup executes it).
template <int kRegisters>
__device__ __forceinline__ void registers_decrease() {
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(kRegisters));
}
template <int kRegisters>
__device__ __forceinline__ void registers_increase() {
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(kRegisters));
}

// --- wgmma
// A shared-memory matrix descriptor for the 128-byte swizzle, the layout TMA writes with
// CU_TENSOR_MAP_SWIZZLE_128B: rows of 128 bytes (64 elements), 8-row atoms of 1024 bytes, each 16-byte
// chunk of a row xor-ed with the row's index in its atom. `leading`: bytes between 64-element column
// blocks (MN-major operands wider than 64); `stride`: bytes between 8-row groups. The start address may
// move by 32 bytes inside an atom (the k16 steps of a K-major row): the swizzle is applied to the address.
__device__ __forceinline__ unsigned long long smem_descriptor(const void* smem, unsigned leading, unsigned stride) {
  const unsigned long long address = shared_address(smem);
  return ((address & 0x3FFFF) >> 4) | (static_cast<unsigned long long>((leading >> 4) & 0x3FFF) << 16) |
         (static_cast<unsigned long long>((stride >> 4) & 0x3FFF) << 32) | (1ull << 62);
}
// The descriptor of the matrix `bytes` further on in shared memory: the start address is the low 14 bits,
// in 16-byte units, and a shared address (below 256 KiB) plus an offset inside shared memory never carries
// out of them, so moving a descriptor is one add. The mainloop builds one descriptor per slot and moves it
// by compile-time offsets: built from the address for every wgmma, each took five uniform-datapath
// instructions, ~60 per block and warp (ncu, probe/call13).
__device__ __forceinline__ unsigned long long descriptor_plus(unsigned long long descriptor, unsigned bytes) {
  return descriptor + (bytes >> 4);
}
// Orders this warpgroup's register and shared-memory accesses before the wgmma that follow.
__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory"); }
// Waits until at most kPending committed wgmma groups of this warpgroup are in flight.
template <int kPending>
__device__ __forceinline__ void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(kPending) : "memory");
}
// The compiler sees a wgmma's registers as written when the instruction is issued; the hardware reads and
// writes them until the wait. Touching them here, after the wait, keeps their uses after it and their
// registers (the accumulators and the register A operand) from being reused while the wgmma runs.
template <int N>
__device__ __forceinline__ void hold_registers(float (&r)[N]) {
#pragma unroll
  for (int i = 0; i < N; ++i) asm volatile("" : "+f"(r[i])::"memory");
}
template <int N>
__device__ __forceinline__ void hold_registers(unsigned (&r)[N]) {
#pragma unroll
  for (int i = 0; i < N; ++i) asm volatile("" : "+r"(r[i])::"memory");
}

// threadIdx.x, read where it is called: a volatile read is not moved out of a loop (see opaque).
__device__ __forceinline__ int thread_index() {
  int index;
  asm volatile("mov.u32 %0, %%tid.x;" : "=r"(index));
  return index;
}
// The value unchanged, but opaque to the compiler: what is computed from it cannot be hoisted above this
// point (out of a loop), where its registers would stay live.
__device__ __forceinline__ int opaque(int value) {
  asm volatile("" : "+r"(value));
  return value;
}

}  // namespace evotune_attention::sm90
