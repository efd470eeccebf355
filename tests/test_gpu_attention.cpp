// GPU tests of the attention family (skip without a GPU): the GPU fp32 reference against the CPU fp64
// one, every feature of the kernels against the reference for both mainloops, and proof that the check
// fails when it should.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <vector>

#include "families/attention/host/attention_cpu_reference.h"
#include "families/attention/host/attention_kernel.h"
#include "families/attention/host/attention_workspace.h"
#include "deploy/attention_launcher.h"
#include "runtime/compile_pool.h"
#include "runtime/cubin_cache.h"
#include "runtime/device_properties.h"
#include "runtime/float16.h"
#include "families/attention/host/attention_family.h"
#include "tests/test_support.h"

using namespace evotune;
using attention::Problem;

namespace {

struct GpuFixture {
  runtime::DeviceProperties props = runtime::query_device(0);
  runtime::DeviceContext context{0};
  runtime::Target target = runtime::Target::parse(props.native_target());
  evotune::testing::TempDir cache_dir;
  runtime::NvrtcCompiler nvrtc;
  runtime::CubinCache cache{cache_dir.path()};
  runtime::CachingCompiler compiler{nvrtc, cache};
  runtime::Stream stream;
};

// Launches a compiled attention kernel on the workspace's tensors, outputs poisoned first.
// `compiled_for` is the problem the kernel was built for (normally the workspace's own).
void run_kernel(GpuFixture& f, const runtime::CompileResult& compiled, const Config& config,
                const Problem& compiled_for, harness::AttentionWorkspace& ws) {
  harness::AttentionKernel kernel(compiled, config, compiled_for, DeviceLimits::from(f.props));
  ws.poison_outputs(f.stream);
  kernel.launch(ws.params(true), f.stream);
}

// The GPU check and the host check it replaced read the same figures off the same output.
void expect_same_verdict(const harness::AttentionCheck& gpu, const harness::AttentionCheck& host,
                         const std::string& what) {
  EXPECT_EQ(gpu.passed, host.passed) << what << ": gpu '" << gpu.reason << "', host '" << host.reason << "'";
  EXPECT_EQ(gpu.reason, host.reason) << what;
  EXPECT_EQ(gpu.nan_count, host.nan_count) << what;
  EXPECT_EQ(gpu.max_abs_error, host.max_abs_error) << what;  // the same doubles, max is order-free
  EXPECT_EQ(gpu.lse_max_error, host.lse_max_error) << what;
  EXPECT_EQ(gpu.tolerance, host.tolerance) << what;
  EXPECT_NEAR(gpu.rel_l2_error, host.rel_l2_error, 1e-9 + 1e-9 * host.rel_l2_error) << what;  // sums: order differs
}

// A problem and a config (text, as bench takes it) to run against the reference.
struct CheckedCase {
  std::string problem, config;
};

// Compiles every case (in parallel; each must be valid by the rules), then runs each on its own workspace
// (seed seed_base + its index) twice, the second launch reusing the split workspace, and checks O and the
// LSE against the reference each time. None may spill, and a config that splits must run split.
void expect_cases_match_reference(GpuFixture& f, const std::vector<CheckedCase>& cases, std::uint64_t seed_base) {
  const DeviceLimits limits = DeviceLimits::from(f.props);
  runtime::CompilePool pool(f.compiler);
  std::vector<std::future<runtime::CompileResult>> compiled;
  for (const CheckedCase& c : cases) {
    const Problem p = Problem::parse(c.problem);
    const Config config = attention::parse_config_for(c.config, p, limits);
    ASSERT_EQ(attention::invalid_reason(config, p, limits), std::nullopt) << c.config << " " << c.problem;
    compiled.push_back(pool.submit(attention::compile_request(config, p, f.target)));
  }
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const CheckedCase& c = cases[i];
    const Problem p = Problem::parse(c.problem);
    const Config config = attention::parse_config_for(c.config, p, limits);
    // "default": the problem-aware default, whatever grid it makes (the premises below are for the
    // configs named to exercise a feature).
    const bool named = c.config.rfind("default", 0) != 0;
    const runtime::CompileResult result = compiled[i].get();
    EXPECT_EQ(attention::rejected_resources(result.resources_of(attention::name_expression(config, p))),
              std::nullopt)
        << c.config;
    harness::AttentionWorkspace ws(p, f.compiler, f.target, seed_base + i, f.stream);
    harness::AttentionKernel kernel(result, config, p, limits);
    if (named && config.at("splits") != 1) {
      EXPECT_GT(kernel.plan().splits, 1) << c.problem << " | " << c.config << ": no split ran";
    }
    if (named && config.at("scheduler") == attention::kStreamKScheduler) {
      // A tail must exist, or the case tests only the whole tiles.
      EXPECT_NE(attention::unsplit_ctas(config, p) % kernel.plan().kernel.grid[0], 0)
          << c.problem << " | " << c.config << ": no stream-K tail";
    } else if (named && config.at("scheduler") != attention::kGridScheduler) {
      // Some persistent CTAs must walk more than one tile, or the case tests only the first.
      EXPECT_GT(attention::unsplit_ctas(config, p) * kernel.plan().splits,
                static_cast<long long>(kernel.plan().kernel.grid[0]))
          << c.problem << " | " << c.config << ": too few tiles per persistent CTA";
    }
    for (int launch = 0; launch < 2; ++launch) {
      ws.poison_outputs(f.stream);
      kernel.launch(ws.params(true), f.stream);
      const harness::AttentionCheck check = ws.check(f.stream, true);
      EXPECT_TRUE(check.passed) << c.problem << " | " << c.config << " (launch " << launch << "): " << check.reason;
      EXPECT_LT(check.lse_max_error, 1e-3) << c.problem << " | " << c.config << " (launch " << launch << ")";
    }
  }
}

}  // namespace

TEST(GpuAttention, ReferenceMatchesCpuFp64) {
  EVOTUNE_REQUIRE_GPU();
  GpuFixture f;
  for (const char* text : {"b=1,hq=4,hkv=2,sq=77,skv=133,d=64,causal=1,dtype=fp16",
                           "b=2,hq=2,sq=33,d=128,dtype=bf16", "b=1,hq=3,hkv=1,sq=1,skv=100,d=64,causal=1",
                           "b=1,hq=2,sq=40,skv=40,d=128,causal=1,dtype=bf16"}) {
    Problem p = Problem::parse(text);
    harness::AttentionWorkspace ws(p, f.compiler, f.target, 11, f.stream);
    harness::CpuAttention cpu = harness::cpu_attention_fp64(p, ws.download_input('q'), ws.download_input('k'),
                                                            ws.download_input('v'));
    const std::vector<float> ref_out = ws.reference_out(), ref_lse = ws.reference_lse();
    double max_out = 0, max_lse = 0;
    for (std::size_t i = 0; i < cpu.out.size(); ++i) max_out = std::max(max_out, std::abs(cpu.out[i] - ref_out[i]));
    for (std::size_t i = 0; i < cpu.lse.size(); ++i) max_lse = std::max(max_lse, std::abs(cpu.lse[i] - ref_lse[i]));
    // fp32 accumulation over at most a few hundred terms of O(1) values.
    EXPECT_LT(max_out, 2e-5) << text;
    EXPECT_LT(max_lse, 2e-5) << text;
  }
}

TEST(GpuAttention, EveryFeatureMatchesTheReferenceForBothMainloops) {
  EVOTUNE_REQUIRE_GPU();
  GpuFixture f;
  // Two configs per mainloop, so both warp-row layouts, all stage counts, both barriers, both smem
  // layouts and all copy widths run.
  const std::map<int, std::vector<std::string>> configs = {
      {attention::kMmaSync,
       {"mma=mma_sync,block_m=128,block_n=64,warps=8,stages=2,barrier=light,smem_layout=swizzled,vec_bytes=16",
        "mma=mma_sync,block_m=64,block_n=16,warps=2,stages=3,barrier=full,smem_layout=padded,vec_bytes=8",
        "mma=mma_sync,block_m=32,block_n=64,warps=2,stages=1,barrier=light,smem_layout=padded,vec_bytes=4",
        "mma=mma_sync,block_m=64,block_n=64,warps=4,stages=3,q_frags=regs,overlap=on",
        "mma=mma_sync,block_m=64,block_n=32,warps=4,stages=3,q_frags=regs,overlap=on",
        "mma=mma_sync,block_m=128,block_n=64,warps=8,q_frags=regs,qk_split=2",
        "mma=mma_sync,block_m=128,block_n=32,warps=8,stages=3,qk_split=2",
        "mma=mma_sync,block_m=128,block_n=32,warps=8,stages=3,barrier=full,q_frags=smem,overlap=on"}},
      {attention::kScalar,
       {"mma=scalar,block_m=64,block_n=32,warps=4,stages=2,barrier=light,smem_layout=swizzled,vec_bytes=16",
        "mma=scalar,block_m=32,block_n=64,warps=4,stages=1,barrier=full,smem_layout=padded,vec_bytes=4",
        "mma=scalar,block_m=16,block_n=16,warps=4,stages=3,barrier=light,smem_layout=padded,vec_bytes=8"}},
  };
  std::vector<std::string> problems;
  for (const char* dtype : {"fp16", "bf16"}) {
    for (int d : {64, 128}) {
      for (int causal : {0, 1}) problems.push_back(fmt::format("b=2,hq=3,sq=200,d={},causal={},dtype={}", d, causal, dtype));
    }
  }
  problems.insert(problems.end(), {
                                      "b=1,hq=32,hkv=8,sq=130,skv=130,d=128,causal=1,dtype=bf16",  // GQA 32:8
                                      "b=2,hq=8,hkv=1,sq=100,skv=300,d=64,causal=1,dtype=fp16",    // MQA, sq < skv
                                      "b=1,hq=2,sq=77,skv=1029,d=128,causal=1,dtype=fp16",         // tails
                                      "b=1,hq=2,sq=1000,d=64,causal=0,dtype=bf16",                 // s=1000
                                      "b=1,hq=2,sq=1000,d=128,causal=1,dtype=fp16",
                                      "b=4,hq=8,hkv=2,sq=1,skv=4096,d=128,causal=1,dtype=fp16",    // decode
                                      "b=3,hq=4,hkv=4,sq=1,skv=77,d=64,causal=0,dtype=bf16",
                                  });
  struct Case {
    std::string problem, config;
  };
  std::vector<Case> cases;
  int rotation = 0;
  for (const auto& problem : problems) {
    for (const auto& [mma, list] : configs) cases.push_back({problem, list[static_cast<std::size_t>(rotation) % list.size()]});
    ++rotation;
  }
  // Compile everything at once, then run case by case.
  runtime::CompilePool pool(f.compiler);
  std::vector<std::future<runtime::CompileResult>> compiled;
  for (const Case& c : cases) {
    Problem p = Problem::parse(c.problem);
    Config config = attention::parse_config(c.config);
    ASSERT_EQ(attention::invalid_reason(config, p, DeviceLimits::from(f.props)), std::nullopt) << c.config << " " << c.problem;
    compiled.push_back(pool.submit(attention::compile_request(config, p, f.target)));
  }
  std::map<std::string, std::unique_ptr<harness::AttentionWorkspace>> workspaces;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const Case& c = cases[i];
    Problem p = Problem::parse(c.problem);
    Config config = attention::parse_config(c.config);
    runtime::CompileResult result = compiled[i].get();
    const std::string expression = attention::name_expression(config, p);
    EXPECT_EQ(attention::rejected_resources(result.resources_of(expression)), std::nullopt) << c.config;
    auto& ws = workspaces[c.problem];
    if (!ws) ws = std::make_unique<harness::AttentionWorkspace>(p, f.compiler, f.target, 5, f.stream);
    run_kernel(f, result, config, p, *ws);
    harness::AttentionCheck check = ws->check(f.stream, true);
    EXPECT_TRUE(check.passed) << c.problem << " | " << c.config << ": " << check.reason;
    expect_same_verdict(check, ws->check_on_host(f.stream, true), c.problem + " | " + c.config);
    EXPECT_GT(check.same_precision_error, 0.0) << "the tolerance must come from a real same-precision error";
    EXPECT_LT(check.rel_l2_error, p.dtype == attention::DType::fp16 ? 2e-3 : 1.5e-2) << c.problem << " | " << c.config;
  }
}

