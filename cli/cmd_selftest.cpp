// evotune selftest: compile, load, launch and check kernels on a real device, end to end.
#include <fmt/format.h>

#include "cli/cli_common.h"
#include "harness/smoke_selftest.h"

namespace evotune::cli {

void add_selftest_command(CLI::App& app, const GlobalOptions& globals) {
  auto* cmd = app.add_subcommand("selftest", "Compile, load, launch and check test kernels on a GPU");
  struct Options {
    int device = 0;
    int variants = 16;
    unsigned threads = 0;
  };
  auto opt = std::make_shared<Options>();
  cmd->add_option("--device", opt->device, "GPU ordinal")->check(WholeNumber(0, 1023));
  cmd->add_option("--variants", opt->variants, "Distinct kernels to compile and run")->check(WholeNumber(1, 128));
  cmd->add_option("--threads", opt->threads, "Compile threads (0: one per hardware thread)")
      ->check(WholeNumber(0, 1024));
  cmd->callback([opt, &globals] {
    CompilerStack stack(globals);
    harness::SmokeSelfTest report =
        harness::run_smoke_selftest(opt->device, stack.compiler(), opt->variants, opt->threads);
    fmt::print("selftest on device {}: {} (target {})\n", opt->device, report.device_name, report.target);
    fmt::print("  {:<28} {:>5} {:>6} {:>6} {:>8} {:>7} {:>9} {:>6}\n", "kernel", "regs", "smem", "spill",
               "elements", "blocks", "max err", "cache");
    for (const auto& c : report.checks) {
      fmt::print("  {:<28} {:>5} {:>6} {:>6} {:>8} {:>7} {:>9.2g} {:>6} {}\n", c.kernel, c.resources.registers,
                 c.resources.shared_bytes, c.resources.spill_store_bytes, c.elements, c.blocks, c.max_abs_error,
                 c.from_cache ? "hit" : "miss", c.passed() ? "ok" : fmt::format("FAILED ({} wrong)", c.mismatches));
    }
    if (!report.passed()) throw std::runtime_error("selftest failed: a kernel's output differs from the reference");
    fmt::print("selftest passed: {} kernels compiled, launched and matched the reference exactly\n",
               report.checks.size());
  });
}

}  // namespace evotune::cli
