#pragma once
// Evaluates strategies against a recorded space, without a GPU: the strategy proposes, the recording
// answers. Invalid configs count against the budget, as they would in a real search.
#include <optional>
#include <string>
#include <vector>

#include "search/strategy.h"
#include "search/t4.h"

namespace evotune::search {

struct ReplayRun {
  std::vector<double> best_so_far;  // after each evaluation (INFINITY until one is valid)
  double fraction_of_optimum = 0;   // t_opt / t_best at the budget; 0 when nothing valid was found
  std::optional<int> evals_to_within_5pct;
};

// lookahead: batches proposed ahead of the results, as a search with that lookahead proposes them (see
// search/proposal_window.h).
ReplayRun replay(const T4Space& recorded, Strategy& strategy, int budget, int lookahead = 1);

struct StrategyScore {
  std::string strategy;
  int repeats = 0;
  int budget = 0;
  double mean_fraction_of_optimum = 0;
  double min_fraction_of_optimum = 0;
  // Median over repeats, counting repeats that never got within 5% as infinitely many evaluations;
  // nullopt when more than half never did.
  std::optional<double> median_evals_to_within_5pct;
  double share_within_5pct = 0;  // repeats that got within 5% of the optimum
  std::vector<double> mean_best_so_far;  // mean fraction of optimum after each evaluation
};

// Runs `repeats` independent searches (seeds base_seed, base_seed + 1, ...).
StrategyScore score_strategy(const T4Space& recorded, const std::string& strategy, int budget, int repeats,
                             std::uint64_t base_seed = 1, const EvoOptions& evo = {}, int lookahead = 1);

}  // namespace evotune::search