TEST(GpuAttention, TheCheckFailsWhenItShould) {
  EVOTUNE_REQUIRE_GPU();
  GpuFixture f;
  Problem causal = Problem::parse("b=1,hq=4,sq=256,d=64,causal=1");
  harness::AttentionWorkspace ws(causal, f.compiler, f.target, 3, f.stream);
  // Nothing written: the poisoned output must fail.
  ws.poison_outputs(f.stream);
  harness::AttentionCheck unwritten = ws.check(f.stream, true);
  EXPECT_FALSE(unwritten.passed);
  EXPECT_GT(unwritten.nan_count, 0);
  expect_same_verdict(unwritten, ws.check_on_host(f.stream, true), "unwritten");
  // A non-causal kernel on the causal problem computes a different function and must fail.
  Problem full = causal;
  full.causal = false;
  Config config = attention::default_config();
  runtime::CompileRequest request = attention::compile_request(config, full, f.target);
  runtime::CompileResult result = f.compiler.compile(request);
  run_kernel(f, result, config, full, ws);
  harness::AttentionCheck wrong = ws.check(f.stream, true);
  EXPECT_FALSE(wrong.passed);
  EXPECT_GT(wrong.max_abs_error, 10 * wrong.tolerance);
  expect_same_verdict(wrong, ws.check_on_host(f.stream, true), "non-causal kernel");
  // New inputs: the same (correct) kernel still passes on them, and results differ from the old ones.
  std::vector<float> before = ws.reference_out();
  ws.reseed(99, f.stream);
  EXPECT_NE(before, ws.reference_out());
}

// The GPU check against the host check on planted failures: a correct output, then one NaN, one element
// pushed past the tolerance, one element inside it, a NaN LSE, an LSE off by more than its tolerance.
// Each verdict and figure must be the same from both.
TEST(GpuAttention, GpuCheckAndHostCheckAgreeOnPlantedFailures) {
  EVOTUNE_REQUIRE_GPU();
  GpuFixture f;
  for (const char* text : {"b=2,hq=8,hkv=2,sq=300,skv=517,d=128,causal=1,dtype=bf16", "b=1,hq=4,sq=1000,d=64,dtype=fp16"}) {
    const Problem p = Problem::parse(text);
    harness::AttentionWorkspace ws(p, f.compiler, f.target, 21, f.stream);
    const Config config = attention::parse_config("block_m=64,block_n=64,warps=4");
    runtime::CompileRequest request = attention::compile_request(config, p, f.target);
    run_kernel(f, f.compiler.compile(request), config, p, ws);
    const harness::AttentionCheck good = ws.check(f.stream, true);
    EXPECT_TRUE(good.passed) << text << ": " << good.reason;
    expect_same_verdict(good, ws.check_on_host(f.stream, true), std::string(text) + " correct");
    const std::vector<std::uint16_t> out = ws.o().download_as<std::uint16_t>(static_cast<std::size_t>(p.q_elements()));
    const std::vector<float> lse = ws.download_lse();
    const bool fp16 = p.dtype == attention::DType::fp16;
    auto encode = [&](float x) { return fp16 ? runtime::float_to_half_bits(x) : runtime::float_to_bf16_bits(x); };
    auto decode = [&](std::uint16_t b) { return fp16 ? runtime::half_bits_to_float(b) : runtime::bf16_bits_to_float(b); };
    auto with_output = [&](std::size_t index, float value, const std::string& what) {
      std::vector<std::uint16_t> planted = out;
      planted[index] = encode(value);
      ws.o().upload(std::span<const std::uint16_t>(planted));
      ws.lse().upload(std::span<const float>(lse));
      const harness::AttentionCheck gpu = ws.check(f.stream, true);
      expect_same_verdict(gpu, ws.check_on_host(f.stream, true), std::string(text) + " " + what);
      return gpu;
    };
    auto with_lse = [&](std::size_t index, float value, const std::string& what) {
      std::vector<float> planted = lse;
      planted[index] = value;
      ws.o().upload(std::span<const std::uint16_t>(out));
      ws.lse().upload(std::span<const float>(planted));
      const harness::AttentionCheck gpu = ws.check(f.stream, true);
      expect_same_verdict(gpu, ws.check_on_host(f.stream, true), std::string(text) + " " + what);
      return gpu;
    };
    const std::size_t middle = out.size() / 2 + 7, last = out.size() - 1;
    const harness::AttentionCheck nan = with_output(middle, NAN, "one NaN");
    EXPECT_FALSE(nan.passed);
    EXPECT_EQ(nan.nan_count, 1);
    EXPECT_FALSE(with_output(last, INFINITY, "one inf").passed);
    const harness::AttentionCheck far = with_output(last, decode(out[last]) + 4 * static_cast<float>(good.tolerance), "one far");
    EXPECT_FALSE(far.passed);
    EXPECT_GT(far.max_abs_error, 3 * far.tolerance);
    // Within the rounding of one ulp of the element type: still passes.
    const harness::AttentionCheck near = with_output(middle, decode(out[middle]), "unchanged element");
    EXPECT_TRUE(near.passed) << near.reason;
    const harness::AttentionCheck lse_nan = with_lse(3, NAN, "NaN LSE");
    EXPECT_FALSE(lse_nan.passed);
    EXPECT_EQ(lse_nan.nan_count, 1);
    const harness::AttentionCheck lse_off = with_lse(lse.size() - 1, lse.back() + 0.01f, "LSE off by 0.01");
    EXPECT_FALSE(lse_off.passed);
    EXPECT_NE(lse_off.reason.find("LSE"), std::string::npos) << lse_off.reason;
  }
}

