#include "families/attention/host/family.h"

#include <fmt/format.h>

#include <cmath>

#include "families/attention/host/export_header.h"
#include "families/attention/host/attention_kernel.h"
#include "families/attention/host/attention_verification.h"
#include "families/attention/host/attention_workspace.h"
#include "families/attention/host/cublas_baseline.h"
#include "families/attention/host/library_baseline.h"
#include "runtime/device_properties.h"
#include "core/errors.h"
#include "families/attention/host/attention_family.h"

namespace evotune::families {

attention::Problem attention_problem(const harness::FamilyProblem& problem) {
  return attention::Problem::parse(problem.text);
}

harness::FamilyProblem family_problem(const attention::Problem& p) {
  harness::FamilyProblem out;
  out.text = p.to_string();
  out.sizes = {{"b", p.b},   {"hq", p.hq}, {"hkv", p.hkv},           {"sq", p.sq},
               {"skv", p.skv}, {"d", p.d},   {"causal", p.causal ? 1 : 0}, {"dtype", p.dtype == attention::DType::bf16}};
  return out;
}

namespace {

class AttentionLoaded final : public harness::LoadedKernel {
 public:
  AttentionLoaded(const std::vector<char>& cubin, const std::string& kernel_name, const Config& config,
                  const attention::Problem& problem, const DeviceLimits& limits, AttentionParams params)
      : kernel_(cubin, kernel_name, config, problem, limits), params_(params) {}
  void launch(const runtime::Stream& stream) const override { kernel_.launch(params_, stream); }
  nlohmann::json describe() const override {
    const attention::LaunchPlan& plan = kernel_.plan();
    return {{"splits", plan.splits}, {"combine_kernel", plan.combine.has_value()},
            {"workspace_bytes", plan.workspace_bytes}};
  }

 private:
  harness::AttentionKernel kernel_;
  AttentionParams params_;
};

// Seeded Q, K, V; O and LSE poisoned before every check; the fp32 reference on the GPU and the
// same-precision emulation that sets the tolerance (families/attention/host/attention_workspace.h).
class AttentionBench final : public harness::Bench {
 public:
  AttentionBench(const attention::Problem& problem, const harness::BenchContext& context)
      : problem_(problem),
        limits_(context.limits),
        props_(context.props),
        workspace_(problem, context.utilities, context.target, context.seed, context.stream) {}

  void poison_outputs(const runtime::Stream& stream) override { workspace_.poison_outputs(stream); }

  harness::CheckResult check(const runtime::Stream& stream) override {
    return to_result(workspace_.check(stream, true));
  }

  std::unique_ptr<harness::LoadedKernel> load(const std::vector<char>& cubin, const std::string& kernel_name,
                                              const Config& config) override {
    return std::make_unique<AttentionLoaded>(cubin, kernel_name, config, problem_, limits_, workspace_.params(true));
  }

  // The unfused cuBLAS attention (checked and timed like a trial) and the device's peaks (GEMM in the
  // problem's dtype, device copy).
  std::vector<evidence::BaselineRecord> baselines(harness::Timer& timer, const runtime::Stream& stream,
                                                  const harness::TimingOptions& timing) override {
    harness::CublasHandle cublas;
    std::vector<evidence::BaselineRecord> out;
    {
      harness::UnfusedCublasAttention unfused(workspace_, cublas);
      workspace_.poison_outputs(stream);
      unfused.run(stream);
      const harness::AttentionCheck check = workspace_.check(stream, false);
      const harness::TimingSummary t = timer.time([&](const runtime::Stream& s) { unfused.run(s); }, stream, timing);
      evidence::BaselineRecord b;
      b.name = "cublas_unfused";
      b.median_us = t.median_us;
      b.p10_us = t.p10_us;
      b.p90_us = t.p90_us;
      b.tflops = problem_.flops() / (t.median_us * 1e-6) / 1e12;
      b.gbps = problem_.bytes() / (t.median_us * 1e-6) / 1e9;
      b.max_abs_error = check.max_abs_error;
      b.detail_json = nlohmann::json{{"check", check.passed ? "pass" : "fail"}, {"reason", check.reason},
                                     {"samples", t.samples_us.size()},
                                     {"calls_per_sample", t.batch},
                                     {"what", "Q.K^T and P.V with cuBLAS strided-batched GEMM, softmax kernel between"},
                                     {"role", "reference"},
                                     {"label", "cuBLAS unfused"}}
                          .dump();
      out.push_back(std::move(b));
    }  // the unfused pipeline's score and probability buffers are freed before the peak measurement
    const harness::DevicePeaks peaks = harness::measure_peaks(workspace_, cublas, timer, stream);
    evidence::BaselineRecord gemm;
    gemm.name = "peak_gemm";
    gemm.tflops = peaks.gemm_tflops;
    gemm.detail_json = nlohmann::json{{"what", fmt::format("cuBLAS 8192^3 GEMM, {} in and out, fp32 accumulate",
                                                           problem_.dtype_name())},
                                      {"role", "peak_compute"}}
                           .dump();
    out.push_back(std::move(gemm));
    evidence::BaselineRecord copy;
    copy.name = "peak_copy";
    copy.gbps = peaks.copy_gbps;
    copy.detail_json =
        nlohmann::json{{"what", "1 GiB device-to-device copy, bytes read + written"}, {"role", "peak_bandwidth"}}.dump();
    out.push_back(std::move(copy));
    return out;
  }

