// The attention family on the CPU: problem and config parsing, validity rules, real compiles of a
// representative sample for sm_90a and sm_80, and the rule that every value of every tunable changes
// the generated code.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <future>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

#include <nlohmann/json.hpp>

#include "evidence/store.h"
#include "families/attention/host/attention_workspace.h"
#include "runtime/compile_pool.h"
#include "core/errors.h"
#include "families/attention/host/family.h"
#include "search/family_space.h"
#include "families/attention/host/attention_family.h"
#include "tests/test_support.h"

using namespace evotune;
using namespace evotune::attention;

TEST(AttentionProblem, ParsesAndPrintsCanonically) {
  Problem p = Problem::parse("b=4,hq=32,hkv=8,sq=4096,skv=4096,d=128,causal=1,dtype=bf16");
  EXPECT_EQ(p.b, 4);
  EXPECT_EQ(p.hq, 32);
  EXPECT_EQ(p.hkv, 8);
  EXPECT_EQ(p.group(), 4);
  EXPECT_TRUE(p.causal);
  EXPECT_EQ(p.dtype, DType::bf16);
  EXPECT_EQ(Problem::parse(p.to_string()), p);
  Problem defaults = Problem::parse("hq=8,sq=77,d=64");
  EXPECT_EQ(defaults.hkv, 8);
  EXPECT_EQ(defaults.skv, 77);
  EXPECT_FALSE(defaults.causal);
  EXPECT_EQ(defaults.dtype, DType::fp16);
  EXPECT_EQ(Problem::parse("hq=8,sq=77,d=256").d, 256);
}

TEST(AttentionProblem, RejectsBadInputWithOneLineReasons) {
  const char* bad[] = {"b=0",         "b=x",          "bogus=1",       "hq=32,hkv=5",  "sq=10,skv=5",
                       "d=96",        "d=192",        "d=512",        "causal=2",     "dtype=fp32",    "b=1,b=2",      "b",
                       "=4",          "b=4,,hq=",     "sq=-3",         "hq=4,hkv=8"};
  for (const char* text : bad) {
    try {
      Problem::parse(text);
      ADD_FAILURE() << "accepted " << text;
    } catch (const UsageError& e) {
      EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
    }
  }
}

TEST(AttentionProblem, CountsFlopsWithTheVisibleFraction) {
  Problem p = Problem::parse("b=4,hq=16,sq=4096,d=128");
  EXPECT_DOUBLE_EQ(p.flops(), 4.0 * 4 * 16 * 4096.0 * 4096 * 128);
  Problem c = Problem::parse("b=4,hq=16,sq=4096,d=128,causal=1");
  EXPECT_DOUBLE_EQ(c.visible_fraction(), (4096.0 * 4097 / 2) / (4096.0 * 4096));
  // Decode with bottom-right causal sees every key.
  EXPECT_DOUBLE_EQ(Problem::parse("sq=1,skv=4096,causal=1").visible_fraction(), 1.0);
  // Bytes: q and o of b*hq*sq*d, k and v of b*hkv*skv*d, two bytes each.
  Problem g = Problem::parse("b=2,hq=8,hkv=2,sq=16,skv=32,d=64");
  EXPECT_DOUBLE_EQ(g.bytes(), 2.0 * (2.0 * 2 * 8 * 16 * 64 + 2.0 * 2 * 2 * 32 * 64));
}

TEST(AttentionConfig, ParsesLabelsNumbersAndDefaults) {
  Config c = parse_config("mma=scalar,block_m=64,barrier=full,smem_layout=padded,vec_bytes=8");
  EXPECT_EQ(c.at("mma"), kScalar);
  EXPECT_EQ(c.at("block_m"), 64);
  EXPECT_EQ(c.at("barrier"), kFullBarrier);
  EXPECT_EQ(c.at("block_n"), default_config().at("block_n"));  // not given: default
  EXPECT_EQ(format(c),
            "mma=scalar,block_m=64,block_n=128,warps=8,stages=2,barrier=full,smem_layout=padded,vec_bytes=8,"
            "q_frags=smem,"
            "min_ctas=1,overlap=off,qk_split=1,kv_warps=1,splits=1,combine=kernel,pack_gqa=off,pingpong=off,"
            "producer_regs=none,scheduler=grid,q_buffers=1,o_store=threads,rescale=every,skip_idle=off,"
            "tile_order=heads");
  EXPECT_EQ(parse_config(format(c)), c);
  EXPECT_EQ(Config::from_key(c.key()), c);
  // "default[,...]" for one problem and device: the problem-aware default, then the named changes, and
  // what those fix (192 rows of wgmma: 16 warps).
  const Problem d64 = Problem::parse("b=8,hq=16,sq=2048,d=64,causal=1");
  const DeviceLimits h100 = DeviceLimits::for_target(runtime::Target::parse("sm_90a"));
  const Config base = heuristic_config(d64, h100);
  EXPECT_EQ(parse_config_for("", d64, h100), base);
  EXPECT_EQ(parse_config_for("default", d64, h100), base);
  EXPECT_EQ(parse_config_for("default,", d64, h100), base);
  Config every = base;
  every.set("rescale", 0);
  EXPECT_EQ(parse_config_for("default,rescale=every", d64, h100), every);
  const Config tall = parse_config_for("default,block_m=192", d64, h100);
  EXPECT_EQ(tall.at("block_m"), 192);
  EXPECT_EQ(tall.at("warps"), 16);
  EXPECT_EQ(tall.at("block_n"), base.at("block_n"));
  EXPECT_EQ(parse_config_for("block_m=64", d64, h100), parse_config("block_m=64"));  // not the default
  EXPECT_THROW(parse_config_for("default,bogus=1", d64, h100), UsageError);
  // A config key recorded before `o_store`, `rescale`, `skip_idle` and `tile_order` existed: filled in at the
  // defaults it ran with; a key naming a tunable this family does not have is left as read, and the rules
  // refuse it.
  Config old_key = Config::from_key(every.key());
  Config recorded;
  for (const auto& [name, value] : old_key.entries()) {
    if (name != "o_store" && name != "rescale" && name != "skip_idle" && name != "tile_order") {
      recorded.set(name, value);
    }
  }
  ASSERT_FALSE(recorded.has("rescale"));
  EXPECT_NE(invalid_reason(recorded, d64, h100), std::nullopt);
  Config ran = every;
  ran.set("o_store", 0);
  ran.set("tile_order", 0);
  EXPECT_EQ(complete_recorded(recorded), ran);
  Config foreign = recorded;
  foreign.set("bogus", 1);
  EXPECT_EQ(complete_recorded(foreign), foreign);
  EXPECT_EQ(default_changes("defaults"), std::nullopt);
  EXPECT_EQ(default_changes("block_m=64,default"), std::nullopt);
  EXPECT_EQ(default_changes("default,stages=3"), std::optional<std::string_view>("stages=3"));
  EXPECT_EQ(default_changes("default"), std::optional<std::string_view>(""));
  EXPECT_THROW(Config::from_key("block_m=big"), UsageError);
  EXPECT_EQ(c.hash().size(), 16u);
  EXPECT_NE(c.hash(), default_config().hash());
}

TEST(AttentionConfig, RejectsUnknownKeysAndBadValues) {
  for (const char* bad : {"bogus=1", "block_m=48", "mma=tensor", "warps=three", "producer_regs=25", "block_m=64,block_m=128", "stages"}) {
    EXPECT_THROW(parse_config(bad), UsageError) << bad;
  }
}

TEST(AttentionValidity, FollowsTheRules) {
  DeviceLimits h100 = DeviceLimits::for_target(runtime::Target::parse("sm_90a"));
  DeviceLimits a10 = DeviceLimits::for_target(runtime::Target::parse("sm_86"));
  Problem p = Problem::parse("b=1,hq=8,sq=512,d=128");
  EXPECT_EQ(invalid_reason(default_config(), p, h100), std::nullopt);
  // 16 or 32 rows per warp for mma_sync.
  EXPECT_NE(invalid_reason(parse_config("block_m=64,warps=8"), p, h100), std::nullopt);
  EXPECT_EQ(invalid_reason(parse_config("block_m=256,warps=8"), p, h100), std::nullopt);
  EXPECT_NE(invalid_reason(parse_config("block_m=256,warps=4"), p, h100), std::nullopt);
  // Scalar: 1..32 threads per row.
  EXPECT_EQ(invalid_reason(parse_config("mma=scalar,block_m=64,warps=4"), p, h100), std::nullopt);
  EXPECT_NE(invalid_reason(parse_config("mma=scalar,block_m=256,warps=4"), p, h100), std::nullopt);
  EXPECT_EQ(invalid_reason(parse_config("mma=scalar,block_m=16,warps=8"), p, h100), std::nullopt);  // 16 per row
  EXPECT_NE(invalid_reason(parse_config("mma=scalar,block_m=128,warps=2"), p, h100), std::nullopt);
  // Shared memory: (128 + 2*3*128) rows * 256 B = 224 KiB fits an H100 (227 KiB), not an sm_86 (99 KiB).
  Config big = parse_config("block_n=128,stages=3");
  EXPECT_EQ(shared_bytes(big, p), (128 + 2 * 3 * 128) * 256);
  EXPECT_EQ(invalid_reason(big, p, h100), std::nullopt);
  EXPECT_NE(invalid_reason(big, p, a10), std::nullopt);
  EXPECT_NE(invalid_reason(parse_config("block_n=128,stages=3,smem_layout=padded"), p, h100), std::nullopt);
  // Q fragments in registers: mma_sync with one 16-row tile per warp only.
  EXPECT_EQ(invalid_reason(parse_config("block_m=128,warps=8,q_frags=regs"), p, h100), std::nullopt);
  EXPECT_NE(invalid_reason(parse_config("block_m=256,warps=8,q_frags=regs"), p, h100), std::nullopt);
  EXPECT_NE(invalid_reason(parse_config("mma=scalar,block_m=64,warps=4,q_frags=regs"), p, h100), std::nullopt);
  // Spills reject a compiled kernel.
  EXPECT_NE(rejected_resources({.registers = 255, .spill_store_bytes = 8, .spill_load_bytes = 8}), std::nullopt);
  EXPECT_NE(rejected_resources({.registers = 168, .wgmma_serialized = true}), std::nullopt);
  EXPECT_EQ(rejected_resources({.registers = 128}), std::nullopt);
}

TEST(AttentionValidity, SplitAndPackRules) {
  const DeviceLimits h100 = DeviceLimits::for_target(runtime::Target::parse("sm_90a"));
  const Problem mha = Problem::parse("b=1,hq=8,sq=1,skv=1000,d=128");
  const Problem gqa = Problem::parse("b=1,hq=8,hkv=2,sq=1,skv=1000,d=128");
  // pack_gqa needs more than one query head per KV head.
  EXPECT_NE(invalid_reason(parse_config("block_m=16,warps=1,pack_gqa=on"), mha, h100), std::nullopt);
  EXPECT_EQ(invalid_reason(parse_config("block_m=16,warps=1,pack_gqa=on"), gqa, h100), std::nullopt);
  // splits: at most the K/V blocks (1000 keys = 16 blocks of 64); auto always.
  EXPECT_EQ(invalid_reason(parse_config("block_m=16,warps=1,block_n=64,splits=16"), gqa, h100), std::nullopt);
  EXPECT_NE(invalid_reason(parse_config("block_m=16,warps=1,block_n=64,splits=24"), gqa, h100), std::nullopt);
  EXPECT_EQ(invalid_reason(parse_config("block_m=16,warps=1,block_n=64,splits=auto"), gqa, h100),
            std::nullopt);
  // kv_warps: key groups of at least 16 keys, row groups of 16 or 32 rows, the merge inside the K/V buffers.
  EXPECT_EQ(invalid_reason(parse_config("block_m=16,warps=4,kv_warps=4,block_n=64"), gqa, h100),
            std::nullopt);
  EXPECT_NE(invalid_reason(parse_config("block_m=16,warps=4,kv_warps=4,block_n=32"), gqa, h100),
            std::nullopt);
  EXPECT_NE(invalid_reason(parse_config("block_m=16,warps=4,kv_warps=2,block_n=64"), gqa, h100),
            std::nullopt);
  EXPECT_EQ(invalid_reason(parse_config("block_m=64,warps=8,kv_warps=2,block_n=64"), gqa, h100),
            std::nullopt);
  EXPECT_NE(invalid_reason(parse_config("warps=2,block_m=32,kv_warps=4"), gqa, h100), std::nullopt);
  EXPECT_NE(invalid_reason(parse_config("mma=scalar,block_m=64,warps=4,kv_warps=2"), gqa, h100),
            std::nullopt);
  // The merge: 3 extra key groups x 32 lanes x (64 O accumulators + 4 row statistics) floats; one stage of
  // 64-key K and V blocks at d=128 is 32 KiB, enough for it.
  EXPECT_EQ(merge_bytes(parse_config("block_m=16,warps=4,kv_warps=4,block_n=64,stages=1"), gqa),
            3 * 32 * 68 * 4);
  EXPECT_EQ(kv_buffer_bytes(parse_config("block_m=16,warps=4,kv_warps=4,block_n=64,stages=1"), gqa),
            2 * 64 * 256);
  // The workspace limit: 32 chunks of b4 hq16 s4096 rows at d=128 are 4.3 GB of partials.
  const Problem prefill = Problem::parse("b=4,hq=16,sq=4096,d=128");
  EXPECT_NE(invalid_reason(parse_config("splits=32"), prefill, h100), std::nullopt);
  EXPECT_EQ(split_workspace_bytes(prefill, 2), std::size_t{2} * 4 * 16 * 4096 * 129 * 4);
  // splits=auto is written and read as "auto", and stays the number 0 underneath.
  const Config a = parse_config("splits=auto");
  EXPECT_EQ(a.at("splits"), kAutoSplits);
  EXPECT_NE(format(a).find("splits=auto"), std::string::npos);
  EXPECT_EQ(parse_config(format(a)), a);
  EXPECT_THROW(parse_config("splits=5"), UsageError);
  // A config text from before the tunables existed names the same kernel as then: unsplit, unpacked.
  EXPECT_EQ(parse_config("block_m=64,warps=4").at("splits"), 1);
  EXPECT_EQ(parse_config("block_m=64,warps=4").at("pack_gqa"), 0);
}

