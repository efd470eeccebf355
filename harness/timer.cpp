#include "harness/timer.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>

#include "runtime/cuda_driver.h"

namespace evotune::harness {
namespace {

// `batch` launches captured from a stream into an instantiated graph; empty when capture fails (a launch
// that cannot be captured), and then the stream is left as it was.
class CapturedBatch {
 public:
  CapturedBatch(const std::function<void(const runtime::Stream&)>& launch, const runtime::Stream& stream,
                int batch) {
    const auto& api = runtime::driver();
    if (api.cuStreamBeginCapture(stream.get(), CU_STREAM_CAPTURE_MODE_THREAD_LOCAL) != CUDA_SUCCESS) return;
    bool launched = true;
    try {
      for (int i = 0; i < batch; ++i) launch(stream);
    } catch (const std::exception&) {
      launched = false;
    }
    CUgraph graph = nullptr;
    const CUresult ended = api.cuStreamEndCapture(stream.get(), &graph);
    if (launched && ended == CUDA_SUCCESS && graph != nullptr &&
        api.cuGraphInstantiate(&exec_, graph, 0) != CUDA_SUCCESS) {
      exec_ = nullptr;
    }
    if (graph != nullptr) api.cuGraphDestroy(graph);
  }
  ~CapturedBatch() {
    if (exec_ != nullptr) runtime::driver().cuGraphExecDestroy(exec_);
  }
  CapturedBatch(const CapturedBatch&) = delete;
  CapturedBatch& operator=(const CapturedBatch&) = delete;

  bool ok() const { return exec_ != nullptr; }
  void launch(const runtime::Stream& stream) const {
    EVOTUNE_CU(cuGraphLaunch(exec_, stream.get()), "replaying a captured batch of launches");
  }

 private:
  CUgraphExec exec_ = nullptr;
};

}  // namespace

TimingSummary summarize(std::vector<double> samples, int batch) {
  TimingSummary s;
  s.batch = batch;
  s.samples_us = samples;
  if (samples.empty()) return s;
  std::sort(samples.begin(), samples.end());
  auto rank = [&](double q) {
    std::size_t i = static_cast<std::size_t>(std::lround(q * static_cast<double>(samples.size() - 1)));
    return samples[std::min(i, samples.size() - 1)];
  };
  s.min_us = samples.front();
  s.p10_us = rank(0.10);
  s.median_us = samples.size() % 2 ? samples[samples.size() / 2]
                                   : 0.5 * (samples[samples.size() / 2 - 1] + samples[samples.size() / 2]);
  s.p90_us = rank(0.90);
  s.mean_us = std::accumulate(samples.begin(), samples.end(), 0.0) / static_cast<double>(samples.size());
  return s;
}

Timer::Timer(std::size_t flush_bytes) : flush_(flush_bytes, "L2 flush buffer") {}

void Timer::flush_l2(const runtime::Stream& stream) {
  // A different value each time, so no layer can treat the write as a no-op.
  EVOTUNE_CU(cuMemsetD32Async(flush_.get(), ++flush_value_, flush_.bytes() / 4, stream.get()), "flushing L2");
}

TimingSummary Timer::time(const std::function<void(const runtime::Stream&)>& launch, const runtime::Stream& stream,
                          const TimingOptions& options) {
  runtime::Event start, stop;
  auto flushed_launch_us = [&] {
    flush_l2(stream);
    start.record(stream);
    launch(stream);
    stop.record(stream);
    stop.synchronize();
    return 1e3 * stop.elapsed_ms_since(start);
  };
  if (options.race_above_us) {
    // The caller has launched the kernel once already (the checked run), so the code is loaded.
    const double first = flushed_launch_us();
    if (first > *options.race_above_us) {
      std::vector<double> race{first};
      while (static_cast<int>(race.size()) < options.race_samples) race.push_back(flushed_launch_us());
      TimingSummary raced = summarize(race, 1);
      if (raced.median_us > *options.race_above_us) {
        raced.raced = true;
        return raced;
      }
    }  // else a contender (or the first launch was an outlier): timed in full below
  }
  for (int i = 0; i < options.warmup; ++i) launch(stream);
  // One flushed, timed launch estimates the duration and decides the batch size.
  double estimate_us = flushed_launch_us();
  int batch = 1;
  if (estimate_us < options.batch_below_us) {
    batch = std::clamp(static_cast<int>(std::ceil(options.batch_target_us / std::max(estimate_us, 0.5))), 1,
                       options.max_batch);
  }
  std::optional<CapturedBatch> graph;
  if (batch > 1) graph.emplace(launch, stream, batch);
  const bool replay = graph && graph->ok();
  std::vector<double> samples;
  samples.reserve(static_cast<std::size_t>(options.repetitions));
  for (int r = 0; r < options.repetitions; ++r) {
    flush_l2(stream);
    start.record(stream);
    if (replay) {
      graph->launch(stream);
    } else {
      for (int i = 0; i < batch; ++i) launch(stream);
    }
    stop.record(stream);
    stop.synchronize();
    samples.push_back(1e3 * stop.elapsed_ms_since(start) / batch);
  }
  TimingSummary summary = summarize(std::move(samples), batch);
  summary.graph = replay;
  return summary;
}

}  // namespace evotune::harness
