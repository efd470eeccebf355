#include "search/worker_pool.h"

#include <fmt/format.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <nlohmann/json.hpp>

#include "harness/rejection_status.h"
#include "runtime/interrupt.h"
#include "search/worker_protocol.h"

namespace evotune::search {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_between(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }

// The first complete line in `buffer` (without its newline), removed from it; nullopt while none is.
std::optional<std::string> take_line(std::string& buffer) {
  const std::size_t newline = buffer.find('\n');
  if (newline == std::string::npos) return std::nullopt;
  std::string line = buffer.substr(0, newline);
  buffer.erase(0, newline + 1);
  return line;
}

}  // namespace

WorkerPool::WorkerPool(std::vector<WorkerCommand> commands, std::chrono::milliseconds timeout) : timeout_(timeout) {
  // Writing to a worker that just died must be an error code, not a signal that kills the coordinator.
  std::signal(SIGPIPE, SIG_IGN);
  for (WorkerCommand& c : commands) {
    Worker w;
    w.command = std::move(c);
    workers_.push_back(std::move(w));
  }
  for (Worker& w : workers_) start(w);
}

WorkerPool::~WorkerPool() {
  // A worker still busy holds a config evaluated ahead of a batch the search never asked for: its result
  // is not needed, and it may be the one that hangs.
  for (Worker& w : workers_) w.process.stop(w.job.has_value());
}

void WorkerPool::start(Worker& w) {
  std::vector<std::string> argv{w.command.executable};
  argv.insert(argv.end(), w.command.args.begin(), w.command.args.end());
  w.process.start(argv);
  w.buffer.clear();
  w.job.reset();
}

evidence::TrialRecord WorkerPool::failed(Worker& w, core::TrialStatus status, const std::string& why) {
  evidence::TrialRecord t;
  t.status = status;
  t.error = why;
  w.process.stop(true);
  start(w);
  ++restarts_;
  return t;
}

bool WorkerPool::write_line(Worker& w, const std::string& line) {
  std::size_t written = 0;
  while (written < line.size()) {
    ssize_t n = write(w.process.stdin_fd(), line.data() + written, line.size() - written);
    if (n <= 0) return false;
    written += static_cast<std::size_t>(n);
  }
  return true;
}

std::optional<std::string> WorkerPool::ask(std::size_t index, const std::string& request_line) {
  Worker& w = workers_.at(index);
  // A config evaluated ahead of a batch the search never asked for (it stopped first) may still be on
  // this worker: its reply comes first and is not needed.
  while (w.job) {
    runtime::throw_if_interrupted();
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(w.job->deadline - Clock::now());
    if (left.count() <= 0) {
      failed(w, core::TrialStatus::timeout, "no reply");  // restarts it, with no job
      break;
    }
    pollfd fds[2] = {{w.process.stdout_fd(), POLLIN, 0}, {runtime::interrupt_fd(), POLLIN, 0}};
    poll(fds, 2, static_cast<int>(left.count()));
    if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) collect(w);  // a whole reply or EOF ends the job
  }
  queue_.clear();
  finished_.clear();
  if (!write_line(w, request_line + "\n")) {
    failed(w, core::TrialStatus::crash, "cannot send to the worker");
    return std::nullopt;
  }
  const auto deadline = Clock::now() + timeout_;
  for (;;) {
    if (std::optional<std::string> reply = take_line(w.buffer)) return reply;
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) {
      failed(w, core::TrialStatus::timeout, "no reply");
      return std::nullopt;
    }
    pollfd fds[2] = {{w.process.stdout_fd(), POLLIN, 0}, {runtime::interrupt_fd(), POLLIN, 0}};
    poll(fds, 2, static_cast<int>(left.count()));
    if (runtime::interrupted()) {
      // The request's reply is not wanted: the worker is stopped with it (it may be timing for seconds).
      w.process.stop(true);
      runtime::throw_if_interrupted();
    }
    const pollfd& fd = fds[0];
    if (!(fd.revents & (POLLIN | POLLHUP | POLLERR))) continue;
    char chunk[65536];
    ssize_t n = read(w.process.stdout_fd(), chunk, sizeof(chunk));
    if (n <= 0) {
      failed(w, core::TrialStatus::crash, "the worker exited");
      return std::nullopt;
    }
    w.buffer.append(chunk, static_cast<std::size_t>(n));
  }
}