// Split-KV and packed GQA on the GPU, against the fp32 reference (output and LSE), for both mainloops and
// the software-pipelined schedule: decode, GQA 32:8, MQA, sq < skv causal, tails, and splits that leave
// chunks empty; splits=auto where the plan does split.
TEST(GpuAttention, SplitKvAndPackedGqaMatchTheReference) {
  EVOTUNE_REQUIRE_GPU();
  GpuFixture f;
  const std::vector<CheckedCase> cases = {
      // decode, GQA 32:8: auto (the plan splits 8 CTAs), fixed counts, packed and not
      {"b=2,hq=32,hkv=8,sq=1,skv=1000,d=128,causal=0,dtype=fp16",
       "block_m=16,warps=1,block_n=64,stages=3,pack_gqa=on,splits=auto"},
      {"b=2,hq=32,hkv=8,sq=1,skv=1000,d=128,causal=0,dtype=fp16",
       "block_m=16,warps=1,block_n=32,stages=2,pack_gqa=off,splits=12"},
      {"b=1,hq=32,hkv=8,sq=1,skv=2049,d=64,causal=1,dtype=bf16",
       "block_m=16,warps=1,block_n=64,stages=3,pack_gqa=on,splits=32"},
      // 8 heads per KV head, decode
      {"b=3,hq=64,hkv=8,sq=1,skv=777,d=128,causal=0,dtype=bf16",
       "block_m=16,warps=1,block_n=64,stages=3,pack_gqa=on,splits=4"},
      // MQA: all heads on one KV head, packed rows spanning queries and heads, software pipelining
      {"b=2,hq=6,hkv=1,sq=9,skv=130,d=128,causal=1,dtype=fp16",
       "block_m=64,warps=4,block_n=32,stages=3,q_frags=regs,overlap=on,pack_gqa=on,splits=3"},
      // short query chunk against a longer cache, causal, tails in both lengths
      {"b=1,hq=32,hkv=8,sq=37,skv=301,d=64,causal=1,dtype=bf16",
       "block_m=64,warps=4,block_n=32,pack_gqa=on,splits=4"},
      {"b=1,hq=32,hkv=8,sq=100,skv=1000,d=128,causal=1,dtype=bf16",
       "block_m=128,warps=8,block_n=64,pack_gqa=off,splits=auto"},
      // causal prefill, 16-key blocks in 8 chunks: the top tiles see 2 blocks, so 6 of their 8 chunks are
      // empty
      {"b=1,hq=2,hkv=1,sq=200,skv=200,d=64,causal=1,dtype=fp16",
       "block_m=32,warps=2,block_n=16,stages=2,splits=8,pack_gqa=on"},
      // key groups of warps (kv_warps), merged in the epilogue: decode, causal short chunk, with splits and
      // without
      {"b=2,hq=32,hkv=8,sq=1,skv=1000,d=128,causal=0,dtype=bf16",
       "block_m=16,warps=4,kv_warps=4,block_n=64,stages=3,pack_gqa=on,splits=auto"},
      {"b=1,hq=8,hkv=2,sq=45,skv=333,d=64,causal=1,dtype=fp16",
       "block_m=64,warps=8,kv_warps=2,block_n=64,stages=2,pack_gqa=on,splits=1"},
      {"b=2,hq=6,hkv=1,sq=9,skv=130,d=128,causal=1,dtype=fp16",
       "block_m=32,warps=4,kv_warps=2,block_n=64,stages=3,q_frags=regs,overlap=on,pack_gqa=on,splits=2"},
      {"b=1,hq=2,sq=70,skv=70,d=128,causal=1,dtype=bf16",
       "block_m=32,warps=4,kv_warps=4,block_n=64,stages=2,splits=1"},
      // combine=last_cta: the tile's last CTA merges (decode with auto, causal chunk with empty chunks,
      // kv_warps)
      {"b=2,hq=32,hkv=8,sq=1,skv=1000,d=128,causal=0,dtype=fp16",
       "block_m=16,warps=4,kv_warps=4,block_n=64,stages=3,pack_gqa=on,splits=auto,combine=last_cta"},
      {"b=1,hq=2,hkv=1,sq=200,skv=200,d=64,causal=1,dtype=bf16",
       "block_m=32,warps=2,block_n=16,stages=2,splits=8,combine=last_cta,pack_gqa=on"},
      {"b=3,hq=64,hkv=8,sq=1,skv=777,d=64,causal=1,dtype=bf16",
       "block_m=32,warps=4,kv_warps=2,block_n=64,stages=2,pack_gqa=on,splits=6,combine=last_cta"},
      {"b=1,hq=8,hkv=2,sq=5,skv=300,d=64,causal=1,dtype=fp16",
       "mma=scalar,block_m=32,block_n=32,warps=4,stages=2,pack_gqa=on,splits=3,combine=last_cta"},
      // more than 32 chunks: the combine takes the chunks 32 at a time (lanes hold their weights), with
      // chunks left empty at the end (94 blocks in 64 chunks of 2; 79 blocks in 48 chunks of 2)
      {"b=1,hq=16,hkv=2,sq=1,skv=3001,d=128,causal=0,dtype=bf16",
       "block_m=16,warps=2,kv_warps=2,block_n=32,stages=3,pack_gqa=on,splits=64"},
      {"b=2,hq=8,hkv=1,sq=3,skv=2500,d=64,causal=1,dtype=fp16",
       "block_m=32,warps=4,kv_warps=2,block_n=32,stages=3,pack_gqa=on,splits=48,combine=last_cta"},
      // the scalar mainloop through the same split and packing
      {"b=1,hq=8,hkv=2,sq=5,skv=300,d=64,causal=1,dtype=fp16",
       "mma=scalar,block_m=32,block_n=32,warps=4,stages=2,pack_gqa=on,splits=3"},
  };
  expect_cases_match_reference(f, cases, 17);
}

// The launcher library with split-KV: its fallback (the problem-aware default) on a decode shape, and an
// exported-style config with a fixed split, run on the caller's buffers and checked against the reference.
TEST(GpuAttention, LauncherSplitsWithItsOwnWorkspace) {
  EVOTUNE_REQUIRE_GPU();
  GpuFixture f;
  for (const char* text : {"b=2,hq=32,hkv=8,sq=1,skv=3000,d=128,causal=0,dtype=bf16",
                           "b=1,hq=16,hkv=2,sq=20,skv=900,d=64,causal=1,dtype=fp16"}) {
    const Problem p = Problem::parse(text);
    const evotune::AttentionShape shape{p.b,   p.hq, p.hkv,    p.sq,
                                        p.skv, p.d,  p.causal, p.dtype == attention::DType::bf16};
    AttentionLauncherOptions options;
    options.cache_dir = f.cache_dir.path().string();
    const evotune::AttentionLauncher fallback =
        evotune::AttentionLauncher::with_default_config(shape, options);
    EXPECT_EQ(attention::parse_config(fallback.config()),
              attention::heuristic_config(p, DeviceLimits::from(f.props)));
    EXPECT_GT(fallback.splits(shape), 1) << text << ": " << fallback.config();
    EXPECT_GT(fallback.workspace_bytes(shape), 0u);
    const evotune::AttentionLauncher fixed("block_m=16,warps=1,block_n=64,stages=3,pack_gqa=on,splits=6", p.d,
                                           p.causal, p.dtype == attention::DType::bf16, options);
    // The same config with its combine kernel launched after the attention kernel, not as a programmatic
    // dependent launch: the same bits.
    AttentionLauncherOptions plain_options = options;
    plain_options.programmatic_combine = false;
    const evotune::AttentionLauncher plain("block_m=16,warps=1,block_n=64,stages=3,pack_gqa=on,splits=6", p.d,
                                           p.causal, p.dtype == attention::DType::bf16, plain_options);
    std::vector<std::vector<std::uint16_t>> outputs;
    for (const evotune::AttentionLauncher* launcher : {&fallback, &fixed, &plain}) {
      harness::AttentionWorkspace ws(p, f.compiler, f.target, 31, f.stream);
      ws.poison_outputs(f.stream);
      launcher->launch(shape, ws.q().get(), ws.k().get(), ws.v().get(), ws.o().get(), f.stream.get(),
                       ws.lse().get());
      const harness::AttentionCheck check = ws.check(f.stream, true);
      EXPECT_TRUE(check.passed) << text << " | " << launcher->config() << ": " << check.reason;
      outputs.push_back(ws.o().download_as<std::uint16_t>(ws.o().bytes() / 2));
    }
    EXPECT_EQ(fixed.programmatic_combine(), DeviceLimits::from(f.props).compute_capability >= 90);
    EXPECT_FALSE(plain.programmatic_combine());
    EXPECT_EQ(outputs[1], outputs[2]) << text << ": the plainly launched combine wrote other bits";
  }
  // One combine=last_cta launcher on shapes that move its tile counters within its workspace (a larger
  // shape, a smaller one over the larger one's partials, the first again): each launch must be right.
  AttentionLauncherOptions options;
  options.cache_dir = f.cache_dir.path().string();
  const evotune::AttentionLauncher last_cta("block_m=16,warps=4,kv_warps=4,block_n=64,stages=3,pack_gqa=on,"
                                            "splits=auto,combine=last_cta",
                                            128, false, false, options);
  for (const char* text : {"b=1,hq=32,hkv=8,sq=1,skv=4000,d=128,causal=0,dtype=fp16",
                           "b=3,hq=16,hkv=4,sq=1,skv=9000,d=128,causal=0,dtype=fp16",
                           "b=1,hq=8,hkv=2,sq=1,skv=700,d=128,causal=0,dtype=fp16",
                           "b=1,hq=32,hkv=8,sq=1,skv=4000,d=128,causal=0,dtype=fp16"}) {
    const Problem p = Problem::parse(text);
    const evotune::AttentionShape shape{p.b, p.hq, p.hkv, p.sq, p.skv, p.d, p.causal, false};
    EXPECT_GT(last_cta.splits(shape), 1) << text;
    harness::AttentionWorkspace ws(p, f.compiler, f.target, 41, f.stream);
    ws.poison_outputs(f.stream);
    last_cta.launch(shape, ws.q().get(), ws.k().get(), ws.v().get(), ws.o().get(), f.stream.get(), ws.lse().get());
    const harness::AttentionCheck check = ws.check(f.stream, true);
    EXPECT_TRUE(check.passed) << text << " after other shapes: " << check.reason;
  }
}

