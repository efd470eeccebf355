#pragma once
// The coordinator's side of the prepare stage, run ahead of evaluation: configs are prepared (rules,
// compile, spill verdict; runtime/prepare.h) on a pool of threads while the workers check and time
// earlier ones. With a CompileProcessPool underneath, each thread only waits on a compile process, so
// as many compiles run at once as there are processes.
//
// A finished preparation keeps the kernel's cache key, name and resources, not its CUBIN: the workers
// load that from the cubin cache. Preparations are answered in any order; ready() tells whether one has finished without blocking, and
// notify_fd() becomes readable whenever one does, so the worker pool can wait on its workers' pipes and
// on the compiles in one poll().
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "runtime/prepare.h"
#include "core/config.h"

namespace evotune::search {

class PrepareAhead {
 public:
  using Prepare = std::function<runtime::Preparation(const Config&)>;

  PrepareAhead(Prepare prepare, unsigned threads);
  ~PrepareAhead();  // drops what has not started, waits for what has
  PrepareAhead(const PrepareAhead&) = delete;
  PrepareAhead& operator=(const PrepareAhead&) = delete;

  // Queues the configs not queued before, in order (first come, first prepared).
  void submit(const std::vector<Config>& configs);
  bool submitted(const Config& config) const;
  // The finished preparation, or nullptr while it runs or waits (or was never submitted).
  std::shared_ptr<const runtime::Preparation> ready(const Config& config) const;
  // Blocks until the config's preparation has finished, submitting it first if it was not.
  std::shared_ptr<const runtime::Preparation> wait(const Config& config);
  // Readable whenever a preparation finishes; drain_notifications() empties it.
  int notify_fd() const { return notify_[0]; }
  void drain_notifications();

  struct Stats {
    int prepared = 0;
    int compiled_now = 0;  // compiles that ran in this search (the rest: cache hits or rule rejections)
    int from_cache = 0;
    int rejected_by_rule = 0, compile_errors = 0, compile_timeouts = 0, rejected_resources = 0;
    std::vector<double> nvrtc_seconds;  // of each compile that ran now
  };
  Stats stats() const;
  unsigned threads() const { return static_cast<unsigned>(threads_.size()); }

 private:
  void work();
  void count(const runtime::Preparation& p);  // into stats_, under the lock

  Prepare prepare_;
  mutable std::mutex mutex_;
  std::condition_variable queued_, finished_;
  std::deque<Config> queue_;
  std::map<std::string, std::shared_ptr<const runtime::Preparation>> done_;  // by config key
  std::set<std::string> known_;                                               // submitted, by key
  Stats stats_;
  bool stopping_ = false;
  int notify_[2] = {-1, -1};
  std::vector<std::thread> threads_;
};

}  // namespace evotune::search
