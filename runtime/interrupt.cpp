#include "runtime/interrupt.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <mutex>

namespace evotune::runtime {
namespace {

// Everything the handler touches is a lock-free atomic or a plain fd: async-signal-safe.
static_assert(std::atomic<int>::is_always_lock_free);
static_assert(std::atomic<pid_t>::is_always_lock_free);

std::atomic<int> g_signal{0};
std::atomic<bool> g_installed{false};
int g_pipe[2] = {-1, -1};

// Compile processes (up to 1024) and workers (one per device) with room to spare.
constexpr int kMaxChildren = 4096;
std::atomic<pid_t> g_children[kMaxChildren];

extern "C" void on_interrupt(int signal) {
  int none = 0;
  if (g_signal.compare_exchange_strong(none, signal)) {
    const int saved = errno;
    const char byte = 1;
    [[maybe_unused]] const ssize_t n = write(g_pipe[1], &byte, 1);
    errno = saved;
    return;
  }
  // A second signal: the user does not want to wait for the shutdown.
  for (std::atomic<pid_t>& child : g_children) {
    const pid_t pid = child.load();
    if (pid > 0) kill(pid, SIGKILL);
  }
  _exit(128 + g_signal.load());
}

}  // namespace

void install_interrupt_handlers() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (pipe2(g_pipe, O_CLOEXEC | O_NONBLOCK) != 0) return;  // without a pipe, signals keep their defaults
    struct sigaction action {};
    action.sa_handler = on_interrupt;
    // Each blocks the other while it runs: a SIGTERM arriving with a SIGINT must not be handled in the
    // middle of it (delivered on top, it would run first and take the exit code).
    sigemptyset(&action.sa_mask);
    sigaddset(&action.sa_mask, SIGINT);
    sigaddset(&action.sa_mask, SIGTERM);
    // Restarted system calls: a read or write interrupted elsewhere must not look like a failure; the waits
    // that must end poll interrupt_fd().
    action.sa_flags = SA_RESTART;
    sigaction(SIGINT, &action, nullptr);
    sigaction(SIGTERM, &action, nullptr);
    g_installed = true;
  });
}

bool interrupt_handlers_installed() { return g_installed.load(); }

int interrupt_signal() { return g_signal.load(); }

int interrupt_fd() { return g_installed.load() ? g_pipe[0] : -1; }

void throw_if_interrupted() {
  if (const int signal = interrupt_signal()) throw Interrupted{signal};
}

void interruptible_sleep(int milliseconds) {
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + std::chrono::milliseconds(milliseconds);
  for (;;) {
    throw_if_interrupted();
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) return;
    pollfd p{interrupt_fd(), POLLIN, 0};
    poll(&p, 1, static_cast<int>(left));
  }
}

const char* signal_name(int signal) {
  switch (signal) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    default: return "a signal";
  }
}

void register_child(pid_t pid) {
  for (std::atomic<pid_t>& child : g_children) {
    pid_t empty = 0;
    if (child.compare_exchange_strong(empty, pid)) return;
  }
  // Full: this child is only stopped by the orderly shutdown.
}

void forget_child(pid_t pid) {
  for (std::atomic<pid_t>& child : g_children) {
    pid_t expected = pid;
    if (child.compare_exchange_strong(expected, 0)) return;
  }
}

}  // namespace evotune::runtime
