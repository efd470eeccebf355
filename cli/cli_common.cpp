#include "cli/cli_common.h"

namespace evotune::cli {

std::filesystem::path cache_dir(const GlobalOptions& options) {
  return options.cache_dir.empty() ? runtime::default_cache_dir() : std::filesystem::path(options.cache_dir);
}

CompilerStack::CompilerStack(const GlobalOptions& options) {
  if (!options.no_cache) {
    cache_.emplace(cache_dir(options));
    caching_.emplace(nvrtc_, *cache_);
  }
}

runtime::Compiler& CompilerStack::compiler() {
  if (caching_) return *caching_;
  return nvrtc_;
}

}  // namespace evotune::cli
