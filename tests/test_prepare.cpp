// The prepare stage (runtime/prepare.h, attention::prepare): rule rejections never compile, compile
// errors are cached and not compiled again, spills are rejected with their resource report, cache hits
// give the same kernel without compiling; and PrepareAhead answers preparations in any order.
#include <gtest/gtest.h>
#include <poll.h>

#include <chrono>
#include <future>
#include <thread>

#include "harness/rejection_status.h"
#include "runtime/cubin_cache.h"
#include "runtime/prepare.h"
#include "search/prepare_ahead.h"
#include "families/attention/host/attention_family.h"
#include "harness/smoke_family.h"
#include "tests/test_support.h"

using namespace evotune;
using runtime::Rejection;

namespace {

struct Fixture {
  evotune::testing::TempDir dir;
  runtime::NvrtcCompiler nvrtc;
  runtime::CubinCache cache{dir.path()};
  runtime::CachingCompiler compiler{nvrtc, cache};
  runtime::Target target = runtime::Target::parse("sm_90a");
  DeviceLimits limits = DeviceLimits::for_target(target);
  attention::Problem problem = attention::Problem::parse("b=1,hq=4,sq=512,d=128,causal=1");

  runtime::Preparation prepare(const std::string& config) {
    return attention::prepare(attention::parse_config(config), problem, limits, target, compiler);
  }
};

}  // namespace

TEST(Prepare, RuleRejectionsNeverCompile) {
  Fixture f;
  const runtime::Preparation p = f.prepare("mma=mma_sync,block_m=16,warps=8");  // 2 rows per warp
  const Rejection* r = runtime::rejected(p);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->kind, Rejection::Kind::rule);
  EXPECT_EQ(harness::trial_status(*r), core::TrialStatus::invalid);
  EXPECT_NE(r->reason.find("rows per row group of warps"), std::string::npos) << r->reason;
  EXPECT_FALSE(r->compiled_now);
  EXPECT_EQ(f.nvrtc.invocations(), 0);
}

TEST(Prepare, AcceptedKernelsCarryTheirCacheEntryAndACacheHitIsTheSameKernel) {
  Fixture f;
  const runtime::Preparation first = f.prepare("block_m=64,block_n=64,warps=4");
  const runtime::PreparedKernel* a = runtime::prepared(first);
  ASSERT_NE(a, nullptr) << runtime::rejected(first)->reason;
  EXPECT_TRUE(a->compiled_now);
  EXPECT_GT(a->compile_seconds, 0.0);
  EXPECT_EQ(a->cache_key, runtime::cache_key(f.compiler, attention::compile_request(
                                                            attention::parse_config("block_m=64,block_n=64,warps=4"),
                                                            f.problem, f.target)));
  ASSERT_TRUE(f.cache.load(a->cache_key).has_value()) << "a worker loads it from the cache by this key";
  EXPECT_NE(a->kernel_name.find("attention_fwd"), std::string::npos);
  EXPECT_GT(a->resources.registers, 0);
  ASSERT_TRUE(a->cubin);
  // Another problem with the same head dim, dtype and causality compiles to the same kernel: a hit.
  f.problem = attention::Problem::parse("b=8,hq=32,hkv=8,sq=3000,skv=3000,d=128,causal=1");
  const runtime::Preparation second = f.prepare("block_m=64,block_n=64,warps=4");
  const runtime::PreparedKernel* b = runtime::prepared(second);
  ASSERT_NE(b, nullptr);
  EXPECT_FALSE(b->compiled_now);
  EXPECT_EQ(b->cache_key, a->cache_key);
  EXPECT_EQ(b->kernel_name, a->kernel_name);
  EXPECT_EQ(b->resources, a->resources);
  EXPECT_DOUBLE_EQ(b->compile_seconds, a->compile_seconds) << "the build's NVRTC time travels with the entry";
  EXPECT_EQ(*b->cubin, *a->cubin);
  EXPECT_EQ(f.nvrtc.invocations(), 1);
}

// A config the H100 search recorded as spilling (evidence/results/h100/issue5-deploy/deploy.db).
TEST(Prepare, SpillsAreRejectedWithTheirResourceReport) {
  Fixture f;
  const char* spilling =
      "mma=mma_sync,block_m=128,block_n=128,warps=4,stages=3,vec_bytes=8,q_frags=smem,min_ctas=3,overlap=off";
  const runtime::Preparation p = f.prepare(spilling);
  const Rejection* r = runtime::rejected(p);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->kind, Rejection::Kind::resources);
  EXPECT_EQ(harness::trial_status(*r), core::TrialStatus::invalid);
  EXPECT_NE(r->reason.find("register spills"), std::string::npos) << r->reason;
  ASSERT_TRUE(r->compiled.has_value());
  EXPECT_GT(r->compiled->resources.spill_store_bytes, 0);
  EXPECT_TRUE(r->compiled_now);
  // The verdict holds on the next preparation, from the cache.
  const runtime::Preparation second = f.prepare(spilling);
  const Rejection* again = runtime::rejected(second);
  ASSERT_NE(again, nullptr);
  EXPECT_EQ(again->kind, Rejection::Kind::resources);
  EXPECT_FALSE(again->compiled_now);
  EXPECT_EQ(f.nvrtc.invocations(), 1);
}

