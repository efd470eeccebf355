// search/: the space API, strategy properties, T4 loading and replay. CPU only.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "core/errors.h"
#include "search/replay.h"
#include "search/strategy.h"
#include "search/t4.h"
#include "tests/test_support.h"

using namespace evotune;
using namespace evotune::search;

namespace {

// A small synthetic space: x in 0..9 (numeric), y in 1,2,4,8 (numeric), mode categorical {a, b, c};
// valid when x + y is not divisible by 3. Time: a bowl around x=7, y=4, mode=b.
SearchSpace toy_space() {
  std::vector<Parameter> params = {{"x", {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, {}, ""},
                                   {"y", {1, 2, 4, 8}, {}, ""},
                                   {"mode", {0, 1, 2}, {"a", "b", "c"}, ""}};
  return SearchSpace(params, [](const Config& c) { return (c.at("x") + c.at("y")) % 3 != 0; });
}

double toy_time(const Config& c) {
  double dx = c.at("x") - 7, dy = c.at("y") - 4;
  return 1.0 + dx * dx + dy * dy + (c.at("mode") == 1 ? 0.0 : 3.0);
}

using evotune::testing::t4_dir;

// Runs a strategy to exhaustion or `budget`, checking every proposal.
std::vector<Config> drive(Strategy& s, const SearchSpace& space, int budget, int batch) {
  std::vector<Config> all;
  std::set<std::string> keys;
  while (static_cast<int>(all.size()) < budget) {
    std::vector<Config> proposal = s.propose(batch);
    if (proposal.empty()) break;
    std::vector<Observation> obs;
    for (const Config& c : proposal) {
      EXPECT_TRUE(space.valid(c)) << c.key();
      EXPECT_TRUE(keys.insert(c.key()).second) << "proposed twice: " << c.key();
      all.push_back(c);
      obs.push_back({c, true, toy_time(c)});
    }
    s.observe(obs);
  }
  return all;
}

}  // namespace

TEST(SearchSpace, SamplesOnlyValidConfigsRoughlyUniformly) {
  SearchSpace space = toy_space();
  std::size_t valid = 0;
  space.for_each_valid([&](const Config& c) {
    EXPECT_TRUE(space.valid(c));
    ++valid;
    return true;
  });
  EXPECT_EQ(space.product_size(), 120);
  Rng rng(3);
  std::map<std::string, int> counts;
  const int draws = 20000;
  for (int i = 0; i < draws; ++i) {
    auto c = space.sample(rng);
    ASSERT_TRUE(c.has_value());
    ASSERT_TRUE(space.valid(*c));
    counts[c->key()]++;
  }
  EXPECT_EQ(counts.size(), valid);  // every valid config is reachable
  const double expected = double(draws) / double(valid);
  for (const auto& [key, n] : counts) EXPECT_NEAR(n, expected, 0.35 * expected) << key;
}

TEST(SearchSpace, NeighboursAreOneValidStepAway) {
  SearchSpace space = toy_space();
  Config c({{"x", 4}, {"y", 4}, {"mode", 0}});
  ASSERT_TRUE(space.valid(c));
  auto neighbours = space.neighbours(c);
  ASSERT_FALSE(neighbours.empty());
  for (const Config& n : neighbours) {
    EXPECT_TRUE(space.valid(n));
    int differing = 0;
    for (const auto& [name, value] : n.entries()) differing += value != c.at(name);
    EXPECT_EQ(differing, 1) << n.key();
    EXPECT_LE(std::abs(space.value_index(0, n.at("x")) - space.value_index(0, c.at("x"))), 1);
    EXPECT_LE(std::abs(space.value_index(1, n.at("y")) - space.value_index(1, c.at("y"))), 1);
  }
  // Categorical: every other value of mode is a neighbour.
  int modes = 0;
  for (const Config& n : neighbours) modes += n.at("mode") != 0;
  EXPECT_EQ(modes, 2);
}

TEST(Strategies, ProposeOnlyValidConfigsNeverTwice) {
  SearchSpace space = toy_space();
  for (const char* name : {"random", "evo", "exhaustive"}) {
    auto s = make_strategy(name, space, 7);
    auto all = drive(*s, space, 1000, 8);
    std::size_t valid = 0;
    space.for_each_valid([&](const Config&) { return ++valid, true; });
    if (std::string(name) != "evo") {
      EXPECT_EQ(all.size(), valid) << name << " should cover the whole valid space when given the budget";
    }
    EXPECT_LE(all.size(), valid) << name;
  }
}

TEST(Strategies, AreDeterministicUnderASeed) {
  SearchSpace space = toy_space();
  for (const char* name : {"random", "evo"}) {
    auto a = make_strategy(name, space, 42);
    auto b = make_strategy(name, space, 42);
    auto c = make_strategy(name, space, 43);
    auto ra = drive(*a, space, 40, 5), rb = drive(*b, space, 40, 5), rc = drive(*c, space, 40, 5);
    EXPECT_EQ(ra, rb) << name;
    EXPECT_NE(ra, rc) << name;
  }
}

TEST(Strategies, EvoElitismKeepsTheBestAndStaysDistinct) {
  SearchSpace space = toy_space();
  EvoOptions options;
  options.population = 5;
  auto s = make_evo(space, 9, options);
  double best = INFINITY;
  std::string best_key;
  for (int generation = 0; generation < 12; ++generation) {
    std::vector<Observation> obs;
    for (const Config& c : s->propose(6)) {
      obs.push_back({c, true, toy_time(c)});
      if (toy_time(c) < best) best = toy_time(c), best_key = c.key();
    }
    s->observe(obs);
    auto elites = s->elites();
    ASSERT_FALSE(elites.empty());
    EXPECT_LE(elites.size(), 5u);
    EXPECT_EQ(elites.front().time, best) << "generation " << generation;
    EXPECT_EQ(elites.front().config.key(), best_key);
    std::set<std::string> distinct;
    for (const auto& e : elites) distinct.insert(e.config.key());
    EXPECT_EQ(distinct.size(), elites.size());
    EXPECT_TRUE(std::is_sorted(elites.begin(), elites.end(),
                               [](const Observation& a, const Observation& b) { return a.time < b.time; }));
  }
  EXPECT_EQ(best, 1.0) << "the toy bowl's minimum is easy to find in 70 evaluations";
}

TEST(Strategies, EvoStartsFromHistoricalSeeds) {
  SearchSpace space = toy_space();
  Config seed({{"x", 7}, {"y", 4}, {"mode", 1}});
  ASSERT_TRUE(space.valid(seed));
  auto s = make_evo(space, 1, {}, {seed});
  auto first = s->propose(20);
  ASSERT_FALSE(first.empty());
  EXPECT_EQ(first.front(), seed);
}

TEST(Strategies, RejectUnknownNamesAndOptions) {
  SearchSpace space = toy_space();
  EXPECT_THROW(make_strategy("annealing", space, 1), UsageError);
  EXPECT_THROW(parse_evo_options("population=x"), UsageError);
  EXPECT_THROW(parse_evo_options("bogus=1"), UsageError);
  EXPECT_THROW(parse_evo_options("population=0"), UsageError);
  EXPECT_EQ(parse_evo_options("population=12,local_rate=0.5").population, 12);
}

TEST(T4, LoadsPlainJsonWithCategoricalValuesAndRejectsBadFiles) {
  evotune::testing::TempDir dir;
  auto write = [&](const char* name, const std::string& text) {
    std::ofstream(dir.path() / name) << text;
    return dir.path() / name;
  };
  auto ok = write("ok.json", R"({"schema_version": "1.0.0", "results": [
    {"configuration": {"bx": 32, "kind": "fast"}, "invalidity": "correct", "measurements": [{"name": "time", "value": 2.0}]},
    {"configuration": {"bx": 64, "kind": "fast"}, "invalidity": "correct", "measurements": [{"name": "time", "value": 1.5}]},
    {"configuration": {"bx": 64, "kind": "slow"}, "invalidity": "compile", "measurements": []}]})");
  T4Space t = T4Space::load(ok);
  EXPECT_EQ(t.results().size(), 3u);
  EXPECT_EQ(t.valid_count(), 2u);
  EXPECT_DOUBLE_EQ(t.optimum(), 1.5);
  ASSERT_EQ(t.space().parameters().size(), 2u);
  EXPECT_EQ(t.space().parameters()[0].values, (std::vector<int>{32, 64}));
  EXPECT_TRUE(t.space().parameters()[1].categorical());
  EXPECT_FALSE(t.space().valid(Config({{"bx", 32}, {"kind", 1}})));  // not in the file
  const T4Result* invalid = t.lookup(Config({{"bx", 64}, {"kind", 1}}));
  ASSERT_NE(invalid, nullptr);
  EXPECT_FALSE(invalid->valid);
  EXPECT_EQ(invalid->invalidity, "compile");
  EXPECT_THROW(T4Space::load(write("bad.json", "{not json")), UsageError);
  EXPECT_THROW(T4Space::load(write("empty.json", R"({"results": []})")), UsageError);
  EXPECT_THROW(T4Space::load(dir.path() / "missing.json"), UsageError);
}

