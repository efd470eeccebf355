#pragma once
// A child process talking over pipes: its stdin is written by us, its stdout read by us, its stderr shared
// with ours. The search's evaluation workers and compile processes both run this way, so that a crash or
// hang of theirs is an event to record and recover from, never the end of the search.
#include <sys/types.h>

#include <string>
#include <vector>

namespace evotune::runtime {

// "killed by signal 6 (Aborted)", "exited with code 3" for a waitpid status.
std::string describe_exit(int status);

class ChildProcess {
 public:
  ChildProcess() = default;
  ~ChildProcess() { stop(true); }
  ChildProcess(ChildProcess&& other) noexcept;
  ChildProcess& operator=(ChildProcess&& other) noexcept;
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  // Starts argv[0] with argv (posix_spawn: safe in a process with threads). Throws std::runtime_error when
  // it cannot. The pipe ends are close-on-exec, so no other child inherits them.
  void start(const std::vector<std::string>& argv);
  // Closes its stdin (a healthy child exits on EOF); kill: SIGKILL first. Then waits for it.
  void stop(bool kill);
  // After its stdout closed: how it ended (a child still alive 2 s later is killed). Returns the
  // description; the process is gone afterwards.
  std::string reap();

  bool running() const { return pid_ > 0; }
  pid_t pid() const { return pid_; }
  int stdin_fd() const { return to_child_; }    // write requests here
  int stdout_fd() const { return from_child_; }  // read replies here

 private:
  pid_t pid_ = -1;
  int to_child_ = -1, from_child_ = -1;
};

}  // namespace evotune::runtime
