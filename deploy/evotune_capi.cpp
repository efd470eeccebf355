// The C ABI (deploy/evotune_capi.h) over the launcher library and the table of one exported header, the
// one CMake's EVOTUNE_TUNED_HEADER names (default: examples/tuned_attention.h).
#include "deploy/evotune_capi.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>

#include "deploy/attention_launcher.h"
#include "runtime/cuda_driver.h"
#include "runtime/device_properties.h"
#include "core/errors.h"
#include "runtime/nvrtc_library.h"
#include "families/attention/host/attention_family.h"
#include "runtime/device_limits.h"
#include EVOTUNE_TUNED_HEADER_PATH  // written by `evotune export`

#ifndef EVOTUNE_VERSION
#define EVOTUNE_VERSION "unknown"
#endif

namespace {

namespace tuned = evotune_tuned;

// Copies `text` into a caller's buffer, truncated to fit, NUL-terminated. False when it did not fit.
bool write_text(const std::string& text, char* buffer, size_t size) {
  if (buffer == nullptr || size == 0) return false;
  const size_t n = std::min(text.size(), size - 1);
  std::memcpy(buffer, text.data(), n);
  buffer[n] = '\0';
  return n == text.size();
}

int fail(int code, const std::string& message, char* error, size_t error_size) {
  write_text(message, error, error_size);
  return code;
}

int write_json(const nlohmann::json& j, char* json, size_t json_size, char* error, size_t error_size) {
  const std::string text = j.dump();
  if (json == nullptr || json_size <= text.size()) {
    return fail(EVOTUNE_INVALID_ARGUMENT, fmt::format("the JSON needs a buffer of {} bytes", text.size() + 1),
                error, error_size);
  }
  write_text(text, json, json_size);
  return EVOTUNE_OK;
}

std::string problem_text(const tuned::AttentionProblem& p) {
  return fmt::format("b={},hq={},hkv={},sq={},skv={},d={},causal={},dtype={}", p.b, p.hq, p.hkv, p.sq, p.skv,
                     p.d, p.causal ? 1 : 0, p.bf16 ? "bf16" : "fp16");
}

tuned::AttentionProblem problem_of(const evotune_attention_shape& s) {
  return {s.b, s.hq, s.hkv, s.sq, s.skv, s.d, s.causal != 0, s.bf16 != 0};
}

// The problem as evotune's own type, validated: positive sizes, hq % hkv, sq <= skv, a supported head dim.
evotune::attention::Problem checked_problem(const evotune_attention_shape& s) {
  evotune::attention::Problem p;
  p.b = s.b;
  p.hq = s.hq;
  p.hkv = s.hkv;
  p.sq = s.sq;
  p.skv = s.skv;
  p.d = s.d;
  p.causal = s.causal != 0;
  p.dtype = s.bf16 != 0 ? evotune::attention::DType::bf16 : evotune::attention::DType::fp16;
  try {
    p.validate();
  } catch (const evotune::UsageError& e) {
    throw std::invalid_argument(std::string("attention shape: ") + e.what());
  }
  return p;
}

nlohmann::json plan_json(const tuned::Lookup& found, bool allow_jit) {
  nlohmann::json j;
  if (found.entry != nullptr) {
    j["source"] = "table";
    j["match"] = found.match == tuned::Match::exact         ? "exact"
                 : found.match == tuned::Match::same_family ? "same_family"
                                                            : "nearest_problem";
    j["distance"] = found.distance;
    j["entry"] = found.entry - tuned::kEntries;
    j["entry_problem"] = problem_text(found.entry->problem);
    j["config"] = found.entry->config;
  } else {
    j["source"] = allow_jit ? "jit_default" : "none";
    j["match"] = "none";
    j["distance"] = nullptr;
    j["entry"] = nullptr;
    j["entry_problem"] = nullptr;
    j["config"] = nullptr;
  }
  return j;
}

struct Device {
  std::string name;
  int sm = 0;
  evotune::DeviceLimits limits;
};

// The table's configs, parsed once (nullopt: this build cannot read one; its entry is never served).
const std::vector<std::optional<evotune::Config>>& entry_configs() {
  static const std::vector<std::optional<evotune::Config>> configs = [] {
    std::vector<std::optional<evotune::Config>> out;
    for (const tuned::TunedAttention& e : tuned::kEntries) {
      try {
        out.emplace_back(evotune::attention::parse_config(e.config));
      } catch (const std::exception&) {
        out.emplace_back(std::nullopt);
      }
    }
    return out;
  }();
  return configs;
}

// Launchers are created on first use and kept: one per device, kernel and stream. Per stream, because a
// split-KV launcher owns one workspace, which launches on streams that may run concurrently must not
// share (deploy/attention_launcher.h).
struct Registry {
  std::mutex mutex;
  std::map<int, Device> devices;
  // (device, stream, table entry or -1, the JIT default's config text, d, causal, bf16)
  using Key = std::tuple<int, void*, long, std::string, int, bool, bool>;
  std::map<Key, std::unique_ptr<evotune::AttentionLauncher>> launchers;
  // The JIT default's config text per (device, problem): heuristic_config costs 7-85 us (the causal
  // tile-order model walks the launch's tiles), which a call should not pay again for a shape it has seen.
  using ProblemKey = std::tuple<int, int, int, int, int, int, int, bool, bool>;
  std::map<ProblemKey, std::string> default_configs;
  // The table entry served per (device, problem), -1 for none: the lookup and the family's rules run once a
  // shape. Bounded as default_configs is.
  std::map<ProblemKey, long> served;
};

// Never destroyed: at process exit the CUDA driver may be torn down before this library's static
// destructors would run, and unloading modules then is neither needed nor safe.
Registry& registry() {
  static Registry* r = new Registry;
  return *r;
}

const Device& device_info(Registry& r, int ordinal) {
  auto it = r.devices.find(ordinal);
  if (it == r.devices.end()) {
    const evotune::runtime::DeviceProperties props = evotune::runtime::query_device(ordinal);
    Device d;
    d.name = props.name;
    d.sm = props.cc_major * 10 + props.cc_minor;
    d.limits = evotune::DeviceLimits::from(props);
    it = r.devices.emplace(ordinal, d).first;
  }
  return it->second;
}

// The table's entry for `problem` on this device, by the header's lookup (its contract and the requirements
// export wrote) and, as the one gate before every launch, the family's own rules on this device's limits: an
// entry they refuse is no match, and the lookup goes on to the next.
tuned::Lookup table_entry(const Device& dev, const evotune_attention_shape& s) {
  const bool masked = s.causal != 0 && s.sq > 1;
  const auto accept = [&](const tuned::TunedAttention& e) {
    const std::optional<evotune::Config>& config = entry_configs()[static_cast<std::size_t>(&e - tuned::kEntries)];
    if (!config) return false;
    evotune::attention::Problem launched = checked_problem(s);
    launched.causal = s.sq == 1 ? e.problem.causal : masked;  // a single query runs on either kernel
    return !evotune::attention::invalid_reason(*config, launched, dev.limits);
  };
  return tuned::lookup(dev.name.c_str(), dev.sm, problem_of(s), accept);
}

int forward(const evotune_attention_shape& s, const evotune_attention_layout* strides, uint64_t q, uint64_t k,
            uint64_t v, uint64_t o, uint64_t lse, void* stream, int device, float softmax_scale, bool allow_jit,
            char* error, size_t error_size) {
  evotune::attention::Problem problem = checked_problem(s);
  if (!std::isfinite(softmax_scale))
    throw std::invalid_argument("softmax_scale must be finite (0: 1/sqrt(d))");
  // Causal masking is aligned bottom-right, so one query sees every key: the same problem unmasked.
  const bool masked = problem.causal && problem.sq > 1;
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  const Device& dev = device_info(r, device);
  const Registry::ProblemKey problem_key{device, s.b, s.hq, s.hkv, s.sq, s.skv, s.d, masked, s.bf16 != 0};
  auto served = r.served.find(problem_key);
  if (served == r.served.end()) {
    if (r.served.size() >= 4096) r.served.clear();  // bounded: decode lengths grow
    const tuned::TunedAttention* entry = table_entry(dev, s).entry;
    served = r.served.emplace(problem_key, entry != nullptr ? static_cast<long>(entry - tuned::kEntries) : -1L).first;
  }
  const tuned::TunedAttention* const entry = served->second >= 0 ? &tuned::kEntries[served->second] : nullptr;
  evotune::AttentionShape shape{s.b, s.hq, s.hkv, s.sq, s.skv, s.d, masked, s.bf16 != 0};
  Registry::Key key;
  if (entry != nullptr) {
    key = {device, stream, served->second, "", 0, false, false};
  } else if (allow_jit) {
    problem.causal = masked;
    auto known = r.default_configs.find(problem_key);
    if (known == r.default_configs.end()) {
      if (r.default_configs.size() >= 4096) r.default_configs.clear();  // bounded: decode lengths grow
      const evotune::Config config = evotune::attention::heuristic_config(problem, dev.limits);
      known = r.default_configs.emplace(problem_key, evotune::attention::format(config)).first;
    }
    key = {device, stream, -1, known->second, s.d, masked, s.bf16 != 0};
  } else {
    return fail(
        EVOTUNE_NOT_COVERED,
        fmt::format("no tuned kernel for {} on {} (sm_{}) within the table's lookup contract (same head dim, "
                    "dtype, masking and decode/prefill kind, a config whose rules hold for it, distance <= {}); "
                    "allow JIT to compile evotune's problem-aware default with NVRTC",
                    problem_text(problem_of(s)), dev.name, dev.sm, tuned::kMaxDistance),
        error, error_size);
  }
  auto it = r.launchers.find(key);
  if (it == r.launchers.end()) {
    // A new launcher loads its module (and JIT may compile): not work to do while the stream is being
    // captured into a CUDA graph. The caller's warm-up call on this stream creates it instead.
    CUstreamCaptureStatus capture = CU_STREAM_CAPTURE_STATUS_NONE;
    const auto& driver = evotune::runtime::driver();
    if (driver.cuStreamIsCapturing(static_cast<CUstream>(stream), &capture) == CUDA_SUCCESS &&
        capture != CU_STREAM_CAPTURE_STATUS_NONE) {
      return fail(
          EVOTUNE_FAILED,
          fmt::format("the first call of {} on this stream is being captured into a CUDA graph; the "
                      "kernel is loaded (and its workspace allocated) on a stream's first call, which "
                      "a capture does not allow: call it once on this stream before capturing",
                      problem_text(problem_of(s))),
          error, error_size);
    }
    evotune::AttentionLauncherOptions options;
    options.device = device;  // the scale is per call (launch's argument): launchers are shared across calls
    // A table kernel that cannot run from its CUBIN (compiled from other kernel sources than this library's)
    // is compiled from its config when the call allows JIT, and refused otherwise.
    options.jit_fallback = allow_jit;
    // $EVOTUNE_COMBINE_LAUNCH=plain: split-KV combine kernels of launchers created from now on start after
    // the attention kernel instead of as programmatic dependent launches (AttentionLauncherOptions).
    const char* combine_launch = std::getenv("EVOTUNE_COMBINE_LAUNCH");
    options.programmatic_combine = combine_launch == nullptr || std::string_view(combine_launch) != "plain";
    // $EVOTUNE_BOUNDED_WAITS=1: check builds, compiled with NVRTC, whose barrier waits trap after 4 s.
    const char* bounded = std::getenv("EVOTUNE_BOUNDED_WAITS");
    options.bounded_waits = bounded != nullptr && std::string_view(bounded) == "1";
    auto launcher = entry != nullptr
                        ? std::make_unique<evotune::AttentionLauncher>(
                              evotune::AttentionLauncher::from_tuned(*entry, options))
                        : std::make_unique<evotune::AttentionLauncher>(std::get<3>(key), s.d, masked,
                                                                       s.bf16 != 0, options);
    it = r.launchers.emplace(key, std::move(launcher)).first;
  }
  std::optional<evotune::AttentionLayout> layout;
  if (strides != nullptr) {
    auto at = [](const int64_t (&s)[3]) { return evotune::AttentionStrides{s[0], s[1], s[2]}; };
    layout = evotune::AttentionLayout{at(strides->q), at(strides->k), at(strides->v), at(strides->o)};
  }
  it->second->launch(shape, q, k, v, o, static_cast<CUstream>(stream), lse, softmax_scale,
                     layout ? &*layout : nullptr);
  return EVOTUNE_OK;
}

}  // namespace