evidence::TrialRecord WorkerPool::with_preparation(const Config& config, evidence::TrialRecord trial) const {
  if (preparer_ == nullptr) return trial;
  const std::shared_ptr<const runtime::Preparation> p = preparer_->ready(config);
  if (!p) return trial;
  const runtime::PreparedKernel* kernel = runtime::prepared(*p);
  if (const runtime::Rejection* r = runtime::rejected(*p); r && r->compiled) kernel = &*r->compiled;
  if (kernel != nullptr) trial.resources_json = runtime::to_json(kernel->resources).dump();
  trial.compile_seconds = kernel != nullptr ? kernel->compile_seconds : std::get<runtime::Rejection>(*p).compile_seconds;
  return trial;
}

void WorkerPool::send(Worker& w, const Config& config) {
  EvaluateRequest request;
  request.config_key = config.key();
  request.best_us = best_us_;
  request.batch = batch_;
  if (preparer_ != nullptr) {
    const runtime::PreparedKernel& kernel = std::get<runtime::PreparedKernel>(*preparer_->ready(config));
    request.cache_key = kernel.cache_key;
    request.kernel_name = kernel.kernel_name;
  }
  const auto now = Clock::now();
  if (!write_line(w, to_line(WorkerRequest{request}) + "\n")) {
    const std::string how = w.process.reap();
    finished_[config.key()] = with_preparation(
        config, failed(w, core::TrialStatus::crash, "cannot send to the worker: worker " + how));
    return;
  }
  w.job = Job{config, now, now + timeout_};
}

bool WorkerPool::dispatch(const std::map<std::string, bool>& wanted) {
  bool waiting = false;
  for (auto it = queue_.begin(); it != queue_.end();) {
    const std::string key = it->key();
    std::shared_ptr<const runtime::Preparation> p;
    if (preparer_ != nullptr) {
      p = preparer_->ready(*it);
      if (!p) {
        waiting = waiting || wanted.count(key) > 0;
        ++it;
        continue;
      }
      if (const runtime::Rejection* r = runtime::rejected(*p)) {  // no worker needed: recorded as it is
        evidence::TrialRecord t;
        t.status = harness::trial_status(*r);
        t.error = r->reason;
        finished_[key] = with_preparation(*it, std::move(t));
        it = queue_.erase(it);
        continue;
      }
    }
    auto idle = std::find_if(workers_.begin(), workers_.end(), [](const Worker& w) { return !w.job; });
    if (idle == workers_.end()) {
      ++it;  // keep scanning: later rejections need no worker
      continue;
    }
    if (wanted.count(key) == 0) ++timeline_.early;
    const Config config = *it;
    it = queue_.erase(it);
    send(*idle, config);
  }
  return waiting;
}

void WorkerPool::collect(Worker& w) {
  char chunk[65536];
  const ssize_t n = read(w.process.stdout_fd(), chunk, sizeof(chunk));
  const Job job = *w.job;
  const std::string key = job.config.key();
  if (n <= 0) {  // the worker is gone: collect how it ended
    const std::string how = w.process.reap();
    timeline_.in_flight += seconds_between(job.sent, Clock::now());
    finished_[key] = with_preparation(job.config, failed(w, core::TrialStatus::crash, "worker " + how));
    return;
  }
  w.buffer.append(chunk, static_cast<std::size_t>(n));
  std::optional<std::string> line = take_line(w.buffer);
  if (!line) return;
  timeline_.in_flight += seconds_between(job.sent, Clock::now());
  w.job.reset();
  try {
    EvaluateReply reply = parse_evaluate_reply(*line);
    timeline_.busy += reply.busy_seconds;
    const evidence::TrialRecord& t = reply.trial;
    if (core::is_valid(t.status) && t.median_us && (!best_us_ || *t.median_us < *best_us_))
      best_us_ = t.median_us;
    if (batch_ == 0 && core::is_valid(t.status)) batch_ = reply.batch;
    finished_[key] = with_preparation(job.config, std::move(reply.trial));
    if (reply.restart) {  // its CUDA context may be poisoned: replace it now
      w.process.stop(false);
      start(w);
      ++restarts_;
    }
  } catch (const std::exception& e) {
    finished_[key] = with_preparation(
        job.config,
        failed(w, core::TrialStatus::crash, std::string("unreadable reply from the worker: ") + e.what()));
  }
}

