// Bad inputs, all of them (issue 13): each is one line on stderr and exit 2 from the evotune binary, and a
// UsageError naming the file and the entry from the library; recorded spaces whose names or values cannot be
// written back are refused at load; a gzip bomb is stopped; a sparse recorded space is searched over what
// it records.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "core/errors.h"
#include "search/replay.h"
#include "search/strategy.h"
#include "search/t4.h"
#include "families/attention/host/problem.h"
#include "tests/subprocess.h"
#include "tests/test_support.h"

namespace {

namespace fs = std::filesystem;
using evotune::testing::evotune_binary;
using evotune::testing::ProcessResult;
using evotune::testing::run_process;
using evotune::testing::TempDir;

const std::string kT4 = (evotune::testing::t4_dir() / "convolution_milo_A100_T4.json.gz").string();

ProcessResult run_evotune(std::vector<std::string> args, double timeout_seconds = 120) {
  args.insert(args.begin(), evotune_binary());
  return run_process(args, timeout_seconds);
}

std::string shown(const std::vector<std::string>& args) {
  std::string out;
  for (const std::string& a : args) out += nlohmann::json(a).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + " ";
  return out;
}

// The promise for every bad input: exit 2, exactly one line on stderr, "evotune: error: ...", and when a
// file is at fault, its name in that line.
ProcessResult expect_usage_error(const std::vector<std::string>& args, const std::string& must_name = "") {
  const ProcessResult r = run_evotune(args);
  EXPECT_FALSE(r.timed_out) << shown(args);
  EXPECT_EQ(r.exit_code, 2) << shown(args) << "\n" << r.output;
  EXPECT_EQ(evotune::testing::line_count(r.stderr_text), 1) << shown(args) << "\n" << r.output;
  EXPECT_EQ(r.stderr_text.rfind("evotune: error: ", 0), 0u) << shown(args) << "\n" << r.output;
  if (!must_name.empty()) {
    EXPECT_NE(r.stderr_text.find(must_name), std::string::npos) << shown(args) << "\n" << r.output;
  }
  return r;
}


// A small valid T4 document: parameters x (0..3) and y (0..2), every config correct, time 1 + x + y.
nlohmann::json small_t4() {
  nlohmann::json results = nlohmann::json::array();
  for (int x = 0; x < 4; ++x) {
    for (int y = 0; y < 3; ++y) {
      results.push_back({{"configuration", {{"x", x}, {"y", y}}},
                         {"invalidity", "correct"},
                         {"measurements", {{{"name", "time"}, {"value", 1.0 + x + y}, {"unit", "ms"}}}}});
    }
  }
  return {{"schema_version", "1.0.0"}, {"results", results}};
}

}  // namespace

TEST(Inputs, ProblemsThatAreEmptyOrOverflowAreUsageErrors) {
  EXPECT_THROW(evotune::attention::Problem::parse(""), evotune::UsageError);
  EXPECT_THROW(evotune::attention::Problem::parse(","), evotune::UsageError);
  EXPECT_THROW(evotune::attention::Problem::parse("b=65535,hq=65535,sq=2147483647,d=128"), evotune::UsageError);
  // 2^53 elements of Q: a 64-bit count, but no GPU's memory.
  EXPECT_THROW(evotune::attention::Problem::parse("b=65535,hq=1,sq=2147483647,d=64"), evotune::UsageError);
  EXPECT_NO_THROW(evotune::attention::Problem::parse("b=4,hq=32,hkv=8,sq=65536,d=128"));
  for (const char* problem : {"", "b=65535,hq=65535,sq=2147483647,d=128", "b=1,hq=1,sq=99999999999,d=64"}) {
    expect_usage_error({"compile", "--problem", problem, "--target", "sm_80"});
  }
}

