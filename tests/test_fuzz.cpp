// A seeded property test of every parser that takes text from outside (issue 13): problem strings, config
// strings, evo options and T4 documents, mutated (byte flips, insertions, truncations, type swaps, huge and
// non-finite numbers, gzip'd and torn gzip variants), go through the parsers in this process and a bounded
// sample through the evotune binary. The property: a parser returns or throws UsageError, nothing else; the
// binary exits 0 or 2 within its time limit, never a crash, a hang or another code. The seed is fixed, so a
// failure names an input that reproduces it; EVOTUNE_FUZZ_SEED picks another for a longer local run.
#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "core/errors.h"
#include "search/replay.h"
#include "search/strategy.h"
#include "search/t4.h"
#include "families/attention/host/attention_family.h"
#include "families/attention/host/problem.h"
#include "tests/subprocess.h"
#include "tests/test_support.h"

namespace {

namespace fs = std::filesystem;
using Rng = std::mt19937_64;

std::uint64_t fuzz_seed() {
  if (const char* env = std::getenv("EVOTUNE_FUZZ_SEED"); env != nullptr && *env != '\0') return std::strtoull(env, nullptr, 10);
  return 0x13c0ffee;
}

std::size_t pick(Rng& rng, std::size_t n) { return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng); }

// Replacements that have broken parsers before: separators, NUL and control bytes, signs, exponents,
// values beyond int and int64, non-finite spellings, non-ASCII.
const std::vector<std::string> kInteresting = {
    ",", "=", ",,", "==", std::string(1, '\0'), "\n", "\t", " ", "-", "+", "0", "-1", "1e9", "1e309", "nan", "inf",
    "-inf", "2147483647", "2147483648", "-2147483649", "9223372036854775807", "18446744073709551616",
    "99999999999999999999999", "0x10", "1.5", ".", "e", "\xc3\xa9", "\xff", "\"", "\\", "{", "[", "}", "]", "null",
    "true"};

std::string mutate(const std::string& input, Rng& rng) {
  std::string s = input;
  const int edits = 1 + static_cast<int>(pick(rng, 4));
  for (int e = 0; e < edits; ++e) {
    const std::size_t at = s.empty() ? 0 : pick(rng, s.size() + 1);
    switch (pick(rng, 6)) {
      case 0:  // flip a byte
        if (!s.empty()) s[std::min(at, s.size() - 1)] ^= static_cast<char>(1u << pick(rng, 8));
        break;
      case 1:  // insert something interesting
        s.insert(std::min(at, s.size()), kInteresting[pick(rng, kInteresting.size())]);
        break;
      case 2:  // delete a run
        if (!s.empty()) s.erase(std::min(at, s.size() - 1), 1 + pick(rng, 4));
        break;
      case 3:  // truncate
        s.resize(std::min(at, s.size()));
        break;
      case 4: {  // replace a number with an interesting one
        const std::size_t digit = s.find_first_of("0123456789", std::min(at, s.size()));
        if (digit == std::string::npos) break;
        const std::size_t end = s.find_first_not_of("0123456789.", digit);
        s.replace(digit, (end == std::string::npos ? s.size() : end) - digit, kInteresting[pick(rng, kInteresting.size())]);
        break;
      }
      default:  // duplicate a piece
        if (!s.empty()) s.insert(std::min(at, s.size()), s.substr(pick(rng, s.size()), 1 + pick(rng, 8)));
        break;
    }
  }
  return s;
}

// Any exception but UsageError fails the property; so would a crash, which ends the test binary.
template <typename Parse>
void expect_parses_or_usage_error(const std::string& what, const std::string& input, Parse parse) {
  try {
    parse(input);
  } catch (const evotune::UsageError&) {
  } catch (const std::exception& e) {
    ADD_FAILURE() << what << " threw " << typeid(e).name() << " (" << e.what() << ") for "
                  << nlohmann::json(input).dump(-1, ' ', true, nlohmann::json::error_handler_t::replace);
  }
}

const std::vector<std::string> kProblems = {"b=4,hq=32,hkv=8,sq=4096,skv=4096,d=128,causal=1,dtype=bf16",
                                            "b=1,hq=8,sq=512,d=64", "b=2,hq=16,hkv=16,sq=128,skv=1024,d=128,causal=0"};
const std::vector<std::string> kConfigs = {
    "mma=mma_sync,block_m=128,block_n=64,warps=8,stages=2", "mma=scalar,block_m=64,q_frags=smem",
    "mma=wgmma,block_m=128,block_n=128,warps=12,producer_regs=none,splits=auto"};
