// The NVRTC layer on the CPU: real compiles for sm_80 and sm_90a, resource reports, errors.
#include <gtest/gtest.h>

#include "runtime/nvrtc_compiler.h"
#include "harness/smoke_family.h"
#include "tests/test_support.h"

using namespace evotune::runtime;
using evotune::templates::smoke_compile_request;
using evotune::templates::SmokeVariant;

TEST(NvrtcCompiler, CompilesTemplatedKernelForAmpereAndHopperWithResourceReport) {
  NvrtcCompiler compiler;
  SmokeVariant variant{.block = 256, .items = 4, .half = true};
  std::vector<char> previous;
  for (const char* arch : {"sm_80", "sm_90a"}) {
    Target target = Target::parse(arch);
    CompileResult result = compiler.compile(smoke_compile_request(variant, target));
    ASSERT_FALSE(result.cubin.empty()) << arch;
    EXPECT_EQ(cubin_compute_capability(result.cubin), target.compute_capability()) << arch;

    const std::string expression = "block_sum<256, 4, __half>";
    // The lowered name is the Itanium mangling of exactly this instantiation
    // (c++filt: void block_sum<256, 4, __half>(__half const*, float*, int, float)).
    EXPECT_EQ(result.lowered(expression), "_Z9block_sumILi256ELi4E6__halfEvPKT1_Pfif") << arch;
    const ResourceUsage& usage = result.resources_of(expression);
    EXPECT_EQ(usage.shared_bytes, 256 * 4) << arch;  // float partial[kBlock]
    EXPECT_EQ(usage.barriers, 1) << arch;            // __syncthreads uses barrier 0
    EXPECT_GT(usage.registers, 4) << arch;
    EXPECT_LE(usage.registers, 64) << arch;  // __launch_bounds__(256) on a tiny kernel
    EXPECT_EQ(usage.spill_store_bytes, 0) << arch;
    EXPECT_EQ(usage.spill_load_bytes, 0) << arch;
    EXPECT_EQ(usage.stack_frame_bytes, 0) << arch;
    EXPECT_NE(result.log.find(arch), std::string::npos) << "ptxas report should name the target";
    EXPECT_NE(result.cubin, previous);
    previous = result.cubin;
  }
  EXPECT_EQ(compiler.invocations(), 2);
}

TEST(NvrtcCompiler, SharedMemoryReportFollowsTheTemplateArgument) {
  NvrtcCompiler compiler;
  for (int block : {64, 512}) {
    SmokeVariant v{.block = block, .items = 2, .half = false};
    CompileResult r = compiler.compile(smoke_compile_request(v, Target::parse("sm_90a")));
    EXPECT_EQ(r.resources_of(evotune::templates::smoke_name_expression(v)).shared_bytes, block * 4);
  }
}

TEST(NvrtcCompiler, CompileErrorCarriesTheLog) {
  NvrtcCompiler compiler;
  CompileRequest request;
  request.source_name = "broken.cu";
  request.source = "__global__ void broken(float* x) {\n  x[0] = undefined_symbol_42;\n}\n";
  request.target = Target::parse("sm_90a");
  request.label = "broken config";
  try {
    compiler.compile(request);
    FAIL() << "a compile error must throw";
  } catch (const CompileError& e) {
    EXPECT_NE(e.log().find("undefined_symbol_42"), std::string::npos) << e.log();
    EXPECT_NE(e.log().find("broken.cu(2)"), std::string::npos) << "the log names file and line: " << e.log();
    std::string what = e.what();
    EXPECT_NE(what.find("broken config"), std::string::npos) << what;
    EXPECT_NE(what.find("undefined_symbol_42"), std::string::npos) << what;
  }
}

TEST(NvrtcCompiler, OptionsReachNvrtc) {
  NvrtcCompiler compiler;
  CompileRequest request;
  request.source = "#ifndef MUST_BE_DEFINED\n#error MUST_BE_DEFINED missing\n#endif\n__global__ void k() {}\n";
  request.target = Target::parse("sm_80");
  EXPECT_THROW(compiler.compile(request), CompileError);
  request.options = {"-DMUST_BE_DEFINED=1"};
  EXPECT_NO_THROW(compiler.compile(request));
}

TEST(NvrtcCompiler, MissingCudaIncludeDirIsAClearError) {
  try {
    find_cuda_include_dir({"/nonexistent/cuda-a/include", "/nonexistent/cuda-b/include"});
    FAIL() << "must throw";
  } catch (const std::runtime_error& e) {
    std::string what = e.what();
    EXPECT_NE(what.find("/nonexistent/cuda-a/include"), std::string::npos) << what;
    EXPECT_NE(what.find("CUDA_HOME"), std::string::npos) << what;
  }
  EXPECT_NO_THROW(find_cuda_include_dir(default_cuda_include_candidates()));
}

TEST(NvrtcCompiler, RejectsNonCubinImages) {
  EXPECT_THROW(cubin_compute_capability(std::vector<char>(100, 'x')), std::invalid_argument);
}
