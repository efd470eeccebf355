#include "families/attention/host/attention_family.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <tuple>
#include <utility>

#include "runtime/cuda_driver.h"
#include "families/attention/kernels/split_kv.h"
#include "families/attention/kernels/wgmma_resources.h"
#include "core/sha256.h"
#include "runtime/embedded_sources.h"

namespace evotune::attention {

namespace {
// Tunables of the cp.async mainloops (mma_sync, scalar) that mma=wgmma does not have.
constexpr const char* kCpAsyncTunables[] = {"barrier", "smem_layout", "vec_bytes", "q_frags", "qk_split",
                                            "kv_warps"};
// Tunables of mma=wgmma that the cp.async mainloops do not have.
constexpr const char* kWgmmaTunables[] = {"pingpong", "producer_regs", "scheduler", "q_buffers", "o_store",
                                          "rescale", "skip_idle", "tile_order"};
}  // namespace

const std::vector<Parameter>& parameters() {
  static const std::vector<Parameter> params = {
      {"mma",
       {kScalar, kMmaSync, kWgmma},
       {"scalar", "mma_sync", "wgmma"},
       "arithmetic: fp32 FMA, mma.sync m16n8k16 tensor cores fed by cp.async, or (sm_90a) wgmma fed by TMA "
       "with a producer warpgroup and block_m/64 consumer warpgroups (mainloop_wgmma.cuh)"},
      {"block_m", {16, 32, 64, 128, 192, 256}, {}, "query rows per CTA (wgmma: 64 per consumer warpgroup)"},
      {"block_n", {16, 32, 64, 80, 96, 112, 128, 144, 160, 176, 192}, {}, "keys per K/V block"},
      {"warps", {1, 2, 4, 8, 12, 16}, {}, "warps per CTA (wgmma: 4 per consumer warpgroup + the producer's 4)"},
      {"stages", {1, 2, 3, 4}, {}, "K/V blocks in flight (the cp.async ring, or wgmma's TMA slots)"},
      {"barrier",
       {kFullBarrier, kLightBarrier},
       {"full", "light"},
       "full: a CTA barrier around every shared-memory phase; light: only the ones the algorithm needs"},
      {"smem_layout",
       {kPaddedLayout, kSwizzledLayout},
       {"padded", "swizzled"},
       "bank-conflict avoidance for shared tiles: 16-byte row padding, or xor swizzle of 16-byte chunks"},
      {"vec_bytes", {4, 8, 16}, {}, "bytes per cp.async global->shared copy"},
      {"q_frags",
       {kQInSharedMemory, kQInRegisters},
       {"smem", "regs"},
       "mma_sync: keep Q's MMA fragments in registers, or re-read them from shared memory every K/V block"},
      {"min_ctas",
       {1, 2, 3, 4},
       {},
       "CTAs per SM the register allocation must allow (__launch_bounds__); wgmma: also the CTAs per SM the "
       "persistent schedulers launch, so that one's prologue and epilogue run under another's GEMMs"},
      {"overlap",
       {0, 1},
       {"off", "on"},
       "mma_sync, stages >= 3: issue the next block's Q.K^T before this block's softmax (software "
       "pipelining)"},
      {"qk_split",
       {1, 2},
       {},
       "mma_sync: independent accumulator sets in Q.K^T (more HMMA chains in flight)"},
      {"kv_warps",
       {1, 2, 4},
       {},
       "mma_sync: warps that split each K/V block's keys (own online softmax each, merged at the end) "
       "instead of "
       "rows: every warp has work in tiles of few rows (decode)"},
      {"splits",
       {kAutoSplits, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64},
       {},
       "split-KV: K/V chunks per (query tile, head, batch), one CTA each, merged by a combine kernel; auto: "
       "chosen per launch from the problem and the SM count (auto_splits)",
       std::pair<int, std::string>{kAutoSplits, "auto"}},
      {"combine",
       {kCombineKernel, kCombineLastCta},
       {"kernel", "last_cta"},
       "split-KV: merge the chunks in a second kernel, or in the CTA that finishes its tile last (one "
       "launch)"},
      {"pack_gqa",
       {0, 1},
       {"off", "on"},
       "GQA/MQA: the query heads that share a KV head are one CTA's rows, so K/V are read once per KV head"},
      {"pingpong",
       {0, 1},
       {"off", "on"},
       "wgmma, 2+ consumer warpgroups: they take turns issuing their GEMMs, so one's softmax runs under "
       "another's GEMMs"},
      {"producer_regs",
       {0, 24, 32, 40, 56},
       {},
       "wgmma, 2+ consumer warpgroups: registers the TMA producer warpgroup keeps (setmaxnreg); the consumers "
       "get the rest. none: no reallocation",
       std::pair<int, std::string>{0, "none"}},
      {"scheduler",
       {kGridScheduler, kPersistentScheduler, kDynamicScheduler, kStreamKScheduler},
       {"grid", "persistent", "dynamic", "stream_k"},
       "wgmma: one CTA per work tile (grid), or min_ctas CTAs per SM walking the tiles, in a fixed stride "
       "(persistent), drawing each next tile from an atomic counter (dynamic), or in a fixed stride while "
       "every CTA has a whole tile and then cutting the leftover tiles' K/V blocks evenly over all CTAs, the "
       "last piece of each tile merging them (stream_k); the persistent ones load the next tile under the "
       "previous one's epilogue"},
      {"q_buffers",
       {1, 2},
       {},
       "wgmma, scheduler=persistent or dynamic: Q tiles in shared memory. With one, the next tile's Q loads "
       "only once every consumer has stored this tile's rows (the epilogue leaves through the Q buffer); with "
       "two, it loads while this tile computes"},
      {"o_store",
       {0, 1, 2},
       {"threads", "tma", "tma_half"},
       "wgmma: how the output rows leave: through the Q buffer in 16-byte stores by every consumer thread "
       "(threads), or through an output tile of their own (block_m x d more shared memory) by one TMA store "
       "per consumer warpgroup that completes under the next tile, the Q buffer freed after the last Q.K^T "
       "(tma), or as tma through an output tile of half the head dim's 64-column blocks that the rows pass "
       "through one column block at a time (tma_half: d >= 128, half the shared memory)"},
      {"rescale",
       {0, 1},
       {"every", "lazy"},
       "wgmma: when the output accumulated so far is rescaled: every time a row's max rises (every), or only "
       "when a block's max passes the row's softmax reference by a factor of 2^8 (lazy: the probabilities stay "
       "below 256, and the rescales nearly all go)"},
      {"skip_idle",
       {0, 1},
       {"off", "on"},
       "wgmma, causal, 2+ consumer warpgroups: in a head's last tile, a consumer warpgroup whose rows all "
       "lie past the last query reads no K/V (the producer releases its slots) and only passes its pingpong "
       "turns on, so that tile (the one that sees the whole K/V range) runs only its rows' GEMMs (on); or "
       "it computes its padding rows like any other (off)"},
      {"tile_order",
       {0, 1},
       {"heads", "sections"},
       "wgmma, schedulers grid, persistent and dynamic: the order the CTAs take the work tiles in. heads: a "
       "head's query tiles in turn (causal: its longest first), head after head; sections: the heads cut "
       "into sections whose K/V fit in L2, each section's query tiles x-major over its heads, so that a "
       "causal launch runs every section's longest tiles first and ends on short ones (longest-processing-"
       "time-first within L2's reach)"},
  };
  return params;
}

Config default_config() {
  // Hand-picked on the H100 for b4 hq16 s4096 d128 fp16 (evidence/results/h100/issue3-attention): the
  // fastest of the configs measured there, 279 TFLOP/s. 8 warps of 16 rows, 128-key blocks
  // double-buffered: (128 + 2*2*128) rows * 256 B = 160 KiB of shared memory, 246 registers.
  return Config({{"mma", kMmaSync},
                 {"block_m", 128},
                 {"block_n", 128},
                 {"warps", 8},
                 {"stages", 2},
                 {"barrier", kLightBarrier},
                 {"smem_layout", kSwizzledLayout},
                 {"vec_bytes", 16},
                 {"q_frags", kQInSharedMemory},
                 {"min_ctas", 1},
                 {"overlap", 0},
                 {"qk_split", 1},
                 {"kv_warps", 1},
                 {"splits", 1},
                 {"combine", kCombineKernel},
                 {"pack_gqa", 0},
                 {"pingpong", 0},
                 {"producer_regs", 0},
                 {"scheduler", kGridScheduler},
                 {"q_buffers", 1},
                 {"o_store", 0},
                 {"rescale", 0},
                 {"skip_idle", 0},
                 {"tile_order", 0}});
}

namespace {

// The Hopper default for query-heavy problems (prefill, long chunks): mma=wgmma with both overlaps and the
// producer warpgroup on few registers, as FlashAttention-3 runs it. The first measurements on the H100
// (evidence/results/h100/hopper/probe, NOTES.md), for the grid-scheduled base config below; the scheduler,
// q_buffers and min_ctas rules further down override parts of it, each with its own measurements:
//   - d=128: two consumer warpgroups (128 rows), producer on 24 registers. b4 hq16 s4096 fp16: 176-key
//     blocks 644 TFLOP/s non-causal (128: 0.6% slower); causal 128-key blocks (176: 0.7% slower);
//     overlap=off cost 15%, pingpong=off 1.7% (call1);
//   - d=64: three consumer warpgroups (192 rows), producer on 32: b8 hq16 s2048 bf16 296.8 us, against
//     347 us with 128 rows (call3);
//   - a grid whose tiles leave SMs idle: 64-row tiles, one consumer warpgroup, three slots, not split:
//     b1 hq8 s512 d64 6.4 us, against 7.7 us split in two with two slots and 8.3-9.9 us with 128 or 192 rows
//     (call3). Split-KV is kept for a long K/V range (chunks of at least 8 blocks), which call3 did not
//     measure.
// wgmma_sides builds the default by these rules up to the d=64 short-range rule, whose bound picks `chosen`;
// at d=64 `other` is the side the bound rejects, for a search's first generation. finish_wgmma_heuristic
// then applies the rules every side passes through last; nullopt where they refuse it. nullopt overall:
// not sm_90, or sq < 128. (Only the side asked for is finished: the C ABI derives a launcher's key from the
// default on every call it makes for a problem its table does not cover.)
struct WgmmaSides {
  Config chosen;
  std::optional<Config> other;
};
std::optional<Config> finish_wgmma_heuristic(Config c, const Problem& p, const DeviceLimits& limits);
long long persistent_ctas(const Config& c, const DeviceLimits& limits);
Config with_tma_store(Config c, const Problem& p, const DeviceLimits& limits);

// The keys a tile's queries see on average: all of them, or causal about half the queries' own range fewer.
double mean_keys_per_tile(const Problem& p) { return p.causal ? p.skv - p.sq / 2.0 : p.skv; }

// d=256 over short K/V ranges: a tile's queries see at most 1024 keys on average causal, 768 non-causal.
// There the prologue, the first K/V blocks and a 64 KiB epilogue per tile weigh more, and 64-key blocks led
// 80-key ones (median us of two rounds, 128x80 grid / 128x64 dynamic with the rows through the Q buffer /
// cuDNN, probe/call78, call77 for s1024: causal b8 hq16 s1024 163.1 / 157.5 / 154.6, b16 hq8 s512 66.5 / 63.8
// / 59.5, b32 hq8 hkv4 s768 196.9 / 187.8 / 177.8, b2 hq32 hkv16 s1536 bf16 158.7 / 154.9 / 157.5, b4 hq16
// s2048 bf16 247.6 / 244.6 / 252.0, b1 hq16 hkv8 s2048 87.4 / 86.6 / 94.7; non-causal b16 hq8 s512 79.4
// / 74.5 / 74.1, b8 hq16 s768 bf16 139.5 / 137.1 / 139.0, b4 hq8 hkv2 s1024 60.0 / 60.4 / 61.5; longer ranges
// the other way, call77: b4 hq16 s4096 1467.7 / 1496.3, b1 hq16 hkv8 s8192 causal bf16 768.8 / 779.0). Held
// out (call79) the bound picked the faster side on seven of eight shapes; the miss (non-causal b6 hq12 s900,
// 131.0 / 132.9) moved the non-causal bound to 768 keys. Since tma_half (call90-92) only small grids, which
// run one tile per CTA, still choose by it.
bool d256_short_range(const Problem& p) { return mean_keys_per_tile(p) <= (p.causal ? 1024 : 768); }
// d=256 over long K/V ranges, more than 4096 keys on average: there the 128x80 grid leads tma_half's 128x64
// dynamic config by 0.2-1.6% (probe/call97, one call, 3 rounds: b1 hq8 s8925 causal bf16 485.2 / 492.8 us, b4
// hq8 hkv1 s4549 bf16 878.5 / 889.8, b1 hq24 hkv3 s5070 fp16 886.3 / 899.6, b1 hq24 hkv6 s4213 bf16 556.3 /
// 557.3), as the rows' fixed cost per tile that tma_half hides weighs less against 80-key blocks' fewer
// iterations; at 3112-4096 keys the two are level (-0.7% to +0.5%), below it tma_half leads (1.3-3.0% at
// 1775-2415 keys).
bool d256_long_range(const Problem& p) { return mean_keys_per_tile(p) > 4096; }

// A head's last tile of c leaves at least one consumer warpgroup (64 rows) without rows: its rows as the
// kernel's tiles count them (queries x group when packed) are not a whole number of tiles, and the last
// tile's are at most block_m - 64. (Causal, that tile is the one that sees the whole K/V range.)
bool last_tile_leaves_a_warpgroup_idle(const Config& c, const Problem& p) {
  const int rows = evotune_split::tile_rows(p.sq, p.group(), c.at("pack_gqa") == 1);
  const int block_m = c.at("block_m");
  const int last = rows % block_m;  // rows of the last tile, 0 for a whole one
  return block_m >= 128 && last != 0 && last <= block_m - 64;
}

// Non-causal d=128 keys per K/V block: the width of 128, 144 and 160 (the widest that fit beside the output
// tile) whose blocks over the whole range cost least, a block costing its keys plus 16 keys' worth of fixed
// work (its barriers, the softmax's per-row steps, the turn handed over) and the last block a whole one
// however few keys it holds. Over long ranges that is 160 (b4 hq16 s4096: 26 blocks, 4576 against 144's 4640
// and 128's 4608; measured 842.1 us against 144's 854.3, run_d304f61); over short ones the padded keys of
// 160-key blocks decide. On the H100, median us of two rounds, 160 / 144 / 128 (probe/call113, the fits
// agreeing with each): b30 hq40 hkv20 s512 bf16 330.3 / 305.2 / 278.7 (cuDNN 282.1), b47 hq24 hkv6 s375
// 191.0 / 178.9 / 166.3 (178.4), b16 hq16 s256 31.2 / 30.3 / 29.3, b6 hq16 hkv4 s1024 bf16 92.3 / 94.3 /
// 86.1, b12 hq16 s768 107.3 / 113.5 / 104.2, b16 hq32 hkv8 sq256 skv1500 bf16 165.4 / 164.4 / 161.6, b2 hq32 hkv8
// s2000 bf16 205.0 / 199.9 / 204.6; 160 where it pads least: b20 hq16 s448 80.2 / 90.7 / 84.1, b8 hq32 hkv8
// s640 bf16 94.9 / 105.4 / 95.6; level at b4 hq16 s1300 (114.7 / 115.0 / 113.9, 1548 / 1600 / 1540 by the
// count). Ties go to the wider blocks.
int noncausal_d128_block_n(const Problem& p) {
  constexpr int kFixedKeysPerBlock = 16;
  int best = 0;
  long long best_cost = 0;
  for (int block_n : {160, 144, 128}) {
    const long long cost =
        static_cast<long long>(evotune_split::ceil_div(p.skv, block_n)) * (block_n + kFixedKeysPerBlock);
    if (best == 0 || cost < best_cost) best = block_n, best_cost = cost;
  }
  return best;
}

// The tiles of c that the busiest SM runs, one SM after another taking the next: ceil(tiles / SMs).
long long tiles_per_sm(const Config& c, const Problem& p, const DeviceLimits& limits) {
  return (unsplit_ctas(c, p) + limits.sm_count - 1) / limits.sm_count;
}

// GQA whose groups a warpgroup's 64 packed rows hold whole (the group divides 64): what pack_gqa with
// o_store=tma and every wgmma block_m need (invalid_reason).
bool groups_fill_whole_warpgroups(const Problem& p) { return p.group() > 1 && 64 % p.group() == 0; }

// A grid of at least half as many CTAs as SMs: below it the short-chunk and decode rules split or leave the
// problem to the mma.sync path (finish_wgmma_heuristic, heuristic_config).
bool holds_half_the_sms(long long ctas, const DeviceLimits& limits) { return 2 * ctas >= limits.sm_count; }

// The share of `slots` CTA slots a grid of `ctas` keeps busy over its waves: ctas / (waves x slots).
double wave_efficiency(long long ctas, long long slots) {
  const long long waves = (ctas + slots - 1) / slots;
  return static_cast<double>(ctas) / static_cast<double>(waves * slots);
}

// The CTAs of a tile under 128 rows one SM streams K/V with at full pace, as the split rule of decode grids
// counts them (heuristic_config): one where the CTA's ring holds at least the bytes in flight of the d=128
// decode tile's (three stages of 64-key K and V blocks, 96 KiB), which held the pace with one CTA an SM on
// grids of half the SMs (probe/call138-139); more where it holds less (d=64: two), at most what one SM holds.
// 128-row tiles are counted as one: their time is the arithmetic's.
long long streaming_ctas_per_sm(const Config& c, const Problem& p, const DeviceLimits& limits) {
  if (c.at("block_m") >= 128) return 1;
  constexpr long long kDecodeRingBytes = 3LL * 64 * 128 * 2 * 2;
  const long long ring_bytes = static_cast<long long>(c.at("stages")) * c.at("block_n") * p.d * 2 * 2;
  const long long streams = (kDecodeRingBytes + ring_bytes - 1) / ring_bytes;
  return std::clamp<long long>(streams, 1, resident_ctas(c, p, limits));
}

// Whether every SM that runs a CTA of the grid runs it beside another until the end: more CTAs than SMs,
// and a last wave (CTAs mod slots) that is full or holds more than a quarter of the SMs' count. Otherwise
// some CTAs spend a long stretch alone on their SMs, where one CTA's ring depth sets its pace (the stage
// rule of d=128 decode grids, heuristic_config).
bool shares_sms_to_the_end(long long ctas, long long slots, const DeviceLimits& limits) {
  if (ctas <= limits.sm_count) return false;
  const long long last_wave = ctas % slots;
  return last_wave == 0 || last_wave > limits.sm_count / 4;
}

// Short query chunks (fewer than 128 queries: speculative decoding, chunked prefill) whose packed rows,
// queries x the group, fill at least one 128-row tile: the mma.sync path would run its 128-row prefill tile
// there (heuristic_config), at the mma.sync rate; the wgmma rules below, packed (pack_gqa=on), instead. The
// group divides 64, so that a warpgroup's 64 rows hold whole groups (pack_gqa with o_store=tma and every
// wgmma block_m). On the H100 (a fourth survey, probe/call132, found two such shapes at 0.638x and 0.846x
// cuDNN), median us of two rounds, the mma.sync default / this one (probe/call133, sixteen shapes drawn for
// it, 16-100 queries, every head dim): faster on all sixteen, by 7% (b4 hq16 hkv2 sq16 skv31661 d256 bf16
// 138.9 / 129.6, a split decode-like grid) to 2.9x (b28 hq8 hkv2 sq80 skv6010 d128 bf16 340.4 / 116.6; b36
// hq48 hkv24 sq96 skv10708 d64 causal 2533.1 / 967.3; b31 hq24 hkv3 sq48 skv15218 d256 bf16 2586.3 / 946.1),
// all 1.349-8.976x the stronger library, where the mma.sync default had been below it on seven
// (0.508-0.931x).
bool short_chunk_fills_a_tile(const Problem& p) {
  return p.sq < 128 && groups_fill_whole_warpgroups(p) &&
         evotune_split::tile_rows(p.sq, p.group(), /*packed=*/true) >= 128;
}

// The other short query chunks past decode's 16 queries (one query head per KV head, a group that does not
// divide 64, or too few packed rows), unpacked: tiles of one head's queries, 128 rows over more than 64
// queries (the prefill tile of d=128 and d=256, both overlaps and pingpong, the dynamic scheduler), else 64
// rows (d=64: the four-CTA config; d=128: 64-key blocks, two CTAs per SM on the dynamic scheduler; d=256:
// 64-key blocks, the dynamic scheduler and tma_half's output tile). On the H100, median us of two rounds, the
// mma.sync default / this config / the fastest measured (probe/call134, fourteen shapes, 48-127 queries): 128
// rows, b40 hq32 sq127 skv1265 d64 bf16 236.9 / 163.7 / = (cuDNN 162.8), b26 hq28 sq80 skv512 d64 bf16 67.3 /
// 44.9 / = (cuDNN 43.2), b56 hq28 sq127 skv9341 d128 bf16 3186.1 / 2489.1 / =, b50 hq12 sq112 skv1794 d128
// causal 296.0 / 203.7 / =, b64 hq32 sq96 skv4385 d256 4293.7 / 3047.1 / =, b20 hq48 hkv8 sq80 skv6773 d256
// causal 1952.0 / 1120.0 / 1092.9 (80-key blocks); 64 rows, b58 hq12 hkv2 sq48 skv7404 d64 causal 384.2 /
// 222.5 / =, b55 hq28 sq48 skv696 d64 106.7 / 104.0 / 103.7, b25 hq32 sq48 skv686 d256 bf16 227.8 / 205.4 /
// =, b53 hq28 sq64 skv13692 d256 7205.1 / 6710.6 / =. Held out (probe/call135, fifteen shapes, build against
// build): faster on all fifteen, by 7.7% (b48 hq16 sq61 skv1915 d256 553.1 / 513.7) to 1.64x (b3 hq32 sq100
// skv3000 d128 causal 94.9 / 57.9), 0.993-1.926x the stronger library where the mma.sync default had been
// 0.645-1.665x. Under 48 queries (probe/call141, twelve shapes of 18-47 queries, the mma.sync default / the
// 64-row config of the 48-query rule): level or faster on eleven, b57 hq28 sq30 skv2978 d64 causal 405.7 /
// 405.0, b8 hq12 hkv2 sq37 skv1430 d256 causal 41.1 / 28.9, b54 hq8 sq35 skv13155 d256 2272.9 / 1987.9 (flash
// 1899.5), b21 hq32 sq43 skv6780 d128 851.5 / 763.4 (cuDNN 773.0), where the mma.sync default was below the
// stronger library on four (0.836-0.962x). d=128's 64-row tile had been 128-key blocks three deep, one CTA
// per SM (call134: b58 hq12 sq48 skv13595 causal bf16 1580.6 against 1594.7 with these, b5 hq48 sq64 skv13896
// causal 573.9 / 569.8); two CTAs per SM of 64-key blocks led on four of six under 48 queries (call141: b4
// hq40 hkv20 sq44 skv1157 causal 33.8 / 26.2, 160 CTAs in two waves of one per SM; b49 hq16 sq18 skv823 120.9
// / 116.9, the mma.sync default 117.7), 0.5-0.7% behind on the two long ranges (b30 hq40 sq31 skv13644 bf16
// 2733.1 / 2747.8). Held out (call142, fourteen chunks of 17-64 queries, build against build): faster on
// thirteen, up to 1.53x, 1.1% slower on one; at 17-23 queries (call147, ten) faster on eight, slower on two
// d=64 non-causal ones of 17-18 queries (b38 hq12 hkv2 sq17 skv449 15.25 / 16.61, which the mma.sync path
// packed into one tile; b44 hq8 sq18 skv3093 100.6 / 104.2). Decode-like chunks of up to 16 queries keep the
// mma.sync path (its 16-row tiles; the decode rules), and so do grids that would leave most SMs idle
// (finish_wgmma_heuristic).
bool short_chunk_unpacked(const Problem& p) { return p.sq > 16 && p.sq < 128 && !short_chunk_fills_a_tile(p); }

// d=64's four-CTA tiles (the short-range rule in wgmma_sides has their measurements): 64 rows of one consumer
// warpgroup, 64-key blocks in two slots, no overlap or pingpong, the producer's registers moved to the
// consumer, four CTAs per SM. The scheduler, Q buffers and output store are the caller's.
Config with_four_cta_tiles(Config c) {
  c.set("block_m", 64);
  c.set("block_n", 64);
  c.set("stages", 2);
  c.set("overlap", 0);
  c.set("pingpong", 0);
  c.set("producer_regs", 24);
  c.set("min_ctas", 4);
  return c;
}

// 64-row tiles of one consumer warpgroup on their own SM: 128-key blocks (d=256: 64, three 128-key slots
// would not fit beside Q) three deep, the producer keeping no registers of its own. The small-grid rule in
// finish_wgmma_tiles has their measurements.
Config with_one_warpgroup_tiles(Config c, const Problem& p) {
  c.set("block_m", 64);
  c.set("block_n", p.d == 256 ? 64 : 128);
  c.set("stages", 3);
  c.set("pingpong", 0);
  c.set("producer_regs", 0);
  return c;
}

// d=64 chunks of at most 64 queries over at least 600 keys whose four-CTA grid (below) runs one full round of
// its slots and then a last one that leaves some SMs without a tile, where a KV head serves one query head
// (GQA's heads share K/V through L2, where the four-CTA config's co-resident tiles lead whatever the round:
// call155). Each tile runs its whole K/V range, and the last round's tiles run alone on their SMs; the
// 128-row chunk config (one CTA per SM, the dynamic scheduler) spreads the same tiles over five rounds of
// 132. On the H100, median us of two rounds, four-CTA grid / 128-row config: b51 hq12 sq48 skv3430 bf16 (612
// tiles) 206.1 / 189.8 (probe/call154), b36 hq16 sq29 skv6337 (576) 361.0 / 340.5 (call155), b47 hq12 sq49
// skv8031 bf16 (564) 453.5 / 425.2 (call156); 1.7% slower where the last round fills every SM (b55 hq12 sq58
// skv735 bf16, 660 tiles: 53.66 / 54.58), and slower on eight MHA chunks past two rounds, by 0.6-5.0% (b45
// hq24 sq54 skv14770 bf16, 1080 tiles: 1335.0 / 1405.2; b21 hq32 sq45 skv6329 bf16, 672: 384.3 / 404.1),
// level on b56 hq40 sq64 skv8187 causal (2240: 1547.0 / 1537.0). Held out without a key bound (call157,
// call160-161) and with one at 1024 keys (call162), in that range: past 1024 keys faster on 20 of 22 (up to
// 10.8%: b48 hq12 sq64 skv5727 326.9 / 306.7; 0.7% and 2.0% slower on b17 hq32 sq26 skv11411 causal and b45
// hq12 sq28 skv1151); at 600-1024 keys on 8 of 14, 1.0-6.3% faster, 0.6-8.6% slower, 0.3% faster on average
// (call162 had predicted the four-CTA grid there and it led on one of six); under 600 keys slower on all six
// (2.0-17.6%: b19 hq28 sq45 skv372 causal 26.25 / 30.87; b17 hq32 sq19 skv587 causal 39.10 / 42.44): over
// short ranges the four-CTA grid's co-resident tiles hide each other's prologue and epilogue, as in its
// prefill rule. The bound, 600 keys, came from those measurements; held out (call163) the four-CTA grid was
// faster on all five chunks under it (0.4-12.9%), and over it the 128-row config on three of five, level on
// one, 10.8% slower on b17 hq32 sq55 skv820 causal: 600-1024 keys are level on average either way.
bool four_cta_chunk_tail_idles_sms(const Problem& p, const DeviceLimits& limits) {
  const long long tiles = static_cast<long long>(p.b) * p.hq, slots = 4LL * limits.sm_count;
  return p.d == 64 && p.sq <= 64 && p.skv >= 600 && p.group() == 1 && tiles > slots &&
         tiles < slots + limits.sm_count;
}

Config short_chunk_unpacked_config(const Problem& p, const DeviceLimits& limits) {
  Config c = default_config();
  c.set("mma", kWgmma);
  c.set("splits", 1);
  c.set("combine", kCombineKernel);
  c.set("pack_gqa", 0);
  c.set("rescale", 1);
  c.set("q_buffers", 1);
  c.set("overlap", 1);
  if (p.sq > 64 || four_cta_chunk_tail_idles_sms(p, limits)) {
    c.set("block_m", 128);
    c.set("block_n", p.d == 256 ? 64 : 128);
    // d=64: three 128-key slots (the prefill tile's two stages there): faster on five of five MHA chunks, by
    // 0.6-2.7% (probe/call141-142, median us of two rounds: b26 hq28 sq80 skv512 bf16 45.1 / 43.9, cuDNN
    // 43.0; b30 hq40 sq108 skv461 causal bf16 72.8 / 71.2; b23 hq28 sq92 skv2827 causal bf16 174.6 / 173.4).
    // Held out (call143) it split: 2.1-3.1% faster on three up to 1655 keys (b22 hq40 sq113 skv871 causal
    // bf16 84.4 / 81.9), 0.4-1.1% slower on three (b12 hq12 hkv2 sq100 skv4504 bf16 87.0 / 87.9).
    c.set("stages", p.d == 64 ? 3 : 2);
    c.set("pingpong", 1);
    c.set("producer_regs", p.d == 64 ? 32 : 24);
    c.set("scheduler", kDynamicScheduler);
    c.set("o_store", p.d == 256 ? 2 : 1);
  } else if (p.d == 64) {
    c = with_four_cta_tiles(c);
    c.set("scheduler", kGridScheduler);
    c.set("o_store", 1);
  } else {
    // 64 rows of 64-key blocks two deep on the dynamic scheduler: at d=128 two CTAs per SM, the producer on
    // 24 registers, the whole output tile; at d=256 one, tma_half's output tile.
    const bool two_ctas = p.d == 128;
    c.set("block_m", 64);
    c.set("block_n", 64);
    c.set("stages", 2);
    c.set("pingpong", 0);
    c.set("producer_regs", two_ctas ? 24 : 0);
    c.set("min_ctas", two_ctas ? 2 : 1);
    c.set("scheduler", kDynamicScheduler);
    c.set("o_store", two_ctas ? 1 : 2);
  }
  return conform(c);
}

std::optional<WgmmaSides> wgmma_sides(const Problem& p, const DeviceLimits& limits) {
  if (limits.compute_capability != 90) return std::nullopt;
  if (short_chunk_unpacked(p)) return WgmmaSides{short_chunk_unpacked_config(p, limits), std::nullopt};
  if (p.sq < 128 && !short_chunk_fills_a_tile(p)) return std::nullopt;
  Config c = default_config();
  c.set("mma", kWgmma);
  c.set("block_m", p.d == 64 ? 192 : 128);
  // d=256: 80-key blocks, the widest of which two slots fit beside a 128-row Q tile (64 KiB, and 40 KiB per
  // K or V block), as FlashAttention-3 runs that head dim, over long ranges; 64 with tma_half's output tile
  // up to them (the d=256 rule below). The accumulators of O take 128 of the consumers' registers.
  c.set("block_n", p.d == 256 ? 80 : p.d == 128 && !p.causal ? 176 : 128);
  c.set("stages", 2);
  c.set("overlap", 1);
  c.set("pingpong", 1);
  c.set("producer_regs", p.d == 64 ? 32 : 24);
  c.set("splits", 1);
  c.set("combine", kCombineKernel);
  c.set("pack_gqa", short_chunk_fills_a_tile(p) ? 1 : 0);
  // The softmax reference moves only past a margin (rescale=lazy), for every shape the rules below give. On
  // the H100, three interleaved rounds each, median us with it / without (probe/call33): d=128 b4 hq16 s4096
  // 810.8 / 826.7, causal 455.6 / 468.4, b1 hq32 hkv8 causal 236.5 / 243.3, b2 hq32 hkv4 s8192 causal 1615.0
  // / 1700.4; d=64 b8 hq16 s2048 294.0 / 297.6, causal b4 hq32 hkv8 s2048 188.0 / 193.1, b2 hq24 s1536 54.4 /
  // 55.9, b16 hq16 s1024 108.6 / 110.4, b8 hq16 s768 54.6 / 55.7; level at 256 and 512 keys (b32 hq8 s256
  // causal 14.7 / 14.7, b1 hq8 s512 7.0 / 7.1) except b64 hq8 s256, 33.8 / 33.5.
  c.set("rescale", 1);
  c = conform(c);
  // d=64: 192-row tiles, unless 128-row ones fill the waves of one CTA per SM clearly better (a short
  // problem whose 192-row grid leaves a last wave mostly empty). b3 hq12 s777 d64: 180 CTAs of 192 rows
  // fill 68% of two waves, 252 of 128 rows 95%; its search's winner had 128 rows, 25.3 us against the
  // 192-row default's 31.8 (evidence/results/h100/hopper/heldout; that shape now takes the short-range rule
  // below). Causal d=64 and short K/V ranges take the rules below, which set the whole tile. (This applies
  // where the persistent rule that follows does not.)
  //
  // Non-causal d=64 whose 192-row tiles fill the SMs: one CTA per SM walks them in grid order
  // (scheduler=persistent) and the rows leave by TMA store from an output tile (o_store=tma), so a tile's
  // epilogue runs under the next tile's loads. A 160-trial search found it on b8 hq16 s768 (probe/call47);
  // against the rules before, median us of two rounds in one call (probe/call48): b8 hq16 s2048 bf16 276.9
  // against the 192-row grid's 294.9; b8 hq16 s768 bf16 49.1 against the four-CTA config's 53.2, b16 hq8 s896
  // bf16 65.7 / 68.4, b4 hq16 s1024 46.2 / 47.2. On shapes not used to make this rule (call49): b4 hq32 hkv8
  // s1536 bf16 157.2 / 172.9, b4 hq16 s4096 553.7 / 573.4, b1 hq16 s8192 bf16 562.4 against the 128-row grid's
  // 586.2, b2 hq16 s1280 38.6 / 42.1 (224 tiles: 1.7 per SM), b32 hq16 s384 58.6 / 58.9. Where it lost, the
  // four-CTA config keeps short K/V ranges (below): tiles of mostly padding rows (b3 hq12 s777 30.5 / 23.6,
  // b64 hq8 s256 43.5 / 33.4, b16 hq16 s640 bf16 78.2 / 71.9, b12 hq12 s1000 101.0 / 98.5) and a grid of
  // fewer tiles than SMs (b2 hq8 s768, 64 tiles: 13.1 / 12.5). So the rule asks for tiles of at most 1/8 padding
  // rows (the longer shapes where it won had at most 5%), and a last round of its CTAs that is mostly full:
  // every shape measured had at least 85% of the rounds' tile slots filled; below 80% (tiles not filling the
  // SMs, or between one and ~1.6 rounds) the 128-row rule above decides, as before.
  // (At d=64, c has 192 rows, unpacked, here.) The share of the slots of whole rounds of one CTA per SM
  // (or of a grid's waves) that a config's tiles fill:
  auto rounds_filled = [&](const Config& candidate) {
    return wave_efficiency(unsplit_ctas(candidate, p), limits.sm_count);
  };
  // The padding bound holds up to 1024 keys (the shapes above). Past them, for prefill (the short chunks of
  // fewer than 128 queries have rules of their own), the walk leads the 192-row grid it fell back to whatever
  // the padding: on the H100, median us of two rounds, the grid (o_store=threads) / the walk (probe/call155,
  // fourteen random non-causal shapes of 276-1167 queries over 1104-4612 keys, 13-32% padding rows): faster
  // on all fourteen, by 2.5-8.4% (b54 hq28 sq389 skv1556 bf16 759.3 / 703.5, b56 hq16 hkv4 s1167 789.2 /
  // 705.3, b49 hq8 hkv4 sq1153 skv4612 bf16 1123.3 / 1088.1, b3 hq40 hkv20 sq585 skv2340 bf16 126.2 / 121.5).
  // Held out (call156): faster on all twelve random shapes it moved to the walk, by 3.2-11.5%.
  const long long padded_rows = evotune_split::ceil_div(p.sq, 192) * 192LL;
  const long long rows192_tiles = unsplit_ctas(c, p);
  const bool padding_allowed = (padded_rows - p.sq) * 8 <= padded_rows || (p.skv > 1024 && p.sq >= 128);
  const bool rows192_persistent = p.d == 64 && !p.causal && padding_allowed &&
                                  rows192_tiles >= limits.sm_count && rounds_filled(c) >= 0.8;
  // Unless 64-row tiles hold at least a sixth fewer rows (192-row tiles 1.2 times theirs): in that call a
  // four-CTA row (the config of short ranges below, on the dynamic scheduler) cost 1.11-1.21 times a walk row
  // where a KV head serves one or two query heads, and 1.27-1.39 times where it serves four or eight (there
  // K/V come from L2 and the walk's three consumer warpgroups set the pace). Where 192-row tiles hold at
  // least 1.2 times the 64-row tiles' rows, one or two query heads a KV head, the four-CTA config was faster
  // on four of five: b54 hq28 sq389 skv1556 (1.29 times the rows) 703.5 / 608.1, b57 hq28 sq276 skv1104 (1.2)
  // 368.9 / 350.2, b39 hq32 sq302 skv1208 311.1 / 296.2, b3 hq40 hkv20 sq585 skv2340 bf16 121.5 / 117.5; b10
  // hq28 hkv14 sq589 skv1178 137.8 / 139.3 (1.1% slower); level at 1.15 (b20 hq48 hkv24 sq779 skv1168 bf16
  // 542.5 / 541.6), slower below (b3 hq64 s1006/2012 227.5 / 237.6, 1.125) and with groups of four or eight
  // at any share (b29 hq64 hkv8 sq443 skv1772 bf16, 1.29: 746.1 / 808.5). call154 had found b21 hq28 sq586
  // skv1172 (1.2) 1.171x cuDNN on it against the 192-row grid's 0.967x. Held out (call156): faster on all
  // five random shapes it moved, by 2.6-24.0% (b49 hq64 sq629 skv1258 bf16 1688.7 / 1515.6, 0.939x -> 1.046x
  // cuDNN).
  const long long padded64_rows = evotune_split::ceil_div(p.sq, 64) * 64LL;
  const bool four_cta_pads_less = rows192_persistent && p.skv > 1024 && p.group() <= 2 &&
                                  5 * padded_rows >= 6 * padded64_rows;
  // That config, one CTA per SM walking 192-row tiles, which the short-range rule below may take too.
  Config rows192_walk = c;
  rows192_walk.set("scheduler", kPersistentScheduler);
  rows192_walk.set("o_store", 1);
  rows192_walk = conform(rows192_walk);
  if (rows192_persistent) {
    c = rows192_walk;
  } else if (p.d == 64 && !p.causal) {
    Config rows128 = c;
    rows128.set("block_m", 128);
    rows128.set("producer_regs", 24);
    rows128 = conform(rows128);
    if (rounds_filled(rows128) > rounds_filled(c) + 0.1) c = rows128;
    // The rows out by TMA store from an output tile (o_store=tma), as the other grids'. On
    // the H100, median us of two rounds, o_store=threads / tma: faster on all seven such grids of
    // probe/call156 (the walk's wave bound not met), by 0.3-1.9% (b1 hq32 hkv4 sq1682 skv2523 104.9 / 103.3,
    // b1 hq12 sq1071 skv1606 22.31 / 21.88, b2 hq16 hkv4 sq2482 skv4964 bf16 232.1 / 229.4), and on the
    // fourteen 192-row grids of call155 by 0.6-3.5%.
    c = with_tma_store(c, p, limits);
  }
  if (p.d == 128 || (p.d == 64 && p.causal)) {
    // One CTA per SM walking tiles from the atomic counter (the longest causal tiles first); 160-key blocks
    // for non-causal d=128, the widest that fit beside a second Q tile (a second Q buffer or the output
    // tile). On the H100 (probe/call11), with two Q buffers, against the grid default: b4 hq16 s4096 d128
    // 833.0 us against 850.9, causal 473.9 against 479.8; d64 causal b2 hq24 s1536 57.5 against 59.0, b4
    // hq32 hkv8 s2048 202.9 against 203.3. With one Q buffer the same scheduler was slower than the grid
    // (846.4, 481.8, 60.9, 214.0). Non-causal d=128 blocks of up to 160 keys (noncausal_d128_block_n): both
    // non-causal d128 searches of run_d304f61 picked 160, 842.1 us against the 144-key default's 854.3 (b4
    // hq16 s4096) and 140.7 against 146.3 (b1 hq40 hkv8 s2048).
    c.set("block_m", 128);
    c.set("block_n", p.d == 128 && !p.causal ? noncausal_d128_block_n(p) : 128);
    c.set("producer_regs", c.at("block_n") == 128 ? 32 : 24);
    // Non-causal tiles cost the same: the persistent walk, as at d=256 (below, where what it saves is
    // discussed). On the H100, median us of two rounds, dynamic / persistent, non-causal d=128
    // (probe/call142-143): faster on seven of eight by 0.3-2.9%, b3 hq40 hkv10 s1537 bf16 239.2 / 234.8, b62
    // hq12 s281 93.3 / 91.9, b8 hq32 hkv4 s2628 1345.2 / 1327.8, b6 hq32 hkv16 sq620 skv1240 bf16 136.8 /
    // 135.6; level on b16 hq40 hkv5 s270 (63.1 / 63.3). Held out (call144, build against build) faster on
    // eleven of eleven, 0.1-3.2%: b4 hq16 s4096 817.9 / 808.7 (cuDNN 847.5), b3 hq8 hkv4 s7981 1172.7 /
    // 1144.0, b49 hq16 hkv8 sq65 skv1481 bf16 (a packed chunk) 132.7 / 128.6.
    c.set("scheduler", p.d == 128 && !p.causal ? kPersistentScheduler : kDynamicScheduler);
    // The rows leave by TMA store from an output tile of their own (o_store=tma), which frees the Q buffer
    // after the tile's last Q.K^T. Against o_store=threads with pingpong on (probe/call15, both rounds'
    // median), causal: b16 hq16 s1024 d64 115.1 us against 126.2, b2 hq24 s1536 54.7 against 58.4, b4 hq32
    // hkv8 s2048 188.1 against 204.7, b32 hq8 s256 22.0 against 23.3, b4 hq16 s4096 d128 461.0 against
    // 475.4; it also beat the two-CTAs-per-SM config (128x64 tiles, min_ctas=2: 123.3, 60.7, 202.1, 22.1 us)
    // that short d64 causal tiles had taken since call10, so that rule is gone. Non-causal d=128: both
    // non-causal d128 searches of run_8f6dd73 picked it with one Q buffer, beating the two-Q-buffer default
    // in all three interleaved rounds: b4 hq16 s4096 811.9 us against 827.3, b1 hq40 hkv8 s2048 135.7
    // against 138.8 (o_store=tma and a second Q buffer do not both fit beside 160-key blocks).
    c.set("o_store", 1);
    // Two Q buffers for causal d=128 (the winners of all five d128 causal searches there); one for d=64
    // causal (probe/call20, two rounds: 114.4 us against 115.5 (s1024), 54.1 against 54.5, 185.6 against
    // 187.9, 21.2 against 22.0; three of the four d64 causal searches of run_8f6dd73 picked one too) and
    // non-causal d=128.
    c.set("q_buffers", p.causal && p.d == 128 ? 2 : 1);
    // Causal: the warpgroups do not take turns (the call15 figures above are without pingpong).
    if (p.causal) c.set("pingpong", 0);
    c = conform(c);
    // Causal d=64 (past the four-CTA bound below, 3072 keys): 192-row tiles, three consumer warpgroups
    // taking turns (pingpong), where those tiles are at least four per SM (the shapes measured had 5.3 to
    // 19). On the H100 (probe/call73, cuDNN's batch, median us of two rounds, 128 rows / 192 rows / 192 rows
    // with pingpong / cuDNN): b2 hq64 hkv32 s4635 845.8 / 777.1 / 772.7 / 813.8, b2 hq24 s6042 540.0 / 502.7 /
    // 487.1 / 530.0, b2 hq16 hkv8 s6268 388.3 / 361.1 / 358.5 / 379.3, b2 hq16 s4036 179.7 / 182.8 / 179.6 /
    // 182.7, b4 hq40 s3667 bf16 650.6 / 637.9 / 637.6 / 644.5, b8 hq24 s2416 361.0 / 356.5 / 357.3 / 362.8;
    // with 128 rows neither pingpong, a second Q buffer, three stages nor 160- or 192-key blocks led on more
    // than three of the six. (call72 had found the 128-row default 0.3-2.9% below cuDNN on these.)
    if (p.causal && p.d == 64) {
      Config rows192 = c;
      rows192.set("block_m", 192);
      rows192.set("pingpong", 1);
      rows192 = conform(rows192);
      if (unsplit_ctas(rows192, p) >= 4LL * limits.sm_count && !invalid_reason(rows192, p, limits)) c = rows192;
    }
    // Causal d=128 GQA over at least 2048 keys: a tile's rows are its group's query heads over fewer queries
    // (pack_gqa=on), where whole groups fit a tile (the group a power of two), so a KV head's K/V is read
    // once for the group. The searches of both listed causal GQA rows picked it in three full runs (b1 hq32
    // hkv8 s4096 bf16 212-216 us against 235-237; b2 hq32 hkv4 s8192 1564-1594 against 1621-1704); on other
    // shapes (probe/call60 and call61, 3 rounds, median us off / on): b1 hq32 hkv8 s8192 bf16 830.9 / 798.1,
    // b2 hq8 hkv2 s8192 bf16 434.8 / 394.3, b1 hq16 hkv2 s4096 138.0 / 113.3, b2 hq16 hkv4 s4096 242.3 /
    // 221.0, b1 hq64 hkv8 s4096 bf16 439.3 / 420.2, b4 hq32 hkv8 s4096 bf16 853.0 / 835.1, b2 hq16 hkv8 s4096
    // 242.7 / 239.9, b2 hq32 hkv8 s2048 136.8 / 134.2, b4 hq64 hkv8 s2048 bf16 461.6 / 460.3, b1 hq32 hkv8
    // sq1024 skv8192 203.2 / 201.3, sq512 skv4096 bf16 106.8 / 107.1; over fewer keys it lost (b8 hq32 hkv8
    // s1024 146.6 / 152.1, b1 hq32 hkv8 s1000 31.6 / 32.3), and non-causal too (b1 hq32 hkv8 s4096 bf16
    // 398.4 / 400.7, b2 hq32 hkv8 s2048 215.2 / 216.6).
    if (p.causal && p.d == 128 && p.group() > 1 && p.skv >= 2048) {
      Config packed = c;
      packed.set("pack_gqa", 1);
      if (!invalid_reason(packed, p, limits)) c = packed;
    }
  }
  // The config above is the long-range one; at d=64 the short-range one is built beside it, and the bound
  // picks (the other is what heuristic_alternatives offers a search).
  const Config long_range = c;
  std::optional<Config> short_range_other;  // what the search is offered beside a short-range default
  // Non-causal K/V ranges from 768 to 1024 keys take the persistent 192-row config above where its tiles are
  // at least two per SM (the measurements there); below 768 keys the four-CTA config stays (s384 was level,
  // s512 not measured with it), except where the busiest SM would hold few 192-row tiles (the tiles-per-SM
  // rule below).
  const bool rows192_short = rows192_persistent && p.skv >= 768 && rows192_tiles >= 2LL * limits.sm_count;
  // Causal: up to 3072 keys where the long-range config has 192-row tiles whose heads' last tile leaves a
  // warpgroup without rows (that tile, the one that sees the whole range, then runs on fewer warpgroups),
  // else 2048 (probe/call119-123, below).
  const bool idle_192 = c.at("block_m") == 192 && last_tile_leaves_a_warpgroup_idle(c, p);
  const int causal_bound = idle_192 ? 3072 : 2048;
  // Causal GQA from 1536 keys, where the long-range 192-row tiles pack (with_packed_gqa) in groups of at
  // least four, or over more keys than queries: there the packed tiles lead the four-CTA config, which the
  // bound above was set against unpacked tiles. On the H100, median us of two rounds, four-CTA / packed
  // 192-row (probe/call132, fourteen shapes of 1536-3072 keys whose default was the four-CTA config): faster
  // on all eleven of that kind, by 0.3-14.4% (b11 hq24 hkv6 s2915 fp16 674.4 / 627.8, b13 hq64 hkv8 s1654
  // 712.6 / 694.3, b36 hq8 hkv2 s2799 bf16 657.1 / 638.0, b61 hq24 hkv3 sq1056 skv2112 1476.4 / 1290.6, b12
  // hq48 hkv24 sq1248 skv2496 810.4 / 733.1; level on b22 hq8 hkv1 s1569 bf16, 152.0 / 151.5), while in
  // groups of two over as many keys as queries it was slower on four of five (b2 hq28 hkv14 s1856 75.5 /
  // 82.0, b64 hq8 hkv4 s1718 bf16 468.5 / 486.7): there a packed tile spans 96 queries of the diagonal, as
  // coarse as the four-CTA config's 64-row tiles are fine. Held out (probe/call133, eight shapes drawn for
  // it, build against build): faster on all eight, by 2.1-12.1% (b4 hq40 hkv10 s1616 152.4 / 149.2, b14 hq8
  // hkv1 sq1056 skv2112 bf16 129.6 / 115.6, b62 hq24 hkv12 sq513 skv1540 684.4 / 636.5, b28 hq24 hkv6 s2624
  // 1354.4 / 1307.3).
  const bool packed_192_leads = p.causal && c.at("block_m") == 192 && p.skv >= 1536 &&
                                groups_fill_whole_warpgroups(p) && (p.group() >= 4 || p.sq < p.skv);
  const bool short_range =
      p.d == 64 && p.skv <= (p.causal ? causal_bound : 1024) && !rows192_short && !packed_192_leads;
  if (p.d == 64) {
    // Short K/V ranges at d=64 (at most 16 128-key blocks per causal tile, 24 where the 192-row tiles would
    // idle a warpgroup in a head's last tile, eight otherwise): each tile is
    // mostly its prologue (Q, the first K/V) and epilogue, which a 128-row tile's two consumer warpgroups pay
    // together and wait out together. Four CTAs per SM of one consumer warpgroup each (64-row tiles, 64-key
    // blocks, the producer's registers moved to the consumer, no overlap: 104 registers at four CTAs) run
    // their own tiles, so one's prologue and epilogue run under another's GEMMs, as cuDNN's two consumer
    // warpgroups of 64-row tiles do; a plain grid, the hardware handing each finished CTA's slot the next
    // tile. On the H100, median us of two rounds, this config / the 128-row causal default of before / the
    // 192-row non-causal one / cuDNN (probe/call26): b16 hq16 s1024 causal 110.1 / 115.9 / - / 110.3, b4 hq32
    // hkv8 s1024 causal 59.5 / 63.8 / - / 60.3, b2 hq16 s1000 causal 24.1 / 26.5 / - / 26.1, b16 hq8 s512
    // non-causal 29.8 / - / 33.8 / 28.4, b8 hq16 s768 non-causal 55.2 / - / 55.5 / 51.7; the same with the
    // dynamic scheduler 1.5-7% slower on all five. The 96-trial searches of four shorter causal shapes
    // (heldout_427d016: s384 to s768) all picked this grid config too. The bounds moved up (causal from 1024
    // to 1536 keys, non-causal from 768 to 1024) once lazy rescaling (call33) had made both configs faster.
    // This config / the default of before / cuDNN, median us of two rounds (probe/call38 and, on shapes not
    // used to choose the bounds, call42): causal b2 hq24 s1536 52.9 / 53.7 / 52.5, b8 hq16 s1536 bf16 113.1
    // / 116.6 / 114.5, b16 hq16 s1280 154.4 / 162.6 / 157.9, b2 hq32 hkv8 s1536 bf16 64.3 / 66.0 / 64.5, b4
    // hq8 s1152 27.9 / 29.7 / 28.3; non-causal b8 hq16 s1024 bf16 89.0 / 94.8 / 85.1, b4 hq16 s1024 48.2 /
    // 50.4 / 46.3, b16 hq8 s896 bf16 70.1 / 73.8 / 66.6, b3 hq12 s777 bf16 24.0 / 27.3 / 26.6. Beyond them
    // the larger tiles are ahead or level: causal s2048 b4 hq32 hkv8 181.0 / 185.8 / 181.7, b2 hq16 62.2 /
    // 60.5 / 59.4, b1 hq32 s3072 116.9 / 111.5 / 112.3, b2 hq16 s4096 bf16 185.7 / 179.2 / 180.7;
    // non-causal b4 hq16 s1536 98.9 / 89.3 / 92.6, s2048 (call23) 347.3 / 294.6. Non-causal tiles of at
    // most 256 keys take the dynamic scheduler: on b64 hq8 s256 33.4 us against the grid's 36.7
    // (probe/call28, three rounds; cuDNN 32.1), while from 384 keys the grid stays ahead (59.5 against 60.4,
    // s512 30.0 against 31.3, s640 58.3 against 59.7, s768 55.2 against 58.5). Causal tiles of 256 keys kept
    // the grid's lead (b32 hq8 s256: 14.9 against 15.3).
    //
    // Since the tiles are decoded by host-made divisors and the epilogue stores by stmatrix (11a0846), both
    // moved (probe/call54, two rounds each, median us of this config on a plain grid / with the dynamic
    // scheduler / the 128-row default / cuDNN): causal at 2048 keys the four-CTA config leads, b4 hq32 hkv8
    // s2048 bf16 175.5 / 176.4 / 188.0 / 185.8, b8 hq16 s2048 178.2 / 180.0 / 185.6 / 187.9, b2 hq16 s2048
    // 59.8 / 60.2 / 59.4 / 60.7, and not beyond (b1 hq32 s3072 113.0 / - / 110.8, b2 hq16 hkv4 s4096 bf16
    // 178.7 / - / 178.9, b1 hq16 s8192 340.9 / - / 333.2): the causal bound was 2048 keys. With the 192-row
    // causal tiles of v13 beyond it (whose heads' last tile is partly empty at 2113-2176 and 2497-2560 keys,
    // the default there 0.954-0.979x cuDNN, probe/call119), the four-CTA config led the default on all nine
    // shapes measured from 2120 to 2900 keys, by 2.1-5.6% (probe/call120: b4 hq16 hkv4 s2120 bf16 115.5 ->
    // 109.4 us, b1 hq64 hkv8 s2176 bf16 115.0 -> 109.2, b8 hq8 hkv2 s2530 bf16 149.0 -> 143.1, b4 hq16 hkv4
    // s2900 bf16 184.9 -> 181.1), was level at 3100 (163.0 -> 162.6) and behind at 3300 (179.5 -> 180.4) and
    // 4096 (b1 hq48 hkv8 250.0 -> 252.2): the causal bound is 3072 keys. Held out (probe/call121, twelve
    // random shapes of 2049-3072 keys, build against build): faster on all five whose default had been
    // 192-row tiles, by 0.2-6.1% (b4 hq12 hkv3 s2165 bf16 91.6 -> 86.0 us, 0.968x -> 1.032x cuDNN; b8 hq48
    // hkv24 s2588 bf16 775.3 -> 748.2), but slower on five of the six whose default had 128-row tiles (fewer
    // than four 192-row tiles per SM), by 2.7-5.8% (b1 hq16 hkv8 s2798 bf16 57.8 -> 61.1, b1 hq16 s2057 bf16
    // 41.0 -> 43.0; faster only on b1 hq40 hkv20 s2355, 87.7 -> 85.8, whose 192-row tiles are 520, just
    // under four per SM): where the long-range config has 128-row tiles the bound stays 2048. Held out again
    // (probe/call122, shapes drawn for it) the 192-row tiles led the four-CTA config on all five of many
    // tiles, by 0.6-4.6% (b3 hq64 hkv32 s3034 517.8 against 541.6 us; b6 hq40 hkv20 s2298 388.5 against
    // 394.3): in all five the heads' last 192-row tile had every warpgroup busy (145-186 rows), while in every shape
    // where the four-CTA config had led (fourteen, call120-121) it left at least one idle (4-126 rows). So
    // the bound is 3072 only where the last 192-row tile leaves a warpgroup without rows (held out in
    // probe/call123). Non-causal, the
    // dynamic scheduler now leads wherever the tiles are more than the four CTAs per SM hold at once: b32 hq16
    // s384 bf16 (3072 tiles) 59.0 / 54.2 (cuDNN 57.5), b16 hq16 s512 (2048) 50.4 / 48.4, b8 hq32 hkv8 s640
    // bf16 (2560) 71.1 / 69.2, b6 hq12 s640 (720) 27.8 / 27.2, b64 hq8 s256 (2048) 36.4 / 32.4; with fewer
    // it only adds the draws (b2 hq8 s768, 192 tiles, 12.4 / 13.0; b4 hq8 s512 bf16, 256 tiles, 9.5 / 9.8).
    c = with_four_cta_tiles(c);
    const bool more_tiles_than_slots = unsplit_ctas(c, p) > persistent_ctas(c, limits);
    c.set("scheduler", !p.causal && more_tiles_than_slots ? kDynamicScheduler : kGridScheduler);
    c.set("q_buffers", 1);
    c.set("o_store", 1);
    c = conform(c);
    // Non-causal tiles more than one round of the four-CTA slots: the SM with the most tiles sets the time,
    // ceil(tiles / SMs) of them, four at once for the four-CTA config, one 192-row tile at a time for the
    // 192-row walk. On the H100 a walk tile took 2.3-3.3 times a four-CTA tile (per SM; lower over longer
    // K/V ranges and with fewer tiles per SM), so the walk leads where the four-CTA config has at least
    // three times its tiles per SM, and only while those are few (at most four): with more, the four-CTA
    // config's dynamic scheduler runs at its steady rate. Median us of two rounds, each side timed with
    // cuDNN's batch, four-CTA / walk (tiles per SM, four-CTA and walk):
    //   (6, 2): b16 hq8 s384 16.90 / 14.85 (call64); b4 hq32 hkv8 s384 bf16 16.86 / 14.83, b8 hq16 s384 bf16
    //   16.92 / 14.90, b10 hq12 s384 16.28 / 14.90, b5 hq16 s576 25.49 / 25.18 (call65); b2 hq64 hkv8 s384
    //   bf16 16.83 / 14.82, b1 hq64 hkv8 s704 28.86 / 27.44 (call66);
    //   (9, 3): b24 hq8 s384 26.22 / 25.10 (call64); b8 hq24 hkv8 s384 26.06 / 24.78, b12 hq16 s384 bf16 26.35
    //   / 25.24, b11 hq12 s576 35.25 / 34.16, b5 hq24 hkv8 s576 bf16 33.06 / 33.74 (call66);
    //   (12, 4): b11 hq16 s576 44.58 / 43.20 (call66);
    // and not: (5, 2) split, b2 hq32 s640 26.64 / 24.13, b6 hq12 s576 24.68 / 24.91 (call64), b1 hq64 hkv8
    // s640 26.53 / 24.21, b2 hq40 hkv8 s512 bf16 22.80 / 21.20, b4 hq24 hkv8 s384 14.76 / 14.86 (call65), b8
    // hq16 s320 17.80 / 19.19, b4 hq16 s576 bf16 23.56 / 24.79, b6 hq12 s512 bf16 21.87 / 21.38, b5 hq20 s384
    // 15.25 / 14.86 (call66); (6, 3) b12 hq8 s512 bf16 24.66 / 28.58; (8, 3) b8 hq16 s512 bf16 28.62 / 28.82;
    // (10, 4) b6 hq24 hkv8 s576 bf16 36.20 / 42.65; (14, 5) b36 hq8 s384 bf16 34.93 / 37.39; (18, 6) b48 hq8
    // s384 43.07 / 44.30, b96 hq8 s192 33.02 / 36.09; (24, 8) b32 hq16 s384 bf16 53.90 / 56.69. Two bounds
    // before this one, on rounds of all the slots (528 and 132 tiles), failed held out (call65, call66).
    if (short_range && !p.causal && more_tiles_than_slots) {
      const long long per_sm64 = tiles_per_sm(c, p, limits);
      const long long per_sm192 = tiles_per_sm(rows192_walk, p, limits);
      if (3 * per_sm192 <= per_sm64 && per_sm192 <= 4 && !invalid_reason(rows192_walk, p, limits)) {
        short_range_other = c;
        c = rows192_walk;
      }
    }
    // A small grid: 128-row tiles no more than the SMs, 64-row ones more. The four-CTA config's tiles then
    // leave most CTA slots empty and put two on some SMs, each of one consumer warpgroup; one 128-row tile
    // per SM, its two consumer warpgroups taking turns with the overlapped loop, does the same rows with
    // twice the warpgroups on the busiest SMs. On the H200 (probe/call56, two rounds, median us of this
    // config / 128x128 persistent with overlap and pingpong / cuDNN): b2 hq16 s512 9.53 / 8.37 / 10.23, b1
    // hq16 s1024 bf16 20.64 (bimodal: 15.6 or 25.8) / 12.80 / 14.60, b2 hq8 s1000 20.64 / 13.01 / 16.06,
    // b3 hq8 s640 bf16 11.04 / 9.45 / 11.19, b1 hq32 s512 9.53 / 8.36 / 10.26; causal b1 hq8 s2048 31.46 /
    // 25.40 / 25.92, b1 hq12 s1024 bf16 15.15 / 13.07 / 14.69, b2 hq4 s2048 31.38 / 25.22 / 25.94; the
    // small-grid config below (64x128, overlap) 12.7-32.5 on all of them. With more 128-row tiles than SMs
    // the four-CTA config stays ahead (b4 hq8 s768, 192 tiles: 15.17 / 22.14 / 22.02).
    Config rows128 = c;
    rows128.set("block_m", 128);
    rows128.set("block_n", 128);
    if (unsplit_ctas(rows128, p) <= limits.sm_count && unsplit_ctas(c, p) > limits.sm_count) {
      c = rows128;
      c.set("min_ctas", 1);
      c.set("overlap", 1);
      c.set("pingpong", 1);
      c.set("scheduler", kPersistentScheduler);
      c = conform(c);
    }
  }
  // d=256 up to long ranges (d256_long_range, above): 128x64 tiles, each next tile drawn from the atomic
  // counter (the longest causal tiles first), the rows out through tma_half's output tile of two column
  // blocks (32 KiB: the whole 64 KiB one does not fit beside 128 rows of Q and two 64-key slots), so that the
  // Q buffer frees after a tile's last Q.K^T and the next tile's Q loads under its epilogue. With the rows
  // through the Q buffer instead, that config had led FlashAttention-3's 128x80 grid only over short ranges
  // (d256_short_range, above; probe/call77-79); with tma_half, on the H100, median us of two rounds against
  // the previous default / cuDNN: over short ranges 6-25% faster on ten shapes, 1.055-1.103x cuDNN against
  // 0.861-1.030x (probe/call90: causal b8 hq24 hkv3 s348 58.8 -> 47.2 / 50.6, b16 hq24 hkv6 s766 268.5 ->
  // 232.4 / 254.0, b8 hq16 s1024 157.8 -> 141.9 / 154.9; non-causal b16 hq8 s512 74.5 -> 67.8 / 73.7) and
  // 9-17% on six held out (call91: 1.037-1.162x cuDNN against 0.949-1.038x); over longer ranges, against the
  // 128x80 grid, 1.9-5.2% faster on five of eight (call91: b4 hq16 s4096 1518.5 -> 1443.7 / 1567.3, causal
  // 827.1 -> 807.1 / 881.2, b2 hq16 hkv8 s3000 causal bf16 256.7 -> 246.9 / 276.9), level on two, 0.7% slower
  // on b1 hq16 hkv8 s8192 causal bf16 (757.3 -> 762.2 / 859.0), and on three grids just past one wave
  // 1.7-10.2% faster (call92). Past 4096 keys the 128x80 grid stays (call97). (The 80-key blocks do not fit
  // the dynamic scheduler's registers with overlap: 12-16 bytes spilled; nor tma_half beside them.) Small
  // grids keep a plain grid (finish_wgmma_heuristic). NOTES.md v17-v18.
  // Without causality every tile costs the same, and the persistent walk (each CTA's tiles fixed by its
  // index, no counter) leads. Why is not established: the dynamic producer asks the counter for its next tile
  // after issuing the current one's last K/V load, but fetching it one tile early was slower everywhere when
  // tried (probe/call22, NOTES.md v10), so the round trip alone does not explain it. On the H100, median us
  // of two rounds, dynamic / persistent (probe/call141-142): b64 hq16 sq256 skv512 fp16 291.8 / 279.0 (cuDNN
  // 282.1), b62 hq32 hkv4 s465 808.5 / 791.1, b32 hq24 hkv6 s656 bf16 595.0 / 577.6, b28 hq16 hkv8 s380 bf16
  // 130.0 / 128.5, b62 hq48 sq744 skv1488 5314.8 / 5011.7 (rounds 5.2-5.4 ms / 4.9-5.1); held out (call143,
  // build against build) faster on eight of eight, 0.9-3.6% (b28 hq8 hkv1 s474 102.3 / 98.7, b4 hq16 s3618
  // bf16 1158.7 / 1124.8). Causal tiles, the longest first, keep the counter (b19 hq48 hkv6 s695 causal 481.6
  // / 636.5).
  if (p.d == 256 && !d256_long_range(p)) {
    c.set("block_n", 64);
    c.set("scheduler", p.causal ? kDynamicScheduler : kPersistentScheduler);
    c.set("o_store", 2);
    c = conform(c);
  }
  if (p.d != 64) return WgmmaSides{c, std::nullopt};
  if (short_range) return WgmmaSides{c, short_range_other.value_or(long_range)};
  // (Its four CTAs per SM draw tiles from the counter where they are more than the slots; with fewer, the
  // walk stays: not measured.)
  if (four_cta_pads_less && c.at("scheduler") == kDynamicScheduler) return WgmmaSides{c, long_range};
  return WgmmaSides{long_range, c};
}

// A plain grid's rows out by TMA store from an output tile (o_store=tma), or where that does not fit beside
// the slots, from half of one (tma_half), else through the Q buffer: one tile per CTA, so no next Q loads
// early, but the stores themselves are faster. On the H100, median us of two rounds, o_store=threads / tma
// (probe/call101): the 192-row d=128 grids b1 hq36 hkv4 s512 18.71 / 17.89, b5 hq8 hkv2 s512 18.78 / 18.35, b1
// hq20 s1000 27.90 / 27.23; the 128-row d=128 small grids b1 hq32 hkv8 s512 bf16 12.45 / 12.15, b1 hq12 hkv3
// s1179 23.25 / 22.50, b2 hq12 hkv4 sq640 skv701 causal 17.89 / 17.24; the 128x64 d=256 small grids with
// tma_half b2 hq8 hkv1 s687 24.22 / 23.44, b1 hq16 hkv4 s900 causal 28.59 / 27.38; held out on seven more,
// 2.5-5.2% faster (call102). The 64-row small grids at d=64 and d=128 (probe/call104): 0.9-7.5% faster on all
// eight shapes measured (b1 hq8 s512 d64 7.15 / 6.85, b2 hq4 s700 d128 11.05 / 10.28).
Config with_tma_store(Config c, const Problem& p, const DeviceLimits& limits) {
  for (int o_store : {1, 2}) {
    c.set("o_store", o_store);
    if (!invalid_reason(c, p, limits) && !excluded_by_default(c, p, limits)) return c;
  }
  c.set("o_store", 0);
  return c;
}

// skip_idle where a head's last tile leaves a consumer warpgroup without rows (causal: that tile sees the
// whole K/V range), off elsewhere (off compiles to the kernel of before the tunable). On the H100, median us
// of three rounds, the kernel of this rule where it applies against off (probe/call107, each problem's
// default): b2 hq32 s2560 d64 fp16 (two of three warpgroups idle) 152.6 -> 149.8, b16 hq16 s1050 d128 fp16
// 176.8 -> 170.2, b8 hq16 s1050 d256 bf16 159.5 -> 154.7, b2 hq16 s4160 d128 bf16 247.8 -> 244.6 (one of
// two); probe/call106, the first form (the same code in those tiles): b1 hq40 hkv8 s5000 d64 bf16 306.6 ->
// 301.4, b4 hq16 s3000 d128 276.5 -> 272.1, b2 hq24 s6042 d64 508.3 -> 505.8, b4 hq16 s3000 d256 483.5 ->
// 488.2 (base rounds 483-499). Where no warpgroup is idle the two forms cost 0.6-1.4% on pingpong and packed
// tiles (b1 hq32 hkv8 s4096 d128 211.2 -> 214.1; b8 hq16 s1024 d256 141.0 -> 141.8): hence a tunable.
Config with_skip_idle(Config c, const Problem& p) {
  c.set("skip_idle", p.causal && last_tile_leaves_a_warpgroup_idle(c, p) ? 1 : 0);
  return c;
}

std::optional<Config> finish_wgmma_tiles(Config c, const Problem& p, const DeviceLimits& limits) {
  // 128-row tiles whose 64-row halves would be more than the SMs keep their tiles: the config below, on
  // 64-row halves, was 25-50% slower on eight such d=64 shapes (probe/call56), and at d=128 and d=256, where
  // one such CTA fills an SM's shared memory so that the halves run in two waves, 20-45% slower than a
  // 128-row grid on eight shapes (probe/call85: b1 hq12 hkv3 s1179 d128 bf16 33.3 us against 22.9, b2 hq8
  // hkv1 s687 d256 bf16 33.7 against 24.2).
  Config halves = c;
  halves.set("block_m", 64);
  const bool halves_crowd = c.at("block_m") == 128 && unsplit_ctas(halves, p) > limits.sm_count;
  const bool small_grid = unsplit_ctas(c, p) < limits.sm_count;
  if (small_grid && (!halves_crowd || p.d != 64)) {
    // Fewer tiles than SMs: nothing for a persistent CTA to walk, so a plain grid.
    c.set("scheduler", kGridScheduler);
    c.set("q_buffers", 1);
    c.set("min_ctas", 1);
    if (halves_crowd) {
      // d=128 and d=256: the 128-row tiles, both overlaps and pingpong, as measured. At d=256
      // FlashAttention-3's 80-key blocks beyond short ranges: against 64-key blocks on such grids 1.1-2.2%
      // faster on three of four long-range shapes, 1.0% slower on one (probe/call92: b2 hq2 s4000 bf16 89.8
      // us against 91.2).
      c.set("pingpong", 1);
      if (p.d == 256) c.set("block_n", d256_short_range(p) ? 64 : 80);
    } else {
      c = with_one_warpgroup_tiles(c, p);
    }
    // The rows out by TMA store where an output tile fits (not beside the 80-key slots or, at d=256, the
    // 64-row config's three).
    c = with_tma_store(conform(c), p, limits);
  }
  // Non-causal d=128 grids just past one wave (128-row tiles more than the SMs, 192-row ones no more): one
  // wave of 192-row tiles (three consumer warpgroups, 64-key blocks, the widest that do not spill at d=128,
  // both overlaps and pingpong) instead of the busiest SMs running two 128-row tiles. On the H100, median
  // us of two rounds, default / 192x64 grid / cuDNN (probe/call98): b1 hq36 hkv4 s512 fp16 24.20 / 18.71 /
  // 21.82, b1 hq32 hkv8 s600 bf16 24.56 / 20.94 / 27.15, b3 hq16 hkv4 s384 fp16 16.98 / 12.31 / 16.68, b1
  // hq24 s900 bf16 31.51 / 27.09 / 36.94; held out (call99) 15-33% faster on eight more, 1.207-1.547x cuDNN.
  // Causal shapes of that class were level or 1% slower with it (b2 hq12 s800 fp16 23.14 / 23.30, b1 hq40
  // hkv8 s512 bf16 14.36 / 14.51) and keep theirs.
  Config rows192 = c;
  rows192.set("block_m", 192);
  if (p.d == 128 && !p.causal && c.at("block_m") == 128 && unsplit_ctas(c, p) > limits.sm_count &&
      unsplit_ctas(rows192, p) <= limits.sm_count) {
    rows192.set("block_n", 64);
    rows192.set("stages", 2);
    rows192.set("overlap", 1);
    rows192.set("pingpong", 1);
    rows192.set("producer_regs", 24);
    rows192.set("scheduler", kGridScheduler);
    rows192.set("q_buffers", 1);
    rows192.set("min_ctas", 1);
    rows192 = with_tma_store(conform(rows192), p, limits);
    if (!invalid_reason(rows192, p, limits) && !excluded_by_default(rows192, p, limits)) return rows192;
  }
  if (invalid_reason(c, p, limits) || excluded_by_default(c, p, limits)) return std::nullopt;
  // Measured unsplit (call56; at d=128 and d=256 call85, a small grid); split-KV there is not measured.
  if (halves_crowd && (p.d == 64 || small_grid)) return c;
  const int splits = auto_splits(c, p, limits);
  const int kv_blocks = (p.skv + c.at("block_n") - 1) / c.at("block_n");
  if (splits > 1 && kv_blocks / splits >= 8) {
    c.set("splits", splits);
    if (invalid_reason(c, p, limits) || excluded_by_default(c, p, limits)) c.set("splits", 1);
  }
  return c;
}

// GQA: the group's query heads as one CTA's rows (pack_gqa=on). Non-causal, where that cuts the tiles the
// busiest SM runs by at least 3%. Packed, a head's rows are its queries x the group, interleaved, so the last
// tile's padding rows are those of block_m / group queries instead of block_m: at 1024 queries 192-row tiles
// pad 12.5% (six tiles per head), packed in groups of four 3% (22 tiles per KV head, not 24). On the H100,
// b14 hq32 hkv8 s1024 d64 bf16 on the persistent 192-row walk, the default there: 277.0 us unpacked, 0.993x
// cuDNN, behind the four-CTA config's 268.4 (probe/call126-127); a 96-trial search found the same walk
// packed, 256.1 us (1.072x; call127). Held out (probe/call128, two rounds, packed / unpacked / cuDNN), on
// sixteen shapes drawn for it the default packed was faster on all sixteen, by 0.4-13.3% (d=64: b14 hq8 hkv2
// s196 8.62 -> 7.61 us, four-CTA tiles; b19 hq48 hkv24 s1422 1058.9 -> 1002.8, the walk; d=128: b31 hq24 hkv6
// sq207 skv828 bf16 143.9 -> 128.3; b27 hq48 hkv6 s909 994.5 -> 913.1; least on b4 hq48 hkv12 s2513 bf16,
// 898.3 -> 894.6), all 1.067-1.555x cuDNN; of call127's shapes b61 hq8 hkv2 s1024 bf16 0.974x -> 1.038x.
// Where the tiles per SM do not drop, packing costs a little (non-causal d=128: b1 hq32 hkv8 s4096 bf16
// 398.4 / 400.7 us, b2 hq32 hkv8 s2048 215.2 / 216.6, probe/call60-61), hence the margin; grids of under
// two packed tiles per SM keep theirs (the small-grid rules decide there).
// Causal: the 192-row d=64 tiles (at least four per SM, past the four-CTA bound) pack wherever they can: a
// packed tile spans 192 / group queries of the diagonal, not 192. On the H100, median us of two rounds,
// unpacked / packed: b15 hq16 hkv4 s3584 852.5 / 829.8, b14 hq28 hkv7 s3584 1397.1 / 1341.3 (probe/call129);
// held out on six more drawn for it (call130) faster on all six, by 1.3-9.0% (b7 hq40 hkv20 s3780 1112.2 /
// 1098.0, b33 hq16 hkv2 s3150 1506.0 / 1413.8, b2 hq28 hkv7 s6080 bf16 563.7 / 517.0), 1.059-1.185x cuDNN
// (sq < skv: 1.93x flash).
// Other causal tiles keep theirs: packed, the four-CTA config was 1.7-8.2% slower on all three shapes
// measured and 128-row d=128 tiles below 2048 keys mixed (call129: 0.7-6.0% faster on four, 5.1% slower on
// one; from 2048 keys causal d=128 packs, above).
Config with_packed_gqa(Config c, const Problem& p, const DeviceLimits& limits) {
  if (p.group() == 1 || p.d > 128 || c.at("pack_gqa") == 1) return c;
  Config packed = c;
  packed.set("pack_gqa", 1);
  if (invalid_reason(packed, p, limits) || excluded_by_default(packed, p, limits)) return c;
  if (p.causal) return p.d == 64 && c.at("block_m") == 192 ? packed : c;
  const long long per_sm = tiles_per_sm(c, p, limits), packed_per_sm = tiles_per_sm(packed, p, limits);
  return packed_per_sm >= 2 && packed_per_sm * 100 <= per_sm * 97 ? packed : c;
}

// tile_order=sections: the (batch, head) pairs of one section (the CTAs' heads: KV heads when packed). Its
// tiles run x-major over all its heads at once, so the section's K and V must stay in L2 while they run: as
// many KV heads as fit theirs in a third of the L2 cache, and the sections that takes cut evenly (a short
// last section would run its long tiles at the launch's end, which the order is there to avoid). A third:
// on the H100 (50 MiB) sections of 32-45 MiB of K/V ran 4-53% slower than heads' order on shapes of short
// K/V ranges, where each tile's K/V comes back from L2 several times (b47 hq32 s682 d128 causal 466 -> 714
// us, probe/call148); those of 16-28 MiB ran faster where the tail had been long. (Short ranges lost at a
// third too, call150: with_tile_order asks more of them.) Unpacked GQA: whole groups of query heads
// (consecutive, one KV head).
int section_heads(const Config& c, const Problem& p, const DeviceLimits& limits) {
  const long long kv_head_bytes = 2LL * p.skv * p.d * 2;  // K and V, two bytes an element
  const long long fit = std::max<long long>(1, limits.l2_bytes / 3 / kv_head_bytes);
  const long long kv_pairs = static_cast<long long>(p.b) * p.hkv;
  const long long sections = (kv_pairs + fit - 1) / fit;
  const long long kv_heads = (kv_pairs + sections - 1) / sections;
  return static_cast<int>(kv_heads * (c.at("pack_gqa") == 1 ? 1 : p.group()));
}

// The busiest CTA slot's load, in K/V blocks, when `slots` resident CTAs take a causal launch's tiles as they
// come free (list scheduling: the dynamic scheduler's counter, or the hardware handing out a grid's blocks)
// in sections of `section` (batch, head) pairs (1: tile_order=heads), a tile costing its K/V blocks plus one
// for its prologue and epilogue; 0 where the tiles are more than 64 per slot (the tail is then a small part
// of the launch).
// The slots are alike, so the model keeps only how many sit at each load: the next tile goes to the least
// loaded, and that load never falls, so one pointer walks up the counts (no load exceeds the mean plus the
// longest tile: Graham's bound). A default for 18816 tiles on 528 slots takes ~0.1 ms this way.
long long modeled_busiest_slot(const Config& c, const Problem& p, long long slots, long long section) {
  const bool packed = c.at("pack_gqa") == 1;
  const int block_m = c.at("block_m"), rows = evotune_split::tile_rows(p.sq, p.group(), packed);
  const int x_extent = static_cast<int>(query_tiles(c, p));
  const long long pairs = static_cast<long long>(p.b) * (packed ? p.hkv : p.hq);
  const long long tiles = x_extent * pairs;
  if (tiles > 64 * slots) return 0;
  std::vector<long long> cost(static_cast<std::size_t>(x_extent));
  long long total = 0, longest = 0;
  for (int x = 0; x < x_extent; ++x) {  // x = 0 is the last query tile: the longest first
    const int m0 = (x_extent - 1 - x) * block_m;
    const long long blocks = evotune_split::tile_blocks(m0, block_m, rows, p.group(), packed, p.sq, p.skv,
                                                        true, c.at("block_n"), 1, 0)
                                 .end;
    cost[static_cast<std::size_t>(x)] = blocks + 1;
    total += (blocks + 1) * pairs;
    longest = std::max(longest, blocks + 1);
  }
  const long long used = std::min(slots, tiles);
  std::vector<long long> at_load(static_cast<std::size_t>(total / used + longest + 2), 0);
  at_load[0] = used;
  long long least = 0, busiest = 0;
  for (long long first = 0; first < pairs; first += section) {
    const long long heads = std::min(section, pairs - first);
    for (int x = 0; x < x_extent; ++x) {
      for (long long h = 0; h < heads; ++h) {
        while (at_load[static_cast<std::size_t>(least)] == 0) ++least;
        --at_load[static_cast<std::size_t>(least)];
        const long long load = least + cost[static_cast<std::size_t>(x)];
        ++at_load[static_cast<std::size_t>(load)];
        busiest = std::max(busiest, load);
      }
    }
  }
  return busiest;
}

// tile_order=sections where the list-scheduling model (modeled_busiest_slot) puts the busiest CTA slot
// lower than heads' order by 10%, or by 5% where a CTA head has at least 8 query tiles: causal tiles of one
// chunk each (their costs differ) on the grid or the dynamic scheduler (the CTAs take the next tile as they
// come free). heads' order ends on the last heads' long tiles; sections end every section on short ones.
// What the model leaves out is L2: a section runs all its heads at once, so a head's next tile comes a
// section later. Where a head has few tiles, heads' order runs them side by side and reads its K/V once;
// separated, they read it again from L2 or memory, which a small tail gain does not pay for. On the H100,
// median us of two rounds, heads / sections, by the model's gain (probe/call149-150, 44 shapes, 32 random):
//   - 5% or more, 8+ tiles a head: faster on all 15, by 2.5-21% (b4 hq16 s4096 d128 fp16 453.4 / 432.7, b1
//     hq16 s7786 d128 410.7 / 376.8, b2 hq16 s1832 d64 51.4 / 42.4, b1 hq24 s3756 d256 290.2 / 255.8);
//   - 10% or more, fewer tiles: faster on 6 of 7, by 3.1-11% (b4 hq32 hkv4 s277 d128 22.4 / 20.1), 2.0%
//     slower on b5 hq28 s435 d256;
//   - 5-10%, fewer tiles: slower on 7 of 9, by 1.4-15% (b25 hq64 s152 d64 50.9 / 59.7, b8 hq24 s384 d128
//     33.2 / 34.8), faster on 2 (b38 hq8 hkv1 s157 d128 24.9 / 22.7);
//   - 2-5%: faster on 6 of 13, slower on 7 (b49 hq48 s512 d64 272.0 / 307.4); under 2%: 2 of 6 faster.
// Non-causal tiles cost the same in either order, and sections only spread L2's working set (1.2-7.0%
// slower on four shapes, probe/call148).
Config with_tile_order(Config c, const Problem& p, const DeviceLimits& limits) {
  c.set("tile_order", 0);
  const int scheduler = c.at("scheduler");
  if (!p.causal || c.at("splits") != 1 || (scheduler != kGridScheduler && scheduler != kDynamicScheduler)) {
    return c;
  }
  // The CTAs resident at once: min_ctas per SM, as the kernel's launch bounds and register split are made
  // for (a grid's too: its wgmma tiles' registers allow no more).
  const long long slots = persistent_ctas(c, limits);
  const long long heads_load = modeled_busiest_slot(c, p, slots, 1);
  const long long sections_load = modeled_busiest_slot(c, p, slots, section_heads(c, p, limits));
  const int needed_gain = query_tiles(c, p) >= 8 ? 5 : 10;  // percent
  if (heads_load > 0 && sections_load * 100 <= heads_load * (100 - needed_gain)) c.set("tile_order", 1);
  return c;
}

// The rules every wgmma default passes through last: packed GQA (with_packed_gqa), a grid that leaves
// SMs idle, validity, split-KV (finish_wgmma_tiles), then skip_idle for the tile that results.
std::optional<Config> finish_wgmma_heuristic(Config c, const Problem& p, const DeviceLimits& limits) {
  c = with_packed_gqa(std::move(c), p, limits);
  // A packed short chunk's rows are queries x the group, fixed by the problem: at d=64, 128-row tiles where
  // they take no more tiles than 192-row ones and pad fewer rows (32 queries x 8 heads = 256 rows: two
  // 128-row tiles, not two 192-row ones a third empty), else the 192-row tiles (488 rows: three, not four).
  // On the H100, median us of two rounds, 128 / 192 rows (probe/call137): b48 hq40 hkv10 sq50 skv3637
  // 289.3 / 358.4, b8 hq40 hkv10 sq63 skv12373 227.7 / 287.5, b29 hq8 hkv2 sq57 skv13810 128.9 / 161.9, b30
  // hq48 hkv24 sq111 skv1473 194.9 / 234.8; with 488 rows 192-row tiles led, b50 hq40 hkv10 sq122 skv1596
  // bf16 288.9 / 273.0, b16 hq32 hkv8 sq122 skv4390 causal bf16 173.1 / 169.8.
  if (short_chunk_fills_a_tile(p) && c.at("block_m") == 192) {
    const int rows = evotune_split::tile_rows(p.sq, p.group(), true);
    const int tiles128 = evotune_split::ceil_div(rows, 128), tiles192 = evotune_split::ceil_div(rows, 192);
    if (tiles128 <= tiles192 && tiles128 * 128 < tiles192 * 192) {
      c.set("block_m", 128);
      c = conform(c);
    }
  }
  const std::optional<Config> finished = finish_wgmma_tiles(std::move(c), p, limits);
  if (!finished) return std::nullopt;
  // A short query chunk (under 128 queries) whose wgmma grid, split as the rules split it, leaves more than
  // half the SMs idle: the short-chunk rules were measured on 108-2800 CTAs (probe/call133-135; 36 packed
  // tiles split three ways the fewest), and over short K/V ranges the wgmma split rule does not split at all
  // (b1 hq16 hkv2 sq20 skv900: six CTAs), where the mma.sync path splits its keys finer. It keeps those.
  if (p.sq < 128 && !holds_half_the_sms(unsplit_ctas(*finished, p) * finished->at("splits"), limits)) {
    return std::nullopt;
  }
  return with_tile_order(with_skip_idle(*finished, p), p, limits);
}

}  // namespace

std::vector<Config> heuristic_alternatives(const Problem& p, const DeviceLimits& limits) {
  const std::optional<WgmmaSides> sides = wgmma_sides(p, limits);
  if (!sides || !sides->other) return {};
  const std::optional<Config> chosen = finish_wgmma_heuristic(sides->chosen, p, limits);
  const std::optional<Config> other = finish_wgmma_heuristic(*sides->other, p, limits);
  if (!chosen || !other || chosen->key() == other->key()) return {};  // refused, or the same small-grid config
  return {*other};
}

Config heuristic_config(const Problem& p, const DeviceLimits& limits) {
  const std::optional<WgmmaSides> sides = wgmma_sides(p, limits);
  if (std::optional<Config> hopper = sides ? finish_wgmma_heuristic(sides->chosen, p, limits) : std::nullopt)
    return *hopper;
  Config c = default_config();  // the large-prefill config: 128-row tiles of 8 warps, 128-key blocks
  // Packed GQA when one head's queries do not fill a tile of the largest block_m (128 rows), as in decode
  // and short query chunks: the group's query heads fill the rows instead, and each KV head's K/V is read
  // once, not once per query head. A long prefill fills its tiles by itself, and its K/V re-reads across
  // the group's heads come mostly from L2.
  const bool pack = p.group() > 1 && p.sq < 128;
  c.set("pack_gqa", pack ? 1 : 0);
  // block_m: the fewest rows (a power of two, one 16-row MMA tile at least, 128 at most) that hold one
  // CTA head's rows; a decode step of 4 packed heads then computes 16 rows, not 128.
  const long long rows = pack ? static_cast<long long>(p.sq) * p.group() : p.sq;
  int block_m = 16;
  while (block_m < rows && block_m < 128) block_m *= 2;
  c.set("block_m", block_m);
  // One 16-row MMA tile per warp (as the prefill config). Tiles under 64 rows would leave a CTA with one
  // or two warps: too few threads issuing the K/V copies, and too little latency hidden. They get four
  // warps, the extra ones splitting each K/V block's keys (kv_warps) rather than rows.
  c.set("warps", std::max(4, block_m / 16));
  c.set("kv_warps", block_m < 64 ? 4 / (block_m / 16) : 1);
  // Tiles under 128 rows do little arithmetic per K/V byte, so their time is the memory pipeline's:
  // 64-key blocks three deep keep two blocks in flight while one is computed ((16 + 3 x 2 x 64) rows x
  // 256 B = 100 KiB at d=128: two CTAs per SM on sm_90). 128-row tiles keep the prefill config's
  // double-buffered 128-key blocks.
  // Such a tile's warps each own one 16-row MMA tile, so Q's fragments stay in registers (D/16 x 4 of
  // them) instead of being re-read from shared memory for every K/V block: on the H100, b1 hq32 hkv8
  // skv2048 decode took 8.2 us with them in registers, 9.0 us re-read (evidence/results/h100/decode/probe).
  // At d=256 Q's fragments (64 registers) beside O's 128 pushed a 32-row tile of two key groups past 255
  // into spills (fp16, causal: 28 bytes; probe/call76), so Q stays in shared memory there.
  if (block_m < 128) {
    c.set("block_n", 64);
    c.set("stages", 3);
    c.set("q_frags", p.d <= 128 ? kQInRegisters : kQInSharedMemory);
  }
  // The split count is the launch plan's (auto_splits): split only when the unsplit grid leaves SMs idle.
  // Where it splits, the call is short and latency-bound, and its end is the merge, a warp per row:
  //   - sm_90 and newer: a combine kernel, launched as a programmatic dependent launch (scheduled while
  //     the attention kernel runs, so its launch latency is hidden), its warps spread over many CTAs.
  //     On the H100 it beat the tile's last CTA on every shape and count measured: b1 hq32 hkv8 skv2048,
  //     16 chunks, 7.9 vs 8.2 us; MQA b2 hq8 skv5000, 9.5 vs 11.6 us; b4 hq64 hkv8, 8 chunks, 30.5 vs
  //     31.7 us (evidence/results/h100/decode/probe/call2);
  //   - older GPUs launch the combine kernel only after the attention kernel ends. There the tile's last
  //     CTA merges (last_cta: one launch) when the tile's rows are no more than its warps, one row per
  //     warp at once; with more rows its warps would merge in turns, and the kernel is faster.
  // 128-row tiles of 8 warps always use the kernel: the merge's code pushed that kernel past 255 registers
  // into spills on sm_90 (H100, bf16 and fp16, d=128).
  c.set("splits", kAutoSplits);
  const long long tile_rows = std::min<long long>(rows, block_m);
  const bool merge_in_last_cta = limits.compute_capability < 90 && block_m < 128 && tile_rows <= c.at("warps");
  c.set("combine", merge_in_last_cta ? kCombineLastCta : kCombineKernel);
  // A smaller GPU may not hold the tiles: fewer stages, then narrower K/V blocks (while every key group keeps
  // 16-key steps), then, for d=256 on a GPU of 100 KiB per block (sm_86), fewer rows (16 per warp) and at
  // last one stage, until the rules accept it.
  while (invalid_reason(c, p, limits) || excluded_by_default(c, p, limits)) {
    if (c.at("stages") > 2) {
      c.set("stages", c.at("stages") - 1);
    } else if (c.at("block_n") > 32 && (c.at("block_n") / 2) % (16 * c.at("kv_warps")) == 0) {
      c.set("block_n", c.at("block_n") / 2);
    } else if (c.at("block_m") > 16 && c.at("kv_warps") == 1) {
      c.set("block_m", c.at("block_m") / 2);
      c.set("warps", c.at("block_m") / 16);
    } else if (c.at("stages") > 1) {
      c.set("stages", 1);
    } else {
      break;
    }
  }
  // The problem is known here, so the count auto would choose for it is compiled in: the kernel then knows
  // at compile time whether it splits. Built with splits=auto, every store of the epilogue asks at run time
  // (or, in tiles under 64 rows, the epilogue is compiled twice): on the H100, b1 hq32 hkv8 skv2048 decode
  // took 9.1 us with splits=auto and 8.25 us with the same 16 chunks compiled in (probe/call2, before the
  // epilogue was specialized), and the twice-compiled epilogue made the 128-row bf16 tile of the sq128
  // row spill (previous_d00e1d6/bench_stderr.txt). A launcher built from this config for one shape still
  // runs any other shape correctly, with this count. splits=auto stays in the space for a search and for
  // configs meant to serve many shapes.
  // On sm_90 a grid of at least half as many CTAs as SMs is not split (where one CTA streams at an SM's pace;
  // d=64 below): auto_splits counts the slots of the small tiles' residency (many per SM), but a decode
  // step's CTAs stream K/V and the grid's share of the SMs, not of the slots, sets the time. On the H100,
  // median us of two rounds, the count auto_splits gave / unsplit (probe/call138, decode over 519-1757 keys):
  // b15 hq48 hkv6 sq1 skv831 d128 causal bf16 (90 CTAs) 8 chunks 24.1 / 19.6, b31 hq24 hkv3 sq2 skv1123 (93)
  // 12 chunks 33.5 / 24.9, b15 hq40 hkv5 sq4 skv608 d256 bf16 (75) 3 chunks 33.2 / 27.5; with more CTAs
  // unsplit was the default already and fastest on four of five (b56 hq40 hkv5 sq1 skv519: 2 chunks 36.4 /
  // 36.9). Held out (probe/call139, twelve shapes of 69-306 CTAs over 572-24599 keys): unsplit faster on
  // eleven, by 0.6-28.7%, 3.7% slower on one (b40 hq8 hkv2 sq1 skv2703, 80 CTAs: 27.9 against 27.0). Tiny
  // grids keep their splits (b1 hq32 hkv8 skv2048: 8 CTAs, 16 chunks 8.2 us).
  // Tiles under 128 rows count the SMs in K/V streams (streaming_ctas_per_sm): a d=64 tile's ring holds
  // half a d=128 tile's bytes in flight, so a grid of them that holds half the SMs but less than half their
  // 264 streams is split, into the most chunks that stay within the streams (no SM then holds more CTAs
  // than it streams: a third CTA on an SM of two streams would run in its own tail). On the H100, median us
  // of two rounds, unsplit / that count (probe/call175, decode over 4446-29729 keys, call174's hole and eight
  // drawn shapes of 68-110 CTAs): b18 hq32 hkv4 sq1 skv26578 bf16 (72 CTAs) 208.1 / 166.3 (3 chunks; 0.870x
  // -> 1.090x flash), b73 hq2 hkv1 sq4 skv16445 (73) 131.5 / 109.2 (3), b110 hq2 hkv1 sq1 skv29729 causal
  // (110) 299.4 / 278.3 (2), b100 hq4 hkv1 sq3 skv18792 (100) 179.8 / 166.3 (2): 5.5-25.2% faster on all
  // nine, the fastest of 2, 3 and 4 chunks on eight (b36 hq4 hkv2 sq3 skv4446 causal: 37.6 against 35.5 us
  // with 4, one of its rounds 34.7). Six d=128 grids of 83-121 CTAs beside them: unsplit the fastest on
  // five, within 0.3% on the sixth. Held out (probe/call176, a first count that filled 80% of the streams):
  // split 3%+ faster than unsplit on 7 of 8, grids of 132-263 CTAs unsplit within 3% of the fastest on 6 of
  // 6; that count's two misses, 3 chunks of 101-102 CTAs, 3.1-4.4% behind 2, led to this one.
  const long long ctas = unsplit_ctas(c, p);  // splits, combine and stages below do not change it
  // A tile one SM holds alone (over half its 228 KiB of shared memory: d=256 tiles, d=128 128-row ones) runs
  // a grid of more CTAs than SMs in hard waves: the last wave's CTAs cannot speed up on their emptied SMs,
  // since each already has its SM to itself. Such a grid is split by auto_splits' wave efficiency, with the
  // unsplit grid's own waves counted (auto_splits leaves every grid that fills 80% of the first wave). On the
  // H100, median us of two rounds, unsplit / that count (probe/call179, d=256 decode): b43 hq32 hkv4 sq1
  // skv4766 fp16 (172 CTAs: a second wave of 40) 339.8 / 296.5 (2 chunks; 0.848x -> 0.972x flash), b18 hq64
  // hkv8 sq3 skv29920 causal (144) 1878.5 / 1525.9 (4), b89 hq4 hkv2 sq8 skv2654 (178) 195.1 / 178.6 (2);
  // grids whose last wave is nearly full (248 and 260 CTAs) stay whole, within 0.4% of the fastest.
  // Such a grid of half the SMs up to 80% of them (auto_splits' bound) runs in one wave that leaves the rest
  // idle, and on the H100 most streamed K/V at 2.5-2.8 TB/s where full waves reached 3.0. It is split into
  // the fewest chunks whose grid fills 80% of its waves (as auto_splits asks of an unsplit grid), each chunk
  // 1024 keys at least (1 MiB of K/V at d=256 bf16): a shorter chunk's fixed costs (Q load, ring fill,
  // partial write, merge) ate the gain. Median us of two rounds, unsplit / that count (probe/call182, d=256
  // decode): b43 hq2 hkv2 sq4 skv12641 bf16 (86 CTAs) 412.8 / 370.9 (3 chunks; 0.904x -> 1.006x cuDNN), b98
  // hq1 sq7 skv14810 (98) 541.7 / 494.4 (4), b95 hq8 hkv1 sq5 skv5822 (95, 64-row tile) 228.4 / 217.5 (4);
  // b39 hq16 hkv2 sq1 skv2565 (78) with 3 chunks of 855 keys 79.4 / 81.4; grids of 113 and 120 CTAs (85-91%
  // of the SMs) unsplit within 1.3% of the fastest. Held out (probe/call183, the count of 85% of the best
  // efficiency): 3%+ faster on 7 of 8 drawn shapes (5-22%: b74 hq8 hkv1 sq5 skv5477, 64-row tile, 216.9 /
  // 169.9) and on b51 hq2 hkv2 sq8 skv14713 (102 CTAs, 6 chunks, 5.0%), but 4.2% slower on b68 hq4 hkv1 sq4
  // skv5489 bf16 (68 CTAs, 3 chunks filling 204 of 264 slots), which the 80% bound now leaves whole. b23
  // hq24 hkv3 sq1 skv24599 (69 CTAs, 8 chunks) 1.3% slower: its unsplit grid already streamed 3.03 TB/s.
  // 16-row tiles start at 55% of the SMs: such a CTA alone on its SM streamed ~43 GB/s, so ~70 of them fill
  // the HBM unsplit (probe/call184: b69 hq4 hkv1 sq2 skv12678 causal, 69 CTAs, 2.98 TB/s, unsplit 300.4 us
  // against 325.1 with 3 chunks and 328.2 with 8; b70 hq1 sq2 skv8400 2.90 TB/s, unsplit 4.6% faster than 8
  // chunks; b34 hq4 hkv2 sq4 skv7676, 68 CTAs, 5.5% faster than 3; call183's b68 and b23 likewise), while
  // grids of 86-88 streamed 2.65-2.70 TB/s unsplit and 3.0 split (call182-183). Held out (probe/call185): five
  // 16-row grids of 84-100 CTAs split 3.8-11.7% faster than whole, three of 68-72 fastest whole (1.8-5.0%).
  //
  // d=128 16-row tiles (two an SM, 264 slots on the H100) in grids of more CTAs than the slots, whose last
  // wave holds more than a quarter of the SMs but fewer CTAs than SMs: those CTAs run one to an SM, at a
  // CTA's own pace, and on the H100 ~83 of them were needed to stream at the HBM's (a loss near (83 - last
  // wave) / CTAs of the whole call, fit to b80, b83, b73, b43 and b70 below). 2 chunks of 1024+ keys double
  // the last wave and halve the CTAs' length.
  // Median us of two rounds, unsplit / 2 chunks (probe/call188-189, MHA decode): b80 hq4 sq8 skv26684 (320
  // CTAs, a last wave of 56) 1574.4 / 1440.0 (1.003x -> 1.097x cuDNN), b83 hq4 sq8 skv3545 bf16 (332: 68)
  // 218.2 / 207.8, b73 hq8 sq4 skv6454 (584: 56) 664.4 / 637.2, b29 hq12 sq2 skv3727 (348: 84) 233.4 /
  // 224.1 (0.985x -> 1.026x), b23 hq16 sq6 skv30870 bf16 (368: 104) 1942.6 / 1870.6, b43 hq32 sq1 skv12790
  // (1376: 56) 2961.3 / 2898.3, b70 hq16 sq8 skv11553 (1120: 64) 2177.1 / 2143.7; level (within 0.1%) with
  // last waves of 112-120 (b20 hq32 sq8, b16 hq24 sq6). Past 6 waves the last one weighs little and the
  // split's own cost showed (b124 hq24 sq5 skv3479 bf16, 12 waves, a last of 72: 1.3% slower; b101 hq32 sq4
  // skv14631, 13 waves: level); within 6 the worst was b36 hq40 sq3 skv4954 (a last of 120): 0.5% slower.
  // Last waves of 132+ streamed at the HBM's pace (2 chunks 0.2-1.4% slower on five), and ones of a quarter
  // of the SMs or less take three stages (below), with which 2 chunks went either way (b34 hq8 sq8 causal, 8:
  // 6.8% faster; b103 hq8 sq7, 32: 3.4% slower); d=64 tiles (four an SM) gained nothing from 2-6 chunks
  // (four grids, call189).
  const int resident = resident_ctas(c, p, limits);
  const bool one_an_sm = limits.compute_capability == 90 && resident == 1;
  const bool fills_the_hbm_unsplit = c.at("block_m") == 16 && 100 * ctas < 55LL * limits.sm_count;
  constexpr int kMinChunkKeys = 1024;
  const int min_chunk_blocks = (kMinChunkKeys + c.at("block_n") - 1) / c.at("block_n");
  const long long slots = static_cast<long long>(limits.sm_count) * resident;
  const long long last_wave = ctas % slots;
  constexpr long long kMostWavesSplitForALoneLastWave = 6;
  const bool lone_last_wave = limits.compute_capability == 90 && p.d == 128 && c.at("block_m") == 16 &&
                              ctas > slots && ctas <= kMostWavesSplitForALoneLastWave * slots &&
                              last_wave > limits.sm_count / 4 && last_wave < limits.sm_count;
  int splits = 0;
  if (one_an_sm && ctas > limits.sm_count) {
    splits = splits_by_waves(c, p, limits.sm_count);
  } else if (one_an_sm && holds_half_the_sms(ctas, limits)) {
    const bool fills_most_sms = 10 * ctas >= 8LL * limits.sm_count;
    splits = fills_the_hbm_unsplit || fills_most_sms
                 ? 1
                 : fewest_splits_filling_waves(c, p, limits.sm_count, min_chunk_blocks);
  } else if (lone_last_wave) {
    splits = eligible_split(c, p, 2, min_chunk_blocks) ? 2 : 1;
  } else if (limits.compute_capability == 90 && holds_half_the_sms(ctas, limits)) {
    const long long streams = static_cast<long long>(limits.sm_count) * streaming_ctas_per_sm(c, p, limits);
    splits = 2 * ctas >= streams ? 1 : splits_within_streams(c, p, streams);
  } else {
    splits = auto_splits(c, p, limits);
  }
  c.set("splits", splits);
  if (splits == 1) c.set("combine", kCombineKernel);  // nothing to merge (last_cta needs a split)
  // d=128 16-row tiles (sq x group <= 16), unsplit, on sm_90: two stages where the grid's CTAs share their
  // SMs to the end, three where some run alone. Both rings hold two CTAs an SM there (three stages by shared
  // memory, 100 KiB; two by registers, 207 a thread), so the waves are the same. On the H100, median us of
  // two rounds, stages=2 against 3 on 36 random shapes (probe/call166-168): faster on all 24 of more than 132
  // CTAs whose last wave of 264 held more than 33 CTAs (0.6-6.2%), slower on all 12 others (1.9-19.7%:
  // grids of 66-128 CTAs, and last waves of 4-24). Held out first with a last-wave bound of 132 (call168,
  // written before the call): right on 13 of 16; the three wrong had last waves of 104-120, and the quarter
  // of the SMs is fit on all 36 (held out in call169). d=64 (four CTAs an SM) was level (call166): as is.
  // The lone last wave's 2 chunks keep the unsplit grid's stages (two: it was measured so, call188-189).
  if (limits.compute_capability == 90 && (splits == 1 || lone_last_wave) && p.d == 128 && block_m == 16 &&
      c.at("stages") == 3 && shares_sms_to_the_end(ctas, limits.sm_count * 2LL, limits)) {
    c.set("stages", 2);
  }
  return c;
}

Config conform(const Config& config) {
  Config c = config;
  const Config defaults = default_config();
  if (c.at("mma") == kWgmma) {
    const int block_m = c.at("block_m");
    if (block_m % 64 == 0 && block_m <= 192) c.set("warps", 4 * (block_m / 64 + 1));
    for (const char* name : kCpAsyncTunables) c.set(name, defaults.at(name));
  } else {
    for (const char* name : kWgmmaTunables) c.set(name, defaults.at(name));
  }
  return c;
}

namespace {

// `text`'s assignments over `base`; the tunables it does not name take what the named ones fix (conform:
// "mma=wgmma,block_m=128" means warps=12); a named value is kept as written, and the rules say so if it
// contradicts.
Config parse_over(std::string_view text, const Config& base) {
  Config c = evotune::parse_config(text, parameters(), base);
  const Config conformed = conform(c);
  if (conformed == c) return c;
  std::vector<std::string> named;
  for (const auto& [name, value] : split_assignments(text, "config")) named.push_back(name);
  for (const auto& [name, value] : conformed.entries()) {
    if (std::find(named.begin(), named.end(), name) == named.end()) c.set(name, value);
  }
  return c;
}

constexpr std::string_view kDefaultWord = "default";

}  // namespace

Config parse_config(std::string_view text) { return parse_over(text, default_config()); }

std::optional<std::string_view> default_changes(std::string_view text) {
  if (text.empty() || text == kDefaultWord) return std::string_view();
  if (text.size() > kDefaultWord.size() && text.substr(0, kDefaultWord.size()) == kDefaultWord &&
      text[kDefaultWord.size()] == ',') {
    return text.substr(kDefaultWord.size() + 1);
  }
  return std::nullopt;
}

Config parse_config_for(std::string_view text, const Problem& problem, const DeviceLimits& limits) {
  const std::optional<std::string_view> changes = default_changes(text);
  return changes ? parse_over(*changes, heuristic_config(problem, limits)) : parse_config(text);
}

Config complete_recorded(const Config& recorded) {
  const std::vector<Parameter>& known = parameters();
  const bool only_known = std::all_of(recorded.entries().begin(), recorded.entries().end(), [&](const auto& e) {
    return std::any_of(known.begin(), known.end(), [&](const Parameter& p) { return p.name == e.first; });
  });
  if (!only_known) return recorded;
  Config c = recorded;
  const Config defaults = default_config();
  for (const Parameter& param : known) {
    if (!c.has(param.name)) c.set(param.name, defaults.at(param.name));
  }
  return c;
}

std::string format(const Config& config) { return format_config(config, parameters()); }

int threads(const Config& c) { return c.at("warps") * 32; }

int shared_bytes(const Config& c, const Problem& p) {
  if (c.at("mma") == kWgmma) {
    return evotune_wgmma::shared_bytes(c.at("block_m"), c.at("block_n"), c.at("stages"), p.d, c.at("q_buffers"),
                                       c.at("o_store"));
  }
  // Must match attention.cuh: Q tile + stages x (K tile + V tile), rows of d (+8 when padded) 2-byte
  // elements, plus the scalar mainloop's fp32 probability rows.
  int row_stride = p.d + (c.at("smem_layout") == kPaddedLayout ? 8 : 0);
  int rows = c.at("block_m") + 2 * c.at("stages") * c.at("block_n");
  int scratch = c.at("mma") == kScalar ? c.at("block_m") * c.at("block_n") * 4 : 0;
  return rows * row_stride * 2 + scratch;
}

namespace {

const Parameter& parameter(std::string_view name) {
  for (const Parameter& param : parameters())
    if (param.name == name) return param;
  throw std::out_of_range(fmt::format("no attention tunable named {}", name));
}

// The CTAs a persistent scheduler launches: min_ctas per SM, all resident at once.
long long persistent_ctas(const Config& c, const DeviceLimits& limits) {
  return static_cast<long long>(limits.sm_count) * c.at("min_ctas");
}

// The rules of mma=wgmma (mainloop_wgmma.cuh), apart from the shared-memory and split rules every mainloop
// has.
std::optional<std::string> wgmma_invalid_reason(const Config& c, const Problem& p, const DeviceLimits& limits) {
  // wgmma and setmaxnreg exist on sm_90a only (Blackwell has tcgen05 instead).
  if (limits.compute_capability != 90) return "mma=wgmma is Hopper's (sm_90a) instruction";
  // The cp.async mainloops' tunables do not exist in this kernel: they must keep the values the default
  // config gives them, so that one kernel has one name.
  const Config defaults = default_config();
  for (const char* name : kCpAsyncTunables) {
    if (c.at(name) != defaults.at(name)) {
      return fmt::format("{} is a cp.async/mma_sync tunable; mma=wgmma takes its default ({})", name,
                         parameter(name).format(defaults.at(name)));
    }
  }
  const int block_m = c.at("block_m");
  if (block_m % 64 != 0 || block_m > 192) return "mma=wgmma: block_m is 64 rows per consumer warpgroup, 1 to 3 of them";
  const int consumers = block_m / 64;
  if (c.at("warps") != 4 * (consumers + 1)) {
    return fmt::format("mma=wgmma with block_m={} runs {} consumer warpgroups and the producer's: warps={}", block_m,
                       consumers, 4 * (consumers + 1));
  }
  if (c.at("stages") < 2) return "mma=wgmma: one K/V slot would serialize the copies and the GEMMs (stages >= 2)";
  if (c.at("pingpong") == 1 && consumers < 2) return "pingpong needs two consumer warpgroups (block_m >= 128)";
  if (c.at("skip_idle") == 1 && (consumers < 2 || !p.causal)) {
    return "skip_idle is for causal tiles of two or three consumer warpgroups (block_m >= 128), where a "
           "head's last tile may leave some without rows";
  }
  if (c.at("producer_regs") != 0 && consumers < 2 && c.at("min_ctas") < 2) {
    return "producer_regs: one consumer warpgroup alone on an SM already has 255 registers (block_m >= 128 or "
           "min_ctas >= 2)";
  }
  // min_ctas > 1: that many CTAs share an SM, one's prologue and epilogue under another's GEMMs (short
  // causal tiles pay them often). Their shared memory (plus the 1 KiB the driver keeps per CTA) and threads
  // must fit one SM, and setmaxnreg can only move registers within a CTA's share of the file.
  const int min_ctas = c.at("min_ctas");
  if (min_ctas > 1) {
    const int smem = shared_bytes(c, p) + 1024;
    if (smem * min_ctas > limits.shared_bytes_per_sm) {
      return fmt::format("min_ctas={}: {} CTAs of {} bytes of shared memory exceed the SM's {}", min_ctas, min_ctas,
                         smem, limits.shared_bytes_per_sm);
    }
    if (threads(c) * min_ctas > limits.max_threads_per_sm) {
      return fmt::format("min_ctas={}: {} CTAs of {} threads exceed the SM's {}", min_ctas, min_ctas, threads(c),
                         limits.max_threads_per_sm);
    }
  }
  // ptxas fits each wgmma instruction (its accumulators and operands) within the launch's register count,
  // whatever setmaxnreg later gives the consumers: with min_ctas=2 at 384 threads (80 registers) it aborted
  // with "Insufficient registers (80)... target of 90" for block_n=128 at d=64 and "of 94" for d=128's P.V
  // (64 accumulators each), so the widest wgmma's accumulators + 30 must fit. (That also keeps every
  // producer_regs value at or below the launch's count: setmaxnreg.dec cannot raise it.)
  const int launch = evotune_wgmma::launch_registers(block_m, min_ctas);
  const int widest_wgmma = std::max(p.d, c.at("block_n")) / 2 + 30;
  if (widest_wgmma > launch) {
    return fmt::format("min_ctas={}: a wgmma of {} accumulators needs ~{} registers, the launch gives {} per thread",
                       min_ctas, std::max(p.d, c.at("block_n")) / 2, widest_wgmma, launch);
  }
  if (c.at("pack_gqa") == 1 && (block_m % p.group() != 0)) {
    return fmt::format("pack_gqa with wgmma: block_m={} must hold whole groups of {} heads (one TMA box)", block_m,
                       p.group());
  }
  if (c.at("splits") != 1 && c.at("combine") != kCombineKernel) {
    return "mma=wgmma merges split-KV chunks with the combine kernel (combine=kernel)";
  }
  if (c.at("o_store") != 0 && c.at("scheduler") == kStreamKScheduler) {
    return "o_store=tma stores whole tiles; scheduler=stream_k's pieces leave from registers (o_store=threads)";
  }
  if (c.at("o_store") != 0 && c.at("pack_gqa") == 1 && 64 % p.group() != 0) {
    return fmt::format("o_store=tma with pack_gqa stores a warpgroup's 64 rows as one TMA box: whole groups of {} "
                       "heads do not fill it",
                       p.group());
  }
  if (c.at("o_store") == 2 && p.d % 128 != 0) {
    return fmt::format("o_store=tma_half holds half the head dim's 64-column blocks: d={} has {}", p.d,
                       p.d / 64);
  }
  if (c.at("q_buffers") == 2 && c.at("scheduler") != kPersistentScheduler && c.at("scheduler") != kDynamicScheduler) {
    return "q_buffers=2 loads the next tile's Q early: scheduler=persistent or dynamic (grid: one tile per CTA; "
           "stream_k keeps one)";
  }
  if (c.at("scheduler") == kStreamKScheduler) {
    if (c.at("splits") != 1) return "scheduler=stream_k cuts the K/V ranges of the tail itself (splits=1)";
    if (c.at("tile_order") != 0) return "scheduler=stream_k costs its tail tiles in tile_order=heads";
    // split_kv.h's stream-K arithmetic is 32-bit: (CTAs + 1) x the tail's K/V blocks (under CTAs tiles of
    // at most ceil(skv / block_n) blocks each) must stay below 2^31.
    const long long blocks = (static_cast<long long>(p.skv) + c.at("block_n") - 1) / c.at("block_n");
    const long long ctas = persistent_ctas(c, limits);
    if ((ctas + 1) * ctas * blocks >= (1LL << 31)) {
      return fmt::format("scheduler=stream_k: skv={} is too long for its 32-bit tail arithmetic on {} CTAs", p.skv,
                         ctas);
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> invalid_reason(const Config& c, const Problem& p, const DeviceLimits& limits) {
  for (const Parameter& param : parameters()) {
    if (!c.has(param.name)) return fmt::format("missing parameter {}", param.name);
    if (!param.contains(c.at(param.name))) return fmt::format("{}={} outside its domain", param.name, c.at(param.name));
  }
  const int block_m = c.at("block_m"), block_n = c.at("block_n"), warps = c.at("warps");
  const int n_threads = threads(c);
  if (n_threads > limits.max_threads_per_block) {
    return fmt::format("{} threads exceed the device's {} per block", n_threads, limits.max_threads_per_block);
  }
  if (c.at("mma") != kWgmma) {
    const Config defaults = default_config();
    for (const char* name : kWgmmaTunables) {
      if (c.at(name) != defaults.at(name)) {
        return fmt::format("{} is a wgmma tunable; mma={} takes its default ({})", name,
                           parameter("mma").format(c.at("mma")), parameter(name).format(defaults.at(name)));
      }
    }
  }
  if (c.at("mma") == kWgmma) {
    if (std::optional<std::string> why = wgmma_invalid_reason(c, p, limits)) return why;
  } else if (c.at("mma") == kMmaSync) {
    // The warps are (warps / kv_warps) row groups x kv_warps key groups; a row group owns one or two 16-row
    // MMA tiles, a key group block_n / kv_warps keys of each block (16-key MMA steps).
    const int kv_warps = c.at("kv_warps");
    if (warps % kv_warps != 0) return fmt::format("kv_warps={} does not divide warps={}", kv_warps, warps);
    const int row_warps = warps / kv_warps;
    if (block_m % (16 * row_warps) != 0 || block_m / (16 * row_warps) > 2) {
      return fmt::format(
          "mma_sync needs block_m = 16 or 32 rows per row group of warps (block_m={}, warps={}, "
          "kv_warps={})",
          block_m, warps, kv_warps);
    }
    if (block_n % (16 * kv_warps) != 0) {
      return fmt::format("kv_warps={} leaves fewer than 16 keys (or not a multiple) per warp of block_n={}",
                         kv_warps, block_n);
    }
    if (limits.compute_capability < 80) return "mma_sync m16n8k16 with bf16 and cp.async need sm_80 or newer";
    if (c.at("q_frags") == kQInRegisters && block_m / (16 * row_warps) != 1) {
      return "q_frags=regs needs one 16-row tile per warp (block_m = 16 x warps / kv_warps)";
    }
    if (merge_bytes(c, p) > kv_buffer_bytes(c, p)) {
      return fmt::format(
          "kv_warps={}: the key groups' merge needs {} bytes, more than the {} of the K/V buffers it "
          "reuses",
          kv_warps, merge_bytes(c, p), kv_buffer_bytes(c, p));
    }
    if (c.at("overlap") == 1 && c.at("stages") < 3) return "overlap=on keeps three K/V blocks in flight: stages >= 3";
  } else {
    // The scalar mainloop reads Q from shared memory; a register copy of whole Q rows does not fit.
    if (c.at("q_frags") == kQInRegisters) return "q_frags=regs is for mma_sync; scalar reads Q from shared memory";
    if (c.at("overlap") == 1) return "overlap=on is a tensor-core schedule (mma_sync)";
    if (c.at("qk_split") != 1) return "qk_split applies to the mma_sync mainloop";
    if (c.at("kv_warps") != 1) return "kv_warps applies to the mma_sync mainloop";
    // Scalar: a power-of-two group of threads, within one warp, per row.
    if (n_threads % block_m != 0 || n_threads / block_m > 32) {
      return fmt::format("scalar needs 1 to 32 threads per row (block_m={}, threads={})", block_m, n_threads);
    }
    const int per_row = n_threads / block_m;
    if (block_n % per_row != 0 || p.d % per_row != 0) {
      return fmt::format("scalar: {} threads per row do not split block_n={} and d={}", per_row, block_n, p.d);
    }
  }
  if (c.at("pack_gqa") == 1 && p.group() == 1) {
    return "pack_gqa=on needs GQA/MQA (hq > hkv): with one query head per KV head it is the unpacked kernel";
  }
  if (c.at("splits") == 1 && c.at("combine") != kCombineKernel)
    return "combine applies to split-KV (splits != 1)";
  if (const int splits = c.at("splits"); splits > 1) {
    const int kv_blocks = (p.skv + c.at("block_n") - 1) / c.at("block_n");
    if (splits > kv_blocks) {
      return fmt::format(
          "splits={} exceeds the {} K/V blocks of block_n={}: the chunks past them would be empty", splits,
          kv_blocks, c.at("block_n"));
    }
    if (split_workspace_bytes(p, splits) > kMaxSplitWorkspaceBytes) {
      return fmt::format("splits={} needs {:.1f} GiB of fp32 partial outputs (limit {} GiB)", splits,
                         static_cast<double>(split_workspace_bytes(p, splits)) / (1 << 30),
                         kMaxSplitWorkspaceBytes >> 30);
    }
  }
  const int smem = shared_bytes(c, p);
  if (smem > limits.shared_bytes_per_block_optin) {
    return fmt::format("{} bytes of shared memory exceed the device's {} per block", smem,
                       limits.shared_bytes_per_block_optin);
  }
  return std::nullopt;
}

ProblemRequirements problem_requirements(const Config& c, int head_dim, const DeviceLimits& limits) {
  ProblemRequirements r;
  const bool wgmma = c.at("mma") == kWgmma;
  if (c.at("pack_gqa") == 1) {
    r.min_group = 2;
    // wgmma_invalid_reason: a tile holds whole groups (one TMA box), and o_store=tma's 64-row boxes too.
    if (wgmma) r.group_divides = c.at("o_store") != 0 ? std::gcd(c.at("block_m"), 64) : c.at("block_m");
  }
  const long long block_n = c.at("block_n");
  if (const int splits = c.at("splits"); splits > 1) {
    r.min_skv = static_cast<int>((splits - 1) * block_n + 1);
    r.max_rows = static_cast<long long>(kMaxSplitWorkspaceBytes / (static_cast<std::size_t>(splits) *
                                                                   (static_cast<std::size_t>(head_dim) + 1) * 4));
  }
  if (wgmma && c.at("scheduler") == kStreamKScheduler) {
    const long long ctas = persistent_ctas(c, limits);
    const long long max_blocks = ((1LL << 31) - 1) / ((ctas + 1) * ctas);
    r.max_skv = max_blocks * block_n;
    if (max_blocks == 0) r.min_skv = std::numeric_limits<int>::max();  // no length fits (0 would mean unbounded)
  }
  return r;
}

bool meets(const ProblemRequirements& r, const Problem& p) {
  const int group = p.group();
  return group >= r.min_group && (r.group_divides == 0 || r.group_divides % group == 0) && p.skv >= r.min_skv &&
         (r.max_skv == 0 || p.skv <= r.max_skv) && (r.max_rows == 0 || p.rows() <= r.max_rows);
}

int kv_buffer_bytes(const Config& c, const Problem& p) {
  const int row_stride = p.d + (c.at("smem_layout") == kPaddedLayout ? 8 : 0);
  return 2 * c.at("stages") * c.at("block_n") * row_stride * 2;
}

int merge_bytes(const Config& c, const Problem& p) {
  // mainloop_mma.cuh's kMergeBytes: per lane of each warp beyond the first of a row group, its O
  // accumulators and a max and a sum per row half.
  const int kv_warps = c.at("kv_warps");
  if (c.at("mma") != kMmaSync || kv_warps == 1) return 0;
  const int row_warps = c.at("warps") / kv_warps;
  const int m_tiles = c.at("block_m") / (16 * row_warps);
  const int floats = m_tiles * (p.d / 8) * 4 + m_tiles * 4;
  return (kv_warps - 1) * row_warps * floats * 32 * 4;
}

int mma_live_registers(const Config& c, const Problem& p) {
  const int row_warps = c.at("warps") / c.at("kv_warps");
  const int m_tiles = c.at("block_m") / (16 * row_warps);  // 16-row MMA tiles per warp
  const int scores =
      m_tiles * (c.at("block_n") / c.at("kv_warps") / 8) * 4;  // m16n8 accumulators: 4 floats each
  const int output = m_tiles * (p.d / 8) * 4;
  // Q.K^T accumulates into qk_split sets; with overlap the next block's scores exist beside this block's.
  const int held_scores = scores * c.at("qk_split") + (c.at("overlap") == 1 ? scores : 0);
  const int q_fragments = c.at("q_frags") == kQInRegisters ? (p.d / 16) * 4 : 0;
  return output + held_scores + q_fragments;
}

int wgmma_live_registers(const Config& c, const Problem& p) {
  // O (d/2 fp32 per thread) and one block's scores (block_n/2); with overlap=on also the previous block's
  // probabilities as 16-bit pairs (block_n/4), the A operand of the P.V still running while the next
  // block's scores arrive.
  return p.d / 2 + c.at("block_n") / 2 + (c.at("overlap") == 1 ? c.at("block_n") / 4 : 0);
}

int wgmma_consumer_registers(const Config& c) {
  return evotune_wgmma::consumer_registers(c.at("block_m"), c.at("producer_regs"), c.at("min_ctas"));
}

int register_budget(const Config& c, const DeviceLimits& limits) {
  // Registers are allocated per thread in steps of 8, at most 255.
  return std::min(255, limits.registers_per_sm / (threads(c) * c.at("min_ctas")) / 8 * 8);
}

std::optional<std::string> excluded_by_default(const Config& c, const Problem& p, const DeviceLimits& limits) {
  // Measured on the H100 (evidence/results/h100/issue5-deploy/deploy.db, run 1): the fastest of 46 scalar
  // configs took 26.6 ms where the best mma_sync config took 1.02 ms, and scalar compiles took 9 s on
  // average and up to 39 s (mma_sync: 1.4 s, at most 3.9 s). Where tensor cores exist it cannot win, and it
  // stalls the compile pipeline.
  if (c.at("mma") == kScalar && limits.compute_capability >= 80) {
    return "mma=scalar on sm_80 and newer: ~25x slower than mma_sync and 6x slower to compile (--space all includes it)";
  }
  // Certain to spill: the registers that must be live at once, plus the fewest any kernel of this family
  // needed beside them (24 among the 1252 configs that compiled without spills for the H100 searches; 16 is
  // used, to leave room), exceed what the launch bounds allow. Of the 520 configs that spilled in those
  // searches this rule names 219 (each a compile of ~1 s spent only to reject it), and none of the 1252
  // that did not (tests: AttentionFamily.CertainSpillRuleNeverExcludesAKernelThatCompiledCleanly).
  constexpr int kLeastOverhead = 16;
  if (c.at("mma") == kWgmma) {
    // wgmma's consumers need more beside what must be live than mma_sync's threads do (descriptors, the
    // masking's and the epilogue's addresses, the pingpong and barrier bookkeeping): of the 190 valid configs
    // of scripts/wgmma_spill_sweep.sh (tests/data/wgmma_spills_sm90a.txt), every one of the 130 that
    // compiled without spills had at least 32 registers beside them, and 58 of the 60 that spilled (or
    // that ptxas gave up on) had fewer (AttentionWgmma.CertainSpillRuleMatchesTheSweep).
    constexpr int kWgmmaLeastOverhead = 32;
    // A persistent scheduler's tile walk over split chunks holds more beside them: at the boundary (d=64,
    // 192 rows, 128-key blocks, overlap: 128 live of 160) the grid and persistent kernels, split or not,
    // compiled without spills, persistent with splits=8 spilled 52 bytes; and at 128 live of 168 (d=64,
    // 192-key blocks without overlap or register reallocation) dynamic with splits=4 spilled 4 bytes.
    // At d=256 (O alone is 128 registers per consumer thread) every kernel holds more beside what must be
    // live, and a persistent scheduler's walk and a split each cost as much as both do together at d <= 128:
    // of the d=256 sweeps (tests/data/wgmma_spills_sm90a_d256*.txt, grid, unsplit) the configs with 44
    // registers or fewer beside them spilled and those with 52 or more did not; with scheduler=dynamic, 52
    // and 56 spilled (8-16 bytes) and 64 did not; split in three, 128x80 on the grid spilled 4 bytes at 52,
    // 128x64 on the grid did not at 64, and with scheduler=dynamic did (4 bytes).
    const bool wide_head = p.d > 128;
    const bool walks = c.at("scheduler") != kGridScheduler, splits = c.at("splits") != 1;
    const int walk = wide_head ? 12 * (int{walks} + int{splits}) : walks && splits ? 12 : 0;
    const int head = wide_head ? 16 : 0;
    // Non-causal kernels without register reallocation hold a few more: of the sweep's configs, four compiled
    // without spills causal and spilled non-causal, all without overlap or reallocation (d=64 128x176,
    // 128x192, 192x128; d=128 128x144: tests/data/wgmma_spills_sm90a_noncausal.txt); with reallocation the
    // two sweeps agree. The margin names only the tightest of the four (192x128: 96 live of 128); the other
    // three have 16-20 registers to spare by this count, and a margin that wide would leave out configs that
    // compile cleanly. The compile step rejects them.
    const int non_causal = !p.causal && c.at("producer_regs") == 0 ? 4 : 0;
    const int live = wgmma_live_registers(c, p), budget = wgmma_consumer_registers(c);
    if (live + kWgmmaLeastOverhead + walk + head + non_causal > budget) {
      return fmt::format("certain to spill: {} registers per consumer thread must be live at once (+{} at least "
                         "for the rest), {} are available (--space all compiles it anyway)",
                         live, kWgmmaLeastOverhead + walk + head + non_causal, budget);
    }
  }
  if (c.at("mma") == kMmaSync) {
    const int live = mma_live_registers(c, p), budget = register_budget(c, limits);
    if (live + kLeastOverhead > budget) {
      return fmt::format("certain to spill: {} registers per thread must be live at once (+{} at least for the rest), "
                         "{} threads x min_ctas={} allow {} (--space all compiles it anyway)",
                         live, kLeastOverhead, threads(c), c.at("min_ctas"), budget);
    }
  }
  return std::nullopt;
}

std::optional<std::string> rejected_resources(const runtime::ResourceUsage& u) {
  if (u.spill_store_bytes > 0 || u.spill_load_bytes > 0) {
    return fmt::format("register spills ({} bytes stored, {} loaded; {} registers)", u.spill_store_bytes,
                       u.spill_load_bytes, u.registers);
  }
  if (u.wgmma_serialized) {
    return fmt::format("ptxas serialized the wgmma ({} registers): each waits for the one before it", u.registers);
  }
  return std::nullopt;
}

std::string tunables_struct(const Config& c, const Problem& p) {
  std::string text = fmt::format("struct {} {{\n  using T = {};\n  static constexpr int d = {};\n"
                                 "  static constexpr bool causal = {};\n",
                                 kTunablesStruct, p.cuda_type(), p.d, p.causal ? "true" : "false");
  for (const Parameter& param : parameters())
    text += fmt::format("  static constexpr int {} = {};\n", param.name, c.at(param.name));
  return text + "};\n";
}

std::string name_expression(const Config& c, const Problem&) {
  return fmt::format("{}<{}>", c.at("mma") == kWgmma ? "attention_fwd_wgmma" : "attention_fwd", kTunablesStruct);
}

runtime::CompileRequest compile_request(const Config& c, const Problem& p, const runtime::Target& target,
                                        KernelBuild build) {
  runtime::CompileRequest r;
  r.source_name = "attention.cu";
  r.source = c.at("mma") == kWgmma ? "#include \"attention/mainloop_wgmma.cuh\"\n"
                                   : "#include \"attention/attention.cuh\"\n";
  r.source += tunables_struct(c, p);
  // A config that can split with a combine kernel carries it in the same module (combine.cuh).
  if (c.at("splits") != 1 && c.at("combine") == kCombineKernel)
    r.source += fmt::format("EVOTUNE_ATTENTION_COMBINE({}, {})\n", p.cuda_type(), p.d);
  r.headers = templates::embedded_headers("attention/");
  r.name_expressions = {name_expression(c, p)};
  r.options = {"--use_fast_math"};
  if (build.cta_clock) r.options.push_back("-DEVOTUNE_CTA_CLOCK=1");
  if (build.bounded_waits) r.options.push_back("-DEVOTUNE_BOUNDED_WAITS=1");
  r.target = target;
  r.label = format(c);
  return r;
}

runtime::Preparation prepare(const Config& config, const Problem& problem, const DeviceLimits& limits,
                             const runtime::Target& target, runtime::Compiler& compiler, KernelBuild build) {
  if (std::optional<std::string> why = invalid_reason(config, problem, limits)) {
    return runtime::Rejection{runtime::Rejection::Kind::rule, *why, 0.0, false, std::nullopt};
  }
  const runtime::CompileRequest request = compile_request(config, problem, target, build);
  return runtime::prepare_kernel(compiler, request, request.name_expressions.at(0), rejected_resources);
}

std::size_t split_workspace_bytes(const Problem& p, int splits) {
  if (splits <= 1) return 0;
  // fp32 partial rows [splits][b * hq * sq][d] and their LSEs [splits][b * hq * sq].
  return static_cast<std::size_t>(splits) * static_cast<std::size_t>(p.rows()) *
         (static_cast<std::size_t>(p.d) + 1) * 4;
}

int cta_rows(const Config& c, const Problem& p) {
  return c.at("pack_gqa") == 1 ? p.sq * p.group() : p.sq;
}

long long query_tiles(const Config& c, const Problem& p) {
  return (cta_rows(c, p) + c.at("block_m") - 1) / c.at("block_m");
}

long long unsplit_ctas(const Config& c, const Problem& p) {
  const long long heads = c.at("pack_gqa") == 1 ? p.hkv : p.hq;
  return query_tiles(c, p) * heads * p.b;
}

int resident_ctas(const Config& c, const Problem& p, const DeviceLimits& limits) {
  // What can be resident on one SM at once, by the two limits known before compiling: shared memory
  // (plus the 1 KiB the driver reserves per CTA) and threads. Registers are bounded only by min_ctas
  // until ptxas has run, so they do not enter.
  const int by_smem = limits.shared_bytes_per_sm / (shared_bytes(c, p) + 1024);
  const int by_threads = limits.max_threads_per_sm / threads(c);
  return std::clamp(std::min(by_smem, by_threads), 1, 32);
}

Problem any_shape_problem(int head_dim, bool causal, DType dtype) {
  // A kernel's validity does not depend on the lengths and head counts: the rules that do (pack_gqa needs
  // GQA, splits at most the K/V blocks) say whether a config is worth running for a problem, and the kernel
  // computes any shape correctly either way (one query head per KV head packs trivially; chunks past the
  // last K/V block are empty). So the stand-in is a GQA problem with a long cache.
  Problem p;
  p.b = 1;
  p.hq = 2;
  p.hkv = 1;
  p.sq = 1;
  p.skv = 65536;
  p.d = head_dim;
  p.causal = causal;
  p.dtype = dtype;
  return p;
}

const std::string& kernel_sources_digest() {
  static const std::string digest = [] {
    std::string all;
    for (const auto& [name, text] : templates::embedded_headers("attention/")) {
      all += name;
      all += '\0';
      all += text;
      all += '\0';
    }
    return runtime::sha256_hex(all).substr(0, 16);
  }();
  return digest;
}

bool programmatic_combine(const runtime::Kernel& combine) { return combine.attributes().binary_version >= 90; }

void prepare_kernel(const runtime::Kernel& kernel, const Config& config, int dynamic_shared_bytes) {
  kernel.set_max_dynamic_shared_bytes(dynamic_shared_bytes);
  // With no preference the driver may run an SM at a smaller carveout that holds fewer CTAs than the
  // launch bounds promise. (It was the suspect, and is not the whole cause, of a bimodal timing: on the H100
  // a wgmma config of four 49 KiB CTAs per SM timed ~15.5 us in some processes and ~19 in others on the
  // same problem, each process steady within itself: 2 of 4 processes before this preference (probe/call24),
  // 2 of the 30 bench processes of such configs in run_427d016 and heldout_427d016 after it.)
  if (config.at("min_ctas") > 1) kernel.prefer_shared_carveout(100);  // CU_SHAREDMEM_CARVEOUT_MAX_SHARED
}

namespace {

// The split counts a launch plan may choose (auto_splits), ascending: the domain's fixed counts from 1 to 16
// (so that the heuristic can compile the count in, and a search meets the same counts) that leave every
// chunk at least min_chunk_blocks K/V blocks and fit the workspace limit, a count whose chunk length equals
// the previous one's skipped (it only adds empty chunks). 1 always.
std::vector<int> eligible_splits(const Config& c, const Problem& p, int min_chunk_blocks) {
  constexpr int kMaxAutoSplits = 16;
  std::vector<int> candidates;
  for (const Parameter& param : parameters()) {
    if (param.name != "splits") continue;
    for (int v : param.values)
      if (v >= 1 && v <= kMaxAutoSplits) candidates.push_back(v);
  }
  std::sort(candidates.begin(), candidates.end());
  const int kv_blocks = (p.skv + c.at("block_n") - 1) / c.at("block_n");
  std::vector<int> eligible;
  int previous_chunk = -1;
  for (int s : candidates) {
    const int chunk = (kv_blocks + s - 1) / s;
    if (s > 1 && (chunk < min_chunk_blocks || chunk == previous_chunk)) continue;
    previous_chunk = chunk;
    if (s == 1 || split_workspace_bytes(p, s) <= kMaxSplitWorkspaceBytes) eligible.push_back(s);
  }
  return eligible;
}

}  // namespace

int auto_splits(const Config& c, const Problem& p, const DeviceLimits& limits) {
  // Split-KV exists to fill the GPU when the unsplit grid cannot: few (query tile, head, batch) CTAs, each
  // walking a long K/V range, as in decode. The rule (flash-decoding's, in waves of resident CTAs):
  //   - slots = SMs x the CTAs one SM holds (resident_ctas); a grid of n CTAs runs in ceil(n / slots)
  //     waves and keeps n / (waves x slots) of the slots busy: its efficiency;
  //   - a grid that already fills 80% of the slots is not split: splitting only adds partial writes and
  //     the combine;
  //   - otherwise the candidates are eligible_splits': 1, 2, 3, 4, 6, 8, 12, 16, each chunk at least two
  //     K/V blocks (the Q load, the pipeline's prologue and the partial write are paid per chunk). 16 at
  //     most: the merge at the end of the call reads every chunk's partial row, and on the H100 more
  //     chunks cost more there than their shorter walk saved (b1 hq32 hkv8 skv2048 decode: 8.2
  //     us with 16 chunks, 9.2 us with 32; MQA b2 hq8 skv5000: 9.9 us with 16, 10.2 us with 32;
  //     evidence/results/h100/decode/probe). A search can still pick up to 64;
  //   - the smallest count within 85% of the best efficiency wins: fewer chunks, less combine work.
  const long long slots = static_cast<long long>(limits.sm_count) * resident_ctas(c, p, limits);
  if (unsplit_ctas(c, p) >= slots * 8 / 10) return 1;
  return splits_by_waves(c, p, slots);
}

int splits_by_waves(const Config& c, const Problem& p, long long slots) {
  const long long ctas = unsplit_ctas(c, p);
  auto efficiency = [&](int splits) { return wave_efficiency(ctas * splits, slots); };
  const std::vector<int> eligible = eligible_splits(c, p, 2);
  double best = 0;
  for (int s : eligible) best = std::max(best, efficiency(s));
  for (int s : eligible) {
    if (efficiency(s) >= 0.85 * best) return s;
  }
  return 1;
}

bool eligible_split(const Config& c, const Problem& p, int splits, int min_chunk_blocks) {
  const std::vector<int> eligible = eligible_splits(c, p, min_chunk_blocks);
  return std::find(eligible.begin(), eligible.end(), splits) != eligible.end();
}

int fewest_splits_filling_waves(const Config& c, const Problem& p, long long slots, int min_chunk_blocks) {
  const long long ctas = unsplit_ctas(c, p);
  for (int s : eligible_splits(c, p, min_chunk_blocks)) {
    if (s > 1 && wave_efficiency(ctas * s, slots) >= 0.8) return s;
  }
  return 1;
}

int splits_within_streams(const Config& c, const Problem& p, long long streams) {
  const long long ctas = unsplit_ctas(c, p);
  int most = 1;
  for (int s : eligible_splits(c, p, 2)) {
    if (ctas * s <= streams) most = s;
  }
  return most;
}

TensorStrides dense_strides(int heads, int seq, int head_dim) {
  const long long d = head_dim;
  return TensorStrides{static_cast<long long>(heads) * seq * d, seq * d, d};
}

void set_dense_strides(AttentionParams& params, int head_dim) {
  params.q_strides = params.o_strides = dense_strides(params.hq, params.sq, head_dim);
  params.k_strides = params.v_strides = dense_strides(params.hkv, params.skv, head_dim);
}

std::optional<std::string> layout_problem(const char* what, const void* base, const TensorStrides& s) {
  if (reinterpret_cast<std::uintptr_t>(base) % 16 != 0)
    return fmt::format("{}'s pointer {} is not 16-byte aligned", what, base);
  for (const auto& [name, stride] : {std::pair{"batch", s.batch}, {"head", s.head}, {"sequence", s.seq}}) {
    // Zero too: a broadcast (expand()) dimension. The cp.async kernels would read it right, but TMA descriptors
    // are not defined over it; one rule for every kernel.
    if (stride <= 0 || stride % 8 != 0) {
      return fmt::format("{}'s {} stride {} is not a positive multiple of 8 elements (16 bytes)", what, name,
                         stride);
    }
  }
  if (s.seq >= kAttentionMaxPositionStride)
    return fmt::format("{}'s position stride {} is not below 2^23 elements", what, s.seq);
  return std::nullopt;
}

void check_layouts(const AttentionParams& params) {
  for (const auto& [what, base, strides] :
       {std::tuple{"Q", params.q, params.q_strides}, {"K", params.k, params.k_strides},
        {"V", params.v, params.v_strides}, {"O", static_cast<const void*>(params.o), params.o_strides}}) {
    if (const std::optional<std::string> why = layout_problem(what, base, strides))
      throw std::invalid_argument("attention: " + *why);
  }
}

TensorStrides normalised_strides(TensorStrides s, int batch, int heads, int seq, int head_dim) {
  const TensorStrides dense = dense_strides(heads, seq, head_dim);
  if (batch == 1) s.batch = dense.batch;
  if (heads == 1) s.head = dense.head;
  if (seq == 1) s.seq = dense.seq;
  return s;
}

void bind_workspace(AttentionParams& params, const LaunchPlan& plan, int head_dim, CUdeviceptr workspace,
                    CUdeviceptr counters) {
  params.splits = plan.splits;
  params.section_heads = plan.section_heads;
  params.partial_o = nullptr;
  params.partial_lse = nullptr;
  params.counters = nullptr;
  if (plan.stream_k_slots > 0) {
    const std::size_t rows = plan.stream_k_slots * static_cast<std::size_t>(plan.slot_rows);
    params.partial_o = reinterpret_cast<float*>(workspace);
    params.partial_lse = params.partial_o + rows * head_dim;
  } else if (plan.splits > 1) {
    const std::size_t rows = static_cast<std::size_t>(params.b) * params.hq * params.sq;
    params.partial_o = reinterpret_cast<float*>(workspace);
    params.partial_lse = params.partial_o + static_cast<std::size_t>(plan.splits) * rows * head_dim;
  }
  if (plan.counters > 0)
    params.counters = reinterpret_cast<unsigned*>(counters != 0 ? counters : workspace + plan.partial_bytes());
}

void set_sections(TmaAttentionParams& args, int pairs, int section_heads) {
  const int section = std::clamp(section_heads, 1, pairs);
  args.section_heads = make_fast_divisor(section);
  args.section_tiles = make_fast_divisor(args.x_extent.divisor * section);
  args.full_sections = pairs / section;
  args.last_section_heads = make_fast_divisor(std::max(1, pairs % section));
}

namespace {

// One TMA descriptor: a box of 64 columns (128 bytes: the 128-byte swizzle's row) by the given rows of a
// row-major 2-byte tensor, zero-filled outside it.
void encode_tensor_map(TensorMapBytes& map, const Problem& p, const void* base, std::vector<cuuint64_t> dims,
                       std::vector<cuuint64_t> strides_bytes, std::vector<cuuint32_t> box, const char* what) {
  static_assert(sizeof(TensorMapBytes) == sizeof(CUtensorMap), "TensorMapBytes mirrors CUtensorMap");
  const std::vector<cuuint32_t> element_strides(dims.size(), 1);
  const CUresult result = runtime::driver().cuTensorMapEncodeTiled(
      reinterpret_cast<CUtensorMap*>(&map),
      p.dtype == DType::fp16 ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16 : CU_TENSOR_MAP_DATA_TYPE_BFLOAT16,
      static_cast<cuuint32_t>(dims.size()), const_cast<void*>(base), dims.data(), strides_bytes.data(), box.data(),
      element_strides.data(), CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
      CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (result != CUDA_SUCCESS) {
    runtime::check(result, "cuTensorMapEncodeTiled",
                   fmt::format("TMA descriptor of {} for {} (its pointer must be 16-byte aligned)", what,
                               p.to_string()));
  }
}

}  // namespace

KernelArguments::KernelArguments(const Config& c, const Problem& p, const AttentionParams& params)
    : config_(c), problem_(p) {
  args_[0] = c.at("mma") == kWgmma ? static_cast<void*>(&block_) : static_cast<void*>(&block_.params);
  bind(params);
}

void KernelArguments::bind(const AttentionParams& params) {
  const AttentionParams previous = block_.params;
  block_.params = params;
  if (config_.at("mma") != kWgmma) return;
  // The persistent schedulers decode tile indices (common.cuh's LinearTiles) over launch_plan's grid.
  const int splits = config_.at("splits") == kAutoSplits ? std::max(1, params.splits) : config_.at("splits");
  block_.x_extent = make_fast_divisor(static_cast<int>(query_tiles(config_, problem_)) * splits);
  block_.y_extent = make_fast_divisor(config_.at("pack_gqa") == 1 ? problem_.hkv : problem_.hq);
  block_.group = make_fast_divisor(problem_.group());
  set_sections(block_, block_.y_extent.divisor * problem_.b, params.section_heads);
  // The descriptors depend on the tensors' addresses and sizes only: a launch on the same Q, K and V (a
  // benchmark's repetitions, a model's layer called again on the same buffers) keeps them.
  auto same = [](const TensorStrides& a, const TensorStrides& b) {
    return a.batch == b.batch && a.head == b.head && a.seq == b.seq;
  };
  const bool same_tensors = encoded_ && previous.q == params.q && previous.k == params.k && previous.v == params.v &&
                            previous.o == params.o && same(previous.q_strides, params.q_strides) &&
                            same(previous.k_strides, params.k_strides) && same(previous.v_strides, params.v_strides) &&
                            same(previous.o_strides, params.o_strides) && previous.b == params.b &&
                            previous.hq == params.hq && previous.hkv == params.hkv && previous.sq == params.sq &&
                            previous.skv == params.skv;
  if (same_tensors) return;
  const Problem& p = problem_;
  if (params.b != p.b || params.hq != p.hq || params.hkv != p.hkv || params.sq != p.sq || params.skv != p.skv) {
    throw std::invalid_argument(fmt::format("KernelArguments for {} given the sizes of another problem", p.to_string()));
  }
  encoded_ = false;
  check_layouts(params);
  auto bytes = [](long long stride) { return static_cast<cuuint64_t>(stride) * 2; };
  const cuuint64_t d = static_cast<cuuint64_t>(p.d), batch = static_cast<cuuint64_t>(p.b);
  const cuuint64_t sq = static_cast<cuuint64_t>(p.sq), skv = static_cast<cuuint64_t>(p.skv);
  const cuuint32_t block_m = static_cast<cuuint32_t>(config_.at("block_m"));
  // Q, and with o_store=tma O (the same shape; a box of one consumer warpgroup's 64 rows), 5-D:
  // {d, head in group, query, KV head, batch}, whose box of {64, group, block_m / group} is block_m packed
  // rows in packed order (query-major, head-minor), split_kv.h's; unpacked, {d, 1, query, head, batch}.
  const bool o_tma = config_.at("o_store") != 0;
  const bool packed = config_.at("pack_gqa") == 1;
  const cuuint64_t group = packed ? static_cast<cuuint64_t>(p.group()) : 1;
  const cuuint32_t g = static_cast<cuuint32_t>(group);
  // Where batch and head merge (dense BHSD: batch stride = heads x head stride), one rank less (params.h).
  auto merges = [](const TensorStrides& s, int heads) { return s.batch == heads * s.head; };
  const cuuint64_t q_heads = static_cast<cuuint64_t>(packed ? p.hkv : p.hq);
  auto encode_q = [&](TensorMapBytes& map, const void* base, const TensorStrides& s, cuuint32_t rows, bool merged,
                      const char* what) {
    if (merged) {
      encode_tensor_map(map, p, base, {d, group, sq, batch * q_heads},
                        {bytes(s.head), bytes(s.seq), bytes(s.head) * group}, {64, g, rows / g, 1}, what);
    } else {
      encode_tensor_map(map, p, base, {d, group, sq, q_heads, batch},
                        {bytes(s.head), bytes(s.seq), bytes(s.head) * group, bytes(s.batch)}, {64, g, rows / g, 1, 1},
                        what);
    }
  };
  block_.q_merged = merges(params.q_strides, p.hq);
  encode_q(block_.q, params.q, params.q_strides, block_m, block_.q_merged != 0, "Q");
  block_.o_merged = o_tma && merges(params.o_strides, p.hq);
  if (o_tma) encode_q(block_.o, params.o, params.o_strides, 64, block_.o_merged != 0, "O");
  // K and V: {d, key, KV head, batch}, or {d, key, batch x KV head} where both merge.
  const cuuint32_t block_n = static_cast<cuuint32_t>(config_.at("block_n"));
  const cuuint64_t hkv = static_cast<cuuint64_t>(p.hkv);
  block_.kv_merged = merges(params.k_strides, p.hkv) && merges(params.v_strides, p.hkv);
  for (const auto& [map, base, s, what] : {std::tuple{&block_.k, params.k, params.k_strides, "K"},
                                           std::tuple{&block_.v, params.v, params.v_strides, "V"}}) {
    if (block_.kv_merged) {
      encode_tensor_map(*map, p, base, {d, skv, batch * hkv}, {bytes(s.seq), bytes(s.head)}, {64, block_n, 1}, what);
    } else {
      encode_tensor_map(*map, p, base, {d, skv, hkv, batch}, {bytes(s.seq), bytes(s.head), bytes(s.batch)},
                        {64, block_n, 1, 1}, what);
    }
  }
  encoded_ = true;
}

LaunchPlan launch_plan(const Config& c, const Problem& p, const DeviceLimits& limits) {
  LaunchPlan plan;
  plan.splits = c.at("splits") == kAutoSplits ? auto_splits(c, p, limits) : c.at("splits");
  plan.kernel.grid[0] = static_cast<unsigned>(query_tiles(c, p) * plan.splits);
  plan.kernel.grid[1] = static_cast<unsigned>(c.at("pack_gqa") == 1 ? p.hkv : p.hq);
  plan.kernel.grid[2] = static_cast<unsigned>(p.b);
  if (c.at("scheduler") != kGridScheduler) {
    // min_ctas CTAs per SM (the wgmma kernel's __launch_bounds__(threads, min_ctas)), never more than there
    // are tiles (the kernel relies on every CTA having its first), walking the tiles in the order of the
    // grid above (common.cuh's LinearTiles).
    const long long tiles = static_cast<long long>(plan.kernel.grid[0]) * plan.kernel.grid[1] * plan.kernel.grid[2];
    const long long ctas = persistent_ctas(c, limits);
    plan.kernel.grid[0] = static_cast<unsigned>(std::min<long long>(tiles, ctas));
    plan.kernel.grid[1] = plan.kernel.grid[2] = 1;
    if (c.at("scheduler") == kStreamKScheduler) {
      // Every CTA slot, also when there are fewer tiles (then all of them are the tail, cut over all CTAs:
      // split-KV chosen by the kernel). Two partial slots per CTA, a counter per tail tile (fewer than CTAs).
      plan.kernel.grid[0] = static_cast<unsigned>(ctas);
      plan.stream_k_slots = 2 * static_cast<std::size_t>(ctas);
      plan.slot_rows = c.at("block_m");
      plan.workspace_bytes = plan.stream_k_slots * static_cast<std::size_t>(plan.slot_rows) * (p.d + 1) * 4;
      plan.counters = static_cast<std::size_t>(ctas);
    }
  }
  plan.kernel.block[0] = static_cast<unsigned>(threads(c));
  plan.kernel.dynamic_shared_bytes = static_cast<unsigned>(shared_bytes(c, p));
  if (plan.splits > 1) {
    plan.workspace_bytes = split_workspace_bytes(p, plan.splits);
    if (c.at("combine") == kCombineKernel) {
      runtime::LaunchGeometry combine;
      constexpr long long kRowsPerCombineCta = 4;  // combine.cuh: 128 threads, a warp per row
      combine.grid[0] = static_cast<unsigned>((p.rows() + kRowsPerCombineCta - 1) / kRowsPerCombineCta);
      combine.block[0] = 128;
      plan.combine = combine;
    } else {
      // A counter per (query tile, CTA head, batch), after the partials: zero when allocated, and reset
      // by the last CTA of each tile.
      plan.counters = static_cast<std::size_t>(query_tiles(c, p) * plan.kernel.grid[1] * plan.kernel.grid[2]);
    }
  }
  if (c.at("scheduler") == kDynamicScheduler) plan.counters = 1;  // the next tile to hand out
  plan.workspace_bytes += plan.counters * 4;
  if (c.at("tile_order") == 1) plan.section_heads = section_heads(c, p, limits);
  return plan;
}

}  // namespace evotune::attention
