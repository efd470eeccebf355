#include "families/attention/host/attention_workspace.h"

#include <fmt/format.h>

#include <cmath>

#include "runtime/float16.h"
#include "families/attention/host/attention_family.h"
#include "runtime/embedded_sources.h"

namespace evotune::harness {

runtime::CompileRequest utility_request(const attention::Problem& p, const runtime::Target& target) {
  runtime::CompileRequest r;
  r.source_name = "attention_utilities.cu";
  r.source = "#include \"common/random_fill.cuh\"\n#include \"common/compare.cuh\"\n#include \"attention/reference.cuh\"\n";
  r.headers = templates::embedded_headers("attention/");
  for (auto& h : templates::embedded_headers("common/")) r.headers.push_back(h);
  const char* causal = p.causal ? "true" : "false";
  r.name_expressions = {
      fmt::format("fill_normal<{}>", p.cuda_type()),
      fmt::format("attention_reference<{}, {}, {}, false>", p.cuda_type(), p.d, causal),
      fmt::format("attention_reference<{}, {}, {}, true>", p.cuda_type(), p.d, causal),
      fmt::format("baseline_softmax<{}, {}>", p.cuda_type(), causal),
      fmt::format("compare_partials<{}>", p.cuda_type()),
      "compare_partials<float>",
      "compare_finish",
  };
  r.target = target;
  r.label = "attention utilities for " + p.to_string();
  return r;
}

namespace {

// Mantissa bits of the element type: the absolute floor of the tolerance is a quarter ulp at the
// output's largest magnitude.
int mantissa_bits(attention::DType t) { return t == attention::DType::fp16 ? 10 : 7; }

constexpr double kLseTolerance = 2e-3;

// Blocks of the comparison's first stage: enough to fill any GPU, few enough that stage 2 is one block.
constexpr int kCompareBlocks = 1024;
constexpr int kCompareSlots = 2;  // O and LSE, compared back to back and read back together

double relative_l2(const CompareFigures& f) {
  return f.sum_sq_ref > 0 ? std::sqrt(f.sum_sq_diff / f.sum_sq_ref) : std::sqrt(f.sum_sq_diff);
}

}  // namespace

void judge(AttentionCheck& c, attention::DType dtype, double reference_max_abs, bool check_lse) {
  const double floor = std::ldexp(1.0, -(mantissa_bits(dtype) + 2)) * std::max(reference_max_abs, 1e-3);
  c.tolerance = 2.0 * c.same_precision_error + floor;
  c.reason.clear();
  if (c.nan_count > 0) {
    c.reason = fmt::format("{} outputs are NaN or inf (unwritten or overflowed)", c.nan_count);
  } else if (c.max_abs_error > c.tolerance) {
    c.reason = fmt::format("max abs error {:.3g} exceeds {:.3g} (2 x same-precision error {:.3g} + floor {:.3g})",
                           c.max_abs_error, c.tolerance, c.same_precision_error, floor);
  } else if (check_lse && c.lse_max_error > kLseTolerance) {
    c.reason = fmt::format("LSE max error {:.3g} exceeds {:.3g}", c.lse_max_error, kLseTolerance);
  }
  c.passed = c.reason.empty();
}

AttentionUtilityKernels::AttentionUtilityKernels(const attention::Problem& problem, runtime::Compiler& compiler,
                                                 const runtime::Target& target) {
  runtime::CompileRequest request = utility_request(problem, target);
  runtime::CompileResult result = compiler.compile(request);
  module_.emplace(result.cubin, request.label);
  for (const std::string& expression : request.name_expressions) lowered_.push_back(result.lowered(expression));
}

AttentionWorkspace::AttentionWorkspace(const attention::Problem& problem, runtime::Compiler& compiler,
                                       const runtime::Target& target, std::uint64_t seed, const runtime::Stream& stream)
    : problem_(problem),
      kernels_(problem, compiler, target),
      q_(static_cast<std::size_t>(problem.q_elements()) * 2, "Q"),
      k_(static_cast<std::size_t>(problem.kv_elements()) * 2, "K"),
      v_(static_cast<std::size_t>(problem.kv_elements()) * 2, "V"),
      o_(static_cast<std::size_t>(problem.q_elements()) * 2, "O"),
      lse_(static_cast<std::size_t>(problem.rows()) * 4, "LSE"),
      ref_out_(static_cast<std::size_t>(problem.q_elements()) * 4, "reference output"),
      ref_lse_(static_cast<std::size_t>(problem.rows()) * 4, "reference LSE"),
      compare_partials_(kCompareBlocks * sizeof(CompareFigures), "comparison partials"),
      compare_results_(kCompareSlots * sizeof(CompareFigures), "comparison results") {
  reseed(seed, stream);
}

AttentionParams AttentionWorkspace::params(bool with_lse, CUdeviceptr cta_cycles) const {
  AttentionParams p{};
  p.q = reinterpret_cast<const void*>(q_.get());
  p.k = reinterpret_cast<const void*>(k_.get());
  p.v = reinterpret_cast<const void*>(v_.get());
  p.o = reinterpret_cast<void*>(o_.get());
  p.lse = with_lse ? reinterpret_cast<float*>(lse_.get()) : nullptr;
  p.cta_cycles = reinterpret_cast<unsigned long long*>(cta_cycles);
  p.b = problem_.b;
  p.hq = problem_.hq;
  p.hkv = problem_.hkv;
  p.sq = problem_.sq;
  p.skv = problem_.skv;
  attention::set_dense_strides(p, problem_.d);  // the workspace's buffers are dense BHSD
  p.softmax_scale = problem_.softmax_scale();
  return p;
}

void AttentionWorkspace::reseed(std::uint64_t seed, const runtime::Stream& stream) {
  runtime::Kernel fill = kernels_.fill();
  auto fill_buffer = [&](const runtime::DeviceBuffer& buffer, std::uint64_t stream_seed) {
    CUdeviceptr ptr = buffer.get();
    long long n = static_cast<long long>(buffer.bytes() / 2);
    void* args[] = {&ptr, &n, &stream_seed};
    runtime::LaunchGeometry g;
    g.grid[0] = 1024;
    g.block[0] = 256;
    runtime::launch(fill, g, stream, args);
  };
  // Three distinct streams: Q, K and V are never equal.
  fill_buffer(q_, seed * 3 + 1);
  fill_buffer(k_, seed * 3 + 2);
  fill_buffer(v_, seed * 3 + 3);
  refresh_references(stream);
}

void AttentionWorkspace::refresh_references(const runtime::Stream& stream) {
  run_reference(false, ref_out_, stream);
  // The same-precision implementation's error against the reference sets the tolerance; both are
  // compared where they are, on the device.
  runtime::DeviceBuffer same_precision(static_cast<std::size_t>(problem_.q_elements()) * 4, "same-precision output");
  run_reference(true, same_precision, stream);
  compare(same_precision, true, ref_out_, problem_.q_elements(), 0, stream);
  const CompareFigures figures = download_figures(stream).at(0);
  same_precision_error_ = figures.max_abs_diff;
  ref_max_abs_ = figures.max_abs_ref;
}

void AttentionWorkspace::run_reference(bool round_like_inputs, const runtime::DeviceBuffer& out,
                                       const runtime::Stream& stream) const {
  runtime::Kernel kernel = kernels_.reference(round_like_inputs);
  AttentionParams p = params(false);
  CUdeviceptr out_ptr = out.get();
  CUdeviceptr lse_ptr = round_like_inputs ? 0 : ref_lse_.get();
  void* args[] = {&p, &out_ptr, &lse_ptr};
  runtime::LaunchGeometry g;
  g.grid[0] = static_cast<unsigned>((problem_.sq + 15) / 16);
  g.grid[1] = static_cast<unsigned>(problem_.hq);
  g.grid[2] = static_cast<unsigned>(problem_.b);
  g.block[0] = 128;
  runtime::launch(kernel, g, stream, args);
}

void AttentionWorkspace::poison_outputs(const runtime::Stream& stream) {
  o_.fill_bytes(0xFF, stream);
  lse_.fill_bytes(0xFF, stream);
}

std::vector<float> AttentionWorkspace::to_floats(const std::vector<std::uint16_t>& bits) const {
  std::vector<float> out(bits.size());
  const bool fp16 = problem_.dtype == attention::DType::fp16;
  for (std::size_t i = 0; i < bits.size(); ++i) {
    out[i] = fp16 ? runtime::half_bits_to_float(bits[i]) : runtime::bf16_bits_to_float(bits[i]);
  }
  return out;
}

std::vector<float> AttentionWorkspace::download_input(char which) const {
  const runtime::DeviceBuffer& buffer = which == 'q' ? q_ : which == 'k' ? k_ : v_;
  return to_floats(buffer.download_as<std::uint16_t>(buffer.bytes() / 2));
}

std::vector<float> AttentionWorkspace::download_output() const {
  return to_floats(o_.download_as<std::uint16_t>(o_.bytes() / 2));
}

void AttentionWorkspace::compare(const runtime::DeviceBuffer& out, bool fp32_output,
                                 const runtime::DeviceBuffer& reference, std::int64_t n, int slot,
                                 const runtime::Stream& stream) const {
  CUdeviceptr out_ptr = out.get(), ref_ptr = reference.get(), partials = compare_partials_.get();
  CUdeviceptr result = compare_results_.get() + static_cast<CUdeviceptr>(slot) * sizeof(CompareFigures);
  long long count = n;
  int blocks = kCompareBlocks;
  runtime::LaunchGeometry g;
  g.grid[0] = kCompareBlocks;
  g.block[0] = 256;
  void* stage1[] = {&out_ptr, &ref_ptr, &count, &partials};
  runtime::launch(kernels_.compare_partials(fp32_output), g, stream, stage1);
  g.grid[0] = 1;
  void* stage2[] = {&partials, &blocks, &result};
  runtime::launch(kernels_.compare_finish(), g, stream, stage2);
}

std::vector<CompareFigures> AttentionWorkspace::download_figures(const runtime::Stream& stream) const {
  stream.synchronize();
  return compare_results_.download_as<CompareFigures>(kCompareSlots);
}

AttentionCheck AttentionWorkspace::check(const runtime::Stream& stream, bool check_lse) const {
  compare(o_, false, ref_out_, problem_.q_elements(), 0, stream);
  if (check_lse) compare(lse_, true, ref_lse_, problem_.rows(), 1, stream);
  const std::vector<CompareFigures> figures = download_figures(stream);
  AttentionCheck c;
  c.same_precision_error = same_precision_error_;
  c.max_abs_error = figures[0].max_abs_diff;
  c.rel_l2_error = relative_l2(figures[0]);
  c.nan_count = static_cast<std::int64_t>(figures[0].non_finite);
  if (check_lse) {
    c.lse_max_error = figures[1].max_abs_diff;
    c.nan_count += static_cast<std::int64_t>(figures[1].non_finite);
  }
  judge(c, problem_.dtype, ref_max_abs_, check_lse);
  return c;
}

AttentionCheck AttentionWorkspace::check_on_host(const runtime::Stream& stream, bool check_lse) const {
  stream.synchronize();
  AttentionCheck c;
  c.same_precision_error = same_precision_error_;
  const std::vector<float> out = download_output();
  const std::vector<float> ref = reference_out();
  CompareFigures f{};
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (!std::isfinite(out[i])) {
      ++c.nan_count;
      continue;
    }
    const double diff = double(out[i]) - ref[i];
    c.max_abs_error = std::max(c.max_abs_error, std::abs(diff));
    f.sum_sq_diff += diff * diff;
    f.sum_sq_ref += double(ref[i]) * ref[i];
  }
  c.rel_l2_error = relative_l2(f);
  if (check_lse) {
    const std::vector<float> lse = download_lse();
    const std::vector<float> ref_lse = reference_lse();
    for (std::size_t i = 0; i < lse.size(); ++i) {
      if (!std::isfinite(lse[i])) {
        ++c.nan_count;
        continue;
      }
      c.lse_max_error = std::max(c.lse_max_error, std::abs(double(lse[i]) - ref_lse[i]));
    }
  }
  judge(c, problem_.dtype, ref_max_abs_, check_lse);
  return c;
}

std::vector<float> AttentionWorkspace::reference_out() const {
  return ref_out_.download_as<float>(static_cast<std::size_t>(problem_.q_elements()));
}

std::vector<float> AttentionWorkspace::reference_lse() const {
  return ref_lse_.download_as<float>(static_cast<std::size_t>(problem_.rows()));
}

std::vector<float> AttentionWorkspace::download_lse() const {
  return lse_.download_as<float>(static_cast<std::size_t>(problem_.rows()));
}

}  // namespace evotune::harness
