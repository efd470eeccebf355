// The cubin disk cache: hits skip NVRTC, any change to the inputs misses, damage is a miss, concurrent
// writers are safe.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <fstream>
#include <thread>
#include <vector>

#include "runtime/cubin_cache.h"
#include "runtime/prepare.h"
#include "harness/smoke_family.h"
#include "tests/test_support.h"

using namespace evotune::runtime;
using evotune::templates::smoke_compile_request;
using evotune::templates::SmokeVariant;
using evotune::testing::TempDir;

namespace {
CompileRequest sample_request() { return smoke_compile_request(SmokeVariant{128, 2, true}, Target::parse("sm_90a")); }
}  // namespace

TEST(CubinCache, SecondCompileIsAHitAndDoesNotCallNvrtc) {
  TempDir dir;
  NvrtcCompiler nvrtc;
  CubinCache cache(dir.path());
  CachingCompiler compiler(nvrtc, cache);

  CompileResult first = compiler.compile(sample_request());
  EXPECT_FALSE(first.from_cache);
  EXPECT_EQ(nvrtc.invocations(), 1);

  CompileResult second = compiler.compile(sample_request());
  EXPECT_TRUE(second.from_cache);
  EXPECT_EQ(nvrtc.invocations(), 1) << "a cache hit must not call NVRTC";
  EXPECT_EQ(second.cubin, first.cubin);
  EXPECT_EQ(second.lowered_names, first.lowered_names);
  EXPECT_EQ(second.resources, first.resources);
  EXPECT_EQ(second.log, first.log);

  // A new cache object over the same directory (a new process) hits too.
  CubinCache reopened(dir.path());
  CachingCompiler compiler2(nvrtc, reopened);
  EXPECT_TRUE(compiler2.compile(sample_request()).from_cache);
  EXPECT_EQ(nvrtc.invocations(), 1);
  EXPECT_EQ(cache.stats().entries, 1u);
}

TEST(CubinCache, AnyChangedInputMisses) {
  TempDir dir;
  NvrtcCompiler nvrtc;
  CubinCache cache(dir.path());
  CachingCompiler compiler(nvrtc, cache);
  compiler.compile(sample_request());
  ASSERT_EQ(nvrtc.invocations(), 1);

  CompileRequest option_changed = sample_request();
  option_changed.options.push_back("-DEVOTUNE_ANY_OPTION=1");
  EXPECT_FALSE(compiler.compile(option_changed).from_cache);
  EXPECT_EQ(nvrtc.invocations(), 2);

  CompileRequest target_changed = sample_request();
  target_changed.target = Target::parse("sm_80");
  EXPECT_FALSE(compiler.compile(target_changed).from_cache);
  EXPECT_EQ(nvrtc.invocations(), 3);

  CompileRequest source_changed = sample_request();
  source_changed.source += "// a comment still changes the key\n";
  EXPECT_FALSE(compiler.compile(source_changed).from_cache);
  EXPECT_EQ(nvrtc.invocations(), 4);

  CompileRequest header_changed = sample_request();
  header_changed.headers[0].second += "\n";
  EXPECT_FALSE(compiler.compile(header_changed).from_cache);
  EXPECT_EQ(nvrtc.invocations(), 5);

  CompileRequest expression_changed = smoke_compile_request(SmokeVariant{128, 3, true}, Target::parse("sm_90a"));
  EXPECT_FALSE(compiler.compile(expression_changed).from_cache);
  EXPECT_EQ(nvrtc.invocations(), 6);

  // The originals still hit.
  EXPECT_TRUE(compiler.compile(sample_request()).from_cache);
  EXPECT_TRUE(compiler.compile(option_changed).from_cache);
  EXPECT_EQ(nvrtc.invocations(), 6);
  EXPECT_EQ(cache.stats().entries, 6u);
}