// CUDA graphs: a combine=last_cta launcher whose launches are captured at one shape while eager launches of
// other shapes run between the replays. A replay writes the captured shape's partials behind the launcher's
// back, where a smaller shape's counters would lie were they in the same workspace (as they were, with a
// memset on every launch once one was captured): the counters' own buffer must keep them zero without it. A
// workspace that grows after a capture keeps the old one for the graph. A launch during capture that would
// allocate is refused with a message, and the capture ends clean.
TEST(GpuAttention, LauncherLaunchesCanBeCapturedIntoGraphs) {
  EVOTUNE_REQUIRE_GPU();
  GpuFixture f;
  AttentionLauncherOptions options;
  options.cache_dir = f.cache_dir.path().string();
  const evotune::AttentionLauncher last_cta(
      "block_m=16,warps=4,kv_warps=4,block_n=64,stages=3,pack_gqa=on,"
      "splits=auto,combine=last_cta",
      128, false, false, options);
  struct Case {
    Case(const char* text, GpuFixture& f)
        : problem(Problem::parse(text)),
          shape{problem.b, problem.hq, problem.hkv, problem.sq, problem.skv, problem.d, false, false},
          ws(problem, f.compiler, f.target, 51, f.stream) {}
    Problem problem;
    evotune::AttentionShape shape;
    harness::AttentionWorkspace ws;
  };
  std::map<std::string, std::unique_ptr<Case>> cases;
  const char* captured = "b=1,hq=32,hkv=8,sq=1,skv=4000,d=128,causal=0,dtype=fp16";
  const char* larger = "b=3,hq=16,hkv=4,sq=1,skv=9000,d=128,causal=0,dtype=fp16";
  const char* smaller = "b=1,hq=8,hkv=2,sq=1,skv=700,d=128,causal=0,dtype=fp16";
  const char* largest = "b=8,hq=32,hkv=8,sq=1,skv=9000,d=128,causal=0,dtype=fp16";
  for (const char* text : {captured, larger, smaller, largest}) {
    cases.emplace(text, std::make_unique<Case>(text, f));
    EXPECT_GT(last_cta.splits(cases.at(text)->shape), 1) << text;
  }
  auto bytes = [&](const char* text) { return last_cta.workspace_bytes(cases.at(text)->shape); };
  // What the sequence below relies on: the captured shape's partials are larger than the smaller shape's
  // whole workspace (where its counters would lie under the replay's partials, were they not in a buffer of
  // their own), and the largest shape grows the workspace the capture used (allocated to a power of two).
  ASSERT_GT(bytes(captured), bytes(smaller));
  ASSERT_GT(bytes(largest), std::bit_ceil(std::max(bytes(captured), bytes(larger))));
  auto launch = [&](const char* text) {
    Case& c = *cases.at(text);
    last_cta.launch(c.shape, c.ws.q().get(), c.ws.k().get(), c.ws.v().get(), c.ws.o().get(), f.stream.get(),
                    c.ws.lse().get());
  };
  auto run_and_check = [&](const char* text, const std::string& when, const std::function<void()>& run) {
    Case& c = *cases.at(text);
    c.ws.poison_outputs(f.stream);
    run();
    const harness::AttentionCheck check = c.ws.check(f.stream, true);
    EXPECT_TRUE(check.passed) << text << ", " << when << ": " << check.reason;
  };
  CUgraphExec exec = nullptr;
  auto capture = [&]() -> std::string {
    EVOTUNE_CU(cuStreamBeginCapture(f.stream.get(), CU_STREAM_CAPTURE_MODE_THREAD_LOCAL),
               "beginning a capture");
    std::string refused;
    try {
      launch(captured);
    } catch (const std::runtime_error& e) {
      refused = e.what();
    }
    CUgraph graph = nullptr;
    EVOTUNE_CU(cuStreamEndCapture(f.stream.get(), &graph), "ending the capture");
    if (refused.empty()) EVOTUNE_CU(cuGraphInstantiate(&exec, graph, 0), "instantiating the graph");
    EVOTUNE_CU(cuGraphDestroy(graph), "destroying the graph");
    return refused;
  };
  auto replay = [&] { EVOTUNE_CU(cuGraphLaunch(exec, f.stream.get()), "replaying the graph"); };
  EXPECT_NE(capture().find("run the shape once on this stream before capturing"), std::string::npos)
      << "a capture before the workspace exists";
  run_and_check(captured, "eager, the first launch (allocates)", [&] { launch(captured); });
  run_and_check(larger, "eager, the larger shape", [&] { launch(larger); });
  ASSERT_EQ(capture(), "");
  run_and_check(captured, "the first replay", replay);
  run_and_check(smaller, "eager, after a replay", [&] { launch(smaller); });
  run_and_check(captured, "replayed after the smaller shape", replay);
  run_and_check(smaller, "eager again, its counters under the replay's partials", [&] { launch(smaller); });
  run_and_check(largest, "eager, growing the workspace after the capture", [&] { launch(largest); });
  run_and_check(captured, "replayed on its retired workspace", replay);
  run_and_check(largest, "eager again, after that replay", [&] { launch(largest); });
  EVOTUNE_CU(cuGraphExecDestroy(exec), "destroying the graph's instance");
}

// Strided tensors (AttentionLayout) are read and written in place, by every path that touches Q, K, V or O:
// cp.async loads and thread stores (mma_sync), the split workspace's combine kernel and last_cta merge, TMA
// loads, both O stores and stream-k's merge (wgmma). Each config runs once on the dense BHSD buffers and once
// on BSHD copies with O written into a wider buffer (rows of hq * d + 8 elements): the same output bits.
TEST(GpuAttention, StridedLayoutsGiveTheBitsOfDenseOnes) {
  EVOTUNE_REQUIRE_GPU();
  GpuFixture f;
  const bool hopper = DeviceLimits::from(f.props).compute_capability == 90;
  const std::string two = "mma=wgmma,block_m=128,warps=12,block_n=128,stages=2,overlap=on,pingpong=on,producer_regs=32";
  struct StridedCase {
    const char* problem;
    std::string config;
    bool wgmma;
  };
  const std::vector<StridedCase> cases = {
      {"b=2,hq=8,hkv=2,sq=300,skv=421,d=128,causal=1,dtype=bf16", "block_m=64,warps=4,block_n=64,stages=3", false},
      {"b=2,hq=8,hkv=2,sq=37,skv=900,d=64,causal=1,dtype=fp16",
       "block_m=16,warps=1,block_n=64,stages=3,pack_gqa=on,splits=6", false},
      {"b=2,hq=8,hkv=2,sq=1,skv=2000,d=128,causal=0,dtype=bf16",
       "block_m=16,warps=4,kv_warps=4,block_n=64,stages=3,pack_gqa=on,splits=auto,combine=last_cta", false},
      {"b=2,hq=8,hkv=2,sq=300,skv=421,d=128,causal=1,dtype=bf16", two, true},
      {"b=2,hq=8,hkv=2,sq=300,skv=421,d=128,causal=1,dtype=fp16", two + ",scheduler=dynamic,q_buffers=2,o_store=tma",
       true},
      {"b=2,hq=8,hkv=2,sq=300,skv=421,d=128,causal=1,dtype=bf16", two + ",scheduler=dynamic,o_store=tma_half", true},
      {"b=1,hq=32,hkv=8,sq=37,skv=301,d=64,causal=1,dtype=bf16",
       "mma=wgmma,block_m=128,warps=12,block_n=96,stages=2,overlap=on,pack_gqa=on,producer_regs=24", true},
      {"b=2,hq=32,hkv=8,sq=1,skv=3000,d=128,causal=0,dtype=fp16",
       "mma=wgmma,block_m=64,warps=8,block_n=128,stages=2,overlap=on,pack_gqa=on,splits=auto", true},
      {"b=2,hq=16,hkv=4,sq=1111,skv=1111,d=128,causal=1,dtype=bf16", two + ",scheduler=stream_k", true},
  };
  for (const StridedCase& c : cases) {
    if (c.wgmma && !hopper) continue;
    const Problem p = Problem::parse(c.problem);
    SCOPED_TRACE(std::string(c.problem) + " | " + c.config);
    const evotune::AttentionShape shape{p.b, p.hq, p.hkv, p.sq, p.skv, p.d, p.causal, p.dtype == attention::DType::bf16};
    AttentionLauncherOptions options;
    options.cache_dir = f.cache_dir.path().string();
    const evotune::AttentionLauncher launcher(c.config, p.d, p.causal, shape.bf16, options);
    harness::AttentionWorkspace ws(p, f.compiler, f.target, 51, f.stream);
    ws.poison_outputs(f.stream);
    launcher.launch(shape, ws.q().get(), ws.k().get(), ws.v().get(), ws.o().get(), f.stream.get());
    f.stream.synchronize();
    const std::vector<std::uint16_t> dense_o = ws.o().download_as<std::uint16_t>(static_cast<std::size_t>(p.q_elements()));
    // [b, h, s, d] -> [b, s, h, d] (row_elements per (b, s) row: h * d, or more).
    // Elements between rows (row_elements > heads * d) hold 0xFFFF: what the poisoned O keeps there.
    auto to_bshd = [&](const std::vector<std::uint16_t>& x, int heads, int seq, std::size_t row_elements) {
      std::vector<std::uint16_t> y(static_cast<std::size_t>(p.b) * seq * row_elements, 0xFFFF);
      for (int b = 0; b < p.b; ++b)
        for (int h = 0; h < heads; ++h)
          for (int s = 0; s < seq; ++s)
            for (int d = 0; d < p.d; ++d)
              y[(static_cast<std::size_t>(b) * seq + s) * row_elements + h * p.d + d] =
                  x[((static_cast<std::size_t>(b) * heads + h) * seq + s) * p.d + d];
      return y;
    };
    // A BSHD copy of one of the workspace's dense inputs, on the device.
    auto bshd_copy = [&](const runtime::DeviceBuffer& dense, long long elements, int heads, int seq, const char* label) {
      const std::vector<std::uint16_t> x =
          to_bshd(dense.download_as<std::uint16_t>(static_cast<std::size_t>(elements)), heads, seq,
                  static_cast<std::size_t>(heads) * p.d);
      runtime::DeviceBuffer buffer(x.size() * 2, label);
      buffer.upload(std::span<const std::uint16_t>(x));
      return buffer;
    };
    const std::size_t o_row = static_cast<std::size_t>(p.hq) * p.d + 8;
    const runtime::DeviceBuffer q = bshd_copy(ws.q(), p.q_elements(), p.hq, p.sq, "Q");
    const runtime::DeviceBuffer k = bshd_copy(ws.k(), p.kv_elements(), p.hkv, p.skv, "K");
    const runtime::DeviceBuffer v = bshd_copy(ws.v(), p.kv_elements(), p.hkv, p.skv, "V");
    runtime::DeviceBuffer o(static_cast<std::size_t>(p.b) * p.sq * o_row * 2, "O");
    o.fill_bytes(0xFF, f.stream);
    // BSHD with rows `row` elements apart: batch stride seq * row, head stride d, position stride row.
    auto bshd = [&](int seq, long long row) { return evotune::AttentionStrides{seq * row, p.d, row}; };
    const evotune::AttentionLayout layout{bshd(p.sq, p.hq * p.d), bshd(p.skv, p.hkv * p.d), bshd(p.skv, p.hkv * p.d),
                                          bshd(p.sq, static_cast<long long>(o_row))};
    launcher.launch(shape, q.get(), k.get(), v.get(), o.get(), f.stream.get(), 0, 0.0f, &layout);
    f.stream.synchronize();
    const std::vector<std::uint16_t> strided_o = o.download_as<std::uint16_t>(o.bytes() / 2);
    EXPECT_EQ(strided_o, to_bshd(dense_o, p.hq, p.sq, o_row)) << "the strided run's O differs from the dense run's";
  }
  // A layout the kernels cannot take is refused, not misread.
  const Problem p = Problem::parse("b=1,hq=2,sq=64,skv=64,d=64,causal=0,dtype=fp16");
  const evotune::AttentionShape shape{p.b, p.hq, p.hkv, p.sq, p.skv, p.d, false, false};
  AttentionLauncherOptions options;
  options.cache_dir = f.cache_dir.path().string();
  const evotune::AttentionLauncher launcher("block_m=64,warps=4,block_n=64,stages=2", p.d, false, false, options);
  harness::AttentionWorkspace ws(p, f.compiler, f.target, 5, f.stream);
  evotune::AttentionLayout odd{{8192, 4096, 68}, {8192, 4096, 64}, {8192, 4096, 64}, {8192, 4096, 64}};
  EXPECT_THROW(launcher.launch(shape, ws.q().get(), ws.k().get(), ws.v().get(), ws.o().get(), f.stream.get(), 0, 0.0f,
                               &odd),
               std::invalid_argument);
  EXPECT_THROW(launcher.launch(shape, ws.q().get() + 8, ws.k().get(), ws.v().get(), ws.o().get(), f.stream.get()),
               std::invalid_argument);
}

