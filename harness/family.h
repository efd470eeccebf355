#pragma once
// A kernel family behind one interface (DESIGN.md, "Families"): everything that is specific to one kind of
// kernel. The shared layers (search/, evidence/, cli/, the worker) reach a family only through this
// interface, found by name in the registry (families/registry.h); attention is one family, a user's kernel
// described by a spec file is another.
//
// The shared layers carry a problem as a FamilyProblem: the family's canonical text (what runs.problem
// records and the worker's argv carries) and its named integer sizes. A family parses and formats it.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "evidence/store.h"
#include "harness/timer.h"
#include "runtime/cuda_objects.h"
#include "runtime/nvrtc_compiler.h"
#include "runtime/prepare.h"
#include "runtime/device_limits.h"
#include "core/config.h"

namespace evotune::harness {

struct FamilyProblem {
  std::string text;                                        // canonical: parse(text).text == text
  std::vector<std::pair<std::string, std::int64_t>> sizes;  // named integers, in field order (enums: label index)
  std::int64_t at(std::string_view name) const;            // std::out_of_range naming the field
  bool operator==(const FamilyProblem& other) const { return text == other.text; }
};

// Build variants a family may offer beside the kernel a search times (bench's views); a family refuses
// the ones it does not have with a UsageError.
struct BuildFlags {
  bool cta_clock = false;      // record clock64 cycles per CTA (bench --timer clock64)
  bool bounded_waits = false;  // a wait that nothing completes traps with a message (bench --check)
};

// A family's verdict on one output, judged by DESIGN.md's rule (harness/check.h for the generic form).
struct CheckResult {
  bool passed = false;
  double max_abs_error = 0, rel_l2_error = 0, tolerance = 0;
  std::string reason;     // why not, when not
  nlohmann::json detail;  // the family's own figures (attention: same_precision_error, lse_max_error, nan_count)
};

// One prepared config loaded for its Bench's problem (module, launch plan, any workspace it needs).
class LoadedKernel {
 public:
  virtual ~LoadedKernel() = default;
  // One call of the kernel on the Bench's inputs and outputs; throws runtime::CudaError on a failed launch.
  virtual void launch(const runtime::Stream& stream) const = 0;
  // What `evotune bench` reports beside the time (attention: split count, combine).
  virtual nlohmann::json describe() const { return nlohmann::json::object(); }
};

// One problem on one device: seeded inputs distinct from each other, outputs poisoned before every check,
// the reference, and the check. Built once per worker.
class Bench {
 public:
  virtual ~Bench() = default;
  // Sets every output element to a value no correct kernel writes (NaN for floats), so an element the
  // kernel skips fails the check.
  virtual void poison_outputs(const runtime::Stream& stream) = 0;
  // Compares the outputs with the reference; synchronizes the stream.
  virtual CheckResult check(const runtime::Stream& stream) = 0;
  // Loads a prepared kernel (its CUBIN and lowered entry name) for this Bench's problem.
  virtual std::unique_ptr<LoadedKernel> load(const std::vector<char>& cubin, const std::string& kernel_name,
                                             const Config& config) = 0;
  // The run's reference points, measured on this worker's device and inputs beside the trials (attention:
  // the unfused cuBLAS pipeline and the device's peaks). `batch`: launches per timed sample, 0 to decide.
  virtual std::vector<evidence::BaselineRecord> baselines(Timer& timer, const runtime::Stream& stream,
                                                          const TimingOptions& timing) {
    (void)timer, (void)stream, (void)timing;
    return {};
  }
};

// What a Bench is built with.
struct BenchContext {
  const runtime::DeviceProperties& props;
  DeviceLimits limits;
  runtime::Target target;
  runtime::Compiler& utilities;  // compiles the family's own helper kernels (fill, reference, compare)
  const runtime::Stream& stream;
  std::uint64_t seed = 1;
};

// A winner as export hands it to its family's header writer: the run's fastest config, its CUBIN compiled
// ahead of time for the run's device (empty when exported without), and what re-verification found.
struct ExportedWinner {
  std::int64_t run_id = 0;
  int trial_seq = 0;
  std::string device;  // the driver's name for the GPU
  int sm = 0;          // compute capability x 10; 0 when the run recorded none
  std::string strategy, run_created_at;
  int run_trials = 0;
  FamilyProblem problem;
  Config config;
  double median_us = 0, p10_us = 0, p90_us = 0, tflops = 0, gbps = 0;
  std::vector<evidence::BaselineRecord> baselines;  // of its run, those with a median
  bool reverified = false;
  std::string verification;  // what re-verification did and found, or why none ran
  std::string target;        // e.g. sm_90a; empty with no CUBIN
  std::string kernel_name;   // lowered entry name
  std::vector<char> cubin;
  runtime::ResourceUsage resources;
};

struct ExportInput {
  std::string command;   // the command line that regenerates the header (file names, not paths)
  std::string database;  // its file name
  std::string evotune_version;
  std::vector<ExportedWinner> winners;
};

// evotune bench's request: one config of one problem on one device, checked and timed beside the family's
// reference points and library baselines.
struct BenchRequest {
  FamilyProblem problem;
  std::string config;  // "" or "default[,NAME=VALUE,...]": the problem-aware default (changed)
  int device = 0;
  int repetitions = 50;
  int batch = 0;  // launches per timed sample; 0: decided by the kernel's length
  std::uint64_t seed = 1;
  std::string l2_flush = "read";
  std::string timer = "events";        // or clock64: cycles per CTA too, where the family can
  std::string combine_launch = "pdl";  // attention's split-KV combine: pdl or plain
  bool check = false;                  // bounded barrier waits, where the family has them
  bool json = false;
  std::string json_out;  // also append the JSON record to this file
  bool baseline = true;  // the reference points (Bench::baselines) and library baselines
  bool library_baseline = true;
  int library_reps = 30;
};

class Family {
 public:
  virtual ~Family() = default;

