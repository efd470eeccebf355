#pragma once
// N threads compiling independent requests at once. NVRTC programs are independent objects and the
// NVRTC API may be called from several threads, so compiles scale with cores; the search uses this to
// compile ahead of the GPU so that the GPU never waits for the compiler.
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
