#pragma once
// Compiles in child processes. NVRTC serializes much of its work inside one process: on the H100 host,
// one process stops near 40 compiles/s however many threads call it, while separate processes scale with
// cores (16 processes: ~230/s on a small kernel). So the search compiles in a pool of `evotune
// compile-server` children, each running one NVRTC compile at a time.
//
// CompileProcessPool is a Compiler: compile() sends the request to an idle child over a pipe and blocks
// until the CUBIN, lowered names and ptxas report come back, so it drops in wherever a Compiler goes
// (under a CachingCompiler, behind a thread pool whose threads only wait on pipes). Up to `processes`
// compiles run at once. A child that dies is recorded in the error and replaced; one that runs past the
// time limit is killed and replaced, and the compile throws CompileTimeout.
//
// The protocol, client and server both here: a request is one line of JSON (the CompileRequest); the
// reply is one line of JSON (ok, lowered names, resources, log, NVRTC seconds, cubin_bytes, or the
// error) followed by cubin_bytes raw bytes.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "runtime/child_process.h"
#include "runtime/nvrtc_compiler.h"

namespace evotune::runtime {

struct CompileProcessOptions {
  // The executable and its arguments up to the compile server's own, e.g. {"/path/evotune",
  // "compile-server"}; the pool appends --cuda-include DIR so the children compile exactly what
  // cache_identity() describes.
  std::vector<std::string> command;
  unsigned processes = 0;  // 0: one per hardware thread
  std::optional<double> time_limit_seconds;
  // Scheduling priority of the children (nice): above 0 they yield the CPU to the process that feeds the
  // GPU, which must not wait behind a compiler.
  int niceness = 0;
};

class CompileProcessPool : public Compiler {
 public:
  explicit CompileProcessPool(CompileProcessOptions options);
  ~CompileProcessPool() override;
  CompileProcessPool(const CompileProcessPool&) = delete;
  CompileProcessPool& operator=(const CompileProcessPool&) = delete;

  // Thread-safe; blocks while every child is busy. Throws CompileError (the source does not compile),
  // CompileTimeout (killed at the limit), or std::runtime_error (the child died: the message says how).
  CompileResult compile(const CompileRequest& request) override;
  std::string cache_identity(const CompileRequest& request) const override { return local_.cache_identity(request); }
  std::optional<double> time_limit_seconds() const override { return options_.time_limit_seconds; }

  // Starts every child now instead of on first use (compile-bench keeps start-up out of its timing).
  void start_all();
  unsigned processes() const { return static_cast<unsigned>(slots_.size()); }
  int restarts() const { return restarts_.load(); }  // children replaced after a crash or a timeout

 private:
  struct Slot {
    ChildProcess process;
    bool busy = false;
  };
  void start(Slot& slot);
  CompileResult exchange(Slot& slot, const CompileRequest& request);

  CompileProcessOptions options_;
  NvrtcCompiler local_;  // for cache_identity: the children use its include directory
  std::mutex mutex_;
  std::condition_variable idle_;
  std::vector<Slot> slots_;
  std::atomic<int> restarts_{0};
};

// The child's side: reads requests from `in_fd`, compiles each with `compiler`, writes each reply to
// `out_fd`, until `in_fd` closes. Returns 0 then, 1 when a request cannot be read.
int serve_compile_requests(int in_fd, int out_fd, Compiler& compiler);

// The protocol's request line, both ways (exposed for tests).
std::string compile_request_to_json_line(const CompileRequest& request);
CompileRequest compile_request_from_json_line(const std::string& line);

}  // namespace evotune::runtime
