#include "runtime/child_process.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <stdexcept>
#include <thread>
#include <utility>

#include "runtime/interrupt.h"

extern char** environ;

namespace evotune::runtime {

std::string describe_exit(int status) {
  if (WIFSIGNALED(status)) return fmt::format("killed by signal {} ({})", WTERMSIG(status), strsignal(WTERMSIG(status)));
  if (WIFEXITED(status)) return fmt::format("exited with code {}", WEXITSTATUS(status));
  return "stopped";
}

ChildProcess::ChildProcess(ChildProcess&& other) noexcept
    : pid_(std::exchange(other.pid_, -1)),
      to_child_(std::exchange(other.to_child_, -1)),
      from_child_(std::exchange(other.from_child_, -1)) {}

ChildProcess& ChildProcess::operator=(ChildProcess&& other) noexcept {
  if (this != &other) {
    stop(true);
    pid_ = std::exchange(other.pid_, -1);
    to_child_ = std::exchange(other.to_child_, -1);
    from_child_ = std::exchange(other.from_child_, -1);
  }
  return *this;
}

void ChildProcess::start(const std::vector<std::string>& argv_text) {
  stop(true);
  std::vector<std::string> args = argv_text;
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  // Close-on-exec from the start: another thread may start a process at any moment, and a stray copy of
  // a pipe end in it would hide this child's EOF.
  int to_child[2], from_child[2];
  if (pipe2(to_child, O_CLOEXEC) != 0) throw std::runtime_error("cannot create a pipe to a child process");
  if (pipe2(from_child, O_CLOEXEC) != 0) {
    close(to_child[0]);
    close(to_child[1]);
    throw std::runtime_error("cannot create a pipe from a child process");
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, to_child[0], STDIN_FILENO);  // dup2 clears close-on-exec
  posix_spawn_file_actions_adddup2(&actions, from_child[1], STDOUT_FILENO);
  // Under a search's interrupt handlers, the child does not see Ctrl-C or SIGTERM sent to the process
  // group: the search stops it (runtime/interrupt.h), instead of recording a child the signal killed as a
  // crash.
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  if (interrupt_handlers_installed()) {
    sigset_t blocked;
    sigemptyset(&blocked);
    sigaddset(&blocked, SIGINT);
    sigaddset(&blocked, SIGTERM);
    posix_spawnattr_setsigmask(&attributes, &blocked);
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK);
  }
  pid_t pid = -1;
  const int failed = posix_spawn(&pid, argv[0], &actions, &attributes, argv.data(), environ);
  posix_spawnattr_destroy(&attributes);
  posix_spawn_file_actions_destroy(&actions);
  close(to_child[0]);
  close(from_child[1]);
  if (failed != 0) {
    close(to_child[1]);
    close(from_child[0]);
    throw std::runtime_error(fmt::format("cannot start {}: {}", args[0], strerror(failed)));
  }
  pid_ = pid;
  register_child(pid);
  to_child_ = to_child[1];
  from_child_ = from_child[0];
}

void ChildProcess::stop(bool kill) {
  if (to_child_ >= 0) close(to_child_);
  if (from_child_ >= 0) close(from_child_);
  to_child_ = from_child_ = -1;
  if (pid_ > 0) {
    if (kill) ::kill(pid_, SIGKILL);
    int status = 0;
    waitpid(pid_, &status, 0);
    forget_child(pid_);
  }
  pid_ = -1;
}

std::string ChildProcess::reap() {
  if (to_child_ >= 0) close(to_child_);
  if (from_child_ >= 0) close(from_child_);
  to_child_ = from_child_ = -1;
  if (pid_ <= 0) return "not running";
  int status = 0;
  for (int tries = 0; waitpid(pid_, &status, WNOHANG) == 0; ++tries) {
    if (tries == 400) {  // its output closed but it lives on: 2 s is enough to exit
      ::kill(pid_, SIGKILL);
      waitpid(pid_, &status, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  forget_child(pid_);
  pid_ = -1;
  return describe_exit(status);
}

}  // namespace evotune::runtime
