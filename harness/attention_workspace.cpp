#include "harness/attention_workspace.h"

#include <fmt/format.h>

#include <cmath>

#include "runtime/float16.h"
#include "templates/embedded_sources.h"

namespace evotune::harness {
namespace {

runtime::CompileRequest utility_request(const attention::Problem& p, const runtime::Target& target) {
  runtime::CompileRequest r;
  r.source_name = "attention_utilities.cu";
  r.source = "#include \"common/random_fill.cuh\"\n#include \"attention/reference.cuh\"\n";
  r.headers = templates::embedded_headers("attention/");
  for (auto& h : templates::embedded_headers("common/")) r.headers.push_back(h);
  const char* causal = p.causal ? "true" : "false";
  r.name_expressions = {
      fmt::format("fill_normal<{}>", p.cuda_type()),
      fmt::format("attention_reference<{}, {}, {}, false>", p.cuda_type(), p.d, causal),
      fmt::format("attention_reference<{}, {}, {}, true>", p.cuda_type(), p.d, causal),
      fmt::format("baseline_softmax<{}, {}>", p.cuda_type(), causal),
  };
  r.target = target;
  r.label = "attention utilities for " + p.to_string();
  return r;
}

// Mantissa bits of the element type: the absolute floor of the tolerance is a quarter ulp at the
// output's largest magnitude.
int mantissa_bits(attention::DType t) { return t == attention::DType::fp16 ? 10 : 7; }

}  // namespace

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
      lse_(static_cast<std::size_t>(problem.rows()) * 4, "LSE") {
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

  runtime::DeviceBuffer out(static_cast<std::size_t>(problem_.q_elements()) * 4, "reference output");
  run_reference(false, out, stream);
  stream.synchronize();
  ref_out_ = out.download_as<float>(static_cast<std::size_t>(problem_.q_elements()));
  ref_lse_ = lse_.download_as<float>(static_cast<std::size_t>(problem_.rows()));
  run_reference(true, out, stream);
  stream.synchronize();
  std::vector<float> same_precision = out.download_as<float>(static_cast<std::size_t>(problem_.q_elements()));
  same_precision_error_ = 0;
  ref_max_abs_ = 0;
  for (std::size_t i = 0; i < ref_out_.size(); ++i) {
    same_precision_error_ = std::max(same_precision_error_, std::abs(double(same_precision[i]) - ref_out_[i]));
    ref_max_abs_ = std::max(ref_max_abs_, std::abs(double(ref_out_[i])));
  }
}

void AttentionWorkspace::run_reference(bool round_like_inputs, const runtime::DeviceBuffer& out,
                                       const runtime::Stream& stream) const {
  runtime::Kernel kernel = kernels_.reference(round_like_inputs);
  AttentionParams p = params(false);
  CUdeviceptr out_ptr = out.get();
  CUdeviceptr lse_ptr = round_like_inputs ? 0 : lse_.get();
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

AttentionCheck AttentionWorkspace::check(const runtime::Stream& stream, bool check_lse) const {
  stream.synchronize();
  AttentionCheck c;
  c.same_precision_error = same_precision_error_;
  const double floor = std::ldexp(1.0, -(mantissa_bits(problem_.dtype) + 2)) * std::max(ref_max_abs_, 1e-3);
  c.tolerance = 2.0 * same_precision_error_ + floor;
  std::vector<float> out = download_output();
  double diff_sq = 0, ref_sq = 0;
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (!std::isfinite(out[i])) {
      ++c.nan_count;
      continue;
    }
    const double diff = double(out[i]) - ref_out_[i];
    c.max_abs_error = std::max(c.max_abs_error, std::abs(diff));
    diff_sq += diff * diff;
    ref_sq += double(ref_out_[i]) * ref_out_[i];
  }
  c.rel_l2_error = ref_sq > 0 ? std::sqrt(diff_sq / ref_sq) : std::sqrt(diff_sq);
  if (check_lse) {
    std::vector<float> lse = lse_.download_as<float>(static_cast<std::size_t>(problem_.rows()));
    for (std::size_t i = 0; i < lse.size(); ++i) {
      if (!std::isfinite(lse[i])) {
        ++c.nan_count;
        continue;
      }
      c.lse_max_error = std::max(c.lse_max_error, std::abs(double(lse[i]) - ref_lse_[i]));
    }
  }
  constexpr double kLseTolerance = 2e-3;
  if (c.nan_count > 0) {
    c.reason = fmt::format("{} outputs are NaN or inf (unwritten or overflowed)", c.nan_count);
  } else if (c.max_abs_error > c.tolerance) {
    c.reason = fmt::format("max abs error {:.3g} exceeds {:.3g} (2 x same-precision error {:.3g} + floor {:.3g})",
                           c.max_abs_error, c.tolerance, same_precision_error_, floor);
  } else if (check_lse && c.lse_max_error > kLseTolerance) {
    c.reason = fmt::format("LSE max error {:.3g} exceeds {:.3g}", c.lse_max_error, kLseTolerance);
  }
  c.passed = c.reason.empty();
  return c;
}

}  // namespace evotune::harness