// mma=wgmma (sm_90a only): TMA, the producer/consumer ring, both overlaps, the register split and every
// feature the other mainloops have, each against the reference: fp16 and bf16, d=64 and d=128, causal
// (bottom-right, sq < skv too), GQA, MQA, packed GQA, tails in both lengths, split-KV with fixed counts
// (empty chunks included) and auto.
TEST(GpuAttention, WgmmaMatchesTheReference) {
  EVOTUNE_REQUIRE_GPU();
  GpuFixture f;
  const DeviceLimits limits = DeviceLimits::from(f.props);
  if (limits.compute_capability != 90) GTEST_SKIP() << "mma=wgmma needs an sm_90 GPU (this is " << f.props.name << ")";
  const std::string two = "mma=wgmma,block_m=128,warps=12,";
  const std::vector<CheckedCase> cases = {
      {"b=2,hq=4,sq=333,skv=333,d=128,causal=0,dtype=fp16",
       two + "block_n=128,stages=2,overlap=on,pingpong=on,producer_regs=24"},
      {"b=2,hq=4,sq=333,skv=333,d=128,causal=1,dtype=bf16",
       two + "block_n=176,stages=2,overlap=on,pingpong=on,producer_regs=24"},
      {"b=1,hq=3,sq=513,skv=1025,d=128,causal=1,dtype=fp16",
       two + "block_n=160,stages=2,overlap=off,pingpong=on,producer_regs=24"},
      {"b=2,hq=2,sq=1000,skv=1000,d=64,causal=0,dtype=fp16",
       two + "block_n=192,stages=3,overlap=on,pingpong=on,producer_regs=40"},
      {"b=1,hq=4,sq=300,skv=300,d=64,causal=0,dtype=bf16", two + "block_n=128,stages=2,overlap=on"},
      // GQA 4:1, three consumer warpgroups
      {"b=1,hq=8,hkv=2,sq=257,skv=519,d=64,causal=1,dtype=bf16",
       "mma=wgmma,block_m=192,warps=16,block_n=128,stages=3,overlap=on,pingpong=on,producer_regs=32"},
      // MQA, one consumer warpgroup, four slots, no overlap
      {"b=2,hq=6,hkv=1,sq=100,skv=1000,d=128,causal=1,dtype=fp16",
       "mma=wgmma,block_m=64,warps=8,block_n=64,stages=4,overlap=off"},
      // packed GQA: a TMA box of {group, queries}
      {"b=1,hq=32,hkv=8,sq=37,skv=301,d=64,causal=1,dtype=bf16",
       two + "block_n=96,stages=2,overlap=on,pack_gqa=on,producer_regs=24"},
      // split-KV: decode with auto, and a causal prefill whose top tiles leave chunks empty
      {"b=2,hq=32,hkv=8,sq=1,skv=3000,d=128,causal=0,dtype=fp16",
       "mma=wgmma,block_m=64,warps=8,block_n=128,stages=2,overlap=on,pack_gqa=on,splits=auto"},
      {"b=1,hq=2,hkv=1,sq=200,skv=200,d=64,causal=1,dtype=fp16",
       "mma=wgmma,block_m=64,warps=8,block_n=64,stages=2,overlap=on,splits=4"},
      {"b=1,hq=16,hkv=2,sq=300,skv=4001,d=128,causal=1,dtype=bf16",
       two + "block_n=128,stages=2,overlap=on,pingpong=on,producer_regs=24,splits=3"},
      // the persistent schedulers: several tiles per CTA, with causal GQA tails, sq < skv, packed GQA and a
      // split whose top chunks are empty
      {"b=2,hq=16,hkv=4,sq=1111,skv=1111,d=128,causal=1,dtype=bf16",
       two + "block_n=128,stages=2,overlap=on,pingpong=on,producer_regs=24,scheduler=persistent"},
      {"b=2,hq=16,sq=1000,skv=1500,d=64,causal=1,dtype=fp16",
       "mma=wgmma,block_m=192,warps=16,block_n=128,stages=2,overlap=on,pingpong=on,producer_regs=32,"
       "scheduler=dynamic"},
      {"b=4,hq=16,hkv=4,sq=515,skv=2049,d=128,causal=1,dtype=fp16",
       "mma=wgmma,block_m=64,warps=8,block_n=128,stages=3,overlap=on,splits=3,scheduler=dynamic"},
      {"b=8,hq=32,hkv=8,sq=77,skv=901,d=64,causal=0,dtype=bf16",
       two + "block_n=96,stages=2,overlap=on,pack_gqa=on,producer_regs=24,scheduler=persistent"},
      {"b=3,hq=24,sq=700,skv=700,d=128,causal=0,dtype=fp16",
       two + "block_n=176,stages=2,overlap=on,pingpong=on,producer_regs=24,scheduler=dynamic"},
      // stream_k: whole tiles then a tail cut over every SM, merged by the last piece: non-causal with a tail
      // of 124 tiles; causal GQA tails (costs vary); fewer tiles than SMs (all tail, many pieces per tile);
      // packed GQA; one consumer warpgroup; fewer iterations than SMs (most CTAs idle)
      {"b=2,hq=16,sq=1000,skv=1000,d=128,causal=0,dtype=fp16",
       two + "block_n=128,stages=2,overlap=on,pingpong=on,producer_regs=32,scheduler=stream_k"},
      {"b=2,hq=16,hkv=4,sq=1111,skv=1111,d=128,causal=1,dtype=bf16",
       two + "block_n=112,stages=2,overlap=on,pingpong=on,producer_regs=32,scheduler=stream_k"},
      {"b=1,hq=4,sq=300,skv=5000,d=128,causal=1,dtype=fp16",
       two + "block_n=128,stages=2,overlap=on,pingpong=on,producer_regs=40,scheduler=stream_k"},
      {"b=8,hq=32,hkv=8,sq=77,skv=901,d=64,causal=0,dtype=bf16",
       two + "block_n=96,stages=2,overlap=on,pack_gqa=on,producer_regs=32,scheduler=stream_k"},
      {"b=3,hq=12,sq=777,skv=777,d=64,causal=1,dtype=bf16",
       "mma=wgmma,block_m=64,warps=8,block_n=64,stages=3,overlap=on,scheduler=stream_k"},
      {"b=1,hq=2,sq=128,skv=256,d=64,causal=0,dtype=bf16",
       "mma=wgmma,block_m=64,warps=8,block_n=128,stages=2,overlap=off,scheduler=stream_k"},
      // min_ctas=2: two CTAs share an SM (registers split per CTA, setmaxnreg within each): the grid, causal
      // d=64 with tails; the persistent schedulers launching two CTAs per SM (stream_k with two spills)
      {"b=2,hq=8,hkv=2,sq=555,skv=555,d=64,causal=1,dtype=fp16",
       two + "block_n=64,stages=2,overlap=off,pingpong=on,producer_regs=24,min_ctas=2"},
      {"b=3,hq=12,sq=777,skv=777,d=64,causal=1,dtype=bf16",
       "mma=wgmma,block_m=64,warps=8,block_n=64,stages=2,overlap=on,min_ctas=2,scheduler=dynamic"},
      {"b=4,hq=16,sq=1000,skv=1000,d=64,causal=0,dtype=fp16",
       two + "block_n=32,stages=3,overlap=on,pingpong=on,producer_regs=24,min_ctas=2,scheduler=persistent"},
      {"b=8,hq=16,hkv=4,sq=333,skv=400,d=64,causal=1,dtype=bf16",
       two + "block_n=64,stages=2,overlap=off,pingpong=on,producer_regs=32,min_ctas=2,scheduler=dynamic"},
      // q_buffers=2: the next tile's Q loads into the other buffer while this tile runs: persistent causal GQA
      // with tails, dynamic d=64 causal (one and two CTAs per SM), dynamic with a split whose top chunks are
      // empty (their Q buffer still completes)
      {"b=2,hq=16,hkv=4,sq=1111,skv=1111,d=128,causal=1,dtype=bf16",
       two + "block_n=128,stages=2,overlap=on,pingpong=on,producer_regs=24,scheduler=persistent,q_buffers=2"},
      {"b=4,hq=16,sq=1000,skv=1000,d=64,causal=1,dtype=fp16",
       two + "block_n=128,stages=2,overlap=on,pingpong=on,producer_regs=32,scheduler=dynamic,q_buffers=2"},
      {"b=8,hq=16,hkv=4,sq=333,skv=400,d=64,causal=1,dtype=bf16",
       two + "block_n=64,stages=2,overlap=off,pingpong=on,producer_regs=24,min_ctas=2,scheduler=dynamic,q_buffers=2"},
      {"b=4,hq=16,hkv=4,sq=515,skv=2049,d=128,causal=1,dtype=fp16",
       "mma=wgmma,block_m=64,warps=8,block_n=128,stages=3,overlap=on,splits=3,scheduler=dynamic,q_buffers=2"},
      // o_store=tma: rows out of an output tile by TMA store, the Q buffer released after the last Q.K^T: the
      // grid with causal GQA tails at two CTAs per SM; dynamic with two Q buffers, d=64 and d=128 (two column
      // blocks per store), tails; persistent with packed GQA (a box of 16 queries x 4 heads) and one Q buffer;
      // a split whose chunks leave through the workspace, not the output tile
      {"b=2,hq=8,hkv=2,sq=555,skv=555,d=64,causal=1,dtype=fp16",
       two + "block_n=64,stages=2,overlap=off,pingpong=on,producer_regs=24,min_ctas=2,o_store=tma"},
      {"b=4,hq=16,sq=1000,skv=1000,d=64,causal=1,dtype=bf16",
       two + "block_n=128,stages=2,overlap=on,pingpong=on,producer_regs=32,scheduler=dynamic,q_buffers=2,o_store=tma"},
      {"b=2,hq=16,hkv=4,sq=1111,skv=1111,d=128,causal=1,dtype=fp16",
       two + "block_n=128,stages=2,overlap=on,pingpong=off,producer_regs=32,scheduler=dynamic,q_buffers=2,o_store=tma"},
      {"b=8,hq=32,hkv=8,sq=77,skv=901,d=64,causal=1,dtype=bf16",
       two + "block_n=96,stages=2,overlap=on,pack_gqa=on,producer_regs=24,scheduler=persistent,o_store=tma"},
      {"b=4,hq=16,hkv=4,sq=515,skv=2049,d=128,causal=1,dtype=fp16",
       "mma=wgmma,block_m=64,warps=8,block_n=128,stages=3,overlap=on,splits=3,scheduler=dynamic,o_store=tma"},
      // o_store=tma_half at d=128: the rows pass through one column block's slot, each store read out before
      // the next column block is written there; dynamic causal GQA tails, packed GQA on a grid
      {"b=2,hq=16,hkv=4,sq=1111,skv=1111,d=128,causal=1,dtype=bf16",
       two + "block_n=128,stages=2,overlap=on,pingpong=on,producer_regs=32,scheduler=dynamic,o_store=tma_half"},
      {"b=2,hq=32,hkv=8,sq=77,skv=901,d=128,causal=1,dtype=fp16",
       two + "block_n=96,stages=2,overlap=on,pack_gqa=on,producer_regs=24,o_store=tma_half"},
      // one consumer warpgroup per CTA and two to four CTAs per SM, the producer's registers moved to the
      // consumer (setmaxnreg within each CTA's share of the file): short causal d=64 tiles with tails and GQA,
      // one and two Q buffers
      {"b=8,hq=8,hkv=2,sq=300,skv=300,d=64,causal=1,dtype=fp16",
       "mma=wgmma,block_m=64,warps=8,block_n=128,stages=2,overlap=on,producer_regs=24,min_ctas=2,scheduler=dynamic,"
       "o_store=tma"},
      {"b=8,hq=8,hkv=2,sq=300,skv=300,d=64,causal=1,dtype=bf16",
       "mma=wgmma,block_m=64,warps=8,block_n=128,stages=2,overlap=on,producer_regs=24,min_ctas=2,scheduler=dynamic,"
       "q_buffers=2,o_store=tma"},
      {"b=16,hq=8,hkv=2,sq=300,skv=300,d=64,causal=1,dtype=fp16",
       "mma=wgmma,block_m=64,warps=8,block_n=64,stages=2,overlap=on,producer_regs=24,min_ctas=3,scheduler=dynamic,"
       "o_store=tma"},
      {"b=16,hq=8,hkv=2,sq=300,skv=300,d=64,causal=1,dtype=bf16",
       "mma=wgmma,block_m=64,warps=8,block_n=64,stages=2,overlap=off,producer_regs=24,min_ctas=4,scheduler=dynamic,"
       "o_store=tma"},
      // the d=64 default for short K/V ranges: that config on a plain grid (the hardware, not the atomic,
      // hands out tiles), causal GQA with tails and non-causal
      {"b=4,hq=16,hkv=4,sq=300,skv=300,d=64,causal=1,dtype=bf16",
       "mma=wgmma,block_m=64,warps=8,block_n=64,stages=2,overlap=off,producer_regs=24,min_ctas=4,scheduler=grid,"
       "o_store=tma"},
      {"b=3,hq=8,hkv=8,sq=500,skv=700,d=64,causal=0,dtype=fp16",
       "mma=wgmma,block_m=64,warps=8,block_n=64,stages=2,overlap=off,producer_regs=24,min_ctas=4,scheduler=grid,"
       "o_store=tma"},
      // rescale=lazy (the softmax reference moves only past a margin; the LSE reads the reference): causal GQA
      // tails without overlap, pingpong with overlap, and a split whose top chunks are empty for some rows
      {"b=4,hq=16,hkv=4,sq=300,skv=300,d=64,causal=1,dtype=bf16",
       "mma=wgmma,block_m=64,warps=8,block_n=64,stages=2,overlap=off,producer_regs=24,min_ctas=4,scheduler=grid,"
       "o_store=tma,rescale=lazy"},
      {"b=2,hq=4,sq=333,skv=333,d=128,causal=0,dtype=fp16",
       two + "block_n=176,stages=2,overlap=on,pingpong=on,producer_regs=24,rescale=lazy"},
      {"b=1,hq=2,hkv=1,sq=200,skv=200,d=64,causal=1,dtype=fp16",
       "mma=wgmma,block_m=64,warps=8,block_n=64,stages=2,overlap=on,splits=4,rescale=lazy"},
      // the non-causal d=64 default where 192-row tiles fill the SMs: three consumer warpgroups, persistent,
      // the rows out by TMA store (three 64-row boxes per tile): GQA with a query tail, and sq < skv (192
      // tiles: more than the H100's 132 CTAs, so that some walk two)
      {"b=4,hq=32,hkv=8,sq=1000,skv=1000,d=64,causal=0,dtype=bf16",
       "mma=wgmma,block_m=192,warps=16,block_n=128,stages=2,overlap=on,pingpong=on,producer_regs=32,"
       "scheduler=persistent,o_store=tma,rescale=lazy"},
      {"b=3,hq=16,sq=600,skv=1500,d=64,causal=0,dtype=fp16",
       "mma=wgmma,block_m=192,warps=16,block_n=128,stages=2,overlap=on,pingpong=on,producer_regs=32,"
       "scheduler=persistent,o_store=tma,rescale=lazy"},
  };
  expect_cases_match_reference(f, cases, 31);
  // skip_idle=on: causal tiles whose last warpgroups have no rows (a head's last tile) leave them idle: they
  // read no K/V (the producer releases their slots) and pass their pingpong turns on. 192-row tiles with
  // one and two warpgroups idle (640 and 700 rows: 64 and 124 in the last tile), pingpong with and without
  // overlap, the dynamic and persistent schedulers and a plain grid, packed GQA (rows = queries x group: 160,
  // 32 in the last 128-row tile), a split whose chunks go to the workspace, stream_k, and tma_half at
  // d=256; the persistent schedulers' cases have more tiles than the H100's 132 CTAs, so that CTAs go on to
  // other tiles after an idle one.
  const std::string three =
      "mma=wgmma,block_m=192,warps=16,block_n=128,stages=2,producer_regs=32,skip_idle=on,";
  const std::string two_idle = two + "block_n=128,stages=2,overlap=on,skip_idle=on,";
  const std::vector<CheckedCase> idle_warpgroups = {
      {"b=6,hq=8,hkv=2,sq=640,skv=640,d=64,causal=1,dtype=fp16",
       three + "overlap=on,pingpong=on,scheduler=dynamic,o_store=tma,rescale=lazy"},
      {"b=6,hq=8,hkv=2,sq=700,skv=900,d=64,causal=1,dtype=bf16",
       three + "overlap=off,pingpong=on,scheduler=persistent,o_store=tma"},
      {"b=1,hq=4,sq=640,skv=640,d=64,causal=1,dtype=fp16", three + "overlap=on,pingpong=on"},
      {"b=20,hq=16,hkv=4,sq=40,skv=333,d=64,causal=1,dtype=bf16",
       two_idle + "pingpong=on,producer_regs=32,pack_gqa=on,scheduler=dynamic,o_store=tma"},
      {"b=6,hq=8,hkv=2,sq=300,skv=300,d=128,causal=1,dtype=fp16",
       two_idle + "pingpong=off,producer_regs=32,scheduler=dynamic,q_buffers=2,o_store=tma"},
      {"b=1,hq=8,hkv=2,sq=320,skv=2000,d=128,causal=1,dtype=bf16",
       two_idle + "pingpong=on,producer_regs=24,splits=3"},
      // split in four: the first tile sees one of the five 128-key blocks, so three of its chunks are empty
      // (no warpgroup takes a turn there); the last tile has 8 rows
      {"b=1,hq=4,hkv=2,sq=520,skv=520,d=128,causal=1,dtype=fp16",
       two_idle + "pingpong=on,producer_regs=24,splits=4"},
      {"b=2,hq=8,hkv=2,sq=300,skv=300,d=128,causal=1,dtype=bf16",
       two_idle + "pingpong=on,producer_regs=32,scheduler=stream_k"},
      {"b=6,hq=8,hkv=2,sq=300,skv=300,d=256,causal=1,dtype=fp16",
       two + "block_n=64,stages=2,overlap=on,pingpong=on,producer_regs=24,scheduler=dynamic,o_store=tma_half,"
             "skip_idle=on"},
  };
  expect_cases_match_reference(f, idle_warpgroups, 67);
  // tile_order=sections: the tiles in sections of (batch, head) pairs whose K/V fit in a third of L2 (50 MiB
  // on the H100), x-major within each. K/V ranges long enough that a section is smaller than the launch
  // (d=64 over 30000 keys: 7.3 MiB a KV head, two a section; d=128 over 16001: 7.8 MiB, two), and five KV
  // heads, so that two whole sections and a short last one run: a grid of four CTAs per SM (causal GQA,
  // unpacked: four query heads a section), the dynamic scheduler with tails, packed GQA, the persistent walk
  // non-causal, and a split (x runs over tiles x chunks); the persistent ones with more tiles than CTAs.
  const std::vector<CheckedCase> sections = {
      {"b=1,hq=10,hkv=5,sq=200,skv=30000,d=64,causal=1,dtype=fp16",
       "mma=wgmma,block_m=64,warps=8,block_n=64,stages=2,overlap=off,producer_regs=24,min_ctas=4,scheduler=grid,"
       "o_store=tma,tile_order=sections"},
      {"b=1,hq=5,sq=4000,skv=16001,d=128,causal=1,dtype=bf16",
       two + "block_n=128,stages=2,overlap=on,producer_regs=32,scheduler=dynamic,q_buffers=2,o_store=tma,"
             "tile_order=sections"},
      {"b=5,hq=4,hkv=1,sq=1000,skv=16001,d=128,causal=1,dtype=fp16",
       two + "block_n=128,stages=2,overlap=on,pingpong=on,producer_regs=32,pack_gqa=on,scheduler=dynamic,"
             "o_store=tma,tile_order=sections"},
      {"b=1,hq=5,sq=5500,skv=30001,d=64,causal=0,dtype=bf16",
       "mma=wgmma,block_m=192,warps=16,block_n=128,stages=2,overlap=on,pingpong=on,producer_regs=32,"
       "scheduler=persistent,o_store=tma,tile_order=sections"},
      {"b=1,hq=5,sq=300,skv=16001,d=128,causal=1,dtype=fp16",
       two + "block_n=128,stages=2,overlap=on,pingpong=on,producer_regs=24,splits=2,tile_order=sections"},
  };
  for (const CheckedCase& c : sections) {
    const Problem p = Problem::parse(c.problem);
    const Config config = attention::parse_config_for(c.config, p, limits);
    const attention::LaunchPlan plan = attention::launch_plan(config, p, limits);
    const int pairs = p.b * (config.at("pack_gqa") == 1 ? p.hkv : p.hq);
    EXPECT_GT(plan.section_heads, 1) << c.problem;
    EXPECT_LT(plan.section_heads, pairs) << c.problem << ": one section would be heads' order";
    EXPECT_NE(pairs % plan.section_heads, 0) << c.problem << ": no short last section";
  }
  expect_cases_match_reference(f, sections, 71);
  // The small-grid defaults where 128-row tiles are no more than the SMs and 64-row ones more: at d=64 one
  // 128x128 tile per SM with overlap and pingpong, causal GQA with a tail, and sq < skv, and a causal 128-row
  // config kept there instead of the 64-row small-grid one; at d=128 and d=256 a plain grid of 128-row
  // tiles with both overlaps and pingpong (GQA with tails, causal and not).
  const std::vector<CheckedCase> small_grids = {
      {"b=1,hq=12,hkv=4,sq=1100,skv=1100,d=64,causal=1,dtype=bf16", "default"},
      {"b=2,hq=10,sq=700,skv=900,d=64,causal=0,dtype=fp16", "default"},
      {"b=1,hq=4,sq=4000,skv=4000,d=64,causal=1,dtype=fp16", "default"},
      {"b=1,hq=12,hkv=3,sq=1179,skv=1179,d=128,causal=0,dtype=bf16", "default"},
      {"b=2,hq=12,hkv=4,sq=640,skv=701,d=128,causal=1,dtype=fp16", "default"},
      {"b=1,hq=12,hkv=3,sq=1169,skv=1169,d=256,causal=1,dtype=bf16", "default"},
      {"b=3,hq=5,sq=1000,skv=1000,d=256,causal=0,dtype=fp16", "default"},
  };
  // Defaults of one wave at most: their rows per tile, then every case against the reference.
  const auto one_wave_defaults = [&](const std::vector<CheckedCase>& cases, int block_m, std::uint64_t seed) {
    for (const CheckedCase& c : cases) {
      const Problem p = Problem::parse(c.problem);
      const Config config = attention::heuristic_config(p, limits);
      EXPECT_EQ(config.at("block_m"), block_m) << c.problem;
      EXPECT_LE(attention::unsplit_ctas(config, p), limits.sm_count) << c.problem;
    }
    expect_cases_match_reference(f, cases, seed);
  };
  one_wave_defaults(small_grids, 128, 47);
  // Non-causal d=128 grids just past one wave (128-row tiles more than the SMs, 192-row ones no more): one
  // wave of 192-row tiles of 64-key blocks; GQA with query tails, and sq < skv.
  one_wave_defaults({{"b=1,hq=36,hkv=4,sq=500,skv=500,d=128,causal=0,dtype=bf16", "default"},
                     {"b=2,hq=16,hkv=4,sq=520,skv=1501,d=128,causal=0,dtype=fp16", "default"}},
                    192, 53);
  // Small grids whose 64-row tiles are no more than the SMs: one CTA of 64 rows per tile, three slots, the
  // rows out by TMA store from an output tile (d=64 causal with a query tail, d=128 GQA with sq < skv).
  one_wave_defaults({{"b=1,hq=8,sq=500,skv=500,d=64,causal=1,dtype=bf16", "default"},
                     {"b=1,hq=8,hkv=2,sq=450,skv=900,d=128,causal=0,dtype=fp16", "default"}},
                    64, 59);
  // More non-causal d=128 tiles than SMs: the persistent walk with keys per block by the blocks' cost over
  // the range: 144-key blocks (1000 keys: the last holds 136) and 128-key ones (1500: the last holds 92), GQA
  // with query tails and sq < skv.
  for (const auto& [text, block_n] : std::initializer_list<std::pair<const char*, int>>{
           {"b=6,hq=16,hkv=4,sq=1000,skv=1000,d=128,causal=0,dtype=bf16", 144},
           {"b=8,hq=16,hkv=8,sq=300,skv=1500,d=128,causal=0,dtype=fp16", 128}}) {
    const Config config = attention::heuristic_config(Problem::parse(text), limits);
    EXPECT_EQ(config.at("block_n"), block_n) << text;
    EXPECT_EQ(config.at("scheduler"), attention::kPersistentScheduler) << text;
    expect_cases_match_reference(f, {{text, "default"}}, 61);
  }
  // Causal d=64 up to 3072 keys where 192-row tiles would be at least four per SM and a head's last one
  // would leave a warpgroup without rows: the four-CTA config (64x64 tiles, a plain grid) over 41 64-key
  // blocks, GQA in groups of two (larger groups pack 192-row tiles there) with a query tail.
  {
    const char* text = "b=8,hq=8,hkv=4,sq=2600,skv=2600,d=64,causal=1,dtype=bf16";
    const Config config = attention::heuristic_config(Problem::parse(text), limits);
    EXPECT_EQ(config.at("block_m"), 64) << text;
    EXPECT_EQ(config.at("min_ctas"), 4) << text;
    expect_cases_match_reference(f, {{text, "default"}}, 63);
  }
  // GQA defaults that pack the group's query heads into the tiles (non-causal: fewer tiles on the busiest
  // SM): the persistent 192-row walk at d=64 (1024 queries: 22 packed tiles per KV head, not 24), the
  // four-CTA config at d=64 with a query tail (990 queries in 64-row tiles of 32 queries x 2 heads), and
  // 128-row d=128 tiles of 64 queries x 2 heads with a query tail and sq < skv; and causal d=64 192-row tiles
  // of 48 queries x 4 heads, whose packed last tile (3200 x 4 = 66 x 192 + 128) skips its idle warpgroup.
  for (const char* text : {"b=6,hq=32,hkv=8,sq=1024,skv=1024,d=64,causal=0,dtype=bf16",
                           "b=5,hq=32,hkv=16,sq=990,skv=990,d=64,causal=0,dtype=fp16",
                           "b=14,hq=12,hkv=6,sq=191,skv=500,d=128,causal=0,dtype=bf16",
                           "b=2,hq=16,hkv=4,sq=3200,skv=3200,d=64,causal=1,dtype=fp16"}) {
    const Config config = attention::heuristic_config(Problem::parse(text), limits);
    EXPECT_EQ(config.at("pack_gqa"), 1) << text;
    expect_cases_match_reference(f, {{text, "default"}}, 71);
  }
  // Short query chunks whose packed rows fill a 128-row tile, on the wgmma mainloop: 64-row tiles of 16
  // queries x 4 heads with a query tail (160 rows), causal 128-row tiles of 17 queries x 8 heads over 901
  // keys (the second tile 8 rows), 128-row d=256 tiles of 48 x 8 (three per KV head) on a grid, causal
  // 128-row d=128 tiles of 50 x 4 (a tail of 72).
  for (const char* text : {"b=6,hq=16,hkv=4,sq=40,skv=1333,d=128,causal=0,dtype=bf16",
                           "b=12,hq=32,hkv=4,sq=17,skv=901,d=64,causal=1,dtype=fp16",
                           "b=8,hq=24,hkv=3,sq=48,skv=2000,d=256,causal=0,dtype=fp16",
                           "b=40,hq=16,hkv=4,sq=50,skv=700,d=128,causal=1,dtype=bf16"}) {
    const Config config = attention::heuristic_config(Problem::parse(text), limits);
    EXPECT_EQ(config.at("mma"), attention::kWgmma) << text;
    EXPECT_EQ(config.at("pack_gqa"), 1) << text;
    expect_cases_match_reference(f, {{text, "default"}}, 73);
  }
  // The other short chunks, unpacked (one head's queries per tile, with tails): 128-row tiles over 100 and 90
  // queries (d=64 causal, d=256 causal with tma_half), 64-row ones over 48, 64 and 55 (d=128 two CTAs per SM
  // on the dynamic scheduler, d=256 dynamic with tma_half, d=64's four-CTA config with a group of three), a
  // grid of 96 128-row tiles (under the SMs: the small-grid rules) over 77 queries of a group of three, and
  // chunks under 48 queries: 21 (d=128 causal, two CTAs per SM) and 29 (d=64's four-CTA config, a group of
  // 3).
  for (const auto& [text, block_m] : std::initializer_list<std::pair<const char*, int>>{
           {"b=12,hq=16,hkv=16,sq=100,skv=777,d=64,causal=1,dtype=bf16", 128},
           {"b=12,hq=16,hkv=16,sq=90,skv=400,d=256,causal=1,dtype=fp16", 128},
           {"b=16,hq=12,hkv=12,sq=48,skv=555,d=128,causal=0,dtype=fp16", 64},
           {"b=12,hq=12,hkv=12,sq=64,skv=700,d=256,causal=0,dtype=bf16", 64},
           {"b=30,hq=6,hkv=2,sq=55,skv=300,d=64,causal=1,dtype=fp16", 64},
           {"b=4,hq=24,hkv=8,sq=77,skv=900,d=128,causal=1,dtype=bf16", 128},
           {"b=12,hq=12,hkv=12,sq=21,skv=333,d=128,causal=1,dtype=bf16", 64},
           {"b=30,hq=6,hkv=2,sq=29,skv=300,d=64,causal=0,dtype=fp16", 64}}) {
    const Config config = attention::heuristic_config(Problem::parse(text), limits);
    EXPECT_EQ(config.at("mma"), attention::kWgmma) << text;
    EXPECT_EQ(config.at("pack_gqa"), 0) << text;
    EXPECT_EQ(config.at("block_m"), block_m) << text;
    expect_cases_match_reference(f, {{text, "default"}}, 79);
  }
  // The launcher library builds the same TMA descriptors (attention::KernelArguments) on the caller's
  // buffers.
  const Problem p = Problem::parse("b=1,hq=8,hkv=2,sq=200,skv=700,d=128,causal=1,dtype=bf16");
  harness::AttentionWorkspace ws(p, f.compiler, f.target, 5, f.stream);
  AttentionLauncherOptions options;
  options.cache_dir = f.cache_dir.path();
  // scheduler=dynamic: the launcher's workspace holds the tile counter, which every launch leaves at zero;
  // stream_k: its partial slots and per-tail-tile counters, which the merging CTAs leave at zero; o_store=tma
  // and tma_half: the launcher encodes O's descriptor too.
  for (const char* scheduler : {"dynamic", "stream_k", "dynamic,o_store=tma", "dynamic,o_store=tma_half"}) {
    const AttentionLauncher launcher(
        two + "block_n=128,stages=2,overlap=on,pingpong=on,producer_regs=32,scheduler=" + scheduler, p.d, p.causal,
        p.dtype == attention::DType::bf16, options);
    for (int launch = 0; launch < 2; ++launch) {
      ws.poison_outputs(f.stream);
      launcher.launch(AttentionShape{p.b, p.hq, p.hkv, p.sq, p.skv, p.d, p.causal, true}, ws.q().get(),
                      ws.k().get(), ws.v().get(), ws.o().get(), f.stream.get(), ws.lse().get());
      const harness::AttentionCheck check = ws.check(f.stream, true);
      EXPECT_TRUE(check.passed) << "launcher, " << scheduler << ", launch " << launch << ": " << check.reason;
    }
  }
}