const std::vector<std::string> kEvo = {"population=12,local_rate=0.5", "offspring=6,mutation_rate=0.3,stagnation=4"};

// A small T4 document with a categorical and a float parameter besides integers.
nlohmann::json seed_document(Rng& rng) {
  nlohmann::json results = nlohmann::json::array();
  const char* precisions[] = {"float", "half"};
  for (int x = 0; x < 3; ++x) {
    for (int p = 0; p < 2; ++p) {
      nlohmann::json r = {{"configuration", {{"block_size_x", 32 << x}, {"precision", precisions[p]}, {"ratio", 0.25 * (x + 1)}}},
                          {"invalidity", x == 2 && p == 1 ? "compile" : "correct"},
                          {"measurements", {{{"name", "time"}, {"value", 1.0 + x + 0.5 * p}, {"unit", "ms"}}}},
                          {"times", {{"compilation", 100}, {"runtimes", {1.0, 1.1}}}}};
      results.push_back(r);
    }
  }
  (void)rng;
  return {{"schema_version", "1.0.0"}, {"metadata", {{"timeunit", "milliseconds"}}}, {"results", results}};
}

// Structure-aware: swap a value somewhere in the document for another type or an extreme number.
void swap_a_value(nlohmann::json& doc, Rng& rng) {
  std::vector<nlohmann::json*> nodes;
  std::function<void(nlohmann::json&)> walk = [&](nlohmann::json& j) {
    nodes.push_back(&j);
    if (j.is_structured()) {
      for (auto& child : j) walk(child);
    }
  };
  walk(doc);
  nlohmann::json& target = *nodes[pick(rng, nodes.size())];
  const nlohmann::json replacements[] = {nullptr,
                                         nlohmann::json::array(),
                                         nlohmann::json::object(),
                                         "a,b",
                                         "x=y",
                                         std::string("nul\0", 4),
                                         -1,
                                         0,
                                         1e308,
                                         -1e308,
                                         9223372036854775807LL,
                                         18446744073709551615ULL,
                                         2147483648LL,
                                         true,
                                         "correct",
                                         "time"};
  target = replacements[pick(rng, std::size(replacements))];
}

std::string t4_variant(Rng& rng) {
  nlohmann::json doc = seed_document(rng);
  const std::size_t kind = pick(rng, 3);
  if (kind == 0) {  // type swaps and extreme values
    for (int i = 0, n = 1 + static_cast<int>(pick(rng, 3)); i < n; ++i) swap_a_value(doc, rng);
    return doc.dump();
  }
  if (kind == 1) return mutate(doc.dump(), rng);  // byte-level
  return doc.dump();                              // intact (still gzip'd or torn below)
}

void write_file(const fs::path& path, const std::string& bytes, Rng& rng) {
  const std::size_t form = pick(rng, 4);
  if (form < 2) {
    std::ofstream(path, std::ios::binary) << bytes;
    return;
  }
  gzFile out = gzopen(path.c_str(), "wb");
  gzwrite(out, bytes.data(), static_cast<unsigned>(bytes.size()));
  gzclose(out);
  if (form == 3) {  // a torn or corrupted .gz
    std::error_code ec;
    const auto size = fs::file_size(path, ec);
    if (!ec && size > 12) fs::resize_file(path, 10 + pick(rng, static_cast<std::size_t>(size) - 10), ec);
  }
}

// Seconds since `start`.
double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The fuzz's work on the inputs as they are (every parse succeeds, every document loads and is searched):
// the yardstick the fuzz's own time is held to, which a slow or loaded machine or a sanitizer build
// stretches as much.
double intact_inputs_seconds(const fs::path& dir) {
  Rng rng(1);
  const auto start = std::chrono::steady_clock::now();
  for (std::size_t i = 0; i < 3000; ++i) {
    evotune::attention::Problem::parse(kProblems[i % kProblems.size()]);
    evotune::attention::parse_config(kConfigs[i % kConfigs.size()]);
    evotune::search::parse_evo_options(kEvo[i % kEvo.size()]);
    evotune::Config::from_key("block_m=128,warps=8");
  }
  for (int i = 0; i < 1500; ++i) {
    const fs::path path = dir / ("intact" + std::to_string(i) + ".json");
    std::ofstream(path, std::ios::binary) << seed_document(rng).dump();
    const evotune::search::T4Space t = evotune::search::T4Space::load(path.string());
    evotune::search::Rng sample_rng(1);
    t.space().sample(sample_rng, 1000);
    evotune::search::score_strategy(t, "random", 4, 1);
  }
  return seconds_since(start);
}

}  // namespace

