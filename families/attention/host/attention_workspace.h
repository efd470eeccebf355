#pragma once
// Everything one attention problem needs on the device: seeded inputs, the output (poisoned before every
// checked run), the GPU fp32 reference and the same-precision emulation that sets the tolerance, and
// the correctness check. The references stay on the device and the check compares there
// (common/compare.cuh): a handful of numbers cross to the host, not the output.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "runtime/cuda_objects.h"
#include "runtime/nvrtc_compiler.h"
#include "harness/kernels/common/compare_figures.h"
#include "families/attention/kernels/params.h"
#include "families/attention/host/problem.h"

namespace evotune::harness {

struct AttentionCheck {
  double max_abs_error = 0;         // kernel vs fp32 reference
  double rel_l2_error = 0;          // ||kernel - ref|| / ||ref||
  double same_precision_error = 0;  // max abs error of the same-precision implementation vs the reference
  double tolerance = 0;             // 2 x same_precision_error + floor
  double lse_max_error = 0;
  std::int64_t nan_count = 0;  // NaN or inf in the output (including unwritten, poisoned elements)
  bool passed = false;
  std::string reason;  // why not, when not
};

// The rule, in one place (DESIGN.md's correctness rules): fails on any NaN/inf, on a max abs error above
// 2 x the same-precision implementation's error + a quarter ulp of the reference's largest magnitude, and
// on an LSE error above 2e-3 when the LSE is checked. Fills tolerance, passed and reason from the figures
// already in `check`.
void judge(AttentionCheck& check, attention::DType dtype, double reference_max_abs, bool check_lse);

// The compile request of the kernels the harness compiles for a problem (random fill, references, the
// baseline's softmax, the compare stages), for its element type, head dim and causality.
runtime::CompileRequest utility_request(const attention::Problem& p, const runtime::Target& target);

// Those kernels, compiled and loaded.
class AttentionUtilityKernels {
 public:
  AttentionUtilityKernels(const attention::Problem& problem, runtime::Compiler& compiler, const runtime::Target& target);
  runtime::Kernel fill() const { return module_->kernel(lowered_.at(0)); }
  runtime::Kernel reference(bool round_like_inputs) const { return module_->kernel(lowered_.at(round_like_inputs ? 2 : 1)); }
  runtime::Kernel baseline_softmax() const { return module_->kernel(lowered_.at(3)); }
  // common/compare.cuh: stage 1 for the problem's element type or for fp32 outputs, and stage 2.
  runtime::Kernel compare_partials(bool fp32_output) const { return module_->kernel(lowered_.at(fp32_output ? 5 : 4)); }
  runtime::Kernel compare_finish() const { return module_->kernel(lowered_.at(6)); }

 private:
  std::optional<runtime::Module> module_;
  std::vector<std::string> lowered_;
};

class AttentionWorkspace {
 public:
  // Needs a current context. Fills Q, K, V from `seed` and computes the references.
  AttentionWorkspace(const attention::Problem& problem, runtime::Compiler& compiler, const runtime::Target& target,
                     std::uint64_t seed, const runtime::Stream& stream);

  const attention::Problem& problem() const { return problem_; }
  const AttentionUtilityKernels& kernels() const { return kernels_; }
  // Kernel arguments; with_lse asks for the LSE output, cta_cycles (device pointer or 0) for clock64.
  AttentionParams params(bool with_lse, CUdeviceptr cta_cycles = 0) const;
  // New random inputs (Q, K, V streams derived from seed) and fresh references.
  void reseed(std::uint64_t seed, const runtime::Stream& stream);
  // The references (and the tolerance) recomputed from the inputs as they are now: after a test uploaded
  // inputs of its own into q(), k() or v().
  void refresh_references(const runtime::Stream& stream);
  // O and LSE set to NaN, so that an element the kernel does not write fails the check.
  void poison_outputs(const runtime::Stream& stream);
  // Compares O (and LSE when check_lse) with the fp32 reference on the GPU; synchronizes the stream.
  AttentionCheck check(const runtime::Stream& stream, bool check_lse) const;
  // The same comparison on the host (O and the references downloaded), as the check was first written:
  // the yardstick the GPU check is tested against. Slow on large problems.
  AttentionCheck check_on_host(const runtime::Stream& stream, bool check_lse) const;

  // Host copies for tests: the inputs as floats (exact fp16/bf16 values), the GPU fp32 reference.
  std::vector<float> download_input(char which) const;  // 'q', 'k' or 'v'
  std::vector<float> reference_out() const;
  std::vector<float> reference_lse() const;
  std::vector<float> download_output() const;
  std::vector<float> download_lse() const;

  const runtime::DeviceBuffer& q() const { return q_; }
  const runtime::DeviceBuffer& k() const { return k_; }
  const runtime::DeviceBuffer& v() const { return v_; }
  const runtime::DeviceBuffer& o() const { return o_; }
  const runtime::DeviceBuffer& lse() const { return lse_; }
  // Writable buffers, for tests that plant values (inputs: then refresh_references).
  runtime::DeviceBuffer& q() { return q_; }
  runtime::DeviceBuffer& k() { return k_; }
  runtime::DeviceBuffer& v() { return v_; }
  runtime::DeviceBuffer& o() { return o_; }
  runtime::DeviceBuffer& lse() { return lse_; }

 private:
  void run_reference(bool round_like_inputs, const runtime::DeviceBuffer& out, const runtime::Stream& stream) const;
  // Enqueues the comparison of `n` outputs (the problem's element type, or fp32) with `reference` into
  // result slot `slot`; download_figures() then reads the slots back.
  void compare(const runtime::DeviceBuffer& out, bool fp32_output, const runtime::DeviceBuffer& reference,
               std::int64_t n, int slot, const runtime::Stream& stream) const;
  std::vector<CompareFigures> download_figures(const runtime::Stream& stream) const;
  std::vector<float> to_floats(const std::vector<std::uint16_t>& bits) const;

  attention::Problem problem_;
  AttentionUtilityKernels kernels_;
  runtime::DeviceBuffer q_, k_, v_, o_, lse_;
  runtime::DeviceBuffer ref_out_, ref_lse_;  // fp32 reference output and LSE, on the device
  runtime::DeviceBuffer compare_partials_, compare_results_;
  double same_precision_error_ = 0;
  double ref_max_abs_ = 0;
};

}  // namespace evotune::harness
