#include "harness/bench.h"

#include <fmt/format.h>

#include <fstream>

#include "evidence/json_text.h"
#include "runtime/device_properties.h"
#include "core/errors.h"

namespace evotune::harness {

void Family::bench(const BenchRequest& request, runtime::Compiler& compiler) const { run_bench(*this, request, compiler); }

runtime::PreparedKernel prepare_or_throw(const Family& family, const Config& config, const FamilyProblem& problem,
                                         const runtime::DeviceProperties& props, const runtime::Target& target,
                                         runtime::Compiler& compiler, const BuildFlags& build) {
  runtime::Preparation p = family.prepare(config, problem, DeviceLimits::from(props), target, compiler, build);
  if (const runtime::Rejection* r = runtime::rejected(p)) {
    const std::string what =
        fmt::format("config {} on {} ({}): {}", family.format_config(config), props.name, problem.text, r->reason);
    if (r->kind == runtime::Rejection::Kind::rule) throw UsageError("cannot run " + what);
    throw std::runtime_error("rejected " + what);
  }
  return std::get<runtime::PreparedKernel>(std::move(p));
}

nlohmann::json baseline_json(const evidence::BaselineRecord& b) {
  nlohmann::json j = {{"name", b.name}, {"detail", nlohmann::json::parse(b.detail_json, nullptr, false)}};
  if (b.median_us) j["median_us"] = *b.median_us;
  if (b.p10_us) j["p10_us"] = *b.p10_us;
  if (b.p90_us) j["p90_us"] = *b.p90_us;
  if (b.tflops) j["tflops"] = *b.tflops;
  if (b.gbps) j["gbps"] = *b.gbps;
  if (b.max_abs_error) j["max_abs_error"] = *b.max_abs_error;
  return j;
}

void run_bench(const Family& family, const BenchRequest& request, runtime::Compiler& compiler) {
  if (request.timer != "events") {
    throw UsageError(fmt::format("--timer {}: family {} has no instrumented build", request.timer, family.id()));
  }
  if (request.check) throw UsageError(fmt::format("--check: family {} has no bounded-wait build", family.id()));
  if (request.combine_launch != "pdl") throw UsageError(fmt::format("--combine-launch: family {} has no combine", family.id()));
  const FamilyProblem& problem = request.problem;
  // The config's names and values are checked before any GPU is touched.
  (void)family.parse_config(request.config, problem, DeviceLimits{});
  const runtime::DeviceProperties props = runtime::query_device(request.device);
  const DeviceLimits limits = DeviceLimits::from(props);
  const Config config = family.parse_config(request.config, problem, limits);
  runtime::DeviceContext context(request.device);
  const runtime::Target target = runtime::Target::parse(props.native_target());
  const runtime::PreparedKernel prepared = prepare_or_throw(family, config, problem, props, target, compiler);
  runtime::Stream stream;
  if (!request.json) fmt::print(stderr, "bench: preparing inputs and the reference for {}\n", problem.text);
  const std::unique_ptr<Bench> bench =
      family.make_bench(problem, BenchContext{props, limits, target, compiler, stream, request.seed});
  const std::unique_ptr<LoadedKernel> kernel = bench->load(*prepared.cubin, prepared.kernel_name, config);
  bench->poison_outputs(stream);
  kernel->launch(stream);
  const CheckResult check = bench->check(stream);

  Timer timer(static_cast<std::size_t>(props.l2_bytes) * 2, *parse_l2_flush(request.l2_flush));
  TimingOptions timing;
  timing.repetitions = request.repetitions;
  timing.batch = request.batch;
  std::optional<TimingSummary> kernel_time;
  if (check.passed) kernel_time = timer.time([&](const runtime::Stream& s) { kernel->launch(s); }, stream, timing);
  if (kernel_time) timing.batch = kernel_time->batch;  // every baseline is timed the way the kernel was
  std::vector<evidence::BaselineRecord> baselines;
  if (request.baseline) baselines = bench->baselines(timer, stream, timing);
  Family::LibraryBaselines library;
  if (request.baseline && request.library_baseline) {
    if (!request.json) fmt::print(stderr, "bench: timing the library baselines beside it (--library-baseline off skips)\n");
    library = family.library_baselines(problem, request.device, timing.batch);
    if (!library.unavailable.empty()) fmt::print(stderr, "bench: no library baseline: {}\n", library.unavailable);
  }
  const double flops = family.flops(problem), bytes = family.bytes(problem);
  nlohmann::json out = {{"family", family.id()},
                        {"problem", problem.text},
                        {"config", family.format_config(config)},
                        {"config_hash", config.hash()},
                        {"device", props.name},
                        {"target", target.name()},
                        {"resources", runtime::to_json(prepared.resources)},
                        {"check",
                         {{"passed", check.passed},
                          {"max_abs_error", check.max_abs_error},
                          {"rel_l2_error", check.rel_l2_error},
                          {"tolerance", check.tolerance},
                          {"reason", check.reason},
                          {"detail", check.detail}}},
                        {"flops", flops},
                        {"bytes", bytes},
                        {"l2_flush", request.l2_flush},
                        {"launch", kernel->describe()}};
  if (kernel_time) {
    out["kernel"] = {{"median_us", kernel_time->median_us}, {"min_us", kernel_time->min_us},
                     {"p10_us", kernel_time->p10_us},       {"p90_us", kernel_time->p90_us},
                     {"batch", kernel_time->batch},         {"graph", kernel_time->graph},
                     {"samples_us", kernel_time->samples_us}};
    if (flops > 0) out["kernel"]["tflops"] = flops / (kernel_time->median_us * 1e-6) / 1e12;
    if (bytes > 0) out["kernel"]["gbps"] = bytes / (kernel_time->median_us * 1e-6) / 1e9;
  }
  out["baselines"] = nlohmann::json::array();
  for (const evidence::BaselineRecord& b : baselines) out["baselines"].push_back(baseline_json(b));
  for (const evidence::BaselineRecord& b : library.records) out["baselines"].push_back(baseline_json(b));
  if (!library.unavailable.empty()) out["library_unavailable"] = library.unavailable;
  if (request.json) fmt::print("{}\n", evidence::json_text(out));
  if (!request.json_out.empty()) {
    std::ofstream file(request.json_out, std::ios::app);
    file << evidence::json_text(out) << '\n';
    if (!file) throw std::runtime_error("cannot append to " + request.json_out);
  }
  if (!request.json) {
    const runtime::ResourceUsage& u = prepared.resources;
    fmt::print("problem    {}\nconfig     {}{}\ndevice     {} ({}), {} SMs\n", problem.text, family.format_config(config),
               request.config.empty() ? " (the problem-aware default: no --config given)" : "", props.name,
               target.name(), props.sm_count);
    fmt::print("resources  {} registers, {} spilled bytes, {} B static shared memory\n", u.registers,
               u.spill_store_bytes + u.spill_load_bytes, u.shared_bytes);
    fmt::print("check      {}: max abs error {:.3g}, rel L2 {:.3g}{}\n", check.passed ? "PASS" : "FAIL",
               check.max_abs_error, check.rel_l2_error, check.passed ? "" : " -- " + check.reason);
    fmt::print("\n  {:<22} {:>10} {:>10} {:>10} {:>6} {:>9} {:>9}\n", "", "median us", "p10 us", "p90 us", "batch",
               "TFLOP/s", "GB/s");
    auto row = [&](const std::string& name, double median, double p10, double p90, int batch) {
      fmt::print("  {:<22} {:>10.2f} {:>10.2f} {:>10.2f} {:>6} {:>9.1f} {:>9.0f}\n", name, median, p10, p90, batch,
                 flops / (median * 1e-6) / 1e12, bytes / (median * 1e-6) / 1e9);
    };
    if (kernel_time) row("evotune kernel", kernel_time->median_us, kernel_time->p10_us, kernel_time->p90_us, kernel_time->batch);
    std::optional<double> fastest;
    std::string fastest_name;
    for (const auto* records : {&baselines, &library.records}) {
      for (const evidence::BaselineRecord& b : *records) {
        if (!b.median_us) continue;
        row(b.name, *b.median_us, b.p10_us.value_or(0), b.p90_us.value_or(0), timing.batch);
        if (!fastest || *b.median_us < *fastest) fastest = *b.median_us, fastest_name = b.name;
      }
    }
    if (kernel_time && fastest) {
      fmt::print("\n  speedup over the fastest baseline ({}): {:.3f}x\n", fastest_name, *fastest / kernel_time->median_us);
    }
  }
  if (!check.passed) throw std::runtime_error("the kernel's output is wrong: " + check.reason);
}

}  // namespace evotune::harness
