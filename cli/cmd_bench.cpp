// evotune bench: compile one attention config, check it against the reference, time it, and time the
// unfused cuBLAS baseline in the same run. evotune compile: the compile step alone, no GPU needed.
#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>

#include "cli/cli_common.h"
#include "evidence/json_text.h"
#include "harness/attention_kernel.h"
#include "harness/attention_workspace.h"
#include "harness/cublas_baseline.h"
#include "harness/library_baseline.h"
#include "harness/timer.h"
#include "runtime/device_properties.h"
#include "templates/attention/attention_family.h"

namespace evotune::cli {
namespace {

struct Measured {
  harness::TimingSummary timing;
  double tflops = 0, gbps = 0;
};

Measured measure(const attention::Problem& p, harness::TimingSummary t) {
  Measured m;
  m.timing = std::move(t);
  m.tflops = p.flops() / (m.timing.median_us * 1e-6) / 1e12;
  m.gbps = p.bytes() / (m.timing.median_us * 1e-6) / 1e9;
  return m;
}

nlohmann::json to_json(const Measured& m) {
  return {{"median_us", m.timing.median_us},  {"min_us", m.timing.min_us},   {"p10_us", m.timing.p10_us},
          {"p90_us", m.timing.p90_us},        {"mean_us", m.timing.mean_us}, {"batch", m.timing.batch},
          {"graph", m.timing.graph},          {"tflops", m.tflops},          {"gbps", m.gbps},
          {"samples_us", m.timing.samples_us}};
}

nlohmann::json to_json(const harness::AttentionCheck& c) {
  return {{"passed", c.passed},
          {"max_abs_error", c.max_abs_error},
          {"rel_l2_error", c.rel_l2_error},
          {"same_precision_error", c.same_precision_error},
          {"tolerance", c.tolerance},
          {"lse_max_error", c.lse_max_error},
          {"nan_count", c.nan_count},
          {"reason", c.reason}};
}

struct BenchOptions {
  std::string problem, config;
  std::string timer = "events";
  std::string l2_flush = "read";
  std::string combine_launch = "pdl";
  int device = 0;
  int repetitions = 50;
  int batch = 0;  // launches per sample; 0: decided by the kernel's length
  std::uint64_t seed = 1;
  bool json = false;
  std::string json_out;  // also append the JSON record to this file
  bool baseline = true;
  std::string library_baseline = "auto";
  int library_reps = 30;
  bool check = false;  // bounded barrier waits: a deadlock traps with a message instead of hanging
};

nlohmann::json to_json(const evidence::BaselineRecord& b) {
  nlohmann::json j = {{"name", b.name}, {"detail", nlohmann::json::parse(b.detail_json, nullptr, false)}};
  if (b.median_us) j["median_us"] = *b.median_us;
  if (b.p10_us) j["p10_us"] = *b.p10_us;
  if (b.p90_us) j["p90_us"] = *b.p90_us;
  if (b.tflops) j["tflops"] = *b.tflops;
  if (b.gbps) j["gbps"] = *b.gbps;
  if (b.max_abs_error) j["max_abs_error"] = *b.max_abs_error;
  return j;
}

// The bench runs only what a search would run: a config rejected by the prepare stage (rules, compile,
// spills) is an error, with the stage's reason.
runtime::PreparedKernel prepare_or_throw(const Config& config, const attention::Problem& problem,
                                         const runtime::DeviceProperties& props, const runtime::Target& target,
                                         runtime::Compiler& compiler, attention::KernelBuild build = {}) {
  runtime::Preparation p = attention::prepare(config, problem, DeviceLimits::from(props), target, compiler, build);
  if (const runtime::Rejection* r = runtime::rejected(p)) {
    const std::string what = fmt::format("config {} on {} ({}): {}", attention::format(config), props.name,
                                         problem.to_string(), r->reason);
    if (r->kind == runtime::Rejection::Kind::rule) throw UsageError("cannot run " + what);
    throw std::runtime_error("rejected " + what);
  }
  return std::get<runtime::PreparedKernel>(std::move(p));
}

void run_bench(const BenchOptions& opt, const GlobalOptions& globals) {
  // Everything the user typed is checked before any GPU is touched.
  attention::Problem problem = attention::Problem::parse(opt.problem);
  const bool heuristic = opt.config.empty();
  const std::optional<std::string_view> default_changes = attention::default_changes(opt.config);
  const bool from_default = default_changes.has_value();
  // "default,NAME=VALUE,...": its assignments are checked here too (names and values read the same over any
  // base config).
  Config config = attention::parse_config(default_changes.value_or(opt.config));

  runtime::DeviceProperties props = runtime::query_device(opt.device);
  // Without --config, or with "default[,...]": the problem-aware default for this problem on this device.
  if (from_default) config = attention::parse_config_for(opt.config, problem, DeviceLimits::from(props));
  runtime::DeviceContext context(opt.device);
  runtime::Target target = runtime::Target::parse(props.native_target());
  CompilerStack stack(globals);
  const attention::KernelBuild build{.cta_clock = false, .bounded_waits = opt.check};
  if (opt.check && !opt.json) {
    fmt::print(stderr, "bench: --check: barrier waits are bounded (one that nothing completes in 4 s traps and "
                       "prints where), so the times are of the check build\n");
  }
  const runtime::PreparedKernel prepared = prepare_or_throw(config, problem, props, target, stack.compiler(), build);
  harness::AttentionKernel kernel(prepared, config, problem, DeviceLimits::from(props));
  kernel.set_programmatic_combine(opt.combine_launch == "pdl");
  const runtime::LaunchGeometry& geometry = kernel.geometry();

  runtime::Stream stream;
  if (!opt.json) fmt::print(stderr, "bench: preparing inputs and the fp32 reference for {}\n", problem.to_string());
  harness::AttentionWorkspace workspace(problem, stack.compiler(), target, opt.seed, stream);
  AttentionParams params = workspace.params(true);
  auto launch_kernel = [&](const runtime::Stream& s) { kernel.launch(params, s); };

  workspace.poison_outputs(stream);
  harness::AttentionCheck check;
  try {
    launch_kernel(stream);
    check = workspace.check(stream, true);
  } catch (const std::runtime_error& e) {
    if (!opt.check) throw;
    throw std::runtime_error(fmt::format("{} (--check: a trap here is most likely a bounded barrier wait that "
                                         "expired; the device printed which CTA waited above)",
                                         e.what()));
  }

  harness::Timer timer(static_cast<std::size_t>(props.l2_bytes) * 2, *harness::parse_l2_flush(opt.l2_flush));
  harness::TimingOptions timing;
  timing.repetitions = opt.repetitions;
  timing.batch = opt.batch;
  std::optional<Measured> kernel_time;
  if (check.passed) kernel_time = measure(problem, timer.time(launch_kernel, stream, timing));
  // Every baseline is timed the way the kernel was (timer.h: one batch per comparison); a kernel that
  // failed its check leaves the choice to each.
  if (kernel_time) timing.batch = kernel_time->timing.batch;

  // Second view: clock64 cycles per CTA from the instrumented build of the same config.
  nlohmann::json clock_view;
  std::optional<runtime::PreparedKernel> clock_prepared;
  if (opt.timer == "clock64" && check.passed) {
    // The instrumented build keeps clock64 values live, so it can need more registers than the kernel
    // itself; when it spills, the view is unavailable (it would time a different kernel), and nothing
    // else already measured is lost.
    runtime::Preparation p =
        attention::prepare(config, problem, DeviceLimits::from(props), target, stack.compiler(),
                           {.cta_clock = true, .bounded_waits = opt.check});
    if (const runtime::Rejection* r = runtime::rejected(p)) {
      clock_view = {{"unavailable", "the clock64-instrumented build is rejected: " + r->reason}};
    } else {
      clock_prepared = std::get<runtime::PreparedKernel>(std::move(p));
    }
  }
  if (clock_prepared) {
    harness::AttentionKernel clock_kernel(*clock_prepared, config, problem, DeviceLimits::from(props));
    std::size_t ctas = std::size_t{geometry.grid[0]} * geometry.grid[1] * geometry.grid[2];
    runtime::DeviceBuffer cycles(ctas * 8, "CTA cycles");
    AttentionParams clock_params = workspace.params(true, cycles.get());
    timer.flush_l2(stream);
    clock_kernel.launch(clock_params, stream);
    stream.synchronize();
    std::vector<std::uint64_t> per_cta = cycles.download_as<std::uint64_t>(ctas);
    std::vector<double> as_double(per_cta.begin(), per_cta.end());
    harness::TimingSummary s = harness::summarize(as_double, 1);
    clock_view = {{"ctas", ctas},          {"median_cycles", s.median_us}, {"p10_cycles", s.p10_us},
                  {"p90_cycles", s.p90_us}, {"max_cycles", *std::max_element(as_double.begin(), as_double.end())},
                  {"sm_clock_mhz", props.sm_clock_khz / 1000}};
  }

  std::optional<harness::CublasHandle> cublas;
  std::optional<Measured> baseline_time;
  harness::AttentionCheck baseline_check;
  harness::DevicePeaks peaks;
  if (opt.baseline) {
    cublas.emplace();
    harness::UnfusedCublasAttention baseline(workspace, *cublas);
    workspace.poison_outputs(stream);
    baseline.run(stream);
    baseline_check = workspace.check(stream, false);
    baseline_time = measure(problem, timer.time([&](const runtime::Stream& s) { baseline.run(s); }, stream, timing));
    peaks = harness::measure_peaks(workspace, *cublas, timer, stream);
  }
  // The strongest library kernel on this device, in the same run: PyTorch SDPA (flash and cuDNN backends).
  harness::LibraryBaselines library;
  if (opt.baseline && opt.library_baseline == "auto") {
    if (!opt.json) fmt::print(stderr, "bench: timing PyTorch SDPA (flash, cuDNN) beside it (--library-baseline off skips)\n");
    harness::LibraryBaselineOptions library_options;
    library_options.device = opt.device;
    library_options.reps = opt.library_reps;
    library_options.batch = timing.batch;
    library = harness::measure_library_baselines(problem, library_options);
    if (!library.unavailable.empty()) fmt::print(stderr, "bench: no library baseline: {}\n", library.unavailable);
  }
  const evidence::BaselineRecord* strongest = evidence::strongest_library_baseline(library.records);

  const runtime::ResourceUsage& usage = prepared.resources;
  {
    nlohmann::json out = {
        {"problem", problem.to_string()},
        {"config", attention::format(config)},
        {"config_hash", config.hash()},
        {"config_source", heuristic || opt.config == "default" ? "heuristic" : from_default ? "heuristic, changed" : "given"},
        {"splits", kernel.plan().splits},
        {"device", props.name},
        {"target", target.name()},
        {"resources", runtime::to_json(usage)},
        {"shared_bytes", geometry.dynamic_shared_bytes},
        {"check", to_json(check)},
        {"flops", problem.flops()},
        {"bytes", problem.bytes()},
        {"l2_flush", opt.l2_flush},
        {"combine_launch", kernel.plan().combine ? (kernel.plan().combine->programmatic_dependency ? "pdl" : "plain")
                                                 : "none"},
    };
    if (kernel_time) out["kernel"] = to_json(*kernel_time);
    if (!clock_view.is_null()) out["clock64"] = clock_view;
    if (baseline_time) {
      out["baseline"] = to_json(*baseline_time);
      out["baseline"]["name"] = "cublas_unfused";
      out["baseline"]["check"] = to_json(baseline_check);
      out["peaks"] = {{"gemm_tflops", peaks.gemm_tflops}, {"copy_gbps", peaks.copy_gbps}};
    }
    if (opt.baseline && opt.library_baseline == "auto") {
      out["library_baselines"] = nlohmann::json::array();
      for (const evidence::BaselineRecord& b : library.records) out["library_baselines"].push_back(to_json(b));
      if (!library.unavailable.empty()) out["library_unavailable"] = library.unavailable;
      if (strongest && kernel_time) {
        out["strongest_library"] = strongest->name;
        out["speedup_vs_strongest_library"] = *strongest->median_us / kernel_time->timing.median_us;
      }
    }
    if (opt.json) fmt::print("{}\n", evidence::json_text(out));
    if (!opt.json_out.empty()) {
      std::ofstream file(opt.json_out, std::ios::app);
      file << evidence::json_text(out) << '\n';
      if (!file) throw std::runtime_error("cannot append to " + opt.json_out);
    }
  }
  if (!opt.json) {
    fmt::print("problem    {}\n", problem.to_string());
    fmt::print("config     {}{}\n", attention::format(config),
               heuristic ? " (the problem-aware default: no --config given)"
               : from_default ? fmt::format(" (the problem-aware default, --config {})", opt.config)
                              : std::string());
    if (kernel.plan().combine) {
      fmt::print("split-KV   {} chunks per tile ({} CTAs, then the combine), {:.1f} MiB workspace\n",
                 kernel.plan().splits, geometry.grid[0] * geometry.grid[1] * geometry.grid[2],
                 static_cast<double>(kernel.plan().workspace_bytes) / (1 << 20));
    }
    fmt::print("device     {} ({}), {} SMs\n", props.name, target.name(), props.sm_count);
    fmt::print("resources  {} registers, {} spilled bytes, {} B dynamic shared memory, {} threads, grid {}x{}x{}\n",
               usage.registers, usage.spill_store_bytes + usage.spill_load_bytes, geometry.dynamic_shared_bytes,
               geometry.block[0], geometry.grid[0], geometry.grid[1], geometry.grid[2]);
    fmt::print("check      {}: max abs error {:.3g} (limit {:.3g}: 2 x same-precision {:.3g} + floor), rel L2 {:.3g}, "
               "LSE max error {:.3g}{}\n",
               check.passed ? "PASS" : "FAIL", check.max_abs_error, check.tolerance, check.same_precision_error,
               check.rel_l2_error, check.lse_max_error, check.passed ? "" : " -- " + check.reason);
    if (opt.baseline) {
      fmt::print("peaks      {:.0f} TFLOP/s {} GEMM (cuBLAS 8192^3), {:.0f} GB/s device copy (read + write)\n",
                 peaks.gemm_tflops, problem.dtype_name(), peaks.copy_gbps);
    }
    fmt::print("\n  {:<22} {:>10} {:>10} {:>10} {:>10} {:>6} {:>9} {:>9} {:>7} {:>7}\n", "", "median us", "min us",
               "p10 us", "p90 us", "batch", "TFLOP/s", "GB/s", "%gemm", "%copy");
    auto row = [&](const char* name, const Measured& m) {
      fmt::print("  {:<22} {:>10.2f} {:>10.2f} {:>10.2f} {:>10.2f} {:>6} {:>9.1f} {:>9.0f} {:>6.1f}% {:>6.1f}%\n", name,
                 m.timing.median_us, m.timing.min_us, m.timing.p10_us, m.timing.p90_us, m.timing.batch, m.tflops,
                 m.gbps, peaks.gemm_tflops > 0 ? 100 * m.tflops / peaks.gemm_tflops : 0.0,
                 peaks.copy_gbps > 0 ? 100 * m.gbps / peaks.copy_gbps : 0.0);
    };
    if (kernel_time) row("evotune kernel", *kernel_time);
    if (baseline_time) {
      row("cuBLAS unfused", *baseline_time);
      fmt::print("  (baseline check: {}, max abs error {:.3g})\n", baseline_check.passed ? "pass" : "FAIL",
                 baseline_check.max_abs_error);
    }
    for (const evidence::BaselineRecord& b : library.records) {
      const std::string name = b.name == "sdpa_cudnn" ? "SDPA cuDNN" : b.name == "sdpa_flash" ? "SDPA flash" : b.name;
      if (b.median_us) {
        fmt::print("  {:<22} {:>10.2f} {:>10} {:>10.2f} {:>10.2f} {:>6} {:>9.1f} {:>9.0f} {:>6.1f}% {:>6.1f}%\n", name,
                   *b.median_us, "", b.p10_us.value_or(0), b.p90_us.value_or(0), "", b.tflops.value_or(0),
                   b.gbps.value_or(0), peaks.gemm_tflops > 0 ? 100 * b.tflops.value_or(0) / peaks.gemm_tflops : 0.0,
                   peaks.copy_gbps > 0 ? 100 * b.gbps.value_or(0) / peaks.copy_gbps : 0.0);
      } else {
        const nlohmann::json detail = nlohmann::json::parse(b.detail_json, nullptr, false);
        fmt::print("  {:<22} {}\n", name,
                   detail.is_object() ? detail.value("status", "") + " " + detail.value("reason", "") : "no time");
      }
    }
    if (kernel_time && strongest) {
      fmt::print("\n  speedup over the strongest library kernel ({}): {:.3f}x\n", strongest->name,
                 *strongest->median_us / kernel_time->timing.median_us);
    } else if (kernel_time && opt.baseline && opt.library_baseline == "auto") {
      fmt::print("\n  no library kernel was timed: {}\n", library.unavailable);
    }
    if (kernel_time && baseline_time) {
      fmt::print("  speedup over the unfused cuBLAS baseline: {:.2f}x\n",
                 baseline_time->timing.median_us / kernel_time->timing.median_us);
    }
    if (clock_view.contains("unavailable")) {
      fmt::print("  clock64: unavailable ({})\n", clock_view["unavailable"].get<std::string>());
    } else if (!clock_view.is_null()) {
      fmt::print("  clock64: {} CTAs, median {:.0f} cycles per CTA (p10 {:.0f}, p90 {:.0f}, max {:.0f}) at up to {} MHz\n",
                 clock_view["ctas"].get<std::size_t>(), clock_view["median_cycles"].get<double>(),
                 clock_view["p10_cycles"].get<double>(), clock_view["p90_cycles"].get<double>(),
                 clock_view["max_cycles"].get<double>(), clock_view["sm_clock_mhz"].get<int>());
    }
  }
  if (!check.passed) throw std::runtime_error("the kernel's output is wrong: " + check.reason);
}

}  // namespace

void add_bench_command(CLI::App& app, const GlobalOptions& globals) {
  auto* cmd = app.add_subcommand("bench", "Compile, check and time one attention config beside PyTorch SDPA and the cuBLAS baseline");
  auto opt = std::make_shared<BenchOptions>();
  cmd->add_option("--problem", opt->problem, "e.g. b=4,hq=32,hkv=8,sq=4096,skv=4096,d=128,causal=1,dtype=bf16")
      ->required();
  cmd->add_option(
      "--config", opt->config,
      "e.g. mma=mma_sync,block_m=128,block_n=64,warps=8 (unnamed parameters take the defaults); "
      "without it, or as 'default', the problem-aware default for the problem and device "
      "(attention::heuristic_config); 'default,NAME=VALUE,...' is that default with those tunables changed");
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
                "skip every baseline: the unfused cuBLAS one, the peak measurements and PyTorch SDPA");
  cmd->add_option("--library-baseline", opt->library_baseline,
                  "auto: also time PyTorch SDPA's flash and cuDNN backends on the same problem and device "
                  "(scripts/compare_sdpa.py through python3 with torch; found in the checkout or "
                  "$EVOTUNE_SDPA_SCRIPT), and report the speedup over the faster; off: do not")
      ->check(CLI::IsMember({"auto", "off"}))
      ->capture_default_str();
  cmd->add_option("--library-reps", opt->library_reps, "timed samples per SDPA backend")
      ->check(WholeNumber(3, 100000))
      ->capture_default_str();
  cmd->callback([opt, &globals] { run_bench(*opt, globals); });
}