  harness::AttentionWorkspace& workspace() { return workspace_; }

 private:
  static harness::CheckResult to_result(const harness::AttentionCheck& c) {
    harness::CheckResult r;
    r.passed = c.passed;
    r.max_abs_error = c.max_abs_error;
    r.rel_l2_error = c.rel_l2_error;
    r.tolerance = c.tolerance;
    r.reason = c.reason;
    r.detail = {{"same_precision_error", c.same_precision_error},
                {"lse_max_error", c.lse_max_error},
                {"nan_count", c.nan_count}};
    return r;
  }

  attention::Problem problem_;
  DeviceLimits limits_;
  const runtime::DeviceProperties& props_;
  harness::AttentionWorkspace workspace_;
};

class AttentionFamily final : public harness::Family {
 public:
  std::string id() const override { return "attention"; }
  std::string description() const override {
    return "attention forward (FlashAttention-style; wgmma, mma.sync and scalar mainloops), b,hq,hkv,sq,skv,d,causal,dtype";
  }
  std::string problem_help() const override {
    return "attention problem, e.g. b=4,hq=16,sq=4096,d=128,causal=1,dtype=fp16 (hkv defaults to hq, skv to sq)";
  }
  harness::FamilyProblem parse_problem(std::string_view text) const override {
    return family_problem(attention::Problem::parse(text));
  }
  // The main problem of the README and the evidence: what a search of --family attention without --problem runs.
  std::vector<harness::FamilyProblem> listed_problems() const override {
    return {family_problem(attention::Problem::parse("b=4,hq=16,sq=4096,d=128,causal=1,dtype=fp16"))};
  }
  nlohmann::json problem_json(const harness::FamilyProblem& p) const override {
    return attention::to_json(attention_problem(p));
  }
  // Log2 ratios of b*hq, sq and skv, and a penalty per field that changes the kernel's shape: another head
  // dim changes every tile's register and shared-memory footprint.
  double distance(const harness::FamilyProblem& x, const harness::FamilyProblem& y) const override {
    const attention::Problem a = attention_problem(x), b = attention_problem(y);
    auto log_ratio = [](double u, double v) { return std::abs(std::log2(u / v)); };
    double d = log_ratio(double(a.b) * a.hq, double(b.b) * b.hq) + log_ratio(a.sq, b.sq) + log_ratio(a.skv, b.skv);
    if (a.d != b.d) d += 8;
    if (a.dtype != b.dtype) d += 2;
    if (a.causal != b.causal) d += 2;
    if (a.group() != b.group()) d += 1;
    return d;
  }
  double flops(const harness::FamilyProblem& p) const override { return attention_problem(p).flops(); }
  double bytes(const harness::FamilyProblem& p) const override { return attention_problem(p).bytes(); }

  const std::vector<Parameter>& parameters() const override { return attention::parameters(); }
  Config default_config(const harness::FamilyProblem& p, const DeviceLimits& limits) const override {
    return attention::heuristic_config(attention_problem(p), limits);
  }
  std::vector<Config> default_alternatives(const harness::FamilyProblem& p, const DeviceLimits& limits) const override {
    return attention::heuristic_alternatives(attention_problem(p), limits);
  }
  std::optional<std::string> invalid_reason(const Config& c, const harness::FamilyProblem& p,
                                            const DeviceLimits& limits) const override {
    return attention::invalid_reason(c, attention_problem(p), limits);
  }
  std::optional<std::string> excluded_by_default(const Config& c, const harness::FamilyProblem& p,
                                                 const DeviceLimits& limits) const override {
    return attention::excluded_by_default(c, attention_problem(p), limits);
  }
  Config conform(const Config& c) const override { return attention::conform(c); }
  Config complete_recorded(const Config& c) const override { return attention::complete_recorded(c); }
  // A text without "default" is read over the family's base config, as bench and export always have.
  Config parse_config(std::string_view text, const harness::FamilyProblem& p, const DeviceLimits& limits) const override {
    return attention::parse_config_for(text, attention_problem(p), limits);
  }

