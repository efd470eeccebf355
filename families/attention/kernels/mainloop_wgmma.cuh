#pragma once
// Hopper attention forward (sm_90a), FlashAttention-3 style: warp-specialized, TMA-fed, wgmma.
//
// A CTA is one producer warpgroup and kConsumers = block_m / 64 consumer warpgroups of 64 query rows each.
//   - The producer (one thread of it) issues TMA copies: the Q tile once, then each K/V block of the CTA's
//     chunk into a kStages-deep ring of K and V slots. Each slot has a "full" mbarrier (completes when the
//     copy's bytes have landed) and an "empty" one (completes when every consumer warp is done with it).
//     It keeps only the registers it needs (setmaxnreg) and gives the rest to the consumers.
//   - Each consumer warpgroup computes S = Q.K^T with wgmma from shared memory (Q and K, K-major), the
//     online softmax in registers (softmax.cuh, shared with the mma.sync mainloop), and O += P.V with wgmma,
//     P from registers and V from shared memory (MN-major).
// Two overlaps, each a tunable:
//   - overlap (intra-warpgroup): block j+1's Q.K^T is issued before block j's softmax... precisely, the
//     loop issues S(j+1) and P(j).V(j) together and runs block j+1's softmax while they execute;
//   - pingpong (between consumer warpgroups): the warpgroups take turns issuing their GEMMs (named
//     barriers), so one's softmax runs while another's GEMMs occupy the tensor cores.
// Which tiles a CTA computes is the `scheduler` tunable: grid (one CTA per work tile, as the other
// mainloops), persistent (one CTA per SM walks the tiles in grid order with a stride of the grid size) or
// dynamic (one CTA per SM; each next tile from an atomic counter, so CTAs that drew short causal tiles
// take more), or stream_k (one CTA per SM walks whole tiles a grid stride apart while every CTA has one;
// the K/V blocks of the tiles left over, the tail that would leave most SMs idle, are cut evenly over all
// CTAs, and the CTA finishing a tile's last piece merges its pieces: split_kv.h). With each persistent
// scheduler the producer loads the next tile's first K block while the consumers finish the previous tile,
// and its Q tile: with one Q buffer once every consumer is done with it (o_store=threads: its rows have
// left through it; o_store=tma: its last Q.K^T is done, the rows leave through an output tile of their own
// by TMA store), with two (q_buffers=2, persistent and dynamic) into the other buffer as soon as the ring
// lets it, so that a short tile's epilogue no longer waits in front of the next tile's Q load.
// Shared memory holds every tile in TMA's 128-byte swizzle: 64-column blocks of 128-byte rows, the layout
// wgmma's descriptors read (sm90.cuh). Padded keys past skv are zero-filled by TMA and masked to -inf by the
// softmax whatever they hold; padded query rows are computed and never stored.
#include "attention/combine.cuh"
#include "attention/common.cuh"
#include "attention/sm90.cuh"
#include "attention/softmax.cuh"
#include "attention/wgmma_ops.cuh"
#include "attention/wgmma_resources.h"

namespace evotune_attention {

enum Scheduler { kGridScheduler = 0, kPersistentScheduler = 1, kDynamicScheduler = 2, kStreamKScheduler = 3 };

// The kernel's configuration, read by name from `Tunables`, the struct the host generates for each compile
// (attention_family.cpp's compile_request): the family's tunables, each a `static constexpr int` named as
// in parameters(), and the problem's element type T, head dim d and causality.
template <class Tunables>
struct WgmmaConfig {
  using T = typename Tunables::T;
  static constexpr int D = Tunables::d;
  static constexpr int kBlockM = Tunables::block_m;
  static constexpr int kBlockN = Tunables::block_n;
  static constexpr int kStages = Tunables::stages;
  static constexpr int kConsumers = evotune_wgmma::consumers(kBlockM);  // consumer warpgroups, 64 rows each
  static constexpr int kThreads = evotune_wgmma::threads(kBlockM);
  static constexpr bool kPingpong = Tunables::pingpong == 1;
  static constexpr bool kOverlap = Tunables::overlap == 1;
  // Register split (setmaxnreg): the producer keeps kProducerRegs, the consumers share the rest
  // (wgmma_resources.h). 0: no reallocation.
  static constexpr int kProducerRegs = Tunables::producer_regs;
  static constexpr int kMinCtas = Tunables::min_ctas;  // CTAs per SM the registers must allow
  static constexpr int kConsumerRegs = evotune_wgmma::consumer_registers(kBlockM, kProducerRegs, kMinCtas);
  static constexpr int kSplits = Tunables::splits;
  static constexpr bool kPack = Tunables::pack_gqa == 1;
  static constexpr bool kCausal = Tunables::causal;
  static constexpr int kScheduler = Tunables::scheduler;
  // Q tiles in shared memory: with two (persistent schedulers) tile n's Q loads into buffer n % 2 while
  // tile n - 1 still computes from, and leaves through, the other.
  static constexpr int kQBuffers = Tunables::q_buffers;
  // o_store=tma: the rows leave through an output tile of their own by TMA store (one per consumer
  // warpgroup's 64 rows, issued by one thread, completing while the next tile runs), so the Q buffer is free
  // once the tile's last Q.K^T is done. tma_half: the same through an output tile of half the 64-column blocks,
  // a ring the rows pass through one column block at a time (each block's slot written again once its TMA
  // store has read it out), for where a whole output tile does not fit (d=256: 64 KiB at 128 rows).
  // threads: through the Q buffer, in 16-byte stores by every thread.
  static constexpr bool kTmaStore = Tunables::o_store != 0;
  static constexpr int kColumnBlocks = D / 64;
  static constexpr int kOColumnBlocks = Tunables::o_store == 2 ? kColumnBlocks / 2 : kColumnBlocks;
  // rescale=lazy: a row's softmax reference moves only when a block's max passes it by 2^8 (softmax.cuh's
  // raise_max), so the output is rarely rescaled; every: it follows the running max.
  static constexpr bool kLazyRescale = Tunables::rescale == 1;
  // skip_idle=on: a causal tile's consumer warpgroups without rows (a head's last tile) skip it
  // (WgmmaMainloop::active_consumers).
  static constexpr bool kSkipIdle = Tunables::skip_idle == 1;
  // tile_order=sections: tiles in L2-sized sections of heads, each section's longest first (LinearTiles).
  static constexpr bool kSections = Tunables::tile_order == 1;
  using Tile = WorkTile<kPack, kSplits>;
  using Tiles = LinearTiles<kBlockM, kBlockN, kCausal, kPack, kSplits, kSections>;

