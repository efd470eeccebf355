#pragma once
// Runs a program with an argument vector (no shell: arguments may hold quotes, newlines, anything but NUL)
// and a time limit, for the tests that feed hostile input to the evotune binary; or starts one in the
// background (BackgroundProcess), for the tests that interrupt it.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include "tests/test_support.h"

namespace evotune::testing {

struct ProcessResult {
  int exit_code = -1;     // -1 when it did not exit (a signal, or killed at the time limit)
  int signal = 0;         // the signal that ended it, if one did
  bool timed_out = false;
  std::string output;     // stdout and stderr together
  std::string stderr_text;
};

// The default limit only guards against a hang: far above any command the tests run, even in a sanitizer
// build on a loaded machine.
inline ProcessResult run_process(const std::vector<std::string>& argv, double timeout_seconds = 120) {
  ProcessResult result;
  int out_pipe[2], err_pipe[2];
  if (pipe(out_pipe) != 0 || pipe(err_pipe) != 0) return result;
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(out_pipe[1], 1);
    dup2(err_pipe[1], 2);
    close(out_pipe[0]);
    close(err_pipe[0]);
    close(out_pipe[1]);
    close(err_pipe[1]);
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  close(out_pipe[1]);
  close(err_pipe[1]);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_seconds);
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  int open_fds = 2;
  char buffer[4096];
  while (open_fds > 0) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      result.timed_out = true;
      kill(pid, SIGKILL);
      break;
    }
    if (poll(fds, 2, static_cast<int>(std::min<long long>(left.count(), 1000))) < 0) break;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      const ssize_t n = read(fds[i].fd, buffer, sizeof(buffer));
      if (n <= 0) {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
        continue;
      }
      result.output.append(buffer, static_cast<std::size_t>(n));
      if (i == 1) result.stderr_text.append(buffer, static_cast<std::size_t>(n));
    }
  }
  for (pollfd& f : fds) {
    if (f.fd >= 0) close(f.fd);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
  return result;
}

// A program started in the background, its stdout and stderr going to files, so that a test can act on it
// while it runs (send it a signal) and then wait for it.
class BackgroundProcess {
 public:
  // own_group: the process leads a process group of its own, so that a signal can go to it and its children
  // at once, as Ctrl-C on a terminal does. environment: NAME=VALUE settings added to the inherited ones.
  BackgroundProcess(const std::vector<std::string>& argv, const std::string& stdout_path, const std::string& stderr_path,
                    bool own_group, const std::vector<std::string>& environment = {}) {
    pid_ = fork();
    if (pid_ == 0) {
      if (own_group) setpgid(0, 0);
      for (const std::string& setting : environment) putenv(const_cast<char*>(setting.c_str()));
      const int out = open(stdout_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      const int err = open(stderr_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (out < 0 || err < 0) _exit(126);
      dup2(out, 1);
      dup2(err, 2);
      std::vector<char*> args;
      for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
      args.push_back(nullptr);
      execv(args[0], args.data());
      _exit(127);
    }
    // Set on both sides: a signal sent to the group right after the fork finds it either way.
    if (own_group && pid_ > 0) setpgid(pid_, pid_);
  }
  ~BackgroundProcess() {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }
  BackgroundProcess(const BackgroundProcess&) = delete;
  BackgroundProcess& operator=(const BackgroundProcess&) = delete;

  pid_t pid() const { return pid_; }
  bool running() const { return pid_ > 0; }
  // To the process alone, or (group) to its whole process group.
  void signal(int sig, bool group = false) const {
    if (pid_ > 0) kill(group ? -pid_ : pid_, sig);
  }
  // Waits up to `timeout_seconds` for it to end (then kills it: timed_out). exit_code and signal as for
  // run_process; output is not filled (it is in the files).
  ProcessResult wait(double timeout_seconds) {
    ProcessResult result;
    if (pid_ <= 0) return result;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_seconds);
    int status = 0;
    while (waitpid(pid_, &status, WNOHANG) == 0) {
      if (std::chrono::steady_clock::now() >= deadline) {
        result.timed_out = true;
        kill(pid_, SIGKILL);
        waitpid(pid_, &status, 0);
        break;
      }
      usleep(20'000);
    }
    pid_ = -1;
    if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
    if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
    return result;
  }

 private:
  pid_t pid_ = -1;
};

}  // namespace evotune::testing
