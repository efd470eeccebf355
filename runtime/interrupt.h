#pragma once
// Ctrl-C (SIGINT) and SIGTERM during a search. The handlers only note the signal: interrupted() turns true
// and interrupt_fd() turns readable for good (it is never drained), so every poll() that includes it wakes
// up at once, now and later. The search's loops then stop, record what finished, mark the run interrupted,
// stop and reap their child processes, and the command exits 128 + the signal (130 for SIGINT, 143 for
// SIGTERM). A second signal while that runs exits at once with the same code, after SIGKILLing the child
// processes still running (each ChildProcess registers its pid): each trial is one SQLite transaction, so
// the database stays whole.
//
// Children started while the handlers are installed have SIGINT and SIGTERM blocked: Ctrl-C reaches the
// whole foreground process group, and a worker or compile process killed by it would be recorded as a
// crash; the search stops them itself instead.
#include <sys/types.h>

namespace evotune::runtime {

// Thrown by waits that an interruption ends. Deliberately not a std::exception: it unwinds through every
// handler of errors (an interrupted compile is not a compile error, an interrupted trial not a crash) up to
// the command, which reports it; main turns it into exit code 128 + signal.
struct Interrupted {
  int signal = 0;
  bool reported = false;  // the command has said what was recorded and how to go on
};

// Installs the SIGINT and SIGTERM handlers (once; later calls do nothing).
void install_interrupt_handlers();
bool interrupt_handlers_installed();
// The first signal received, 0 while none was.
int interrupt_signal();
inline bool interrupted() { return interrupt_signal() != 0; }
// Readable once a signal arrived; -1 without handlers (poll() ignores a negative fd).
int interrupt_fd();
// Throws Interrupted if a signal arrived.
void throw_if_interrupted();
// Sleeps up to `milliseconds`, returning early (and throwing Interrupted) if a signal arrives.
void interruptible_sleep(int milliseconds);
// "SIGINT", "SIGTERM", or "a signal".
const char* signal_name(int signal);

// The child processes a second signal kills before exiting (ChildProcess calls these).
void register_child(pid_t pid);
void forget_child(pid_t pid);

}  // namespace evotune::runtime
