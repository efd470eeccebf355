// Ahead-of-time kernels (issue 14): programs that run exported CUBINs need the CUDA driver alone. NVRTC is
// neither linked into them nor loaded until something compiles; the launcher refuses a CUBIN for another
// architecture unless JIT was asked for. On a GPU, the example program runs the committed table's kernels
// from their CUBINs with no libnvrtc mapped.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include "deploy/attention_launcher.h"
#include "runtime/cuda_driver.h"
#include "runtime/cuda_objects.h"
#include "runtime/device_properties.h"
#include "runtime/nvrtc_compiler.h"
#include "runtime/nvrtc_library.h"
#include "families/attention/host/attention_family.h"
#include "runtime/embedded_sources.h"
#include "tests/subprocess.h"
#include "tests/test_support.h"
#include EVOTUNE_TUNED_HEADER_PATH  // the table the example and libevotune_capi are built with

namespace {

using evotune::testing::run_process;

bool nvrtc_mapped() {
  std::ifstream maps("/proc/self/maps");
  for (std::string line; std::getline(maps, line);) {
    if (line.find("libnvrtc") != std::string::npos) return true;
  }
  return false;
}

// The shared libraries a binary asks the dynamic loader for (its ELF NEEDED entries).
std::string needed_libraries(const std::string& binary) {
  const evotune::testing::ProcessResult r = run_process({"/usr/bin/readelf", "-d", binary});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  std::string needed;
  std::size_t at = 0;
  while ((at = r.output.find("(NEEDED)", at)) != std::string::npos) {
    const std::size_t end = r.output.find('\n', at);
    needed += r.output.substr(at, end - at) + "\n";
    at = end;
  }
  return needed;
}

}  // namespace

TEST(Aot, ProgramsThatRunTunedKernelsDoNotLinkNvrtcOrTheDriver) {
  for (const std::string& binary : {evotune::testing::example_binary(), evotune::testing::capi_library(),
                                    evotune::testing::evotune_binary()}) {
    const std::string needed = needed_libraries(binary);
    EXPECT_NE(needed.find("libc.so"), std::string::npos) << binary << ": readelf found no NEEDED entries\n"
                                                         << needed;
    EXPECT_EQ(needed.find("libnvrtc"), std::string::npos) << binary << "\n" << needed;
    EXPECT_EQ(needed.find("libcuda"), std::string::npos) << binary << "\n" << needed;
  }
}

// Whether NVRTC is loaded can only be seen in a process that has compiled nothing yet, so the test runs
// itself again in a fresh process (marked by EVOTUNE_AOT_FRESH_PROCESS), where it is the only test.
TEST(Aot, NvrtcIsLoadedByTheFirstCompileOnly) {
  if (std::getenv("EVOTUNE_AOT_FRESH_PROCESS") != nullptr) {
    ASSERT_FALSE(evotune::runtime::nvrtc_loaded());
    ASSERT_FALSE(nvrtc_mapped());
    const std::string version = evotune::runtime::nvrtc_version();  // the process's first NVRTC call
    EXPECT_FALSE(version.empty());
    EXPECT_TRUE(evotune::runtime::nvrtc_loaded());
    EXPECT_TRUE(nvrtc_mapped());
    return;
  }
  const evotune::testing::ProcessResult r =
      run_process({"/usr/bin/env", "EVOTUNE_AOT_FRESH_PROCESS=1",
                   std::filesystem::read_symlink("/proc/self/exe").string(),
                   "--gtest_filter=Aot.NvrtcIsLoadedByTheFirstCompileOnly"});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("[  PASSED  ] 1 test"), std::string::npos) << r.output;
}