TEST(CubinCache, DamagedEntryIsAMissAndIsReplaced) {
  TempDir dir;
  NvrtcCompiler nvrtc;
  CubinCache cache(dir.path());
  CachingCompiler compiler(nvrtc, cache);
  CompileResult good = compiler.compile(sample_request());
  std::string key = compiler.key(sample_request());
  std::filesystem::path entry = dir.path() / key.substr(0, 2) / (key + ".cubin");
  ASSERT_TRUE(std::filesystem::exists(entry));
  std::filesystem::resize_file(entry, std::filesystem::file_size(entry) - 10);  // a torn write

  CompileResult again = compiler.compile(sample_request());
  EXPECT_FALSE(again.from_cache);
  EXPECT_EQ(nvrtc.invocations(), 2);
  EXPECT_EQ(again.cubin, good.cubin);
  EXPECT_TRUE(compiler.compile(sample_request()).from_cache);
}

TEST(CubinCache, ConcurrentWritersOfOneKeyLeaveAValidEntry) {
  TempDir dir;
  NvrtcCompiler nvrtc;
  CompileResult result = nvrtc.compile(sample_request());
  CubinCache cache(dir.path());
  std::vector<std::thread> writers;
  for (int i = 0; i < 8; ++i) {
    writers.emplace_back([&] {
      for (int j = 0; j < 20; ++j) {
        cache.store("ab12", result);
        auto loaded = cache.load("ab12");  // never torn: rename is atomic
        ASSERT_TRUE(loaded.has_value());
        ASSERT_EQ(loaded->cubin, result.cubin);
      }
    });
  }
  for (auto& t : writers) t.join();
  EXPECT_EQ(cache.stats().entries, 1u);
  // No temporary files left behind.
  int files = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir.path())) files += e.is_regular_file();
  EXPECT_EQ(files, 1);
}

TEST(CubinCache, ClearRemovesEverything) {
  TempDir dir;
  NvrtcCompiler nvrtc;
  CubinCache cache(dir.path());
  CachingCompiler compiler(nvrtc, cache);
  compiler.compile(sample_request());
  compiler.compile(smoke_compile_request(SmokeVariant{64, 1, false}, Target::parse("sm_80")));
  EXPECT_EQ(cache.stats().entries, 2u);
  EXPECT_EQ(cache.clear(), 2u);
  EXPECT_EQ(cache.stats().entries, 0u);
  EXPECT_FALSE(compiler.compile(sample_request()).from_cache);
}

TEST(CubinCache, DefaultDirectoryFollowsEnvironment) {
  const char* saved_home = std::getenv("HOME");
  std::string home = saved_home ? saved_home : "";
  unsetenv("EVOTUNE_CACHE_DIR");
  setenv("XDG_CACHE_HOME", "/tmp/xdg-test", 1);
  EXPECT_EQ(default_cache_dir(), std::filesystem::path("/tmp/xdg-test/evotune"));
  unsetenv("XDG_CACHE_HOME");
  setenv("HOME", "/tmp/home-test", 1);
  EXPECT_EQ(default_cache_dir(), std::filesystem::path("/tmp/home-test/.cache/evotune"));
  setenv("EVOTUNE_CACHE_DIR", "/tmp/explicit", 1);
  EXPECT_EQ(default_cache_dir(), std::filesystem::path("/tmp/explicit"));
  unsetenv("EVOTUNE_CACHE_DIR");
  if (saved_home) setenv("HOME", home.c_str(), 1);
}

// A request that does not compile is recorded with its log and answered from the cache afterwards:
// never compiled twice, in this process or the next. A kernel's hit reports its build's NVRTC time.
TEST(CubinCache, CompileErrorsAreCachedWithTheirLogAndNotCompiledAgain) {
  TempDir dir;
  NvrtcCompiler nvrtc;
  CubinCache cache(dir.path());
  CachingCompiler compiler(nvrtc, cache);
  CompileRequest bad = sample_request();
  bad.source += "\nthis_is_not_cuda;\n";
  std::string first_message, first_log;
  try {
    compiler.compile(bad);
    FAIL() << "the request must not compile";
  } catch (const CompileError& e) {
    EXPECT_FALSE(e.from_cache());
    EXPECT_GT(e.compile_seconds(), 0.0);
    first_message = e.what();
    first_log = e.log();
  }
  EXPECT_NE(first_log.find("this_is_not_cuda"), std::string::npos) << first_log;
  EXPECT_EQ(nvrtc.invocations(), 1);
  CubinCache reopened(dir.path());  // a new process
  CachingCompiler again(nvrtc, reopened);
  try {
    again.compile(bad);
    FAIL() << "a cached failure must be rethrown";
  } catch (const CompileError& e) {
    EXPECT_TRUE(e.from_cache());
    EXPECT_EQ(e.what(), first_message);
    EXPECT_EQ(e.log(), first_log);
  }
  EXPECT_EQ(nvrtc.invocations(), 1) << "a recorded failure must not call NVRTC";
  EXPECT_EQ(again.failure_hits(), 1);
  EXPECT_EQ(reopened.stats().failures, 1u);

  const CompileResult built = compiler.compile(sample_request());
  const CompileResult hit = again.compile(sample_request());
  EXPECT_TRUE(hit.from_cache);
  EXPECT_DOUBLE_EQ(hit.compile_seconds, built.compile_seconds);
  EXPECT_EQ(cache.clear(), 2u);  // the kernel and the failure
  EXPECT_EQ(cache.stats().failures, 0u);
}

