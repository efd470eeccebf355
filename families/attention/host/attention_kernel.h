#pragma once
// One compiled attention config, loaded and ready to launch for one problem: its module, the attention
// kernel with its raised shared-memory limit, the launch plan (attention_family.h), and, when the plan
// splits the K/V range, the combine kernel and the split workspace, which this object owns (allocated
// once, here, outside any timing). bench, the search's evaluator, verification and the GPU tests all
// launch through it.
#include <optional>
#include <string>
#include <vector>

#include "runtime/cuda_objects.h"
#include "runtime/nvrtc_compiler.h"
#include "runtime/prepare.h"
#include "families/attention/host/attention_family.h"
#include "families/attention/kernels/params.h"

namespace evotune::harness {

class AttentionKernel {
 public:
  // A kernel from the prepare stage: its CUBIN and entry name. Needs a current context.
  AttentionKernel(const std::vector<char>& cubin, const std::string& kernel_name, const Config& config,
                  const attention::Problem& problem, const DeviceLimits& limits);
  AttentionKernel(const runtime::PreparedKernel& prepared, const Config& config,
                  const attention::Problem& problem, const DeviceLimits& limits)
      : AttentionKernel(*prepared.cubin, prepared.kernel_name, config, problem, limits) {}

  // `compiled` must hold the instantiation attention::name_expression(config, problem) (optionally the
  // clock64 variant: same name expression).
  AttentionKernel(const runtime::CompileResult& compiled, const Config& config,
                  const attention::Problem& problem, const DeviceLimits& limits)
      : AttentionKernel(compiled.cubin, compiled.lowered(attention::name_expression(config, problem)), config,
                        problem, limits) {}

  // Enqueues the call: the attention kernel, then (split) the combine. The split fields of `params`
  // (workspace pointers, split count) are this object's and are overwritten.
  void launch(AttentionParams params, const runtime::Stream& stream) const;
  // Launch the combine kernel as a programmatic dependent launch (the default where the code supports it,
  // attention::programmatic_combine), or plainly after the attention kernel (off; bench --combine-launch).
  void set_programmatic_combine(bool on);
  // The attention kernel's geometry (CTAs: the clock64 view's buffer size).
  const runtime::LaunchGeometry& geometry() const { return plan_.kernel; }
  const attention::LaunchPlan& plan() const { return plan_; }

 private:
  runtime::Module module_;
  runtime::Kernel kernel_;
  std::optional<runtime::Kernel> combine_;
  attention::LaunchPlan plan_;
  Config config_;
  attention::Problem problem_;
  std::optional<runtime::DeviceBuffer> workspace_;
};

}  // namespace evotune::harness
