#pragma once
// Event timing by the rules of DESIGN.md: warm up, flush L2 before every sample (a buffer of twice the
// L2 size: read by default, written with L2Flush::write; see below), CUDA events around each sample, many samples, every raw sample kept. Kernels
// shorter than `batch_below_us` are timed as back-to-back batches so that event resolution and
// launch gaps do not dominate; a sample is then the batch time divided by the batch size. A batch is
// captured once into a CUDA graph and replayed for every sample (launches from a stream otherwise, if
// capture fails): the gaps between its launches are then the GPU's, as scripts/compare_sdpa.py times
// PyTorch's short calls, and not the host's launch rate.
#include <functional>
#include <optional>
#include <string_view>
#include <vector>

#include "runtime/cuda_objects.h"

namespace evotune::harness {

struct TimingOptions {
  int warmup = 5;
  int repetitions = 50;
  double batch_below_us = 20.0;
  double batch_target_us = 200.0;
  int max_batch = 1000;
  // Launches per sample, fixed: 1 times single launches whatever their length, N > 1 a CUDA graph of N
  // (every sample flushed first, as always). 0: decided by the estimate above. A comparison times both
  // sides one way (README, "Timing"): the side timed second is given the first side's batch, because a batch's
  // launches after the first find their inputs in L2 and no launch gap, and a kernel just under
  // batch_below_us would otherwise be compared, batched, with one just over it, timed alone.
  int batch = 0;
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

// How L2 is emptied before a sample. Both stream twice the L2 size through it, evicting whatever the
// previous sample left there:
//   read   (the default) a kernel reads the buffer: L2 is left holding clean lines, and the timed work
//          starts with nothing to write back;
//   write  DESIGN.md's original rule, a memset of the buffer: L2 is left holding up to its size in dirty
//          lines, which are written back to DRAM while the timed work runs. A memory-bound kernel is then
//          charged for that write-back too (about L2 / DRAM bandwidth: ~17 us of a 190 us decode on an
//          H100), and so is whatever it is compared with.
enum class L2Flush { read, write };
std::optional<L2Flush> parse_l2_flush(std::string_view text);
const char* to_string(L2Flush flush);

class Timer {
 public:
  // flush_bytes: the L2 flush buffer's size; 2x the device's L2.
  explicit Timer(std::size_t flush_bytes, L2Flush flush = L2Flush::read);
  L2Flush flush_mode() const { return mode_; }
  void flush_l2(const runtime::Stream& stream);
  TimingSummary time(const std::function<void(const runtime::Stream&)>& launch, const runtime::Stream& stream,
                     const TimingOptions& options);

 private:
  runtime::DeviceBuffer flush_;
  unsigned flush_value_ = 0;
  L2Flush mode_;
  std::optional<runtime::Module> read_module_;  // the read flush's kernel (L2Flush::read)
  std::optional<runtime::Kernel> read_kernel_;
  runtime::DeviceBuffer read_sink_;
};

}  // namespace evotune::harness