TEST(Inputs, MalformedDevicesAreUsageErrorsBeforeAnyDatabase) {
  TempDir dir;
  const std::string db = (dir.path() / "devices.db").string();
  for (const char* devices : {"0,,1", "0,", ",0", " 0", "+1", "0x1", "0,0", "99999999999", "1024", "-1", "a"}) {
    expect_usage_error({"search", "--replay", kT4, "--budget", "2", "--devices", devices, "--db", db});
  }
  EXPECT_FALSE(fs::exists(db)) << "a bad --devices created the database";
}

TEST(Inputs, NonFiniteNumbersAreUsageErrors) {
  TempDir dir;
  const std::string db = (dir.path() / "finite.db").string();
  for (const char* option : {"--trial-timeout", "--max-minutes", "--compile-timeout"}) {
    for (const char* value : {"nan", "inf", "-nan", "NaN"}) {
      expect_usage_error({"search", "--replay", kT4, "--budget", "2", option, value, "--db", db});
    }
  }
}

TEST(Inputs, OutOfRangeEvoOptionsAreUsageErrors) {
  for (const char* evo : {"population=nan", "population=1e12", "population=2.5", "offspring=-3", "mutation_rate=7",
                          "crossover_rate=-1", "local_rate=inf", "insight_weight=-1", "stagnation=0",
                          "tournament=1e300", "jump_rate=nan"}) {
    EXPECT_THROW(evotune::search::parse_evo_options(evo), evotune::UsageError) << evo;
    expect_usage_error({"strategy-bench", "--t4", kT4, "--budget", "2", "--repeats", "1", "--evo", evo});
  }
  EXPECT_EQ(evotune::search::parse_evo_options("population=12,mutation_rate=0,local_rate=1").population, 12);
}

TEST(Inputs, UnknownCompileTargetsAreUsageErrors) {
  TempDir dir;
  for (const char* target : {"sm_99", "sm_80a", "sm_12", "sm_1000"}) {
    expect_usage_error({"compile", "--problem", "b=1,hq=1,sq=128,d=64", "--target", target});
    expect_usage_error({"compile-bench", "--count", "1", "--target", target});
    expect_usage_error({"search", "--compile-only", "--problem", "b=1,hq=1,sq=128,d=64", "--target", target,
                        "--budget", "1", "--db", (dir.path() / "targets.db").string()});
  }
}

TEST(Inputs, UnknownRunsInLogAndTopAreUsageErrors) {
  TempDir dir;
  const std::string db = (dir.path() / "runs.db").string();
  const ProcessResult made = run_evotune({"search", "--replay", kT4, "--budget", "3", "--db", db});
  ASSERT_EQ(made.exit_code, 0) << made.output;
  for (const char* run : {"99", "-4"}) {
    expect_usage_error({"log", "--db", db, "--run", run}, "no run");
    expect_usage_error({"top", "--db", db, "--run", run}, "no run");
  }
}

// A reading command given a database that does not exist: one line naming it, exit 2, and no file made.
TEST(Inputs, AMissingDatabaseIsAUsageErrorOfEveryReadingCommand) {
  TempDir dir;
  const std::string db = (dir.path() / "missing.db").string();
  const std::string out = (dir.path() / "out.txt").string();
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{"runs", "--db", db},
                                             {"log", "--db", db},
                                             {"top", "--db", db},
                                             {"report", "--db", db, "-o", out},
                                             {"export", "--format", "csv", "--db", db, "--out", out},
                                             {"export", "--db", db, "--out", out, "--skip-verify"}}) {
    expect_usage_error(args, db);
  }
  EXPECT_TRUE(fs::is_empty(dir.path()));
}