  static_assert(kBlockM % 64 == 0 && kConsumers >= 1 && kConsumers <= 3, "64 to 192 rows, 64 per warpgroup");
  static_assert(kBlockN % 16 == 0 && kBlockN <= 256 && D % 64 == 0 && D <= 256, "wgmma shapes");
  static_assert(!kPingpong || kConsumers >= 2, "pingpong needs two consumer warpgroups");
  static_assert(kProducerRegs == 0 || (kProducerRegs >= 24 && kProducerRegs % 8 == 0 && (kConsumers >= 2 || kMinCtas >= 2)),
                "setmaxnreg takes multiples of 8 from 24, and moves registers only where the launch gave fewer than 255");
  static_assert(kScheduler >= kGridScheduler && kScheduler <= kStreamKScheduler,
                "grid, persistent, dynamic or stream_k");
  static_assert(kScheduler != kStreamKScheduler || kSplits == 1, "stream_k splits the tail itself");
  static_assert(kQBuffers == 1 || (kQBuffers == 2 && (kScheduler == kPersistentScheduler ||
                                                      kScheduler == kDynamicScheduler)),
                "a second Q buffer is for the persistent and dynamic schedulers");
  static_assert(!kTmaStore || kScheduler != kStreamKScheduler, "stream_k's pieces leave from registers");
  static_assert(Tunables::o_store != 2 || kColumnBlocks % 2 == 0, "o_store=tma_half: an even number of column blocks");
  static_assert(!kSkipIdle || (kCausal && kConsumers >= 2), "skip_idle: causal tiles of 2+ consumer warpgroups");
  static_assert(!kSections || kScheduler != kStreamKScheduler, "stream_k's tail costs follow tile_order=heads");

  // Shared memory (wgmma_resources.h, which the host's rules read too): the Q buffers, the output tile
  // (o_store=tma or tma_half), the K slots, the V slots, the mbarriers, the scheduler words.
  static constexpr int kQBytes = evotune_wgmma::q_bytes(kBlockM, D);
  static constexpr int kKvBytes = evotune_wgmma::kv_bytes(kBlockN, D);
  static constexpr int kOOffset = kQBuffers * kQBytes;
  static constexpr int kKOffset = kOOffset + evotune_wgmma::o_tile_bytes(kBlockM, D, Tunables::o_store);
  static constexpr int kVOffset = kKOffset + kStages * kKvBytes;
  static constexpr int kBarrierOffset =
      evotune_wgmma::barrier_offset(kBlockM, kBlockN, kStages, D, kQBuffers, Tunables::o_store);
  static constexpr int kTileSlotOffset =
      evotune_wgmma::tile_slot_offset(kBlockM, kBlockN, kStages, D, kQBuffers, Tunables::o_store);
  static constexpr int kSmemBytes =
      evotune_wgmma::shared_bytes(kBlockM, kBlockN, kStages, D, kQBuffers, Tunables::o_store);
};

template <class Cfg>
struct WgmmaMainloop {
  using T = typename Cfg::T;
  using Tile = typename Cfg::Tile;
  static constexpr int D = Cfg::D;
  static constexpr int kBlockM = Cfg::kBlockM;
  static constexpr int kBlockN = Cfg::kBlockN;
  static constexpr int kStages = Cfg::kStages;
  static constexpr int kNTiles = kBlockN / 8;
  static constexpr int kDTiles = D / 8;
  static constexpr int kKeySteps = kBlockN / 16;

  T* q;
  T* k;
  T* v;
  // The scheduler words (wgmma_resources.h), addressed from Q's base when used rather than held as members:
  // pointers kept in the object stayed live through the mainloop, into spills.
  __device__ __forceinline__ int* scheduler_word(int index) const {
    return reinterpret_cast<int*>(reinterpret_cast<unsigned char*>(q) + Cfg::kTileSlotOffset) + index;
  }
  // scheduler=dynamic: the index of the tile Q buffer `buffer` was loaded for, -1 when none is left.
  __device__ __forceinline__ int* tile_slot(int buffer) const { return scheduler_word(buffer); }
  // scheduler=stream_k: this CTA finished a tile's last piece and merges it.
  __device__ __forceinline__ int* merge_flag() const { return scheduler_word(2); }
  // scheduler=stream_k: the K/V blocks of the tail (StreamKSchedule).
  __device__ __forceinline__ int* tail_iterations() const { return scheduler_word(3); }
  // The Q tile in buffer `buffer` (0 with one buffer).
  __device__ __forceinline__ T* q_tile(int buffer) const { return q + buffer * kBlockM * D; }
  // The tile the epilogue writes the rows into: the output tile (o_store=tma or tma_half), else the tile's Q
  // buffer.
  __device__ __forceinline__ unsigned char* row_tile(int buffer) const {
    return reinterpret_cast<unsigned char*>(Cfg::kTmaStore ? q + Cfg::kOOffset / sizeof(T) : q_tile(buffer));
  }
  // Per Q buffer: its tile's Q has landed (and, scheduler=dynamic, the index is in tile_slot(buffer))...
  unsigned long long* q_full;
  // ... and every consumer has stored its rows from it: the tile after next may load its Q there.
  unsigned long long* q_empty;
  unsigned long long* k_full;
  unsigned long long* k_empty;
  unsigned long long* v_full;
  unsigned long long* v_empty;

  __device__ __forceinline__ explicit WgmmaMainloop(unsigned char* smem)
      : q(reinterpret_cast<T*>(smem)),
        k(reinterpret_cast<T*>(smem + Cfg::kKOffset)),
        v(reinterpret_cast<T*>(smem + Cfg::kVOffset)) {
    unsigned long long* bars = reinterpret_cast<unsigned long long*>(smem + Cfg::kBarrierOffset);
    q_full = bars;
    q_empty = bars + Cfg::kQBuffers;
    k_full = bars + 2 * Cfg::kQBuffers;
    k_empty = k_full + kStages;
    v_full = k_empty + kStages;
    v_empty = v_full + kStages;
  }

  __device__ __forceinline__ void init_barriers() const {
#pragma unroll
    for (int b = 0; b < Cfg::kQBuffers; ++b) {
      sm90::mbarrier_init(&q_full[b], 1);
      sm90::mbarrier_init(&q_empty[b], 128 * Cfg::kConsumers);  // every consumer thread
    }
#pragma unroll
    for (int s = 0; s < kStages; ++s) {
      sm90::mbarrier_init(&k_full[s], 1);
      sm90::mbarrier_init(&v_full[s], 1);
      // Released by lane 0 of every consumer warp, once that warp's wgmma reading the slot have completed.
      sm90::mbarrier_init(&k_empty[s], 4 * Cfg::kConsumers);
      sm90::mbarrier_init(&v_empty[s], 4 * Cfg::kConsumers);
    }
    sm90::mbarrier_init_fence();
  }

  // The consumer warpgroups with rows in tile w: all, but in the last tile of a head whose rows fill only
  // its first warpgroups (sq = 2560 in 192-row tiles: one, with 64 rows). The others read no K/V (their
  // releases are the producer's) and only pass their pingpong turns on, so the tile's GEMMs are only those
  // of its rows.
  // skip_idle=on only (causal): there that tile is the one that sees the whole K/V range (one in 7 of the
  // work at sq = 2560 in 192-row tiles); non-causal, it costs what every other tile does, and the configs
  // with pingpong sit at their register limit (b4 hq16 s4096 d128's default spilled 28 bytes with a first
  // form of it). Off, every warpgroup computes, and the kernel is that of before the tunable.
  __device__ __forceinline__ static bool consumer_has_rows(const Tile& w, int c) {
    if constexpr (!Cfg::kSkipIdle) {
      return true;
    } else {
      return w.m0 + c * 64 < w.rows;
    }
  }
  __device__ __forceinline__ static int active_consumers(const Tile& w) {
    int active = 0;
#pragma unroll
    for (int c = 0; c < Cfg::kConsumers; ++c) active += consumer_has_rows(w, c) ? 1 : 0;
    return active;
  }
  // This thread's warpgroup has rows in tile w (one of the active_consumers).
  __device__ __forceinline__ bool has_rows(const Tile& w) const { return consumer_has_rows(w, consumer); }