namespace {
// A compiler with a time limit whose compiles either time out or succeed, for the timeout rules.
class LimitedCompiler : public Compiler {
 public:
  LimitedCompiler(double limit, bool times_out) : limit_(limit), times_out_(times_out) {}
  CompileResult compile(const CompileRequest& request) override {
    ++calls;
    if (times_out_) throw CompileTimeout("compile of " + request.label + " ran past its limit", limit_);
    return nvrtc_.compile(request);
  }
  std::string cache_identity(const CompileRequest& request) const override { return nvrtc_.cache_identity(request); }
  std::optional<double> time_limit_seconds() const override { return limit_; }
  int calls = 0;

 private:
  NvrtcCompiler nvrtc_;
  double limit_;
  bool times_out_;
};
}  // namespace

// A timeout is kept with its limit: the same or a shorter limit is answered from the cache, a longer one
// compiles again, and a success then replaces the timeout.
TEST(CubinCache, TimeoutsAreCachedWithTheirLimit) {
  TempDir dir;
  CubinCache cache(dir.path());
  LimitedCompiler slow(30, true);
  CachingCompiler first(slow, cache);
  EXPECT_THROW(first.compile(sample_request()), CompileTimeout);
  EXPECT_EQ(slow.calls, 1);
  LimitedCompiler shorter(10, true);
  CachingCompiler second(shorter, cache);
  try {
    second.compile(sample_request());
    FAIL();
  } catch (const CompileTimeout& e) {
    EXPECT_TRUE(e.from_cache());
    EXPECT_DOUBLE_EQ(e.limit_seconds(), 30);
  }
  EXPECT_EQ(shorter.calls, 0);
  LimitedCompiler longer(120, false);
  CachingCompiler third(longer, cache);
  EXPECT_FALSE(third.compile(sample_request()).from_cache);
  EXPECT_EQ(longer.calls, 1);
  EXPECT_EQ(cache.stats().failures, 0u) << "the success replaced the timeout";
  EXPECT_TRUE(second.compile(sample_request()).from_cache);
}

// ---- What the cache serves is what was stored (issue 13) ----------------------------------------------

namespace {
std::filesystem::path entry_file(const TempDir& dir, const std::string& key, const char* suffix = ".cubin") {
  return dir.path() / key.substr(0, 2) / (key + suffix);
}
}  // namespace

// Bytes flipped inside the CUBIN, the file's length unchanged: before checksums this was served as a hit.
TEST(CubinCache, FlippedCubinBytesAreAMissAndTheEntryIsRewritten) {
  TempDir dir;
  NvrtcCompiler nvrtc;
  CubinCache cache(dir.path());
  CachingCompiler compiler(nvrtc, cache);
  const CompileResult good = compiler.compile(sample_request());
  const std::filesystem::path entry = entry_file(dir, compiler.key(sample_request()));
  std::string bytes = evotune::testing::file_bytes(entry);
  ASSERT_GT(bytes.size(), 64u);
  for (std::size_t i = bytes.size() - 40; i < bytes.size() - 30; ++i) bytes[i] = static_cast<char>(~bytes[i]);
  evotune::testing::write_bytes(entry, bytes);

  const CompileResult again = compiler.compile(sample_request());
  EXPECT_FALSE(again.from_cache) << "a CUBIN with flipped bytes was served";
  EXPECT_EQ(nvrtc.invocations(), 2);
  EXPECT_EQ(again.cubin, good.cubin);
  EXPECT_NE(evotune::testing::file_bytes(entry), bytes) << "the damaged entry was not rewritten";
  EXPECT_TRUE(compiler.compile(sample_request()).from_cache);
  EXPECT_EQ(nvrtc.invocations(), 2);
}