TEST(Fuzz, ParsersReturnOrThrowUsageErrorOnMutatedInput) {
  Rng rng(fuzz_seed());
  evotune::testing::TempDir dir;
  const double intact = intact_inputs_seconds(dir.path());
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < 3000; ++i) {
    expect_parses_or_usage_error("Problem::parse", mutate(kProblems[pick(rng, kProblems.size())], rng),
                                 [](const std::string& s) { evotune::attention::Problem::parse(s); });
    expect_parses_or_usage_error("attention::parse_config", mutate(kConfigs[pick(rng, kConfigs.size())], rng),
                                 [](const std::string& s) { evotune::attention::parse_config(s); });
    expect_parses_or_usage_error("parse_evo_options", mutate(kEvo[pick(rng, kEvo.size())], rng),
                                 [](const std::string& s) { evotune::search::parse_evo_options(s); });
    expect_parses_or_usage_error("Config::from_key", mutate("block_m=128,warps=8", rng),
                                 [](const std::string& s) { evotune::Config::from_key(s); });
  }
  for (int i = 0; i < 1500; ++i) {
    const fs::path path = dir.path() / ("doc" + std::to_string(i) + ".json");
    write_file(path, t4_variant(rng), rng);
    expect_parses_or_usage_error("T4Space::load", path.string(), [](const std::string& p) {
      const evotune::search::T4Space t = evotune::search::T4Space::load(p);
      // What loaded must also be searchable: a sample, and a replay of a few evaluations.
      evotune::search::Rng sample_rng(1);
      t.space().sample(sample_rng, 1000);
      evotune::search::score_strategy(t, "random", 4, 1);
    });
  }
  // No mutated input makes a parser slow: the fuzz costs about what the same work on intact inputs costs
  // (a ratio, not seconds, so that it holds on a loaded machine; issue 48).
  const double seconds = seconds_since(start);
  std::printf("fuzz %.2f s, the same work on intact inputs %.2f s\n", seconds, intact);
  EXPECT_LT(seconds, 10 * intact + 1) << "the in-process fuzz is meant to cost about what intact inputs cost";
}

TEST(Fuzz, TheBinaryExitsZeroOrTwoOnMutatedInput) {
  Rng rng(fuzz_seed() + 1);
  evotune::testing::TempDir dir;
  auto check = [&](std::vector<std::string> args) {
    for (std::string& a : args) a.erase(std::remove(a.begin(), a.end(), '\0'), a.end());  // argv cannot hold NUL
    args.insert(args.begin(), evotune::testing::evotune_binary());
    const evotune::testing::ProcessResult r = evotune::testing::run_process(args);  // a limit only against a hang
    std::string shown;
    for (const std::string& a : args) shown += nlohmann::json(a).dump(-1, ' ', true, nlohmann::json::error_handler_t::replace) + " ";
    EXPECT_FALSE(r.timed_out) << "hung: " << shown;
    EXPECT_EQ(r.signal, 0) << "killed by signal " << r.signal << ": " << shown << "\n" << r.output;
    EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 2) << "exit " << r.exit_code << ": " << shown << "\n" << r.output;
    if (r.exit_code == 2) {
      EXPECT_EQ(evotune::testing::line_count(r.stderr_text), 1) << shown << "\n" << r.output;
    }
  };
  // Problems and configs through `compile` with a target no NVRTC builds, so that every run stops after
  // parsing (exit 2) instead of compiling.
  for (int i = 0; i < 12; ++i) {
    check({"compile", "--problem", mutate(kProblems[pick(rng, kProblems.size())], rng), "--config",
           mutate(kConfigs[pick(rng, kConfigs.size())], rng), "--target", "sm_99"});
  }
  // T4 documents through strategy-bench; one in four runs also mutates the evo options (parsed first, so a
  // bad one would stop the run before the document is read).
  for (int i = 0; i < 32; ++i) {
    const fs::path path = dir.path() / ("doc" + std::to_string(i) + ".json");
    write_file(path, t4_variant(rng), rng);
    const std::string evo = kEvo[pick(rng, kEvo.size())];
    check({"strategy-bench", "--t4", path.string(), "--budget", "5", "--repeats", "1", "--evo",
           pick(rng, 4) == 0 ? mutate(evo, rng) : evo});
  }
}
