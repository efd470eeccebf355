// evotune bench for attention: the generic bench (harness/bench.h) and more: the split-KV plan, the
// clock64 view (cycles per CTA from an instrumented build), bounded waits (--check), the combine's launch,
// the unfused cuBLAS baseline with its check, the device's peaks and the fraction of them reached.
#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>

#include "evidence/json_text.h"
#include "families/attention/host/family.h"
#include "families/attention/host/attention_kernel.h"
#include "families/attention/host/attention_workspace.h"
#include "harness/bench.h"
#include "families/attention/host/cublas_baseline.h"
#include "families/attention/host/library_baseline.h"
#include "harness/timer.h"
#include "runtime/device_properties.h"
#include "core/errors.h"
#include "families/attention/host/attention_family.h"

namespace evotune::families {
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

}  // namespace

void attention_bench(const harness::Family& family, const harness::BenchRequest& opt, runtime::Compiler& compiler) {
  // Everything the user typed is checked before any GPU is touched.
  attention::Problem problem = attention_problem(opt.problem);
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
  const harness::BuildFlags build{.cta_clock = false, .bounded_waits = opt.check};
  if (opt.check && !opt.json) {
    fmt::print(stderr, "bench: --check: barrier waits are bounded (one that nothing completes in 4 s traps and "
                       "prints where), so the times are of the check build\n");
  }
  // The bench runs only what a search would run: a config the prepare stage rejects is an error.
  const runtime::PreparedKernel prepared = harness::prepare_or_throw(
      family, config, opt.problem, props, target, compiler, build);
  harness::AttentionKernel kernel(prepared, config, problem, DeviceLimits::from(props));
  kernel.set_programmatic_combine(opt.combine_launch == "pdl");
  const runtime::LaunchGeometry& geometry = kernel.geometry();

  runtime::Stream stream;
  if (!opt.json) fmt::print(stderr, "bench: preparing inputs and the fp32 reference for {}\n", problem.to_string());
  harness::AttentionWorkspace workspace(problem, compiler, target, opt.seed, stream);
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
        attention::prepare(config, problem, DeviceLimits::from(props), target, compiler,
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
  if (opt.baseline && opt.library_baseline) {
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
    if (opt.baseline && opt.library_baseline) {
      out["library_baselines"] = nlohmann::json::array();
      for (const evidence::BaselineRecord& b : library.records) out["library_baselines"].push_back(harness::baseline_json(b));
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
    } else if (kernel_time && opt.baseline && opt.library_baseline) {
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


}  // namespace evotune::families
