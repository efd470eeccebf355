#include "search/prepare_ahead.h"

#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <stdexcept>

#include "runtime/interrupt.h"

namespace evotune::search {

PrepareAhead::PrepareAhead(Prepare prepare, unsigned threads) : prepare_(std::move(prepare)) {
  if (pipe2(notify_, O_CLOEXEC | O_NONBLOCK) != 0) throw std::runtime_error("cannot create a notification pipe");
  if (threads == 0) threads = 1;
  for (unsigned i = 0; i < threads; ++i) threads_.emplace_back([this] { work(); });
}

PrepareAhead::~PrepareAhead() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    queue_.clear();
  }
  queued_.notify_all();
  for (std::thread& t : threads_) t.join();
  close(notify_[0]);
  close(notify_[1]);
}

void PrepareAhead::submit(const std::vector<Config>& configs) {
  {
    std::lock_guard lock(mutex_);
    for (const Config& c : configs) {
      if (known_.insert(c.key()).second) queue_.push_back(c);
    }
  }
  queued_.notify_all();
}

bool PrepareAhead::submitted(const Config& config) const {
  std::lock_guard lock(mutex_);
  return known_.count(config.key()) > 0;
}

std::shared_ptr<const runtime::Preparation> PrepareAhead::ready(const Config& config) const {
  std::lock_guard lock(mutex_);
  auto it = done_.find(config.key());
  return it == done_.end() ? nullptr : it->second;
}

std::shared_ptr<const runtime::Preparation> PrepareAhead::wait(const Config& config) {
  submit({config});
  std::unique_lock lock(mutex_);
  const std::string key = config.key();
  // Woken now and then to see whether the search is being interrupted (a signal cannot notify); a
  // preparation that finished is answered even then.
  while (!finished_.wait_for(lock, std::chrono::milliseconds(100), [&] { return done_.count(key) > 0; })) {
    runtime::throw_if_interrupted();
  }
  return done_.at(key);
}

void PrepareAhead::drain_notifications() {
  char bytes[256];
  while (read(notify_[0], bytes, sizeof(bytes)) > 0) {
  }
}

PrepareAhead::Stats PrepareAhead::stats() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

void PrepareAhead::count(const runtime::Preparation& p) {
  ++stats_.prepared;
  const runtime::Rejection* r = runtime::rejected(p);
  if (r != nullptr) {
    switch (r->kind) {
      case runtime::Rejection::Kind::rule: ++stats_.rejected_by_rule; return;  // no compile was asked for
      case runtime::Rejection::Kind::compile_error: ++stats_.compile_errors; break;
      case runtime::Rejection::Kind::compile_timeout: ++stats_.compile_timeouts; break;
      case runtime::Rejection::Kind::resources: ++stats_.rejected_resources; break;
    }
  }
  const bool compiled_now = r != nullptr ? r->compiled_now : runtime::prepared(p)->compiled_now;
  const double seconds = r != nullptr ? r->compile_seconds : runtime::prepared(p)->compile_seconds;
  if (!compiled_now) {
    ++stats_.from_cache;
    return;
  }
  ++stats_.compiled_now;
  if (seconds > 0) stats_.nvrtc_seconds.push_back(seconds);  // 0: a crashed compile, time unknown
}

void PrepareAhead::work() {
  for (;;) {
    Config config;
    {
      std::unique_lock lock(mutex_);
      queued_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping
      config = std::move(queue_.front());
      queue_.pop_front();
    }
    runtime::Preparation preparation;
    try {
      preparation = prepare_(config);
    } catch (const runtime::Interrupted&) {
      // Stopped by the interruption, not the config's verdict: nothing is kept, and nothing else starts.
      std::lock_guard lock(mutex_);
      queue_.clear();
      continue;
    } catch (const std::exception& e) {  // not the config's verdict, but recorded as its trial, not fatal
      preparation = runtime::Rejection{runtime::Rejection::Kind::compile_error,
                                       std::string("preparing the config failed: ") + e.what(), 0.0, false,
                                       std::nullopt};
    }
    // The CUBIN lives on in the cubin cache, which the workers read; here only its key is needed, and a
    // long search would otherwise hold every kernel it tried in memory.
    if (auto* k = std::get_if<runtime::PreparedKernel>(&preparation)) k->cubin.reset();
    if (auto* r = std::get_if<runtime::Rejection>(&preparation); r && r->compiled) r->compiled->cubin.reset();
    auto result = std::make_shared<const runtime::Preparation>(std::move(preparation));
    {
      std::lock_guard lock(mutex_);
      count(*result);
      done_[config.key()] = std::move(result);
    }
    finished_.notify_all();
    const char byte = 1;
    [[maybe_unused]] ssize_t n = write(notify_[1], &byte, 1);  // full pipe: a wake-up is pending anyway
  }
}

}  // namespace evotune::search
