// End to end, as production code would use evotune's output: pick the tuned kernel for this GPU and
// problem from a header written by `evotune export`, load its CUBIN ahead of time and launch it with the
// launcher library on our own buffers and stream (no NVRTC: the program says whether the compiler's
// library is mapped into the process), check the output against an independent CPU fp64 reference, and
// time it the way the search did, to compare with the time the header records.
//
//   tuned_attention_example [b=4,hq=16,hkv=16,sq=4096,skv=4096,d=128,causal=1,dtype=fp16]
//
// Without a problem it runs the first entry's. EVOTUNE_JIT=1 lets the launcher compile the entry's config
// with NVRTC when its CUBIN is for another architecture. Exit: 0 pass, 1 wrong output, 2 bad input or no
// entry within the header's lookup contract, 3 no CUDA driver or device.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "harness/timer.h"
#include "deploy/attention_launcher.h"
#include "runtime/cuda_driver.h"
#include "runtime/cuda_objects.h"
#include "runtime/device_properties.h"
#include "runtime/float16.h"
#include "tuned_attention.h"  // written by `evotune export`

namespace {

using evotune_tuned::AttentionProblem;

AttentionProblem parse_problem(const std::string& text) {
  AttentionProblem p{1, 1, 0, 1, 0, 128, false, false};
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t comma = text.find(',', start);
    if (comma == std::string::npos) comma = text.size();
    const std::string item = text.substr(start, comma - start);
    const std::size_t eq = item.find('=');
    if (eq == std::string::npos) throw std::invalid_argument("expected name=value, got '" + item + "'");
    const std::string key = item.substr(0, eq), value = item.substr(eq + 1);
    if (key == "dtype") {
      if (value != "fp16" && value != "bf16") throw std::invalid_argument("dtype is fp16 or bf16");
      p.bf16 = value == "bf16";
    } else {
      const int v = std::stoi(value);
      if (key == "b") p.b = v;
      else if (key == "hq") p.hq = v;
      else if (key == "hkv") p.hkv = v;
      else if (key == "sq") p.sq = v;
      else if (key == "skv") p.skv = v;
      else if (key == "d") p.d = v;
      else if (key == "causal") p.causal = v != 0;
      else throw std::invalid_argument("unknown problem key '" + key + "'");
    }
    start = comma + 1;
  }
  if (p.hkv == 0) p.hkv = p.hq;
  if (p.skv == 0) p.skv = p.sq;
  return p;
}

std::string describe(const AttentionProblem& p) {
  char text[160];
  std::snprintf(text, sizeof(text), "b=%d,hq=%d,hkv=%d,sq=%d,skv=%d,d=%d,causal=%d,dtype=%s", p.b, p.hq, p.hkv, p.sq,
                p.skv, p.d, p.causal ? 1 : 0, p.bf16 ? "bf16" : "fp16");
  return text;
}

// Rounds to the problem's element type and back, as the device stores values.
struct ElementType {
  bool bf16;
  std::uint16_t bits(float v) const {
    return bf16 ? evotune::runtime::float_to_bf16_bits(v) : evotune::runtime::float_to_half_bits(v);
  }
  float value(std::uint16_t b) const {
    return bf16 ? evotune::runtime::bf16_bits_to_float(b) : evotune::runtime::half_bits_to_float(b);
  }
  float round(float v) const { return value(bits(v)); }
  int mantissa_bits() const { return bf16 ? 7 : 10; }
};

