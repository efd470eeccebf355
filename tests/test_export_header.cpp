// `evotune export --format header`: the header generated from a real H100 search database compiles
// alone as C++17, records where each entry came from, and its lookup falls back as documented (the
// lookup is compiled and run as real code). The launcher library's argument checks. On a GPU: export
// re-verifies, and the example program runs the exported winner and passes its check.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <sqlite3.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "families/attention/host/export_header.h"
#include "evidence/store.h"
#include "deploy/attention_launcher.h"
#include "runtime/device_properties.h"
#include "tests/subprocess.h"
#include "tests/test_support.h"

namespace {

namespace fs = std::filesystem;
const std::string kFixtureDb =
    (evotune::testing::source_dir() / "evidence/results/h100/issue4-search/search_fp16/search.db").string();

struct Ran {
  int code = 0;
  std::string output;  // stdout and stderr
};

Ran run_command(const std::string& command) {
  Ran r;
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  char buffer[4096];
  std::size_t n;
  while ((n = fread(buffer, 1, sizeof(buffer), pipe)) > 0) r.output.append(buffer, n);
  const int status = pclose(pipe);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return r;
}

using evotune::testing::evotune_binary;

evotune::evidence::TunedEntry entry(const std::string& device, int sm, int b, int s, int d, bool causal,
                                    const std::string& mma) {
  evotune::evidence::TunedEntry e;
  e.device = device;
  e.sm = sm;
  e.b = b;
  e.hq = e.hkv = 16;
  e.sq = e.skv = s;
  e.d = d;
  e.causal = causal;
  e.problem_text = "b=" + std::to_string(b) + ",s=" + std::to_string(s);
  e.config_text = "mma=" + mma + ",block_m=128";
  e.run_id = b * 100 + sm;
  e.median_us = 100;
  e.verification = "not re-verified: test";
  return e;
}

}  // namespace