TEST(AttentionLaunchPlan, SplitsFillTheGpuOnlyWhenTheGridDoesNot) {
  const DeviceLimits h100 = DeviceLimits::for_target(runtime::Target::parse("sm_90a"));
  const Config decode = parse_config("block_m=16,warps=1,block_n=64,stages=3,pack_gqa=on,splits=auto");
  // 8 KV heads x 1 batch = 8 CTAs, 100 KiB each (2 per SM): auto splits until they fill the SMs, every
  // chunk at least 2 blocks.
  const Problem small_decode = Problem::parse("b=1,hq=32,hkv=8,sq=1,skv=8192,d=128");
  const LaunchPlan plan = launch_plan(decode, small_decode, h100);
  EXPECT_GT(plan.splits, 8);
  EXPECT_EQ(plan.kernel.grid[0], static_cast<unsigned>(plan.splits));
  EXPECT_EQ(plan.kernel.grid[1], 8u);  // packed: one CTA row per KV head
  ASSERT_TRUE(plan.combine.has_value());
  EXPECT_EQ(plan.combine->grid[0], 32u / 4);  // 32 rows, a warp per row, 4 per CTA
  EXPECT_EQ(plan.workspace_bytes, split_workspace_bytes(small_decode, plan.splits));
  EXPECT_GE(small_decode.skv / 64 / plan.splits, 2);
  EXPECT_LE(plan.splits, 16);  // the merge reads every chunk: auto stops at 16
  // MQA, 2 tiles: 16 chunks at most, though 64 would still fill fewer SMs than there are; the counts are the
  // domain's, and 12 (24 CTAs) is under 85% of 16's 32.
  EXPECT_EQ(launch_plan(decode, Problem::parse("b=2,hq=8,hkv=1,sq=1,skv=5000,d=128"), h100).splits, 16);
  // 4 x 8 tiles of 8 packed rows: 8 chunks fill 256 of the 264 slots.
  EXPECT_EQ(launch_plan(decode, Problem::parse("b=4,hq=64,hkv=8,sq=1,skv=4096,d=128"), h100).splits, 8);
  EXPECT_FALSE(plan.combine->programmatic_dependency);  // set where the combine kernel is loaded
  // Already a full grid: no split.
  const Problem big_decode = Problem::parse("b=64,hq=32,hkv=8,sq=1,skv=4096,d=128");
  EXPECT_EQ(launch_plan(decode, big_decode, h100).splits, 1);
  EXPECT_FALSE(launch_plan(decode, big_decode, h100).combine.has_value());
  EXPECT_EQ(launch_plan(parse_config("splits=auto"), Problem::parse("b=4,hq=16,sq=4096,d=128"), h100).splits,
            1);
  // combine=last_cta: no second kernel; a counter per tile after the partials instead.
  Config last_cta = decode;
  last_cta.set("combine", kCombineLastCta);
  const LaunchPlan fused = launch_plan(last_cta, small_decode, h100);
  EXPECT_FALSE(fused.combine.has_value());
  EXPECT_EQ(fused.counters, 8u);  // one 16-row tile x 8 KV heads x 1 batch
  EXPECT_EQ(fused.workspace_bytes, split_workspace_bytes(small_decode, fused.splits) + 8 * 4);
  EXPECT_NE(invalid_reason(parse_config("combine=last_cta"), small_decode, h100), std::nullopt);  // splits=1
  // A fixed count is used as it is.
  EXPECT_EQ(launch_plan(parse_config("block_m=16,warps=1,splits=3"), small_decode, h100).splits, 3);
  // Unpacked: one CTA row per query head.
  EXPECT_EQ(launch_plan(parse_config("block_m=16,warps=1"), small_decode, h100).kernel.grid[1], 32u);
}