std::vector<std::uint16_t> random_tensor(std::size_t count, std::uint64_t seed, const ElementType& type) {
  std::mt19937_64 engine(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<std::uint16_t> out(count);
  for (auto& x : out) x = type.bits(normal(engine));
  return out;
}

struct RowErrors {
  double kernel = 0;          // |kernel - fp64 reference|, max over the row
  double same_precision = 0;  // |plain same-precision implementation - fp64 reference|
  double max_reference = 0;
};

// One query row in fp64, and the same row as an unfused same-precision pipeline computes it (scores and
// probabilities stored in the element type): the harness's tolerance rule, applied on the CPU.
RowErrors check_row(const AttentionProblem& p, const ElementType& type, const std::vector<std::uint16_t>& q,
                    const std::vector<std::uint16_t>& k, const std::vector<std::uint16_t>& v,
                    const std::vector<std::uint16_t>& o, int batch, int head, int row) {
  const int d = p.d, kv_head = head / (p.hq / p.hkv);
  const std::size_t q_row = ((std::size_t(batch) * p.hq + head) * p.sq + row) * d;
  const std::size_t kv_base = (std::size_t(batch) * p.hkv + kv_head) * std::size_t(p.skv) * d;
  const int visible = p.causal ? std::min(p.skv, row + (p.skv - p.sq) + 1) : p.skv;
  const double scale = 1.0 / std::sqrt(double(d));
  std::vector<double> scores(visible);
  std::vector<float> rounded_scores(visible);
  for (int j = 0; j < visible; ++j) {
    double dot = 0;
    for (int x = 0; x < d; ++x) dot += double(type.value(q[q_row + x])) * type.value(k[kv_base + std::size_t(j) * d + x]);
    scores[j] = dot * scale;
    rounded_scores[j] = type.round(float(dot * scale));
  }
  const double max_score = *std::max_element(scores.begin(), scores.end());
  const float max_rounded = *std::max_element(rounded_scores.begin(), rounded_scores.end());
  double sum = 0;
  float rounded_sum = 0;
  for (int j = 0; j < visible; ++j) {
    sum += std::exp(scores[j] - max_score);
    rounded_sum += std::exp(rounded_scores[j] - max_rounded);
  }
  RowErrors e;
  for (int x = 0; x < d; ++x) {
    double exact = 0;
    float plain = 0;
    for (int j = 0; j < visible; ++j) {
      const double value = type.value(v[kv_base + std::size_t(j) * d + x]);
      exact += std::exp(scores[j] - max_score) / sum * value;
      plain += type.round(std::exp(rounded_scores[j] - max_rounded) / rounded_sum) * float(value);
    }
    e.kernel = std::max(e.kernel, std::abs(double(type.value(o[q_row + x])) - exact));
    e.same_precision = std::max(e.same_precision, std::abs(double(type.round(plain)) - exact));
    e.max_reference = std::max(e.max_reference, std::abs(exact));
  }
  return e;
}

// Whether NVRTC's library is mapped into this process: the kernel came from the CUBIN alone.
bool nvrtc_mapped() {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) {
    if (line.find("libnvrtc") != std::string::npos) return true;
  }
  return false;
}