TEST(Aot, AMissingNvrtcIsAClearErrorAtTheCompile) {
  const evotune::testing::ProcessResult r =
      run_process({"/usr/bin/env", "EVOTUNE_NVRTC_LIBRARY=/nonexistent/libnvrtc.so.13",
                   evotune::testing::evotune_binary(), "--no-cache", "compile", "--problem",
                   "b=1,hq=2,hkv=2,sq=64,skv=64,d=64,causal=0,dtype=fp16", "--target", "sm_80"});
  EXPECT_NE(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("NVRTC is needed to compile a kernel and could not be loaded: tried "
                          "/nonexistent/libnvrtc.so.13"),
            std::string::npos)
      << r.output;
}

TEST(Launcher, APrecompiledKernelNeedsOnlyTheDriver) {
  std::string why;
  if (evotune::runtime::driver_available(&why))
    GTEST_SKIP() << "this machine has a GPU (GpuExport runs the CUBINs)";
  // ctest runs each test in a process of its own; the whole binary in one process has compiled before.
  if (evotune::runtime::nvrtc_loaded()) GTEST_SKIP() << "an earlier test of this process loaded NVRTC";
  evotune::PrecompiledKernel kernel;
  kernel.config = "mma=mma_sync";
  kernel.target = "sm_90a";
  kernel.kernel_name = "attention_fwd";
  const char bytes[] =
      "\x7f"
      "ELF";
  kernel.cubin = bytes;
  kernel.cubin_size = sizeof(bytes);
  try {
    evotune::AttentionLauncher launcher(kernel);
    FAIL() << "a launcher needs a device";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("driver"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(evotune::runtime::nvrtc_loaded()) << "loading a CUBIN must not open NVRTC";
}

// The table the build embeds was exported from this build's kernel sources: otherwise every launcher refuses its
// CUBINs on the GPU ("other kernel sources"), and the C ABI and the PyTorch op run nothing without JIT. The
// digest covers the embedded attention/ headers byte for byte, comments too: any edit there means exporting
// the table again (evotune export, then re-verifying it on the GPU). Caught here, on the CPU, in CI.
TEST(Aot, TheEmbeddedTableWasExportedFromTheseKernelSources) {
  for (const evotune_tuned::TunedAttention& entry : evotune_tuned::kEntries) {
    if (entry.cubin_size == 0) continue;  // exported without CUBINs: nothing to match
    EXPECT_EQ(std::string(entry.sources), evotune::attention::kernel_sources_digest())
        << EVOTUNE_TUNED_HEADER_PATH << " entry for " << entry.config
        << " was exported from other kernel sources: export the table again";
  }
}

// On a GPU of the table's architecture: its first entry loads from the CUBIN; the same entry claiming other
// kernel sources (a header exported by another evotune) is refused, or compiled afresh with jit_fallback.
TEST(GpuAot, TheLauncherRunsOnlyCubinsOfItsOwnKernelSources) {
  EVOTUNE_REQUIRE_GPU();
  evotune_tuned::TunedAttention entry = evotune_tuned::kEntries[0];
  ASSERT_EQ(std::string(entry.sources), evotune::attention::kernel_sources_digest())
      << "the committed table was exported from other kernel sources: export it again";
  evotune::AttentionLauncher launcher = evotune::AttentionLauncher::from_tuned(entry);
  if (!launcher.ahead_of_time()) FAIL() << "the entry's CUBIN was not used";
  entry.sources = "0123456789abcdef";
  try {
    evotune::AttentionLauncher::from_tuned(entry);
    FAIL() << "a CUBIN of other kernel sources ran";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("other kernel sources (0123456789abcdef)"), std::string::npos) << e.what();
  }
  evotune::AttentionLauncherOptions jit;
  jit.jit_fallback = true;
  evotune::AttentionLauncher compiled = evotune::AttentionLauncher::from_tuned(entry, jit);
  EXPECT_FALSE(compiled.ahead_of_time());
  EXPECT_EQ(compiled.config(), launcher.config());
}

// The one gate before every launch: a launcher from a table entry whose config packs GQA heads into 128-row
// tiles refuses a shape whose groups those tiles cannot hold (groups of 7: the problem that hung the op on an
// H200), before anything reaches the GPU; a shape whose groups fit runs.
TEST(GpuAot, TheLauncherRefusesAShapeItsConfigsRulesRefuse) {
  EVOTUNE_REQUIRE_GPU();
  const evotune_tuned::TunedAttention* packed = nullptr;
  for (const evotune_tuned::TunedAttention& e : evotune_tuned::kEntries) {
    if (e.needs.group_divides != 0 && e.problem.d == 128 && packed == nullptr) packed = &e;
  }
  ASSERT_NE(packed, nullptr) << "the table has no entry that packs GQA heads into wgmma tiles";
  evotune::AttentionLauncher launcher = evotune::AttentionLauncher::from_tuned(*packed);
  const evotune::AttentionShape sevens{1, 28, 4, 3000, 3000, 128, packed->problem.causal, packed->problem.bf16};
  try {
    launcher.launch(sevens, 16, 16, 16, 16, nullptr);
    FAIL() << "a shape the config's rules refuse was launched";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("whole groups of 7 heads"), std::string::npos) << e.what();
  }
}