// Each document is wrong in one way; each is refused with the file's name (and, for an entry, which one).
TEST(Inputs, MalformedOrUnwritableT4DocumentsAreRefusedWithTheFileAndEntry) {
  TempDir dir;
  auto with = [](const std::function<void(nlohmann::json&)>& change) {
    nlohmann::json doc = small_t4();
    change(doc);
    return doc.dump();
  };
  const std::vector<std::pair<std::string, std::string>> documents = {
      {"not_json", "{\"results\": ["},
      {"array", "[]"},
      {"results_object", R"({"results": {}})"},
      {"result_number", R"({"results": [1]})"},
      {"configuration_array", R"({"results": [{"configuration": []}]})"},
      {"other_parameters", with([](auto& d) { d["results"][3]["configuration"] = {{"x", 1}, {"z", 0}}; })},
      {"missing_parameter", with([](auto& d) { d["results"][2]["configuration"].erase("y"); })},
      {"null_value", with([](auto& d) { d["results"][1]["configuration"]["x"] = nullptr; })},
      {"array_value", with([](auto& d) { d["results"][1]["configuration"]["x"] = {1, 2}; })},
      {"invalidity_number", with([](auto& d) { d["results"][0]["invalidity"] = 5; })},
      {"measurements_string", with([](auto& d) { d["results"][0]["measurements"] = "fast"; })},
      {"time_string", with([](auto& d) { d["results"][4]["measurements"][0]["value"] = "1.0"; })},
      {"time_negative", with([](auto& d) { d["results"][4]["measurements"][0]["value"] = -1.0; })},
      {"time_zero", with([](auto& d) { d["results"][4]["measurements"][0]["value"] = 0; })},
      {"name_comma", with([](auto& d) {
         for (auto& r : d["results"]) r["configuration"]["a,b"] = 1;
       })},
      {"name_equals", with([](auto& d) {
         for (auto& r : d["results"]) r["configuration"]["a=b"] = 1;
       })},
      {"value_comma", with([](auto& d) { d["results"][5]["configuration"]["y"] = "p,q"; })},
      {"value_equals", with([](auto& d) { d["results"][5]["configuration"]["y"] = "p=q"; })},
      {"value_nul", with([](auto& d) { d["results"][5]["configuration"]["y"] = std::string("p\0q", 3); })},
      {"integer_beyond_int", with([](auto& d) { d["results"][6]["configuration"]["x"] = 10000000000LL; })},
      {"integer_beyond_int64", with([](auto& d) { d["results"][6]["configuration"]["x"] = 18446744073709551615ULL; })},
      {"recorded_twice", with([](auto& d) { d["results"][1]["configuration"] = d["results"][0]["configuration"]; })},
  };
  for (const auto& [name, text] : documents) {
    const fs::path path = dir.path() / (name + ".json");
    evotune::testing::write_bytes(path, text);
    try {
      evotune::search::T4Space::load(path);
      ADD_FAILURE() << name << " was accepted";
    } catch (const evotune::UsageError& e) {
      EXPECT_NE(std::string(e.what()).find(path.string()), std::string::npos) << name << ": " << e.what();
      EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << name << ": " << e.what();
    } catch (const std::exception& e) {
      ADD_FAILURE() << name << ": not a UsageError: " << e.what();
    }
    expect_usage_error({"strategy-bench", "--t4", path.string(), "--budget", "2", "--repeats", "1"}, path.string());
  }
  // Where an entry is at fault, the message says which.
  try {
    evotune::search::T4Space::load(dir.path() / "time_negative.json");
  } catch (const evotune::UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("results[4]"), std::string::npos) << e.what();
  }
  // The well-formed original loads.
  evotune::testing::write_bytes(dir.path() / "good.json", small_t4().dump());
  EXPECT_EQ(evotune::search::T4Space::load(dir.path() / "good.json").results().size(), 12u);
}