extern "C" {

int evotune_attention_forward(const evotune_attention_shape* shape, uint64_t q, uint64_t k, uint64_t v,
                              uint64_t o, uint64_t lse, void* stream, int device, float softmax_scale,
                              int allow_jit, char* error, size_t error_size) {
  return evotune_attention_forward_strided(shape, nullptr, q, k, v, o, lse, stream, device, softmax_scale,
                                           allow_jit, error, error_size);
}

int evotune_attention_forward_strided(const evotune_attention_shape* shape, const evotune_attention_layout* layout,
                                      uint64_t q, uint64_t k, uint64_t v, uint64_t o, uint64_t lse, void* stream,
                                      int device, float softmax_scale, int allow_jit, char* error,
                                      size_t error_size) {
  if (shape == nullptr) return fail(EVOTUNE_INVALID_ARGUMENT, "null shape", error, error_size);
  try {
    return forward(*shape, layout, q, k, v, o, lse, stream, device, softmax_scale, allow_jit != 0, error,
                   error_size);
  } catch (const std::invalid_argument& e) {
    return fail(EVOTUNE_INVALID_ARGUMENT, e.what(), error, error_size);
  } catch (const evotune::NoDeviceError& e) {
    return fail(EVOTUNE_NO_DEVICE, e.what(), error, error_size);
  } catch (const std::exception& e) {
    return fail(EVOTUNE_FAILED, e.what(), error, error_size);
  }
}

int evotune_attention_plan(const evotune_attention_shape* shape, const char* device_name, int sm,
                           int allow_jit, char* json, size_t json_size, char* error, size_t error_size) {
  if (shape == nullptr || device_name == nullptr) {
    return fail(EVOTUNE_INVALID_ARGUMENT, "null shape or device name", error, error_size);
  }
  try {
    checked_problem(*shape);
    // The forward's choice, with the published limits of the named architecture for the live device's.
    Device dev;
    dev.name = device_name;
    dev.sm = sm;
    if (sm > 0) {
      evotune::runtime::DeviceProperties props;
      props.cc_major = sm / 10;
      props.cc_minor = sm % 10;
      dev.limits = evotune::DeviceLimits::for_target(evotune::runtime::Target::parse(props.native_target()));
    }
    return write_json(plan_json(table_entry(dev, *shape), allow_jit != 0), json, json_size, error, error_size);
  } catch (const std::invalid_argument& e) {
    return fail(EVOTUNE_INVALID_ARGUMENT, e.what(), error, error_size);
  } catch (const std::exception& e) {
    return fail(EVOTUNE_FAILED, e.what(), error, error_size);
  }
}

int evotune_table(char* json, size_t json_size, char* error, size_t error_size) {
  try {
    nlohmann::json j;
    j["evotune_version"] = EVOTUNE_VERSION;
    j["max_distance"] = tuned::kMaxDistance;
    j["decode_max_queries"] = tuned::kDecodeMaxQueries;
    j["entries"] = nlohmann::json::array();
    for (const tuned::TunedAttention& e : tuned::kEntries) {
      j["entries"].push_back({{"device", e.device},
                              {"sm", e.sm},
                              {"target", e.target},
                              {"problem", problem_text(e.problem)},
                              {"decode", tuned::is_decode(e.problem)},
                              {"config", e.config},
                              {"kernel", e.kernel},
                              {"cubin_bytes", e.cubin_size},
                              {"median_us", e.median_us},
                              {"library_us", e.library_us},
                              {"reverified", e.reverified}});
    }
    return write_json(j, json, json_size, error, error_size);
  } catch (const std::exception& e) {
    return fail(EVOTUNE_FAILED, e.what(), error, error_size);
  }
}

int evotune_nvrtc_loaded(void) {
  return evotune::runtime::nvrtc_loaded() ? 1 : 0;
}

const char* evotune_version(void) {
  return EVOTUNE_VERSION;
}

}  // extern "C"