TEST(AttentionHeuristic, DefaultsFollowTheProblemAndStayValid) {
  const DeviceLimits h100 = DeviceLimits::for_target(runtime::Target::parse("sm_90a"));
  // Decode: packed GQA heads in one 16-row MMA tile; the split count auto would choose, compiled in.
  const Problem small_decode = Problem::parse("b=1,hq=32,hkv=8,sq=1,skv=2048,d=128");
  const Config decode = heuristic_config(small_decode, h100);
  EXPECT_EQ(decode.at("pack_gqa"), 1);
  EXPECT_EQ(decode.at("block_m"), 16);
  EXPECT_EQ(decode.at("warps"), 4);
  EXPECT_EQ(decode.at("kv_warps"), 4);  // four warps on one 16-row tile: they split the keys
  Config as_auto = decode;
  as_auto.set("splits", kAutoSplits);
  EXPECT_EQ(decode.at("splits"), auto_splits(as_auto, small_decode, h100));
  EXPECT_EQ(decode.at("splits"), 16);               // 8 tiles x 16 chunks of 2 blocks
  EXPECT_EQ(decode.at("combine"), kCombineKernel);  // sm_90: a programmatic dependent launch
  EXPECT_EQ(decode.at("q_frags"), kQInRegisters);   // one 16-row tile per warp
  // A full grid is not split, and has nothing to merge.
  const Config big_decode = heuristic_config(Problem::parse("b=32,hq=32,hkv=8,sq=1,skv=4096,d=128"), h100);
  EXPECT_EQ(big_decode.at("splits"), 1);
  EXPECT_EQ(big_decode.at("combine"), kCombineKernel);
  // 8 heads per KV head: still 16 rows.
  EXPECT_EQ(heuristic_config(Problem::parse("b=4,hq=64,hkv=8,sq=1,skv=4096,d=128"), h100).at("block_m"), 16);
  // Before sm_90 the combine kernel waits for the attention kernel to end: 4 rows on 4 warps merge in the
  // tile's last CTA, 8 rows (8 heads per KV head, or MQA's 8) in the kernel.
  const DeviceLimits a100 = DeviceLimits::for_target(runtime::Target::parse("sm_80"));
  EXPECT_EQ(heuristic_config(small_decode, a100).at("combine"), kCombineLastCta);
  EXPECT_EQ(heuristic_config(Problem::parse("b=4,hq=64,hkv=8,sq=1,skv=4096,d=128"), a100).at("combine"),
            kCombineKernel);
  EXPECT_EQ(heuristic_config(Problem::parse("b=2,hq=8,hkv=1,sq=1,skv=5000,d=128"), a100).at("combine"),
            kCombineKernel);
  // A short query chunk of 4 heads: 40 x 4 = 160 packed rows, capped at 128 on the mma.sync path (sm_80; on
  // sm_90 the wgmma mainloop takes it: ShortQueryChunksTakeWgmmaOnSm90).
  EXPECT_EQ(
      heuristic_config(Problem::parse("b=1,hq=32,hkv=8,sq=40,skv=2048,d=128,causal=1"), a100).at("block_m"),
      128);
  // Long prefill: the large-tile config, unpacked.
  const Config prefill = heuristic_config(Problem::parse("b=4,hq=16,sq=4096,d=128,causal=1"), h100);
  EXPECT_EQ(prefill.at("block_m"), 128);
  EXPECT_EQ(prefill.at("pack_gqa"), 0);
  // d=128, and d=64 causal with long tiles: the dynamic scheduler with two Q buffers; a grid with fewer
  // tiles than SMs stays a grid.
  for (const char* text : {"b=4,hq=16,sq=4096,d=128,causal=1", "b=2,hq=32,hkv=4,sq=8192,d=128,causal=1"}) {
    const Config c = heuristic_config(Problem::parse(text), h100);
    EXPECT_EQ(c.at("scheduler"), kDynamicScheduler) << text;
    EXPECT_EQ(c.at("q_buffers"), 2) << text;
  }
  EXPECT_EQ(heuristic_config(Problem::parse("b=4,hq=32,hkv=8,sq=3072,d=64,causal=1"), h100).at("q_buffers"), 1);
  // Causal d=128 GQA over at least 2048 keys packs the group's heads into the tile's rows where whole groups
  // fit (a power of two); not without causality, not for a group of 7, not over 1024 keys. (Causal d=64 packs
  // where its tiles have 192 rows: with_packed_gqa, tested below.)
  EXPECT_EQ(heuristic_config(Problem::parse("b=1,hq=32,hkv=8,sq=4096,d=128,causal=1"), h100).at("pack_gqa"), 1);
  EXPECT_EQ(heuristic_config(Problem::parse("b=2,hq=32,hkv=4,sq=8192,d=128,causal=1"), h100).at("pack_gqa"), 1);
  EXPECT_EQ(heuristic_config(Problem::parse("b=2,hq=32,hkv=8,sq=512,skv=4096,d=128,causal=1"), h100).at("pack_gqa"),
            1);
  EXPECT_EQ(heuristic_config(Problem::parse("b=1,hq=32,hkv=8,sq=4096,d=128"), h100).at("pack_gqa"), 0);
  EXPECT_EQ(heuristic_config(Problem::parse("b=1,hq=28,hkv=4,sq=3000,d=128,causal=1"), h100).at("pack_gqa"), 0);
  EXPECT_EQ(heuristic_config(Problem::parse("b=8,hq=32,hkv=8,sq=1024,d=128,causal=1"), h100).at("pack_gqa"), 0);
  // Non-causal d=128: the persistent walk, 160-key blocks, one Q buffer and the output tile.
  const Config d128 = heuristic_config(Problem::parse("b=4,hq=16,sq=4096,d=128"), h100);
  EXPECT_EQ(d128.at("scheduler"), kPersistentScheduler);
  EXPECT_EQ(d128.at("q_buffers"), 1);
  EXPECT_EQ(d128.at("o_store"), 1);
  EXPECT_EQ(heuristic_config(Problem::parse("b=4,hq=16,sq=4096,d=128"), h100).at("block_n"), 160);
  for (const char* text : {"b=1,hq=8,sq=512,d=64", "b=1,hq=4,sq=300,d=128,causal=1", "b=2,hq=8,sq=2304,d=64"}) {
    const Config c = heuristic_config(Problem::parse(text), h100);
    EXPECT_EQ(c.at("scheduler"), kGridScheduler) << text;
    EXPECT_EQ(c.at("q_buffers"), 1) << text;
  }
  // Non-causal d=64 whose 192-row tiles are at most 1/8 padding and fill at least 80% of the rounds of one
  // CTA per SM: those tiles, persistent, the rows out by TMA store; from 768 to 1024 keys too where they are
  // at least two per SM (instead of the four-CTA config below).
  for (const char* text : {"b=8,hq=16,sq=2048,d=64,dtype=bf16", "b=2,hq=16,sq=1280,d=64",
                           "b=4,hq=32,hkv=8,sq=1536,d=64,dtype=bf16", "b=1,hq=16,sq=8192,d=64,dtype=bf16",
                           "b=8,hq=16,sq=768,d=64,dtype=bf16", "b=16,hq=8,sq=896,d=64,dtype=bf16",
                           "b=4,hq=16,sq=1024,d=64"}) {
    const Problem p = Problem::parse(text);
    const Config c = heuristic_config(p, h100);
    EXPECT_EQ(c.at("block_m"), 192) << text;
    EXPECT_EQ(c.at("scheduler"), kPersistentScheduler) << text;
    EXPECT_EQ(c.at("o_store"), 1) << text;
    EXPECT_EQ(c.at("pingpong"), 1) << text;
    EXPECT_EQ(invalid_reason(c, p, h100), std::nullopt) << text;
    EXPECT_EQ(excluded_by_default(c, p, h100), std::nullopt) << text;
  }
  // Past 1024 keys (prefill) the walk whatever its padding rows (13-23% here)...
  for (const char* text : {"b=29,hq=64,hkv=8,sq=443,skv=1772,d=64,dtype=bf16",
                           "b=3,hq=64,sq=1006,skv=2012,d=64", "b=56,hq=16,hkv=4,sq=1167,d=64",
                           "b=20,hq=48,hkv=24,sq=779,skv=1168,d=64,dtype=bf16"}) {
    const Problem p = Problem::parse(text);
    const Config c = heuristic_config(p, h100);
    EXPECT_EQ(c.at("block_m"), 192) << text;
    EXPECT_EQ(c.at("scheduler"), kPersistentScheduler) << text;
    EXPECT_EQ(c.at("o_store"), 1) << text;
  }
  // ... unless 192-row tiles hold at least 1.2 times the rows of 64-row ones and a KV head serves at most two
  // query heads: the four-CTA config on the dynamic scheduler. (sq586: 768 rows against 640; sq779: 960
  // against 832, 1.15, above; the group of eight above holds 1.29 times.)
  for (const char* text : {"b=21,hq=28,sq=586,skv=1172,d=64,dtype=bf16", "b=54,hq=28,sq=389,skv=1556,d=64",
                           "b=3,hq=40,hkv=20,sq=585,skv=2340,d=64,dtype=bf16"}) {
    const Problem p = Problem::parse(text);
    const Config c = heuristic_config(p, h100);
    EXPECT_EQ(c.at("block_m"), 64) << text;
    EXPECT_EQ(c.at("min_ctas"), 4) << text;
    EXPECT_EQ(c.at("scheduler"), kDynamicScheduler) << text;
    EXPECT_EQ(invalid_reason(c, p, h100), std::nullopt) << text;
    EXPECT_EQ(excluded_by_default(c, p, h100), std::nullopt) << text;
  }
  // d=64 on sm_90 otherwise: 192-row wgmma tiles, or 128-row ones where those fill the waves clearly better.
  EXPECT_EQ(heuristic_config(Problem::parse("b=2,hq=8,sq=2304,d=64,dtype=bf16"), h100).at("block_m"), 192);
  EXPECT_EQ(heuristic_config(Problem::parse("b=2,hq=12,sq=1100,d=64,dtype=bf16"), h100).at("block_m"), 128);
  // Causal beyond 3072 keys at d=64, or d=128: one CTA per SM, dynamic, the rows out by TMA store (two Q
  // buffers at d=128, one at d=64); at d=128, and at d=64 where 192-row tiles would be fewer than four per SM,
  // 128-row tiles without pingpong; at d=64 otherwise 192-row tiles with pingpong. d64 non-causal keeps
  // pingpong (the persistent rule above), as does a grid that leaves SMs idle (below).
  for (const char* text : {"b=1,hq=24,sq=3073,d=64,causal=1", "b=1,hq=16,sq=4096,d=64,causal=1",
                           "b=2,hq=24,sq=3073,d=64,causal=1", "b=4,hq=32,hkv=8,sq=3200,d=64,causal=1",
                           "b=4,hq=16,sq=4096,d=128,causal=1"}) {
    const Problem p = Problem::parse(text);
    const Config c = heuristic_config(p, h100);
    EXPECT_EQ(c.at("min_ctas"), 1) << text;
    const bool rows192 = p.d == 64 && (p.sq + 191) / 192 * p.b * p.hq >= 4 * h100.sm_count;
    EXPECT_EQ(c.at("block_m"), rows192 ? 192 : 128) << text;
    EXPECT_EQ(c.at("block_n"), 128) << text;
    EXPECT_EQ(c.at("scheduler"), kDynamicScheduler) << text;
    EXPECT_EQ(c.at("o_store"), 1) << text;
    EXPECT_EQ(c.at("pingpong"), rows192 ? 1 : 0) << text;
    EXPECT_EQ(invalid_reason(c, p, h100), std::nullopt) << text;
  }
  // Both sides of that occur among them.
  EXPECT_EQ(heuristic_config(Problem::parse("b=1,hq=16,sq=4096,d=64,causal=1"), h100).at("block_m"), 128);
  EXPECT_EQ(heuristic_config(Problem::parse("b=4,hq=32,hkv=8,sq=3200,d=64,causal=1"), h100).at("block_m"),
            192);
  // d=64 with at most 3072 keys causal, 1024 not, and enough tiles: four CTAs per SM of one consumer
  // warpgroup each (a grid; non-causal, the dynamic scheduler where the 64-row tiles are more than four per
  // SM), 64x64 tiles, the producer's registers moved to the consumer; 3073 keys causal, 1025 not, or too few
  // tiles: not (nor causal GQA from 1536 keys in groups of four: CausalD64PackedTilesNearTheFourCtaBound).
  // (Non-causal: where the persistent 192-row rule above does not take the shape: tiles of 1/8 padding or
  // more, s777, s1000, s640, s256; fewer than two per SM, b4 hq8 s768; below 768 keys, s384.)
  for (const char* text : {"b=32,hq=8,sq=256,d=64,causal=1", "b=8,hq=16,hkv=4,sq=384,d=64,causal=1",
                           "b=64,hq=8,sq=256,d=64", "b=32,hq=16,sq=384,d=64", "b=16,hq=16,sq=640,d=64,dtype=bf16",
                           "b=4,hq=8,sq=768,d=64", "b=12,hq=12,sq=1000,d=64",
                           "b=16,hq=16,sq=1024,d=64,causal=1", "b=2,hq=24,sq=1536,d=64,causal=1",
                           "b=4,hq=32,hkv=16,sq=2048,d=64,causal=1", "b=3,hq=12,sq=777,d=64,dtype=bf16",
                           "b=8,hq=8,hkv=4,sq=2530,d=64,causal=1,dtype=bf16",
                           "b=4,hq=32,hkv=16,sq=3000,d=64,causal=1",
                           "b=8,hq=16,sq=256,d=64", "b=8,hq=8,sq=512,d=64,dtype=bf16"}) {
    const Problem p = Problem::parse(text);
    const Config c = heuristic_config(p, h100);
    EXPECT_EQ(c.at("block_m"), 64) << text;
    EXPECT_EQ(c.at("block_n"), 64) << text;
    EXPECT_EQ(c.at("min_ctas"), 4) << text;
    EXPECT_EQ(c.at("producer_regs"), 24) << text;
    const bool more_tiles_than_slots = unsplit_ctas(c, p) > 4LL * h100.sm_count;
    EXPECT_EQ(c.at("scheduler"), !p.causal && more_tiles_than_slots ? kDynamicScheduler : kGridScheduler) << text;
    EXPECT_EQ(invalid_reason(c, p, h100), std::nullopt) << text;
    EXPECT_EQ(excluded_by_default(c, p, h100), std::nullopt) << text;
  }
  EXPECT_EQ(heuristic_config(Problem::parse("b=8,hq=16,sq=3073,d=64,causal=1"), h100).at("min_ctas"), 1);
  // Causal from 2049 to 3072 keys: the four-CTA config only where the long-range config has 192-row tiles
  // (at least four per SM) whose heads' last tile leaves a warpgroup without rows (2588 = 13 x 192 + 92);
  // with fewer tiles, its 128-row tiles; with a last tile of every warpgroup busy (3034 = 15 x 192 + 154,
  // 3072 = 16 x 192), its 192-row tiles (probe/call121-122), which then pack the group (with_packed_gqa):
  // skip_idle follows the packed rows' last tile (3034 x 2 = 31 x 192 + 116; 3072 x 4 = 64 x 192).
  EXPECT_EQ(heuristic_config(Problem::parse("b=8,hq=48,hkv=24,sq=2588,d=64,causal=1"), h100).at("min_ctas"),
            4);
  for (const char* text : {"b=1,hq=16,hkv=8,sq=2798,d=64,causal=1", "b=1,hq=16,sq=2057,d=64,causal=1"}) {
    const Config c = heuristic_config(Problem::parse(text), h100);
    EXPECT_EQ(c.at("block_m"), 128) << text;
    EXPECT_EQ(c.at("min_ctas"), 1) << text;
  }
  for (const auto& [text, skip_idle] :
       {std::pair{"b=3,hq=64,hkv=32,sq=3034,d=64,causal=1", 1},
        std::pair{"b=4,hq=32,hkv=8,sq=3072,d=64,causal=1", 0}}) {
    const Config c = heuristic_config(Problem::parse(text), h100);
    EXPECT_EQ(c.at("block_m"), 192) << text;
    EXPECT_EQ(c.at("pack_gqa"), 1) << text;
    EXPECT_EQ(c.at("skip_idle"), skip_idle) << text;
  }
  // Both schedulers of the four-CTA config occur among those shapes (the loop above checks which is which).
  EXPECT_EQ(heuristic_config(Problem::parse("b=64,hq=8,sq=256,d=64"), h100).at("scheduler"), kDynamicScheduler);
  EXPECT_EQ(heuristic_config(Problem::parse("b=32,hq=16,sq=384,d=64"), h100).at("scheduler"), kDynamicScheduler);
  EXPECT_EQ(heuristic_config(Problem::parse("b=8,hq=16,sq=256,d=64"), h100).at("scheduler"), kGridScheduler);
  EXPECT_EQ(heuristic_config(Problem::parse("b=4,hq=8,sq=768,d=64"), h100).at("scheduler"), kGridScheduler);
  // Non-causal in that range, 64-row tiles more than one round of the four-CTA slots: the 192-row walk where
  // the four-CTA config has at least three times its tiles per SM and it has at most four, with the
  // four-CTA config offered to a search beside it; not otherwise (tiles per SM, four-CTA and walk: (5, 2)
  // b2 hq32 s640 and b8 hq16 s320, (6, 3) b12 hq8 s512, (14, 5) b36 hq8 s384, (18, 6) b96 hq8 s192, (24, 8)
  // b32 hq16 s384).
  for (const char* text : {"b=16,hq=8,sq=384,d=64", "b=24,hq=8,sq=384,d=64", "b=11,hq=16,sq=576,d=64",
                           "b=1,hq=64,hkv=8,sq=704,d=64"}) {
    const Problem p = Problem::parse(text);
    const Config c = heuristic_config(p, h100);
    EXPECT_EQ(c.at("block_m"), 192) << text;
    EXPECT_EQ(c.at("min_ctas"), 1) << text;
    EXPECT_EQ(c.at("scheduler"), kPersistentScheduler) << text;
    const long long per_sm192 = (unsplit_ctas(c, p) + h100.sm_count - 1) / h100.sm_count;
    const std::vector<Config> others = heuristic_alternatives(p, h100);
    ASSERT_EQ(others.size(), 1u) << text;
    EXPECT_EQ(others[0].at("min_ctas"), 4) << text;
    const long long per_sm64 = (unsplit_ctas(others[0], p) + h100.sm_count - 1) / h100.sm_count;
    EXPECT_LE(3 * per_sm192, per_sm64) << text;
    EXPECT_LE(per_sm192, 4) << text;
    EXPECT_GT(unsplit_ctas(others[0], p), 4LL * h100.sm_count) << text;
  }
  for (const char* text : {"b=2,hq=32,sq=640,d=64", "b=8,hq=16,sq=320,d=64", "b=12,hq=8,sq=512,d=64,dtype=bf16",
                           "b=36,hq=8,sq=384,d=64,dtype=bf16", "b=96,hq=8,sq=192,d=64", "b=32,hq=16,sq=384,d=64"}) {
    EXPECT_EQ(heuristic_config(Problem::parse(text), h100).at("min_ctas"), 4) << text;
  }
  // A small grid in that range (128-row tiles no more than the SMs, 64-row ones more): one 128x128 tile per
  // SM, overlap and pingpong, unsplit; 64-row tiles no more than the SMs: the small-grid config (64 rows,
  // one CTA per SM).
  for (const char* text : {"b=2,hq=8,sq=768,d=64", "b=4,hq=8,sq=512,d=64,dtype=bf16", "b=2,hq=16,sq=512,d=64",
                           "b=1,hq=16,sq=1024,d=64,dtype=bf16", "b=1,hq=8,sq=2048,d=64,causal=1",
                           "b=1,hq=12,sq=1024,d=64,causal=1,dtype=bf16"}) {
    const Problem p = Problem::parse(text);
    const Config c = heuristic_config(p, h100);
    EXPECT_EQ(c.at("block_m"), 128) << text;
    EXPECT_EQ(c.at("block_n"), 128) << text;
    EXPECT_EQ(c.at("min_ctas"), 1) << text;
    EXPECT_EQ(c.at("overlap"), 1) << text;
    EXPECT_EQ(c.at("pingpong"), 1) << text;
    EXPECT_EQ(c.at("splits"), 1) << text;
    EXPECT_LE(unsplit_ctas(c, p), h100.sm_count) << text;
    EXPECT_EQ(invalid_reason(c, p, h100), std::nullopt) << text;
  }
  for (const char* text : {"b=1,hq=8,sq=512,d=64", "b=1,hq=4,sq=1024,d=64,causal=1"}) {
    const Config c = heuristic_config(Problem::parse(text), h100);
    EXPECT_EQ(c.at("block_m"), 64) << text;
    EXPECT_EQ(c.at("min_ctas"), 1) << text;
    EXPECT_EQ(c.at("scheduler"), kGridScheduler) << text;
  }
  // The other side of that bound, for a search's first generation: the 128-row config where the four-CTA
  // one is the default, the four-CTA one beyond the bound; nothing at d=128, where no bound applies. (A
  // grid that leaves SMs idle takes both sides to the small-grid config, which keeps each side's overlap.)
  for (const char* text : {"b=2,hq=24,sq=1536,d=64,causal=1", "b=4,hq=32,hkv=8,sq=3072,d=64,causal=1",
                           "b=8,hq=16,sq=768,d=64,dtype=bf16", "b=8,hq=16,sq=2048,d=64,dtype=bf16",
                           "b=16,hq=16,sq=640,d=64,dtype=bf16"}) {
    const Problem p = Problem::parse(text);
    const Config chosen = heuristic_config(p, h100);
    const std::vector<Config> others = heuristic_alternatives(p, h100);
    ASSERT_EQ(others.size(), 1u) << text;
    EXPECT_NE(others[0].key(), chosen.key()) << text;
    EXPECT_EQ(others[0].at("min_ctas") == 4, chosen.at("min_ctas") != 4) << text;
    EXPECT_EQ(invalid_reason(others[0], p, h100), std::nullopt) << text;
    EXPECT_EQ(excluded_by_default(others[0], p, h100), std::nullopt) << text;
  }
  EXPECT_TRUE(heuristic_alternatives(Problem::parse("b=4,hq=16,sq=4096,d=128,causal=1"), h100).empty());
  // The wgmma defaults' tile, scheduler and output path by class, each with both overlaps and pingpong (the
  // measurements are beside each rule in attention_family.cpp).
  struct Expected {
    const char* problem;
    int block_m, block_n, scheduler, o_store;
  };
  for (const Expected& e : std::initializer_list<Expected>{
           // d=256 up to 4096 keys per tile on average: 128x64 tiles, tma_half's output tile
           // (probe/call90-92, call97), the persistent walk without causality, the dynamic scheduler with it
           // (call141-142)
           {"b=4,hq=16,sq=4096,d=256", 128, 64, kPersistentScheduler, 2},
           {"b=1,hq=16,hkv=8,sq=8192,d=256,causal=1,dtype=bf16", 128, 64, kDynamicScheduler, 2},
           {"b=8,hq=16,sq=1024,d=256,causal=1", 128, 64, kDynamicScheduler, 2},
           {"b=16,hq=8,sq=512,d=256", 128, 64, kPersistentScheduler, 2},
           // past that, FlashAttention-3's 128x80 grid
           {"b=1,hq=8,sq=8925,d=256,causal=1,dtype=bf16", 128, 80, kGridScheduler, 0},
           {"b=1,hq=24,hkv=3,sq=5070,d=256", 128, 80, kGridScheduler, 0},
           // a small grid whose 64-row halves would be more than the SMs keeps 128-row tiles (one such 64-row
           // CTA fills an SM's shared memory at d=128 and d=256) on a plain grid, unsplit. At d=256 80-key
           // blocks beyond short ranges (mean keys per tile above 1024 causal, 768 not) and 64-key ones within
           // them, the rows out by TMA store from an output tile where one fits (call101: tma_half beside
           // 64-key slots, none beside 80-key ones)
           {"b=1,hq=4,sq=4096,d=256", 128, 80, kGridScheduler, 0},
           {"b=1,hq=5,sq=3000,d=256,causal=1", 128, 80, kGridScheduler, 0},
           {"b=1,hq=12,hkv=3,sq=1169,d=256,causal=1", 128, 64, kGridScheduler, 2},
           {"b=1,hq=32,hkv=8,sq=512,d=256,dtype=bf16", 128, 64, kGridScheduler, 2},
           {"b=1,hq=8,sq=2000,d=256,causal=1", 128, 64, kGridScheduler, 2},
           // small grids of 128-row tiles at d=128: the whole output tile (512 keys: four 128-key blocks)
           {"b=1,hq=32,hkv=8,sq=512,d=128,dtype=bf16", 128, 128, kGridScheduler, 1},
           {"b=1,hq=16,hkv=4,sq=640,d=128,dtype=bf16", 128, 160, kGridScheduler, 1},
           // more non-causal d=128 tiles than SMs: the persistent walk (call142-144), keys per block by the
           // blocks' cost over the range, a block its keys plus 16 (call113): 160 over long ranges and where
           // it pads least, 144 or 128 where they do
           {"b=4,hq=16,sq=4096,d=128", 128, 160, kPersistentScheduler, 1},
           {"b=1,hq=40,hkv=8,sq=2048,d=128", 128, 160, kPersistentScheduler, 1},
           {"b=20,hq=16,sq=448,d=128", 128, 160, kPersistentScheduler, 1},
           {"b=2,hq=32,hkv=8,sq=2000,d=128,dtype=bf16", 128, 144, kPersistentScheduler, 1},
           {"b=30,hq=40,hkv=20,sq=512,d=128,dtype=bf16", 128, 128, kPersistentScheduler, 1},
           {"b=47,hq=24,hkv=6,sq=375,d=128", 128, 128, kPersistentScheduler, 1},
           {"b=16,hq=32,hkv=8,sq=256,skv=1500,d=128,dtype=bf16", 128, 128, kPersistentScheduler, 1},
           {"b=2,hq=12,hkv=4,sq=640,d=128,causal=1", 128, 128, kGridScheduler, 1},
           // non-causal d=128 grids just past one wave: one wave of 192-row tiles of 64-key blocks (call98-99)
           {"b=1,hq=36,hkv=4,sq=512,d=128", 192, 64, kGridScheduler, 1},
           {"b=3,hq=16,hkv=4,sq=384,d=128,dtype=bf16", 192, 64, kGridScheduler, 1},
       }) {
    const Config c = heuristic_config(Problem::parse(e.problem), h100);
    EXPECT_EQ(c.at("mma"), kWgmma) << e.problem;
    EXPECT_EQ(c.at("block_m"), e.block_m) << e.problem;
    EXPECT_EQ(c.at("block_n"), e.block_n) << e.problem;
    EXPECT_EQ(c.at("scheduler"), e.scheduler) << e.problem;
    EXPECT_EQ(c.at("o_store"), e.o_store) << e.problem;
    EXPECT_EQ(c.at("overlap"), 1) << e.problem;
    EXPECT_EQ(c.at("pingpong"), 1) << e.problem;
    EXPECT_EQ(c.at("splits"), 1) << e.problem;
  }
  // Not in the 192-row class: causal, a grid of exactly the SMs, two waves of 192-row tiles.
  for (const char* text : {"b=1,hq=40,hkv=8,sq=512,d=128,causal=1", "b=1,hq=33,sq=512,d=128", "b=1,hq=48,hkv=8,sq=400,d=128"}) {
    EXPECT_EQ(heuristic_config(Problem::parse(text), h100).at("block_m"), 128) << text;
  }
  const Config small_d256 = heuristic_config(Problem::parse("b=1,hq=8,sq=700,d=256,causal=1"), h100);
  EXPECT_EQ(small_d256.at("block_m"), 64);
  EXPECT_EQ(small_d256.at("block_n"), 64);
  for (const Config& other : heuristic_alternatives(Problem::parse("b=1,hq=8,sq=512,d=64"), h100)) {
    EXPECT_EQ(other.at("min_ctas"), 1);
    EXPECT_EQ(other.at("scheduler"), kGridScheduler);
  }
  EXPECT_TRUE(heuristic_alternatives(Problem::parse("b=2,hq=24,sq=1536,d=64,causal=1"), a100).empty());
  EXPECT_EQ(heuristic_config(Problem::parse("b=8,hq=16,sq=1025,d=64"), h100).at("min_ctas"), 1);
  EXPECT_EQ(heuristic_config(Problem::parse("b=1,hq=8,sq=512,d=64"), h100).at("min_ctas"), 1);  // 64 tiles
  EXPECT_EQ(heuristic_config(Problem::parse("b=32,hq=8,sq=256,d=128,causal=1"), h100).at("min_ctas"), 1);
  // One CTA per SM; the rows out by TMA store from an output tile on the 64-row small grids where it fits
  // (probe/call104; at d=256 it does not beside three slots), and on d=64's non-causal 192-row grids
  // (probe/call155-156).
  for (const auto& [text, o_store] : {std::pair{"b=2,hq=8,sq=2304,d=64", 1}, std::pair{"b=1,hq=8,sq=512,d=64,causal=1", 1},
                                      std::pair{"b=2,hq=4,sq=700,d=128", 1}, std::pair{"b=1,hq=8,sq=700,d=256,causal=1", 0}}) {
    const Config c = heuristic_config(Problem::parse(text), h100);
    EXPECT_EQ(c.at("o_store"), o_store) << text;
    EXPECT_EQ(c.at("min_ctas"), 1) << text;
  }
  // Valid, and inside the default search space, across shapes, head dims, dtypes and GPUs.
  for (const char* target : {"sm_90a", "sm_80", "sm_86"}) {
    const DeviceLimits limits = DeviceLimits::for_target(runtime::Target::parse(target));
    for (const char* text :
         {"b=1,hq=1,sq=1,skv=1,d=64", "b=32,hq=32,hkv=8,sq=1,skv=4096,d=128",
          "b=1,hq=32,hkv=8,sq=128,skv=4096,d=128,causal=1", "b=2,hq=28,hkv=4,sq=3000,d=128,causal=1",
          "b=8,hq=16,hkv=1,sq=7,skv=70000,d=64,dtype=bf16", "b=1,hq=8,sq=512,d=64",
          "b=16,hq=16,hkv=4,sq=1000,d=64,causal=1,dtype=bf16", "b=4,hq=16,sq=4096,d=256",
          "b=1,hq=8,sq=700,d=256,causal=1,dtype=bf16", "b=8,hq=16,hkv=8,sq=1,skv=8192,d=256",
          "b=1,hq=16,hkv=2,sq=300,skv=4001,d=256,causal=1"}) {
      const Problem p = Problem::parse(text);
      const Config c = heuristic_config(p, limits);
      EXPECT_EQ(invalid_reason(c, p, limits), std::nullopt) << target << " " << text << ": " << format(c);
      EXPECT_EQ(excluded_by_default(c, p, limits), std::nullopt)
          << target << " " << text << ": " << format(c);
      // Every wgmma default keeps the softmax reference until a block's max passes it (rescale=lazy); the
      // cp.async mainloops do not have the tunable.
      EXPECT_EQ(c.at("rescale"), c.at("mma") == kWgmma ? 1 : 0) << target << " " << text;
    }
  }
}

