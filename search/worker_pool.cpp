#include "search/worker_pool.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <nlohmann/json.hpp>

#include "evidence/trial_json.h"

namespace evotune::search {
namespace {

void set_cloexec(int fd) { fcntl(fd, F_SETFD, fcntl(fd, F_GETFD) | FD_CLOEXEC); }

std::string describe_exit(int status) {
  if (WIFSIGNALED(status)) return fmt::format("worker killed by signal {} ({})", WTERMSIG(status), strsignal(WTERMSIG(status)));
  if (WIFEXITED(status)) return fmt::format("worker exited with code {}", WEXITSTATUS(status));
  return "worker stopped";
}

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
  signal(SIGPIPE, SIG_IGN);
  for (WorkerCommand& c : commands) {
    Worker w;
    w.command = std::move(c);
    workers_.push_back(std::move(w));
  }
  for (Worker& w : workers_) start(w);
}

WorkerPool::~WorkerPool() {
  for (Worker& w : workers_) stop(w, false);
}

void WorkerPool::start(Worker& w) {
  // argv is built before fork: the coordinator has compile threads, and a child of a multithreaded
  // process may only make async-signal-safe calls (no malloc) until execv.
  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(w.command.executable.c_str()));
  for (std::string& a : w.command.args) argv.push_back(a.data());
  argv.push_back(nullptr);
  int to_child[2], from_child[2];
  if (pipe(to_child) != 0 || pipe(from_child) != 0) throw std::runtime_error("cannot create worker pipes");
  pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("cannot fork a worker");
  if (pid == 0) {
    dup2(to_child[0], STDIN_FILENO);
    dup2(from_child[1], STDOUT_FILENO);
    close(to_child[0]);
    close(to_child[1]);
    close(from_child[0]);
    close(from_child[1]);
    execv(argv[0], argv.data());
    _exit(127);
  }
  close(to_child[0]);
  close(from_child[1]);
  set_cloexec(to_child[1]);
  set_cloexec(from_child[0]);
  w.pid = pid;
  w.to_child = to_child[1];
  w.from_child = from_child[0];
  w.buffer.clear();
}

void WorkerPool::stop(Worker& w, bool kill) {
  if (w.to_child >= 0) close(w.to_child);  // EOF on its stdin: a healthy worker exits
  if (w.from_child >= 0) close(w.from_child);
  w.to_child = w.from_child = -1;
  if (w.pid > 0) {
    if (kill) ::kill(w.pid, SIGKILL);
    int status = 0;
    waitpid(w.pid, &status, 0);
  }
  w.pid = -1;
}

evidence::TrialRecord WorkerPool::failed(Worker& w, const std::string& status, const std::string& why) {
  evidence::TrialRecord t;
  t.status = status;
  t.error = why;
  stop(w, true);
  start(w);
  ++restarts_;
  return t;
}

bool WorkerPool::write_line(Worker& w, const std::string& line) {
  std::size_t written = 0;
  while (written < line.size()) {
    ssize_t n = write(w.to_child, line.data() + written, line.size() - written);
    if (n <= 0) return false;
    written += static_cast<std::size_t>(n);
  }
  return true;
}

bool WorkerPool::send(Worker& w, const Config& config, evidence::TrialRecord& failure) {
  nlohmann::json request = {{"config", config.key()}};
  if (best_us_) request["best_us"] = *best_us_;
  if (!write_line(w, request.dump() + "\n")) {
    int status = 0;
    waitpid(w.pid, &status, WNOHANG);
    failure = failed(w, "crash", "cannot send to the worker: " + describe_exit(status));
    return false;
  }
  return true;
}

std::optional<std::string> WorkerPool::ask(std::size_t index, const std::string& request_line) {
  Worker& w = workers_.at(index);
  if (!write_line(w, request_line + "\n")) {
    failed(w, "crash", "cannot send to the worker");
    return std::nullopt;
  }
  const auto deadline = std::chrono::steady_clock::now() + timeout_;
  for (;;) {
    if (std::optional<std::string> reply = take_line(w.buffer)) return reply;
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      failed(w, "timeout", "no reply");
      return std::nullopt;
    }
    pollfd fd{w.from_child, POLLIN, 0};
    poll(&fd, 1, static_cast<int>(left.count()));
    if (!(fd.revents & (POLLIN | POLLHUP | POLLERR))) continue;
    char chunk[65536];
    ssize_t n = read(w.from_child, chunk, sizeof(chunk));
    if (n <= 0) {
      failed(w, "crash", "the worker exited");
      return std::nullopt;
    }
    w.buffer.append(chunk, static_cast<std::size_t>(n));
  }
}

