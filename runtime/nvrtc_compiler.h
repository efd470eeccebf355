#pragma once
// Source + name expressions + options -> CUBIN for one exact target, through NVRTC.
//
// The pipeline is deliberately thin (kernel_launcher's lesson): a request is plain data, a result is
// plain data, and the Compiler interface lets a cache or a pool wrap any compiler. Every compile asks
// ptxas for its verbose report, so resource usage (registers, shared memory, spills, stack) is known
// without a GPU.
#include <nlohmann/json_fwd.hpp>

#include <atomic>
#include <filesystem>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "runtime/target.h"

namespace evotune::runtime {

struct CompileRequest {
  std::string source_name = "kernel.cu";  // shown in NVRTC's messages
  std::string source;
  // Files the source may #include by name (e.g. the family's .cuh files), given to NVRTC in memory.
  std::vector<std::pair<std::string, std::string>> headers;
  // Template instantiations to emit, e.g. "scaled_sum<256, 4, __half>"; each gets a lowered name.
  std::vector<std::string> name_expressions;
  // Options beyond the ones the compiler always adds (arch, std, include dir, ptxas -v): -D..., etc.
  std::vector<std::string> options;
  Target target;
  std::string label;  // for messages: which config this is
};

// ptxas's report for one kernel.
struct ResourceUsage {
  int registers = 0;
  int shared_bytes = 0;  // static shared memory
  int barriers = 0;
  int stack_frame_bytes = 0;
  int spill_store_bytes = 0;
  int spill_load_bytes = 0;
  // ptxas serialized the function's wgmma.mma_async ("Potential Performance Loss: wgmma.mma_async
  // instructions are serialized due to ..."): each waits for the one before it, which costs a Hopper
  // attention kernel 10-50% (probe/call14), and nothing else in the report shows it.
  bool wgmma_serialized = false;
  bool operator==(const ResourceUsage&) const = default;
};

struct CompileResult {
  std::vector<char> cubin;
  std::map<std::string, std::string> lowered_names;  // name expression -> mangled kernel name
  std::map<std::string, ResourceUsage> resources;    // mangled kernel name -> report
  std::string log;
  double compile_seconds = 0.0;  // NVRTC time of the build (for a cache hit: recorded when it was built)
  bool from_cache = false;       // true: answered from the disk cache, no compile ran now

  const std::string& lowered(const std::string& name_expression) const;
  // The resource report of the kernel a name expression lowered to.
  const ResourceUsage& resources_of(const std::string& name_expression) const;
};

// A failed compile: the source does not compile for the target. what() holds the label, target and the
// full NVRTC log. Such a failure is a property of the request, so the cache keeps it too.
class CompileError : public std::runtime_error {
 public:
  CompileError(const std::string& message, std::string log, double compile_seconds = 0.0, bool from_cache = false)
      : std::runtime_error(message), log_(std::move(log)), compile_seconds_(compile_seconds), from_cache_(from_cache) {}
  const std::string& log() const { return log_; }
  double compile_seconds() const { return compile_seconds_; }  // spent before it failed
  bool from_cache() const { return from_cache_; }              // a failure recorded earlier, not compiled now

 private:
  std::string log_;
  double compile_seconds_;
  bool from_cache_;
};

// A compile stopped at its time limit (compiles in processes can be stopped; see compile_processes.h).
// Cached with its limit: a later compile under the same or a shorter limit is answered from the cache.
class CompileTimeout : public CompileError {
 public:
  CompileTimeout(const std::string& message, double limit_seconds, bool from_cache = false)
      : CompileError(message, "", limit_seconds, from_cache), limit_seconds_(limit_seconds) {}
  double limit_seconds() const { return limit_seconds_; }

 private:
  double limit_seconds_;
};

class Compiler {
 public:
  virtual ~Compiler() = default;
  virtual CompileResult compile(const CompileRequest& request) = 0;
  // A string that determines the output completely (source, headers, every option, compiler version,
  // target): the cache key is its hash.
  virtual std::string cache_identity(const CompileRequest& request) const = 0;
  // The time limit of one compile, when this compiler enforces one (it then throws CompileTimeout).
  virtual std::optional<double> time_limit_seconds() const { return std::nullopt; }
};

// The cubin cache's key of a request: SHA-256 (hex) of the compiler's cache identity.
std::string cache_key(const Compiler& compiler, const CompileRequest& request);

// Candidate CUDA include directories, in the order searched: $CUDA_HOME, $CUDA_PATH, the nvcc on
// $PATH, /usr/local/cuda, and the toolkit this binary was built against.
std::vector<std::filesystem::path> default_cuda_include_candidates();
// The first candidate holding cuda_fp16.h; throws std::runtime_error listing what was tried.
std::filesystem::path find_cuda_include_dir(const std::vector<std::filesystem::path>& candidates);

// Parses ptxas -v output (as NVRTC returns it in the program log) into per-kernel reports.
std::map<std::string, ResourceUsage> parse_ptxas_report(const std::string& log);

// "13.0"
std::string nvrtc_version();
// The compute capabilities this NVRTC compiles for (nvrtcGetSupportedArchs), e.g. 75, 80, ..., 120.
std::vector<int> nvrtc_supported_architectures();

// The SM version a CUBIN was built for (80, 90, ...), read from its ELF header (e_machine EM_CUDA,
// SM in bits 8-15 of e_flags); throws std::invalid_argument for anything that is not a CUDA ELF.
int cubin_compute_capability(const std::vector<char>& cubin);

class NvrtcCompiler : public Compiler {
 public:
  // Finds the CUDA include directory now, so a missing toolkit fails before any compile.
  NvrtcCompiler();
  explicit NvrtcCompiler(std::filesystem::path cuda_include_dir);

  CompileResult compile(const CompileRequest& request) override;
  std::string cache_identity(const CompileRequest& request) const override;

  // The exact option list passed to nvrtcCompileProgram.
  std::vector<std::string> effective_options(const CompileRequest& request) const;
  // How many times nvrtcCompileProgram has been called through this object (the cache tests use it).
  int invocations() const { return invocations_.load(); }
  const std::filesystem::path& cuda_include_dir() const { return cuda_include_dir_; }

 private:
  std::filesystem::path cuda_include_dir_;
  std::atomic<int> invocations_{0};
};

nlohmann::json to_json(const ResourceUsage& usage);
ResourceUsage resource_usage_from_json(const nlohmann::json& j);
// Sets what the ptxas log alone tells (wgmma_serialized) on a result whose resources came from JSON (a cache
// entry, a compile process's reply): the log is the record, so entries cached before a warning was read
// answer the same as a fresh compile.
void read_log_warnings(CompileResult& result);

}  // namespace evotune::runtime
