#pragma once
// Candidate kernels never run inside the search process: a kernel that faults leaves its CUDA context
// unusable, and one that hangs never returns. Each device gets an `evotune worker` child process; the
// coordinator sends it one config per line on its stdin and reads one JSON trial per line from its
// stdout. A worker that dies (signal, abort, sticky error exit) has its trial recorded as `crash`, one
// that exceeds the per-trial timeout is killed and recorded as `timeout`; either way it is restarted
// and the search goes on. Several workers evaluate a batch in parallel.
#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "search/compile_ahead.h"
#include "search/coordinator.h"

namespace evotune::search {

struct WorkerCommand {
  std::string executable;         // the evotune binary
  std::vector<std::string> args;  // after the executable, e.g. {"worker", "--device", "0", "--replay", "f.t4"}
};

class WorkerPool : public Evaluator {
 public:
  // One worker per command (one per device).
  WorkerPool(std::vector<WorkerCommand> workers, std::chrono::milliseconds timeout);
  ~WorkerPool() override;
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  evidence::TrialRecord evaluate(const Config& config) override;
  std::vector<evidence::TrialRecord> evaluate_batch(const std::vector<Config>& configs) override;
  void set_best_us(std::optional<double> best_us) override { best_us_ = best_us; }

  // Optional: compile each batch ahead on the coordinator's thread pool; a config is sent to a worker once
  // its compile has finished, so the worker's compile is a cache hit. Not owned; outlives the pool's use.
  void set_compile_ahead(CompileAhead* ahead) { ahead_ = ahead; }

  // Sends one request other than a config to worker `index` and waits (up to the trial timeout) for its
  // one-line reply; nullopt when the worker dies or times out (it is restarted, as after a failed trial).
  std::optional<std::string> ask(std::size_t index, const std::string& request_line);

  int restarts() const { return restarts_; }
  std::size_t size() const { return workers_.size(); }

 private:
  struct Worker {
    WorkerCommand command;
    pid_t pid = -1;
    int to_child = -1, from_child = -1;
    std::string buffer;  // bytes read but not yet consumed
  };
  void start(Worker& w);
  void stop(Worker& w, bool kill);
  // Sends the config and waits for its trial; never throws for worker failures, it reports them.
  bool send(Worker& w, const Config& config, evidence::TrialRecord& failure);
  bool write_line(Worker& w, const std::string& line);
  evidence::TrialRecord failed(Worker& w, const std::string& status, const std::string& why);

  std::vector<Worker> workers_;
  std::chrono::milliseconds timeout_;
  int restarts_ = 0;
  CompileAhead* ahead_ = nullptr;
  std::optional<double> best_us_;  // sent with each request; lowered by results as they arrive
};

}  // namespace evotune::search
