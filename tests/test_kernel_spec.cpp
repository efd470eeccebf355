// The user-kernel family (families/user_kernel, docs/kernel-spec.md): a spec's mistakes as one-line errors
// naming the line, a valid spec's problems, parameters, rules and launch geometry, NVRTC compiles of its
// configs (template arguments and defines reach the code), the baseline command, the exported header
// (built with g++ against the driver stub, its lookup run), and on a GPU the Bench end to end.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <fstream>
#include <regex>

#include "families/user_kernel/baseline.h"
#include "families/user_kernel/bench.h"
#include "families/user_kernel/expression.h"
#include "families/user_kernel/rules.h"
#include "families/user_kernel/spec.h"
#include "families/user_kernel/user_kernel_family.h"
#include "runtime/cubin_cache.h"
#include "runtime/cuda_objects.h"
#include "runtime/device_properties.h"
#include "core/errors.h"
#include "tests/subprocess.h"
#include "tests/test_support.h"

using namespace evotune;
namespace fs = std::filesystem;

namespace {

fs::path spec_fixture(const std::string& relative) {
  return evotune::testing::source_dir() / "tests" / "data" / "kernel_specs" / relative;
}

// The UsageError message of opening a spec ("" when it opens).
std::string open_error(const fs::path& spec) {
  try {
    user_kernel::open_spec(spec.string());
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

// The line (1-based) of the first line of `text` holding `needle`.
int line_of(const std::string& text, const std::string& needle) {
  const std::size_t at = text.find(needle);
  if (at == std::string::npos) return -1;
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n'));
}

// A copy of a fixture spec's directory in a temporary one, with one text of the spec replaced: the spec's
// mistakes are made there, beside the real source.
class SpecVariant {
 public:
  SpecVariant(const std::string& fixture_dir, const std::string& spec_name) {
    fs::copy(spec_fixture(fixture_dir), dir_.path(), fs::copy_options::recursive);
    path_ = dir_.path() / spec_name;
    text_ = evotune::testing::file_bytes(path_);
  }
  // Replaces `from` (which must occur) by `to`, and returns the line it stands on.
  int replace(const std::string& from, const std::string& to) {
    const std::size_t at = text_.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    if (at == std::string::npos) return -1;
    const int line = line_of(text_, from);
    text_.replace(at, from.size(), to);
    evotune::testing::write_bytes(path_, text_);
    return line;
  }
  std::string error() const { return open_error(path_); }
  std::string located(int line, const std::string& what) const { return fmt::format("{}:{}: {}", path_.string(), line, what); }
  const fs::path& path() const { return path_; }
  const fs::path& dir() const { return dir_.path(); }

 private:
  evotune::testing::TempDir dir_;
  fs::path path_;
  std::string text_;
};

Config tiled_config(int block_m, int block_n, int block_k, int warps) {
  return Config({{"BLOCK_M", block_m}, {"BLOCK_N", block_n}, {"BLOCK_K", block_k}, {"WARPS", warps}});
}

}  // namespace

// ---- The three errors issue 49 must show: one line each, naming the spec's line.

TEST(KernelSpecErrors, TomlSyntaxErrorNamesItsLine) {
  const fs::path spec = spec_fixture("errors/syntax_error.toml");
  // toml++'s own words after the location: line 3 lacks its '='.
  EXPECT_EQ(open_error(spec), spec.string() + ":3: Error while parsing key-value pair: expected '=', saw '\"'");
}

TEST(KernelSpecErrors, UnknownTunableInARestrictionNamesItsLine) {
  const fs::path spec = spec_fixture("errors/unknown_tunable.toml");
  EXPECT_EQ(open_error(spec), spec.string() + ":14: restriction 'BLOCK_Q * 2 <= 64': unknown name 'BLOCK_Q'");
}

TEST(KernelSpecErrors, GridExpressionDividingByZeroNamesItsLine) {
  const fs::path spec = spec_fixture("errors/grid_divides_by_zero.toml");
  EXPECT_EQ(open_error(spec), spec.string() + ":18: grid expression 'n / (BLOCK - BLOCK)' divides by zero");
}

// ---- Every other mistake: the exact line and words.

TEST(KernelSpecErrors, UnknownKeysAreRefusedWithTheNearestKnownOne) {
  {
    SpecVariant v("tiled", "tiled.toml");
    const int line = v.replace("grid = [", "gird = [");
    EXPECT_EQ(v.error(), v.located(line, "unknown key 'gird' in [launch] (did you mean 'grid'?)"));
  }
  {
    SpecVariant v("tiled", "tiled.toml");
    const int line = v.replace("compile_options =", "compile_flags =");
    EXPECT_EQ(v.error(), v.located(line, "unknown key 'compile_flags' in the spec (known: name, description, source, "
                                         "kernel, compile_options, problem, tunables, launch, arguments, check, "
                                         "metrics, baseline)"));
  }
  {
    // In [tunables] every other key is a tunable; a near miss of a special key is still named.
    SpecVariant v("tiled", "tiled.toml");
    const int line = v.replace("restrictions = [", "restriction = [");
    EXPECT_EQ(v.error(), v.located(line, "unknown key 'restriction' in [tunables] (did you mean 'restrictions'?)"));
  }
  {
    SpecVariant v("tiled", "tiled.toml");
    const int line = v.replace("atol = 1e-3", "atoll = 1e-3");
    EXPECT_EQ(v.error(), v.located(line, "unknown key 'atoll' in [check] (did you mean 'atol'?)"));
  }
}

TEST(KernelSpecErrors, MissingRequiredKeys) {
  {
    SpecVariant v("tiled", "tiled.toml");
    v.replace("kernel = \"tiled_matmul\"\n", "");
    EXPECT_EQ(v.error(), v.located(1, "the spec has no 'kernel' (required)"));
  }
  {
    SpecVariant v("tiled", "tiled.toml");
    const int line = line_of(evotune::testing::file_bytes(v.path()), "[launch]");
    v.replace("block = [\"32 * WARPS\"]\n", "");
    EXPECT_EQ(v.error(), v.located(line, "[launch] has no 'block' (required)"));
  }
  {
    SpecVariant v("tiled", "tiled.toml");
    const int line = line_of(evotune::testing::file_bytes(v.path()), "[check]");
    v.replace("reference = \"reference_matmul\"\n", "");
    EXPECT_EQ(v.error(), v.located(line, "[check] needs either 'reference' (a kernel) or 'expected' (files of expected values)"));
  }
}

TEST(KernelSpecErrors, BadDtypesNamesAndDomains) {
  {
    SpecVariant v("tiled", "tiled.toml");
    const int line = v.replace("dtype = \"float32\"\nsize = \"m * k\"", "dtype = \"float\"\nsize = \"m * k\"");
    EXPECT_EQ(v.error(), v.located(line, "argument A: dtype 'float' is not one of float16 bfloat16 float32 float64 int8 "
                                         "uint8 int32 uint32 int64"));
  }
  {
    SpecVariant v("tiled", "tiled.toml");
    const int line = v.replace("WARPS = [1, 2, 3, 4]", "WARPS = []");
    EXPECT_EQ(v.error(), v.located(line, "tunable WARPS has an empty domain"));
  }
  {
    SpecVariant v("tiled", "tiled.toml");
    const int line = v.replace("WARPS = [1, 2, 3, 4]", "k = [1, 2, 3, 4]");
    EXPECT_EQ(v.error(), v.located(line, "tunable 'k': the name is used twice"));
  }
  {
    SpecVariant v("tiled", "tiled.toml");
    const int line = v.replace("BLOCK_K = [8, 16]", "BLOCK_K = [8, 16, 8]");
    EXPECT_EQ(v.error(), v.located(line, "tunable BLOCK_K: value 8 is listed twice"));
  }
  {
    SpecVariant v("tiled", "tiled.toml");
    const int line = v.replace("sizes = [\"m\", \"n\", \"k\"]", "sizes = [\"m\", \"n\", \"int\"]");
    EXPECT_EQ(v.error(), v.located(line, "problem size 'int' is a C++ keyword"));
  }
  {
    SpecVariant v("tiled", "tiled.toml");
    const int line = v.replace("name = \"B\"\ndtype = \"float32\"", "name = \"A\"\ndtype = \"float32\"");
    EXPECT_EQ(v.error(), v.located(line, "argument name 'A' is used twice"));
  }
}

TEST(KernelSpecErrors, ExpressionsThatDoNotParseOrNameTheWrongThings) {
  {
    SpecVariant v("tiled", "tiled.toml");
    const int line = v.replace("\"cdiv(n, BLOCK_N)\"", "\"cdiv(n, BLOCK_N\"");
    const std::string error = v.error();
    EXPECT_EQ(error.rfind(v.located(line, "grid expression 'cdiv(n, BLOCK_N': "), 0), 0u) << error;
    EXPECT_EQ(error.find('\n'), std::string::npos) << error;
  }
  {
    SpecVariant v("tiled", "tiled.toml");
    const int line = v.replace("size = \"m * k\"", "size = \"m * BLOCK_M\"");
    EXPECT_EQ(v.error(), v.located(line, "size of A 'm * BLOCK_M': 'BLOCK_M' is a tunable; a size of A may name only "
                                         "problem sizes"));
  }
  {
    SpecVariant v("tiled", "tiled.toml");
    const int line = v.replace("requires = [\"k % 8 == 0\"]", "requires = [\"k % BLOCK_K == 0\"]");
    EXPECT_EQ(v.error(), v.located(line, "requirement 'k % BLOCK_K == 0': 'BLOCK_K' is a tunable; a requirement may "
                                         "name only problem sizes"));
  }
  {
    SpecVariant v("tiled", "tiled.toml");
    const int line = v.replace("flops = \"2 * m * n * k\"", "flops = \"2 * m * n * kk\"");
    EXPECT_EQ(v.error(), v.located(line, "flops expression '2 * m * n * kk': unknown name 'kk'"));
  }
  {
    SpecVariant v("tiled", "tiled.toml");
    const int line = v.replace("\"k % BLOCK_K == 0\",", "\"sqrt(k) > 1\",");
    EXPECT_EQ(v.error().rfind(v.located(line, "restriction 'sqrt(k) > 1': "), 0), 0u) << v.error();
  }
  {
    SpecVariant v("tiled", "tiled.toml");
    const int line = v.replace("template_arguments = [\"BLOCK_M\", \"BLOCK_N\", \"BLOCK_K\"]",
                               "template_arguments = [\"BLOCK_M\", \"BLOCK_N\", \"BLOCK_KK\"]");
    EXPECT_EQ(v.error(), v.located(line, "template argument 'BLOCK_KK' is not a tunable"));
  }
  {
    SpecVariant v("tiled", "tiled.toml");
    const int line = v.replace("block = [\"32 * WARPS\"]", "block = [\"32\", \"WARPS\", \"1\", \"1\"]");
    EXPECT_EQ(v.error(), v.located(line, "block needs 1 to 3 expressions (x, y, z), not 4"));
  }
}

TEST(KernelSpecErrors, FilesThatDoNotExistAndProblemsTheSpecRefuses) {
  {
    SpecVariant v("tiled", "tiled.toml");
    const int line = v.replace("source = \"tiled.cu\"", "source = \"tiles.cu\"");
    EXPECT_EQ(v.error(), v.located(line, fmt::format("source file 'tiles.cu' does not exist ({})",
                                                     (v.dir() / "tiles.cu").string())));
  }
  {
    SpecVariant v("tiled", "tiled.toml");
    const int line = v.replace("{ m = 1000, n = 768, k = 256 }", "{ m = 1000, n = 768, k = 260 }");
    EXPECT_EQ(v.error(), v.located(line, "listed problem m=1000,n=768,k=260 does not meet requirement 'k % 8 == 0'"));
  }
  {
    SpecVariant v("tiled", "tiled.toml");
    const int line = v.replace("{ m = 1000, n = 768, k = 256 }", "{ m = 1000, n = 768 }");
    EXPECT_EQ(v.error(), v.located(line, "listed problem has no k"));
  }
  {
    SpecVariant v("tiled", "tiled.toml");
    const int line = v.replace("size = \"k * n\"", "size = \"k * n - 2 * k * n\"");
    EXPECT_EQ(v.error(), v.located(line, "argument B: size of B 'k * n - 2 * k * n' is -262144, not a positive integer "
                                         "for listed problem m=512,n=512,k=512"));
  }
  {
    SpecVariant v("tiled", "tiled.toml");
    const int line = v.replace("\"BLOCK_M * BLOCK_N / (32 * WARPS) <= 64\",", "\"BLOCK_M * BLOCK_N / (32 * WARPS) <= 1\",");
    (void)line;
    EXPECT_EQ(v.error(), v.located(line_of(evotune::testing::file_bytes(v.path()), "{ m = 512"),
                                   "no config satisfies the restrictions for listed problem m=512,n=512,k=512"));
  }
  {
    SpecVariant v("tiled", "tiled.toml");
    const int line = v.replace("\"k % BLOCK_K == 0\",", "\"k % (BLOCK_K - BLOCK_K) == 0\",");
    EXPECT_EQ(v.error(), v.located(line, "restriction 'k % (BLOCK_K - BLOCK_K) == 0' divides by zero"));
  }
  {
    SpecVariant v("tiled", "tiled.toml");
    const int line = v.replace("\"{device}\"]", "\"{gpu}\"]");
    EXPECT_EQ(v.error(), v.located(line, "command placeholder '{gpu}' is not {device}, {batch} or a problem size"));
  }
}

// ---- Expressions: muParser with evotune's operators.

TEST(KernelSpecExpressions, OperatorsFunctionsAndDivisionByZero) {
  const std::vector<std::string> names = {"n", "B"};
  auto value = [&](const std::string& text, double n, double b) {
    return user_kernel::Expression(text, names, names.size()).evaluate(std::vector<double>{n, b});
  };
  EXPECT_EQ(value("n % 7", 30, 0), 2);
  EXPECT_EQ(value("cdiv(n, B)", 1000003, 256), 3907);
  EXPECT_EQ(value("n / B", 10, 4), 2.5);
  EXPECT_EQ(value("min(n, B) + max(n, B)", 3, 9), 12);
  EXPECT_EQ(value("floor(n / B) + ceil(n / B)", 10, 4), 5);
  EXPECT_EQ(value("log2(n)", 1024, 0), 10);
  EXPECT_EQ(value("n > 3 && B < 2 ? 10 : 20", 4, 1), 10);
  EXPECT_EQ(value("n > 3 || B < 2", 1, 5), 0);
  EXPECT_EQ(value("2 ^ 3 ^ 2", 0, 0), 512);  // right-associative, as muParser's own
  EXPECT_EQ(value("-n + 2 * 3", 1, 0), 5);
  EXPECT_EQ(value("n != B", 1, 1), 0);
  for (const char* zero : {"n / (B - B)", "n % 0", "cdiv(n, B - 4)"}) {
    try {
      value(zero, 8, 4);
      ADD_FAILURE() << zero << " evaluated";
    } catch (const user_kernel::EvaluationError& e) {
      EXPECT_STREQ(e.what(), "divides by zero") << zero;
    }
  }
  EXPECT_THROW(value("log2(n - n)", 4, 0), user_kernel::EvaluationError);  // -inf is not a number of anything
  EXPECT_THROW(user_kernel::Expression("_pi * n", names, 2), user_kernel::ExpressionError);  // no constants
  EXPECT_THROW(user_kernel::Expression("sin(n)", names, 2), user_kernel::ExpressionError);   // no other functions
  try {
    user_kernel::Expression("n * B", names, 1, "is a tunable here");
    ADD_FAILURE();
  } catch (const user_kernel::ExpressionError& e) {
    EXPECT_STREQ(e.what(), "'B' is a tunable here");
  }
}

// ---- A valid spec.

TEST(KernelSpecFamily, ProblemsParametersRulesAndDistance) {
  const fs::path path = spec_fixture("tiled/tiled.toml");
  const auto family = user_kernel::open_spec(path.string());
  EXPECT_EQ(family->id(), "user_kernel:tiled_matmul");
  EXPECT_EQ(family->description(), "C = A * B, fp32, shared-memory tiles");
  EXPECT_EQ(family->default_header_name(), "tuned_tiled_matmul.h");

  // Parameters: the file's order, numbers.
  const std::vector<Parameter>& parameters = family->parameters();
  ASSERT_EQ(parameters.size(), 4u);
  EXPECT_EQ(parameters[0].name, "BLOCK_M");
  EXPECT_EQ(parameters[1].name, "BLOCK_N");
  EXPECT_EQ(parameters[2].name, "BLOCK_K");
  EXPECT_EQ(parameters[3].name, "WARPS");
  EXPECT_EQ(parameters[3].values, (std::vector<int>{1, 2, 3, 4}));
  EXPECT_FALSE(parameters[0].categorical());

  // Problems: listed, canonical text in the spec's order, round trip.
  const auto listed = family->listed_problems();
  ASSERT_EQ(listed.size(), 2u);
  EXPECT_EQ(listed[0].text, "m=512,n=512,k=512");
  EXPECT_EQ(listed[1].text, "m=1000,n=768,k=256");
  const harness::FamilyProblem p = family->parse_problem("k=256,n=768,m=1000");
  EXPECT_EQ(p.text, "m=1000,n=768,k=256");
  EXPECT_EQ(family->parse_problem(p.text), p);
  EXPECT_EQ(p.at("n"), 768);
  EXPECT_EQ(family->problem_json(p).dump(), R"({"k":256,"m":1000,"n":768})");
  auto problem_error = [&](const std::string& text) {
    try {
      family->parse_problem(text);
    } catch (const UsageError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_EQ(problem_error("m=512,n=512"), "problem 'm=512,n=512': k is missing (m=N,n=N,k=N: positive integers, e.g. "
                                          "m=512,n=512,k=512)");
  EXPECT_EQ(problem_error("m=512,n=0,k=8"), "problem 'm=512,n=0,k=8': n=0 is not a positive integer");
  EXPECT_EQ(problem_error("m=512,n=512,k=500"), "problem 'm=512,n=512,k=500': requirement 'k % 8 == 0' does not hold");
  EXPECT_EQ(problem_error("m=512,n=512,k=8,q=1").rfind("problem 'm=512,n=512,k=8,q=1': 'q' is not a size of tiled_matmul", 0), 0u);

  // Distance: the sum of |log2| ratios; 0 only for the same problem.
  const harness::FamilyProblem q = family->parse_problem("m=1024,n=256,k=512");
  EXPECT_DOUBLE_EQ(family->distance(listed[0], q), 2.0);
  EXPECT_DOUBLE_EQ(family->distance(q, listed[0]), 2.0);
  EXPECT_DOUBLE_EQ(family->distance(q, q), 0.0);

  // Metrics.
  EXPECT_DOUBLE_EQ(family->flops(listed[0]), 2.0 * 512 * 512 * 512);
  EXPECT_DOUBLE_EQ(family->bytes(listed[0]), 4.0 * 3 * 512 * 512);

  // Rules: the first failing restriction, device limits, the domain.
  const DeviceLimits limits = DeviceLimits::for_target(runtime::Target::parse("sm_90a"));
  EXPECT_EQ(family->invalid_reason(tiled_config(32, 32, 8, 2), listed[0], limits), std::nullopt);
  EXPECT_EQ(family->invalid_reason(tiled_config(64, 64, 8, 1), listed[0], limits),
            "restriction 'BLOCK_M * BLOCK_N / (32 * WARPS) <= 64' does not hold");
  const harness::FamilyProblem odd_k = family->parse_problem("m=64,n=64,k=24");
  EXPECT_EQ(family->invalid_reason(tiled_config(32, 32, 16, 2), odd_k, limits), "restriction 'k % BLOCK_K == 0' does not hold");
  EXPECT_EQ(family->invalid_reason(tiled_config(32, 32, 8, 5), listed[0], limits), "WARPS=5 is outside its domain");
  DeviceLimits small = limits;
  small.max_threads_per_block = 64;
  EXPECT_EQ(family->invalid_reason(tiled_config(32, 32, 8, 4), listed[0], small), "128 threads per block, above the device's 64");
  small = limits;
  small.shared_bytes_per_block_optin = 1024;
  EXPECT_EQ(family->invalid_reason(tiled_config(32, 32, 8, 2), listed[0], small),
            "2048 bytes of dynamic shared memory per block, above the device's 1024");

  // The default: every domain's middle value when valid (BLOCK_K's middle of two is its first).
  EXPECT_EQ(family->default_config(listed[0], limits), tiled_config(32, 32, 8, 2));
  EXPECT_EQ(family->format_config(family->default_config(listed[0], limits)), "BLOCK_M=32,BLOCK_N=32,BLOCK_K=8,WARPS=2");
  // ... else the first valid one in the domains' order: here the middle one exceeds 1 thread per block.
  small = limits;
  small.max_threads_per_block = 32;
  EXPECT_EQ(family->default_config(listed[0], small), tiled_config(16, 16, 8, 1));
  EXPECT_EQ(family->parse_config("default,WARPS=4", listed[0], limits), tiled_config(32, 32, 8, 4));
}

TEST(KernelSpecFamily, LaunchGeometryOfAProblemAndConfig) {
  const user_kernel::Spec spec = user_kernel::read_spec(spec_fixture("tiled/tiled.toml").string());
  const DeviceLimits limits = DeviceLimits::for_target(runtime::Target::parse("sm_90a"));
  const Config config = tiled_config(64, 32, 16, 4);
  const std::vector<double> values = user_kernel::scope_values(spec, std::vector<std::int64_t>{1000, 768, 256}, &config);
  const auto plan = user_kernel::plan_launch(spec, values, &limits);
  ASSERT_TRUE(std::holds_alternative<user_kernel::LaunchPlan>(plan)) << std::get<std::string>(plan);
  const user_kernel::LaunchPlan& p = std::get<user_kernel::LaunchPlan>(plan);
  EXPECT_EQ(p.block, (std::array<unsigned, 3>{128, 1, 1}));
  EXPECT_EQ(p.grid, (std::array<unsigned, 3>{24, 16, 1}));  // cdiv(768, 32), cdiv(1000, 64)
  EXPECT_EQ(p.shared_bytes, 4u * 16 * (64 + 32));
  const auto reference = user_kernel::plan_reference_launch(spec, values);
  ASSERT_TRUE(std::holds_alternative<user_kernel::LaunchPlan>(reference));
  EXPECT_EQ(std::get<user_kernel::LaunchPlan>(reference).grid, (std::array<unsigned, 3>{6, 1000, 1}));
  EXPECT_EQ(spec.headers.size(), 1u);
  EXPECT_EQ(spec.headers.at(0).first, "tile_shape.cuh");
}

// ---- NVRTC: compile-only, for sm_90a, on this machine.

TEST(KernelSpecCompile, TemplateArgumentsAndDefinesReachTheCode) {
  evotune::testing::TempDir cache_dir;
  runtime::NvrtcCompiler nvrtc;
  runtime::CubinCache cache(cache_dir.path());
  runtime::CachingCompiler compiler(nvrtc, cache);
  const runtime::Target target = runtime::Target::parse("sm_90a");
  const DeviceLimits limits = DeviceLimits::for_target(target);
  const auto family = user_kernel::open_spec(spec_fixture("tiled/tiled.toml").string());
  const harness::FamilyProblem problem = family->listed_problems().at(0);

  const runtime::Preparation a = family->prepare(tiled_config(32, 32, 8, 2), problem, limits, target, compiler);
  const runtime::Preparation b = family->prepare(tiled_config(32, 64, 16, 4), problem, limits, target, compiler);
  const runtime::PreparedKernel* ka = runtime::prepared(a);
  const runtime::PreparedKernel* kb = runtime::prepared(b);
  ASSERT_NE(ka, nullptr) << runtime::rejected(a)->reason;
  ASSERT_NE(kb, nullptr) << runtime::rejected(b)->reason;
  // The template arguments are in the mangled names (c++filt: tiled_matmul<32, 64, 16>(...)).
  EXPECT_EQ(ka->kernel_name, "_Z12tiled_matmulILi32ELi32ELi8EEvPKfS1_Pfiii");
  EXPECT_EQ(kb->kernel_name, "_Z12tiled_matmulILi32ELi64ELi16EEvPKfS1_Pfiii");
  EXPECT_NE(*ka->cubin, *kb->cubin);
  EXPECT_EQ(runtime::cubin_compute_capability(*ka->cubin), 90);
  // Same template arguments, another define: another CUBIN.
  const runtime::Preparation c = family->prepare(tiled_config(32, 32, 8, 4), problem, limits, target, compiler);
  ASSERT_NE(runtime::prepared(c), nullptr);
  EXPECT_EQ(runtime::prepared(c)->kernel_name, ka->kernel_name);
  EXPECT_NE(*runtime::prepared(c)->cubin, *ka->cubin);
  // WARPS reaches the code as a define: the kernel's static_assert refuses WARPS=3.
  const runtime::Preparation refused = family->prepare(tiled_config(32, 32, 8, 3), problem, limits, target, compiler);
  const runtime::Rejection* r = runtime::rejected(refused);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->kind, runtime::Rejection::Kind::compile_error);
  EXPECT_NE(r->reason.find("WARPS=3 is refused by this kernel"), std::string::npos) << r->reason;
  // A rule's rejection never compiles.
  const int before = nvrtc.invocations();
  const runtime::Preparation invalid = family->prepare(tiled_config(64, 64, 8, 1), problem, limits, target, compiler);
  ASSERT_NE(runtime::rejected(invalid), nullptr);
  EXPECT_EQ(runtime::rejected(invalid)->kind, runtime::Rejection::Kind::rule);
  EXPECT_EQ(nvrtc.invocations(), before);
  // Build variants the family does not have are refused.
  EXPECT_THROW(family->prepare(tiled_config(32, 32, 8, 2), problem, limits, target, compiler, {.cta_clock = true}),
               UsageError);
}

TEST(KernelSpecCompile, AnIncludedFileIsPartOfTheCacheKeyAndTheDigest) {
  SpecVariant v("tiled", "tiled.toml");
  runtime::NvrtcCompiler nvrtc;
  const runtime::Target target = runtime::Target::parse("sm_90a");
  const DeviceLimits limits = DeviceLimits::for_target(target);
  evotune::testing::TempDir cache_dir;
  runtime::CubinCache cache(cache_dir.path());
  runtime::CachingCompiler compiler(nvrtc, cache);
  auto key_and_digest = [&] {
    const auto family = user_kernel::open_spec(v.path().string());
    const runtime::Preparation p =
        family->prepare(tiled_config(32, 32, 8, 2), family->listed_problems().at(0), limits, target, compiler);
    EXPECT_NE(runtime::prepared(p), nullptr);
    return std::pair(runtime::prepared(p) ? runtime::prepared(p)->cache_key : "", family->sources_digest());
  };
  const auto before = key_and_digest();
  EXPECT_EQ(before.second.size(), 16u);
  evotune::testing::write_bytes(v.dir() / "tile_shape.cuh",
                                "#pragma once\n// edited\n__host__ __device__ constexpr int tile_threads(int warps) { "
                                "return warps * 32; }\n");
  const auto after = key_and_digest();
  EXPECT_NE(before.first, after.first);
  EXPECT_NE(before.second, after.second);
}

// ---- The baseline command.

TEST(KernelSpecBaseline, TheCommandRunsFromTheSpecsDirectoryWithTheSizesSubstituted) {
  const auto family = user_kernel::open_spec(spec_fixture("tiled/tiled.toml").string());
  const harness::FamilyProblem problem = family->listed_problems().at(1);
  const harness::Family::LibraryBaselines result = family->library_baselines(problem, 3, 0);
  ASSERT_EQ(result.records.size(), 1u) << result.unavailable;
  const evidence::BaselineRecord& r = result.records[0];
  EXPECT_EQ(r.name, "fixture_matmul");
  EXPECT_EQ(r.median_us, 12.5);
  EXPECT_EQ(r.max_abs_error, 0.001);
  ASSERT_TRUE(r.tflops.has_value());
  EXPECT_DOUBLE_EQ(*r.tflops, 2.0 * 1000 * 768 * 256 / 12.5e-6 / 1e12);
  EXPECT_EQ(r.detail_json, R"({"role":"library","what":"fixture matmul m=1000 n=768 k=256 device=3"})");
}

TEST(KernelSpecBaseline, AFailingCommandOrUnreadableOutputIsUnavailableWithAReason) {
  SpecVariant v("tiled", "tiled.toml");
  v.replace("command = [\"sh\", \"baseline.sh\"", "command = [\"sh\", \"-c\", \"echo no json here\", \"baseline.sh\"");
  auto family = user_kernel::open_spec(v.path().string());
  auto result = family->library_baselines(family->listed_problems().at(0), 0, 0);
  EXPECT_TRUE(result.records.empty());
  EXPECT_EQ(result.unavailable, "baseline fixture_matmul (sh -c echo no json here baseline.sh 512 512 512 0): its last "
                                "line is not JSON: no json here");
  SpecVariant failing("tiled", "tiled.toml");
  failing.replace("command = [\"sh\", \"baseline.sh\"", "command = [\"sh\", \"-c\", \"exit 3\", \"baseline.sh\"");
  family = user_kernel::open_spec(failing.path().string());
  result = family->library_baselines(family->listed_problems().at(0), 0, 0);
  EXPECT_EQ(result.unavailable, "baseline fixture_matmul (sh -c exit 3 baseline.sh 512 512 512 0) exited with code 3");
}

// ---- The exported header: built with g++ against the driver stub; its lookup run without a GPU.

namespace {

std::vector<harness::ExportedWinner> tiled_winners(const harness::Family& family) {
  runtime::NvrtcCompiler nvrtc;
  const runtime::Target target = runtime::Target::parse("sm_90a");
  const DeviceLimits limits = DeviceLimits::for_target(target);
  std::vector<harness::ExportedWinner> winners;
  const std::vector<std::pair<std::string, Config>> wins = {{"m=512,n=512,k=512", tiled_config(32, 32, 8, 2)},
                                                            {"m=1000,n=768,k=256", tiled_config(64, 32, 16, 4)}};
  for (const auto& [problem_text, config] : wins) {
    harness::ExportedWinner w;
    w.run_id = static_cast<std::int64_t>(winners.size()) + 7;
    w.device = "NVIDIA H200 \"test\"";
    w.problem = family.parse_problem(problem_text);
    w.config = config;
    w.median_us = 10.5;
    const runtime::Preparation p = family.prepare(config, w.problem, limits, target, nvrtc);
    const runtime::PreparedKernel* k = runtime::prepared(p);
    EXPECT_NE(k, nullptr);
    if (k == nullptr) continue;
    w.kernel_name = k->kernel_name;
    w.cubin = *k->cubin;
    winners.push_back(std::move(w));
  }
  return winners;
}

fs::path cuda_stub_dir(const fs::path& include_dir) {
  for (const fs::path& dir : {include_dir.parent_path() / "lib64" / "stubs",
                              include_dir.parent_path() / "lib" / "stubs"}) {
    if (fs::exists(dir / "libcuda.so")) return dir;
  }
  return {};
}

}  // namespace

TEST(KernelSpecHeader, BuildsWithTheDriverAloneAndLooksUpByTheSpecsRules) {
  const auto family = user_kernel::open_spec(spec_fixture("tiled/tiled.toml").string());
  const std::vector<harness::ExportedWinner> winners = tiled_winners(*family);
  ASSERT_EQ(winners.size(), 2u);
  const std::string header = family->render_header({"evotune export --kernel tiled.toml", "", "", winners});
  EXPECT_NE(header.find("namespace evotune_tuned_tiled_matmul {"), std::string::npos);
  EXPECT_NE(header.find("struct Problem {\n  long long m;\n  long long n;\n  long long k;\n};"), std::string::npos);
  EXPECT_NE(header.find(family->sources_digest()), std::string::npos);

  evotune::testing::TempDir dir;
  evotune::testing::write_bytes(dir.path() / "tuned_tiled_matmul.h", header);
  const fs::path include_dir = runtime::find_cuda_include_dir(runtime::default_cuda_include_candidates());
  const fs::path stubs = cuda_stub_dir(include_dir);
  ASSERT_FALSE(stubs.empty()) << "no libcuda.so stub beside " << include_dir;

  // A program that launches through the header: it must compile warning-free and link with -lcuda alone.
  evotune::testing::write_bytes(dir.path() / "launch.cpp", R"cpp(#include "tuned_tiled_matmul.h"
int main(int argc, char**) {
  namespace t = evotune_tuned_tiled_matmul;
  const t::Problem problem{512, 512, 512};
  const t::Entry* entry = t::lookup(problem);
  if (argc > 5 && entry) return static_cast<int>(t::launch(*entry, problem, nullptr, nullptr));
  return entry ? 0 : 1;
}
)cpp");
  const auto built = evotune::testing::run_process(
      {"/usr/bin/env", "g++", "-std=c++17", "-Wall", "-Wextra", "-Wpedantic", "-Werror", "-I" + include_dir.string(),
       (dir.path() / "launch.cpp").string(), "-L" + stubs.string(), "-lcuda", "-o", (dir.path() / "launch").string()},
      300);
  ASSERT_EQ(built.exit_code, 0) << built.output;

  // A program that prints lookup's choices and the launch geometry: no driver call, so it runs here.
  evotune::testing::write_bytes(dir.path() / "lookup.cpp", R"cpp(#include <cstdio>
#include "tuned_tiled_matmul.h"
int main() {
  namespace t = evotune_tuned_tiled_matmul;
  const t::Problem problems[] = {{512, 512, 512}, {1000, 768, 256}, {1024, 512, 512}, {1000, 768, 264},
                                 {512, 512, 500}, {0, 512, 512}};
  for (const t::Problem& p : problems) {
    const t::Entry* e = t::lookup(p);
    if (!e) {
      std::printf("%lld,%lld,%lld -> none\n", p.m, p.n, p.k);
      continue;
    }
    const t::Dim3 g = t::grid(*e, p), b = t::block(*e, p);
    std::printf("%lld,%lld,%lld -> %d sm%d grid %u %u %u block %u %u %u shared %u\n", p.m, p.n, p.k,
                static_cast<int>(e - t::kEntries), e->sm, g.x, g.y, g.z, b.x, b.y, b.z, t::shared_bytes(*e, p));
  }
}
)cpp");
  const auto compiled = evotune::testing::run_process(
      {"/usr/bin/env", "g++", "-std=c++17", "-Wall", "-Wextra", "-Werror", "-I" + include_dir.string(),
       (dir.path() / "lookup.cpp").string(), "-o", (dir.path() / "lookup").string()},
      300);
  ASSERT_EQ(compiled.exit_code, 0) << compiled.output;
  const auto ran = evotune::testing::run_process({(dir.path() / "lookup").string()});
  ASSERT_EQ(ran.exit_code, 0) << ran.output;
  EXPECT_EQ(ran.output,
            // Exact problems get their own entry.
            "512,512,512 -> 0 sm90 grid 16 16 1 block 64 1 1 shared 2048\n"
            "1000,768,256 -> 1 sm90 grid 24 16 1 block 128 1 1 shared 6144\n"
            // Nearest by distance: entry 0 (1.0) before entry 1 (~1.6).
            "1024,512,512 -> 0 sm90 grid 16 32 1 block 64 1 1 shared 2048\n"
            // Nearest is entry 1, but its BLOCK_K=16 does not divide k=264: entry 0 (BLOCK_K=8) serves it.
            "1000,768,264 -> 0 sm90 grid 24 32 1 block 64 1 1 shared 2048\n"
            // k % 8 != 0 fails the spec's requires; a zero size is no problem.
            "512,512,500 -> none\n"
            "0,512,512 -> none\n");

  // The header's geometry is the family's: the same expressions, evaluated the same way.
  const user_kernel::Spec spec = user_kernel::read_spec(spec_fixture("tiled/tiled.toml").string());
  const Config config = tiled_config(32, 32, 8, 2);
  const auto plan = user_kernel::plan_launch(
      spec, user_kernel::scope_values(spec, std::vector<std::int64_t>{1000, 768, 264}, &config), nullptr);
  ASSERT_TRUE(std::holds_alternative<user_kernel::LaunchPlan>(plan));
  EXPECT_EQ(std::get<user_kernel::LaunchPlan>(plan).grid, (std::array<unsigned, 3>{24, 32, 1}));
}

TEST(KernelSpecHeader, ExpressionsWrittenAsCppEvaluateAsMuParserDoes) {
  // Every operation of the grammar, nested, with a ternary inside a ternary: the C++ a header gets, compiled
  // and run, prints what muParser computes.
  const std::vector<std::string> names = {"a", "b"};
  const std::vector<std::string> texts = {"a % b + cdiv(a, b) * 2 ^ 2 ^ 1 - -b",
                                          "a > b ? (b > 2 ? min(a, b) : max(a, b)) : floor(a / b) + ceil(a / b)",
                                          "a <= b || a >= b && a != b == 0",
                                          "log2(a) < b + 1 && 1",
                                          "a / (b - b)"};
  std::string program = "#include <cmath>\n#include <cstdio>\n" + user_kernel::cpp_evaluator_struct("Eval") + "int main() {\n";
  std::string expected;
  const user_kernel::CppNames spell{{"a", "b"}, "e"};
  for (const auto& [a, b] : std::vector<std::pair<double, double>>{{7, 3}, {2, 5}, {64, 64}}) {
    for (const std::string& text : texts) {
      const user_kernel::Expression e(text, names, 2);
      program += fmt::format("  {{ double a = {}, b = {}; Eval e; double v = {}; std::printf(\"%.17g %d\\n\", e.failed ? 0.0 : v, e.failed ? 1 : 0); }}\n",
                             a, b, e.to_cpp(spell));
      try {
        expected += fmt::format("{:.17g} 0\n", e.evaluate(std::vector<double>{a, b}));
      } catch (const user_kernel::EvaluationError&) {
        expected += "0 1\n";
      }
    }
  }
  program += "}\n";
  evotune::testing::TempDir dir;
  evotune::testing::write_bytes(dir.path() / "expressions.cpp", program);
  const auto compiled = evotune::testing::run_process(
      {"/usr/bin/env", "g++", "-std=c++17", "-Wall", "-Werror", (dir.path() / "expressions.cpp").string(), "-o",
       (dir.path() / "expressions").string()},
      300);
  ASSERT_EQ(compiled.exit_code, 0) << compiled.output << program;
  const auto ran = evotune::testing::run_process({(dir.path() / "expressions").string()});
  EXPECT_EQ(ran.output, expected) << program;
}

TEST(KernelSpecHeader, WinnersOfAnotherSpecAreRefused) {
  const auto family = user_kernel::open_spec(spec_fixture("tiled/tiled.toml").string());
  harness::ExportedWinner w;
  w.problem = family->parse_problem("m=512,n=512,k=512");
  w.config = Config({{"BLOCK", 64}});
  EXPECT_THROW(family->render_header({"test", "", "", {w}}), UsageError);
  EXPECT_THROW(family->render_header({"test", "", "", {}}), UsageError);
}

// ---- Inputs.

TEST(KernelSpecInputs, EachBufferHasItsOwnStreamOfTheSeed) {
  const auto x = user_kernel::random_elements(user_kernel::DType::float32, 1000, 1, 1);
  const auto y = user_kernel::random_elements(user_kernel::DType::float32, 1000, 1, 2);
  EXPECT_NE(x, y);
  EXPECT_EQ(x, user_kernel::random_elements(user_kernel::DType::float32, 1000, 1, 1));
  EXPECT_NE(x, user_kernel::random_elements(user_kernel::DType::float32, 1000, 2, 1));
  double lowest = 1, highest = -1;
  for (std::size_t i = 0; i < 1000; ++i) {
    const double v = user_kernel::load_element(user_kernel::DType::float32, x.data() + 4 * i);
    lowest = std::min(lowest, v);
    highest = std::max(highest, v);
  }
  EXPECT_GE(lowest, -1.0);
  EXPECT_LT(highest, 1.0);
  EXPECT_LT(lowest, -0.9);
  EXPECT_GT(highest, 0.9);
  const auto ints = user_kernel::random_elements(user_kernel::DType::int32, 1000, 1, 3);
  for (std::size_t i = 0; i < 1000; ++i) {
    const double v = user_kernel::load_element(user_kernel::DType::int32, ints.data() + 4 * i);
    ASSERT_GE(v, 0);
    ASSERT_LT(v, 100);
  }
  EXPECT_TRUE(user_kernel::within_tolerance(1.0005, 1.0, 1e-3, 0));
  EXPECT_FALSE(user_kernel::within_tolerance(1.002, 1.0, 1e-3, 0));
  EXPECT_TRUE(user_kernel::within_tolerance(1.002, 1.0, 0, 3e-3));
  EXPECT_FALSE(user_kernel::within_tolerance(std::nan(""), 1.0, 1e9, 1e9));
}

// ---- The Bench on a GPU: a correct kernel passes, poisoned outputs catch a skipped element, wrong
// values fail.

namespace {

harness::CheckResult run_on_gpu(const std::string& spec, const std::string& problem_text, const std::string& config_text) {
  runtime::DeviceContext context(0);
  runtime::Stream stream;
  const runtime::DeviceProperties props = runtime::query_device(0);
  const runtime::Target target = runtime::Target::parse(props.native_target());
  const DeviceLimits limits = DeviceLimits::from(props);
  runtime::NvrtcCompiler compiler;
  const auto family = user_kernel::open_spec(spec_fixture(spec).string());
  const harness::FamilyProblem problem = family->parse_problem(problem_text);
  const Config config = family->parse_config(config_text, problem, limits);
  const runtime::Preparation prepared = family->prepare(config, problem, limits, target, compiler);
  const runtime::PreparedKernel* kernel = runtime::prepared(prepared);
  EXPECT_NE(kernel, nullptr) << runtime::rejected(prepared)->reason;
  if (kernel == nullptr) return {};
  auto bench = family->make_bench(problem, harness::BenchContext{props, limits, target, compiler, stream, 1});
  const auto loaded = bench->load(*kernel->cubin, kernel->kernel_name, config);
  bench->poison_outputs(stream);
  loaded->launch(stream);
  return bench->check(stream);
}

}  // namespace

TEST(KernelSpecGpu, ACorrectKernelPasses) {
  EVOTUNE_REQUIRE_GPU();
  for (const char* config : {"default", "BLOCK=64,ITEMS=4", "BLOCK=512,ITEMS=1"}) {
    const harness::CheckResult r = run_on_gpu("saxpy/saxpy.toml", "n=1000003", config);
    EXPECT_TRUE(r.passed) << config << ": " << r.reason;
    EXPECT_LE(r.max_abs_error, 1e-6) << config;
  }
  const harness::CheckResult tiled = run_on_gpu("tiled/tiled.toml", "m=1000,n=768,k=256", "BLOCK_M=64,BLOCK_N=32,BLOCK_K=16,WARPS=4");
  EXPECT_TRUE(tiled.passed) << tiled.reason;
}

TEST(KernelSpecGpu, AKernelThatSkipsAnElementFailsThroughThePoison) {
  EVOTUNE_REQUIRE_GPU();
  const harness::CheckResult r = run_on_gpu("saxpy/saxpy_skips_last.toml", "n=1000003", "default");
  EXPECT_FALSE(r.passed);
  EXPECT_EQ(r.reason.rfind("out[1000002] = NaN where the reference has", 0), 0u) << r.reason;
  EXPECT_NE(r.reason.find("; 1 of 1000003 elements of out are outside the tolerance"), std::string::npos) << r.reason;
}

TEST(KernelSpecGpu, AKernelWritingWrongValuesFails) {
  EVOTUNE_REQUIRE_GPU();
  const harness::CheckResult r = run_on_gpu("saxpy/saxpy_wrong.toml", "n=1048576", "default");
  EXPECT_FALSE(r.passed);
  EXPECT_EQ(r.reason.rfind("out[0] = ", 0), 0u) << r.reason;
  EXPECT_GT(r.max_abs_error, 0.01);
  EXPECT_GT(r.rel_l2_error, 0.1);
}

TEST(KernelSpecGpu, TheExportedHeaderRunsTheWinnerWithTheDriverAlone) {
  EVOTUNE_REQUIRE_GPU();
  // The winner's CUBIN for this GPU, in a header; a program built with g++ and -lcuda alone runs it.
  const runtime::DeviceProperties props = runtime::query_device(0);
  const runtime::Target target = runtime::Target::parse(props.native_target());
  runtime::NvrtcCompiler nvrtc;
  const auto family = user_kernel::open_spec(spec_fixture("saxpy/saxpy.toml").string());
  harness::ExportedWinner w;
  w.device = props.name;
  w.problem = family->parse_problem("n=1000003");
  w.config = family->parse_config("BLOCK=128,ITEMS=4", w.problem, DeviceLimits::from(props));
  const runtime::Preparation p = family->prepare(w.config, w.problem, DeviceLimits::from(props), target, nvrtc);
  ASSERT_NE(runtime::prepared(p), nullptr) << runtime::rejected(p)->reason;
  w.kernel_name = runtime::prepared(p)->kernel_name;
  w.cubin = *runtime::prepared(p)->cubin;
  evotune::testing::TempDir dir;
  evotune::testing::write_bytes(dir.path() / "tuned_saxpy.h", family->render_header({"test", "", "", {w}}));
  evotune::testing::write_bytes(dir.path() / "run.cpp", R"cpp(#include <cstdio>
#include <vector>
#include "tuned_saxpy.h"
int main() {
  namespace t = evotune_tuned_saxpy;
  CUdevice device;
  CUcontext context;
  if (cuInit(0) || cuDeviceGet(&device, 0) || cuDevicePrimaryCtxRetain(&context, device) || cuCtxSetCurrent(context)) return 2;
  const t::Problem problem{999999};  // not the tuned size: the nearest entry serves it
  const t::Entry* entry = t::lookup(problem);
  if (!entry) return 3;
  int n = static_cast<int>(problem.n);
  float a = 1.5f;
  std::vector<float> x(n), y(n), out(n);
  for (int i = 0; i < n; ++i) x[i] = i % 7, y[i] = i % 5;
  CUdeviceptr dx, dy, dout;
  const std::size_t bytes = n * sizeof(float);
  if (cuMemAlloc(&dx, bytes) || cuMemAlloc(&dy, bytes) || cuMemAlloc(&dout, bytes)) return 4;
  cuMemcpyHtoD(dx, x.data(), bytes);
  cuMemcpyHtoD(dy, y.data(), bytes);
  void* args[] = {&dx, &dy, &dout, &a, &n};
  if (const CUresult r = t::launch(*entry, problem, args, nullptr)) return 10 + static_cast<int>(r);
  if (cuCtxSynchronize() || cuMemcpyDtoH(out.data(), dout, bytes)) return 5;
  for (int i = 0; i < n; ++i) {
    if (out[i] != a * x[i] + y[i]) { std::printf("out[%d] = %g\n", i, out[i]); return 6; }
  }
  std::printf("ok %s grid %u\n", entry->kernel, t::grid(*entry, problem).x);
  return 0;
}
)cpp");
  const fs::path include_dir = runtime::find_cuda_include_dir(runtime::default_cuda_include_candidates());
  const fs::path stubs = cuda_stub_dir(include_dir);
  ASSERT_FALSE(stubs.empty()) << "no libcuda.so stub beside " << include_dir;
  const auto built = evotune::testing::run_process(
      {"/usr/bin/env", "g++", "-std=c++17", "-Wall", "-Wextra", "-Werror", "-I" + include_dir.string(),
       (dir.path() / "run.cpp").string(), "-L" + stubs.string(), "-lcuda", "-o", (dir.path() / "run").string()},
      300);
  ASSERT_EQ(built.exit_code, 0) << built.output;
  const auto ran = evotune::testing::run_process({(dir.path() / "run").string()});
  EXPECT_EQ(ran.exit_code, 0) << ran.output;
  EXPECT_EQ(ran.output, fmt::format("ok {} grid {}\n", w.kernel_name, (999999 + 511) / 512));
}