// A valid document padded with 257 MiB of one letter compresses to a few hundred KiB; reading it must stop
// at the documented limit (kT4MaxDocumentBytes, 256 MiB) instead of holding it all.
TEST(Inputs, AGzipBombIsRefusedAtTheSizeLimit) {
  TempDir dir;
  const fs::path bomb = dir.path() / "bomb.json.gz";
  {
    gzFile out = gzopen(bomb.c_str(), "wb1");
    ASSERT_NE(out, nullptr);
    const std::string head = "{\"padding\": \"";
    gzwrite(out, head.data(), static_cast<unsigned>(head.size()));
    const std::string chunk(1 << 20, 'a');
    for (int i = 0; i < 257; ++i) gzwrite(out, chunk.data(), static_cast<unsigned>(chunk.size()));
    const std::string tail = "\", " + small_t4().dump().substr(1);
    gzwrite(out, tail.data(), static_cast<unsigned>(tail.size()));
    gzclose(out);
  }
  ASSERT_LT(fs::file_size(bomb), 4u << 20);
  const ProcessResult r =
      expect_usage_error({"strategy-bench", "--t4", bomb.string(), "--budget", "2", "--repeats", "1"}, bomb.string());
  EXPECT_NE(r.stderr_text.find("256 MiB"), std::string::npos) << r.stderr_text;
}

namespace {
// A recorded space that is a tiny part of its product: 8 parameters of 10 values (10^8 configs), of which
// 40 are recorded, the fastest with time 1.
fs::path write_sparse_t4(const fs::path& dir) {
  std::mt19937 rng(13);
  nlohmann::json results = nlohmann::json::array();
  for (int i = 0; i < 40; ++i) {
    nlohmann::json configuration;
    for (int p = 0; p < 8; ++p) {
      std::string name = "p";  // not "p" + to_string(p): GCC 12 -O3 warns falsely (-Wrestrict) on that
      name += std::to_string(p);
      configuration[name] = (i * 7 + p * static_cast<int>(rng() % 3)) % 10 * 16;
    }
    configuration["p0"] = i % 10 * 16;
    configuration["p1"] = i / 10 * 16;  // (p0, p1) distinct: no configuration is recorded twice
    results.push_back({{"configuration", configuration},
                       {"invalidity", "correct"},
                       {"measurements", {{{"name", "time"}, {"value", 1.0 + i}, {"unit", "ms"}}}}});
  }
  const fs::path path = dir / "sparse.json";
  evotune::testing::write_bytes(path, nlohmann::json{{"results", results}}.dump());
  return path;
}
}  // namespace

TEST(Inputs, ASparseRecordedSpaceIsSearchedOverItsRecordedConfigs) {
  TempDir dir;
  const fs::path sparse = write_sparse_t4(dir.path());
  const evotune::search::T4Space recorded = evotune::search::T4Space::load(sparse);
  EXPECT_GE(recorded.space().product_size(), 1e6);
  std::size_t visited = 0;
  recorded.space().for_each_valid([&](const evotune::Config&) { return ++visited < 1000; });
  EXPECT_EQ(visited, 40u);
  evotune::search::Rng rng(1);
  for (int i = 0; i < 100; ++i) {
    const std::optional<evotune::Config> c = recorded.space().sample(rng, 1000);
    ASSERT_TRUE(c.has_value()) << "sampling over the product found no recorded config";
    EXPECT_NE(recorded.lookup(*c), nullptr);
  }

  // strategy-bench: all 40 configs within a budget of 40, for random and exhaustive alike.
  const ProcessResult bench = run_evotune({"strategy-bench", "--t4", sparse.string(), "--strategies",
                                       "random,exhaustive,evo", "--budget", "40", "--repeats", "2", "--json"},
                                      60);
  ASSERT_FALSE(bench.timed_out) << "strategy-bench hung on a sparse space";
  ASSERT_EQ(bench.exit_code, 0) << bench.output;
  const nlohmann::json scores = nlohmann::json::parse(bench.output.substr(bench.output.find('{')));
  for (const auto& s : scores["strategies"]) {
    if (s["strategy"] != "evo") {
      EXPECT_DOUBLE_EQ(s["mean_fraction_of_optimum"].get<double>(), 1.0) << s.dump();
    }
    EXPECT_GT(s["mean_fraction_of_optimum"].get<double>(), 0.0) << s.dump();
  }

  // search --replay: the budget is spent on recorded configs.
  const std::string db = (dir.path() / "sparse.db").string();
  const ProcessResult search =
      run_evotune({"search", "--replay", sparse.string(), "--strategy", "exhaustive", "--budget", "40", "--db", db}, 60);
  ASSERT_FALSE(search.timed_out) << "search --replay hung on a sparse space";
  ASSERT_EQ(search.exit_code, 0) << search.output;
  EXPECT_NE(search.output.find("40 trials (40 new), 40 valid"), std::string::npos) << search.output;
}

