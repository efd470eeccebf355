#include "search/replay.h"

#include "search/proposal_window.h"

#include <algorithm>
#include <cmath>

namespace evotune::search {

ReplayRun replay(const T4Space& recorded, Strategy& strategy, int budget, int lookahead) {
  ReplayRun run;
  double best = INFINITY;
  int used = 0;
  ProposalWindow window(strategy, lookahead);
  while (used < budget) {
    std::optional<ProposedBatch> batch = window.next(budget - used);
    if (!batch) break;
    std::vector<Observation> observations;
    for (Config& c : batch->configs) {
      if (used >= budget) break;
      const T4Result* r = recorded.lookup(c);
      Observation o{std::move(c), r != nullptr && r->valid, r != nullptr ? r->time : 0.0};
      ++used;
      if (o.valid) best = std::min(best, o.time);
      run.best_so_far.push_back(best);
      if (!run.evals_to_within_5pct && best <= 1.05 * recorded.optimum()) run.evals_to_within_5pct = used;
      observations.push_back(std::move(o));
    }
    strategy.observe(observations);
  }
  run.fraction_of_optimum = std::isfinite(best) ? recorded.optimum() / best : 0.0;
  return run;
}

StrategyScore score_strategy(const T4Space& recorded, const std::string& name, int budget, int repeats,
                             std::uint64_t base_seed, const EvoOptions& evo, int lookahead) {
  StrategyScore score;
  score.strategy = name;
  score.repeats = repeats;
  score.budget = budget;
  score.min_fraction_of_optimum = INFINITY;
  score.mean_best_so_far.assign(static_cast<std::size_t>(budget), 0.0);
  std::vector<double> evals;
  for (int r = 0; r < repeats; ++r) {
    auto strategy = make_strategy(name, recorded.space(), base_seed + static_cast<std::uint64_t>(r), {}, evo);
    ReplayRun run = replay(recorded, *strategy, budget, lookahead);
    score.mean_fraction_of_optimum += run.fraction_of_optimum / repeats;
    score.min_fraction_of_optimum = std::min(score.min_fraction_of_optimum, run.fraction_of_optimum);
    evals.push_back(run.evals_to_within_5pct ? *run.evals_to_within_5pct : INFINITY);
    if (run.evals_to_within_5pct) score.share_within_5pct += 1.0 / repeats;
    for (std::size_t i = 0; i < score.mean_best_so_far.size(); ++i) {
      double best = i < run.best_so_far.size() ? run.best_so_far[i] : run.best_so_far.empty() ? INFINITY : run.best_so_far.back();
      score.mean_best_so_far[i] += (std::isfinite(best) ? recorded.optimum() / best : 0.0) / repeats;
    }
  }
  std::sort(evals.begin(), evals.end());
  if (!evals.empty()) {
    const std::size_t n = evals.size();
    double median = n % 2 ? evals[n / 2] : 0.5 * (evals[n / 2 - 1] + evals[n / 2]);
    if (std::isfinite(median)) score.median_evals_to_within_5pct = median;
  }
  return score;
}

}  // namespace evotune::search
