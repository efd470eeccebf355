#pragma once
// Event timing by the rules of DESIGN.md: warm up, flush L2 before every sample (write a buffer of
// twice the L2 size), CUDA events around each sample, many samples, every raw sample kept. Kernels
// shorter than `batch_below_us` are timed as back-to-back batches so that event resolution and
// launch gaps do not dominate; a sample is then the batch time divided by the batch size. A batch is
// captured once into a CUDA graph and replayed for every sample (launches from a stream otherwise, if
// capture fails): the gaps between its launches are then the GPU's, as scripts/compare_sdpa.py times
// PyTorch's short calls, and not the host's launch rate.
#include <functional>
#include <optional>
#include <vector>

#include "runtime/cuda_objects.h"

namespace evotune::harness {

struct TimingOptions {
  int warmup = 5;
  int repetitions = 50;
  double batch_below_us = 20.0;
  double batch_target_us = 200.0;
  int max_batch = 1000;
  // Racing, for searches: when set and the first flushed launch takes longer than this, the kernel is
  // timed with `race_samples` flushed samples only (no warm-up beyond the launch already made); if their
  // median is still above it, that is the result (TimingSummary::raced). A search needs precise times
  // near the best, not for a config several times slower; a config that comes in under the line after
  // all is timed in full.
  std::optional<double> race_above_us;
  int race_samples = 3;
};

struct TimingSummary {
  std::vector<double> samples_us;  // one per repetition, per launch
  int batch = 1;                   // launches per sample
  bool raced = false;              // stopped after race_samples: slower than TimingOptions::race_above_us
  bool graph = false;              // batches replayed from a CUDA graph
  double median_us = 0, min_us = 0, p10_us = 0, p90_us = 0, mean_us = 0;
};

// Summary statistics of raw samples (median, min, p10, p90 by nearest rank on the sorted samples).
TimingSummary summarize(std::vector<double> samples_us, int batch);

class Timer {
 public:
  // flush_bytes: the L2 flush buffer's size; 2x the device's L2.
  explicit Timer(std::size_t flush_bytes);
  void flush_l2(const runtime::Stream& stream);
  TimingSummary time(const std::function<void(const runtime::Stream&)>& launch, const runtime::Stream& stream,
                     const TimingOptions& options);

 private:
  runtime::DeviceBuffer flush_;
  unsigned flush_value_ = 0;
};

}  // namespace evotune::harness
