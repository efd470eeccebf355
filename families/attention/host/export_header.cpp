#include "families/attention/host/export_header.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <map>
#include <stdexcept>

#include "evidence/config_text.h"
#include "evidence/header_text.h"

namespace evotune::evidence {
namespace {

// Doubles written so the header reads them back exactly as stored; a stored infinity (SQLite keeps
// 1e999 as one) is HUGE_VAL from <cmath>, which the header includes, never the "inf" fmt would write.
std::string cpp_number(double v) {
  if (std::isnan(v)) return "NAN";
  if (std::isinf(v)) return v > 0 ? "HUGE_VAL" : "-HUGE_VAL";
  return fmt::format("{}", v);
}

// A numeric tunable's value as C++ source: an int, and nothing else.
std::string integer(const std::string& name, const std::string& value) {
  int parsed = 0;
  const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), parsed);
  if (ec != std::errc() || end != value.data() + value.size()) {
    throw std::invalid_argument(fmt::format("tunable {}={} is not an integer", name, comment_text(value)));
  }
  return std::to_string(parsed);
}

std::map<std::string, std::string> labels_by_name(const std::string& config_text) {
  auto pairs = split_config_text(config_text);
  if (!pairs) throw std::invalid_argument(fmt::format("config '{}' is not name=label,...", comment_text(config_text)));
  return {pairs->begin(), pairs->end()};
}

// Include guards, not #pragma once: the header must also compile as a main file without a warning.
constexpr const char* kPreamble = R"cpp(#ifndef EVOTUNE_TUNED_ATTENTION_H
#define EVOTUNE_TUNED_ATTENTION_H
#include <cmath>
#include <cstddef>
#include <cstring>

namespace evotune_tuned {

// One attention forward problem. Layout BHSD, contiguous; causal aligned bottom-right.
struct AttentionProblem {
  int b, hq, hkv, sq, skv, d;
  bool causal;
  bool bf16;  // false: fp16
};

// What an entry's config needs of a problem beyond its kind: evotune's validity rules that depend on the GQA
// group, the key length and the rows, written out at export. lookup() serves an entry only to problems that
// meet them; outside them a kernel may compute garbage or wait forever (a packed tile that does not hold
// whole groups of query heads waits for TMA bytes that never come).
struct ProblemRequirements {
  int group_divides;   // the GQA group (hq / hkv) must divide this; 0: any group
  int min_group;       // 2 where GQA heads are packed into tiles: hq > hkv
  int min_skv;         // a fixed split-KV count needs a key block in every chunk
  long long max_skv;   // scheduler=stream_k's 32-bit tail arithmetic; 0: no bound
  long long max_rows;  // b * hq * sq, bounded by a fixed split count's workspace; 0: no bound
};

)cpp";

constexpr const char* kLookup = R"cpp(
// How lookup() matched: the same GPU model and problem; the same problem on another GPU of the same
// family (compute capability); the nearest problem of the same kind within kMaxDistance; or none.
enum class Match { exact, same_family, nearest_problem, none };

inline const char* match_name(Match m) {
  switch (m) {
    case Match::exact: return "exact";
    case Match::same_family: return "same device family, same problem";
    case Match::nearest_problem: return "nearest problem";
    default: return "none";
  }
}

struct Lookup {
  const TunedAttention* entry;  // null: no entry qualifies (run the problem-aware default instead)
  Match match;
  double distance;  // between the problems (0: same problem)
};

// The lookup contract.
// An entry qualifies for a problem only on the same device family (sm) and with the same head dim, dtype,
// masking and kind, and only where its config runs the problem (runs(): evotune's validity rules, which the
// export wrote into the entry; no entry is served outside them). A config's tiles are sized for its head dim
// and its shared memory for its architecture; a decode config (a few query rows against a long cache: packed
// GQA heads, K/V split over CTAs) and a prefill config are different kernels, each slow at the other's work.
// Among those entries the
// problem distance ranks them, and the nearest wins (on a tie, the same GPU model) if it is within
// kMaxDistance; farther than that, lookup returns no entry and the caller runs evotune's problem-aware
// default (AttentionLauncher::with_default_config), which is tuned to no shape but sized for every one.
inline constexpr int kDecodeMaxQueries = 16;  // sq <= 16 is decode: one step, or a few speculative tokens
// In log2 units: 8x the batch x heads alone, or 2x each of batch x heads, query and key lengths.
inline constexpr double kMaxDistance = 3.0;

