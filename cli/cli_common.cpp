#include "cli/cli_common.h"

#include <fmt/format.h>

#include <ctime>
#include <fstream>
#include <iostream>

#include "runtime/errors.h"

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

std::int64_t requested_or_latest_run(const evidence::Store& store, std::int64_t requested, const std::string& db) {
  if (requested != 0) {
    if (!store.run_info(requested)) {
      throw UsageError(fmt::format("{} holds no run {} (see evotune runs --db {})", db, requested, db));
    }
    return requested;
  }
  std::optional<std::int64_t> latest = store.latest_run();
  if (!latest) throw UsageError(fmt::format("{} holds no runs", db));
  return *latest;
}

void write_output_file(const std::string& path, const std::string& text) {
  if (path.empty() || path == "-") {
    std::cout << text;
    return;
  }
  const std::string temporary = path + ".tmp";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out << text;
    if (!out.flush()) throw std::runtime_error(fmt::format("cannot write {}", path));
  }
  std::filesystem::rename(temporary, path);
}

std::string utc_timestamp() {
  std::time_t now = std::time(nullptr);
  char text[32];
  std::strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  return text;
}

}  // namespace evotune::cli