TEST(Prepare, ACompileErrorIsCachedWithItsLogAndNeverCompiledAgain) {
  Fixture f;
  runtime::CompileRequest bad = templates::smoke_compile_request({}, f.target);
  bad.source += "\nnot_a_declaration;\n";
  auto accept = [](const runtime::ResourceUsage&) { return std::optional<std::string>(); };
  const runtime::Preparation first = runtime::prepare_kernel(f.compiler, bad, bad.name_expressions[0], accept);
  const Rejection* r = runtime::rejected(first);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->kind, Rejection::Kind::compile_error);
  EXPECT_EQ(harness::trial_status(*r), core::TrialStatus::compile_error);
  EXPECT_NE(r->reason.find("not_a_declaration"), std::string::npos) << "the log is in the reason";
  EXPECT_TRUE(r->compiled_now);
  runtime::CachingCompiler later(f.nvrtc, f.cache);  // another process, say
  const runtime::Preparation second = runtime::prepare_kernel(later, bad, bad.name_expressions[0], accept);
  const Rejection* again = runtime::rejected(second);
  ASSERT_NE(again, nullptr);
  EXPECT_EQ(again->kind, Rejection::Kind::compile_error);
  EXPECT_EQ(again->reason, r->reason);
  EXPECT_FALSE(again->compiled_now);
  EXPECT_EQ(f.nvrtc.invocations(), 1);
}

// Preparations finish in any order; ready() never blocks, wait() does, notify_fd() wakes a poll(), each
// config is prepared once however often it is submitted, and the coordinator never holds CUBINs.
TEST(PrepareAhead, AnswersInAnyOrderOncePerConfigAndWakesAPoll) {
  std::atomic<int> calls{0};
  // Config 0 finishes only once the test has seen that ready() does not wait for it (a sleep would not
  // do: on a loaded machine the test can be descheduled for longer than any sleep).
  std::promise<void> release;
  const std::shared_future<void> released = release.get_future().share();
  auto prepare = [&](const Config& c) -> runtime::Preparation {
    ++calls;
    const int n = c.at("n");
    if (n == 0) released.wait_for(std::chrono::seconds(120));  // a limit only against a hang
    std::this_thread::sleep_for(std::chrono::milliseconds(n % 2 == 0 ? 150 : 5));  // evens are slow
    if (n == 3) return Rejection{Rejection::Kind::compile_error, "three does not compile", 0.5, true, std::nullopt};
    runtime::PreparedKernel k;
    k.cache_key = "key" + std::to_string(n);
    k.kernel_name = "kernel";
    k.compiled_now = n != 5;
    k.compile_seconds = 0.25;
    k.cubin = std::make_shared<const std::vector<char>>(100, 'x');
    return k;
  };
  auto config = [](int n) { return Config({{"n", n}}); };
  search::PrepareAhead ahead(prepare, 3);
  ahead.submit({config(0), config(1), config(2), config(3)});
  ahead.submit({config(1), config(5)});  // 1 again: not prepared twice
  EXPECT_TRUE(ahead.submitted(config(5)));
  EXPECT_FALSE(ahead.submitted(config(9)));
  EXPECT_EQ(ahead.ready(config(0)), nullptr) << "ready() must not block";
  release.set_value();
  pollfd fd{ahead.notify_fd(), POLLIN, 0};
  ASSERT_EQ(poll(&fd, 1, 120'000), 1) << "a finished preparation wakes a poll";
  const auto one = ahead.wait(config(1));
  ASSERT_NE(runtime::prepared(*one), nullptr);
  EXPECT_FALSE(runtime::prepared(*one)->cubin) << "the CUBIN stays in the cache, not in the coordinator";
  EXPECT_EQ(runtime::prepared(*one)->cache_key, "key1");
  EXPECT_EQ(runtime::rejected(*ahead.wait(config(3)))->reason, "three does not compile");
  for (int n : {0, 2, 5}) ASSERT_NE(ahead.wait(config(n)), nullptr);
  ahead.drain_notifications();
  EXPECT_EQ(poll(&fd, 1, 0), 0) << "drained";
  EXPECT_NE(ahead.wait(config(7)), nullptr) << "wait() submits what was never submitted";
  EXPECT_EQ(calls.load(), 6);
  const search::PrepareAhead::Stats s = ahead.stats();
  EXPECT_EQ(s.prepared, 6);
  EXPECT_EQ(s.compile_errors, 1);
  EXPECT_EQ(s.from_cache, 1);  // config 5
  EXPECT_EQ(s.compiled_now, 5);
  EXPECT_EQ(s.nvrtc_seconds.size(), 5u);
}