void WorkerPool::prefetch(const std::vector<Config>& configs) {
  if (preparer_ != nullptr) preparer_->submit(configs);
  for (const Config& c : configs) {
    const std::string key = c.key();
    const bool known = finished_.count(key) > 0 ||
                       std::any_of(queue_.begin(), queue_.end(), [&](const Config& q) { return q.key() == key; }) ||
                       std::any_of(workers_.begin(), workers_.end(),
                                   [&](const Worker& w) { return w.job && w.job->config.key() == key; });
    if (!known) queue_.push_back(c);
  }
}

evidence::TrialRecord WorkerPool::evaluate(const Config& config) { return evaluate_batch({config}).at(0); }

std::vector<evidence::TrialRecord> WorkerPool::evaluate_batch(const std::vector<Config>& configs,
                                                              const TrialDone& done) {
  auto last = Clock::now();
  if (left_at_) {  // between batches, the coordinator recorded and proposed: idle unless working ahead
    for (const Worker& w : workers_) {
      if (!w.job) timeline_.idle_other += seconds_between(*left_at_, last);
    }
  }
  prefetch(configs);
  // The batch goes first, in proposal order; what was prefetched for later batches waits behind it.
  std::map<std::string, bool> wanted;
  for (const Config& c : configs) wanted[c.key()] = true;
  std::stable_partition(queue_.begin(), queue_.end(), [&](const Config& c) { return wanted.count(c.key()) > 0; });
  // Each trial of the batch is told to `done` once, as soon as it is in finished_.
  std::vector<bool> reported(configs.size(), false);
  auto report_finished = [&] {
    bool all = true;
    for (std::size_t i = 0; i < configs.size(); ++i) {
      if (reported[i]) continue;
      auto it = finished_.find(configs[i].key());
      if (it == finished_.end()) {
        all = false;
        continue;
      }
      reported[i] = true;
      if (done) done(i, it->second);
    }
    return all;
  };
  for (;;) {
    if (preparer_ != nullptr) preparer_->drain_notifications();
    if (runtime::interrupted()) {  // what finished is told, nothing new is sent
      report_finished();
      runtime::throw_if_interrupted();
    }
    const bool waiting = dispatch(wanted);
    if (report_finished()) break;
    std::vector<pollfd> fds;
    std::vector<Worker*> owners;
    auto now = Clock::now();
    auto wait = std::chrono::milliseconds(60'000);
    bool replaced = false;
    for (Worker& w : workers_) {
      if (!w.job) continue;
      if (now >= w.job->deadline) {
        const Job job = *w.job;
        timeline_.in_flight += seconds_between(job.sent, now);
        finished_[job.config.key()] = with_preparation(
            job.config, failed(w, core::TrialStatus::timeout,
                               fmt::format("no result within {} ms; worker killed", timeout_.count())));
        replaced = true;
        continue;
      }
      wait = std::min(wait, std::chrono::duration_cast<std::chrono::milliseconds>(w.job->deadline - now));
      fds.push_back({w.process.stdout_fd(), POLLIN, 0});
      owners.push_back(&w);
    }
    if (replaced) continue;  // the fresh worker is idle: give it work before waiting on anything
    if (preparer_ != nullptr) fds.push_back({preparer_->notify_fd(), POLLIN, 0});
    fds.push_back({runtime::interrupt_fd(), POLLIN, 0});
    poll(fds.data(), fds.size(), static_cast<int>(std::max<long long>(1, wait.count())));
    // The state before the poll held through it: idle workers waited for a compile if a config of this
    // batch was still being prepared, and were idle for want of work otherwise (the batch's last
    // configs running on the other workers).
    now = Clock::now();
    const double dt = seconds_between(last, now);
    last = now;
    for (const Worker& w : workers_) {
      if (w.job) continue;
      (waiting ? timeline_.waiting_for_prepare : timeline_.idle_other) += dt;
    }
    for (std::size_t i = 0; i < owners.size(); ++i) {
      if (fds[i].revents & (POLLIN | POLLHUP | POLLERR)) collect(*owners[i]);
    }
  }
  std::vector<evidence::TrialRecord> results;
  for (const Config& c : configs) {
    auto it = finished_.find(c.key());
    results.push_back(std::move(it->second));
    finished_.erase(it);
  }
  left_at_ = Clock::now();
  return results;
}

}  // namespace evotune::search
