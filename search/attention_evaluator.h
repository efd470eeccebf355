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
  // Racing: with a best of at least kRaceMinimumUs, a config whose flushed launches take more than
  // kRaceFactor times the best is timed with 3 samples instead of the full repetitions. Below that
  // minimum, single unbatched launches are too coarse to rule a config out, and timing is cheap anyway.
  void set_best_us(std::optional<double> best_us) override { best_us_ = best_us; }
  static constexpr double kRaceFactor = 2.0;
  static constexpr double kRaceMinimumUs = 50.0;
  bool needs_restart() const { return needs_restart_; }

  // The reference points of the run, on this worker's device and inputs: the unfused cuBLAS attention
  // (checked and timed like a trial) and the device's peaks (GEMM in the problem's dtype, device copy).
  std::vector<evidence::BaselineRecord> measure_baselines();

  // Where the worker's time went, for its exit summary.
  struct Phases {
    int trials = 0, timed = 0, raced = 0;
    double compile_seconds = 0, check_seconds = 0, timing_seconds = 0;
  };
  const Phases& phases() const { return phases_; }

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
  std::optional<double> best_us_;
  Phases phases_;
};

}  // namespace evotune::search