// Reading a T4 file is bounded in every way (issue 48): a .gz of '[' alone (the parser would build every
// level, gigabytes) is refused at the nesting limit; a device that never ends (/dev/zero) and a FIFO are
// refused before anything is read or hashed; a deeply nested plain document is refused before parsing.
namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif
#else
constexpr bool kSanitized = false;
#endif

// The binary under a 3 GiB address-space limit (unless a sanitizer build, whose shadow memory needs more),
// so that a parser that builds what it should refuse fails fast instead of taking the machine's memory.
ProcessResult run_evotune_bounded(const std::vector<std::string>& args) {
  if (kSanitized) return run_evotune(args);
  std::string command = "ulimit -v 3145728 && exec \"$0\"";
  for (std::size_t i = 0; i < args.size(); ++i) command += fmt::format(" \"${}\"", i + 1);
  std::vector<std::string> argv = {"/bin/sh", "-c", command, evotune_binary()};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_process(argv, 120);
}

}  // namespace

TEST(Inputs, AGzipOfOpenBracketsIsRefusedAtTheNestingLimit) {
  TempDir dir;
  const fs::path bomb = dir.path() / "brackets.json.gz";
  {
    gzFile out = gzopen(bomb.c_str(), "wb9");
    ASSERT_NE(out, nullptr);
    const std::string chunk(1 << 20, '[');
    for (int i = 0; i < 96; ++i) gzwrite(out, chunk.data(), static_cast<unsigned>(chunk.size()));
    gzclose(out);
  }
  ASSERT_LT(fs::file_size(bomb), 1u << 20);  // 96 MiB of content in under 1 MiB
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"strategy-bench", "--t4", bomb.string(), "--budget", "2", "--repeats", "1"},
           {"search", "--replay", bomb.string(), "--budget", "2", "--db", (dir.path() / "bomb.db").string()}}) {
    const ProcessResult r = run_evotune_bounded(args);
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_EQ(evotune::testing::line_count(r.stderr_text), 1) << r.stderr_text;
    EXPECT_NE(r.stderr_text.find("deeper than 64 levels"), std::string::npos) << r.stderr_text;
    EXPECT_NE(r.stderr_text.find(bomb.string()), std::string::npos) << r.stderr_text;
  }
}

TEST(Inputs, ADeeplyNestedT4DocumentIsRefusedBeforeParsing) {
  TempDir dir;
  const fs::path deep = dir.path() / "deep.json";
  // A valid document whose first result carries a 100-deep value the parser would otherwise accept.
  nlohmann::json doc = small_t4();
  std::string text = doc.dump();
  const std::string nested = std::string(100, '[') + std::string(100, ']');
  text.replace(text.find("\"invalidity\""), 0, "\"extra\": " + nested + ", ");
  evotune::testing::write_bytes(deep, text);
  ASSERT_FALSE(nlohmann::json::parse(text, nullptr, false).is_discarded());
  try {
    evotune::search::T4Space::load(deep);
    ADD_FAILURE() << "a 100-deep document loaded";
  } catch (const evotune::UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("deeper than 64 levels"), std::string::npos) << e.what();
  }
  expect_usage_error({"strategy-bench", "--t4", deep.string(), "--budget", "2", "--repeats", "1"}, "deeper than 64");
  // 64 levels are fine: the limit is on depth, not on nesting as such.
  text = small_t4().dump();
  text.replace(text.find("\"invalidity\""), 0,
               "\"extra\": " + std::string(60, '[') + std::string(60, ']') + ", ");
  evotune::testing::write_bytes(deep, text);
  EXPECT_EQ(evotune::search::T4Space::load(deep).results().size(), 12u);
}