int run(int argc, char** argv) {
  std::string reason;
  if (!evotune::runtime::driver_available(&reason)) {
    std::fprintf(stderr, "tuned_attention_example: no GPU: %s\n", reason.c_str());
    return 3;
  }
  const evotune::runtime::DeviceProperties device = evotune::runtime::query_device(0);
  const int sm = device.cc_major * 10 + device.cc_minor;
  const AttentionProblem problem = argc > 1 ? parse_problem(argv[1]) : evotune_tuned::kEntries[0].problem;
  const evotune_tuned::Lookup found = evotune_tuned::lookup(device.name.c_str(), sm, problem);
  std::printf("device   %s (sm_%d)\nproblem  %s\n", device.name.c_str(), sm, describe(problem).c_str());
  if (found.entry == nullptr) {
    std::fprintf(stderr,
                 "tuned_attention_example: the header has no entry for this problem on sm_%d within its lookup "
                 "contract (same head dim, dtype, masking and decode/prefill kind; distance <= %.1f)\n",
                 sm, evotune_tuned::kMaxDistance);
    return 2;
  }
  const evotune_tuned::TunedAttention& entry = *found.entry;
  std::printf("entry    %s match (distance %.2f): run %lld trial %d on %s, tuned for %s%s\nconfig   %s\n",
              evotune_tuned::match_name(found.match), found.distance, entry.run_id, entry.trial, entry.device,
              describe(entry.problem).c_str(), entry.reverified ? ", re-verified at export" : ", not re-verified",
              entry.config);

  evotune::AttentionLauncherOptions options;
  const char* jit = std::getenv("EVOTUNE_JIT");
  options.jit_fallback = jit != nullptr && std::string(jit) == "1";
  evotune::AttentionLauncher launcher = evotune::AttentionLauncher::from_tuned(entry, options);
  const std::string origin =
      launcher.ahead_of_time() ? "loaded ahead of time from the header's CUBIN"
      : launcher.loaded_from_cache()
          ? "loaded from the disk cache"
          : "compiled by NVRTC in " + std::to_string(launcher.compile_seconds()) + " s";
  std::printf("kernel   %s for %s, %d registers, %s\n", launcher.config().c_str(), launcher.target().c_str(),
              launcher.registers(), origin.c_str());

  // Our own buffers and stream, as an application owns them.
  const ElementType type{problem.bf16};
  const std::size_t q_count = std::size_t(problem.b) * problem.hq * problem.sq * problem.d;
  const std::size_t kv_count = std::size_t(problem.b) * problem.hkv * problem.skv * problem.d;
  const std::vector<std::uint16_t> q = random_tensor(q_count, 11, type), k = random_tensor(kv_count, 12, type),
                                   v = random_tensor(kv_count, 13, type);
  evotune::runtime::DeviceBuffer dq(q_count * 2, "Q"), dk(kv_count * 2, "K"), dv(kv_count * 2, "V"), dout(q_count * 2, "O");
  dq.upload(q.data(), q_count * 2);
  dk.upload(k.data(), kv_count * 2);
  dv.upload(v.data(), kv_count * 2);
  evotune::runtime::Stream stream;
  dout.fill_bytes(0xFF, stream);  // NaN: an element the kernel does not write fails the check
  const evotune::AttentionShape shape{problem.b, problem.hq, problem.hkv, problem.sq, problem.skv, problem.d,
                                      problem.causal, problem.bf16};
  launcher.launch(shape, dq.get(), dk.get(), dv.get(), dout.get(), stream.get());
  stream.synchronize();
  const std::vector<std::uint16_t> o = dout.download_as<std::uint16_t>(q_count);

  std::size_t non_finite = 0;
  for (std::uint16_t bits : o) non_finite += std::isfinite(type.value(bits)) ? 0 : 1;
  // Sampled rows: the first and last query row of every head (fewest and most visible keys under
  // causal masking), plus random rows.
  std::vector<std::array<int, 3>> rows;
  for (int b = 0; b < problem.b; ++b) {
    for (int h = 0; h < problem.hq; ++h) rows.push_back({b, h, 0}), rows.push_back({b, h, problem.sq - 1});
  }
  std::mt19937 pick(7);
  while (rows.size() < 512) {
    rows.push_back({int(pick() % problem.b), int(pick() % problem.hq), int(pick() % problem.sq)});
  }
  RowErrors worst;
  for (const auto& r : rows) {
    const RowErrors e = check_row(problem, type, q, k, v, o, r[0], r[1], r[2]);
    worst.kernel = std::max(worst.kernel, e.kernel);
    worst.same_precision = std::max(worst.same_precision, e.same_precision);
    worst.max_reference = std::max(worst.max_reference, e.max_reference);
  }
  const double floor = std::ldexp(0.25, std::ilogb(std::max(worst.max_reference, 1e-30)) - type.mantissa_bits());
  const double tolerance = 2 * worst.same_precision + floor;
  const bool passed = non_finite == 0 && worst.kernel <= tolerance;
  std::printf("nvrtc    %s\n", nvrtc_mapped() ? "loaded in this process" : "not loaded (no libnvrtc in /proc/self/maps)");
  std::printf("check    %zu sampled rows vs CPU fp64: max abs error %.3g (tolerance %.3g = 2 x same-precision "
              "error %.3g + floor %.3g); %zu of %zu outputs not finite: %s\n",
              rows.size(), worst.kernel, tolerance, worst.same_precision, floor, non_finite, o.size(),
              passed ? "PASS" : "FAIL");

  // Timing as the search timed, by the same timer (harness/timer.h; it needs only the driver): L2 flushed
  // by a read of twice its size before every sample, CUDA events, warm-up launches, and a kernel shorter
  // than 20 us timed as a CUDA graph of back-to-back launches (a sample is then the graph's time over its
  // launches), so that a short decode kernel is not charged the host's launch gaps the search's were not.
  evotune::harness::Timer timer(std::size_t(device.l2_bytes) * 2);
  evotune::harness::TimingOptions timing;
  timing.repetitions = 30;
  const evotune::harness::TimingSummary times = timer.time(
      [&](const evotune::runtime::Stream& s) {
        launcher.launch(shape, dq.get(), dk.get(), dv.get(), dout.get(), s.get());
      },
      stream, timing);
  const double median = times.median_us;
  std::printf("time     median %.2f us (p10 %.2f, p90 %.2f; %zu samples of %d launch%s%s)\n", median,
              times.p10_us, times.p90_us, times.samples_us.size(), times.batch, times.batch == 1 ? "" : "es",
              times.graph ? " from a CUDA graph" : "");
  if (found.match == evotune_tuned::Match::exact) {
    std::printf("search   median %.2f us (p10 %.2f, p90 %.2f): this run / search = %.3f\n", entry.median_us,
                entry.p10_us, entry.p90_us, median / entry.median_us);
  }
  return passed ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "tuned_attention_example: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tuned_attention_example: %s\n", e.what());
    return 1;
  }
}
