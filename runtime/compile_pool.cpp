#include "runtime/compile_pool.h"

namespace evotune::runtime {

CompilePool::CompilePool(Compiler& compiler, unsigned threads) : compiler_(compiler) {
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  for (unsigned i = 0; i < threads; ++i) workers_.emplace_back([this] { work(); });
}

CompilePool::~CompilePool() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  ready_.notify_all();
  for (std::thread& t : workers_) t.join();
}

std::future<CompileResult> CompilePool::submit(CompileRequest request) {
  std::packaged_task<CompileResult()> task(
      [this, request = std::move(request)] { return compiler_.compile(request); });
  std::future<CompileResult> result = task.get_future();
  {
    std::lock_guard lock(mutex_);
    queue_.push_back(std::move(task));
  }
  ready_.notify_one();
  return result;
}

void CompilePool::work() {
  for (;;) {
    std::packaged_task<CompileResult()> task;
    {
      std::unique_lock lock(mutex_);
      ready_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping, and nothing left to do
      task = std::move(queue_.front());
      queue_.pop_front();
    }
    task();
  }
}

}  // namespace evotune::runtime