void add_compile_command(CLI::App& app, const GlobalOptions& globals) {
  auto* cmd = app.add_subcommand("compile", "Compile one attention config for a target and show its resources (no GPU)");
  struct Options {
    std::string problem, config, target = "sm_90a", cubin_out;
  };
  auto opt = std::make_shared<Options>();
  cmd->add_option("--problem", opt->problem, "the problem, as for bench")->required();
  cmd->add_option("--config", opt->config,
                  "the config, as for bench ('default[,NAME=VALUE,...]': the problem-aware default for the target)");
  cmd->add_option("--target", opt->target, "compile target, e.g. sm_80, sm_90a");
  cmd->add_option("--cubin-out", opt->cubin_out,
                  "write the CUBIN here (for cuobjdump -sass / nvdisasm; default: none)");
  cmd->callback([opt, &globals] {
    attention::Problem problem = attention::Problem::parse(opt->problem);
    runtime::Target target = compile_target(opt->target);
    const Config config = attention::parse_config_for(opt->config, problem, DeviceLimits::for_target(target));
    CompilerStack stack(globals);
    const runtime::Preparation p =
        attention::prepare(config, problem, DeviceLimits::for_target(target), target, stack.compiler());
    const runtime::Rejection* rejection = runtime::rejected(p);
    if (rejection && rejection->kind == runtime::Rejection::Kind::rule) {
      throw UsageError(fmt::format("config {} is invalid for {} on {}: {}", attention::format(config),
                                   problem.to_string(), target.name(), rejection->reason));
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
               "  stack      {} B\n  shared     {} B dynamic\n  cache      {}\n  verdict    {}\n",
               attention::format(config), kernel.kernel_name, target.name(), u.registers, u.spill_store_bytes,
               u.spill_load_bytes, u.stack_frame_bytes, attention::shared_bytes(config, problem),
               kernel.compiled_now ? fmt::format("miss ({:.2f} s)", kernel.compile_seconds)
                                   : fmt::format("hit (built in {:.2f} s)", kernel.compile_seconds),
               rejection ? rejection->reason : std::string("accepted"));
  });
}

}  // namespace evotune::cli
