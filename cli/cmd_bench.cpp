// evotune bench: compile one config of a family, check it against the family's reference, time it, and
// time the family's baselines in the same run (Family::bench). evotune compile: the compile step alone, no
// GPU needed.
#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>

#include "cli/cli_common.h"
#include "families/registry.h"
#include "harness/family.h"

namespace evotune::cli {

void add_bench_command(CLI::App& app, const GlobalOptions& globals) {
  auto* cmd = app.add_subcommand(
      "bench", "Compile, check and time one config of a family beside its baselines (attention: PyTorch SDPA, cuBLAS)");
  struct Options {
    harness::BenchRequest request;
    std::string problem, family, kernel, library_baseline = "auto";
  };
  auto all = std::make_shared<Options>();
  harness::BenchRequest* opt = &all->request;
  cmd->add_option("--problem", all->problem, "e.g. b=4,hq=32,hkv=8,sq=4096,skv=4096,d=128,causal=1,dtype=bf16")
      ->required();
  cmd->add_option("--family", all->family, "the kernel family (default attention)");
  cmd->add_option("--kernel", all->kernel, "a kernel of yours: its spec file (default: none, --family's)")
      ->check(CLI::ExistingFile);
  cmd->add_option(
      "--config", opt->config,
      "e.g. mma=mma_sync,block_m=128,block_n=64,warps=8 (unnamed parameters take the defaults); "
      "without it, or as 'default', the problem-aware default for the problem and device "
      "(the family's default); 'default,NAME=VALUE,...' is that default with those tunables changed");
  cmd->add_option("--timer", opt->timer, "events (CUDA events), or clock64 (events plus cycles per CTA)")
      ->check(CLI::IsMember({"events", "clock64"}));
  cmd->add_option("--l2-flush", opt->l2_flush,
                  "how L2 is emptied before each sample: read (a buffer of 2x L2 is read; nothing is left to "
                  "write back) or write (it is written; the timed work also pays for writing it back)")
      ->check(CLI::IsMember({"read", "write"}))
      ->capture_default_str();
  cmd->add_option("--combine-launch", opt->combine_launch,
                  "split-KV with combine=kernel: launch the combine as a programmatic dependent launch (pdl: "
                  "it is scheduled while the attention kernel runs, sm_90+) or after it (plain)")
      ->check(CLI::IsMember({"pdl", "plain"}))
      ->capture_default_str();
  cmd->add_option("--device", opt->device, "GPU ordinal")->check(WholeNumber(0, 1023));
  cmd->add_option("--reps", opt->repetitions, "timed repetitions")->check(WholeNumber(3, 100000));
  cmd->add_option("--batch", opt->batch,
                  "launches per timed sample, for the kernel and every baseline: 1 times single launches, N > 1 "
                  "a CUDA graph of N back-to-back launches (L2 flushed before each sample); 0 (the default): "
                  "the kernel's length decides (a graph below 20 us), and the baselines are timed as it was")
      ->check(WholeNumber(0, 1000));
  cmd->add_option("--seed", opt->seed, "input seed, 0 to 2^63-1")->check(SeedNumber);
  cmd->add_flag("--check", opt->check,
                "build the kernel with bounded barrier waits: a wait that nothing completes within 4 s prints "
                "which CTA waited and traps (a launch error, exit 1) instead of hanging the GPU");
  cmd->add_flag("--json", opt->json, "print one JSON object (the format compare_sdpa.py reads)");
  cmd->add_option("--json-out", opt->json_out,
                  "also append that JSON object, as one line, to this file (default: none)");
  cmd->add_flag("!--no-baseline", opt->baseline,
                "skip every baseline (attention: the unfused cuBLAS one, the peak measurements and PyTorch SDPA)");
  cmd->add_option("--library-baseline", all->library_baseline,
                  "auto: also time the family's library kernels on the same problem and device (attention: PyTorch "
                  "SDPA's flash and cuDNN backends, scripts/compare_sdpa.py through python3 with torch, found in the "
                  "checkout or $EVOTUNE_SDPA_SCRIPT; a spec's baseline command), and report the speedup over the "
                  "faster; off: do not")
      ->check(CLI::IsMember({"auto", "off"}))
      ->capture_default_str();
  cmd->add_option("--library-reps", opt->library_reps, "timed samples per SDPA backend")
      ->check(WholeNumber(3, 100000))
      ->capture_default_str();
  cmd->callback([all, &globals] {
    const std::unique_ptr<harness::Family> family = families::open_family(all->family, all->kernel);
    all->request.problem = family->parse_problem(all->problem);
    all->request.library_baseline = all->library_baseline == "auto";
    CompilerStack stack(globals);
    family->bench(all->request, stack.compiler());
  });
}

void add_compile_command(CLI::App& app, const GlobalOptions& globals) {
  auto* cmd = app.add_subcommand("compile", "Compile one config of a family for a target and show its resources (no GPU)");
  struct Options {
    std::string problem, config, target = "sm_90a", cubin_out, family, kernel;
  };
  auto opt = std::make_shared<Options>();
  cmd->add_option("--problem", opt->problem, "the problem, as for bench")->required();
  cmd->add_option("--family", opt->family, "the kernel family (default attention)");
  cmd->add_option("--kernel", opt->kernel, "a kernel of yours: its spec file (default: none, --family's)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--config", opt->config,
                  "the config, as for bench ('default[,NAME=VALUE,...]': the problem-aware default for the target)");
  cmd->add_option("--target", opt->target, "compile target, e.g. sm_80, sm_90a");
  cmd->add_option("--cubin-out", opt->cubin_out,
                  "write the CUBIN here (for cuobjdump -sass / nvdisasm; default: none)");
  cmd->callback([opt, &globals] {
    const std::unique_ptr<harness::Family> family = families::open_family(opt->family, opt->kernel);
    const harness::FamilyProblem problem = family->parse_problem(opt->problem);
    runtime::Target target = compile_target(opt->target);
    const Config config = family->parse_config(opt->config, problem, DeviceLimits::for_target(target));
    CompilerStack stack(globals);
    const runtime::Preparation p =
        family->prepare(config, problem, DeviceLimits::for_target(target), target, stack.compiler());
    const runtime::Rejection* rejection = runtime::rejected(p);
    if (rejection && rejection->kind == runtime::Rejection::Kind::rule) {
      throw UsageError(fmt::format("config {} is invalid for {} on {}: {}", family->format_config(config),
                                   problem.text, target.name(), rejection->reason));
    }
    if (rejection && !rejection->compiled) {  // compile error or timeout: the reason holds the log
      throw std::runtime_error(rejection->reason);
    }
    // Accepted, or compiled and rejected for its resources: either way there is a kernel to describe.
    const runtime::PreparedKernel& kernel = rejection ? *rejection->compiled : *runtime::prepared(p);
    const runtime::ResourceUsage& u = kernel.resources;
    if (!opt->cubin_out.empty()) {
      std::ofstream file(opt->cubin_out, std::ios::binary);
      file.write(kernel.cubin->data(), static_cast<std::streamsize>(kernel.cubin->size()));
      if (!file) throw std::runtime_error("cannot write " + opt->cubin_out);
    }
    fmt::print("{}\n  kernel     {}\n  target     {}\n  registers  {}\n  spills     {} B stored, {} B loaded\n"
               "  stack      {} B\n  shared     {} B static\n  cache      {}\n  verdict    {}\n",
               family->format_config(config), kernel.kernel_name, target.name(), u.registers, u.spill_store_bytes,
               u.spill_load_bytes, u.stack_frame_bytes, u.shared_bytes,
               kernel.compiled_now ? fmt::format("miss ({:.2f} s)", kernel.compile_seconds)
                                   : fmt::format("hit (built in {:.2f} s)", kernel.compile_seconds),
               rejection ? rejection->reason : std::string("accepted"));
  });
}

}  // namespace evotune::cli