// The resources in an entry's header decide whether a config is accepted (register and spill rules). An
// edit of them, the entry's length unchanged, must not change the verdict a stale entry gives.
TEST(CubinCache, AnEditedResourceHeaderDoesNotFlipTheVerdict) {
  TempDir dir;
  NvrtcCompiler nvrtc;
  CubinCache cache(dir.path());
  CachingCompiler compiler(nvrtc, cache);
  const CompileRequest request = sample_request();
  const std::string entry_name = request.name_expressions.at(0);
  const ResourceRule reject_spills = [](const ResourceUsage& u) -> std::optional<std::string> {
    if (u.spill_store_bytes > 0) return "spills";
    return std::nullopt;
  };
  const Preparation first = prepare_kernel(compiler, request, entry_name, reject_spills);
  ASSERT_NE(prepared(first), nullptr) << "the sample kernel must not spill";

  const std::filesystem::path entry = entry_file(dir, compiler.key(request));
  std::string bytes = evotune::testing::file_bytes(entry);
  const std::string honest = "\"spill_store_bytes\":0";
  const std::size_t at = bytes.find(honest);
  ASSERT_NE(at, std::string::npos) << bytes.substr(0, 400);
  bytes.replace(at, honest.size(), "\"spill_store_bytes\":9");  // same length: passes every length check
  evotune::testing::write_bytes(entry, bytes);

  const Preparation second = prepare_kernel(compiler, request, entry_name, reject_spills);
  EXPECT_NE(prepared(second), nullptr) << "an edited cache entry flipped the verdict to a rejection";
  EXPECT_EQ(nvrtc.invocations(), 2) << "the edited entry must be a miss";
}

// An entry holds its key: one copied under another key's name answers no request.
TEST(CubinCache, AnEntryUnderAnotherKeysNameIsAMiss) {
  TempDir dir;
  NvrtcCompiler nvrtc;
  CubinCache cache(dir.path());
  CachingCompiler compiler(nvrtc, cache);
  compiler.compile(sample_request());
  const CompileRequest other = smoke_compile_request(SmokeVariant{64, 1, false}, Target::parse("sm_80"));
  const std::filesystem::path source = entry_file(dir, compiler.key(sample_request()));
  const std::filesystem::path target = entry_file(dir, compiler.key(other));
  std::filesystem::create_directories(target.parent_path());
  std::filesystem::copy_file(source, target);
  EXPECT_FALSE(compiler.compile(other).from_cache);
  EXPECT_EQ(nvrtc.invocations(), 2);
}

// A cache that cannot be written (here its directory would sit under a regular file, which fails for root
// too) costs the cache, never the compile: the kernel comes back, and a compile error stays a CompileError.
TEST(CubinCache, AnUnwritableCacheIsAWarningNotACompileError) {
  TempDir dir;
  evotune::testing::write_bytes(dir.path() / "a-file", "not a directory\n");
  NvrtcCompiler nvrtc;
  CubinCache cache(dir.path() / "a-file" / "cache");
  CachingCompiler compiler(nvrtc, cache);
  CompileResult result;
  ::testing::internal::CaptureStderr();
  EXPECT_NO_THROW(result = compiler.compile(sample_request()));
  EXPECT_FALSE(result.cubin.empty());
  CompileRequest bad = sample_request();
  bad.source += "\nthis_is_not_cuda;\n";
  EXPECT_THROW(compiler.compile(bad), CompileError);
  const std::string warnings = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(warnings.find("warning"), std::string::npos) << warnings;
  EXPECT_EQ(std::count(warnings.begin(), warnings.end(), '\n'), 1) << "one warning per cache: " << warnings;
}

