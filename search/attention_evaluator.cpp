#include "search/attention_evaluator.h"

#include <fmt/format.h>

#include <chrono>

#include <nlohmann/json.hpp>

#include "harness/attention_kernel.h"
#include "harness/cublas_baseline.h"

namespace evotune::search {

AttentionEvaluator::AttentionEvaluator(const attention::Problem& problem, int device,
                                       const runtime::CubinCache& kernels, runtime::Compiler& utilities,
                                       int repetitions)
    : problem_(problem),
      props_(runtime::query_device(device)),
      // Blocking waits: this process waits on the GPU for most of a search, and a spinning wait would take
      // a core from the compile processes that feed it.
      context_(device, runtime::DeviceContext::Wait::blocking),
      target_(runtime::Target::parse(props_.native_target())),
      kernels_(kernels),
      workspace_(problem, utilities, target_, 1, stream_),
      timer_(static_cast<std::size_t>(props_.l2_bytes) * 2) {
  timing_.repetitions = repetitions;
}

namespace {
double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}
}  // namespace

evidence::TrialRecord AttentionEvaluator::evaluate(const Config& config, const std::string& cache_key,
                                                   const std::string& kernel_name) {
  evidence::TrialRecord t;
  ++phases_.trials;
  last_batch_ = 0;
  const auto load_start = std::chrono::steady_clock::now();
  const std::optional<runtime::CompileResult> cached = kernels_.load(cache_key);
  if (!cached) {
    // The prepare stage wrote it moments ago; only a cache cleared (or damaged) in between gets here.
    t.status = "launch_error";
    t.error = fmt::format("the prepared kernel {} is not in the cubin cache {} (cleared during the search?)",
                          cache_key, kernels_.dir().string());
    return t;
  }
  try {
    harness::AttentionKernel kernel(cached->cubin, kernel_name, config, problem_, DeviceLimits::from(props_));
    phases_.load_seconds += seconds_since(load_start);
    const AttentionParams params = workspace_.params(true);
    auto launch = [&](const runtime::Stream& s) { kernel.launch(params, s); };
    const auto check_start = std::chrono::steady_clock::now();
    workspace_.poison_outputs(stream_);
    launch(stream_);
    harness::AttentionCheck check = workspace_.check(stream_, true);
    phases_.check_seconds += seconds_since(check_start);
    t.max_abs_error = check.max_abs_error;
    t.rel_l2_error = check.rel_l2_error;
    if (!check.passed) {
      t.status = "wrong_result";
      t.error = check.reason;
      return t;
    }
    harness::TimingOptions timing_options = timing_;
    if (best_us_ && *best_us_ >= kRaceMinimumUs) timing_options.race_above_us = kRaceFactor * *best_us_;
    const auto timing_start = std::chrono::steady_clock::now();
    harness::TimingSummary timing = timer_.time(launch, stream_, timing_options);
    phases_.timing_seconds += seconds_since(timing_start);
    ++(timing.raced ? phases_.raced : phases_.timed);
    last_batch_ = timing.raced ? 0 : timing.batch;
    t.status = "ok";
    t.median_us = timing.median_us;
    t.min_us = timing.min_us;
    t.p10_us = timing.p10_us;
    t.p90_us = timing.p90_us;
    t.tflops = problem_.flops() / (timing.median_us * 1e-6) / 1e12;
    t.gbps = problem_.bytes() / (timing.median_us * 1e-6) / 1e9;
    t.samples_us = timing.samples_us;
  } catch (const runtime::CudaError& e) {
    t.status = "launch_error";
    t.error = e.what();
    needs_restart_ = true;  // the context may be poisoned: start over in a fresh process
  }
  return t;
}

AttentionEvaluator::Retimed AttentionEvaluator::retime(const std::vector<Kernel>& kernels, int rounds, int reps) {
  std::vector<std::optional<harness::AttentionKernel>> loaded(kernels.size());
  const AttentionParams params = workspace_.params(true);
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    const std::optional<runtime::CompileResult> cached = kernels_.load(kernels[i].cache_key);
    if (!cached) continue;
    loaded[i].emplace(cached->cubin, kernels[i].kernel_name, kernels[i].config, problem_,
                      DeviceLimits::from(props_));
    workspace_.poison_outputs(stream_);
    loaded[i]->launch(params, stream_);
    if (!workspace_.check(stream_, true).passed) loaded[i].reset();
  }
  harness::TimingOptions options = timing_;
  options.repetitions = reps;
  options.warmup = 2;
  Retimed out;
  out.medians_us.resize(kernels.size());
  for (int round = 0; round < rounds; ++round) {
    for (std::size_t i = 0; i < kernels.size(); ++i) {
      if (!loaded[i]) continue;
      const harness::AttentionKernel& k = *loaded[i];
      const harness::TimingSummary t = timer_.time([&](const runtime::Stream& s) { k.launch(params, s); }, stream_, options);
      options.batch = t.batch;  // the first timed kernel's batch, from then on for all
      out.medians_us[i].push_back(t.median_us);
    }
  }
  out.batch = options.batch == 0 ? 1 : options.batch;
  return out;
}

std::vector<evidence::BaselineRecord> AttentionEvaluator::measure_baselines(int batch) {
  harness::CublasHandle cublas;
  std::vector<evidence::BaselineRecord> out;
  {
    harness::UnfusedCublasAttention unfused(workspace_, cublas);
    workspace_.poison_outputs(stream_);
    unfused.run(stream_);
    const harness::AttentionCheck check = workspace_.check(stream_, false);
    harness::TimingOptions options = timing_;
    options.batch = batch;
    const harness::TimingSummary timing = timer_.time([&](const runtime::Stream& s) { unfused.run(s); }, stream_, options);
    evidence::BaselineRecord b;
    b.name = "cublas_unfused";
    b.median_us = timing.median_us;
    b.p10_us = timing.p10_us;
    b.p90_us = timing.p90_us;
    b.tflops = problem_.flops() / (timing.median_us * 1e-6) / 1e12;
    b.gbps = problem_.bytes() / (timing.median_us * 1e-6) / 1e9;
    b.max_abs_error = check.max_abs_error;
    b.detail_json = nlohmann::json{{"check", check.passed ? "pass" : "fail"}, {"reason", check.reason},
                                   {"samples", timing.samples_us.size()},
                                   {"calls_per_sample", timing.batch},
                                   {"what", "Q.K^T and P.V with cuBLAS strided-batched GEMM, softmax kernel between"}}
                        .dump();
    out.push_back(std::move(b));
  }  // the unfused pipeline's score and probability buffers are freed before the peak measurement
  const harness::DevicePeaks peaks = harness::measure_peaks(workspace_, cublas, timer_, stream_);
  evidence::BaselineRecord gemm;
  gemm.name = "peak_gemm";
  gemm.tflops = peaks.gemm_tflops;
  gemm.detail_json = nlohmann::json{{"what", fmt::format("cuBLAS 8192^3 GEMM, {} in and out, fp32 accumulate",
                                                         problem_.dtype_name())}}
                         .dump();
  out.push_back(std::move(gemm));
  evidence::BaselineRecord copy;
  copy.name = "peak_copy";
  copy.gbps = peaks.copy_gbps;
  copy.detail_json = nlohmann::json{{"what", "1 GiB device-to-device copy, bytes read + written"}}.dump();
  out.push_back(std::move(copy));
  return out;
}

}  // namespace evotune::search