// Non-causal GQA defaults pack the group's query heads into the tiles where that cuts the tiles the busiest
// SM runs by at least 3% (at least two packed per SM); causal ones where the tiles have 192 rows (d=64);
// MHA, d=256, other causal tiles and grids whose tiles per SM do not drop keep them unpacked.
TEST(AttentionHeuristic, PackedGqaWhereItCutsTheBusiestSmsTiles) {
  const DeviceLimits h100 = DeviceLimits::for_target(runtime::Target::parse("sm_90a"));
  struct Case {
    const char* problem;
    int block_m, pack_gqa;
  };
  for (const Case& c : {
           // 192-row walk: 6 x 32 x 14 = 2688 tiles (21 per SM) unpacked, 22 x 8 x 14 = 2464 (19) packed
           Case{"b=14,hq=32,hkv=8,sq=1024,skv=1024,d=64,causal=0,dtype=bf16", 192, 1},
           Case{"b=14,hq=32,hkv=8,sq=1024,skv=1024,d=64,causal=1,dtype=bf16", 64, 0},   // causal, 64 rows
           Case{"b=2,hq=28,hkv=7,sq=6080,skv=6080,d=64,causal=1,dtype=bf16", 192, 1},  // causal, 192 rows
           Case{"b=8,hq=32,hkv=32,sq=4672,skv=4672,d=64,causal=1,dtype=fp16", 192, 0},  // causal MHA
           Case{"b=35,hq=16,hkv=8,sq=740,skv=740,d=128,causal=1,dtype=bf16", 128, 0},  // causal, 128 rows
           Case{"b=14,hq=32,hkv=32,sq=1024,skv=1024,d=64,causal=0,dtype=bf16", 192, 0},  // MHA
           Case{"b=6,hq=32,hkv=8,sq=1100,skv=1100,d=64,causal=0,dtype=bf16", 192, 0},  // 9 per SM either way
           Case{"b=4,hq=32,hkv=8,sq=1000,skv=1000,d=64,causal=0,dtype=bf16", 64, 0},   // 16 per SM either way
           // four-CTA config: 16 x 32 x 5 = 2560 tiles (20 per SM) against 31 x 16 x 5 = 2480 (19)
           Case{"b=5,hq=32,hkv=16,sq=990,skv=990,d=64,causal=0,dtype=fp16", 64, 1},
           // 128-row d=128: 2 x 12 x 14 = 336 tiles (3 per SM) against 3 x 6 x 14 = 252 (2)
           Case{"b=14,hq=12,hkv=6,sq=191,skv=191,d=128,causal=0,dtype=bf16", 128, 1},
           Case{"b=2,hq=12,hkv=6,sq=191,skv=191,d=128,causal=0,dtype=bf16", 64, 0},  // a small grid
           Case{"b=14,hq=12,hkv=6,sq=191,skv=191,d=256,causal=0,dtype=bf16", 128, 0},
       }) {
    const Problem p = Problem::parse(c.problem);
    const Config config = heuristic_config(p, h100);
    EXPECT_EQ(config.at("block_m"), c.block_m) << c.problem;
    EXPECT_EQ(config.at("pack_gqa"), c.pack_gqa) << c.problem;
    EXPECT_EQ(invalid_reason(config, p, h100), std::nullopt) << c.problem;
  }
}

// Short query chunks (fewer than 128 queries) take the wgmma mainloop on sm_90: packed where queries x the
// group fill a 128-row tile and the group divides 64; else, past 16 queries, unpacked tiles of one head's
// queries (128 rows over more than 64 queries, else 64; d=128's 64-row tiles two CTAs per SM); either only
// where the grid, split as the rules split it, holds at least half the SMs. The mma.sync path keeps the rest
// (up to 16 queries, small grids, decode) and every chunk on an sm_80 GPU.
TEST(AttentionHeuristic, ShortQueryChunksTakeWgmmaOnSm90) {
  const DeviceLimits h100 = DeviceLimits::for_target(runtime::Target::parse("sm_90a"));
  const DeviceLimits a100 = DeviceLimits::for_target(runtime::Target::parse("sm_80"));
  struct Case {
    const char* problem;
    bool wgmma;
    int pack_gqa, block_m;  // when wgmma
  };
  for (const Case& c : {
           Case{"b=28,hq=12,hkv=6,sq=64,skv=3527,d=256,causal=0,dtype=bf16", true, 1, 128},   // 128 rows
           Case{"b=64,hq=24,hkv=3,sq=64,skv=4098,d=256,causal=0,dtype=fp16", true, 1, 128},   // 512 rows
           Case{"b=28,hq=48,hkv=12,sq=64,skv=28340,d=128,causal=1,dtype=fp16", true, 1, 128},
           Case{"b=8,hq=32,hkv=4,sq=16,skv=8192,d=128,causal=0,dtype=bf16", true, 1, 64},     // 16 x 8 = 128
           Case{"b=48,hq=16,hkv=2,sq=32,skv=9124,d=64,causal=0,dtype=fp16", true, 1, 128},   // 256 rows
           Case{"b=33,hq=48,hkv=24,sq=96,skv=16977,d=64,causal=0,dtype=fp16", true, 1, 192},  // 192 rows
           Case{"b=12,hq=32,hkv=4,sq=17,skv=901,d=64,causal=1,dtype=fp16", true, 1, 128},
           Case{"b=3,hq=32,hkv=4,sq=17,skv=901,d=64,causal=1,dtype=fp16", false, 0, 0},    // 36 CTAs
           Case{"b=40,hq=32,hkv=32,sq=127,skv=1265,d=64,causal=0,dtype=bf16", true, 0, 128},  // MHA
           Case{"b=25,hq=16,hkv=16,sq=64,skv=9030,d=64,causal=0,dtype=fp16", true, 0, 64},
           // d=64 MHA chunks of up to 64 queries over at least 600 keys: 128 rows where the four-CTA grid's
           // tiles are one round of its 528 slots and a last one that leaves SMs idle (529-659 tiles).
           Case{"b=51,hq=12,hkv=12,sq=48,skv=3430,d=64,causal=0,dtype=bf16", true, 0, 128},  // 612 tiles
           Case{"b=37,hq=16,hkv=16,sq=20,skv=600,d=64,causal=1,dtype=fp16", true, 0, 128},   // 592
           Case{"b=37,hq=16,hkv=16,sq=20,skv=599,d=64,causal=1,dtype=fp16", true, 0, 64},    // 599 keys
           Case{"b=55,hq=12,hkv=12,sq=58,skv=735,d=64,causal=0,dtype=bf16", true, 0, 64},    // 660
           Case{"b=44,hq=12,hkv=12,sq=48,skv=3430,d=64,causal=0,dtype=bf16", true, 0, 64},   // 528
           Case{"b=51,hq=12,hkv=6,sq=48,skv=3430,d=64,causal=0,dtype=bf16", true, 0, 64},    // a group of 2
           Case{"b=8,hq=12,hkv=2,sq=64,skv=4000,d=128,causal=0,dtype=fp16", true, 0, 64},   // a group of 6
           Case{"b=20,hq=48,hkv=8,sq=80,skv=6773,d=256,causal=1,dtype=bf16", true, 0, 128},
           Case{"b=8,hq=32,hkv=8,sq=16,skv=8192,d=128,causal=0,dtype=bf16", false, 0, 0},   // 64 rows
           Case{"b=16,hq=16,hkv=16,sq=32,skv=4000,d=128,causal=0,dtype=bf16", true, 0, 64},   // 32 queries
           Case{"b=20,hq=8,hkv=8,sq=17,skv=700,d=64,causal=0,dtype=fp16", true, 0, 64},
           Case{"b=20,hq=8,hkv=8,sq=16,skv=700,d=64,causal=0,dtype=fp16", false, 0, 0},      // 16 queries
           Case{"b=1,hq=8,hkv=8,sq=64,skv=2000,d=128,causal=0,dtype=fp16", false, 0, 0},     // 8 tiles
           Case{"b=32,hq=32,hkv=8,sq=1,skv=4096,d=128,causal=0,dtype=fp16", false, 0, 0},    // decode
       }) {
    const Problem p = Problem::parse(c.problem);
    const Config config = heuristic_config(p, h100);
    EXPECT_EQ(config.at("mma") == kWgmma, c.wgmma) << c.problem << ": " << format(config);
    if (c.wgmma) {
      EXPECT_EQ(config.at("pack_gqa"), c.pack_gqa) << c.problem;
      EXPECT_EQ(config.at("block_m"), c.block_m) << c.problem;
    }
    EXPECT_EQ(invalid_reason(config, p, h100), std::nullopt) << c.problem;
    EXPECT_EQ(excluded_by_default(config, p, h100), std::nullopt) << c.problem;
    EXPECT_NE(heuristic_config(p, a100).at("mma"), kWgmma) << c.problem;
  }
  // d=128's 64-row chunk tiles: 64-key blocks, two CTAs per SM on the dynamic scheduler.
  const Config d128 = heuristic_config(Problem::parse("b=16,hq=16,hkv=16,sq=32,skv=4000,d=128"), h100);
  EXPECT_EQ(d128.at("block_n"), 64);
  EXPECT_EQ(d128.at("min_ctas"), 2);
  EXPECT_EQ(d128.at("scheduler"), kDynamicScheduler);
  // d=64's 128-row chunk tiles: three 128-key slots.
  EXPECT_EQ(heuristic_config(Problem::parse("b=40,hq=32,sq=127,skv=1265,d=64"), h100).at("stages"), 3);
}

// Decode on sm_90: a grid of at least half as many CTAs as SMs is not split (its CTAs stream K/V; the
// slots of the small tiles' residency do not count); tiny grids split as before.
TEST(AttentionHeuristic, DecodeGridsOfHalfTheSmsAreNotSplit) {
  const DeviceLimits h100 = DeviceLimits::for_target(runtime::Target::parse("sm_90a"));
  const Problem ninety = Problem::parse("b=15,hq=48,hkv=6,sq=1,skv=831,d=128,causal=1,dtype=bf16");  // 90 CTAs
  EXPECT_EQ(heuristic_config(ninety, h100).at("splits"), 1);
  const Problem eight = Problem::parse("b=1,hq=32,hkv=8,sq=1,skv=2048,d=128");  // 8 CTAs
  EXPECT_GT(heuristic_config(eight, h100).at("splits"), 1);
}

// d=64 decode tiles hold half a d=128 tile's K/V in flight: an SM streams two, and a grid of half the SMs
// but less than half their 264 streams is split into the most chunks that stay within the streams.
TEST(AttentionHeuristic, D64DecodeGridsUnderHalfTheSmsStreamsAreSplit) {
  const DeviceLimits h100 = DeviceLimits::for_target(runtime::Target::parse("sm_90a"));
  auto splits = [&](const char* problem) {
    const Config c = heuristic_config(Problem::parse(problem), h100);
    EXPECT_EQ(c.at("mma"), kMmaSync) << problem;
    EXPECT_LT(c.at("block_m"), 128) << problem;
    return c.at("splits");
  };
  EXPECT_EQ(splits("b=18,hq=32,hkv=4,sq=1,skv=26578,d=64,dtype=bf16"), 3);     // 72 CTAs: 216 of 264
  EXPECT_EQ(splits("b=33,hq=4,hkv=2,sq=2,skv=5525,d=64"), 4);                // 66 x 4 = 264
  EXPECT_EQ(splits("b=34,hq=4,hkv=2,sq=2,skv=5525,d=64"), 3);                // 68 x 4 = 272 > 264
  EXPECT_EQ(splits("b=100,hq=4,hkv=1,sq=3,skv=18792,d=64"), 2);              // 100 x 3 = 300 > 264
  EXPECT_EQ(splits("b=66,hq=8,hkv=2,sq=1,skv=8000,d=64"), 1);                // 132 CTAs: half the streams
  EXPECT_EQ(splits("b=18,hq=32,hkv=4,sq=1,skv=26578,d=128,dtype=bf16"), 1);    // d=128: one stream an SM
  // A K/V range too short for three chunks of two blocks: the most it may take.
  EXPECT_EQ(splits("b=18,hq=32,hkv=4,sq=1,skv=256,d=64"), 2);
}

// Tiles one SM holds alone (d=256 decode): a grid of more CTAs than SMs runs in hard waves and is split by
// wave efficiency; one whose last wave is nearly full, or that fits one wave, is not.
TEST(AttentionHeuristic, GridsOfOneAnSmTilesOverTheSmsAreSplitByWaves) {
  const DeviceLimits h100 = DeviceLimits::for_target(runtime::Target::parse("sm_90a"));
  auto splits = [&](const char* problem) {
    const Problem p = Problem::parse(problem);
    const Config c = heuristic_config(p, h100);
    EXPECT_EQ(resident_ctas(c, p, h100), 1) << problem;
    return c.at("splits");
  };
  EXPECT_EQ(splits("b=43,hq=32,hkv=4,sq=1,skv=4766,d=256"), 2);            // 172 CTAs: 344 of 396
  EXPECT_EQ(splits("b=18,hq=64,hkv=8,sq=3,skv=29920,d=256,causal=1"), 4);  // 144: 576 of 660
  EXPECT_EQ(splits("b=65,hq=4,hkv=4,sq=8,skv=25426,d=256,causal=1"), 1);   // 260 of 264
  EXPECT_EQ(splits("b=113,hq=2,hkv=1,sq=3,skv=4567,d=256"), 1);            // 113: one wave
}