evidence::TrialRecord WorkerPool::evaluate(const Config& config) { return evaluate_batch({config}).at(0); }

std::vector<evidence::TrialRecord> WorkerPool::evaluate_batch(const std::vector<Config>& configs) {
  std::vector<evidence::TrialRecord> results(configs.size());
  if (ahead_ != nullptr) ahead_->submit(configs);
  // Waves of one config per worker; each wave waits for all its workers (or their timeouts).
  for (std::size_t base = 0; base < configs.size(); base += workers_.size()) {
    struct InFlight {
      std::size_t worker, index;
      std::chrono::steady_clock::time_point deadline;
      bool done = false;
    };
    std::vector<InFlight> flight;
    for (std::size_t k = 0; k < workers_.size() && base + k < configs.size(); ++k) {
      evidence::TrialRecord failure;
      if (ahead_ != nullptr) ahead_->wait(configs[base + k]);
      if (send(workers_[k], configs[base + k], failure)) {
        flight.push_back({k, base + k, std::chrono::steady_clock::now() + timeout_});
      } else {
        results[base + k] = failure;
      }
    }
    for (;;) {
      std::vector<pollfd> fds;
      std::vector<std::size_t> which;
      auto now = std::chrono::steady_clock::now();
      auto wait = std::chrono::milliseconds::max();
      for (std::size_t f = 0; f < flight.size(); ++f) {
        if (flight[f].done) continue;
        Worker& w = workers_[flight[f].worker];
        if (now >= flight[f].deadline) {
          results[flight[f].index] =
              failed(w, "timeout", fmt::format("no result within {} ms; worker killed", timeout_.count()));
          flight[f].done = true;
          continue;
        }
        wait = std::min(wait, std::chrono::duration_cast<std::chrono::milliseconds>(flight[f].deadline - now));
        fds.push_back({w.from_child, POLLIN, 0});
        which.push_back(f);
      }
      if (fds.empty()) break;
      poll(fds.data(), fds.size(), static_cast<int>(std::max<long long>(1, wait.count())));
      for (std::size_t i = 0; i < fds.size(); ++i) {
        if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
        InFlight& f = flight[which[i]];
        Worker& w = workers_[f.worker];
        char chunk[65536];
        ssize_t n = read(w.from_child, chunk, sizeof(chunk));
        if (n <= 0) {  // the worker is gone: collect how it ended
          close(w.from_child);
          w.from_child = -1;
          int status = 0;
          waitpid(w.pid, &status, 0);
          w.pid = -1;
          results[f.index] = failed(w, "crash", describe_exit(status));
          f.done = true;
          continue;
        }
        w.buffer.append(chunk, static_cast<std::size_t>(n));
        std::optional<std::string> line = take_line(w.buffer);
        if (!line) continue;
        try {
          nlohmann::json reply = nlohmann::json::parse(*line);
          results[f.index] = evidence::trial_from_json(reply.at("trial"));
          const evidence::TrialRecord& t = results[f.index];
          if (t.status == "ok" && t.median_us && (!best_us_ || *t.median_us < *best_us_)) best_us_ = t.median_us;
          if (reply.value("restart", false)) {  // its CUDA context may be poisoned: replace it now
            stop(w, false);
            start(w);
            ++restarts_;
          }
        } catch (const std::exception& e) {
          results[f.index] = failed(w, "crash", std::string("unreadable reply from the worker: ") + e.what());
        }
        f.done = true;
      }
    }
  }
  // A config compiled ahead was a cache hit in the worker: its trial records the real compile time.
  if (ahead_ != nullptr) {
    for (std::size_t i = 0; i < configs.size(); ++i) {
      if (auto seconds = ahead_->compile_seconds(configs[i])) results[i].compile_seconds = *seconds;
    }
  }
  return results;
}

}  // namespace evotune::search
