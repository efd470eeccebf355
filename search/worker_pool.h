#pragma once
// Candidate kernels never run inside the search process: a kernel that faults leaves its CUDA context
// unusable, and one that hangs never returns. Each device gets an `evotune worker` child process; the
// coordinator sends it one request per line on its stdin and reads one reply per line from its stdout
// (search/worker_protocol.h). A worker that dies (signal, abort, sticky error exit) has its trial
// recorded as `crash`, one that exceeds the per-trial timeout is killed and recorded as `timeout`;
// either way it is restarted and the search goes on. Several workers evaluate in parallel.
//
// With a prepare stage attached (set_preparer), every config is prepared on the coordinator's side first
// (runtime/prepare.h): a rejected one is recorded at once without a worker, a prepared one goes to the
// next idle worker as a kernel to load. Configs are dispatched as their preparations finish, not in
// proposal order, and configs of batches proposed ahead (prefetch) are evaluated early when nothing of
// the current batch is ready, so the GPUs wait for the compiler only when nothing at all is ready.
// Each trial of the batch asked for is reported as it finishes (the coordinator records it at once, under
// its place in proposal order); configs evaluated early wait for their batch, and the results come back
// per batch in proposal order, so what is recorded does not depend on timing. An interruption
// (runtime/interrupt.h) wakes the wait: the batch ends with runtime::Interrupted, after what finished was
// reported, and the destructor kills the workers still busy.
#include <chrono>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/trial_status.h"
#include "runtime/child_process.h"
#include "search/coordinator.h"
#include "search/prepare_ahead.h"

namespace evotune::search {

struct WorkerCommand {
  std::string executable;         // the evotune binary
  std::vector<std::string> args;  // after the executable, e.g. {"worker", "--device", "0", "--replay", "f.t4"}
};

// Where the workers' time went while evaluating, summed over workers (seconds).
struct WorkerTimeline {
  double busy = 0;                // loading, checking and timing, as the workers report it
  double in_flight = 0;           // from sending a config to its reply (busy + start-up + pipe latency)
  double waiting_for_prepare = 0; // idle while the next config of the current batch was still compiling
  double idle_other = 0;          // idle otherwise: end of a batch, the coordinator's own work between batches
  int early = 0;                  // configs evaluated before their batch was asked for
};

class WorkerPool : public Evaluator {
 public:
  // One worker per command (one per device).
  WorkerPool(std::vector<WorkerCommand> workers, std::chrono::milliseconds timeout);
  ~WorkerPool() override;
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  evidence::TrialRecord evaluate(const Config& config) override;
  using Evaluator::evaluate_batch;
  std::vector<evidence::TrialRecord> evaluate_batch(const std::vector<Config>& configs, const TrialDone& done) override;
  void prefetch(const std::vector<Config>& configs) override;
  void set_best_us(std::optional<double> best_us) override { best_us_ = best_us; }

  // Optional, not owned: the prepare stage the configs go through before a worker sees them.
  void set_preparer(PrepareAhead* preparer) { preparer_ = preparer; }

  // Sends one request other than a config to worker `index` and waits (up to the trial timeout) for its
  // one-line reply; nullopt when the worker dies or times out (it is restarted, as after a failed trial).
  std::optional<std::string> ask(std::size_t index, const std::string& request_line);

  int restarts() const { return restarts_; }
  // Launches per timed sample of this search: the first trial timed in full decides it (by its length,
  // harness/timer.h), and every later trial and the confirmation are timed with it, so that trials just
  // under and just over 20 us are not ranked across two ways of timing (with several workers, trials already
  // in flight when it is known keep their own). 0 until then.
  int batch() const { return batch_; }
  std::size_t size() const { return workers_.size(); }
  const WorkerTimeline& timeline() const { return timeline_; }

 private:
  struct Job {
    Config config;
    std::chrono::steady_clock::time_point sent, deadline;
  };
  struct Worker {
    WorkerCommand command;
    runtime::ChildProcess process;
    std::string buffer;  // bytes read but not yet consumed
    std::optional<Job> job;
  };
  void start(Worker& w);
  bool write_line(Worker& w, const std::string& line);
  // Replaces a failed worker; the trial of its job (if any) gets `status` and `why`.
  evidence::TrialRecord failed(Worker& w, core::TrialStatus status, const std::string& why);
  // The trial as recorded: the worker's measurements plus the prepare stage's resources and compile time.
  evidence::TrialRecord with_preparation(const Config& config, evidence::TrialRecord trial) const;
  // Moves ready configs from the queue: rejections straight to finished_, one prepared config per idle
  // worker. Returns whether some config of `wanted` is still waiting for its preparation.
  bool dispatch(const std::map<std::string, bool>& wanted);
  void send(Worker& w, const Config& config);
  void collect(Worker& w);  // reads a worker's reply after poll() said it is readable

  std::vector<Worker> workers_;
  std::chrono::milliseconds timeout_;
  int restarts_ = 0;
  PrepareAhead* preparer_ = nullptr;
  std::optional<double> best_us_;  // sent with each request; lowered by results as they arrive
  int batch_ = 0;                  // sent with each request once known (batch())
  std::deque<Config> queue_;                                  // not yet dispatched: current batch first
  std::map<std::string, evidence::TrialRecord> finished_;     // by config key, until their batch collects them
  WorkerTimeline timeline_;
  std::optional<std::chrono::steady_clock::time_point> left_at_;  // when evaluate_batch last returned
};

}  // namespace evotune::search
