// evotune cache path|info|clear: the cubin disk cache.
#include <fmt/format.h>

#include "cli/cli_common.h"
#include "runtime/cubin_cache.h"

namespace evotune::cli {

void add_cache_command(CLI::App& app, const GlobalOptions& globals) {
  auto* cmd = app.add_subcommand("cache", "Inspect or clear the cubin disk cache");
  cmd->require_subcommand(1);
  cmd->add_subcommand("path", "Print the cache directory")->callback([&globals] {
    fmt::print("{}\n", cache_dir(globals).string());
  });
  cmd->add_subcommand("info", "Print the number of entries and their size")->callback([&globals] {
    runtime::CubinCache cache(cache_dir(globals));
    runtime::CacheStats s = cache.stats();
    fmt::print("{}: {} entries, {} recorded compile failures, {:.1f} MiB\n", cache.dir().string(), s.entries,
               s.failures, s.bytes / 1048576.0);
  });
  cmd->add_subcommand("clear", "Delete every cached compile result (kernels and recorded failures)")->callback([&globals] {
    runtime::CubinCache cache(cache_dir(globals));
    fmt::print("removed {} entries from {}\n", cache.clear(), cache.dir().string());
  });
}

}  // namespace evotune::cli