  // ---- producer (one thread)
  // Loads one work tile: its Q, then its K/V blocks through the rings. `ring` counts the blocks the rings
  // carried for the CTA's earlier tiles (slot and phase continue from there); `tile_number` counts those
  // tiles (its Q buffer, and the phase of that buffer's q_full and q_empty); `index` is the tile's,
  // published for scheduler=dynamic.
  __device__ __forceinline__ void produce(const TmaAttentionParams& args, const Tile& w, int tile_number, int ring,
                                          int index) const {
    const AttentionParams& p = args.params;
    const int n_blocks = w.end - w.begin;
    // The warps of consumer warpgroups without rows in this tile (active_consumers) read no slot: their
    // releases are made here, with the load (counting toward the slot's use the load begins).
    const int idle_warps = 4 * (Cfg::kConsumers - active_consumers(w));
    auto load = [&](T* slots, const TensorMapBytes* map, unsigned long long* full, unsigned long long* empty,
                    int j) {
      const int slot = ring + j, stage = slot % kStages;
      sm90::mbarrier_wait(&empty[stage], ((slot / kStages) & 1) ^ 1);
      sm90::mbarrier_arrive_expect_bytes(&full[stage], Cfg::kKvBytes);
#pragma unroll
      for (int c = 0; c < Cfg::kColumnBlocks; ++c) {
        if (args.kv_merged) {
          sm90::tma_load_3d(slots + stage * kBlockN * D + c * kBlockN * 64, map, &full[stage], c * 64,
                            (w.begin + j) * kBlockN, w.batch * p.hkv + w.kv_head);
        } else {
          sm90::tma_load_4d(slots + stage * kBlockN * D + c * kBlockN * 64, map, &full[stage], c * 64,
                            (w.begin + j) * kBlockN, w.kv_head, w.batch);
        }
      }
      if constexpr (Cfg::kSkipIdle) {
        if (idle_warps > 0) sm90::mbarrier_arrive_count(&empty[stage], idle_warps);
      }
    };
    // The first K block goes first: its slot is free while the previous tile's epilogue still holds Q.
    if (n_blocks > 0) load(k, &args.k, k_full, k_empty, 0);
    const int buffer = tile_number % Cfg::kQBuffers, use = tile_number / Cfg::kQBuffers;
    if (use > 0) sm90::mbarrier_wait(&q_empty[buffer], (use - 1) & 1);
    if constexpr (Cfg::kScheduler == kDynamicScheduler) *tile_slot(buffer) = index;
    if (n_blocks > 0) {
      // Q: packed rows are (query, head of the group) pairs, the 5-D map's {group, query} box fills them in
      // that order; unpacked, the group extent is 1.
      const int group_box = Cfg::kPack ? w.group : 1;
      const int q_head = Cfg::kPack ? w.kv_head : w.head, q_heads = Cfg::kPack ? p.hkv : p.hq;
      sm90::mbarrier_arrive_expect_bytes(&q_full[buffer], Cfg::kQBytes);
#pragma unroll
      for (int c = 0; c < Cfg::kColumnBlocks; ++c) {
        if (args.q_merged) {
          sm90::tma_load_4d(q_tile(buffer) + c * kBlockM * 64, &args.q, &q_full[buffer], c * 64, 0,
                            w.m0 / group_box, w.batch * q_heads + q_head);
        } else {
          sm90::tma_load_5d(q_tile(buffer) + c * kBlockM * 64, &args.q, &q_full[buffer], c * 64, 0,
                            w.m0 / group_box, q_head, w.batch);
        }
      }
    } else {
      sm90::mbarrier_arrive(&q_full[buffer]);  // an empty chunk of a split: nothing to load, the epilogue runs
    }
    // K runs one block ahead of V: the consumers' overlapped loop needs K(j+1) before V(j).
    for (int j = 0; j < n_blocks; ++j) {
      if (j + 1 < n_blocks) load(k, &args.k, k_full, k_empty, j + 1);
      load(v, &args.v, v_full, v_empty, j);
    }
  }
  // scheduler=dynamic: no tile is left; the consumers find -1 in the slot when q_full completes.
  __device__ __forceinline__ void publish_end(int tile_number) const {
    const int buffer = tile_number % Cfg::kQBuffers, use = tile_number / Cfg::kQBuffers;
    if (use > 0) sm90::mbarrier_wait(&q_empty[buffer], (use - 1) & 1);
    *tile_slot(buffer) = -1;
    sm90::mbarrier_arrive(&q_full[buffer]);
  }

  // ---- consumers
  float o[kDTiles][4];
  float row_max[2];
  float row_sum[2];
  int consumer;   // 0 .. kConsumers-1
  int local_row;  // the tile row of this thread's first row (its second is 8 below)
  int lane;

  // The thread's warpgroup, lane and rows, from its index.
  __device__ __forceinline__ void locate_thread() {
    const int thread = sm90::thread_index();
    // With one consumer warpgroup its index is a constant, and what is built from it (Q's descriptor) stays
    // in uniform registers: from the thread index, each wgmma's descriptor took two R2UR moves and three more
    // instructions. (A shuffle would make the index warp-uniform for two or three consumer warpgroups too;
    // measured there, it was no faster: probe/call40.)
    consumer = Cfg::kConsumers == 1 ? 0 : thread / 128 - 1;
    lane = thread % 32;
    local_row = consumer * 64 + (thread / 32 % 4) * 16 + lane / 4;
  }
  // Called at the start of every tile. The thread index is read there (sm90::thread_index), not carried:
  // in a persistent CTA's tile loop the compiler would otherwise compute what depends on it (the masking's
  // and the stores' addresses) once, before the loop, and keep it live through every mainloop, into spills.
  __device__ __forceinline__ void start_tile() {
    locate_thread();
#pragma unroll
    for (int dt = 0; dt < kDTiles; ++dt) o[dt][0] = o[dt][1] = o[dt][2] = o[dt][3] = 0.0f;
    row_max[0] = row_max[1] = -CUDART_INF_F;
    row_sum[0] = row_sum[1] = 0.0f;
  }

  // S = Q.K^T for the block in K slot `stage`: D/16 wgmma k-steps over the warpgroup's 64 Q rows.
  __device__ __forceinline__ void issue_scores(float (&s)[kNTiles][4], int stage, int buffer) const {
    const unsigned long long a0 = sm90::smem_descriptor(q_tile(buffer) + consumer * 64 * 64, 0, 1024);
    const unsigned long long b0 = sm90::smem_descriptor(k + stage * kBlockN * D, 0, 1024);
    sm90::wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < D / 16; ++kk) {
      const int column_block = kk / 4, offset = (kk % 4) * 16;  // 16 elements = 32 bytes of a 128-byte row
      const unsigned long long a = sm90::descriptor_plus(a0, (column_block * kBlockM * 64 + offset) * sizeof(T));
      const unsigned long long b = sm90::descriptor_plus(b0, (column_block * kBlockN * 64 + offset) * sizeof(T));
      Wgmma<kBlockN>::template ss<T>(reinterpret_cast<float(&)[kBlockN / 2]>(s), a, b, kk > 0 ? 1 : 0);
    }
    sm90::wgmma_commit();
  }

