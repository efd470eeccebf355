#pragma once
// One compiled attention config, loaded and ready to launch: its module, kernel, launch geometry and
// raised shared-memory limit. bench, the search's evaluator and the GPU tests all launch through it.
#include <string>

#include "runtime/cuda_objects.h"
#include "runtime/nvrtc_compiler.h"
#include "templates/attention/attention_family.h"
#include "templates/attention/params.h"

namespace evotune::harness {

class AttentionKernel {
 public:
  // A kernel from the prepare stage: its CUBIN and entry name.
  AttentionKernel(const std::vector<char>& cubin, const std::string& kernel_name, const Config& config,
                  const attention::Problem& problem)
      : module_(cubin, attention::format(config)),
        kernel_(module_.kernel(kernel_name)),
        geometry_(attention::launch_geometry(config, problem)) {
    kernel_.set_max_dynamic_shared_bytes(static_cast<int>(geometry_.dynamic_shared_bytes));
  }
  AttentionKernel(const runtime::PreparedKernel& prepared, const Config& config, const attention::Problem& problem)
      : AttentionKernel(*prepared.cubin, prepared.kernel_name, config, problem) {}
  // `compiled` must hold the instantiation attention::name_expression(config, problem) (optionally the
  // clock64 variant: same name expression).
  AttentionKernel(const runtime::CompileResult& compiled, const Config& config, const attention::Problem& problem)
      : AttentionKernel(compiled.cubin, compiled.lowered(attention::name_expression(config, problem)), config,
                        problem) {}

  void launch(AttentionParams params, const runtime::Stream& stream) const {
    void* args[] = {&params};
    runtime::launch(kernel_, geometry_, stream, args);
  }
  const runtime::LaunchGeometry& geometry() const { return geometry_; }

 private:
  runtime::Module module_;
  runtime::Kernel kernel_;
  runtime::LaunchGeometry geometry_;
};

}  // namespace evotune::harness