// Head dim 256: both tensor-core mainloops, every wgmma feature (GQA, MQA, packed GQA, tails, sq < skv,
// split-KV and its combine kernel, the persistent schedulers, stream-K, the output tile), the split decode
// merged in the tile's last CTA, and the problem-aware defaults (prefill, causal, a small grid, decode).
TEST(GpuAttention, HeadDim256MatchesTheReference) {
  EVOTUNE_REQUIRE_GPU();
  GpuFixture f;
  const DeviceLimits limits = DeviceLimits::from(f.props);
  std::vector<CheckedCase> cases = {
      {"b=1,hq=4,sq=300,skv=300,d=256,causal=1,dtype=fp16", "mma=mma_sync,block_m=64,warps=4,block_n=64,stages=2"},
      {"b=2,hq=32,hkv=8,sq=1,skv=3000,d=256,causal=0,dtype=bf16",
       "mma=mma_sync,block_m=16,warps=4,kv_warps=4,block_n=64,stages=3,q_frags=regs,pack_gqa=on,splits=4,"
       "combine=last_cta"},
      {"b=2,hq=32,hkv=8,sq=1,skv=3000,d=256,causal=0,dtype=bf16", "default"},
      {"b=3,hq=8,hkv=2,sq=5,skv=1001,d=256,causal=1,dtype=fp16", "default"},
  };
  if (limits.compute_capability == 90) {
    const std::string two = "mma=wgmma,block_m=128,warps=12,";
    const std::vector<CheckedCase> wgmma = {
        {"b=2,hq=4,sq=333,skv=333,d=256,causal=0,dtype=fp16",
         two + "block_n=80,stages=2,overlap=on,pingpong=on,producer_regs=24"},
        {"b=2,hq=4,hkv=2,sq=333,skv=500,d=256,causal=1,dtype=bf16",
         two + "block_n=64,stages=2,overlap=off,pingpong=on,producer_regs=24,rescale=lazy"},
        {"b=2,hq=6,hkv=1,sq=100,skv=1000,d=256,causal=1,dtype=fp16",
         "mma=wgmma,block_m=64,warps=8,block_n=64,stages=3,overlap=on"},
        {"b=1,hq=32,hkv=8,sq=37,skv=301,d=256,causal=1,dtype=bf16",
         two + "block_n=64,stages=2,overlap=on,pack_gqa=on,producer_regs=24"},
        {"b=1,hq=16,hkv=2,sq=300,skv=4001,d=256,causal=1,dtype=bf16",
         two + "block_n=64,stages=2,overlap=on,pingpong=on,producer_regs=24,splits=3"},
        {"b=2,hq=32,hkv=8,sq=1,skv=3000,d=256,causal=0,dtype=bf16",
         "mma=wgmma,block_m=64,warps=8,block_n=64,stages=2,overlap=on,pack_gqa=on,splits=auto"},
        {"b=2,hq=16,hkv=4,sq=1111,skv=1111,d=256,causal=1,dtype=bf16",
         two + "block_n=64,stages=2,overlap=on,pingpong=on,producer_regs=24,scheduler=dynamic,rescale=lazy"},
        {"b=3,hq=8,sq=500,skv=700,d=256,causal=0,dtype=fp16",
         "mma=wgmma,block_m=64,warps=8,block_n=64,stages=2,overlap=on,scheduler=persistent,o_store=tma"},
        // o_store=tma_half: a ring of two column-block slots, where the whole output tile does not fit beside
        // 128 rows of Q and two 64-key slots; dynamic causal GQA tails, persistent packed GQA, a grid
        {"b=2,hq=16,hkv=4,sq=1111,skv=1111,d=256,causal=1,dtype=bf16",
         two + "block_n=64,stages=2,overlap=on,pingpong=on,producer_regs=24,scheduler=dynamic,o_store=tma_half,"
               "rescale=lazy"},
        {"b=2,hq=32,hkv=8,sq=300,skv=601,d=256,causal=1,dtype=fp16",
         two + "block_n=64,stages=2,overlap=on,pack_gqa=on,producer_regs=24,scheduler=persistent,o_store=tma_half"},
        {"b=2,hq=4,sq=333,skv=333,d=256,causal=0,dtype=fp16",
         two + "block_n=64,stages=2,overlap=on,pingpong=on,producer_regs=24,o_store=tma_half"},
        {"b=2,hq=16,sq=1000,skv=1000,d=256,causal=0,dtype=fp16",
         two + "block_n=64,stages=2,overlap=off,pingpong=on,producer_regs=24,scheduler=stream_k"},
        {"b=2,hq=16,sq=1000,skv=1000,d=256,causal=0,dtype=bf16", "default"},
        {"b=2,hq=16,hkv=4,sq=999,skv=1300,d=256,causal=1,dtype=fp16", "default"},
        {"b=1,hq=8,sq=700,skv=700,d=256,causal=1,dtype=bf16", "default"},  // a small grid
        {"b=1,hq=5,sq=3000,skv=3000,d=256,causal=1,dtype=fp16", "default"},  // its 128x80 tiles, long range
    };
    cases.insert(cases.end(), wgmma.begin(), wgmma.end());
    // The prefill defaults are wgmma's, 128x64 dynamic with tma_half where the tiles fill the SMs.
    const Config prefill = attention::heuristic_config(Problem::parse("b=2,hq=16,sq=1000,skv=1000,d=256"), limits);
    EXPECT_EQ(prefill.at("mma"), attention::kWgmma);
    EXPECT_EQ(prefill.at("block_n"), 64);
    EXPECT_EQ(prefill.at("o_store"), 2);
  }
  expect_cases_match_reference(f, cases, 61);
}

