#include "search/compile_ahead.h"

#include <chrono>

namespace evotune::search {

CompileAhead::CompileAhead(runtime::Compiler& compiler, unsigned threads, RequestFor request_for)
    : pool_(compiler, threads), request_for_(std::move(request_for)) {}

void CompileAhead::submit(const std::vector<Config>& configs) {
  for (const Config& config : configs) {
    const std::string key = config.key();
    if (pending_.count(key)) continue;
    std::optional<runtime::CompileRequest> request = request_for_(config);
    if (!request) continue;
    pending_.emplace(key, pool_.submit(std::move(*request)));
    ++stats_.submitted;
  }
}

void CompileAhead::wait(const Config& config) {
  auto it = pending_.find(config.key());
  if (it == pending_.end()) return;
  const auto start = std::chrono::steady_clock::now();
  try {
    // The result is in the cache now; only its compile time is kept.
    compile_seconds_[it->first] = it->second.get().compile_seconds;
  } catch (const std::exception&) {
    ++stats_.failed;
  }
  stats_.waited_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  pending_.erase(it);
}

std::optional<double> CompileAhead::compile_seconds(const Config& config) const {
  auto it = compile_seconds_.find(config.key());
  if (it == compile_seconds_.end()) return std::nullopt;
  return it->second;
}

}  // namespace evotune::search