  // O += P.V for the block in V slot `stage`: kBlockN/16 k-steps of 16 keys; V is MN-major (d contiguous),
  // its 64-column blocks kBlockN x 128 bytes apart.
  __device__ __forceinline__ void issue_pv(const unsigned (&pa)[kKeySteps][4], int stage) {
    const unsigned long long b0 = sm90::smem_descriptor(v + stage * kBlockN * D, kBlockN * 128, 1024);
    sm90::wgmma_fence();
#pragma unroll
    for (int kc = 0; kc < kKeySteps; ++kc) {
      const unsigned long long b = sm90::descriptor_plus(b0, kc * 16 * 64 * sizeof(T));
      Wgmma<D>::template rs<T>(reinterpret_cast<float(&)[D / 2]>(o), pa[kc], b, 1);
    }
    sm90::wgmma_commit();
  }

  __device__ __forceinline__ void release(unsigned long long* empty, int stage) const {
    if (lane == 0) sm90::mbarrier_arrive(&empty[stage]);
  }

  // Pingpong turns: warpgroup c waits for its turn on named barrier 1 + c, and hands the turn to the next
  // when its GEMMs are issued. The last warpgroup's last hand-over would have no taker and is skipped.
  __device__ __forceinline__ void turn_begin() const {
    if constexpr (Cfg::kPingpong) sm90::named_barrier_sync(1 + consumer, 256);
  }
  __device__ __forceinline__ void turn_end(bool last) const {
    if constexpr (Cfg::kPingpong) {
      if (!(last && consumer == Cfg::kConsumers - 1))
        sm90::named_barrier_arrive(1 + (consumer + 1) % Cfg::kConsumers, 256);
    }
  }
  // A warpgroup without rows (has_rows) passes on the turns it would have taken over `n_blocks` blocks, as
  // many as consume() takes: with overlap, block 0's Q.K^T, one per later block (its Q.K^T with the block
  // before's P.V) and the last P.V; without, each block's Q.K^T and P.V; none over an empty chunk of a
  // split. The warpgroups with rows take theirs as in any tile, so the turns' code in the mainloop is that
  // of every tile.
  __device__ __forceinline__ void pass_turns(int n_blocks) const {
    if (n_blocks == 0) return;
    const int turns = Cfg::kOverlap ? n_blocks + 1 : 2 * n_blocks;
    for (int t = 0; t < turns; ++t) {
      turn_begin();
      turn_end(t == turns - 1);
    }
  }

  template <bool kMasked>
  __device__ __forceinline__ void softmax(float (&s)[kNTiles][4], float (&correction)[2], int block,
                                          const Tile& w, const AttentionParams& p) {
    online_softmax<kMasked, Cfg::kCausal, Cfg::kLazyRescale, !Cfg::kOverlap>(
        s, row_max, row_sum, correction, p.softmax_scale * kLog2e, w, local_row, block * kBlockN, p.skv, lane);
  }
  __device__ __forceinline__ void softmax_any(float (&s)[kNTiles][4], float (&correction)[2], int block,
                                              int unmasked, const Tile& w, const AttentionParams& p) {
    // Masking is compiled into the second path only: blocks that need it are a suffix of the range.
    if (block < unmasked) {
      softmax<false>(s, correction, block, w, p);
    } else {
      softmax<true>(s, correction, block, w, p);
    }
  }
  __device__ __forceinline__ static void to_a(unsigned (&pa)[kKeySteps][4], const float (&s)[kNTiles][4]) {
#pragma unroll
    for (int kc = 0; kc < kKeySteps; ++kc) probabilities_as_a<T>(pa[kc], s, kc);
  }

  // o_store=tma: once the tile's last Q.K^T is done (`last`), the Q buffer is free for the tile after next.
  __device__ __forceinline__ void q_read(int buffer, bool last) const {
    if constexpr (Cfg::kTmaStore && Cfg::kScheduler != kGridScheduler) {
      if (last) release_q(buffer);
    }
  }

  // Q has landed in buffer `buffer` (q_full); `ring` as in produce().
  __device__ __forceinline__ void consume(const Tile& w, const AttentionParams& p, int ring, int buffer) {
    const int n_blocks = w.end - w.begin;
    if constexpr (Cfg::kPingpong) {
      // The first turn is warpgroup 0's: the last warpgroup hands it over as if it had just had one.
      if (consumer == Cfg::kConsumers - 1 && n_blocks > 0) sm90::named_barrier_arrive(1, 256);
    }
    // An empty chunk of a split: the epilogue writes an empty row. A warpgroup without rows reads no block
    // (the producer releases its slots) and passes its turns on; its epilogue stores nothing (its TMA store
    // lies past the tensor's end; threads store only rows that exist).
    if (n_blocks == 0 || !has_rows(w)) {
      if constexpr (Cfg::kPingpong && Cfg::kSkipIdle) pass_turns(n_blocks);
      q_read(buffer, true);
      return;
    }
    const int unmasked = unmasked_blocks<kBlockN, Cfg::kCausal>(w, p.skv);
    float s[kNTiles][4];
    unsigned pa[kKeySteps][4];
    float correction[2];
    if constexpr (Cfg::kOverlap) {
      // Prologue: block 0's scores and softmax.
      sm90::mbarrier_wait(&k_full[ring % kStages], (ring / kStages) & 1);
      turn_begin();
      issue_scores(s, ring % kStages, buffer);
      turn_end(false);
      sm90::wgmma_wait<0>();
      sm90::hold_registers(reinterpret_cast<float(&)[kBlockN / 2]>(s));
      release(k_empty, ring % kStages);
      q_read(buffer, n_blocks == 1);
      softmax_any(s, correction, w.begin, unmasked, w, p);
      to_a(pa, s);
      for (int j = 1; j < n_blocks; ++j) {
        const int stage = (ring + j) % kStages, previous = (ring + j - 1) % kStages;
        sm90::mbarrier_wait(&k_full[stage], ((ring + j) / kStages) & 1);
        turn_begin();
        issue_scores(s, stage, buffer);  // S(j), while P(j-1) is still held in pa
        if (j > 1) rescale_output(o, correction);  // before P(0).V(0), O is still zero
        sm90::mbarrier_wait(&v_full[previous], ((ring + j - 1) / kStages) & 1);
        issue_pv(pa, previous);
        turn_end(false);
        sm90::wgmma_wait<1>();  // S(j) is done; P(j-1).V(j-1) may still run
        sm90::hold_registers(reinterpret_cast<float(&)[kBlockN / 2]>(s));
        release(k_empty, stage);
        q_read(buffer, j == n_blocks - 1);
        softmax_any(s, correction, w.begin + j, unmasked, w, p);
        sm90::wgmma_wait<0>();
        sm90::hold_registers(reinterpret_cast<float(&)[D / 2]>(o));
        sm90::hold_registers(reinterpret_cast<unsigned(&)[kKeySteps * 4]>(pa));
        release(v_empty, previous);
        to_a(pa, s);
      }
      const int last = (ring + n_blocks - 1) % kStages;
      if (n_blocks > 1) rescale_output(o, correction);
      sm90::mbarrier_wait(&v_full[last], ((ring + n_blocks - 1) / kStages) & 1);
      turn_begin();
      issue_pv(pa, last);
      turn_end(true);
      sm90::wgmma_wait<0>();
      sm90::hold_registers(reinterpret_cast<float(&)[D / 2]>(o));
      sm90::hold_registers(reinterpret_cast<unsigned(&)[kKeySteps * 4]>(pa));
      release(v_empty, last);
    } else {
      for (int j = 0; j < n_blocks; ++j) {
        const int stage = (ring + j) % kStages;
        const unsigned parity = ((ring + j) / kStages) & 1;
        sm90::mbarrier_wait(&k_full[stage], parity);
        turn_begin();
        issue_scores(s, stage, buffer);
        turn_end(false);
        sm90::wgmma_wait<0>();
        sm90::hold_registers(reinterpret_cast<float(&)[kBlockN / 2]>(s));
        release(k_empty, stage);
        q_read(buffer, j == n_blocks - 1);
        softmax_any(s, correction, w.begin + j, unmasked, w, p);
        if (j > 0) rescale_output(o, correction);  // block 0's correction meets an O that is still zero
        to_a(pa, s);
        sm90::mbarrier_wait(&v_full[stage], parity);
        turn_begin();
        issue_pv(pa, stage);
        turn_end(j == n_blocks - 1);
        sm90::wgmma_wait<0>();
        sm90::hold_registers(reinterpret_cast<float(&)[D / 2]>(o));
        sm90::hold_registers(reinterpret_cast<unsigned(&)[kKeySteps * 4]>(pa));
        release(v_empty, stage);
      }
    }
  }