TEST(ExportHeader, RealSearchDatabaseGivesAHeaderThatCompilesAloneAsCpp17) {
  evotune::testing::TempDir dir;
  const fs::path db = dir.path() / "search.db";
  fs::copy_file(kFixtureDb, db);
  const fs::path header = dir.path() / "tuned_attention.h";
  // --skip-verify: the same text whether or not this machine has a GPU.
  Ran r = run_command(evotune_binary() + " export --db " + db.string() + " --out " + header.string() + " --skip-verify");
  ASSERT_EQ(r.code, 0) << r.output;
  const std::string text = evotune::testing::file_bytes(header);
  // The run's winner (trial 112 of 300; evidence/results/h100/issue4-search/search_fp16/top_1.txt).
  EXPECT_NE(text.find("// NVIDIA H100 80GB HBM3: b=4,hq=16,hkv=16,sq=4096,skv=4096,d=128,causal=1,dtype=fp16 (sm_90)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("run 1 (evo, 300 trials"), std::string::npos);
  EXPECT_NE(text.find("trial 112: median 1027.82 us (p10 1022.56, p90 1034.98), 267.5 TFLOP/s"), std::string::npos)
      << text;
  EXPECT_NE(text.find("speedup: no baseline was measured in run 1"), std::string::npos);
  EXPECT_NE(text.find("not re-verified: exported with --skip-verify"), std::string::npos);
  EXPECT_NE(
      text.find("\"mma=mma_sync,block_m=64,block_n=64,warps=4,stages=2,barrier=light,smem_layout=swizzled,"
                "vec_bytes=16,q_frags=regs,min_ctas=1,overlap=off,qk_split=1,kv_warps=1,splits=1,combine="
                "kernel,pack_gqa=off,pingpong=off,producer_regs=none,scheduler=grid,q_buffers=1,o_store=threads,"
                "rescale=every,skip_idle=off,tile_order=heads\""),
      std::string::npos);
  EXPECT_NE(
      text.find(
          R"({"mma_sync", 64, 64, 4, 2, "light", "swizzled", 16, "regs", 1, "off", 1, 1, 1, "kernel", "off", "off", 0, )"
          R"("grid", 1, "threads", "every", "off", "heads"})"),
      std::string::npos);
  // Ahead of time: the winner's CUBIN for the H100's exact target, with its kernel's name.
  EXPECT_NE(text.find("bytes of CUBIN for sm_90a, 128 threads"), std::string::npos) << text.substr(0, 6000);
  EXPECT_NE(text.find("alignas(64) inline constexpr unsigned char kCubin0[] = {\n    127, 69, 76, 70,"),
            std::string::npos);
  EXPECT_NE(text.find("\"sm_90a\", \"_Z"), std::string::npos);
  EXPECT_NE(text.find("kCubin0, sizeof(kCubin0)}"), std::string::npos);
  Ran compile = run_command("g++ -std=c++17 -fsyntax-only -Wall -Wextra -Wpedantic -Werror -x c++ " + header.string());
  EXPECT_EQ(compile.code, 0) << compile.output;

  // Deterministic: the same database, exported again from another folder under other path spellings and
  // compiled afresh by another process (--no-cache), gives the same bytes: no clock, no absolute path, and
  // CUBINs that do not depend on the compiling process.
  {
    const fs::path other = dir.path() / "elsewhere";
    fs::create_directories(other);
    fs::copy_file(db, other / "search.db");
    Ran again = run_command("cd " + other.string() + "/.. && " + evotune_binary() +
                            " --no-cache export --db elsewhere/search.db --out elsewhere/tuned_attention.h --skip-verify");
    ASSERT_EQ(again.code, 0) << again.output;
    EXPECT_EQ(evotune::testing::file_bytes(other / "tuned_attention.h"), text);
  }
  // --no-cubin: the same entries, each saying the launcher will compile it.
  r = run_command(evotune_binary() + " export --db " + db.string() + " --out " + (dir.path() / "jit.h").string() +
                  " --skip-verify --no-cubin");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(evotune::testing::file_bytes(dir.path() / "jit.h").find("no CUBIN (exported with --no-cubin, or its run recorded no device architecture)"), std::string::npos);
  EXPECT_NE(evotune::testing::file_bytes(dir.path() / "jit.h").find("nullptr, 0}"), std::string::npos);

  // With a baseline recorded in the run (schema 2), the header states the speedup over it.
  {
    evotune::evidence::Store store(db.string(), evotune::evidence::Store::Mode::read_write);
    evotune::evidence::BaselineRecord b;
    b.name = "cublas_unfused";
    b.median_us = 4134.0;
    store.record_baseline(1, b);
  }
  r = run_command(evotune_binary() + " export --db " + db.string() + " --run 1 --out " + header.string() + " --skip-verify");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(evotune::testing::file_bytes(header).find("speedup over cublas_unfused measured in run 1: 4.02x (4134.00 us)"), std::string::npos)
      << evotune::testing::file_bytes(header);
}

TEST(ExportHeader, WithoutAGpuEntriesAreMarkedNotReverified) {
  std::string why;
  if (evotune::runtime::driver_available(&why)) GTEST_SKIP() << "this machine has a GPU: export re-verifies here";
  evotune::testing::TempDir dir;
  const fs::path header = dir.path() / "tuned_attention.h";
  Ran r = run_command(evotune_binary() + " export --db " + kFixtureDb + " --out " + header.string());
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(evotune::testing::file_bytes(header).find("not re-verified: no GPU at export"), std::string::npos);
  EXPECT_NE(evotune::testing::file_bytes(header).find("bool reverified;"), std::string::npos);
  EXPECT_NE(evotune::testing::file_bytes(header).find(", false,\n    \"sm_90a\""), std::string::npos) << "the entry's reverified field";
}

TEST(ExportHeader, BadRequestsAreOneLineErrorsAndWriteNothing) {
  evotune::testing::TempDir dir;
  const fs::path header = dir.path() / "tuned_attention.h";
  Ran r = run_command(evotune_binary() + " export --db " + kFixtureDb + " --run 9 --out " + header.string());
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("no run 9"), std::string::npos) << r.output;
  r = run_command(evotune_binary() + " export --db " + kFixtureDb + " --run 1 --best-per-problem --out " + header.string());
  EXPECT_EQ(r.code, 2) << r.output;
  r = run_command(evotune_binary() + " export --db " + kFixtureDb + " --format t4 --skip-verify");
  EXPECT_EQ(r.code, 2) << r.output;
  r = run_command(evotune_binary() + " export --db " + (dir.path() / "missing.db").string());
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_FALSE(fs::exists(header));
}

// The lookup contract, compiled and run: the exact problem; the same problem on a sibling GPU of the family;
// else the nearest problem of the same kind (head dim, dtype, masking, decode or prefill) within
// kMaxDistance, same device first on a tie; else none. Never another family.
TEST(ExportHeader, LookupKeepsItsContract) {
  evotune::evidence::TunedHeaderInput input;
  input.command = "test";
  input.tunables = {{"mma", false}, {"block_m", true}};
  input.entries = {
      entry("NVIDIA H100 80GB HBM3", 90, 4, 4096, 128, true, "mma_sync"),   // 0
      entry("NVIDIA H100 80GB HBM3", 90, 1, 512, 128, false, "mma_sync"),   // 1
      entry("NVIDIA H100 PCIe", 90, 2, 1024, 128, true, "scalar"),          // 2
      entry("NVIDIA H100 PCIe", 90, 1, 512, 128, false, "scalar"),          // 3
      entry("NVIDIA A100-SXM4-80GB", 80, 4, 4096, 128, true, "mma_sync"),   // 4
      entry("NVIDIA H100 80GB HBM3", 90, 4, 4096, 64, true, "mma_sync"),    // 5
      entry("NVIDIA H100 80GB HBM3", 90, 32, 1, 128, false, "mma_sync"),    // 6: decode, sq=1 ...
  };
  input.entries[6].skv = 4096;  // ... against a 4096-key cache, GQA group 4
  input.entries[6].hq = 32;
  input.entries[6].hkv = 8;
  evotune::testing::TempDir dir;
  {
    std::ofstream(dir.path() / "tuned_attention.h") << evotune::evidence::render_tuned_header(input);
    std::ofstream(dir.path() / "lookup.cpp") << R"cpp(
#include <cstdio>
#include "tuned_attention.h"
using namespace evotune_tuned;
void show(const char* device, int sm, AttentionProblem p) {
  Lookup l = lookup(device, sm, p);
  std::printf("%ld %s %.2f\n", l.entry ? long(l.entry - kEntries) : -1L, match_name(l.match), l.distance);
}
int main() {
  const char* h100 = "NVIDIA H100 80GB HBM3";
  show(h100, 90, {4, 16, 16, 4096, 4096, 128, true, false});
  show("NVIDIA H100 NVL", 90, {1, 16, 16, 512, 512, 128, false, false});
  show(h100, 90, {2, 16, 16, 1024, 1024, 128, true, false});
  show(h100, 90, {8, 16, 16, 4096, 4096, 128, true, false});
  show("NVIDIA H100 PCIe", 90, {1, 16, 16, 512, 512, 128, false, false});
  show("NVIDIA A100-SXM4-40GB", 80, {1, 16, 16, 512, 512, 128, true, false});
  show(h100, 90, {4, 16, 16, 4096, 4096, 64, true, false});
  show("NVIDIA L4", 89, {4, 16, 16, 4096, 4096, 128, true, false});
  show(h100, 90, {1, 16, 16, 4096, 4096, 256, true, false});
  show(h100, 90, {4, 16, 16, 4096, 4096, 128, true, true});
  show(h100, 90, {4, 16, 16, 4096, 4096, 64, false, false});
  show(h100, 90, {1, 16, 16, 512, 512, 128, true, false});
  show(h100, 90, {1, 16, 16, 256, 256, 128, true, false});
  show(h100, 90, {4, 16, 4, 4096, 4096, 128, true, false});
  show(h100, 90, {16, 32, 8, 1, 2048, 128, false, false});
  show(h100, 90, {16, 32, 8, 1, 2048, 128, true, false});
  show(h100, 90, {16, 32, 8, 16, 2048, 128, false, false});
  show(h100, 90, {16, 32, 8, 17, 2048, 128, false, false});
  show(h100, 90, {16, 16, 16, 1, 4096, 128, false, false});
  show(h100, 90, {8, 16, 16, 1, 4096, 128, false, false});
}
)cpp";
  }
  Ran build = run_command("g++ -std=c++17 -Wall -Wextra -Werror -I" + dir.path().string() + " " +
                          (dir.path() / "lookup.cpp").string() + " -o " + (dir.path() / "lookup").string());
  ASSERT_EQ(build.code, 0) << build.output;
  Ran r = run_command((dir.path() / "lookup").string());
  ASSERT_EQ(r.code, 0);
  EXPECT_EQ(r.output,
            "0 exact 0.00\n"
            "1 same device family, same problem 0.00\n"  // sibling H100: entries 1 and 3 tie, first wins
            "2 same device family, same problem 0.00\n"  // only the PCIe card has b2 s1024
            "0 nearest problem 1.00\n"                   // b8: 2x the batch of entry 0
            "3 exact 0.00\n"                             // the same problem on two GPUs: its own first
            "-1 none 0.00\n"                             // the A100's only entry: 2 + 3 + 3 away
            "5 exact 0.00\n"                             // d64: only the d64 entry qualifies
            "-1 none 0.00\n"                             // another family
            "-1 none 0.00\n"                             // a head dim nobody tuned
            "-1 none 0.00\n"                             // bf16: every entry is fp16
            "-1 none 0.00\n"                             // d64 unmasked: the d64 entry is causal
            "2 nearest problem 3.00\n"                   // 1 + 1 + 1 from b2 s1024: the cutoff is inclusive
            "-1 none 0.00\n"                             // 1 + 2 + 2 from it: beyond
            "0 nearest problem 1.00\n"                   // GQA group 4 instead of 1: +1
            "6 nearest problem 2.00\n"                   // decode: half the heads x batch, half the cache
            "6 nearest problem 2.00\n"                   // causal with one query is unmasked: the same
            "-1 none 0.00\n"                             // 16 queries are decode, 4 from 1 in sq alone
            "-1 none 0.00\n"                             // 17 queries are prefill: never the decode entry
            "6 nearest problem 3.00\n"                   // 2 in heads x batch, +1 for the group
            "-1 none 0.00\n");                           // 3 in heads x batch, +1: beyond
}

TEST(Launcher, RefusesWithoutADeviceOrWithABadConfig) {
  std::string why;
  if (evotune::runtime::driver_available(&why)) {
    EXPECT_THROW(evotune::AttentionLauncher("block_m=48", 128, true, false), std::exception);
    EXPECT_THROW(evotune::AttentionLauncher("mma=scalar,q_frags=regs", 128, true, false), std::exception);
    return;
  }
  try {
    evotune::AttentionLauncher launcher("mma=mma_sync", 128, true, false);
    FAIL() << "a launcher needs a device";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("driver"), std::string::npos) << e.what();
  }
}

