#include "search/coordinator.h"

#include <chrono>
#include <csignal>
#include <map>
#include <thread>

#include "search/proposal_window.h"

namespace evotune::search {

evidence::TrialRecord ReplayEvaluator::evaluate(const Config& config) {
  if (delay_ms_ > 0) std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms_));
  evidence::TrialRecord t;
  const T4Result* r = recorded_.lookup(config);
  if (r == nullptr) {
    t.status = "invalid";
    t.error = "not in the recorded space";
  } else if (r->valid) {
    t.status = "ok";
    t.median_us = r->time * unit_to_us_;
    t.min_us = t.p10_us = t.p90_us = t.median_us;
    t.samples_us = {*t.median_us};
  } else if (r->invalidity == "compile") {
    t.status = "compile_error";
    t.error = "recorded: compile";
  } else if (r->invalidity == "runtime") {
    t.status = "launch_error";
    t.error = "recorded: runtime";
  } else if (r->invalidity == "correctness") {
    t.status = "wrong_result";
    t.error = "recorded: correctness";
  } else {
    t.status = "invalid";
    t.error = "recorded: " + r->invalidity;
  }
  return t;
}

SearchSummary run_search(evidence::Store& store, std::int64_t run_id, const SearchSpace& space, Strategy& strategy,
                         Evaluator& evaluator, const SearchOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  std::map<std::string, evidence::TrialRecord> recorded;
  for (evidence::TrialRecord& t : store.trials(run_id)) recorded.emplace(t.config_key, std::move(t));
  SearchSummary summary;
  summary.evaluated = static_cast<int>(recorded.size());
  int next_seq = summary.evaluated;
  for (const auto& [key, t] : recorded) {
    if (t.status == "ok") {
      ++summary.valid;
      if (!summary.best_us || *t.median_us < *summary.best_us) summary.best_us = t.median_us, summary.best_config = t.config;
    }
  }
  // Stagnation is judged on the trials in proposal order, replayed ones included (summary.best_us already
  // holds every recorded trial's best), so a resumed run stops exactly where an uninterrupted one would.
  int stagnant = 0;
  std::optional<double> seen_best;
  ProposalWindow window(strategy, options.lookahead);
  while (summary.evaluated < options.budget) {
    if (options.max_seconds &&
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() >= *options.max_seconds) {
      summary.stop_reason = "time";
      break;
    }
    if (options.stop_after_stagnant > 0 && stagnant >= options.stop_after_stagnant) {
      summary.stop_reason = "stagnation";
      break;
    }
    std::optional<ProposedBatch> proposed = window.next(options.batch);
    if (!proposed) {
      summary.stop_reason = "exhausted";
      break;
    }
    const std::vector<Config>& batch = proposed->configs;
    const int generation = proposed->generation;
    // Configs finished before an interruption are answered from the database; the rest, up to the
    // budget, are evaluated together (in parallel when the evaluator has several workers).
    std::vector<Config> to_evaluate;
    int room = options.budget - summary.evaluated;
    for (const Config& config : batch) {
      if (!recorded.count(config.key()) && static_cast<int>(to_evaluate.size()) < room) to_evaluate.push_back(config);
    }
    evaluator.set_best_us(summary.best_us);
    // This batch first, then the batches proposed ahead, as far as the budget can still reach.
    evaluator.prefetch(to_evaluate);
    std::vector<Config> ahead;
    int left = room - static_cast<int>(to_evaluate.size());
    for (const ProposedBatch& later : window.ahead()) {
      for (const Config& config : later.configs) {
        if (left > 0 && !recorded.count(config.key())) ahead.push_back(config), --left;
      }
    }
    if (!ahead.empty()) evaluator.prefetch(ahead);
    std::vector<evidence::TrialRecord> fresh = evaluator.evaluate_batch(to_evaluate);
    std::size_t next_fresh = 0;
    std::vector<Observation> observations;
    for (const Config& config : batch) {
      const std::string key = config.key();
      auto it = recorded.find(key);
      evidence::TrialRecord trial;
      if (it != recorded.end()) {
        trial = it->second;  // finished before the interruption: reuse, never re-run
      } else if (next_fresh < fresh.size()) {
        trial = std::move(fresh[next_fresh++]);
        trial.seq = next_seq++;
        trial.generation = generation;
        trial.config_key = key;
        trial.config = format_config(config, space.parameters());
        store.record_trial(run_id, trial);
        recorded.emplace(key, trial);
        ++summary.evaluated;
        ++summary.newly_evaluated;
        if (trial.status == "ok") {
          ++summary.valid;
          if (!summary.best_us || *trial.median_us < *summary.best_us) {
            summary.best_us = trial.median_us;
            summary.best_config = trial.config;
          }
        }
        if (options.kill_after && summary.newly_evaluated >= *options.kill_after) std::raise(SIGKILL);
      } else {
        break;  // over the budget
      }
      observations.push_back({config, trial.status == "ok", trial.median_us.value_or(0.0)});
    }
    strategy.observe(observations);
    bool improved = false;
    for (const Observation& o : observations) {
      if (o.valid && (!seen_best || o.time < *seen_best)) seen_best = o.time, improved = true;
    }
    stagnant = improved ? 0 : stagnant + 1;
    if (options.on_generation) {
      Progress p;
      p.generation = generation;
      p.evaluated = summary.evaluated;
      p.budget = options.budget;
      p.valid = summary.valid;
      p.best_us = summary.best_us;
      p.elapsed_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      options.on_generation(p);
    }
  }
  return summary;
}

}  // namespace evotune::search
