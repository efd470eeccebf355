// A family added with its own folder and one registration line runs through the shared layers unchanged:
// the registry finds it, search spaces, prepare (NVRTC), compile-only records in the store, T4 export,
// history seeds by its distance, the header writer; on a GPU the same evaluator that serves attention
// checks and times it.
#include <gtest/gtest.h>

#include "evidence/export_tables.h"
#include "evidence/store.h"
#include "families/registry.h"
#include "harness/gpu_evaluator.h"
#include "runtime/cubin_cache.h"
#include "search/family_space.h"
#include "search/history.h"
#include "search/strategy.h"
#include "tests/families/toy/toy_family.h"
#include "tests/test_support.h"

namespace evotune::toy {

// The one line a new family needs (a built-in one goes in families/registry.cpp instead).
void register_toy() {
  static const bool registered = (families::register_family({"toy", "y = 1.5 x (a test family)", make_toy_family}), true);
  (void)registered;
}

TEST(ToyFamily, OneRegistrationLineAndTheSharedLayersServeIt) {
  register_toy();
  const std::unique_ptr<harness::Family> family = families::open_family("toy", "");
  ASSERT_EQ(family->id(), "toy");
  const harness::FamilyProblem problem = family->parse_problem("n=1000003");
  const runtime::Target target = runtime::Target::parse("sm_90a");
  const DeviceLimits limits = DeviceLimits::for_target(target);
  const search::SearchSpace space = search::family_search_space(*family, problem, limits);
  std::vector<Config> configs = search::make_random(space, 3)->propose(6);
  ASSERT_EQ(configs.size(), 6u);

  // Prepare (NVRTC, this machine's CPU) and record them as a compile-only run would.
  runtime::NvrtcCompiler nvrtc;
  testing::TempDir dir;
  evidence::Store store((dir.path() / "toy.db").string(), evidence::Store::Mode::read_write);
  evidence::RunInfo info;
  info.family = family->id();
  info.problem = problem.text;
  info.problem_json = family->problem_json(problem).dump();
  info.strategy = "compile-only";
  info.device = "sm_90a";
  info.options_json = "{}";
  const std::int64_t run = store.create_run(info);
  for (std::size_t i = 0; i < configs.size(); ++i) {
    const runtime::Preparation p = family->prepare(configs[i], problem, limits, target, nvrtc);
    const runtime::PreparedKernel* kernel = runtime::prepared(p);
    ASSERT_NE(kernel, nullptr) << family->format_config(configs[i]);
    EXPECT_FALSE(kernel->cubin->empty());
    evidence::TrialRecord t;
    t.seq = static_cast<int>(i);
    t.config_key = configs[i].key();
    t.config = family->format_config(configs[i]);
    t.status = core::TrialStatus::ok;  // as if timed: history and T4 read valid trials
    t.median_us = 10.0 + static_cast<double>(i);
    store.record_trial(run, t);
  }
  store.finish_run(run, "finished");

  // History seeds for a nearby problem come from this run, by the family's distance.
  const harness::FamilyProblem near = family->parse_problem("n=2000006");
  const auto seeds = search::historical_seeds(store, *family, near, "sm_90a", space, 3);
  ASSERT_EQ(seeds.size(), 1u);
  EXPECT_EQ(seeds[0].config, configs[0]);
  EXPECT_DOUBLE_EQ(seeds[0].distance, 1.0);
  // T4 export of the run.
  const nlohmann::json t4 = evidence::t4_results(store, run);
  EXPECT_EQ(t4.at("results").size(), configs.size());
  // The header writer gets what export gathered.
  harness::ExportInput input{"evotune export --family toy", "toy.db", "test", {}};
  harness::ExportedWinner w;
  w.problem = problem;
  w.config = configs[0];
  input.winners.push_back(w);
  EXPECT_NE(family->render_header(input).find("n=1000003"), std::string::npos);
  // The registry lists it beside the built-ins; an unknown name is still refused.
  EXPECT_EQ(families::registered().back().name, "toy");
  EXPECT_THROW(families::open_family("tyo", ""), UsageError);
}

TEST(GpuToyFamily, TheSharedEvaluatorChecksAndTimesIt) {
  EVOTUNE_REQUIRE_GPU();
  register_toy();
  const std::unique_ptr<harness::Family> family = families::open_family("toy", "");
  const harness::FamilyProblem problem = family->parse_problem("n=1000003");
  testing::TempDir dir;
  runtime::NvrtcCompiler nvrtc;
  runtime::CubinCache cache(dir.path() / "cache");
  runtime::CachingCompiler compiler(nvrtc, cache);
  harness::GpuEvaluator evaluator(*family, problem, 0, cache, nvrtc, 10);
  const runtime::DeviceProperties props = runtime::query_device(0);
  const runtime::Target target = runtime::Target::parse(props.native_target());
  const Config config({{"block", 128}, {"items", 2}});
  const runtime::Preparation p = family->prepare(config, problem, DeviceLimits::from(props), target, compiler);
  const runtime::PreparedKernel& kernel = std::get<runtime::PreparedKernel>(p);
  const evidence::TrialRecord t = evaluator.evaluate(config, kernel.cache_key, kernel.kernel_name);
  EXPECT_EQ(t.status, core::TrialStatus::ok) << t.error;
  EXPECT_GT(t.median_us.value_or(0), 0.0);
}

}  // namespace evotune::toy
