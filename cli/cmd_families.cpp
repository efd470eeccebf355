// evotune families: the kernel families this evotune knows, and how to tune a kernel of your own.
#include <fmt/format.h>

#include "cli/cli_common.h"
#include "families/registry.h"

namespace evotune::cli {

void add_families_command(CLI::App& app, const GlobalOptions&) {
  auto* cmd = app.add_subcommand("families", "List the kernel families (search --family NAME; your own: --kernel SPEC)");
  cmd->callback([] {
    for (const families::FamilyInfo& f : families::registered()) fmt::print("{:<12} {}\n", f.name, f.description);
    fmt::print("{:<12} {}\n", "user_kernel",
               "a kernel of yours, from a spec file: search --kernel SPEC.toml (docs/kernel-spec.md)");
  });
}

}  // namespace evotune::cli