  // The rows leave through shared memory: normalized, converted and written into this warpgroup's own rows
  // of the Q tile (its last Q.K^T is done; no other warpgroup reads those rows) or of the output tile
  // (o_store=tma; tma_half: a ring of half the column blocks), in the same 128-byte swizzle, by stmatrix: four 8x8 matrices (two column tiles of the
  // warp's 16 rows) per instruction, each row's 16 bytes at its swizzled place, so that one address per lane
  // and instruction replaces a 4-byte store and its address per element pair (the epilogue is a fifth of a
  // short tile's instructions: b64 hq8 s256 d64 walks four 64-key blocks per tile). Then to O: o_store=tma,
  // one thread's TMA store of the warpgroup's 64 rows (rows past the tensor's end are not written), read out
  // of shared memory while the next tile runs; threads, 16-byte stores by every thread, consecutive threads
  // along a row. A chunk of a split goes to the fp32 workspace directly (store_rows), as in the mma.sync path.
  template <class AnyTile>
  __device__ __forceinline__ void epilogue(const AnyTile& w, const TmaAttentionParams& args, int buffer) {
    const AttentionParams& p = args.params;
    locate_thread();  // again, rather than holding the row through the mainloop (start_tile)
    if (w.partial()) {
      store_rows<T, D>(w, p, o, row_max, row_sum, local_row, lane);
      return;
    }
    unsigned char* tile = row_tile(buffer);
    const bool storer = stores_rows();
    // The column blocks the tile the rows pass through holds at once: all of them, but for tma_half's ring.
    constexpr int kSlots = Cfg::kOColumnBlocks;
    constexpr bool kRing = kSlots < Cfg::kColumnBlocks;
    if constexpr (Cfg::kTmaStore) {
      // The warpgroup's previous store has read its rows out of the output tile (long since: it was issued
      // a tile ago) before anyone writes there again.
      if (storer) sm90::bulk_wait_group_read<0>();
      sm90::named_barrier_sync(9 + consumer, 128);
    }
    const RowTotal totals[2] = {row_total(row_sum[0]), row_total(row_sum[1])};
    // Lane l addresses row l % 8 of matrix l / 8: matrices (dt, rows 0-7), (dt, rows 8-15), (dt + 1, rows
    // 0-7), (dt + 1, rows 8-15) of the warp's rows. The warp's first row is a multiple of 8, so a row's
    // swizzle is its matrix row; with dt even, column tile dt + m / 2's 16-byte chunk is (dt % 8) ^ (m / 2)
    // ^ row, and each instruction's addresses are the lane's first XOR (dt % 8) << 4.
    const int matrix = lane / 8, matrix_row = lane % 8;
    const int lane_offset = (local_row - lane / 4 + (matrix % 2) * 8 + matrix_row) * 128 +
                            (((matrix / 2) ^ matrix_row) << 4);
    const float top = totals[0].inverse, bottom = totals[1].inverse;
    // Column block c (64 columns: column tiles 8c .. 8c + 7) into slot c % kSlots of the tile.
    auto write_block = [&](int c) {
      auto pair = [](float lo, float hi, float scale) { return pair_bits(Element<T>::pack(lo * scale, hi * scale)); };
#pragma unroll
      for (int dt = c * 8; dt < c * 8 + 8; dt += 2) {
        sm90::stmatrix_x4(tile + (c % kSlots) * kBlockM * 128 + (lane_offset ^ ((dt % 8) << 4)),
                          pair(o[dt][0], o[dt][1], top), pair(o[dt][2], o[dt][3], bottom),
                          pair(o[dt + 1][0], o[dt + 1][1], top), pair(o[dt + 1][2], o[dt + 1][3], bottom));
      }
    };
    // o_store=tma: the warpgroup's 64 rows of column block c, from its slot, by one TMA store.
    const int group_box = Cfg::kPack ? w.group : 1;
    const int q_head = Cfg::kPack ? w.kv_head : w.head, q_heads = Cfg::kPack ? p.hkv : p.hq;
    auto store_block = [&](int c) {
      unsigned char* rows = tile + (c % kSlots) * kBlockM * 128 + consumer * 64 * 128;
      if (args.o_merged) {
        sm90::tma_store_4d(&args.o, rows, c * 64, 0, (w.m0 + consumer * 64) / group_box, w.batch * q_heads + q_head);
      } else {
        sm90::tma_store_5d(&args.o, rows, c * 64, 0, (w.m0 + consumer * 64) / group_box, q_head, w.batch);
      }
    };
#pragma unroll
    for (int c = 0; c < kSlots; ++c) write_block(c);
    // The LSE only where asked for (a uniform test): finding a row's place in it takes ~20 instructions.
    if (p.lse != nullptr) {
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const OutputRow out_row = w.output_row(local_row + h * 8, p);
        if (out_row.valid() && (lane & 3) == 0) store_lse(w, p, out_row, row_lse(row_max[h], totals[h].sum, p));
      }
    }
    if constexpr (Cfg::kTmaStore) {
      sm90::fence_proxy_async_shared();  // this thread's rows, written by the generic proxy, to the TMA's
      sm90::named_barrier_sync(9 + consumer, 128);
      if (storer) {
        // One bulk async-group per column block in the ring (each slot is written again once its own group
        // has read it out), one for the whole tile otherwise.
#pragma unroll
        for (int c = 0; c < kSlots; ++c) {
          store_block(c);
          if constexpr (kRing) sm90::bulk_commit_group();
        }
        if constexpr (!kRing) sm90::bulk_commit_group();
      }
      // tma_half: the other column blocks, each into the slot the store kSlots blocks before it has read out
      // (at most kSlots - 1 of the storer's groups still reading).
#pragma unroll
      for (int c = kSlots; c < Cfg::kColumnBlocks; ++c) {
        if (storer) sm90::bulk_wait_group_read<kSlots - 1>();
        sm90::named_barrier_sync(9 + consumer, 128);
        write_block(c);
        sm90::fence_proxy_async_shared();
        sm90::named_barrier_sync(9 + consumer, 128);
        if (storer) {
          store_block(c);
          sm90::bulk_commit_group();
        }
      }
      return;
    }
    sm90::named_barrier_sync(9 + consumer, 128);  // the warpgroup's rows are in shared memory
    constexpr int kRowChunks = D / 8;             // 16-byte chunks per row
    const int thread = sm90::thread_index() % 128;
#pragma unroll
    for (int i = 0; i < 64 * kRowChunks / 128; ++i) {
      const int index = i * 128 + thread;
      const int row = consumer * 64 + index / kRowChunks, chunk = index % kRowChunks;
      const OutputRow out_row = w.output_row(row, p);
      if (out_row.valid()) {
        const uint4 value = *reinterpret_cast<const uint4*>(tile + (chunk / 8) * kBlockM * 128 + row * 128 +
                                                            (((chunk % 8) ^ (row % 8)) << 4));
        *reinterpret_cast<uint4*>(static_cast<T*>(p.o) + out_row.o + chunk * 8) = value;
      }
    }
  }

  // scheduler=stream_k, a partial piece of a tail tile: its rows to workspace slot `slot` (kBlockM rows of D
  // fp32, normalized by the piece's own sum, and their LSE), straight from the accumulators.
  __device__ __forceinline__ void store_piece(const AttentionParams& p, int slot) {
    locate_thread();
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const RowTotal total = row_total(row_sum[h]);
      const long long row = static_cast<long long>(slot) * kBlockM + local_row + h * 8;
      float* out = p.partial_o + row * D + (lane & 3) * 2;
#pragma unroll
      for (int dt = 0; dt < kDTiles; ++dt)
        *reinterpret_cast<float2*>(out + dt * 8) =
            make_float2(o[dt][2 * h] * total.inverse, o[dt][2 * h + 1] * total.inverse);
      if ((lane & 3) == 0) p.partial_lse[row] = row_lse(row_max[h], total.sum, p);
    }
  }

  // scheduler=stream_k, after store_piece: counts the piece in the tile's counter; the CTA whose piece is
  // the tile's last merges every piece's slot into O and the LSE (the split-KV rule, below), and leaves the
  // counter at zero for the next launch. Each thread fences its slot writes before the count,
  // and the merging CTA fences after it, so the merge sees every piece (combine.cuh's last_cta pattern).
  template <class Schedule>
  __device__ __forceinline__ void fix_up(const Tile& w, const AttentionParams& p, const Schedule& schedule,
                                         const evotune_split::StreamKPiece& piece) {
    constexpr int kConsumerThreads = 128 * Cfg::kConsumers;
    const int iterations = *tail_iterations();
    const int ctas = gridDim.x;
    const int cost = schedule.cost(p, piece.tile);
    const int first = evotune_split::stream_k_first_cta(iterations, ctas, piece.prefix);
    const int last = evotune_split::stream_k_last_cta(iterations, ctas, piece.prefix, cost);
    __threadfence();
    sm90::named_barrier_sync(13, kConsumerThreads);  // every consumer's slot rows are out
    const int thread = sm90::thread_index() - 128;
    if (thread == 0) {
      int pieces = 0;
      for (int c = first; c <= last; ++c)
        pieces += evotune_split::stream_k_holds_piece(iterations, ctas, c);
      const unsigned done = atomicAdd(p.counters + piece.tile, 1u);
      const bool merges = done == static_cast<unsigned>(pieces - 1);
      if (merges) p.counters[piece.tile] = 0;
      *merge_flag() = merges;
    }
    sm90::named_barrier_sync(13, kConsumerThreads);
    if (!*merge_flag()) return;
    __threadfence();
    // The merge, for latency: every consumer thread takes kItems 16-byte chunks of the tile's rows (consecutive
    // threads along a row), and the pieces are folded in one at a time by the online rule (running max, sum
    // and rescaled accumulators), each piece's loads for all of a thread's chunks issued together: one L2
    // round trip per piece. A warp per row with the pieces' LSEs read before their partials took ~25 us per
    // 64-row tile on the H100 (four dependent round trips per row, sixteen rows per warp in turn).
    constexpr int kChunks = D / 4;  // float4 chunks per row
    // D / 8 chunks per thread, in passes of at most 8 (d=128: two), so that a pass's accumulators and loads
    // fit beside what else is live (16 at once spilled).
    constexpr int kItems = kBlockM * kChunks / kConsumerThreads < 8 ? kBlockM * kChunks / kConsumerThreads : 8;
    constexpr int kPasses = kBlockM * kChunks / kConsumerThreads / kItems;
    static_assert(kPasses * kItems * kConsumerThreads == kBlockM * kChunks, "whole chunks per thread");
#pragma unroll 1
    for (int pass = 0; pass < kPasses; ++pass) {
      float max_lse[kItems], sum[kItems];
      float4 acc[kItems];
#pragma unroll
      for (int i = 0; i < kItems; ++i) {
        max_lse[i] = -CUDART_INF_F;
        sum[i] = 0.0f;
        acc[i] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
      }
      const int base = pass * kItems * kConsumerThreads + thread;
      for (int c = first; c <= last; ++c) {
        if (!evotune_split::stream_k_holds_piece(iterations, ctas, c)) continue;
        const long long slot_row =
            static_cast<long long>(evotune_split::stream_k_slot(iterations, ctas, c, piece.prefix)) * kBlockM;
        float lse[kItems];
        float4 x[kItems];
#pragma unroll
        for (int i = 0; i < kItems; ++i) {
          const int item = base + i * kConsumerThreads, r = item / kChunks, chunk = item % kChunks;
          lse[i] = __ldcg(p.partial_lse + slot_row + r);
          x[i] = __ldcg(reinterpret_cast<const float4*>(p.partial_o + (slot_row + r) * D) + chunk);
        }
#pragma unroll
        for (int i = 0; i < kItems; ++i) {
          if (lse[i] == -CUDART_INF_F) continue;  // the piece saw no key of this row: weight 0
          const float new_max = fmaxf(max_lse[i], lse[i]);
          const float keep = max_lse[i] == -CUDART_INF_F ? 0.0f : __expf(max_lse[i] - new_max);
          const float weight = __expf(lse[i] - new_max);
          sum[i] = sum[i] * keep + weight;
          acc[i].x = acc[i].x * keep + weight * x[i].x;
          acc[i].y = acc[i].y * keep + weight * x[i].y;
          acc[i].z = acc[i].z * keep + weight * x[i].z;
          acc[i].w = acc[i].w * keep + weight * x[i].w;
          max_lse[i] = new_max;
        }
      }
#pragma unroll
      for (int i = 0; i < kItems; ++i) {
        const int item = base + i * kConsumerThreads, r = item / kChunks, chunk = item % kChunks;
        const OutputRow out_row = w.output_row(r, p);
        if (!out_row.valid()) continue;
        const float inverse = sum[i] > 0.0f ? 1.0f / sum[i] : 0.0f;
        typename Element<T>::Pair* out =
            reinterpret_cast<typename Element<T>::Pair*>(static_cast<T*>(p.o) + out_row.o) + chunk * 2;
        out[0] = Element<T>::pack(acc[i].x * inverse, acc[i].y * inverse);
        out[1] = Element<T>::pack(acc[i].z * inverse, acc[i].w * inverse);
        if (p.lse != nullptr && chunk == 0) p.lse[out_row.index] = evotune_split::combine_lse(max_lse[i], sum[i]);
      }
    }
  }

  // o_store=tma: the thread of each consumer warpgroup that issues its TMA stores (bulk async-groups are
  // per thread, so the same one waits for them).
  __device__ __forceinline__ static bool stores_rows() { return sm90::thread_index() % 128 == 0; }
  // o_store=tma: before the CTA exits, the storing thread's last store has read the output tile.
  __device__ __forceinline__ void finish_stores() const {
    if constexpr (Cfg::kTmaStore) {
      if (stores_rows()) sm90::bulk_wait_group<0>();
    }
  }

  // The persistent schedulers: this thread is done with the Q tile (its rows are stored, or with
  // o_store=tma, its last Q.K^T done), so the producer may load the next tile's Q over it. The plain stores
  // the epilogue made there are ordered before that TMA write (a different proxy) by the fence. Every
  // thread arrives for itself: with one arrival per warp after __syncwarp, compute-sanitizer's racecheck
  // reported the next tile's epilogue writes as racing with this tile's reads (probe/call5).
  __device__ __forceinline__ void release_q(int buffer) const {
    sm90::fence_proxy_async_shared();
    sm90::mbarrier_arrive(&q_empty[buffer]);
  }
};

