#include "harness/attention_kernel.h"

namespace evotune::harness {

AttentionKernel::AttentionKernel(const std::vector<char>& cubin, const std::string& kernel_name,
                                 const Config& config, const attention::Problem& problem,
                                 const DeviceLimits& limits)
    : module_(cubin, attention::format(config)),
      kernel_(module_.kernel(kernel_name)),
      plan_(attention::launch_plan(config, problem, limits)),
      head_dim_(problem.d) {
  kernel_.set_max_dynamic_shared_bytes(static_cast<int>(plan_.kernel.dynamic_shared_bytes));
  if (plan_.combine) {
    combine_.emplace(module_.kernel("attention_combine"));
    plan_.combine->programmatic_dependency = attention::programmatic_combine(*combine_);
  }
  if (plan_.workspace_bytes > 0) {
    workspace_.emplace(plan_.workspace_bytes, "split-KV workspace");
    // The tile counters of combine=last_cta start at zero (each launch leaves them there).
    EVOTUNE_CU(cuMemsetD8(workspace_->get(), 0, plan_.workspace_bytes), "zeroing the split-KV workspace");
  }
}

void AttentionKernel::set_programmatic_combine(bool on) {
  if (plan_.combine) plan_.combine->programmatic_dependency = on && attention::programmatic_combine(*combine_);
}

void AttentionKernel::launch(AttentionParams params, const runtime::Stream& stream) const {
  attention::bind_split_workspace(params, plan_, head_dim_, workspace_ ? workspace_->get() : 0);
  void* args[] = {&params};
  runtime::launch(kernel_, plan_.kernel, stream, args);
  if (combine_) runtime::launch(*combine_, *plan_.combine, stream, args);
}

}  // namespace evotune::harness