// Grids of such tiles from half the SMs up to 80% of them (one wave, SMs idle) split into the fewest chunks of
// 1024 keys at least whose grid fills 80% of its waves; from 80% of the SMs, or where no count does, not.
TEST(AttentionHeuristic, OneWaveGridsOfOneAnSmTilesSplitIntoLongChunks) {
  const DeviceLimits h100 = DeviceLimits::for_target(runtime::Target::parse("sm_90a"));
  auto splits = [&](const char* problem) {
    const Problem p = Problem::parse(problem);
    const Config c = heuristic_config(p, h100);
    EXPECT_EQ(resident_ctas(c, p, h100), 1) << problem;
    return c.at("splits");
  };
  EXPECT_EQ(splits("b=43,hq=2,hkv=2,sq=4,skv=12641,d=256,dtype=bf16"), 3);  // 86 CTAs: 258 of 264
  EXPECT_EQ(splits("b=98,hq=1,hkv=1,sq=7,skv=14810,d=256,dtype=bf16"), 4);  // 98: 392 of 396
  EXPECT_EQ(splits("b=95,hq=8,hkv=1,sq=5,skv=5822,d=256"), 4);              // 64-row tile, 1456-key chunks
  EXPECT_EQ(splits("b=39,hq=16,hkv=2,sq=1,skv=2565,d=256"), 1);  // 3 chunks would be 855 keys; 2 fill no more
  EXPECT_EQ(splits("b=68,hq=4,hkv=1,sq=4,skv=5489,d=256"), 1);   // 16-row tiles: under 55% of the SMs
  EXPECT_EQ(splits("b=69,hq=4,hkv=1,sq=2,skv=12678,d=256,causal=1"), 1);
  EXPECT_EQ(splits("b=72,hq=1,hkv=1,sq=1,skv=12678,d=256"), 1);  // 72 CTAs (3 chunks would fill 216 of 264)
  EXPECT_EQ(splits("b=73,hq=1,hkv=1,sq=1,skv=12678,d=256"), 3);  // from 55%
  EXPECT_EQ(splits("b=69,hq=32,hkv=1,sq=2,skv=12678,d=256"), 8);  // 64-row tile, from half: 552 of 660
  EXPECT_EQ(splits("b=100,hq=8,hkv=1,sq=3,skv=15256,d=256"), 6);  // 32-row tile: 2-4 chunks fill 76%
  EXPECT_EQ(splits("b=15,hq=40,hkv=5,sq=4,skv=608,d=256"), 1);   // 75 CTAs over 608 keys
  EXPECT_EQ(splits("b=30,hq=8,hkv=4,sq=8,skv=21995,d=256"), 1);  // 120 CTAs: 91% of the SMs
  EXPECT_EQ(splits("b=64,hq=2,hkv=1,sq=1,skv=30000,d=256"), 2);  // 64, under half: auto_splits, 128 of 132
}

// d=128 decode grids of 16-row tiles on sm_90, unsplit: two stages where every SM's CTAs share it to the end
// (more CTAs than SMs, a last wave of 264 slots full or over 33), three where some run alone.
TEST(AttentionHeuristic, D128DecodeGridsTakeTwoStagesWhereTheirCtasShareSms) {
  const DeviceLimits h100 = DeviceLimits::for_target(runtime::Target::parse("sm_90a"));
  auto stages = [&](const char* problem) {
    const Config c = heuristic_config(Problem::parse(problem), h100);
    EXPECT_EQ(c.at("mma"), kMmaSync) << problem;
    EXPECT_EQ(c.at("block_m"), 16) << problem;
    EXPECT_EQ(c.at("splits"), 1) << problem;
    return c.at("stages");
  };
  EXPECT_EQ(stages("b=28,hq=32,hkv=8,sq=4,skv=3902,d=128"), 2);    // 224 CTAs, one wave
  EXPECT_EQ(stages("b=33,hq=8,hkv=8,sq=1,skv=4000,d=128"), 2);     // 264: a full wave
  EXPECT_EQ(stages("b=50,hq=16,hkv=8,sq=6,skv=10072,d=128"), 2);   // 400: a last wave of 136
  EXPECT_EQ(stages("b=33,hq=8,hkv=2,sq=1,skv=3442,d=128"), 3);     // 66 CTAs, each alone on its SM
  EXPECT_EQ(stages("b=33,hq=4,hkv=4,sq=1,skv=4000,d=128"), 3);     // 132: one an SM
  EXPECT_EQ(stages("b=36,hq=8,hkv=8,sq=10,skv=2538,d=128"), 3);    // 288: a last wave of 24
  EXPECT_EQ(stages("b=24,hq=24,hkv=24,sq=16,skv=4632,d=64"), 3);   // d=64: as before
}

// d=128 decode grids of 16-row tiles on sm_90 of 2-6 waves of 264 slots whose last wave holds more than a
// quarter of the SMs but fewer CTAs than SMs (each of them alone on its SM): 2 chunks of 1024+ keys, with the
// unsplit grid's two stages. Everything else as before.
TEST(AttentionHeuristic, D128DecodeGridsWithALoneLastWaveSplitInTwo) {
  const DeviceLimits h100 = DeviceLimits::for_target(runtime::Target::parse("sm_90a"));
  auto chosen = [&](const char* problem) {
    const Config c = heuristic_config(Problem::parse(problem), h100);
    EXPECT_EQ(c.at("mma"), kMmaSync) << problem;
    return std::pair{c.at("splits"), c.at("stages")};
  };
  using Chosen = std::pair<int, int>;  // splits, stages
  EXPECT_EQ(chosen("b=80,hq=4,hkv=4,sq=8,skv=26684,d=128"), Chosen(2, 2));   // 320 CTAs: a last wave of 56
  EXPECT_EQ(chosen("b=43,hq=32,hkv=32,sq=1,skv=12790,d=128"), Chosen(2, 2));  // 1376: 6 waves, 56
  EXPECT_EQ(chosen("b=46,hq=16,hkv=8,sq=6,skv=10072,d=128"), Chosen(2, 2));   // packed GQA, 368: 104
  EXPECT_EQ(chosen("b=298,hq=1,hkv=1,sq=1,skv=4000,d=128"), Chosen(2, 2));    // 34: over a quarter
  EXPECT_EQ(chosen("b=297,hq=1,hkv=1,sq=1,skv=4000,d=128"), Chosen(1, 3));    // 33: three stages instead
  EXPECT_EQ(chosen("b=395,hq=1,hkv=1,sq=1,skv=4000,d=128"), Chosen(2, 2));    // 131
  EXPECT_EQ(chosen("b=396,hq=1,hkv=1,sq=1,skv=4000,d=128"), Chosen(1, 2));    // 132: every SM's pair
  EXPECT_EQ(chosen("b=1640,hq=1,hkv=1,sq=1,skv=4000,d=128"), Chosen(1, 2));   // 7 waves
  EXPECT_EQ(chosen("b=124,hq=24,hkv=24,sq=5,skv=3479,d=128"), Chosen(1, 2));  // 12 waves
  EXPECT_EQ(chosen("b=41,hq=4,hkv=4,sq=3,skv=6436,d=128,causal=1"), Chosen(1, 2));  // 164: under the slots
  EXPECT_EQ(chosen("b=80,hq=4,hkv=4,sq=8,skv=1900,d=128"), Chosen(1, 2));    // 2 chunks of 950 keys
  EXPECT_EQ(chosen("b=50,hq=32,hkv=8,sq=8,skv=14304,d=128").first, 1);      // a 32-row tile
  EXPECT_EQ(chosen("b=20,hq=32,hkv=32,sq=1,skv=2110,d=64").first, 1);       // d=64: four an SM
}

// Causal d=64 GQA from 1536 keys where the long-range config has 192-row tiles (at least four per SM): packed
// 192-row tiles in groups of at least four or over more keys than queries, the four-CTA config up to the
// bound otherwise (groups of two over as many keys as queries, MHA, fewer keys).
TEST(AttentionHeuristic, CausalD64PackedTilesNearTheFourCtaBound) {
  const DeviceLimits h100 = DeviceLimits::for_target(runtime::Target::parse("sm_90a"));
  struct Case {
    const char* problem;
    int block_m, pack_gqa;
  };
  for (const Case& c : {
           Case{"b=4,hq=16,hkv=4,sq=1800,skv=1800,d=64,causal=1,dtype=bf16", 192, 1},
           Case{"b=13,hq=64,hkv=8,sq=1654,skv=1654,d=64,causal=1,dtype=fp16", 192, 1},
           Case{"b=12,hq=48,hkv=24,sq=1248,skv=2496,d=64,causal=1,dtype=fp16", 192, 1},  // sq < skv
           Case{"b=4,hq=16,hkv=8,sq=1800,skv=1800,d=64,causal=1,dtype=bf16", 64, 0},    // a group of two
           Case{"b=4,hq=16,hkv=16,sq=1800,skv=1800,d=64,causal=1,dtype=bf16", 64, 0},   // MHA
           Case{"b=8,hq=16,hkv=4,sq=1400,skv=1400,d=64,causal=1,dtype=bf16", 64, 0},    // under 1536 keys
           Case{"b=4,hq=16,hkv=8,sq=900,skv=1800,d=64,causal=1,dtype=bf16", 64, 0},     // 320 192-row tiles
       }) {
    const Problem p = Problem::parse(c.problem);
    const Config config = heuristic_config(p, h100);
    EXPECT_EQ(config.at("block_m"), c.block_m) << c.problem;
    EXPECT_EQ(config.at("pack_gqa"), c.pack_gqa) << c.problem;
    EXPECT_EQ(invalid_reason(config, p, h100), std::nullopt) << c.problem;
  }
}

// skip_idle follows the problem: on where a causal head's last tile leaves a consumer warpgroup without rows
// (its rows are the queries, or queries x group when packed), off where the tiles are whole, the last one
// fills all but less than a warpgroup, the problem is not causal, or the tile has one warpgroup.
TEST(AttentionHeuristic, SkipIdleWhereAHeadsLastTileLeavesAWarpgroupWithoutRows) {
  const DeviceLimits h100 = DeviceLimits::for_target(runtime::Target::parse("sm_90a"));
  struct Case {
    const char* problem;
    int block_m, skip_idle;
  };
  for (const Case& c : {
           Case{"b=2,hq=32,sq=3136,skv=3136,d=64,causal=1,dtype=fp16", 192, 1},    // 64 rows of 192 last
           Case{"b=2,hq=32,sq=3176,skv=3176,d=64,causal=1,dtype=fp16", 192, 1},    // 104: one of three idle
           Case{"b=2,hq=32,sq=3226,skv=3226,d=64,causal=1,dtype=fp16", 192, 0},    // 154: all three have rows
           Case{"b=16,hq=16,sq=1050,skv=1050,d=128,causal=1,dtype=fp16", 128, 1},  // 26 of 128
           Case{"b=16,hq=16,sq=1000,skv=1000,d=128,causal=1,dtype=fp16", 128, 0},  // 104 of 128
           Case{"b=4,hq=16,sq=4096,skv=4096,d=128,causal=1,dtype=fp16", 128, 0},   // whole tiles
           Case{"b=8,hq=16,sq=1050,skv=1050,d=256,causal=1,dtype=bf16", 128, 1},
           Case{"b=1,hq=32,hkv=8,sq=4000,skv=4000,d=128,causal=1,dtype=bf16", 128, 0},  // packed: 16000 rows
           Case{"b=16,hq=16,sq=1050,skv=1050,d=128,causal=0,dtype=fp16", 128, 0},  // not causal
           Case{"b=16,hq=16,hkv=16,sq=1024,skv=1024,d=64,causal=1,dtype=fp16", 64, 0},  // one warpgroup
       }) {
    const Problem p = Problem::parse(c.problem);
    const Config config = heuristic_config(p, h100);
    EXPECT_EQ(config.at("block_m"), c.block_m) << c.problem;
    EXPECT_EQ(config.at("skip_idle"), c.skip_idle) << c.problem;
    EXPECT_EQ(invalid_reason(config, p, h100), std::nullopt) << c.problem;
  }
  // The rule refuses it where no warpgroup can be idle.
  const Problem non_causal = Problem::parse("b=1,hq=8,sq=1050,skv=1050,d=128,causal=0,dtype=fp16");
  const Problem causal = Problem::parse("b=1,hq=8,sq=1050,skv=1050,d=128,causal=1,dtype=fp16");
  const Config two = parse_config("mma=wgmma,block_m=128,warps=12,block_n=128,skip_idle=on");
  const Config one = parse_config("mma=wgmma,block_m=64,warps=8,block_n=128,skip_idle=on");
  EXPECT_NE(invalid_reason(two, non_causal, h100), std::nullopt);
  EXPECT_NE(invalid_reason(one, causal, h100), std::nullopt);
  EXPECT_EQ(invalid_reason(two, causal, h100), std::nullopt);
}

namespace {

// Compiles requests in parallel and returns CUBINs in order.
std::vector<runtime::CompileResult> compile_all(const std::vector<runtime::CompileRequest>& requests) {
  runtime::NvrtcCompiler compiler;
  runtime::CompilePool pool(compiler, 2);
  std::vector<std::future<runtime::CompileResult>> futures;
  for (const auto& r : requests) futures.push_back(pool.submit(r));
  std::vector<runtime::CompileResult> results;
  for (auto& f : futures) results.push_back(f.get());
  return results;
}

}  // namespace

// One test a target: both in one took 73 s in the sanitizer suite beside a second build on 2 cores.
class RepresentativeSampleCompiles : public ::testing::TestWithParam<const char*> {};

TEST_P(RepresentativeSampleCompiles, ForTarget) {
  const char* target = GetParam();
  struct Case {
    const char* config;
    const char* problem;
  };
  const Case cases[] = {
      {"", "b=1,hq=8,sq=512,d=128,dtype=fp16"},
      {"", "b=1,hq=32,hkv=8,sq=512,d=128,causal=1,dtype=bf16"},
      {"block_m=64,warps=4,block_n=32,stages=3,smem_layout=padded", "b=1,hq=8,sq=77,skv=1029,d=64,causal=1"},
      {"block_m=128,warps=4,barrier=full,vec_bytes=8", "b=2,hq=4,sq=1000,d=64,dtype=bf16"},
      {"mma=scalar,block_m=64,block_n=32,warps=4,stages=1", "b=1,hq=8,sq=512,d=128"},
      {"mma=scalar,block_m=32,block_n=32,warps=4,vec_bytes=4", "b=1,hq=8,sq=1,skv=300,d=64,causal=1,dtype=bf16"},
  };
  std::vector<runtime::CompileRequest> requests;
  for (const Case& c : cases) {
    Config config = parse_config(c.config);
    Problem problem = Problem::parse(c.problem);
    ASSERT_EQ(invalid_reason(config, problem, DeviceLimits::for_target(runtime::Target::parse(target))), std::nullopt)
        << c.config;
    requests.push_back(compile_request(config, problem, runtime::Target::parse(target)));
  }
  auto results = compile_all(requests);
  for (std::size_t i = 0; i < results.size(); ++i) {
    const auto& usage = results[i].resources_of(requests[i].name_expressions[0]);
    EXPECT_GT(usage.registers, 0) << requests[i].label;
    EXPECT_LE(usage.registers, 255) << requests[i].label;
    EXPECT_EQ(runtime::cubin_compute_capability(results[i].cubin), requests[i].target.compute_capability());
  }
}

INSTANTIATE_TEST_SUITE_P(AttentionCompile, RepresentativeSampleCompiles, ::testing::Values("sm_90a", "sm_80"),
                         [](const ::testing::TestParamInfo<const char*>& info) {
                           return std::string(info.param) == "sm_80" ? std::string("Ampere") : std::string("Hopper");
                         });

// The harness's own kernels (the random fill, both references, the baseline's softmax, the compare stages)
// compile for every head dim, dtype and causality, so that a kernel source NVRTC refuses fails here, on
// the CPU, and not first on the GPU (where the reference of d=256 once did: a constexpr helper without
// __device__).
TEST(AttentionCompile, TheHarnessUtilitiesCompileForEveryHeadDim) {
  std::vector<runtime::CompileRequest> requests;
  for (const char* text : {"b=1,hq=2,sq=64,d=64,causal=1,dtype=fp16", "b=1,hq=2,sq=64,d=128,causal=0,dtype=bf16",
                           "b=1,hq=2,sq=64,d=256,causal=1,dtype=bf16", "b=1,hq=2,sq=64,d=256,causal=0,dtype=fp16"}) {
    requests.push_back(harness::utility_request(Problem::parse(text), runtime::Target::parse("sm_90a")));
  }
  const auto results = compile_all(requests);
  for (std::size_t i = 0; i < results.size(); ++i) {
    for (const std::string& name : requests[i].name_expressions) {
      const runtime::ResourceUsage& usage = results[i].resources_of(name);
      EXPECT_GT(usage.registers, 0) << requests[i].label << ": " << name;
      // The reference's tiles are static shared memory: at most 48 KiB.
      EXPECT_LE(usage.shared_bytes, 48 * 1024) << requests[i].label << ": " << name;
    }
  }
}