// scheduler=stream_k: which work each CTA does (split_kv.h's stream-K tail). Units 0, 1, ... of a CTA are its
// whole tiles, a grid stride apart, then its pieces of the tail. The tail's iteration count is in shared
// memory (counted once per CTA before the warps split: a walk over the tail's tiles when causal).
template <class Cfg>
struct StreamKSchedule {
  using Tile = typename Cfg::Tile;
  typename Cfg::Tiles tiles;
  int tail_tiles, dp_tiles;
  int uniform_cost;  // non-causal: every tile's K/V blocks

  // `batch` and `skv`: p.b and p.skv, opaque (sm90::opaque) where the schedule is rebuilt per unit, so that
  // nothing of it is computed once and held in registers across the mainloop.
  __device__ __forceinline__ StreamKSchedule(const TmaAttentionParams& args, int batch, int skv) : tiles(args, batch) {
    tail_tiles = evotune_split::stream_k_tail_tiles(tiles.total, gridDim.x);
    dp_tiles = tiles.total - tail_tiles;
    uniform_cost = max(1, evotune_split::ceil_div(skv, Cfg::kBlockN));
  }
  // K/V blocks of tail tile t, at least 1 (a tile that sees no key still writes its rows). Non-causal tiles
  // all cost the same.
  __device__ __forceinline__ int cost(const AttentionParams& p, int t) const {
    if constexpr (!Cfg::kCausal) {
      return uniform_cost;
    } else {
      // LinearTiles' order: x (the query tile, the longest first when causal) fastest.
      const int x = (dp_tiles + t) % tiles.x_extent();
      const int group = p.hq / p.hkv;
      const evotune_split::BlockRange range = evotune_split::tile_blocks(
          (tiles.x_extent() - 1 - x) * Cfg::kBlockM, Cfg::kBlockM, evotune_split::tile_rows(p.sq, group, Cfg::kPack),
          group, Cfg::kPack, p.sq, p.skv, true, Cfg::kBlockN, 1, 0);
      return max(1, range.end);
    }
  }
  // The tail's iterations, by the threads of one warp together.
  __device__ __forceinline__ int count_iterations(const AttentionParams& p, int lane) const {
    if constexpr (!Cfg::kCausal) return tail_tiles * cost(p, 0);
    int sum = 0;
    for (int t = lane; t < tail_tiles; t += 32) sum += cost(p, t);
#pragma unroll
    for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, offset);
    return sum;
  }
  // This CTA's unit `unit`: its tile (K/V range cut to the piece) and piece (slot -1: a whole tile); false
  // past its last.
  __device__ __forceinline__ bool unit(const AttentionParams& p, int iterations, int unit, Tile& w,
                                       evotune_split::StreamKPiece& piece) const {
    const int whole_units = dp_tiles / static_cast<int>(gridDim.x);
    if (unit < whole_units) {
      w = tiles.at(p, blockIdx.x + unit * gridDim.x);
      piece.slot = -1;
      return true;
    }
    const bool uniform = !Cfg::kCausal;
    if (!evotune_split::stream_k_piece([&](int t) { return cost(p, t); }, uniform ? cost(p, 0) : 0, iterations,
                                       gridDim.x, blockIdx.x, unit - whole_units, piece))
      return false;
    w = tiles.at(p, dp_tiles + piece.tile);
    const int blocks = w.end;  // unsplit: [0, blocks)
    w.begin = min(piece.begin, blocks);
    w.end = min(piece.end, blocks);
    return true;
  }
};

