// evotune strategy-bench: compare search strategies by replaying recorded spaces (Kernel Tuner T4 files),
// no GPU needed. Reports, per strategy, the mean fraction of the optimum reached at the budget and the
// median number of evaluations to get within 5% of the optimum.
#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/cli_common.h"
#include "evidence/json_text.h"
#include "core/errors.h"
#include "search/replay.h"

namespace evotune::cli {

void add_strategy_bench_command(CLI::App& app, const GlobalOptions&) {
  auto* cmd = app.add_subcommand("strategy-bench", "Replay strategies on a recorded T4 space (no GPU)");
  struct Options {
    std::vector<std::string> t4;
    int budget = 100;
    int repeats = 50;
    std::string strategies = "random,evo";
    std::uint64_t seed = 1;
    std::string evo;
    int lookahead = 1;
    bool json = false;
  };
  auto opt = std::make_shared<Options>();
  cmd->add_option("--t4", opt->t4, "T4 file(s), .json or .json.gz")
      ->required()
      ->check(CLI::ExistingFile)
      ->default_str("");
  cmd->add_option("--budget", opt->budget, "evaluations per search (invalid configs count)")
      ->check(WholeNumber(1, 1000000));
  cmd->add_option("--repeats", opt->repeats, "independent searches per strategy")->check(WholeNumber(1, 100000));
  cmd->add_option("--strategies", opt->strategies, "comma-separated: random, evo, exhaustive");
  cmd->add_option("--seed", opt->seed, "seed of the first repeat, 0 to 2^63-1")->check(SeedNumber);
  cmd->add_option("--evo", opt->evo,
                  "override evo's knobs, e.g. population=12,local_rate=0.5 (see README; default: none, evo's "
                  "defaults)");
  cmd->add_option("--lookahead", opt->lookahead,
                  "batches proposed ahead of their results, as `search --lookahead` does (1: each batch sees every "
                  "earlier result)")
      ->check(WholeNumber(1, 8));
  cmd->add_flag("--json", opt->json, "print JSON");
  cmd->callback([opt] {
    std::vector<std::string> names;
    std::stringstream list(opt->strategies);
    for (std::string s; std::getline(list, s, ',');) {
      if (s != "random" && s != "evo" && s != "exhaustive") throw UsageError(fmt::format("unknown strategy '{}'", s));
      names.push_back(s);
    }
    search::EvoOptions evo = search::parse_evo_options(opt->evo);
    nlohmann::json files = nlohmann::json::array();
    for (const std::string& path : opt->t4) {
      search::T4Space recorded = search::T4Space::load(path);
      nlohmann::json strategies = nlohmann::json::array();
      if (!opt->json) {
        fmt::print("{}: {} configs ({} valid), optimum {:.6g}; budget {}, {} repeats\n", recorded.name(),
                   recorded.results().size(), recorded.valid_count(), recorded.optimum(), opt->budget, opt->repeats);
        if (opt->lookahead > 1) fmt::print("  lookahead {}: batches proposed before earlier results are in\n", opt->lookahead);
      }
      for (const std::string& name : names) {
        search::StrategyScore s = search::score_strategy(recorded, name, opt->budget, opt->repeats, opt->seed, evo,
                                                             opt->lookahead);
        nlohmann::json entry = {{"strategy", s.strategy},
                                {"mean_fraction_of_optimum", s.mean_fraction_of_optimum},
                                {"min_fraction_of_optimum", s.min_fraction_of_optimum},
                                {"median_evals_to_within_5pct", nullptr},
                                {"share_within_5pct", s.share_within_5pct},
                                {"repeats", s.repeats},
                                {"budget", s.budget},
                                {"lookahead", opt->lookahead}};
        if (s.median_evals_to_within_5pct) entry["median_evals_to_within_5pct"] = *s.median_evals_to_within_5pct;
        strategies.push_back(entry);
        if (!opt->json) {
          fmt::print("  {:<11} mean fraction of optimum {:.3f} (min {:.3f}); within 5% in {:.0f}% of runs, median {} evals\n",
                     s.strategy, s.mean_fraction_of_optimum, s.min_fraction_of_optimum, 100 * s.share_within_5pct,
                     s.median_evals_to_within_5pct ? fmt::format("{:.0f}", *s.median_evals_to_within_5pct)
                                                   : std::string("> budget"));
        }
      }
      files.push_back({{"t4", path}, {"optimum", recorded.optimum()}, {"strategies", strategies}});
    }
    if (opt->json) {
      // One file: the object the issue describes; several: one such object per file.
      fmt::print("{}\n",
                 evidence::json_text(files.size() == 1 ? files[0] : nlohmann::json{{"files", files}}, 2));
    }
  });
}

}  // namespace evotune::cli
