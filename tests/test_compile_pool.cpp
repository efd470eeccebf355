// 16 distinct kernels compiled at once by the pool: each result belongs to its own request and is
// byte-identical to a sequential compile of that request.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <set>

#include "runtime/compile_pool.h"
#include "runtime/cubin_cache.h"
#include "test_support.h"
#include "harness/smoke_family.h"

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