// rescale=lazy moves a row's softmax reference only when a block's max passes it by 2^8. With normal inputs the
// max grows far less than that after the first block, so here the keys are scaled up along the sequence (key
// j by 1 + 7 j / skv: the later blocks' scores up to eight times the first's, several moves of the reference
// per row) and both rescale policies, with and without overlap, must still match the reference.
TEST(GpuAttention, WgmmaLazyRescaleFollowsAGrowingMax) {
  EVOTUNE_REQUIRE_GPU();
  GpuFixture f;
  if (DeviceLimits::from(f.props).compute_capability != 90) GTEST_SKIP() << "mma=wgmma needs an sm_90 GPU";
  const std::string two = "mma=wgmma,block_m=128,warps=12,";
  const std::vector<CheckedCase> cases = {
      {"b=2,hq=8,hkv=2,sq=300,skv=700,d=64,causal=1,dtype=bf16",
       "mma=wgmma,block_m=64,warps=8,block_n=64,stages=2,overlap=off,producer_regs=24,min_ctas=4,o_store=tma"},
      {"b=2,hq=4,sq=555,skv=555,d=128,causal=0,dtype=fp16",
       two + "block_n=128,stages=2,overlap=on,pingpong=on,producer_regs=24"},
      {"b=1,hq=4,sq=400,skv=1500,d=64,causal=1,dtype=fp16",
       two + "block_n=128,stages=2,overlap=on,producer_regs=32,scheduler=dynamic,o_store=tma,splits=3"},
  };
  const DeviceLimits limits = DeviceLimits::from(f.props);
  for (const CheckedCase& c : cases) {
    const Problem p = Problem::parse(c.problem);
    harness::AttentionWorkspace ws(p, f.compiler, f.target, 77, f.stream);
    const std::vector<float> k = ws.download_input('k');
    std::vector<std::uint16_t> grown(k.size());
    for (std::size_t i = 0; i < k.size(); ++i) {
      const long long key = static_cast<long long>(i / p.d) % p.skv;
      const float x = k[i] * (1.0f + 7.0f * static_cast<float>(key) / static_cast<float>(p.skv));
      grown[i] = p.dtype == attention::DType::fp16 ? runtime::float_to_half_bits(x) : runtime::float_to_bf16_bits(x);
    }
    ws.k().upload(std::span<const std::uint16_t>(grown));
    ws.refresh_references(f.stream);
    for (const char* rescale : {"every", "lazy"}) {
      const Config config = attention::parse_config(c.config + ",rescale=" + rescale);
      ASSERT_EQ(attention::invalid_reason(config, p, limits), std::nullopt) << c.config;
      run_kernel(f, f.compiler.compile(attention::compile_request(config, p, f.target)), config, p, ws);
      const harness::AttentionCheck check = ws.check(f.stream, true);
      EXPECT_TRUE(check.passed) << c.problem << " | " << attention::format(config) << ": " << check.reason;
      EXPECT_LT(check.lse_max_error, 1e-3) << c.problem << " | " << attention::format(config);
    }
  }
}