TEST(Replay, CountsEveryEvaluationAgainstTheBudget) {
  auto path = t4_dir() / "convolution_milo_A100_T4.json.gz";
  ASSERT_TRUE(std::filesystem::exists(path)) << "test fixture missing: " << path;
  T4Space t = T4Space::load(path);
  EXPECT_EQ(t.results().size(), 4362u);
  EXPECT_EQ(t.valid_count(), 4201u);
  auto s = make_random(t.space(), 5);
  ReplayRun run = replay(t, *s, 100);
  EXPECT_EQ(run.best_so_far.size(), 100u);
  EXPECT_GT(run.fraction_of_optimum, 0.0);
  EXPECT_LE(run.fraction_of_optimum, 1.0);
}

// The issue's requirement: with 100 evaluations, evo reaches a higher mean fraction of the optimum than
// random over at least 50 repeats, on each of the three recorded spaces.
TEST(Replay, EvoBeatsRandomOnEveryRecordedSpace) {
  for (const char* file : {"convolution_milo_A100_T4.json.gz", "convolution_milo_A4000_T4.json.gz",
                           "dedispersion_milo_A100_T4.json.gz"}) {
    auto path = t4_dir() / file;
    ASSERT_TRUE(std::filesystem::exists(path)) << "test fixture missing: " << path;
    T4Space t = T4Space::load(path);
    StrategyScore random = score_strategy(t, "random", 100, 60);
    StrategyScore evo = score_strategy(t, "evo", 100, 60);
    EXPECT_GT(evo.mean_fraction_of_optimum, random.mean_fraction_of_optimum) << file;
    EXPECT_GT(random.mean_fraction_of_optimum, 0.6) << file << ": random should match the published 0.73-0.99";
    RecordProperty(fmt::format("{}_random", file), fmt::format("{:.3f}", random.mean_fraction_of_optimum));
    RecordProperty(fmt::format("{}_evo", file), fmt::format("{:.3f}", evo.mean_fraction_of_optimum));
  }
}