  runtime::CompileRequest compile_request(const Config& c, const harness::FamilyProblem& p,
                                          const runtime::Target& target) const override {
    return attention::compile_request(c, attention_problem(p), target);
  }
  runtime::Preparation prepare(const Config& c, const harness::FamilyProblem& p, const DeviceLimits& limits,
                               const runtime::Target& target, runtime::Compiler& compiler,
                               const harness::BuildFlags& build) const override {
    return attention::prepare(c, attention_problem(p), limits, target, compiler,
                              attention::KernelBuild{build.cta_clock, build.bounded_waits});
  }
  std::unique_ptr<harness::Bench> make_bench(const harness::FamilyProblem& p,
                                             const harness::BenchContext& context) const override {
    return std::make_unique<AttentionBench>(attention_problem(p), context);
  }
  LibraryBaselines library_baselines(const harness::FamilyProblem& p, int device, int batch) const override {
    harness::LibraryBaselineOptions options;
    options.device = device;
    options.batch = batch;
    harness::LibraryBaselines sdpa = harness::measure_library_baselines(attention_problem(p), options);
    return {std::move(sdpa.records), std::move(sdpa.unavailable)};
  }
  std::string baselines_description() const override {
    return "unfused cuBLAS attention, GEMM and copy peaks";
  }

  void bench(const harness::BenchRequest& request, runtime::Compiler& compiler) const override {
    attention_bench(*this, request, compiler);
  }

  const std::string& sources_digest() const override { return attention::kernel_sources_digest(); }
  std::vector<harness::FamilyProblem> verification_problems(const harness::FamilyProblem& p) const override {
    std::vector<harness::FamilyProblem> out;
    for (const attention::Problem& v : harness::verification_problems(attention_problem(p))) out.push_back(family_problem(v));
    return out;
  }
  // One CUBIN runs every shape of the winner's head dim, dtype and causality (attention::any_shape_problem).
  runtime::Preparation compile_for_export(const Config& c, const harness::FamilyProblem& p, const DeviceLimits& limits,
                                          const runtime::Target& target, runtime::Compiler& compiler) const override {
    const attention::Problem problem = attention_problem(p);
    return attention::prepare(c, attention::any_shape_problem(problem.d, problem.causal, problem.dtype), limits, target,
                              compiler);
  }
  std::string render_header(const harness::ExportInput& input) const override {
    evidence::TunedHeaderInput header;
    header.command = input.command;
    header.database = input.database;
    header.evotune_version = input.evotune_version;
    for (const Parameter& p : attention::parameters()) {
      header.tunables.emplace_back(p.name, !p.categorical());
      if (p.named_value) header.named_values.emplace(p.name, *p.named_value);
    }
    for (const harness::ExportedWinner& w : input.winners) header.entries.push_back(entry_of(w));
    return evidence::render_tuned_header(header);
  }
  std::string default_header_name() const override { return "tuned_attention.h"; }

 private:
  static evidence::TunedEntry entry_of(const harness::ExportedWinner& w) {
    const attention::Problem problem = attention_problem(w.problem);
    evidence::TunedEntry e;
    e.device = w.device;
    e.sm = w.sm;
    e.b = problem.b;
    e.hq = problem.hq;
    e.hkv = problem.hkv;
    e.sq = problem.sq;
    e.skv = problem.skv;
    e.d = problem.d;
    e.causal = problem.causal;
    e.bf16 = problem.dtype == attention::DType::bf16;
    e.problem_text = problem.to_string();
    e.config_text = attention::format(w.config);
    // The rules the header's lookup checks for other problems, on the limits of the entry's architecture (the
    // C ABI checks them again against the live device's).
    const DeviceLimits limits =
        w.sm != 0 ? DeviceLimits::for_target(runtime::Target::parse(runtime::native_target(w.sm / 10, w.sm % 10))) : DeviceLimits{};
    const attention::ProblemRequirements needs = attention::problem_requirements(w.config, problem.d, limits);
    e.needs = {needs.group_divides, needs.min_group, needs.min_skv, needs.max_skv, needs.max_rows};
    e.run_id = w.run_id;
    e.trial_seq = w.trial_seq;
    e.strategy = w.strategy;
    e.run_created_at = w.run_created_at;
    e.run_trials = w.run_trials;
    e.median_us = w.median_us;
    e.p10_us = w.p10_us;
    e.p90_us = w.p90_us;
    e.tflops = w.tflops;
    e.gbps = w.gbps;
    for (const evidence::BaselineRecord& b : w.baselines) {
      if (b.median_us) e.baselines.push_back({b.name, *b.median_us});
    }
    e.reverified = w.reverified;
    e.verification = w.verification;
    if (!w.cubin.empty()) {
      e.target = w.target;
      e.kernel_name = w.kernel_name;
      e.sources = attention::kernel_sources_digest();
      e.cubin = w.cubin;
      e.threads = attention::threads(w.config);
      e.shared_bytes = attention::shared_bytes(
          w.config, attention::any_shape_problem(problem.d, problem.causal, problem.dtype));
      const attention::LaunchPlan plan = attention::launch_plan(w.config, problem, limits);
      for (std::size_t i = 0; i < 3; ++i) e.grid[i] = static_cast<int>(plan.kernel.grid[i]);
    }
    return e;
  }
};

}  // namespace

std::unique_ptr<harness::Family> make_attention_family() { return std::make_unique<AttentionFamily>(); }

}  // namespace evotune::families
