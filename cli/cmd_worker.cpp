// evotune worker: the child process that evaluates configs for a search (see search/worker_pool.h).
// Protocol: one JSON object per line on stdin, {"config": "name=value,..."}; one per line on stdout,
// {"trial": {...}}. It exits when stdin closes.
#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/cli_common.h"
#include "evidence/trial_json.h"
#include "runtime/errors.h"
#include "search/coordinator.h"

namespace evotune::cli {

void add_worker_command(CLI::App& app, const GlobalOptions&) {
  auto* cmd = app.add_subcommand("worker", "Evaluate configs sent by a search on stdin (started by evotune search)");
  struct Options {
    int device = 0;
    std::string replay;
    int abort_at = 0, hang_at = 0;
  };
  auto opt = std::make_shared<Options>();
  cmd->add_option("--device", opt->device, "GPU ordinal")->check(CLI::NonNegativeNumber);
  cmd->add_option("--replay", opt->replay, "answer from a recorded space (T4 file)")->check(CLI::ExistingFile);
  // Test only: abort (SIGABRT), or hang forever, on the Nth request, so the coordinator's crash and
  // timeout handling can be tested without a faulty kernel.
  cmd->add_option("--test-abort-at", opt->abort_at)->group("");
  cmd->add_option("--test-hang-at", opt->hang_at)->group("");
  cmd->callback([opt] {
    if (opt->replay.empty()) {
      throw UsageError("worker: GPU evaluation of attention configs is not implemented yet; use --replay");
    }
    search::T4Space recorded = search::T4Space::load(opt->replay);
    search::ReplayEvaluator evaluator(recorded);
    int request = 0;
    for (std::string line; std::getline(std::cin, line);) {
      ++request;
      if (request == opt->abort_at) std::abort();
      if (request == opt->hang_at) {
        for (;;) pause();
      }
      Config config;
      for (const auto& [name, value] : split_assignments(nlohmann::json::parse(line).at("config").get<std::string>(), "config")) {
        config.set(name, std::stoi(value));
      }
      std::cout << nlohmann::json{{"trial", evidence::to_json(evaluator.evaluate(config))}}.dump() << std::endl;
    }
  });
}

}  // namespace evotune::cli
