#pragma once
// Attention forward, FlashAttention-2 style: O = softmax(Q.K^T * scale) . V with an online softmax and
// fp32 accumulation, one CTA per (block_m query rows, head, batch, K/V chunk). The pipeline (Q load, K/V
// blocks through a `stages`-deep cp.async ring, block skipping and masking, the split into K/V chunks and
// the GQA packing of rows, combine.cuh's merge of the chunks) lives here once; the arithmetic of one K/V
// block is the mainloop's, chosen by the `mma` tunable:
//   kMma = 0  scalar FMA      (mainloop_scalar.cuh)
//   kMma = 1  mma.sync m16n8k16 tensor cores with ldmatrix (mainloop_mma.cuh)
// The kernel's one template argument is the struct of the config's tunables (KernelConfig below).
#include "attention/combine.cuh"
#include "attention/common.cuh"
#include "attention/mainloop_mma.cuh"
#include "attention/mainloop_scalar.cuh"

namespace evotune_attention {

// The kernel's configuration, read by name from `Tunables`: the struct the host generates for each compile
// (attention_family.cpp's compile_request), one `static constexpr int` per tunable named as in the
// family's parameters(), plus the problem's element type T, head dim d and causality. A tunable is added
// in one place on each side: parameters() on the host, and here where the kernel reads it.
template <class Tunables>
struct KernelConfig {
  using T = typename Tunables::T;
  static constexpr int D = Tunables::d;
  static constexpr int kBlockM = Tunables::block_m;
  static constexpr int kBlockN = Tunables::block_n;
  static constexpr int kWarps = Tunables::warps;
  static constexpr int kThreads = Tunables::warps * 32;
  static constexpr int kStages = Tunables::stages;
  static constexpr bool kFullBarrier = Tunables::barrier == 0;  // full: a barrier around every shared-memory phase
  static constexpr int kVecBytes = Tunables::vec_bytes;
  static constexpr bool kCausal = Tunables::causal;
  static constexpr int kLayout = Tunables::smem_layout;
  static constexpr bool kQInRegisters = Tunables::q_frags == 1;  // smem: re-read Q's fragments every block
  static constexpr bool kOverlap = Tunables::overlap == 1;
  static constexpr int kQkSplit = Tunables::qk_split;  // accumulator sets in Q.K^T (mma_sync)
  static constexpr int kKvWarps = Tunables::kv_warps;  // warps that split each K/V block's keys (mma_sync)
  static constexpr int kSplits = Tunables::splits;     // 0: the launch plan's count (p.splits)
  static constexpr bool kCombineInKernel = Tunables::combine == 1;  // combine=last_cta
  static constexpr bool kPack = Tunables::pack_gqa == 1;
  using Layout = TileLayout<D, kLayout>;
  using Tile = WorkTile<kPack, kSplits>;
};

// The end of a tile: the mainloop's epilogue writes its rows (to O, or to the split workspace), and with
// combine=last_cta the tile's last chunk merges them.
template <class Cfg, class Mainloop, class Tile>
__device__ __forceinline__ void finish_tile(Mainloop& mainloop, const Tile& w, const AttentionParams& p,
                                            void* reusable_smem) {
  mainloop.epilogue(w, p, reusable_smem);
  if constexpr (Cfg::kCombineInKernel) {
    if (w.partial()) combine_if_last<typename Cfg::T, Cfg::D, Cfg::kBlockM>(w, p);
  }
}

template <class Cfg, class Mainloop>
__device__ __forceinline__ void attention_forward(const AttentionParams& p) {
  using T = typename Cfg::T;
  using Layout = typename Cfg::Layout;
  constexpr int D = Cfg::D;
  constexpr int kStages = Cfg::kStages;
  constexpr int kTileQ = Layout::elements(Cfg::kBlockM);
  constexpr int kTileKV = Layout::elements(Cfg::kBlockN);
  constexpr unsigned kSmemBytes = (kTileQ + 2 * kStages * kTileKV) * 2 + Mainloop::kScratchBytes;
  CtaClock clock;

  extern __shared__ __align__(128) unsigned char smem[];
  // The host computes the same size (attention_family.cpp); a mismatch must fail loudly, not corrupt.
  if (dynamic_smem_bytes() < kSmemBytes) __trap();
  T* q_smem = reinterpret_cast<T*>(smem);
  T* k_smem = q_smem + kTileQ;
  T* v_smem = k_smem + kStages * kTileKV;
  void* scratch = v_smem + kStages * kTileKV;

  const typename Cfg::Tile w =
      make_work_tile<Cfg::kBlockM, Cfg::kBlockN, Cfg::kCausal, Cfg::kPack, Cfg::kSplits>(p);
  const T* k = head_ptr<T>(p.k, p.k_strides, w.batch, w.kv_head);
  const T* v = head_ptr<T>(p.v, p.v_strides, w.batch, w.kv_head);
  const int k_row = static_cast<int>(p.k_strides.seq), v_row = static_cast<int>(p.v_strides.seq);  // < 2^23
  // This CTA's chunk of K/V blocks, [w.begin, w.end); the ring and the commit groups count from its start.
  const int n_blocks = w.end - w.begin;

  auto load_kv = [&](int block, int stage) {
    const int n0 = block * Cfg::kBlockN;
    if (n0 + Cfg::kBlockN <= p.skv) {
      load_tile<T, D, Cfg::kBlockN, Cfg::kLayout, Cfg::kVecBytes, Cfg::kThreads, true>(
          k_smem + stage * kTileKV, k + static_cast<long long>(n0) * k_row, k_row, p.skv - n0);
      load_tile<T, D, Cfg::kBlockN, Cfg::kLayout, Cfg::kVecBytes, Cfg::kThreads, true>(
          v_smem + stage * kTileKV, v + static_cast<long long>(n0) * v_row, v_row, p.skv - n0);
    } else {
      load_tile<T, D, Cfg::kBlockN, Cfg::kLayout, Cfg::kVecBytes, Cfg::kThreads>(
          k_smem + stage * kTileKV, k + static_cast<long long>(n0) * k_row, k_row, p.skv - n0);
      load_tile<T, D, Cfg::kBlockN, Cfg::kLayout, Cfg::kVecBytes, Cfg::kThreads>(
          v_smem + stage * kTileKV, v + static_cast<long long>(n0) * v_row, v_row, p.skv - n0);
    }
  };

  // Prologue: Q and the first kStages - 1 K/V blocks, one commit group per block (Q rides in the first).
  load_q_tile<T, D, Cfg::kBlockM, Cfg::kLayout, Cfg::kVecBytes, Cfg::kThreads>(q_smem, w, p);
  if constexpr (kStages == 1) cp_async_commit();
#pragma unroll
  for (int s = 0; s < kStages - 1; ++s) {
    if (s < n_blocks) load_kv(w.begin + s, s);
    cp_async_commit();  // always, so that group counting stays uniform
  }

  Mainloop mainloop;
  if constexpr (Mainloop::kScratchBytes > 0) mainloop.set_scratch(scratch);
  if constexpr (Cfg::kOverlap) {
    // Software pipelining (mma_sync, stages >= 3): iteration j issues block j+1's Q.K^T before block j's
    // softmax and P.V, in one basic block, so the tensor pipe has work while the softmax runs. Live
    // buffers in iteration j: V(j) and K(j+1); the barrier at its top frees block j-1's buffer for
    // block j + stages - 1.
    //
    // Commit groups: the prologue committed blocks 0 .. stages-2, and iteration j commits block
    // j + stages - 1 (possibly empty), so at the top of iteration j, stages - 1 + j groups exist and
    // block j + 1 is complete once at most stages - 3 are pending. (An earlier version also loaded
    // block stages-1 before the loop: one extra group, so from the third block on the wait returned
    // before block j + 1 had landed. The correctness check caught it as a register-allocation-dependent
    // error.)
    static_assert(kStages >= 3, "overlap keeps three blocks in shared memory");
    // j counts the chunk's blocks from 0; the block itself is w.begin + j. An empty chunk runs no
    // iteration and its epilogue writes an empty row (LSE -inf).
    cp_async_wait<kStages - 2>();  // block 0
    __syncthreads();
    mainloop.load_q(q_smem);
    typename Mainloop::Scores current;
    if (n_blocks > 0) mainloop.compute_scores(current, k_smem);
    const int unmasked = unmasked_blocks<Cfg::kBlockN, Cfg::kCausal>(w, p.skv) - w.begin;
    for (int j = 0; j < n_blocks; ++j) {
      cp_async_wait<kStages - 3>();  // block j + 1
      __syncthreads();  // everyone's copies landed; everyone is done with block j - 1's buffer
      const int next = j + kStages - 1;
      if (next < n_blocks) load_kv(w.begin + next, next % kStages);
      cp_async_commit();
      // Past the last block this reads a stale buffer; the result is discarded. Computing it
      // unconditionally keeps the loop body free of branches the scheduler cannot look across.
      typename Mainloop::Scores upcoming;
      mainloop.compute_scores(upcoming, k_smem + ((j + 1) % kStages) * kTileKV);
      // Masking is compiled into the second path only: a uniform branch per block, instead of masking
      // arithmetic on every block (which the compiler would otherwise if-convert into the loop).
      const int n0 = (w.begin + j) * Cfg::kBlockN;
      if (j < unmasked) {
        mainloop.template softmax_and_pv<false>(current, v_smem + (j % kStages) * kTileKV, n0, w, p);
      } else {
        mainloop.template softmax_and_pv<true>(current, v_smem + (j % kStages) * kTileKV, n0, w, p);
      }
#pragma unroll
      for (int mt = 0; mt < Mainloop::kMTiles; ++mt) {
#pragma unroll
        for (int nt = 0; nt < Mainloop::kNTiles; ++nt) {
#pragma unroll
          for (int i = 0; i < 4; ++i) current[mt][nt][i] = upcoming[mt][nt][i];
        }
      }
    }
  } else {
    const int unmasked = unmasked_blocks<Cfg::kBlockN, Cfg::kCausal>(w, p.skv) - w.begin;
    for (int j = 0; j < n_blocks; ++j) {
      const int stage = kStages == 1 ? 0 : j % kStages;
      if constexpr (kStages == 1) {
        if (j > 0) __syncthreads();  // everyone is done reading the single buffer
        load_kv(w.begin + j, 0);
        cp_async_commit();
        cp_async_wait<0>();
        __syncthreads();
      } else {
        cp_async_wait<kStages - 2>();  // block j has landed (this thread's copies)
        __syncthreads();               // ... everyone's; and everyone is done with block j - 1's buffer
        const int next = j + kStages - 1;
        if (next < n_blocks) load_kv(w.begin + next, next % kStages);
        cp_async_commit();
      }
      if (j == 0) mainloop.load_q(q_smem);
      const T* k_block = k_smem + stage * kTileKV;
      const T* v_block = v_smem + stage * kTileKV;
      // Masking is compiled into the second path only (see the overlap loop above).
      const int n0 = (w.begin + j) * Cfg::kBlockN;
      if (j < unmasked) {
        mainloop.template compute_block<false>(k_block, v_block, n0, w, p);
      } else {
        mainloop.template compute_block<true>(k_block, v_block, n0, w, p);
      }
    }
  }
  // An empty (or short) chunk may leave prologue copies in flight: let them land before the CTA ends (and
  // before the epilogue may reuse the K/V buffers).
  cp_async_wait<0>();
#if __CUDA_ARCH__ >= 900
  // A second kernel merges the chunks (a programmatic dependent launch that waits in griddepcontrol.wait for
  // this grid to finish): let it be scheduled once every CTA is past its main loop, so that its launch
  // latency hides behind the epilogues. It stood at the kernel's start before, where the combine's CTAs sit
  // resident and waiting for the whole call: the LLaMA model's graphed decode step was 4 us slower with it
  // there than here at b2 x 2048 (level at b1 x 2048, b4 x 1536, b8 x 1024), and alone, with L2 flushed,
  // this point is 1.1% and 2.4% faster at b2 x 2112 and b4 x 1536, 0.7% slower at b1 x 2048 (pdl_trigger in
  // evidence/results/h100/llama/). No trigger at all (the combine launched as the grid ends) was 5-9% slower
  // alone; on split chunk grids at d=64 and d=256 this point is 0.9% and 2.0% faster, on a decode grid of 8
  // chunks at b4 hq64 0.6% slower (trigger_more).
  if constexpr (Cfg::kSplits != 1 && !Cfg::kCombineInKernel) asm volatile("griddepcontrol.launch_dependents;");
#endif
  if constexpr (Cfg::kKvWarps > 1) __syncthreads();  // every warp is done with the K/V buffers
  if constexpr (Cfg::kSplits == 0 && Cfg::kBlockM < 64) {
    // splits=auto: whether this launch splits is known only now. One branch here, so that each path's
    // stores know where they go, instead of a branch at every store of the epilogue. Only for tiles of
    // under 64 rows (decode): their CTAs walk short chunks, so the epilogue is a large part of their time.
    // Larger tiles keep one epilogue with the branch in it: a second copy pushed the 128-row, 8-warp bf16
    // d=128 build (sm_90a) from no spill to 255 registers and a 4-byte spill.
    if (w.splits > 1) {
      finish_tile<Cfg>(mainloop, w.template as<2>(), p, static_cast<void*>(k_smem));
    } else {
      finish_tile<Cfg>(mainloop, w.template as<1>(), p, static_cast<void*>(k_smem));
    }
  } else {
    finish_tile<Cfg>(mainloop, w, p, static_cast<void*>(k_smem));
  }
  clock.stop(p);
}

}  // namespace evotune_attention

// min_ctas: the CTAs per SM the register allocation must allow (__launch_bounds__'s second argument);
// more resident warps hide more latency, at the price of registers per thread.
template <class Tunables>
__global__ void __launch_bounds__(Tunables::warps * 32, Tunables::min_ctas)
    attention_fwd(const __grid_constant__ AttentionParams p) {
  using Cfg = evotune_attention::KernelConfig<Tunables>;
  if constexpr (Tunables::mma == 1) {
    evotune_attention::attention_forward<Cfg, evotune_attention::MmaMainloop<Cfg>>(p);
  } else {
    static_assert(Tunables::overlap == 0 && Tunables::qk_split == 1 && Tunables::kv_warps == 1,
                  "overlap, qk_split and kv_warps are tensor-core schedules");
    evotune_attention::attention_forward<Cfg, evotune_attention::ScalarMainloop<Cfg>>(p);
  }
}
