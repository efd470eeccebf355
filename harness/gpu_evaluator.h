#pragma once
// Evaluates prepared kernels of one family's problem on one GPU, for `evotune worker`: load the kernel the
// coordinator's prepare stage put in the cubin cache, launch it on poisoned outputs, check it against the
// family's reference, time it with CUDA events (L2 flushed, median of samples). It never compiles a config
// (the prepare stage did); it compiles only the family's helper kernels, once. Inputs and references (the
// family's Bench) are built once per worker. Every family gets these guarantees from this one class.
//
// A CUDA error during a launch can leave the context unusable (sticky); such a trial is reported as
// launch_error and `needs_restart()` turns true, so the worker exits after replying and the pool starts
// a fresh one.
#include <memory>
#include <optional>

#include "evidence/store.h"
#include "harness/family.h"
#include "harness/timer.h"
#include "runtime/cubin_cache.h"
#include "runtime/cuda_objects.h"
#include "runtime/device_properties.h"

namespace evotune::harness {

class GpuEvaluator {
 public:
  // `kernels`: the cache the prepare stage fills; `utilities`: compiles the harness's kernels (fill,
  // references, compare).
  GpuEvaluator(const Family& family, const FamilyProblem& problem, int device, const runtime::CubinCache& kernels,
               runtime::Compiler& utilities, int repetitions);
  // Status, measurements and error of one prepared config (resources and compile time are the prepare
  // stage's, recorded by the coordinator).
  evidence::TrialRecord evaluate(const Config& config, const std::string& cache_key, const std::string& kernel_name);
  // Racing: with a best of at least kRaceMinimumUs, a config whose flushed launches take more than
  // kRaceFactor times the best is timed with 3 samples instead of the full repetitions. Below that
  // minimum, single unbatched launches are too coarse to rule a config out, and timing is cheap anyway.
  void set_best_us(std::optional<double> best_us) { best_us_ = best_us; }
  // Launches per timed sample (TimingOptions::batch; 0: each kernel's length decides), and the
  // one the last evaluate() timed with in full (0 when it did not: failed or raced).
  void set_batch(int batch) { timing_.batch = batch; }
  int last_batch() const { return last_batch_; }
  static constexpr double kRaceFactor = 2.0;
  static constexpr double kRaceMinimumUs = 50.0;
  bool needs_restart() const { return needs_restart_; }

  // The search's top configs timed again, interleaved: `rounds` rounds, each timing every kernel once
  // (`reps` flushed samples, after a check of its output) in the order given, so drift of the GPU's state
  // over time reaches them all alike, and all with one batch (launches per sample): the one set_batch
  // gave, else the first kernel's length decides it (TimingOptions::batch). Returns [kernel][round] medians;
  // a kernel that fails its check or to load gets no times (an empty row).
  struct Kernel {
    Config config;
    std::string cache_key, kernel_name;
  };
  struct Retimed {
    std::vector<std::vector<double>> medians_us;
    int batch = 1;
  };
  Retimed retime(const std::vector<Kernel>& kernels, int rounds, int reps);

  // The reference points of the run, on this worker's device and inputs (the family's Bench::baselines),
  // with `batch` launches per sample when not 0, as the confirmation timed the winner.
  std::vector<evidence::BaselineRecord> measure_baselines(int batch = 0);

  // Where the worker's time went, for its exit summary and the coordinator's GPU-busy figure.
  struct Phases {
    int trials = 0, timed = 0, raced = 0;
    double load_seconds = 0, check_seconds = 0, timing_seconds = 0;
    double busy_seconds() const { return load_seconds + check_seconds + timing_seconds; }
  };
  const Phases& phases() const { return phases_; }

 private:
  const Family& family_;
  FamilyProblem problem_;
  runtime::DeviceProperties props_;
  runtime::DeviceContext context_;
  runtime::Target target_;
  const runtime::CubinCache& kernels_;
  runtime::Stream stream_;
  std::unique_ptr<Bench> bench_;
  Timer timer_;
  TimingOptions timing_;
  bool needs_restart_ = false;
  std::optional<double> best_us_;
  int last_batch_ = 0;
  Phases phases_;
};

}  // namespace evotune::harness