namespace {

// For each (tunable, value), a base config paired with the same config at that value: every value of
// every tunable must change the generated code. The pairs compile in kTunableShards tests, each a disjoint
// part of them, so that no one test runs for minutes on a slow or loaded machine (one test took ~2 minutes
// alone and passed ctest's 300 s limit beside a second build on 2 cores; issue 48).
struct TunablePair {
  std::string what;
  Config a, b;
  Problem problem;
};
struct TunablePairs {
  std::vector<Config> bases;
  std::vector<TunablePair> pairs;
  std::vector<std::pair<std::string, int>> unpaired;  // values no base takes as they are
  std::size_t value_pairs = 0;  // the first pairs: those of the bases and o_store (not wgmma's min_ctas)
};
constexpr int kTunableShards = 6;

// Each test builds the same list: it is deterministic and compiles nothing.
void build_tunable_pairs(TunablePairs& out) {
  // Bases cover the two mainloops so that every value is valid against at least one of them.
  // GQA with a cache longer than the queries, so that pack_gqa and every split count are valid.
  const Problem problem = Problem::parse("b=1,hq=8,hkv=2,sq=512,skv=2048,d=64,causal=1");
  const DeviceLimits limits = DeviceLimits::for_target(runtime::Target::parse("sm_90a"));
  out.bases = {
      parse_config("mma=mma_sync,block_m=64,block_n=64,warps=4,stages=2,barrier=light,smem_layout=swizzled,"
                   "vec_bytes=16"),
      parse_config("mma=scalar,block_m=32,block_n=32,warps=4,stages=2,barrier=light,smem_layout=swizzled,vec_"
                   "bytes=16"),
      parse_config(
          "mma=mma_sync,block_m=128,block_n=32,warps=8,stages=3,barrier=full,smem_layout=padded,vec_bytes=8"),
      parse_config("mma=mma_sync,block_m=32,block_n=64,warps=4,stages=2,kv_warps=2,splits=2"),
      // wgmma's own tunables (pingpong, producer_regs) and its 192-row tile; a change goes through
      // attention::conform, as a search's does (block_m=192 brings warps=16 with it).
      parse_config("mma=wgmma,block_m=128,warps=12,block_n=64,stages=2,overlap=on"),
      // q_buffers exists for the persistent schedulers only.
      parse_config("mma=wgmma,block_m=128,warps=12,block_n=64,stages=2,overlap=on,scheduler=dynamic"),
  };
  for (const Parameter& param : parameters()) {
    for (int value : param.values) {
      bool paired = false;
      for (const Config& base : out.bases) {
        if (base.at(param.name) == value) continue;
        Config changed = base;
        changed.set(param.name, value);
        changed = conform(changed);
        if (changed.at(param.name) != value || invalid_reason(changed, problem, limits)) continue;
        out.pairs.push_back(
            {fmt::format("{}={} vs {}", param.name, param.format(value), format(base)), base, changed, problem});
        paired = true;
        break;
      }
      if (!paired) out.unpaired.emplace_back(param.name, value);
    }
  }
  // o_store=tma_half halves an output tile of several 64-column blocks: d >= 128, so at d=128 (a ring of one
  // column block) and d=256 (two), against the whole output tile.
  for (const char* text : {"b=1,hq=8,hkv=2,sq=512,skv=2048,d=128,causal=1", "b=1,hq=8,hkv=2,sq=512,skv=2048,d=256,causal=1"}) {
    const Problem wide = Problem::parse(text);
    const Config whole = parse_config("mma=wgmma,block_m=128,warps=12,block_n=64,stages=2,overlap=on,scheduler=dynamic,"
                                      "o_store=tma");
    Config half = whole;
    half.set("o_store", 2);
    ASSERT_EQ(invalid_reason(half, wide, limits), std::nullopt) << text;
    out.pairs.push_back({fmt::format("o_store=tma_half vs {} at {}", format(whole), text), whole, half, wide});
  }
  out.value_pairs = out.pairs.size();
  // min_ctas is paired above with an mma_sync base (the first that takes it); wgmma's own use of it (its
  // launch bounds and the setmaxnreg split of a CTA's share) must change that kernel too.
  const Config wgmma_one = parse_config("mma=wgmma,block_m=128,warps=12,block_n=64,stages=2,overlap=off,pingpong=on,"
                                        "producer_regs=24");
  Config wgmma_two = wgmma_one;
  wgmma_two.set("min_ctas", 2);
  ASSERT_EQ(invalid_reason(wgmma_two, problem, limits), std::nullopt);
  out.pairs.push_back({"min_ctas=2 vs " + format(wgmma_one), wgmma_one, wgmma_two, problem});
}

std::string tunable_compile_key(const Problem& p, const Config& c) { return p.to_string() + " " + c.key(); }

// A rough cost of compiling a kernel, in seconds of one NVRTC thread: the scalar mainloop unrolls each
// thread's whole share of the tile (20-26 s at 32 elements a thread, 3 s at 8), the others take 1.5-3 s.
double compile_cost(const Config& c) {
  if (c.at("mma") != kScalar) return 2;
  const double per_thread = c.at("block_m") * c.at("block_n") / (32.0 * c.at("warps"));
  return 0.5 + 0.12 * std::pow(per_thread, 1.5);
}

// The shard of each pair, in the order of `pairs`. Pairs are placed costliest first, each in the shard
// that is least loaded once it is added, counting only the compiles it adds there (a config that shard
// already compiles costs nothing), so the shards take about the same time.
std::vector<int> tunable_shards(const std::vector<TunablePair>& pairs) {
  const auto pair_cost = [](const TunablePair& p) { return compile_cost(p.a) + compile_cost(p.b); };
  std::vector<std::size_t> order(pairs.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t x, std::size_t y) { return pair_cost(pairs[x]) > pair_cost(pairs[y]); });
  std::vector<std::set<std::string>> compiled(kTunableShards);
  std::vector<double> load(kTunableShards, 0);
  std::vector<int> shard_of(pairs.size(), -1);
  for (std::size_t i : order) {
    const TunablePair& p = pairs[i];
    int best = 0;
    double best_load = 0;
    for (int s = 0; s < kTunableShards; ++s) {
      double after = load[static_cast<std::size_t>(s)];
      for (const Config* c : {&p.a, &p.b}) {
        if (compiled[static_cast<std::size_t>(s)].count(tunable_compile_key(p.problem, *c)) == 0) after += compile_cost(*c);
      }
      if (s == 0 || after < best_load) {
        best = s;
        best_load = after;
      }
    }
    for (const Config* c : {&p.a, &p.b}) compiled[static_cast<std::size_t>(best)].insert(tunable_compile_key(p.problem, *c));
    load[static_cast<std::size_t>(best)] = best_load;
    shard_of[i] = best;
  }
  return shard_of;
}

}  // namespace

// Every value must be usable somewhere: a value valid with no base would be a dead knob. A value another
// change fixes (warps under wgmma) counts when one of the pairs or bases has it.
TEST(AttentionCompile, EveryValueOfEveryTunableIsPairedOrUsed) {
  TunablePairs t;
  ASSERT_NO_FATAL_FAILURE(build_tunable_pairs(t));
  for (const auto& [name, value] : t.unpaired) {
    const auto has = [&](const Config& c) { return c.at(name) == value; };
    EXPECT_TRUE(std::any_of(t.bases.begin(), t.bases.end(), has) ||
                std::any_of(t.pairs.begin(), t.pairs.begin() + static_cast<std::ptrdiff_t>(t.value_pairs),
                            [&](const TunablePair& p) { return has(p.b); }))
        << name << "=" << value << " is valid with none of the bases";
  }
  EXPECT_GE(t.pairs.size(), 16u);
  // Every pair is compared by exactly one shard, and every shard compares some.
  const std::vector<int> shard_of = tunable_shards(t.pairs);
  ASSERT_EQ(shard_of.size(), t.pairs.size());
  std::vector<int> pairs_in(kTunableShards, 0);
  for (int s : shard_of) {
    ASSERT_TRUE(s >= 0 && s < kTunableShards) << s;
    ++pairs_in[static_cast<std::size_t>(s)];
  }
  for (int s = 0; s < kTunableShards; ++s) EXPECT_GT(pairs_in[static_cast<std::size_t>(s)], 0) << "shard " << s;
}

class EveryValueOfEveryTunableChangesTheCode : public ::testing::TestWithParam<int> {};

// Shard n compiles the pairs tunable_shards() gives it; each distinct (problem, config) of the shard
// compiles once (the bases recur in many pairs, and may recur in several shards).
TEST_P(EveryValueOfEveryTunableChangesTheCode, Shard) {
  TunablePairs t;
  ASSERT_NO_FATAL_FAILURE(build_tunable_pairs(t));
  const std::vector<int> shard_of = tunable_shards(t.pairs);
  std::vector<const TunablePair*> mine;
  std::vector<runtime::CompileRequest> requests;
  std::map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < t.pairs.size(); ++i) {
    if (shard_of[i] != GetParam()) continue;
    const TunablePair& p = t.pairs[i];
    mine.push_back(&p);
    for (const Config* c : {&p.a, &p.b}) {
      if (index.emplace(tunable_compile_key(p.problem, *c), requests.size()).second) {
        requests.push_back(compile_request(*c, p.problem, runtime::Target::parse("sm_90a")));
      }
    }
  }
  ASSERT_FALSE(mine.empty()) << "shard " << GetParam() << " has no pairs";
  const auto results = compile_all(requests);
  for (const TunablePair* p : mine) {
    EXPECT_NE(results[index.at(tunable_compile_key(p->problem, p->a))].cubin,
              results[index.at(tunable_compile_key(p->problem, p->b))].cubin)
        << p->what << ": identical CUBIN";
  }
}

INSTANTIATE_TEST_SUITE_P(AttentionCompile, EveryValueOfEveryTunableChangesTheCode, ::testing::Range(0, kTunableShards));

// The default search space leaves out configs certain to spill (attention::excluded_by_default). Held to
// every mma_sync config compiled for sm_90a in the committed H100 searches: it never names one that
// compiled without spills, and it does name a good share of those that spilled.
TEST(AttentionFamily, CertainSpillRuleNeverExcludesAKernelThatCompiledCleanly) {
  const DeviceLimits limits = DeviceLimits::for_target(runtime::Target::parse("sm_90a"));
  int clean = 0, spilled = 0, named = 0;
  for (const char* db : {"evidence/results/h100/issue4-search/search_fp16/search.db",
                         "evidence/results/h100/issue4-search/search_bf16/search.db",
                         "evidence/results/h100/issue5-deploy/deploy.db",
                         "evidence/results/h100/search-throughput/call2_ed33d1a/search.db"}) {
    evotune::evidence::Store store((evotune::testing::source_dir() / db).string(), evotune::evidence::Store::Mode::read_only);
    for (const auto& run : store.runs()) {
      const attention::Problem problem = attention::Problem::parse(run.problem);
      for (const auto& t : store.trials(run.id)) {
        if (t.resources_json.empty() || t.config.rfind("mma=mma_sync", 0) != 0) continue;
        const runtime::ResourceUsage usage = runtime::resource_usage_from_json(nlohmann::json::parse(t.resources_json));
        const Config config = attention::parse_config(t.config);
        const std::optional<std::string> why = attention::excluded_by_default(config, problem, limits);
        if (attention::rejected_resources(usage)) {
          ++spilled;
          named += why.has_value();
        } else {
          ++clean;
          EXPECT_FALSE(why.has_value()) << t.config << " on " << run.problem << " compiled to " << usage.registers
                                        << " registers without spills, but: " << *why;
          EXPECT_LE(attention::mma_live_registers(config, problem) + 16, attention::register_budget(config, limits))
              << t.config;
        }
      }
    }
  }
  EXPECT_GT(clean, 500);
  EXPECT_GT(spilled, 100);
  EXPECT_GT(named, spilled / 4) << named << " of " << spilled << " spilling configs named";
  RecordProperty("spilling_configs_named", fmt::format("{} of {}", named, spilled));
}

// The wgmma half of the certain-spill rule against the sweeps it was drawn from (scripts/wgmma_spill_sweep.sh:
// 196 configs compiled for sm_90a, causal and non-causal): it never leaves out a config that compiled cleanly,
// and it names most of those that spilled.
TEST(AttentionWgmma, CertainSpillRuleMatchesTheSweep) {
  const DeviceLimits h100 = DeviceLimits::for_target(runtime::Target::parse("sm_90a"));
  // Each sweep: its file, causality, how many configs the rules accept, and a count the spilling ones exceed.
  struct Sweep {
    std::string file;
    int causal, valid, least_spilled;
  };
  for (const auto& [file, causal, valid, least_spilled] :
       {Sweep{"tests/data/wgmma_spills_sm90a.txt", 1, 190, 40}, Sweep{"tests/data/wgmma_spills_sm90a_noncausal.txt", 0, 190, 40},
        Sweep{"tests/data/wgmma_spills_sm90a_d256.txt", 1, 26, 5},
        Sweep{"tests/data/wgmma_spills_sm90a_d256_noncausal.txt", 0, 26, 5}}) {
    std::ifstream in(evotune::testing::source_dir() / file);
    ASSERT_TRUE(in) << file;
    std::string line;
    int clean = 0, spilled = 0, named = 0;
    while (std::getline(in, line)) {
      if (line.empty() || line[0] == '#') continue;
      std::istringstream fields(line);
      int d = 0, block_m = 0, block_n = 0, producer_regs = 0, overlap = 0;
      std::string stored;
      fields >> d >> block_m >> block_n >> producer_regs >> overlap >> stored;
      if (stored == "invalid") continue;  // refused by the rules (shared memory): never compiled
      const Problem p = Problem::parse(fmt::format("b=1,hq=8,sq=2048,d={},causal={},dtype=bf16", d, causal));
      const Config c = parse_config(fmt::format("mma=wgmma,block_m={},block_n={},stages=2,producer_regs={},overlap={},"
                                                "pingpong={}",
                                                block_m, block_n, producer_regs, overlap ? "on" : "off",
                                                block_m >= 128 ? "on" : "off"));
      ASSERT_EQ(invalid_reason(c, p, h100), std::nullopt) << file << ": " << line;
      const bool excluded = excluded_by_default(c, p, h100).has_value();
      if (stored == "0") {
        ++clean;
        EXPECT_FALSE(excluded) << file << ": " << line << ": compiled without spills, but the rule leaves it out";
      } else {  // spilled, or "error": ptxas gave up on it (wgmma serialized for want of registers)
        ++spilled;
        named += excluded;
      }
    }
    EXPECT_EQ(clean + spilled, valid) << file;
    EXPECT_GT(spilled, least_spilled) << file;
    EXPECT_GE(named * 10, spilled * 9) << file << ": " << named << " of " << spilled << " spilling configs named";
  }
}