// On a GPU: export re-verifies the real search's winner (new inputs, a tail shape) and the example
// program, built with the committed header, runs it through the launcher and passes its check.
TEST(GpuExport, ExportReverifiesAndTheExampleRunsTheWinner) {
  EVOTUNE_REQUIRE_GPU();
  evotune::testing::TempDir dir;
  const fs::path header = dir.path() / "tuned_attention.h";
  Ran r = run_command(evotune_binary() + " export --db " + kFixtureDb + " --out " + header.string());
  const std::string text = evotune::testing::file_bytes(header);
  if (text.find("not re-verified: no NVIDIA H100 80GB HBM3 or other sm_90 GPU") != std::string::npos) {
    GTEST_SKIP() << "the fixture's winner is for an H100; this GPU is not of its family (sm_90)";
  }
  ASSERT_EQ(r.code, 0) << r.output;
  // On the H100 itself, or on another GPU of its family (an H200), which runs the same CUBIN.
  EXPECT_TRUE(text.find("re-verified on NVIDIA H100 80GB HBM3 at export") != std::string::npos ||
              text.find("(sm_90, as the entry's NVIDIA H100 80GB HBM3) at export") != std::string::npos)
      << text;
  EXPECT_NE(text.find("tail shape b=1,hq=16,hkv=16,sq=4059,skv=4077"), std::string::npos) << text;
  // The example, built with the committed table (examples/tuned_attention.h), runs its first entry from the
  // entry's CUBIN: nothing compiled, and NVRTC's library never mapped into the process.
  Ran example = run_command(evotune::testing::example_binary());
  EXPECT_EQ(example.code, 0) << example.output;
  EXPECT_NE(example.output.find("PASS"), std::string::npos) << example.output;
  EXPECT_NE(example.output.find("loaded ahead of time from the header's CUBIN"), std::string::npos) << example.output;
  EXPECT_NE(example.output.find("nvrtc    not loaded (no libnvrtc in /proc/self/maps)"), std::string::npos)
      << example.output;
}