// A check build's barrier wait that nothing completes traps with a message instead of hanging the GPU (the
// launcher's bounded_waits, `evotune bench --check`). In a child process, whose CUDA context the trap ends.
TEST(GpuBoundedWaits, AWaitThatNothingCompletesTrapsInsteadOfHanging) {
  EVOTUNE_REQUIRE_GPU();
  if (std::getenv("EVOTUNE_BOUNDED_WAIT_CHILD") != nullptr) {
    const evotune::runtime::DeviceProperties props = evotune::runtime::query_device(0);
    if (props.native_target() != "sm_90a") GTEST_SKIP() << "mbarrier parity waits are sm_90 code";
    evotune::runtime::DeviceContext context(0);
    evotune::runtime::CompileRequest request;
    request.source_name = "wait_forever.cu";
    request.source =
        "#include \"attention/sm90.cuh\"\n"
        "__global__ void wait_forever() {\n"
        "  __shared__ unsigned long long barrier;\n"
        "  if (threadIdx.x == 0) evotune_attention::sm90::mbarrier_init(&barrier, 1);\n"
        "  __syncthreads();\n"
        "  evotune_attention::sm90::mbarrier_wait(&barrier, 0);  // no thread arrives: the phase never completes\n"
        "}\n";
    request.headers = evotune::templates::embedded_headers("attention/");
    request.name_expressions = {"wait_forever"};
    request.options = {"-DEVOTUNE_BOUNDED_WAITS=1", "-DEVOTUNE_WAIT_LIMIT_NS=200000000ull"};
    request.target = evotune::runtime::Target::parse(props.native_target());
    request.label = "wait_forever";
    evotune::runtime::NvrtcCompiler compiler;
    const evotune::runtime::CompileResult compiled = compiler.compile(request);
    evotune::runtime::Module module(compiled.cubin, "wait_forever");
    const evotune::runtime::Kernel kernel = module.kernel(compiled.lowered("wait_forever"));
    evotune::runtime::Stream stream;
    evotune::runtime::LaunchGeometry geometry;
    geometry.block[0] = 32;
    const CUresult launched = evotune::runtime::try_launch(kernel, geometry, stream.get(), nullptr);
    const CUresult finished =
        launched != CUDA_SUCCESS ? launched : evotune::runtime::driver().cuStreamSynchronize(stream.get());
    std::printf("wait_forever finished with CUresult %d\n", static_cast<int>(finished));
    EXPECT_NE(finished, CUDA_SUCCESS);
    return;
  }
  const evotune::testing::ProcessResult r =
      run_process({"/usr/bin/env", "EVOTUNE_BOUNDED_WAIT_CHILD=1",
                   std::filesystem::read_symlink("/proc/self/exe").string(),
                   "--gtest_filter=GpuBoundedWaits.AWaitThatNothingCompletesTrapsInsteadOfHanging"},
                  120);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("bounded wait expired"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("[  PASSED  ] 1 test"), std::string::npos) << r.output;
}
