#pragma once
// The prepare stage: a compile request of a config that passed its family's rules becomes a kernel ready
// to load (its cache key, entry name and resources), or the reason it is rejected: it does not compile,
// its compile ran past the time limit, or ptxas's resource report fails the family's rule (spills).
// Families wrap this with their own rules (attention::prepare); every path from a config to a loaded
// kernel (search, compile-only, bench, compile, export's re-verification, the launcher) goes through it,
// so a config is judged once, the same way everywhere.
//
// Both outcomes are cached: kernels in the cubin cache, compile failures beside them (cubin_cache.h),
// so a config is never compiled twice; a worker then only loads, checks and times what was prepared.
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "runtime/nvrtc_compiler.h"

namespace evotune::runtime {

struct PreparedKernel {
  std::string cache_key;    // the cubin cache's entry for it (workers load the CUBIN from there)
  std::string kernel_name;  // lowered (mangled) name of the entry point
  ResourceUsage resources;
  double compile_seconds = 0;  // NVRTC time of its build, wherever and whenever that ran
  bool compiled_now = false;   // false: found in the cache
  std::shared_ptr<const std::vector<char>> cubin;  // the CUBIN itself
};

struct Rejection {
  enum class Kind {
    rule,             // the family's validity rules, before compiling
    compile_error,    // the source does not compile (or the compiler process died)
    compile_timeout,  // the compile ran past its time limit
    resources,        // compiled, but the resource report fails the family's rule (register spills)
  };
  Kind kind = Kind::rule;
  std::string reason;
  double compile_seconds = 0;  // NVRTC time spent on it (0 for rule rejections)
  bool compiled_now = false;   // false: answered by the rules or from the cache
  // Kind::resources: what it compiled to, never to be launched (its report, for the record and for
  // `evotune compile`).
  std::optional<PreparedKernel> compiled;
  // How a trial records it (invalid, compile_error, compile_timeout) is harness::trial_status
  // (harness/rejection_status.h): the runtime knows no trials.
};

using Preparation = std::variant<PreparedKernel, Rejection>;

// Why a kernel with this resource report must not run (nullopt: it may).
using ResourceRule = std::function<std::optional<std::string>(const ResourceUsage&)>;

// Compiles `request` through `compiler` (normally a CachingCompiler) and judges the kernel that the name
// expression `entry` lowered to by `reject`. Never throws for the config's own failures; they come back as
// a Rejection.
Preparation prepare_kernel(Compiler& compiler, const CompileRequest& request, const std::string& entry,
                           const ResourceRule& reject);

inline const PreparedKernel* prepared(const Preparation& p) { return std::get_if<PreparedKernel>(&p); }
inline const Rejection* rejected(const Preparation& p) { return std::get_if<Rejection>(&p); }

}  // namespace evotune::runtime