TEST(Example, WithoutAGpuSaysWhyAndExitsThree) {
  std::string why;
  if (evotune::runtime::driver_available(&why)) GTEST_SKIP() << "this machine has a GPU (GpuExport runs the example)";
  Ran r = run_command(evotune::testing::example_binary());
  EXPECT_EQ(r.code, 3) << r.output;
  EXPECT_NE(r.output.find("no GPU"), std::string::npos) << r.output;
}

// On a GPU: a winner that fails re-verification (here a config the device's validity rules reject, as a
// database from an older evotune could hold) refuses the export: exit 1, the reason named, nothing written.
TEST(GpuExport, AConfigThatFailsReverificationRefusesTheExport) {
  EVOTUNE_REQUIRE_GPU();
  evotune::testing::TempDir dir;
  const fs::path db = dir.path() / "bad.db";
  {
    evotune::evidence::Store store(db.string(), evotune::evidence::Store::Mode::read_write);
    evotune::evidence::RunInfo info;
    info.family = "attention";
    info.problem = "b=1,hq=4,hkv=4,sq=256,skv=256,d=64,causal=0,dtype=fp16";
    info.problem_json = "{}";
    info.strategy = "evo";
    info.budget = 1;
    info.device = evotune::runtime::query_device(0).name;
    info.device_json = R"({"compute_capability":"9.0"})";
    info.versions = "test";
    const std::int64_t run = store.create_run(info);
    evotune::evidence::TrialRecord t;
    t.config_key = "mma=0,q_frags=1";
    t.config = "mma=scalar,q_frags=regs";  // scalar reads Q from shared memory: invalid everywhere
    t.status = evotune::core::TrialStatus::ok;
    t.median_us = 10.0;
    t.tflops = 1.0;
    store.record_trial(run, t);
  }
  const fs::path header = dir.path() / "tuned_attention.h";
  Ran r = run_command(evotune_binary() + " export --db " + db.string() + " --out " + header.string());
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_NE(r.output.find("export refused"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("q_frags=regs is for mma_sync"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(header));
  EXPECT_FALSE(fs::exists(header.string() + ".tmp"));
}

// ---- Whatever the database holds (issue 13) ---------------------------------------------------------------

namespace {

// Text that breaks out of a // comment (a line break, a backslash before the line end, a trigraph ??/ that
// is one), out of a block comment (*/), and out of a string literal ("), each followed by code that fails
// to compile should it ever escape; and control and non-ASCII bytes. A header that holds these and compiles
// has kept every one in its place.
const std::string kHostile = std::string("H100 \"evil\" \\ */ /* ?\?/ ?\?= \n#error INJECTED_NEWLINE\r\n") +
                             "\"); static_assert(false, \"INJECTED_LITERAL\"); //" + std::string("\0\x01\x1b\x7f", 4) +
                             "\xc3\xa9\xff end \\";

// A device name is a C string in the header: the same hostility without the NUL, so it compares whole.
std::string without_nul(std::string text) {
  text.erase(std::remove(text.begin(), text.end(), '\0'), text.end());
  return text;
}

// Text as a C array initialiser, for a program that compares it with what the header holds.
std::string bytes_initialiser(const std::string& text) {
  std::string out = "{";
  for (unsigned char c : text) out += std::to_string(static_cast<int>(c)) + ",";
  return out + "0}";
}

}  // namespace

TEST(ExportHeader, HostileTextInEveryFieldStaysInItsCommentOrLiteral) {
  evotune::evidence::TunedHeaderInput input;
  input.command = "evotune export " + kHostile;
  input.database = kHostile;
  input.evotune_version = kHostile;
  input.tunables = {{"mma", false}, {"block_m", true}};
  evotune::evidence::TunedEntry e = entry(without_nul(kHostile), 90, 4, 4096, 128, true, "mma_sync");
  e.problem_text = kHostile;
  e.strategy = kHostile;
  e.run_created_at = kHostile;
  e.verification = kHostile + "\n" + kHostile;
  e.baselines = {{kHostile, 200.0}};
  e.target = kHostile;
  e.kernel_name = kHostile;
  e.cubin = {'\x7f', 'E', 'L', 'F', '\0', '\xff'};
  input.entries = {e};
  evotune::testing::TempDir dir;
  std::ofstream(dir.path() / "tuned_attention.h") << evotune::evidence::render_tuned_header(input);
  for (const char* flags : {"-std=c++17", "-std=c++17 -trigraphs"}) {
    Ran compile = run_command(std::string("g++ ") + flags + " -fsyntax-only -Wall -Wextra -Werror -x c++ " +
                              (dir.path() / "tuned_attention.h").string());
    EXPECT_EQ(compile.code, 0) << flags << "\n" << compile.output << evotune::testing::file_bytes(dir.path() / "tuned_attention.h");
  }
  // And it says what the database said: the device's name, byte for byte.
  std::ofstream(dir.path() / "same.cpp") << "#include <cstdio>\n#include <cstring>\n#include \"tuned_attention.h\"\n"
                                            "static const unsigned char kExpected[] = "
                                         << bytes_initialiser(without_nul(kHostile)) << R"cpp(;
int main() {
  const bool same = std::strcmp(evotune_tuned::kEntries[0].device, reinterpret_cast<const char*>(kExpected)) == 0;
  std::printf("%d %d\n", int(sizeof(evotune_tuned::kEntries) / sizeof(evotune_tuned::kEntries[0])), same);
}
)cpp";
  Ran build = run_command("g++ -std=c++17 -trigraphs -Wall -Wextra -Werror -I" + dir.path().string() + " " +
                          (dir.path() / "same.cpp").string() + " -o " + (dir.path() / "same").string());
  ASSERT_EQ(build.code, 0) << build.output;
  EXPECT_EQ(run_command((dir.path() / "same").string()).output, "1 1\n");
}

TEST(ExportHeader, AHeaderExportedFromAHostileDatabaseCompiles) {
  evotune::testing::TempDir dir;
  // The database's file name is hostile too: it is in the header's "Exported from" comment.
  const fs::path db = dir.path() / "db \n#error INJECTED_NAME ?\?= \\";  // a line break; a splice at the end
  {
    evotune::evidence::Store store(db.string(), evotune::evidence::Store::Mode::read_write);
    evotune::evidence::RunInfo info;
    info.family = "attention";
    info.problem = "b=1,hq=4,hkv=4,sq=256,skv=256,d=64,causal=0,dtype=fp16";
    info.problem_json = "{}";
    info.strategy = kHostile;
    info.budget = 1;
    info.device = kHostile;
    info.device_json = R"({"compute_capability":"9.0"})";
    info.versions = kHostile;
    const std::int64_t run = store.create_run(info);
    evotune::evidence::TrialRecord t;
    t.config_key = "block_m=0";
    t.config = "mma=mma_sync";
    t.status = evotune::core::TrialStatus::ok;
    t.median_us = 10.0;
    t.tflops = 1.0;
    store.record_trial(run, t);
    evotune::evidence::BaselineRecord b;
    b.name = kHostile;
    b.median_us = 20.0;
    store.record_baseline(run, b);
  }
  {  // What the store fills itself (the run's start) is written here with SQLite directly.
    sqlite3* handle = nullptr;
    ASSERT_EQ(sqlite3_open(db.c_str(), &handle), SQLITE_OK);
    sqlite3_stmt* update = nullptr;
    ASSERT_EQ(sqlite3_prepare_v2(handle, "UPDATE runs SET created_at = ?", -1, &update, nullptr), SQLITE_OK);
    sqlite3_bind_blob(update, 1, kHostile.data(), static_cast<int>(kHostile.size()), SQLITE_TRANSIENT);
    EXPECT_EQ(sqlite3_step(update), SQLITE_DONE);
    sqlite3_finalize(update);
    sqlite3_close(handle);
  }
  const fs::path header = dir.path() / "tuned_attention.h";
  const evotune::testing::ProcessResult r = evotune::testing::run_process(
      {evotune_binary(), "export", "--db", db.string(), "--run", "1", "--skip-verify", "--out", header.string()});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (const char* flags : {"-std=c++17", "-std=c++17 -trigraphs"}) {
    Ran compile = run_command(std::string("g++ ") + flags + " -fsyntax-only -Wall -Wextra -Werror -x c++ " + header.string());
    EXPECT_EQ(compile.code, 0) << flags << "\n" << compile.output << evotune::testing::file_bytes(header);
  }
  const std::string text = evotune::testing::file_bytes(header);
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    EXPECT_NE(line.rfind("#error", 0), 0u) << "an injected line reached the header as code: " << line;
  }
  EXPECT_NE(text.find("\\012#error INJECTED_NEWLINE"), std::string::npos) << "the line break is kept, escaped";
}