// A directory where an entry belongs is a miss: the compile runs and succeeds, and the store skips that
// entry with one warning at most, leaving the directory as it is and no temporary file behind.
TEST(CubinCache, ADirectoryInPlaceOfAnEntryIsAMissAndIsLeftAlone) {
  TempDir dir;
  NvrtcCompiler nvrtc;
  CubinCache cache(dir.path());
  CachingCompiler compiler(nvrtc, cache);
  const std::string key = compiler.key(sample_request());
  const std::filesystem::path entry = dir.path() / key.substr(0, 2) / (key + ".cubin");
  std::filesystem::create_directories(entry);
  CompileResult result;
  ::testing::internal::CaptureStderr();
  EXPECT_NO_THROW(result = compiler.compile(sample_request()));
  EXPECT_NO_THROW(result = compiler.compile(sample_request()));
  const std::string warnings = ::testing::internal::GetCapturedStderr();
  EXPECT_FALSE(result.cubin.empty());
  EXPECT_FALSE(result.from_cache);
  EXPECT_EQ(nvrtc.invocations(), 2);
  EXPECT_TRUE(std::filesystem::is_directory(entry));
  EXPECT_LE(std::count(warnings.begin(), warnings.end(), '\n'), 1) << warnings;
  std::vector<std::filesystem::path> left;
  for (const auto& e : std::filesystem::directory_iterator(entry.parent_path())) left.push_back(e.path());
  EXPECT_EQ(left, std::vector<std::filesystem::path>{entry}) << "a temporary file was left behind";
}

// A FIFO in place of an entry: a miss at once (opening it to read would wait for a writer forever).
TEST(CubinCache, AFifoInPlaceOfAnEntryIsAMissWithoutWaiting) {
  TempDir dir;
  NvrtcCompiler nvrtc;
  CubinCache cache(dir.path());
  CachingCompiler compiler(nvrtc, cache);
  const std::string key = compiler.key(sample_request());
  const std::filesystem::path entry = dir.path() / key.substr(0, 2) / (key + ".cubin");
  std::filesystem::create_directories(entry.parent_path());
  ASSERT_EQ(mkfifo(entry.c_str(), 0600), 0);
  CompileResult result;
  ::testing::internal::CaptureStderr();
  EXPECT_NO_THROW(result = compiler.compile(sample_request()));
  ::testing::internal::GetCapturedStderr();
  EXPECT_FALSE(result.cubin.empty());
  EXPECT_FALSE(result.from_cache);
  EXPECT_TRUE(std::filesystem::is_fifo(entry));
}

// `cache clear` removes what evotune wrote and nothing else: files that merely end in .cubin, or sit in a
// two-digit directory, or carry an evotune-like name without its magic, survive.
TEST(CubinCache, ClearRemovesOnlyEvotunesEntries) {
  TempDir dir;
  NvrtcCompiler nvrtc;
  CubinCache cache(dir.path());
  CachingCompiler compiler(nvrtc, cache);
  compiler.compile(sample_request());
  CompileRequest bad = sample_request();
  bad.source += "\nthis_is_not_cuda;\n";
  EXPECT_THROW(compiler.compile(bad), CompileError);
  const std::string key = compiler.key(sample_request());
  const std::vector<std::filesystem::path> foreign = {
      dir.path() / "my_kernel.cubin",
      dir.path() / key.substr(0, 2) / "handmade.cubin",
      dir.path() / "zz" / (std::string(64, 'z') + ".cubin"),
      dir.path() / "ab" / (std::string("ab") + std::string(62, '0') + ".cubin"),  // evotune's name, not its magic
      dir.path() / "notes.txt",
  };
  for (const auto& path : foreign) {
    std::filesystem::create_directories(path.parent_path());
    evotune::testing::write_bytes(path, "\x7f" "ELF someone else's file\n");
  }
  EXPECT_EQ(cache.stats().entries, 1u);
  EXPECT_EQ(cache.stats().failures, 1u);
  EXPECT_EQ(cache.clear(), 2u);
  for (const auto& path : foreign) EXPECT_TRUE(std::filesystem::exists(path)) << path << " was removed";
  EXPECT_FALSE(std::filesystem::exists(entry_file(dir, key)));
  EXPECT_FALSE(compiler.compile(sample_request()).from_cache);
}