TEST(Inputs, T4FilesThatAreNotRegularFilesAreRefusedBeforeAnyRead) {
  TempDir dir;
  const std::string db = (dir.path() / "zero.db").string();
  // /dev/zero never ends: hashing it (a resume compares the hash) would never return.
  const ProcessResult replay = expect_usage_error({"search", "--replay", "/dev/zero", "--budget", "2", "--db", db},
                                                  "/dev/zero");
  EXPECT_NE(replay.stderr_text.find("not a regular file"), std::string::npos) << replay.stderr_text;
  expect_usage_error({"strategy-bench", "--t4", "/dev/zero", "--budget", "2", "--repeats", "1"}, "/dev/zero");
  EXPECT_FALSE(fs::exists(db));
  // A FIFO without a writer: refused at once, not waited on.
  const fs::path fifo = dir.path() / "space.fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  expect_usage_error({"search", "--replay", fifo.string(), "--budget", "2", "--db", db}, fifo.string());
  EXPECT_THROW(evotune::search::T4Space::load(fifo), evotune::UsageError);
}

// Values of two JSON types that print alike ("1" and 1, "true" and true, "0.5" and 0.5) are distinct configs
// with distinct labels, and a replay exported as T4 gives back exactly the values it replayed.
TEST(Inputs, T4ValuesKeepTheirTypeThroughReplayAndExport) {
  TempDir dir;
  const nlohmann::json values = nlohmann::json::array({1, "1", true, "true", 0.5, "0.5", "x", "null", false});
  nlohmann::json results = nlohmann::json::array();
  for (std::size_t i = 0; i < values.size(); ++i) {
    const double time = 1.0 + static_cast<double>(i);
    results.push_back({{"configuration", {{"v", values[i]}, {"n", 2}}},
                       {"invalidity", "correct"},
                       {"measurements", {{{"name", "time"}, {"value", time}, {"unit", "ms"}}}}});
  }
  const fs::path space = dir.path() / "typed.json";
  evotune::testing::write_bytes(space, nlohmann::json{{"schema_version", "1.0.0"}, {"results", results}}.dump());
  const evotune::search::T4Space loaded = evotune::search::T4Space::load(space);
  ASSERT_EQ(loaded.results().size(), values.size());
  std::set<std::string> labels;
  for (const evotune::Parameter& p : loaded.space().parameters()) {
    if (p.name == "v") labels.insert(p.labels.begin(), p.labels.end());
  }
  EXPECT_EQ(labels.size(), values.size()) << "two values share a label";

  const std::string db = (dir.path() / "typed.db").string();
  const ProcessResult searched = run_evotune({"search", "--replay", space.string(), "--strategy", "exhaustive",
                                              "--budget", std::to_string(values.size()), "--db", db});
  ASSERT_EQ(searched.exit_code, 0) << searched.output;
  const fs::path exported = dir.path() / "exported.json";
  const ProcessResult wrote = run_evotune({"export", "--format", "t4", "--db", db, "-o", exported.string()});
  ASSERT_EQ(wrote.exit_code, 0) << wrote.output;
  const nlohmann::json back = nlohmann::json::parse(evotune::testing::file_bytes(exported));
  std::multiset<std::string> original, round_trip;
  for (const nlohmann::json& r : results) original.insert(r.at("configuration").dump());
  for (const nlohmann::json& r : back.at("results")) round_trip.insert(r.at("configuration").dump());
  EXPECT_EQ(round_trip, original);
  // And the exported document reads back as the same space.
  EXPECT_EQ(evotune::search::T4Space::load(exported).results().size(), values.size());
}