inline bool is_decode(const AttentionProblem& p) { return p.sq <= kDecodeMaxQueries; }
// Causal masking is aligned bottom-right: a single query sees every key, as without masking.
inline bool masked(const AttentionProblem& p) { return p.causal && p.sq > 1; }

inline bool same_kind(const AttentionProblem& a, const AttentionProblem& b) {
  return a.d == b.d && a.bf16 == b.bf16 && masked(a) == masked(b) && is_decode(a) == is_decode(b);
}

// A problem evotune's kernels take at all: positive sizes, hq a multiple of hkv, sq <= skv.
inline bool well_formed(const AttentionProblem& p) {
  return p.b > 0 && p.hq > 0 && p.hkv > 0 && p.sq > 0 && p.skv > 0 && p.d > 0 && p.hq % p.hkv == 0 && p.sq <= p.skv;
}

// Whether entry `e`'s kernel may run `p` (of its kind): compiled with the causality `p` runs with (a single
// query runs either way), and `p` meets its config's requirements. lookup() serves no other entry.
inline bool runs(const TunedAttention& e, const AttentionProblem& p) {
  const ProblemRequirements& r = e.needs;
  const int group = p.hq / p.hkv;
  const long long rows = static_cast<long long>(p.b) * p.hq * p.sq;
  return (e.problem.causal == masked(p) || p.sq == 1) && group >= r.min_group &&
         (r.group_divides == 0 || r.group_divides % group == 0) && p.skv >= r.min_skv &&
         (r.max_skv == 0 || p.skv <= r.max_skv) && (r.max_rows == 0 || rows <= r.max_rows);
}

// log2 ratios of batch x heads, query and key lengths, plus 1 for another GQA group size.
inline double problem_distance(const AttentionProblem& a, const AttentionProblem& b) {
  auto log_ratio = [](double x, double y) { return std::fabs(std::log2(x / y)); };
  double d = log_ratio(double(a.b) * a.hq, double(b.b) * b.hq) + log_ratio(a.sq, b.sq) + log_ratio(a.skv, b.skv);
  if (a.hq / a.hkv != b.hq / b.hkv) d += 1;
  return d;
}

// The entry to run `problem` with on a GPU named `device` (the driver's name, e.g. from
// cudaGetDeviceProperties) of compute capability `sm` (e.g. 90), by the contract above: among the entries that
// run it (runs()) and that `accept` takes (a caller that knows more, such as evotune's C ABI with the live
// device's limits, filters further), the nearest. A malformed problem matches nothing.
template <typename Accept>
inline Lookup lookup(const char* device, int sm, const AttentionProblem& problem, Accept accept) {
  Lookup best{nullptr, Match::none, 0.0};
  if (device == nullptr || !well_formed(problem)) return best;
  bool best_same_device = false;
  for (const TunedAttention& e : kEntries) {
    if (e.sm != sm || !same_kind(e.problem, problem) || !runs(e, problem) || !accept(e)) continue;
    const double distance = problem_distance(e.problem, problem);
    if (distance > kMaxDistance) continue;
    const bool same_device = std::strcmp(e.device, device) == 0;
    if (best.entry != nullptr &&
        (distance > best.distance || (distance == best.distance && (best_same_device || !same_device)))) {
      continue;
    }
    best = {&e, distance == 0 ? (same_device ? Match::exact : Match::same_family) : Match::nearest_problem, distance};
    best_same_device = same_device;
  }
  return best;
}

inline Lookup lookup(const char* device, int sm, const AttentionProblem& problem) {
  return lookup(device, sm, problem, [](const TunedAttention&) { return true; });
}

}  // namespace evotune_tuned