// mma=wgmma: a change of block_m or mma carries the tunables it fixes (attention::conform), the rules accept
// only conformed configs, and a search's sampling reaches wgmma configs.
TEST(AttentionWgmma, ConformFixesWarpsAndTheCpAsyncTunables) {
  const DeviceLimits h100 = DeviceLimits::for_target(runtime::Target::parse("sm_90a"));
  const Problem p = Problem::parse("b=2,hq=16,sq=2048,d=128");
  Config c = conform(parse_config("mma=wgmma,block_m=192,warps=4,vec_bytes=8,q_frags=regs,kv_warps=2"));
  EXPECT_EQ(c.at("warps"), 16);
  EXPECT_EQ(c.at("vec_bytes"), default_config().at("vec_bytes"));
  EXPECT_EQ(c.at("q_frags"), default_config().at("q_frags"));
  EXPECT_EQ(c.at("kv_warps"), 1);
  EXPECT_EQ(conform(c), c);
  EXPECT_EQ(invalid_reason(c, p, h100), std::nullopt);
  // Not conformed: refused, with the reason.
  Config wrong = c;
  wrong.set("warps", 8);
  EXPECT_NE(invalid_reason(wrong, p, h100), std::nullopt);
  wrong = c;
  wrong.set("vec_bytes", 8);
  EXPECT_NE(invalid_reason(wrong, p, h100)->find("vec_bytes"), std::string::npos);
  // A config text gets what its named tunables fix; a named value stays as written (and the rules judge it).
  EXPECT_EQ(parse_config("mma=wgmma,block_m=128").at("warps"), 12);
  EXPECT_EQ(parse_config("mma=wgmma,block_m=128,warps=8").at("warps"), 8);
  EXPECT_EQ(parse_config(format(c)), c);
  // The other mainloops do not have wgmma's tunables.
  Config mma = conform(parse_config("mma=mma_sync,pingpong=on,producer_regs=24,scheduler=dynamic"));
  EXPECT_EQ(mma.at("pingpong"), 0);
  EXPECT_EQ(mma.at("producer_regs"), 0);
  EXPECT_EQ(mma.at("scheduler"), kGridScheduler);
  Config unconformed = parse_config("mma=mma_sync");
  unconformed.set("scheduler", kPersistentScheduler);
  EXPECT_NE(invalid_reason(unconformed, p, h100)->find("scheduler is a wgmma tunable"), std::string::npos);
  // wgmma is sm_90a's: refused for sm_80 and sm_100.
  for (const char* target : {"sm_80", "sm_100"}) {
    EXPECT_NE(invalid_reason(c, p, DeviceLimits::for_target(runtime::Target::parse(target))), std::nullopt) << target;
  }
  // Rules of the kernel's shape.
  EXPECT_NE(invalid_reason(conform(parse_config("mma=wgmma,block_m=64,pingpong=on")), p, h100), std::nullopt);
  EXPECT_NE(invalid_reason(conform(parse_config("mma=wgmma,block_m=64,producer_regs=24")), p, h100), std::nullopt);
  EXPECT_NE(invalid_reason(conform(parse_config("mma=wgmma,block_m=128,stages=1")), p, h100), std::nullopt);
  EXPECT_NE(invalid_reason(conform(parse_config("mma=wgmma,block_m=256")), p, h100), std::nullopt);
  const Problem gqa6 = Problem::parse("b=1,hq=12,hkv=2,sq=100,skv=800,d=64");
  EXPECT_NE(invalid_reason(conform(parse_config("mma=wgmma,block_m=128,pack_gqa=on")), gqa6, h100), std::nullopt);
  EXPECT_EQ(invalid_reason(conform(parse_config("mma=wgmma,block_m=192,pack_gqa=on")), gqa6, h100), std::nullopt);
  // Shared memory: 192 x 176 keys x 4 stages of d=128 does not fit.
  EXPECT_NE(invalid_reason(conform(parse_config("mma=wgmma,block_m=192,block_n=176,stages=4")), p, h100), std::nullopt);
}

// The persistent schedulers launch one CTA per SM, never more than there are tiles, and scheduler=dynamic
// has its tile counter after the split partials in the workspace.
TEST(AttentionWgmma, PersistentSchedulersLaunchOneCtaPerSmAndDynamicHasItsCounter) {
  const DeviceLimits h100 = DeviceLimits::for_target(runtime::Target::parse("sm_90a"));
  ASSERT_EQ(h100.sm_count, 132);
  const Problem big = Problem::parse("b=4,hq=16,sq=4096,d=128");  // 32 query tiles x 64 heads
  const std::string base = "mma=wgmma,block_m=128,block_n=128,stages=2,overlap=on,pingpong=on,producer_regs=24";
  const LaunchPlan grid = launch_plan(parse_config(base), big, h100);
  EXPECT_EQ(grid.kernel.grid[0] * grid.kernel.grid[1] * grid.kernel.grid[2], 2048u);
  EXPECT_EQ(grid.counters, 0u);
  for (const char* scheduler : {"persistent", "dynamic"}) {
    const LaunchPlan plan = launch_plan(parse_config(base + ",scheduler=" + scheduler), big, h100);
    EXPECT_EQ(plan.kernel.grid[0], 132u) << scheduler;
    EXPECT_EQ(plan.kernel.grid[1] * plan.kernel.grid[2], 1u) << scheduler;
  }
  // Fewer tiles than SMs: one CTA each.
  const Problem small = Problem::parse("b=1,hq=8,sq=300,d=128");  // 3 x 8 tiles
  EXPECT_EQ(launch_plan(parse_config(base + ",scheduler=persistent"), small, h100).kernel.grid[0], 24u);
  // dynamic: one counter, unsplit at the workspace's start, split after the partials.
  const LaunchPlan dynamic = launch_plan(parse_config(base + ",scheduler=dynamic"), big, h100);
  EXPECT_EQ(dynamic.counters, 1u);
  EXPECT_EQ(dynamic.workspace_bytes, 4u);
  AttentionParams params{};
  params.b = 4, params.hq = 16, params.hkv = 16, params.sq = 4096, params.skv = 4096;
  bind_workspace(params, dynamic, 128, 0x10000);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(params.counters), 0x10000u);
  EXPECT_EQ(params.partial_o, nullptr);
  const LaunchPlan split = launch_plan(parse_config(base + ",splits=3,scheduler=dynamic"), big, h100);
  EXPECT_EQ(split.workspace_bytes, split_workspace_bytes(big, 3) + 4);
  bind_workspace(params, split, 128, 0x10000);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(params.counters), 0x10000u + split_workspace_bytes(big, 3));
}

// tile_order=sections: the launch plan sizes a section by the KV heads whose K and V fit in a third of L2,
// the sections that takes cut evenly (times the group where the CTAs' heads are query heads); the kernels'
// order (params.h's section_order_tile over set_sections' divisors) visits every (query tile, pair) exactly
// once, each section's tiles x-major over its pairs, a short last section included; one pair a section is
// the order of tile_order=heads.
TEST(AttentionWgmma, TileOrderSectionsVisitsEveryTileOnceSectionBySection) {
  const DeviceLimits h100 = DeviceLimits::for_target(runtime::Target::parse("sm_90a"));
  ASSERT_EQ(h100.l2_bytes, 50 * 1024 * 1024);
  const std::string base =
      "mma=wgmma,block_m=128,block_n=128,stages=2,overlap=on,scheduler=dynamic,q_buffers=2,producer_regs=32";
  struct Case {
    const char* problem;
    const char* extra;
    int section_heads;
  };
  for (const Case& c : std::initializer_list<Case>{
           {"b=4,hq=16,sq=4096,d=128,causal=1", "", 8},  // 2 MiB of K/V a head: 8 fit 16.7 MiB
           {"b=2,hq=32,hkv=4,sq=8192,d=128,causal=1", ",pack_gqa=on", 4},  // 4 MiB: 4 fit, two sections of 8
           {"b=1,hq=32,hkv=8,sq=4096,d=128,causal=1", ",pack_gqa=on", 8},  // 8 fit: one section
           {"b=6,hq=24,hkv=3,sq=4352,d=128,causal=1", "", 48},  // 7 KV heads fit: 18 in three sections of 6
           {"b=1,hq=8,sq=80000,d=128,causal=1", "", 1},  // 39 MiB of K/V: one head
       }) {
    const Problem p = Problem::parse(c.problem);
    const Config heads = parse_config(base + c.extra);
    Config sections = heads;
    sections.set("tile_order", 1);
    ASSERT_EQ(invalid_reason(sections, p, h100), std::nullopt) << c.problem;
    EXPECT_EQ(launch_plan(heads, p, h100).section_heads, 1) << c.problem;
    EXPECT_EQ(launch_plan(sections, p, h100).section_heads, c.section_heads) << c.problem;
    AttentionParams params{};
    bind_workspace(params, launch_plan(sections, p, h100), p.d, 0x10000);
    EXPECT_EQ(params.section_heads, c.section_heads) << c.problem;
  }
  // stream_k costs its tail in heads' order.
  const Problem p = Problem::parse("b=4,hq=16,sq=4096,d=128,causal=1");
  const Config stream_k = parse_config(
      "mma=wgmma,block_m=128,block_n=128,stages=2,overlap=on,scheduler=stream_k,tile_order=sections");
  EXPECT_NE(invalid_reason(stream_k, p, h100), std::nullopt);
  // The order itself, over extents that divide and that do not.
  for (const auto& [x_extent, pairs, section] : std::initializer_list<std::tuple<int, int, int>>{
           {32, 64, 16}, {32, 64, 1}, {7, 10, 4}, {1, 5, 8}, {13, 37, 37}, {5, 37, 64}, {96, 3, 2}}) {
    TmaAttentionParams args{};
    args.x_extent = make_fast_divisor(x_extent);
    set_sections(args, pairs, section);
    const int s = std::min(section, pairs);
    std::vector<int> seen(static_cast<std::size_t>(x_extent) * pairs, 0);
    for (int index = 0; index < x_extent * pairs; ++index) {
      const TileCoordinates t = section_order_tile(index, args);
      ASSERT_TRUE(t.x >= 0 && t.x < x_extent && t.yz >= 0 && t.yz < pairs)
          << x_extent << "x" << pairs << " in " << section << ": index " << index;
      ++seen[static_cast<std::size_t>(t.yz) * x_extent + t.x];
      // Section index / (s x x_extent), its pairs consecutive, x-major within it.
      const int section_index = index / (s * x_extent), first = section_index * s;
      const int heads = std::min(s, pairs - first), within = index - section_index * s * x_extent;
      EXPECT_EQ(t.x, within / heads) << index;
      EXPECT_EQ(t.yz, first + within % heads) << index;
      if (s == 1) {
        EXPECT_EQ(t.yz * x_extent + t.x, index) << "one pair a section is heads' order";
      }
    }
    EXPECT_TRUE(std::all_of(seen.begin(), seen.end(), [](int n) { return n == 1; }))
        << x_extent << "x" << pairs << " in sections of " << section;
  }
}

// The default takes tile_order=sections where the list-scheduling model of the CTAs taking causal tiles as
// they come free (modeled_busiest_slot) puts the busiest slot 10% lower than heads' order, or 5% where a head
// has 8 query tiles or more: long causal prefill of few heads per wave (the issue's b4 hq16 s4096 d128 row,
// whose last heads' long tiles ended the launch), short causal grids with a long tail; not non-causal tiles
// (all alike), packed GQA over long ranges (fine tiles already balance), smaller gains (L2 can cost more:
// b49 hq48 s512 d64, b25 hq64 s152 d64), or decode.
TEST(AttentionWgmma, DefaultTakesSectionsWhereTheTailModelGains) {
  const DeviceLimits h100 = DeviceLimits::for_target(runtime::Target::parse("sm_90a"));
  for (const auto& [text, order] : std::initializer_list<std::pair<const char*, int>>{
           {"b=4,hq=16,sq=4096,d=128,causal=1", 1},
           {"b=1,hq=40,sq=3392,d=128,causal=1,dtype=bf16", 1},
           {"b=2,hq=24,sq=1536,d=64,causal=1", 1},
           {"b=4,hq=16,sq=4096,d=128,causal=0", 0},
           {"b=1,hq=32,hkv=8,sq=4096,d=128,causal=1,dtype=bf16", 0},
           {"b=47,hq=32,sq=682,d=128,causal=1", 0},
           {"b=49,hq=48,sq=512,d=64,causal=1", 0},  // 2.5%: its L2 cost was 11.5% (probe/call149)
           {"b=25,hq=64,sq=152,d=64,causal=1,dtype=bf16", 0},  // 6.7% over 3 tiles a head: 15% slower
           {"b=4,hq=32,hkv=4,sq=277,d=128,causal=1,dtype=bf16", 1},  // 18% over 3 tiles a head: 11% faster
           {"b=2,hq=32,hkv=8,sq=1,skv=4096,d=128,causal=1", 0},
       }) {
    EXPECT_EQ(heuristic_config(Problem::parse(text), h100).at("tile_order"), order) << text;
  }
}

// scheduler=stream_k launches a CTA on every SM, also for fewer tiles than SMs (the whole problem is then
// the tail, cut over all of them), with two partial slots of block_m rows per CTA at the workspace's start and
// a counter per possible tail tile after them; it is its own split, and its 32-bit arithmetic has a limit.
TEST(AttentionWgmma, StreamKLaunchesEverySmWithTwoSlotsPerCta) {
  const DeviceLimits h100 = DeviceLimits::for_target(runtime::Target::parse("sm_90a"));
  const std::string base = "mma=wgmma,block_m=128,block_n=128,stages=2,overlap=on,pingpong=on,producer_regs=32";
  for (const char* text : {"b=4,hq=16,sq=4096,d=128", "b=1,hq=4,sq=300,skv=5000,d=128,causal=1"}) {
    const Problem p = Problem::parse(text);
    const Config c = parse_config(base + ",scheduler=stream_k");
    ASSERT_EQ(invalid_reason(c, p, h100), std::nullopt) << text;
    const LaunchPlan plan = launch_plan(c, p, h100);
    EXPECT_EQ(plan.kernel.grid[0], 132u) << text;
    EXPECT_EQ(plan.kernel.grid[1] * plan.kernel.grid[2], 1u);
    EXPECT_EQ(plan.stream_k_slots, 264u);
    EXPECT_EQ(plan.slot_rows, 128);
    EXPECT_EQ(plan.counters, 132u);
    const std::size_t slot_bytes = 264u * 128u * (128u + 1u) * 4u;
    EXPECT_EQ(plan.workspace_bytes, slot_bytes + 132u * 4u);
    AttentionParams params{};
    params.b = p.b, params.hq = p.hq, params.hkv = p.hkv, params.sq = p.sq, params.skv = p.skv;
    bind_workspace(params, plan, p.d, 0x10000);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(params.partial_o), 0x10000u);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(params.partial_lse), 0x10000u + 264u * 128u * 128u * 4u);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(params.counters), 0x10000u + slot_bytes);
    EXPECT_EQ(params.splits, 1);
  }
  const Problem p = Problem::parse("b=4,hq=16,sq=4096,d=128");
  EXPECT_NE(invalid_reason(parse_config(base + ",scheduler=stream_k,splits=2"), p, h100), std::nullopt);
  EXPECT_NE(invalid_reason(parse_config(base + ",scheduler=stream_k,splits=auto"), p, h100), std::nullopt);
  // 133 x 132 x ceil(skv / 128) blocks past 2^31: refused, with the reason.
  const Problem long_kv = Problem::parse("b=1,hq=1,sq=128,skv=16000000,d=128");
  const std::optional<std::string> why = invalid_reason(parse_config(base + ",scheduler=stream_k"), long_kv, h100);
  ASSERT_NE(why, std::nullopt);
  EXPECT_NE(why->find("32-bit"), std::string::npos) << *why;
}

