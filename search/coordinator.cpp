#include "search/coordinator.h"

#include <chrono>
#include <csignal>
#include <map>
#include <set>

#include "search/proposal_window.h"

namespace evotune::search {

evidence::TrialRecord ReplayEvaluator::evaluate(const Config& config) {
  if (delay_ms_ > 0) runtime::interruptible_sleep(delay_ms_);
  evidence::TrialRecord t;
  const T4Result* r = recorded_.lookup(config);
  if (r == nullptr) {
    t.status = core::TrialStatus::invalid;
    t.error = "not in the recorded space";
  } else if (r->valid) {
    t.status = core::TrialStatus::ok;
    t.median_us = r->time * unit_to_us_;
    t.min_us = t.p10_us = t.p90_us = t.median_us;
    t.samples_us = {*t.median_us};
  } else if (r->invalidity == "compile") {
    t.status = core::TrialStatus::compile_error;
    t.error = "recorded: compile";
  } else if (r->invalidity == "runtime") {
    t.status = core::TrialStatus::launch_error;
    t.error = "recorded: runtime";
  } else if (r->invalidity == "correctness") {
    t.status = core::TrialStatus::wrong_result;
    t.error = "recorded: correctness";
  } else {
    t.status = core::TrialStatus::invalid;
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
  // The best is the fastest trial, the earliest of equals: the same whatever order the trials finished in.
  int best_seq = 0;
  auto consider = [&](const evidence::TrialRecord& t) {
    if (!core::is_valid(t.status)) return;
    ++summary.valid;
    if (!summary.best_us || *t.median_us < *summary.best_us || (*t.median_us == *summary.best_us && t.seq < best_seq)) {
      summary.best_us = t.median_us;
      summary.best_config = t.config;
      best_seq = t.seq;
    }
  };
  std::set<int> taken_seqs;
  for (const auto& [key, t] : recorded) {
    consider(t);
    taken_seqs.insert(t.seq);
  }
  // Stagnation is judged on the trials in proposal order, replayed ones included (summary.best_us already
  // holds every recorded trial's best), so a resumed run stops exactly where an uninterrupted one would.
  int stagnant = 0;
  std::optional<double> seen_best;
  // The configs of the batches handled so far in this invocation, and how many: trials are numbered (seq)
  // in proposal order, so a trial evaluated by a resume gets the number an uninterrupted run gives it,
  // whichever trials of its batch finished before the interruption.
  std::set<std::string> reached;
  int next_seq = 0;
  ProposalWindow window(strategy, options.lookahead);
  try {
    while (summary.evaluated < options.budget) {
      runtime::throw_if_interrupted();
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
      // The batch in proposal order, as far as the budget reaches: a config of an earlier batch is
      // answered by that trial, one finished before an interruption is reused, never re-run, and the rest
      // are evaluated together (in parallel when the evaluator has several workers); the first config
      // beyond the budget ends the batch.
      std::vector<Config> observed, to_evaluate;
      std::vector<int> seqs;
      const int room = options.budget - summary.evaluated;
      for (const Config& config : batch) {
        const std::string key = config.key();
        if (!reached.count(key)) {
          if (recorded.count(key)) {
            ++next_seq;
          } else if (static_cast<int>(to_evaluate.size()) < room) {
            // A number already taken (by a run recorded otherwise) gives way: the new trial goes last.
            int seq = next_seq++;
            if (taken_seqs.count(seq)) seq = *taken_seqs.rbegin() + 1;
            taken_seqs.insert(seq);
            to_evaluate.push_back(config);
            seqs.push_back(seq);
          } else {
            break;  // over the budget
          }
          reached.insert(key);
        }
        observed.push_back(config);
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
      // Each trial is recorded as it finishes: a batch cut short keeps what finished.
      std::vector<bool> done(to_evaluate.size(), false);
      auto record = [&](std::size_t i, const evidence::TrialRecord& result) {
        if (done.at(i)) return;
        done[i] = true;
        const Config& config = to_evaluate[i];
        evidence::TrialRecord trial = result;
        trial.seq = seqs[i];
        trial.generation = generation;
        trial.config_key = config.key();
        trial.config = format_config(config, space.parameters());
        store.record_trial(run_id, trial);
        ++summary.evaluated;
        ++summary.newly_evaluated;
        consider(trial);
        recorded.emplace(trial.config_key, std::move(trial));
        if (options.kill_after && summary.newly_evaluated >= *options.kill_after) std::raise(SIGKILL);
      };
      const std::vector<evidence::TrialRecord> fresh = evaluator.evaluate_batch(to_evaluate, record);
      for (std::size_t i = 0; i < fresh.size(); ++i) record(i, fresh[i]);  // those it did not tell of
      std::vector<Observation> observations;
      for (const Config& config : observed) {
        const evidence::TrialRecord& trial = recorded.at(config.key());
        observations.push_back({config, core::is_valid(trial.status), trial.median_us.value_or(0.0)});
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
  } catch (const runtime::Interrupted& e) {
    summary.stop_reason = "interrupted";
    summary.interrupt_signal = e.signal;
  }
  return summary;
}

}  // namespace evotune::search