// Durations beyond a day would overflow the clock's deadline (every trial a timeout, exit 0); each is a
// usage error, as is a seed outside 0..2^63-1 and an integer option written out of range, with a sign
// it cannot take, or in another base.
TEST(Inputs, OutOfRangeDurationsSeedsAndCountsAreUsageErrors) {
  TempDir dir;
  const std::string db = (dir.path() / "ranges.db").string();
  for (const char* value : {"1e10", "1e16", "1e300", "86401"}) {
    expect_usage_error({"search", "--replay", kT4, "--budget", "2", "--trial-timeout", value, "--db", db},
                       "--trial-timeout");
    expect_usage_error({"search", "--replay", kT4, "--budget", "2", "--compile-timeout", value, "--db", db},
                       "--compile-timeout");
  }
  expect_usage_error({"search", "--replay", kT4, "--budget", "2", "--max-minutes", "1e300", "--db", db},
                     "--max-minutes");
  for (const char* seed : {"-1", "99999999999999999999", "9223372036854775808", "18446744073709551615", "0x10",
                           "010", "1.5", "+3", ""}) {
    expect_usage_error({"search", "--replay", kT4, "--budget", "2", "--seed", seed, "--db", db}, "--seed");
    expect_usage_error({"strategy-bench", "--t4", kT4, "--budget", "2", "--repeats", "1", "--seed", seed}, "--seed");
  }
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"--budget", "-1"},           {"--budget", "99999999999999999999"}, {"--budget", "010"},
           {"--history", "-1"},          {"--stop-after-stagnant", "-3"},     {"--lookahead", "0x2"},
           {"--compile-processes", "-1"}, {"--resume", "99999999999999999999"}, {"--resume", "-2"}}) {
    std::vector<std::string> command = {"search", "--replay", kT4, "--db", db};
    command.insert(command.end(), args.begin(), args.end());
    if (args[0] != "--budget") command.insert(command.end(), {"--budget", "2"});
    expect_usage_error(command, args[0]);
  }
  for (const char* run : {"99999999999999999999", "0x1"}) {
    expect_usage_error({"top", "--db", db, "--run", run}, "--run");
    expect_usage_error({"report", "--db", db, "--run", run, "-o", (dir.path() / "r.html").string()}, "--run");
  }
  expect_usage_error({"top", "--db", db, "-n", "-5"}, "-n");
  EXPECT_FALSE(fs::exists(db)) << "a bad option created the database";
  // The largest seed and a day-long timeout are accepted, and the seed is stored exactly.
  const ProcessResult ok = run_evotune({"search", "--replay", kT4, "--budget", "2", "--seed", "9223372036854775807",
                                        "--trial-timeout", "86400", "--db", db});
  ASSERT_EQ(ok.exit_code, 0) << ok.output;
  const ProcessResult exported = run_evotune({"export", "--format", "t4", "--db", db});
  ASSERT_EQ(exported.exit_code, 0) << exported.output;
  const nlohmann::json t4 = nlohmann::json::parse(exported.output.substr(0, exported.output.rfind('}') + 1));
  EXPECT_EQ(t4.at("metadata").at("evotune").at("seed").get<std::uint64_t>(), 9223372036854775807u);
}

TEST(Inputs, AnEvoOptionGivenTwiceIsAUsageError) {
  EXPECT_THROW(evotune::search::parse_evo_options("offspring=8,offspring=16"), evotune::UsageError);
  EXPECT_THROW(evotune::search::parse_evo_options("offspring=8,population=12,offspring=8"), evotune::UsageError);
  TempDir dir;
  const ProcessResult r = expect_usage_error({"search", "--replay", kT4, "--budget", "2", "--evo",
                                              "offspring=8,offspring=16", "--db", (dir.path() / "evo.db").string()},
                                             "offspring");
  EXPECT_NE(r.stderr_text.find("given twice"), std::string::npos) << r.stderr_text;
  expect_usage_error({"strategy-bench", "--t4", kT4, "--budget", "2", "--repeats", "1", "--evo",
                      "mutation_rate=0.1,mutation_rate=0.2"},
                     "mutation_rate");
}
