#pragma once
// Compile-ahead: the coordinator compiles a batch's configs on a thread pool, into the cubin cache the
// workers read, while the workers are busy timing earlier configs. A worker then finds its config's
// CUBIN in the cache (a hit takes milliseconds), so the GPU waits for the compiler only for the first
// config of each batch instead of for every config.
//
// Compile errors are not reported here: the worker compiles the config again, fails the same way and
// records the trial as compile_error with the full log (failed compiles are not cached).
#include <functional>
#include <future>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "runtime/compile_pool.h"
#include "templates/space.h"

namespace evotune::search {

class CompileAhead {
 public:
  // The compile request of a config, or nullopt for a config the evaluator rejects before compiling.
  using RequestFor = std::function<std::optional<runtime::CompileRequest>(const Config&)>;

  // `compiler` must write the cache the workers read (a CachingCompiler on the same directory).
  CompileAhead(runtime::Compiler& compiler, unsigned threads, RequestFor request_for);

  // Starts compiling every config of the batch that has a request; returns at once.
  void submit(const std::vector<Config>& configs);
  // Blocks until the config's compile has finished (either way); returns at once for a config that was
  // never submitted or already waited for.
  void wait(const Config& config);

  struct Stats {
    int submitted = 0;
    int failed = 0;              // compile errors (the worker records them)
    double waited_seconds = 0;   // time the evaluation waited for compiles, summed over wait()
  };
  const Stats& stats() const { return stats_; }
  // NVRTC time of a config compiled here and waited for (the worker's own compile was then a cache
  // hit, so this is the compile time its trial should record); nullopt otherwise.
  std::optional<double> compile_seconds(const Config& config) const;
  unsigned threads() const { return pool_.threads(); }

 private:
  runtime::CompilePool pool_;
  RequestFor request_for_;
  std::map<std::string, std::future<runtime::CompileResult>> pending_;  // by config key
  std::map<std::string, double> compile_seconds_;                       // by config key, once waited for
  Stats stats_;
};

}  // namespace evotune::search
