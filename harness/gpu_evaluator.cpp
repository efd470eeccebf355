#include "harness/gpu_evaluator.h"

#include <fmt/format.h>

#include <chrono>

namespace evotune::harness {

GpuEvaluator::GpuEvaluator(const Family& family, const FamilyProblem& problem, int device,
                           const runtime::CubinCache& kernels, runtime::Compiler& utilities, int repetitions)
    : family_(family),
      problem_(problem),
      props_(runtime::query_device(device)),
      // Blocking waits: this process waits on the GPU for most of a search, and a spinning wait would take
      // a core from the compile processes that feed it.
      context_(device, runtime::DeviceContext::Wait::blocking),
      target_(runtime::Target::parse(props_.native_target())),
      kernels_(kernels),
      bench_(family.make_bench(problem, BenchContext{props_, DeviceLimits::from(props_), target_, utilities, stream_, 1})),
      timer_(static_cast<std::size_t>(props_.l2_bytes) * 2) {
  timing_.repetitions = repetitions;
}

namespace {
double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}
}  // namespace

evidence::TrialRecord GpuEvaluator::evaluate(const Config& config, const std::string& cache_key,
                                             const std::string& kernel_name) {
  evidence::TrialRecord t;
  ++phases_.trials;
  last_batch_ = 0;
  const auto load_start = std::chrono::steady_clock::now();
  const std::optional<runtime::CompileResult> cached = kernels_.load(cache_key);
  if (!cached) {
    // The prepare stage wrote it moments ago; only a cache cleared (or damaged) in between gets here.
    t.status = core::TrialStatus::launch_error;
    t.error = fmt::format("the prepared kernel {} is not in the cubin cache {} (cleared during the search?)",
                          cache_key, kernels_.dir().string());
    return t;
  }
  try {
    const std::unique_ptr<LoadedKernel> kernel = bench_->load(cached->cubin, kernel_name, config);
    phases_.load_seconds += seconds_since(load_start);
    auto launch = [&](const runtime::Stream& s) { kernel->launch(s); };
    const auto check_start = std::chrono::steady_clock::now();
    bench_->poison_outputs(stream_);
    launch(stream_);
    const CheckResult check = bench_->check(stream_);
    phases_.check_seconds += seconds_since(check_start);
    t.max_abs_error = check.max_abs_error;
    t.rel_l2_error = check.rel_l2_error;
    if (!check.passed) {
      t.status = core::TrialStatus::wrong_result;
      t.error = check.reason;
      return t;
    }
    TimingOptions timing_options = timing_;
    if (best_us_ && *best_us_ >= kRaceMinimumUs) timing_options.race_above_us = kRaceFactor * *best_us_;
    const auto timing_start = std::chrono::steady_clock::now();
    TimingSummary timing = timer_.time(launch, stream_, timing_options);
    phases_.timing_seconds += seconds_since(timing_start);
    ++(timing.raced ? phases_.raced : phases_.timed);
    last_batch_ = timing.raced ? 0 : timing.batch;
    t.status = core::TrialStatus::ok;
    t.median_us = timing.median_us;
    t.min_us = timing.min_us;
    t.p10_us = timing.p10_us;
    t.p90_us = timing.p90_us;
    const double flops = family_.flops(problem_), bytes = family_.bytes(problem_);
    if (flops > 0) t.tflops = flops / (timing.median_us * 1e-6) / 1e12;
    if (bytes > 0) t.gbps = bytes / (timing.median_us * 1e-6) / 1e9;
    t.samples_us = timing.samples_us;
  } catch (const runtime::CudaError& e) {
    t.status = core::TrialStatus::launch_error;
    t.error = e.what();
    needs_restart_ = true;  // the context may be poisoned: start over in a fresh process
  }
  return t;
}

GpuEvaluator::Retimed GpuEvaluator::retime(const std::vector<Kernel>& kernels, int rounds, int reps) {
  std::vector<std::unique_ptr<LoadedKernel>> loaded(kernels.size());
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    const std::optional<runtime::CompileResult> cached = kernels_.load(kernels[i].cache_key);
    if (!cached) continue;
    loaded[i] = bench_->load(cached->cubin, kernels[i].kernel_name, kernels[i].config);
    bench_->poison_outputs(stream_);
    loaded[i]->launch(stream_);
    if (!bench_->check(stream_).passed) loaded[i].reset();
  }
  TimingOptions options = timing_;
  options.repetitions = reps;
  options.warmup = 2;
  Retimed out;
  out.medians_us.resize(kernels.size());
  for (int round = 0; round < rounds; ++round) {
    for (std::size_t i = 0; i < kernels.size(); ++i) {
      if (!loaded[i]) continue;
      const LoadedKernel& k = *loaded[i];
      const TimingSummary t = timer_.time([&](const runtime::Stream& s) { k.launch(s); }, stream_, options);
      options.batch = t.batch;  // the first timed kernel's batch, from then on for all
      out.medians_us[i].push_back(t.median_us);
    }
  }
  out.batch = options.batch == 0 ? 1 : options.batch;
  return out;
}

std::vector<evidence::BaselineRecord> GpuEvaluator::measure_baselines(int batch) {
  TimingOptions options = timing_;
  options.batch = batch;
  return bench_->baselines(timer_, stream_, options);
}

}  // namespace evotune::harness
