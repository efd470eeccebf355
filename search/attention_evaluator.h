#pragma once
// Evaluates attention configs on one GPU, for `evotune worker --problem`: validity against the device,
// compile (through the cubin cache), reject spills, launch on poisoned outputs, check against the fp32
// reference, time with CUDA events (L2 flushed, median of samples). Inputs and references are built once
// per worker.
//
// A CUDA error during a launch can leave the context unusable (sticky); such a trial is reported as
// launch_error and `needs_restart()` turns true, so the worker exits after replying and the pool starts
// a fresh one.
#include <memory>

#include "harness/attention_workspace.h"
#include "harness/timer.h"
#include "runtime/cuda_objects.h"
#include "runtime/device_properties.h"
#include "search/coordinator.h"
#include "templates/attention/attention_family.h"

namespace evotune::search {

class AttentionEvaluator : public Evaluator {
 public:
  AttentionEvaluator(const attention::Problem& problem, int device, runtime::Compiler& compiler, int repetitions);
  evidence::TrialRecord evaluate(const Config& config) override;
  bool needs_restart() const { return needs_restart_; }

 private:
  attention::Problem problem_;
  runtime::DeviceProperties props_;
  runtime::DeviceContext context_;
  runtime::Target target_;
  runtime::Compiler& compiler_;
  runtime::Stream stream_;
  harness::AttentionWorkspace workspace_;
  harness::Timer timer_;
  harness::TimingOptions timing_;
  bool needs_restart_ = false;
};

}  // namespace evotune::search
