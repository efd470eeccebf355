#pragma once
// The coordinator loop: asks the strategy for a batch, has each config evaluated, records each trial in
// the store as soon as it finishes (one transaction each; its seq is its place in proposal order), tells
// the strategy the batch's results, and repeats until the budget is spent or the strategy has nothing
// left to propose.
//
// Resume: strategies are deterministic under their seed, so a resumed run replays the strategy from the
// start and answers configs already in the database from their recorded results: no finished trial is
// evaluated or recorded twice, and recorded trials count against the budget. A batch cut short (a kill,
// an interruption) is completed by the resume, each missing trial under the seq an uninterrupted run
// gives it.
//
// Interruption (runtime/interrupt.h): a signal ends the loop at once, with what finished recorded and
// stop_reason "interrupted".
//
// Lookahead (search/proposal_window.h): with lookahead L the strategy proposes L batches before it is
// told the results of the first; the later ones are handed to the evaluator's prefetch() so their
// compiles run while the current batch is timed. The propose/observe order depends only on L, so resume
// stays exact; L is stored with the run.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "evidence/store.h"
#include "runtime/interrupt.h"
#include "search/strategy.h"
#include "search/t4.h"

namespace evotune::search {

class Evaluator {
 public:
  // Told each trial of a batch as it finishes (its index in the batch), before the batch is done: the
  // coordinator records it at once, so a batch cut short (an interruption, a crash) keeps what finished.
  using TrialDone = std::function<void(std::size_t index, const evidence::TrialRecord& trial)>;

  virtual ~Evaluator() = default;
  // Fills status, measurements and error of a trial (seq, generation and config are set by the caller).
  virtual evidence::TrialRecord evaluate(const Config& config) = 0;
  // Several configs, results in the same order; evaluators with several workers run them in parallel.
  // `done` (may be empty) hears of each trial as it finishes, in any order; an interruption
  // (runtime/interrupt.h) ends the batch by throwing runtime::Interrupted.
  virtual std::vector<evidence::TrialRecord> evaluate_batch(const std::vector<Config>& configs, const TrialDone& done) {
    std::vector<evidence::TrialRecord> out;
    for (const Config& c : configs) {
      runtime::throw_if_interrupted();
      out.push_back(evaluate(c));
      if (done) done(out.size() - 1, out.back());
    }
    return out;
  }
  std::vector<evidence::TrialRecord> evaluate_batch(const std::vector<Config>& configs) {
    return evaluate_batch(configs, {});
  }
  // Configs of batches proposed ahead (search/proposal_window.h), before the current batch is evaluated:
  // an evaluator may start preparing (compiling) them, or evaluate them early, to keep its GPUs busy.
  // Their results are asked for later through evaluate_batch. Default: nothing.
  virtual void prefetch(const std::vector<Config>& configs) { (void)configs; }
  // The best median time of the run so far, before each batch: GPU evaluators race against it (time a
  // config much slower than the best with a few samples only; see harness::TimingOptions).
  virtual void set_best_us(std::optional<double> best_us) { (void)best_us; }
};

// Answers from a recorded T4 space: time in the file's unit (milliseconds in Kernel Tuner's files) is
// stored as median_us after conversion; recorded failures keep their kind.
class ReplayEvaluator : public Evaluator {
 public:
  explicit ReplayEvaluator(const T4Space& recorded, double unit_to_us = 1000.0)
      : recorded_(recorded), unit_to_us_(unit_to_us) {}
  evidence::TrialRecord evaluate(const Config& config) override;
  // Test only: each evaluation takes this long (an interruption ends the wait), so that a replay search
  // is still running when a test interrupts it.
  void set_delay_ms(int milliseconds) { delay_ms_ = milliseconds; }

 private:
  const T4Space& recorded_;
  double unit_to_us_;
  int delay_ms_ = 0;
};

struct Progress {
  int generation = 0, evaluated = 0, budget = 0, valid = 0;
  std::optional<double> best_us;
  double elapsed_seconds = 0;
};

struct SearchOptions {
  int budget = 100;
  // Configs asked for at once: a cap, large enough that the strategy's own generation size decides.
  int batch = 64;
  // Batches proposed ahead of their results (1: every batch sees every earlier result).
  int lookahead = 1;
  std::function<void(const Progress&)> on_generation;
  // Also stop when this much wall time has passed in this invocation (checked between batches; the run
  // stays resumable), or after this many batches in a row without a new best (0: never).
  std::optional<double> max_seconds;
  int stop_after_stagnant = 0;
  // Test only: after this many newly recorded trials, the process kills itself with SIGKILL.
  std::optional<int> kill_after;
};

struct SearchSummary {
  int evaluated = 0;  // trials in the run, recorded before or now
  int newly_evaluated = 0;
  int valid = 0;
  std::optional<double> best_us;
  std::string best_config;
  // budget, time (max_seconds), stagnation (stop_after_stagnant), exhausted (nothing left to propose), or
  // interrupted (a signal: runtime/interrupt.h; every trial that finished is recorded)
  std::string stop_reason = "budget";
  int interrupt_signal = 0;  // with stop_reason interrupted
};

SearchSummary run_search(evidence::Store& store, std::int64_t run_id, const SearchSpace& space, Strategy& strategy,
                         Evaluator& evaluator, const SearchOptions& options);

}  // namespace evotune::search