// A run that recorded no device architecture (no compute capability in its device properties) still exports:
// its entry has no CUBIN, says so, and the launcher would compile its config.
TEST(ExportHeader, ARunWithoutADeviceArchitectureExportsWithoutACubin) {
  evotune::testing::TempDir dir;
  const fs::path db = dir.path() / "no_arch.db";
  {
    evotune::evidence::Store store(db.string(), evotune::evidence::Store::Mode::read_write);
    evotune::evidence::RunInfo info;
    info.family = "attention";
    info.problem = "b=1,hq=4,hkv=4,sq=256,skv=256,d=64,causal=0,dtype=fp16";
    info.problem_json = "{}";
    info.strategy = "evo";
    info.budget = 1;
    info.device = "NVIDIA H100 80GB HBM3";
    info.device_json = "{}";
    info.versions = "test";
    const std::int64_t run = store.create_run(info);
    evotune::evidence::TrialRecord t;
    t.config_key = "block_m=0";
    t.config = "mma=mma_sync";
    t.status = evotune::core::TrialStatus::ok;
    t.median_us = 10.0;
    t.tflops = 1.0;
    store.record_trial(run, t);
  }
  const fs::path header = dir.path() / "tuned_attention.h";
  Ran r = run_command(evotune_binary() + " export --db " + db.string() + " --out " + header.string() + " --skip-verify");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("run 1 recorded no device architecture: its entry has no CUBIN"), std::string::npos)
      << r.output;
  const std::string text = evotune::testing::file_bytes(header);
  EXPECT_NE(text.find("no CUBIN (exported with --no-cubin, or its run recorded no device architecture)"),
            std::string::npos);
  EXPECT_EQ(text.find("kCubin0"), std::string::npos);
  Ran compile = run_command("g++ -std=c++17 -fsyntax-only -Wall -Wextra -Werror -x c++ " + header.string());
  EXPECT_EQ(compile.code, 0) << compile.output;
}
