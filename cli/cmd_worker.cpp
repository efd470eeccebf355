// evotune worker: the child process that evaluates configs for a search (see search/worker_pool.h).
// Protocol: one JSON object per line on stdin, {"config": "name=value,..."}; one per line on stdout,
// {"trial": {...}}. {"baselines": true} asks a GPU worker for the run's reference points instead; it
// answers {"baselines": [...]}. It exits when stdin closes.
#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/cli_common.h"
#include "evidence/trial_json.h"
#include "runtime/errors.h"
#include "search/attention_evaluator.h"
#include "search/coordinator.h"
#include "templates/attention/problem.h"

namespace evotune::cli {

void add_worker_command(CLI::App& app, const GlobalOptions& globals) {
  auto* cmd = app.add_subcommand("worker", "Evaluate configs sent by a search on stdin (started by evotune search)");
  struct Options {
    int device = 0;
    std::string replay, problem;
    int abort_at = 0, hang_at = 0;
    int repetitions = 30;
  };
  auto opt = std::make_shared<Options>();
  cmd->add_option("--device", opt->device, "GPU ordinal")->check(CLI::NonNegativeNumber);
  cmd->add_option("--replay", opt->replay, "answer from a recorded space (T4 file)")->check(CLI::ExistingFile);
  cmd->add_option("--problem", opt->problem, "evaluate attention configs for this problem on the GPU");
  cmd->add_option("--reps", opt->repetitions, "timed repetitions per config")->check(CLI::Range(3, 100000));
  // Test only: abort (SIGABRT), or hang forever, on the Nth request, so the coordinator's crash and
  // timeout handling can be tested without a faulty kernel.
  cmd->add_option("--test-abort-at", opt->abort_at)->group("");
  cmd->add_option("--test-hang-at", opt->hang_at)->group("");
  cmd->callback([opt, &globals] {
    if (opt->replay.empty() == opt->problem.empty()) throw UsageError("worker: give exactly one of --replay and --problem");
    std::unique_ptr<search::T4Space> recorded;
    std::unique_ptr<CompilerStack> stack;
    std::unique_ptr<search::Evaluator> evaluator;
    search::AttentionEvaluator* gpu = nullptr;
    if (!opt->replay.empty()) {
      recorded = std::make_unique<search::T4Space>(search::T4Space::load(opt->replay));
      evaluator = std::make_unique<search::ReplayEvaluator>(*recorded);
    } else {
      stack = std::make_unique<CompilerStack>(globals);
      auto attention = std::make_unique<search::AttentionEvaluator>(attention::Problem::parse(opt->problem), opt->device,
                                                                    stack->compiler(), opt->repetitions);
      gpu = attention.get();
      evaluator = std::move(attention);
    }
    int request = 0;
    for (std::string line; std::getline(std::cin, line);) {
      ++request;
      if (request == opt->abort_at) std::abort();
      if (request == opt->hang_at) {
        for (;;) pause();
      }
      nlohmann::json request = nlohmann::json::parse(line);
      if (request.contains("baselines")) {
        nlohmann::json measured = nlohmann::json::array();
        if (gpu != nullptr) {
          for (const evidence::BaselineRecord& b : gpu->measure_baselines()) measured.push_back(evidence::to_json(b));
        }
        std::cout << nlohmann::json{{"baselines", measured}}.dump() << std::endl;
        continue;
      }
      Config config = Config::from_key(request.at("config").get<std::string>());
      if (request.contains("best_us")) evaluator->set_best_us(request["best_us"].get<double>());
      evidence::TrialRecord trial = evaluator->evaluate(config);
      const bool restart = gpu != nullptr && gpu->needs_restart();
      std::cout << nlohmann::json{{"trial", evidence::to_json(trial)}, {"restart", restart}}.dump() << std::endl;
      if (restart) break;  // the pool starts a fresh worker
    }
    if (gpu != nullptr) {  // on stderr, which the search shares: where this worker's time went
      const auto& p = gpu->phases();
      fmt::print(stderr, "worker (device {}): {} trials: compile {:.1f} s (cache hits when compiled ahead), check {:.1f} s, "
                 "timing {:.1f} s ({} timed in full, {} raced)\n", opt->device, p.trials, p.compile_seconds,
                 p.check_seconds, p.timing_seconds, p.timed, p.raced);
    }
  });
}

}  // namespace evotune::cli
