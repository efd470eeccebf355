#pragma once
// N threads compiling independent requests at once through any Compiler. NVRTC may be called from
// several threads, but inside one process it stops scaling (on the H100 host near 30-40 small compiles/s
// however many threads); over a CompileProcessPool the threads only wait on compile processes, which
// scale with cores (runtime/compile_processes.h). compile-bench and the GPU tests use it; searches
// prepare through search/prepare_ahead.h.
#include <condition_variable>
#include <deque>
#include <functional>
#include <future>
#include <mutex>
#include <thread>
#include <vector>

#include "runtime/nvrtc_compiler.h"

namespace evotune::runtime {

class CompilePool {
 public:
  // threads = 0 means one per hardware thread.
  CompilePool(Compiler& compiler, unsigned threads = 0);
  ~CompilePool();  // finishes queued work, then joins
  CompilePool(const CompilePool&) = delete;
  CompilePool& operator=(const CompilePool&) = delete;

  // The future holds the result, or rethrows the compile's error (CompileError and others).
  std::future<CompileResult> submit(CompileRequest request);
  unsigned threads() const { return static_cast<unsigned>(workers_.size()); }

 private:
  void work();

  Compiler& compiler_;
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<std::packaged_task<CompileResult()>> queue_;
  bool stopping_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace evotune::runtime
