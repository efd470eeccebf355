#include "cli/cli_common.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <ctime>
#include <fstream>
#include <iostream>

#include "runtime/errors.h"

namespace evotune::cli {

std::filesystem::path cache_dir(const GlobalOptions& options) {
  return options.cache_dir.empty() ? runtime::default_cache_dir() : std::filesystem::path(options.cache_dir);
}

runtime::Target compile_target(const std::string& text) {
  const runtime::Target target = runtime::Target::parse(text);
  const std::vector<int> supported = runtime::nvrtc_supported_architectures();
  const int cc = target.compute_capability();
  const bool known = std::find(supported.begin(), supported.end(), cc) != supported.end();
  // Arch-specific targets (the 'a' suffix) exist from Hopper on.
  if (!known || (target.arch_specific && cc < 90)) {
    std::vector<std::string> names;
    for (int arch : supported) names.push_back(fmt::format("sm_{}", arch));
    throw UsageError(fmt::format("unknown compile target '{}': NVRTC {} compiles for {} (and sm_90a or later with 'a')",
                                 text, runtime::nvrtc_version(), fmt::join(names, ", ")));
  }
  return target;
}

const CLI::Validator FiniteNumber(
    [](std::string& input) -> std::string {
      double value = 0;
      if (!CLI::detail::lexical_cast(input, value)) return fmt::format("{} is not a number", input);
      if (!std::isfinite(value)) return fmt::format("{} is not a finite number", input);
      return {};
    },
    "FINITE", "finite number");

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