template <class Cfg>
__device__ __forceinline__ void attention_forward_wgmma(const TmaAttentionParams& args) {
#if __CUDA_ARCH__ >= 900
  const AttentionParams& p = args.params;
  CtaClock clock;
  // A split's combine kernel (a programmatic dependent launch, waiting in griddepcontrol.wait for this grid):
  // a tile walk lets it be scheduled at once (not measured otherwise); a grid of one tile a CTA once its
  // consumers are past the main loop (below), as attention.cuh does: 0.8-4% faster than at the start on three
  // of four short-chunk split grids, level on one (trigger_more in evidence/results/h100/llama/).
  if constexpr (Cfg::kSplits != 1 && Cfg::kScheduler != kGridScheduler) {
    asm volatile("griddepcontrol.launch_dependents;");
  }
  extern __shared__ __align__(1024) unsigned char smem_raw[];
  // The host sizes the allocation (attention_family.cpp) with 1 KiB of slack for this alignment.
  unsigned char* smem = smem_raw + ((1024 - (sm90::shared_address(smem_raw) & 1023)) & 1023);
  if (dynamic_smem_bytes() < static_cast<unsigned>(Cfg::kSmemBytes)) __trap();
  // Packed tiles (and o_store=tma's 64-row boxes) hold whole groups of query heads, or the TMA boxes bring
  // fewer bytes than the barriers wait for and the CTA never finishes: the host's rules refuse such a
  // launch (invalid_reason); this makes one that slipped past them a launch error, not a hang.
  if constexpr (Cfg::kPack) {
    const int group = p.hq / p.hkv;
    if (Cfg::kBlockM % group != 0 || (Cfg::kTmaStore && 64 % group != 0)) __trap();
  }
  WgmmaMainloop<Cfg> mainloop(smem);
  if (threadIdx.x == 0) {
    mainloop.init_barriers();
    sm90::tma_prefetch_descriptor(&args.q);
    sm90::tma_prefetch_descriptor(&args.k);
    sm90::tma_prefetch_descriptor(&args.v);
  }
  if constexpr (Cfg::kScheduler == kStreamKScheduler) {
    if (threadIdx.x < 32) {
      const int iterations = StreamKSchedule<Cfg>(args, p.b, p.skv).count_iterations(p, threadIdx.x);
      if (threadIdx.x == 0) *mainloop.tail_iterations() = iterations;
    }
  }
  __syncthreads();  // the last CTA-wide barrier: the producer leaves early
  constexpr bool kOneTile = Cfg::kScheduler == kGridScheduler;
  // scheduler=grid: the CTA's own tile, or with tile_order=sections the tile at its linear block index (the
  // order the hardware hands the blocks out) in the sections' order.
  auto grid_tile = [&]() -> typename Cfg::Tile {
    if constexpr (Cfg::kSections) {
      const int linear = static_cast<int>(blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z));
      return typename Cfg::Tiles(args, p.b).at(p, linear);
    } else {
      return make_work_tile<Cfg::kBlockM, Cfg::kBlockN, Cfg::kCausal, Cfg::kPack, Cfg::kSplits>(p);
    }
  };
  if (threadIdx.x < 128) {
    if constexpr (Cfg::kProducerRegs > 0) sm90::registers_decrease<Cfg::kProducerRegs>();
    if (threadIdx.x != 0) return;
    if constexpr (kOneTile) {
      mainloop.produce(args, grid_tile(), 0, 0, 0);
    } else if constexpr (Cfg::kScheduler == kStreamKScheduler) {
      int ring = 0;
      for (int unit = 0;; ++unit) {
        // Rebuilt per unit: the producer keeps 24 to 56 registers, too few to hold the schedule as well.
        const StreamKSchedule<Cfg> schedule(args, sm90::opaque(p.b), sm90::opaque(p.skv));
        typename Cfg::Tile w;
        evotune_split::StreamKPiece piece;
        if (!schedule.unit(p, *mainloop.tail_iterations(), unit, w, piece)) break;
        mainloop.produce(args, w, unit, ring, 0);
        ring += w.end - w.begin;
      }
    } else {
      // The host launches at most as many CTAs as there are tiles, so every CTA has its first.
      const typename Cfg::Tiles tiles(args, p.b);
      int index = blockIdx.x, ring = 0, tile_number = 0;
      while (index < tiles.total) {
        const typename Cfg::Tile w = tiles.at(p, index);
        mainloop.produce(args, w, tile_number++, ring, index);
        ring += w.end - w.begin;
        if constexpr (Cfg::kScheduler == kPersistentScheduler) {
          index += gridDim.x;
        } else {
          // Fetches count 0, 1, 2, ... over all CTAs; each CTA's last fetch is its first past the end, so
          // the fetch that returns total - 1 is the launch's last: it leaves the counter at zero for the
          // next launch.
          const unsigned fetched = atomicAdd(p.counters, 1u);
          if (fetched == static_cast<unsigned>(tiles.total - 1)) atomicExch(p.counters, 0u);
          index = static_cast<int>(gridDim.x + fetched);
        }
      }
      if constexpr (Cfg::kScheduler == kDynamicScheduler) mainloop.publish_end(tile_number);
    }
    return;
  }
  if constexpr (Cfg::kProducerRegs > 0) sm90::registers_increase<Cfg::kConsumerRegs>();
  if constexpr (kOneTile) {
    const typename Cfg::Tile w = grid_tile();
    mainloop.start_tile();
    sm90::mbarrier_wait(mainloop.q_full, 0);
    mainloop.consume(w, p, 0, 0);
    if constexpr (Cfg::kSplits != 1) asm volatile("griddepcontrol.launch_dependents;");
    mainloop.epilogue(w, args, 0);
  } else if constexpr (Cfg::kScheduler == kStreamKScheduler) {
    // The unit's tile and piece are worked out twice, before the mainloop and after it (from opaque inputs,
    // as start_tile's thread index): held through the mainloop instead, the piece and the schedule's extents
    // pushed the consumers into spills.
    int ring = 0;
    for (int unit = 0;; ++unit) {
      {
        const StreamKSchedule<Cfg> schedule(args, sm90::opaque(p.b), sm90::opaque(p.skv));
        typename Cfg::Tile w;
        evotune_split::StreamKPiece piece;
        if (!schedule.unit(p, *mainloop.tail_iterations(), unit, w, piece)) break;
        sm90::mbarrier_wait(mainloop.q_full, unit & 1);
        mainloop.start_tile();
        mainloop.consume(w, p, ring, 0);
      }
      const StreamKSchedule<Cfg> schedule(args, sm90::opaque(p.b), sm90::opaque(p.skv));
      typename Cfg::Tile w;
      evotune_split::StreamKPiece piece;
      schedule.unit(p, *mainloop.tail_iterations(), sm90::opaque(unit), w, piece);
      if (piece.slot < 0) {
        mainloop.epilogue(w, args, 0);
        mainloop.release_q(0);
      } else {
        mainloop.release_q(0);  // the piece's rows leave from registers, not through the Q tile
        mainloop.store_piece(p, piece.slot);
        mainloop.fix_up(w, p, schedule, piece);
      }
      ring += w.end - w.begin;
    }
  } else {
    int index = blockIdx.x, ring = 0;
    for (int tile_number = 0;; ++tile_number) {
      const typename Cfg::Tiles tiles(args, sm90::opaque(p.b));  // per tile, as start_tile's thread index
      const int buffer = tile_number % Cfg::kQBuffers, use = tile_number / Cfg::kQBuffers;
      if constexpr (Cfg::kScheduler == kPersistentScheduler) {
        if (index >= tiles.total) break;
        sm90::mbarrier_wait(&mainloop.q_full[buffer], use & 1);
      } else {
        sm90::mbarrier_wait(&mainloop.q_full[buffer], use & 1);
        index = *mainloop.tile_slot(buffer);
        if (index < 0) break;
      }
      const typename Cfg::Tile w = tiles.at(p, index);
      mainloop.start_tile();
      mainloop.consume(w, p, ring, buffer);
      mainloop.epilogue(w, args, buffer);
      if constexpr (!Cfg::kTmaStore) mainloop.release_q(buffer);  // o_store=tma: in consume()
      ring += w.end - w.begin;
      if constexpr (Cfg::kScheduler == kPersistentScheduler) index += gridDim.x;
    }
  }
  mainloop.finish_stores();
  clock.stop_consumers(p, 128, Cfg::kConsumers * 128);
#else
  __trap();  // mma=wgmma is sm_90a code; the host rules never launch it elsewhere
#endif
}

}  // namespace evotune_attention

template <class Tunables>
__global__ void __launch_bounds__(evotune_wgmma::threads(Tunables::block_m), Tunables::min_ctas)
    attention_fwd_wgmma(const __grid_constant__ TmaAttentionParams args) {
  evotune_attention::attention_forward_wgmma<evotune_attention::WgmmaConfig<Tunables>>(args);
}
