// 16 distinct kernels compiled at once by the pool: each result belongs to its own request and is
// byte-identical to a sequential compile of that request.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <set>

#include "runtime/compile_pool.h"
#include "runtime/cubin_cache.h"
#include "search/compile_ahead.h"
#include "test_support.h"
#include "templates/smoke/smoke_family.h"

using namespace evotune::runtime;
using evotune::templates::distinct_smoke_variants;
using evotune::templates::smoke_compile_request;
using evotune::templates::smoke_name_expression;

TEST(CompilePool, SixteenDistinctKernelsConcurrentlyEachCorrect) {
  NvrtcCompiler compiler;
  Target target = Target::parse("sm_90a");
  auto variants = distinct_smoke_variants(16);
  std::vector<std::future<CompileResult>> futures;
  {
    CompilePool pool(compiler, 4);  // more threads than cores: NVRTC calls really overlap
    EXPECT_EQ(pool.threads(), 4u);
    for (const auto& v : variants) futures.push_back(pool.submit(smoke_compile_request(v, target)));
    // Results are collected below, after the pool's destructor has drained the queue.
  }
  std::set<std::vector<char>> distinct_cubins;
  for (std::size_t i = 0; i < variants.size(); ++i) {
    const auto& v = variants[i];
    CompileResult result = futures[i].get();
    std::string expression = smoke_name_expression(v);
    // The lowered name encodes this request's template arguments.
    const std::string& lowered = result.lowered(expression);
    EXPECT_NE(lowered.find(fmt::format("ILi{}ELi{}E", v.block, v.items)), std::string::npos) << lowered;
    EXPECT_NE(lowered.find(v.half ? "6__half" : "f"), std::string::npos) << lowered;
    EXPECT_EQ(result.resources_of(expression).shared_bytes, v.block * 4) << expression;
    distinct_cubins.insert(result.cubin);

    // A sequential compile of the same request gives the same bytes: nothing leaked between threads.
    CompileResult sequential = compiler.compile(smoke_compile_request(v, target));
    EXPECT_EQ(sequential.cubin, result.cubin) << expression;
  }
  EXPECT_EQ(distinct_cubins.size(), 16u);
  EXPECT_EQ(compiler.invocations(), 32);
}

TEST(CompilePool, ErrorsReachTheCaller) {
  NvrtcCompiler compiler;
  CompilePool pool(compiler, 2);
  CompileRequest bad;
  bad.source = "this is not CUDA";
  bad.target = Target::parse("sm_80");
  auto failed = pool.submit(bad);
  auto good = pool.submit(smoke_compile_request({}, Target::parse("sm_80")));
  EXPECT_THROW(failed.get(), CompileError);
  EXPECT_FALSE(good.get().cubin.empty());
}

// Compile-ahead (search/compile_ahead.h): configs compiled on the pool land in the disk cache, so the
// worker's own compile of the same request is a hit; configs without a request are skipped, compile
// errors are counted (not thrown), and wait() on anything unknown returns at once.
TEST(CompileAhead, FillsTheCacheTheWorkersReadAndSkipsOrCountsTheRest) {
  evotune::testing::TempDir dir;
  NvrtcCompiler nvrtc;
  CubinCache cache(dir.path());
  CachingCompiler caching(nvrtc, cache);
  const Target target = Target::parse("sm_90a");
  // A test mapping from a config to a request: block picks a smoke variant, 0 means "rejected before
  // compiling", 1 a request that does not compile.
  auto request_for = [&](const evotune::Config& c) -> std::optional<CompileRequest> {
    const int block = c.at("block");
    if (block == 0) return std::nullopt;
    if (block == 1) {
      CompileRequest bad;
      bad.source = "this is not CUDA";
      bad.target = target;
      return bad;
    }
    return smoke_compile_request({block, 4, true}, target);
  };
  auto config = [](int block) { return evotune::Config({{"block", block}}); };
  {
    evotune::search::CompileAhead ahead(caching, 2, request_for);
    ahead.submit({config(128), config(0), config(1), config(256)});
    ahead.submit({config(128)});  // already pending: not compiled twice
    for (int block : {128, 0, 1, 256, 512}) ahead.wait(config(block));
    ahead.wait(config(128));  // already waited for
    EXPECT_EQ(ahead.stats().submitted, 3);
    EXPECT_EQ(ahead.stats().failed, 1);
    EXPECT_GE(ahead.stats().waited_seconds, 0.0);
    // The real NVRTC time of what it compiled, for the trial to record; nothing for the rest.
    ASSERT_TRUE(ahead.compile_seconds(config(256)).has_value());
    EXPECT_GT(*ahead.compile_seconds(config(256)), 0.0);
    EXPECT_FALSE(ahead.compile_seconds(config(0)).has_value());
    EXPECT_FALSE(ahead.compile_seconds(config(1)).has_value());
  }
  EXPECT_EQ(nvrtc.invocations(), 3);
  // What a worker does next: the same requests through a fresh caching compiler are hits.
  CachingCompiler worker(nvrtc, cache);
  worker.compile(smoke_compile_request({128, 4, true}, target));
  worker.compile(smoke_compile_request({256, 4, true}, target));
  EXPECT_EQ(worker.hits(), 2);
  EXPECT_EQ(nvrtc.invocations(), 3);
}