// min_ctas with wgmma: the CTAs an SM holds. The persistent schedulers launch that many per SM, the
// consumers' setmaxnreg count comes from one CTA's share of the register file, and the rules refuse what
// does not fit the SM (shared memory, threads) or a wgmma wider than the launch's register count.
// o_store=tma: an output tile of block_m x d in shared memory (tma_half: half of it, d >= 128), whole tiles only
// (not stream_k's pieces), and with packed GQA a warpgroup's 64 rows must be whole groups (one TMA box).
TEST(AttentionWgmma, TmaStoreTakesAnOutputTileOfWholeRows) {
  const DeviceLimits h100 = DeviceLimits::for_target(runtime::Target::parse("sm_90a"));
  const Problem p = Problem::parse("b=2,hq=16,hkv=4,sq=1000,d=64,causal=1,dtype=fp16");
  const Config threads = parse_config("mma=wgmma,block_m=128,warps=12,block_n=128,stages=2,overlap=on,scheduler=dynamic");
  Config tma = threads;
  tma.set("o_store", 1);
  EXPECT_EQ(shared_bytes(tma, p) - shared_bytes(threads, p), 128 * 64 * 2);
  EXPECT_EQ(invalid_reason(tma, p, h100), std::nullopt);
  Config stream_k = tma;
  stream_k.set("scheduler", kStreamKScheduler);
  EXPECT_NE(invalid_reason(stream_k, p, h100), std::nullopt);
  Config packed = tma;
  packed.set("pack_gqa", 1);
  EXPECT_EQ(invalid_reason(packed, p, h100), std::nullopt);  // groups of 4 fill 64 rows
  EXPECT_NE(invalid_reason(packed, Problem::parse("b=2,hq=12,hkv=4,sq=1000,d=64,causal=1,dtype=fp16"), h100),
            std::nullopt);  // groups of 3 do not
  // The largest d=128 tiles no longer fit beside it: 128 rows, two Q buffers, 160-key blocks.
  const Problem d128 = Problem::parse("b=4,hq=16,sq=4096,d=128,causal=0,dtype=fp16");
  Config big = parse_config("mma=wgmma,block_m=128,warps=12,block_n=160,stages=2,overlap=on,scheduler=dynamic,q_buffers=2");
  EXPECT_EQ(invalid_reason(big, d128, h100), std::nullopt);
  big.set("o_store", 1);
  EXPECT_NE(invalid_reason(big, d128, h100), std::nullopt);
  // tma_half: half the head dim's 64-column blocks, so d >= 128. At d=256 it fits where the whole output tile
  // does not: 128 rows, 64-key blocks in two slots (Q 64 KiB + 32 + 4 x 32 = 224 KiB of the H100's 227).
  Config half = tma;
  half.set("o_store", 2);
  EXPECT_NE(invalid_reason(half, p, h100), std::nullopt);  // d=64: one column block
  EXPECT_EQ(shared_bytes(half, d128) - shared_bytes(threads, d128), 128 * 64 * 2);
  const Problem d256 = Problem::parse("b=8,hq=16,sq=1024,d=256,causal=1,dtype=fp16");
  EXPECT_EQ(shared_bytes(half, d256) - shared_bytes(threads, d256), 128 * 128 * 2);
  Config d256_half = parse_config("mma=wgmma,block_m=128,warps=12,block_n=64,stages=2,overlap=on,scheduler=dynamic,"
                                  "o_store=tma_half");
  EXPECT_EQ(invalid_reason(d256_half, d256, h100), std::nullopt);
  d256_half.set("o_store", 1);
  EXPECT_NE(invalid_reason(d256_half, d256, h100), std::nullopt);
  Config packed_half = half;
  packed_half.set("pack_gqa", 1);
  EXPECT_NE(invalid_reason(packed_half, Problem::parse("b=2,hq=12,hkv=4,sq=1000,d=128,causal=1,dtype=fp16"), h100),
            std::nullopt);  // as tma: groups of 3 do not fill a warpgroup's 64 rows
}

TEST(AttentionWgmma, MinCtasSharesTheSmAndItsRegisters) {
  const DeviceLimits h100 = DeviceLimits::for_target(runtime::Target::parse("sm_90a"));
  const Problem p = Problem::parse("b=16,hq=16,sq=1024,d=64,causal=1");
  const std::string base = "mma=wgmma,block_m=128,block_n=64,stages=2,overlap=off,pingpong=on,producer_regs=24";
  EXPECT_EQ(wgmma_consumer_registers(parse_config(base)), 240);                // (168 x 384 - 24 x 128) / 256
  EXPECT_EQ(wgmma_consumer_registers(parse_config(base + ",min_ctas=2")), 104);  // (80 x 384 - 24 x 128) / 256
  EXPECT_EQ(wgmma_consumer_registers(parse_config("mma=wgmma,block_m=64,min_ctas=2")), 128);  // no setmaxnreg
  EXPECT_EQ(wgmma_consumer_registers(parse_config("mma=wgmma,block_m=64")), 255);
  // One consumer warpgroup per CTA, two CTAs per SM: the launch gives 128 registers, setmaxnreg moves the
  // producer's to the consumer: (128 x 256 - 24 x 128) / 128. Alone on an SM it has 255 already: refused.
  const Config one_consumer =
      parse_config("mma=wgmma,block_m=64,block_n=128,stages=2,overlap=on,producer_regs=24,min_ctas=2,scheduler=dynamic");
  EXPECT_EQ(wgmma_consumer_registers(one_consumer), 232);
  EXPECT_EQ(invalid_reason(one_consumer, p, h100), std::nullopt);
  EXPECT_EQ(excluded_by_default(one_consumer, p, h100), std::nullopt);  // 128 live of 232
  Config alone = one_consumer;
  alone.set("min_ctas", 1);
  const std::optional<std::string> has_all = invalid_reason(alone, p, h100);
  ASSERT_NE(has_all, std::nullopt);
  EXPECT_NE(has_all->find("already has 255 registers"), std::string::npos) << *has_all;
  Config no_move = one_consumer;
  no_move.set("producer_regs", 0);
  EXPECT_NE(excluded_by_default(no_move, p, h100), std::nullopt);  // 128 live of the launch's 128: certain to spill
  for (const char* scheduler : {"persistent", "dynamic", "stream_k"}) {
    const Config c = parse_config(base + ",min_ctas=2,scheduler=" + scheduler);
    ASSERT_EQ(invalid_reason(c, p, h100), std::nullopt) << scheduler;
    EXPECT_EQ(launch_plan(c, p, h100).kernel.grid[0], 264u) << scheduler;
  }
  EXPECT_EQ(launch_plan(parse_config(base + ",min_ctas=2,scheduler=stream_k"), p, h100).stream_k_slots, 528u);
  // The grid scheduler's grid is the tiles', whatever min_ctas.
  EXPECT_EQ(launch_plan(parse_config(base + ",min_ctas=2"), p, h100).kernel.grid[0], 8u);
  // Two CTAs of 192 x 176 keys x 2 stages of d=128 (~160 KiB each) do not fit an SM's 228 KiB.
  const Problem d128 = Problem::parse("b=4,hq=16,sq=4096,d=128");
  const std::optional<std::string> smem =
      invalid_reason(parse_config("mma=wgmma,block_m=192,block_n=176,stages=2,min_ctas=2"), d128, h100);
  ASSERT_NE(smem, std::nullopt);
  EXPECT_NE(smem->find("shared memory exceed the SM"), std::string::npos) << *smem;
  // ptxas fits each wgmma within the launch's count (80 at 384 threads x 2): 64 accumulators do not fit.
  const std::optional<std::string> wide = invalid_reason(parse_config(
      "mma=wgmma,block_m=128,block_n=128,stages=2,overlap=off,pingpong=on,producer_regs=24,min_ctas=2"), p, h100);
  ASSERT_NE(wide, std::nullopt);
  EXPECT_NE(wide->find("a wgmma of 64 accumulators needs ~94 registers, the launch gives 80"), std::string::npos)
      << *wide;
  EXPECT_NE(invalid_reason(parse_config(base + ",min_ctas=2"), d128, h100), std::nullopt);  // d=128's P.V
}

// The kernel's template argument is one struct with every tunable by name, so the kernel reads each by name
// and a new tunable needs no positional list kept in step on both sides.
TEST(AttentionWgmma, TheKernelReadsEveryTunableByNameFromOneStruct) {
  const Problem p = Problem::parse("b=1,hq=2,sq=64,d=64,causal=1,dtype=bf16");
  const Config c = parse_config("mma=wgmma,block_m=128,block_n=96,stages=3,overlap=on,scheduler=dynamic");
  const std::string text = tunables_struct(c, p);
  EXPECT_NE(text.find("struct AttentionTunables {"), std::string::npos) << text;
  EXPECT_NE(text.find("using T = __nv_bfloat16;"), std::string::npos) << text;
  EXPECT_NE(text.find("static constexpr int d = 64;"), std::string::npos) << text;
  EXPECT_NE(text.find("static constexpr bool causal = true;"), std::string::npos) << text;
  for (const Parameter& param : parameters()) {
    EXPECT_NE(text.find(fmt::format("static constexpr int {} = {};", param.name, c.at(param.name))), std::string::npos)
        << param.name;
  }
  EXPECT_EQ(name_expression(c, p), "attention_fwd_wgmma<AttentionTunables>");
  EXPECT_EQ(name_expression(parse_config("mma=mma_sync"), p), "attention_fwd<AttentionTunables>");
  const runtime::CompileRequest request = compile_request(c, p, runtime::Target::parse("sm_90a"));
  EXPECT_NE(request.source.find(text), std::string::npos);
}

TEST(AttentionWgmma, TheSearchSpaceReachesWgmmaConfigs) {
  const DeviceLimits h100 = DeviceLimits::for_target(runtime::Target::parse("sm_90a"));
  const auto family = evotune::families::make_attention_family();
  const search::SearchSpace space =
      search::family_search_space(*family, family->parse_problem("b=4,hq=16,sq=4096,d=128"), h100);
  search::Rng rng(7);
  int wgmma = 0;
  for (int i = 0; i < 200; ++i) {
    const std::optional<Config> c = space.sample(rng);
    ASSERT_TRUE(c.has_value());
    EXPECT_EQ(conform(*c), *c);
    wgmma += c->at("mma") == kWgmma;
  }
  EXPECT_GT(wgmma, 20) << "of 200 samples";
  // One step from an mma_sync config to wgmma, and between wgmma's tile heights.
  const Config start = parse_config("mma=mma_sync,block_m=128,block_n=64,warps=8,stages=2");
  const auto steps = space.neighbours(conform(parse_config("mma=wgmma,block_m=128,block_n=128,stages=2")));
  EXPECT_TRUE(std::any_of(steps.begin(), steps.end(), [](const Config& c) { return c.at("block_m") == 64 && c.at("warps") == 8; }));
  const auto from_mma = space.neighbours(start);
  EXPECT_TRUE(std::any_of(from_mma.begin(), from_mma.end(), [](const Config& c) { return c.at("mma") == kWgmma; }));
}

// The default space's wgmma configs compile for sm_90a without spills and without wgmma serialized by ptxas
// (rejected_resources): a seeded sample of them, for both head dims, both element types, causal or not, GQA
// packed or not (the rule that leaves out certain spills, excluded_by_default, must let none through).
// Two tests, each compiling every other config of the sample: all 20 in one took 47 s in the sanitizer
// suite beside a second build on 2 cores.
class ASampleOfTheDefaultSpaceCompilesWithoutSpills : public ::testing::TestWithParam<int> {};

TEST_P(ASampleOfTheDefaultSpaceCompilesWithoutSpills, Half) {
  const DeviceLimits h100 = DeviceLimits::for_target(runtime::Target::parse("sm_90a"));
  const auto family = evotune::families::make_attention_family();
  std::vector<runtime::CompileRequest> requests;
  std::vector<std::string> what;
  search::Rng rng(2026);
  for (const char* text : {"b=4,hq=16,sq=4096,d=128,causal=0,dtype=fp16", "b=1,hq=32,hkv=8,sq=4096,d=128,causal=1,dtype=bf16",
                           "b=8,hq=16,sq=2048,d=64,causal=0,dtype=bf16", "b=1,hq=8,hkv=2,sq=77,skv=3001,d=64,causal=1,dtype=fp16",
                           "b=2,hq=16,hkv=4,sq=2048,d=256,causal=1,dtype=fp16"}) {
    const Problem p = Problem::parse(text);
    const search::SearchSpace space = search::family_search_space(*family, evotune::families::family_problem(p), h100);
    int taken = 0;
    for (int i = 0; i < 5000 && taken < 4; ++i) {
      const std::optional<Config> c = space.sample(rng);
      if (!c || c->at("mma") != kWgmma) continue;
      if (taken++ % 2 != GetParam()) continue;  // the whole sample is drawn, so both halves see the same
      requests.push_back(compile_request(*c, p, runtime::Target::parse("sm_90a")));
      what.push_back(format(*c) + " | " + text);
    }
    EXPECT_EQ(taken, 4) << text;
  }
  EXPECT_EQ(requests.size(), 10u);
  const auto results = compile_all(requests);
  for (std::size_t i = 0; i < results.size(); ++i) {
    const runtime::ResourceUsage& usage = results[i].resources.begin()->second;
    EXPECT_EQ(rejected_resources(usage), std::nullopt) << what[i];
  }
}

INSTANTIATE_TEST_SUITE_P(AttentionWgmma, ASampleOfTheDefaultSpaceCompilesWithoutSpills, ::testing::Values(0, 1));

// The wgmma instructions are generated (scripts/gen_wgmma.py); the committed header is what it writes.
TEST(AttentionWgmma, GeneratedInstructionsAreUpToDate) {
  const std::string script = (evotune::testing::source_dir() / "scripts/gen_wgmma.py").string();
  const std::string header = (evotune::testing::source_dir() / "families/attention/kernels/wgmma_ops.cuh").string();
  EXPECT_EQ(std::system(("python3 " + script + " --check --out " + header).c_str()), 0);
}

// The layout rules every launch checks (the launcher for all kernels, KernelArguments before encoding TMA
// descriptors): rows of d contiguous elements, strides multiples of 8 elements, the position stride below
// 2^23, 16-byte aligned pointers; strides of extents of 1 replaced by the dense ones before the check.
TEST(AttentionLayout, TheRulesTheKernelsNeedAreCheckedWithTheReason) {
  const TensorStrides dense = dense_strides(32, 2048, 128);
  EXPECT_EQ(dense.batch, 32LL * 2048 * 128);
  EXPECT_EQ(dense.head, 2048 * 128);
  EXPECT_EQ(dense.seq, 128);
  const void* aligned = reinterpret_cast<const void*>(std::uintptr_t{0x10000});
  const TensorStrides bshd{2048LL * 32 * 128, 128, 32 * 128};  // a BSHD tensor viewed as BHSD
  EXPECT_EQ(layout_problem("Q", aligned, dense), std::nullopt);
  EXPECT_EQ(layout_problem("Q", aligned, bshd), std::nullopt);
  const std::optional<std::string> misaligned =
      layout_problem("Q", reinterpret_cast<const void*>(std::uintptr_t{0x10008}), dense);
  ASSERT_NE(misaligned, std::nullopt);
  EXPECT_NE(misaligned->find("16-byte aligned"), std::string::npos) << *misaligned;
  const std::optional<std::string> odd = layout_problem("K", aligned, TensorStrides{8192, 4096, 68});
  ASSERT_NE(odd, std::nullopt);
  EXPECT_NE(odd->find("K's sequence stride 68"), std::string::npos) << *odd;
  EXPECT_NE(layout_problem("V", aligned, TensorStrides{-8, 64, 64}), std::nullopt);
  EXPECT_NE(layout_problem("V", aligned, TensorStrides{8192, 0, 64}), std::nullopt);  // a broadcast head
  EXPECT_EQ(layout_problem("V", aligned, TensorStrides{1LL << 40, 1LL << 30, (1LL << 23) - 8}), std::nullopt);
  const std::optional<std::string> far = layout_problem("V", aligned, TensorStrides{1LL << 40, 1LL << 30, 1LL << 23});
  ASSERT_NE(far, std::nullopt);
  EXPECT_NE(far->find("2^23"), std::string::npos) << *far;
  // A decode step's Q, [b, h, 1, d] viewed from [b, 1, h, d]: its position stride is never used, and any
  // value there (a view's 1, say) must not fail the checks.
  const TensorStrides decode = normalised_strides(TensorStrides{32 * 128, 128, 1}, 2, 32, 1, 128);
  EXPECT_EQ(decode.seq, 128);
  EXPECT_EQ(decode.head, 128);
  EXPECT_EQ(layout_problem("Q", aligned, decode), std::nullopt);
  const TensorStrides one_batch = normalised_strides(TensorStrides{3, 128, 4096}, 1, 32, 2048, 128);
  EXPECT_EQ(one_batch.batch, dense.batch);
  EXPECT_EQ(one_batch.head, 128);
  // The harness's own buffers are dense BHSD.
  AttentionParams params{};
  params.b = 2, params.hq = 32, params.hkv = 8, params.sq = 100, params.skv = 300;
  set_dense_strides(params, 64);
  EXPECT_EQ(params.q_strides.batch, 32LL * 100 * 64);
  EXPECT_EQ(params.o_strides.head, 100 * 64);
  EXPECT_EQ(params.k_strides.batch, 8LL * 300 * 64);
  EXPECT_EQ(params.v_strides.seq, 64);
}