  // What runs.family records and --family names: "attention", or "user_kernel:<spec's name>".
  virtual std::string id() const = 0;
  virtual std::string description() const = 0;

  // ---- Problem
  // --problem's help: the fields and an example.
  virtual std::string problem_help() const = 0;
  // Parses and validates; throws UsageError with a one-line reason.
  virtual FamilyProblem parse_problem(std::string_view text) const = 0;
  virtual nlohmann::json problem_json(const FamilyProblem& problem) const = 0;
  // The problems a search runs when none is given (a spec's listed sizes); empty: --problem is required.
  virtual std::vector<FamilyProblem> listed_problems() const { return {}; }
  // How far apart two problems are for reusing a config (history seeds, the exported lookup); 0 only for
  // the same problem.
  virtual double distance(const FamilyProblem& a, const FamilyProblem& b) const = 0;
  virtual double flops(const FamilyProblem& problem) const = 0;
  virtual double bytes(const FamilyProblem& problem) const = 0;

  // ---- Parameters and rules
  virtual const std::vector<Parameter>& parameters() const = 0;
  // The problem-aware default: generation 0 of a search, bench's config when none is given.
  virtual Config default_config(const FamilyProblem& problem, const DeviceLimits& limits) const = 0;
  // Other seeds worth a look (the other side of the default's rules); may be empty.
  virtual std::vector<Config> default_alternatives(const FamilyProblem& problem, const DeviceLimits& limits) const {
    (void)problem, (void)limits;
    return {};
  }
  // Why this config cannot run this problem on a device with these limits (nullopt: it can).
  virtual std::optional<std::string> invalid_reason(const Config& config, const FamilyProblem& problem,
                                                    const DeviceLimits& limits) const = 0;
  // Valid, but outside the default search space (known not to pay).
  virtual std::optional<std::string> excluded_by_default(const Config& config, const FamilyProblem& problem,
                                                         const DeviceLimits& limits) const {
    (void)config, (void)problem, (void)limits;
    return std::nullopt;
  }
  // The canonical form of a config whose values do not matter in part (see search/space.h).
  virtual Config conform(const Config& config) const { return config; }
  // A config recorded before some tunable existed, completed with that tunable's neutral value.
  virtual Config complete_recorded(const Config& recorded) const { return recorded; }

  // ---- Prepare (compile and judge) and run
  // What NVRTC compiles for a config (source, name expression, options); prepare() judges it before and after.
  virtual runtime::CompileRequest compile_request(const Config& config, const FamilyProblem& problem,
                                                  const runtime::Target& target) const = 0;
  virtual runtime::Preparation prepare(const Config& config, const FamilyProblem& problem, const DeviceLimits& limits,
                                       const runtime::Target& target, runtime::Compiler& compiler,
                                       const BuildFlags& build = {}) const = 0;
  virtual std::unique_ptr<Bench> make_bench(const FamilyProblem& problem, const BenchContext& context) const = 0;
  // The library kernels a user already has (attention: PyTorch SDPA's backends; a spec's baseline command),
  // timed by an outside program on `device` while the search's workers are idle, after the trials.
  // `batch`: launches per timed sample (the confirmation's), 0 to decide. `unavailable` says why none ran.
  struct LibraryBaselines {
    std::vector<evidence::BaselineRecord> records;
    std::string unavailable;
  };
  virtual LibraryBaselines library_baselines(const FamilyProblem& problem, int device, int batch) const {
    (void)problem, (void)device, (void)batch;
    return {{}, "this family has no library baseline"};
  }
  // What the search says it is measuring in Bench::baselines ("unfused cuBLAS attention, GEMM and copy peaks").
  virtual std::string baselines_description() const { return "the family's reference points"; }

  // evotune bench: harness::run_bench (harness/bench.h) unless the family reports more. Throws UsageError
  // for an option the family does not have, std::runtime_error when the kernel's output is wrong.
  virtual void bench(const BenchRequest& request, runtime::Compiler& compiler) const;

  // ---- Export
  // A digest of every source a kernel of this family is built from, recorded with each exported CUBIN.
  virtual const std::string& sources_digest() const = 0;
  // The problems export re-verifies a winner on beside its own (tails, other shapes of the same kind).
  virtual std::vector<FamilyProblem> verification_problems(const FamilyProblem& problem) const { return {problem}; }
  // The kernel export embeds for a winner: by default the one prepare() builds for its own problem
  // (attention builds one that runs any shape of the winner's kind).
  virtual runtime::Preparation compile_for_export(const Config& config, const FamilyProblem& problem,
                                                  const DeviceLimits& limits, const runtime::Target& target,
                                                  runtime::Compiler& compiler) const {
    return prepare(config, problem, limits, target, compiler);
  }
  // The C++ header export writes: every winner's CUBIN, launch geometry and a lookup by problem that serves
  // an entry only where the family's rules hold. Throws UsageError for a winner it cannot write.
  virtual std::string render_header(const ExportInput& input) const = 0;
  virtual std::string default_header_name() const { return "tuned_" + id() + ".h"; }

  // ---- Generic helpers over parameters()
  std::string format_config(const Config& config) const;
  // "name=value,..." (or "default" or "default,name=value,...") over the problem-aware default: names not
  // given keep the default's values. Throws UsageError with a one-line reason.
  virtual Config parse_config(std::string_view text, const FamilyProblem& problem, const DeviceLimits& limits) const;
};

}  // namespace evotune::harness
