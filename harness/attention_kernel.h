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
  // `compiled` must hold the instantiation attention::name_expression(config, problem) (optionally the
  // clock64 variant: same name expression).
  AttentionKernel(const runtime::CompileResult& compiled, const Config& config, const attention::Problem& problem)
      : module_(compiled.cubin, attention::format(config)),
        kernel_(module_.kernel(compiled.lowered(attention::name_expression(config, problem)))),
        geometry_(attention::launch_geometry(config, problem)) {
    kernel_.set_max_dynamic_shared_bytes(static_cast<int>(geometry_.dynamic_shared_bytes));
  }

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
