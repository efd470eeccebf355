#include "families/attention/host/attention_kernel.h"

namespace evotune::harness {

AttentionKernel::AttentionKernel(const std::vector<char>& cubin, const std::string& kernel_name,
                                 const Config& config, const attention::Problem& problem,
                                 const DeviceLimits& limits)
    : module_(cubin, attention::format(config)),
      kernel_(module_.kernel(kernel_name)),
      plan_(attention::launch_plan(config, problem, limits)),
      config_(config),
      problem_(problem) {
  attention::prepare_kernel(kernel_, config, static_cast<int>(plan_.kernel.dynamic_shared_bytes));
  if (plan_.combine) {
    combine_.emplace(module_.kernel("attention_combine"));
    plan_.combine->programmatic_dependency = attention::programmatic_combine(*combine_);
  }
  if (plan_.workspace_bytes > 0) {
    workspace_.emplace(plan_.workspace_bytes, "attention workspace (split-KV partials, counters)");
    // The counters (combine=last_cta, scheduler=dynamic) start at zero; each launch leaves them there.
    EVOTUNE_CU(cuMemsetD8(workspace_->get(), 0, plan_.workspace_bytes), "zeroing the attention workspace");
  }
}

void AttentionKernel::set_programmatic_combine(bool on) {
  if (plan_.combine) plan_.combine->programmatic_dependency = on && attention::programmatic_combine(*combine_);
}

void AttentionKernel::launch(AttentionParams params, const runtime::Stream& stream) const {
  attention::bind_workspace(params, plan_, problem_.d, workspace_ ? workspace_->get() : 0);
  attention::KernelArguments arguments(config_, problem_, params);
  runtime::launch(kernel_, plan_.kernel, stream, arguments.args());
  // The combine kernel takes the plain AttentionParams.
  void* combine_args[] = {&params};
  if (combine_) runtime::launch(*combine_, *plan_.combine, stream, combine_args);
}

}  // namespace evotune::harness