#endif  // EVOTUNE_TUNED_ATTENTION_H
)cpp";

}  // namespace

std::string render_tuned_header(const TunedHeaderInput& in) {
  if (in.entries.empty()) throw std::invalid_argument("no entries to export");
  std::string out;
  out += fmt::format(
      "// Attention kernels tuned by evotune {}: the winners of searches on real GPUs, with their CUBINs.\n"
      "// Exported from {} by:\n//   {}\n"
      "// Do not edit; export again (the same database gives the same bytes). Self-contained C++17.\n"
      "//\n"
      "// Use:\n"
      "//   evotune_tuned::Lookup found = evotune_tuned::lookup(device_name, sm, {{b, hq, hkv, sq, skv, d, causal, bf16}});\n"
      "//   if (found.entry) {{ auto launcher = evotune::AttentionLauncher::from_tuned(*found.entry); ... }}\n"
      "// (evotune's launcher library, deploy/attention_launcher.h: it loads the CUBIN with the CUDA driver\n"
      "// alone; no NVRTC), or load entry->cubin yourself: cuModuleLoadData, then entry->kernel.\n"
      "//\n"
      "// Times are medians of CUDA-event-timed launches with L2 flushed before each, measured during the\n"
      "// search on the GPU named; TFLOP/s counts 4*b*hq*sq*skv*d, causal as the visible fraction.\n",
      comment_text(in.evotune_version), comment_text(in.database), comment_text(in.command));
  out += kPreamble;

  out += "// The tunables of evotune's attention family (`evotune search --help`; docs/attention.md).\n";
  out += "struct AttentionTunables {\n";
  for (const auto& [name, numeric] : in.tunables) out += fmt::format("  {} {};\n", numeric ? "int" : "const char*", name);
  out += "};\n\n";
  out += R"cpp(struct TunedAttention {
  const char* device;  // GPU name, as the driver reports it
  int sm;              // compute capability x 10: the device family
  AttentionProblem problem;
  ProblemRequirements needs;  // of other problems it serves (runs())
  const char* config;  // evotune config text, every tunable named: what the launcher compiles
  AttentionTunables tunables;
  double median_us, p10_us, p90_us;  // measured by the search
  double tflops;
  double baseline_us;  // unfused cuBLAS attention measured in the same run; 0 when none was
  double library_us;   // the fastest PyTorch SDPA backend measured in the same run; 0 when none was
  long long run_id;    // in the evidence database the header was exported from
  int trial;           // the trial's seq in that run
  bool reverified;     // checked again at export, on new inputs and a tail shape, on this GPU model or
                       // another of its family (the comment above the entry says which)
  // The kernel, compiled ahead of time for one exact target; it serves any batch, head count and lengths
  // of this head dim, dtype and causality (the grid is planned per call by evotune's launcher).
  const char* target;          // e.g. "sm_90a": the CUBIN loads only on a device of exactly this architecture
  const char* kernel;          // the attention kernel's name in the CUBIN
  const char* sources;         // digest of the kernel sources it was compiled from: evotune's launcher runs
                               // it only if its own sources match (else export again, or JIT)
  int threads;                 // per CTA
  int shared_bytes;            // dynamic shared memory per CTA
  const unsigned char* cubin;  // null when exported with --no-cubin
  std::size_t cubin_size;
};

)cpp";

  for (std::size_t i = 0; i < in.entries.size(); ++i) {
    const TunedEntry& e = in.entries[i];
    out += fmt::format("// {}: {} ({})\n", comment_text(e.device), comment_text(e.problem_text), fmt::format("sm_{}", e.sm));
    out += fmt::format("//   run {} ({}, {} trials, started {}), trial {}: median {:.2f} us (p10 {:.2f}, p90 {:.2f}), "
                       "{:.1f} TFLOP/s, {:.0f} GB/s\n",
                       e.run_id, comment_text(e.strategy), e.run_trials, comment_text(e.run_created_at), e.trial_seq,
                       e.median_us, e.p10_us,
                       e.p90_us, e.tflops, e.gbps);
    if (e.baselines.empty()) {
      out += fmt::format("//   speedup: no baseline was measured in run {}\n", e.run_id);
    }
    for (const TunedBaseline& b : e.baselines) {
      out += fmt::format("//   speedup over {} measured in run {}: {:.2f}x ({:.2f} us)\n", comment_text(b.name), e.run_id,
                         b.median_us / e.median_us, b.median_us);
    }
    std::size_t start = 0;
    while (start < e.verification.size()) {  // one comment line per line of the verification text
      std::size_t end = e.verification.find('\n', start);
      if (end == std::string::npos) end = e.verification.size();
      out += "//   " + comment_text(e.verification.substr(start, end - start)) + "\n";
      start = end + 1;
    }
    const auto labels = labels_by_name(e.config_text);
    std::string tunables;
    for (const auto& [name, numeric] : in.tunables) {
      auto it = labels.find(name);
      if (it == labels.end()) {
        throw std::invalid_argument(fmt::format("entry {} has no tunable {}", i, comment_text(name)));
      }
      if (!tunables.empty()) tunables += ", ";
      std::string value = it->second;
      if (auto named = in.named_values.find(name); named != in.named_values.end() && value == named->second.second)
        value = std::to_string(named->second.first);
      tunables += numeric ? integer(name, value) : literal(value);
    }
    double baseline = 0, library = 0;
    for (const TunedBaseline& b : e.baselines) {
      if (b.name == "cublas_unfused") baseline = b.median_us;
      if (b.name.rfind("sdpa_", 0) == 0 && b.median_us > 0 && (library == 0 || b.median_us < library))
        library = b.median_us;
    }
    const bool has_cubin = !e.cubin.empty();
    if (has_cubin) {
      out += fmt::format("//   ahead of time: {} bytes of CUBIN for {}, {} threads, {} bytes of shared memory per CTA; "
                         "grid ({}, {}, {}) for this problem\n",
                         e.cubin.size(), comment_text(e.target), e.threads, e.shared_bytes, e.grid[0], e.grid[1],
                         e.grid[2]);
      out += fmt::format("alignas(64) inline constexpr unsigned char kCubin{}[] = {{{}}};\n", i, byte_array(e.cubin));
    } else {
      out += "//   no CUBIN (exported with --no-cubin, or its run recorded no device architecture): the launcher\n"
             "//   compiles the config with NVRTC\n";
    }
    out += fmt::format(
        "inline constexpr TunedAttention kEntry{} = {{\n    {}, {},\n    {{{}, {}, {}, {}, {}, {}, {}, {}}},\n"
        "    {{{}, {}, {}, {}, {}}},\n    {},\n"
        "    {{{}}},\n    {}, {}, {}, {}, {}, {}, {}, {}, {},\n    {}, {}, {}, {}, {}, {}, {}}};\n\n",
        i, literal(e.device), e.sm, e.b, e.hq, e.hkv, e.sq, e.skv, e.d, e.causal ? "true" : "false",
        e.bf16 ? "true" : "false", e.needs.group_divides, e.needs.min_group, e.needs.min_skv, e.needs.max_skv,
        e.needs.max_rows, literal(e.config_text), tunables, cpp_number(e.median_us),
        cpp_number(e.p10_us), cpp_number(e.p90_us), cpp_number(e.tflops), cpp_number(baseline), cpp_number(library),
        e.run_id, e.trial_seq,
        e.reverified ? "true" : "false", literal(e.target), literal(e.kernel_name), literal(e.sources), e.threads,
        e.shared_bytes,
        has_cubin ? fmt::format("kCubin{}", i) : std::string("nullptr"), has_cubin ? fmt::format("sizeof(kCubin{})", i) : "0");
  }
  out += "inline constexpr TunedAttention kEntries[] = {";
  for (std::size_t i = 0; i < in.entries.size(); ++i) out += fmt::format("{}kEntry{}", i ? ", " : "", i);
  out += "};\n";
  out += kLookup;
  return out;
}

}  // namespace evotune::evidence
