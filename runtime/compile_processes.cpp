#include "runtime/compile_processes.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <nlohmann/json.hpp>
#include <thread>

#include "runtime/interrupt.h"

namespace evotune::runtime {
namespace {

using Clock = std::chrono::steady_clock;

// Milliseconds left before `deadline` (-1: no deadline), at least 0.
int poll_timeout(std::optional<Clock::time_point> deadline) {
  if (!deadline) return -1;
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(*deadline - Clock::now()).count();
  return static_cast<int>(std::max<long long>(0, left));
}

// interrupted: a signal asked the search to stop (runtime/interrupt.h); the wait polls for it too.
enum class Io { done, closed, timed_out, interrupted };

// Writes all of `bytes` to a non-blocking fd, waiting for room until the deadline.
Io write_all(int fd, std::string_view bytes, std::optional<Clock::time_point> deadline) {
  std::size_t written = 0;
  while (written < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + written, bytes.size() - written);
    if (n > 0) {
      written += static_cast<std::size_t>(n);
      continue;
    }
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) return Io::closed;
    pollfd p[2] = {{fd, POLLOUT, 0}, {interrupt_fd(), POLLIN, 0}};
    const int ready = ::poll(p, 2, poll_timeout(deadline));
    if (interrupted()) return Io::interrupted;
    if (ready == 0 && deadline && Clock::now() >= *deadline) return Io::timed_out;
    if (ready > 0 && (p[0].revents & (POLLERR | POLLHUP))) return Io::closed;
  }
  return Io::done;
}

// Appends to `buffer` from `fd` until it holds at least `size` bytes.
Io read_until(int fd, std::string& buffer, std::size_t size, std::optional<Clock::time_point> deadline) {
  while (buffer.size() < size) {
    pollfd p[2] = {{fd, POLLIN, 0}, {interrupt_fd(), POLLIN, 0}};
    const int ready = ::poll(p, 2, poll_timeout(deadline));
    if (interrupted()) return Io::interrupted;
    if (ready == 0) {
      if (deadline && Clock::now() >= *deadline) return Io::timed_out;
      continue;
    }
    if (ready < 0) {
      if (errno == EINTR) continue;
      return Io::closed;
    }
    char chunk[1 << 16];
    const ssize_t n = ::read(fd, chunk, sizeof(chunk));
    if (n == 0) return Io::closed;
    if (n < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      return Io::closed;
    }
    buffer.append(chunk, static_cast<std::size_t>(n));
  }
  return Io::done;
}

// Reads one line (without its newline) from `fd`, keeping what follows it in `buffer`.
Io read_line(int fd, std::string& buffer, std::string& line, std::optional<Clock::time_point> deadline) {
  std::size_t newline;
  while ((newline = buffer.find('\n')) == std::string::npos) {
    const Io io = read_until(fd, buffer, buffer.size() + 1, deadline);
    if (io != Io::done) return io;
  }
  line = buffer.substr(0, newline);
  buffer.erase(0, newline + 1);
  return Io::done;
}

std::string reply_header(const nlohmann::json& header) { return header.dump() + "\n"; }

}  // namespace

std::string compile_request_to_json_line(const CompileRequest& r) {
  nlohmann::json headers = nlohmann::json::array();
  for (const auto& [name, text] : r.headers) headers.push_back({name, text});
  return nlohmann::json{{"source_name", r.source_name},   {"source", r.source},
                        {"headers", headers},             {"name_expressions", r.name_expressions},
                        {"options", r.options},           {"target", r.target.name()},
                        {"label", r.label}}
             .dump() +
         "\n";
}

CompileRequest compile_request_from_json_line(const std::string& line) {
  const nlohmann::json j = nlohmann::json::parse(line);
  CompileRequest r;
  r.source_name = j.at("source_name");
  r.source = j.at("source");
  for (const auto& h : j.at("headers")) r.headers.emplace_back(h.at(0).get<std::string>(), h.at(1).get<std::string>());
  r.name_expressions = j.at("name_expressions").get<std::vector<std::string>>();
  r.options = j.at("options").get<std::vector<std::string>>();
  r.target = Target::parse(j.at("target").get<std::string>());
  r.label = j.at("label");
  return r;
}

int serve_compile_requests(int in_fd, int out_fd, Compiler& compiler) {
  std::string buffer, line;
  for (;;) {
    const Io io = read_line(in_fd, buffer, line, std::nullopt);
    if (io != Io::done) return buffer.empty() ? 0 : 1;
    CompileRequest request;
    try {
      request = compile_request_from_json_line(line);
    } catch (const std::exception&) {
      return 1;
    }
    std::string reply;
    try {
      const CompileResult r = compiler.compile(request);
      nlohmann::json resources = nlohmann::json::object();
      for (const auto& [name, usage] : r.resources) resources[name] = to_json(usage);
      reply = reply_header({{"ok", true},
                            {"lowered_names", r.lowered_names},
                            {"resources", resources},
                            {"log", r.log},
                            {"compile_seconds", r.compile_seconds},
                            {"cubin_bytes", r.cubin.size()}});
      reply.append(r.cubin.data(), r.cubin.size());
    } catch (const CompileError& e) {
      reply = reply_header({{"ok", false}, {"kind", "compile_error"}, {"message", e.what()}, {"log", e.log()},
                            {"compile_seconds", e.compile_seconds()}});
    } catch (const std::exception& e) {
      reply = reply_header({{"ok", false}, {"kind", "error"}, {"message", e.what()}});
    }
    if (write_all(out_fd, reply, std::nullopt) != Io::done) return 1;
  }
}

CompileProcessPool::CompileProcessPool(CompileProcessOptions options) : options_(std::move(options)) {
  if (options_.command.empty()) throw std::invalid_argument("CompileProcessPool needs a compile-server command");
  // Writing to a child that just died must be an error code, not a signal that ends this process.
  std::signal(SIGPIPE, SIG_IGN);
  unsigned n = options_.processes != 0 ? options_.processes : std::max(1u, std::thread::hardware_concurrency());
  slots_.resize(n);  // children start on first use
}

void CompileProcessPool::start_all() {
  std::lock_guard lock(mutex_);
  for (Slot& s : slots_) {
    if (!s.busy && !s.process.running()) start(s);
  }
}

CompileProcessPool::~CompileProcessPool() {
  for (Slot& s : slots_) s.process.stop(false);  // EOF on stdin: a healthy child exits
}

void CompileProcessPool::start(Slot& slot) {
  std::vector<std::string> args = options_.command;
  args.insert(args.end(), {"--cuda-include", local_.cuda_include_dir().string(), "--nice",
                           std::to_string(options_.niceness)});
  slot.process.start(args);
  // Requests are written with a deadline: a child that stops reading must not block us.
  const int fd = slot.process.stdin_fd();
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

CompileResult CompileProcessPool::exchange(Slot& slot, const CompileRequest& request) {
  const std::string label = (request.label.empty() ? request.source_name : request.label) + " for " + request.target.name();
  throw_if_interrupted();  // no new child, no new compile once the search is stopping
  if (!slot.process.running()) start(slot);
  std::optional<Clock::time_point> deadline;
  if (options_.time_limit_seconds) {
    deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                  std::chrono::duration<double>(*options_.time_limit_seconds));
  }
  // Whatever went wrong, the child is replaced: its state (a half-read request, a compile in flight) is
  // unknown.
  auto died = [&](const std::string& what) -> std::runtime_error {
    const std::string how = slot.process.reap();
    ++restarts_;
    return std::runtime_error(fmt::format("the compile process {} while compiling {} ({})", how, label, what));
  };
  // The search is stopping: the compile's result is not wanted, and the child is stopped now rather than
  // after the compile.
  auto stopped = [&]() -> Interrupted {
    slot.process.stop(true);
    return Interrupted{interrupt_signal()};
  };
  auto timed_out = [&]() -> CompileTimeout {
    slot.process.stop(true);
    ++restarts_;
    return CompileTimeout(fmt::format("compiling {} took longer than {:g} s; the compile process was killed", label,
                                      *options_.time_limit_seconds),
                          *options_.time_limit_seconds);
  };
  const Io sent = write_all(slot.process.stdin_fd(), compile_request_to_json_line(request), deadline);
  if (sent == Io::interrupted) throw stopped();
  if (sent == Io::timed_out) throw timed_out();
  if (sent == Io::closed) throw died("it stopped reading requests");
  std::string buffer, line;
  Io io = read_line(slot.process.stdout_fd(), buffer, line, deadline);
  if (io == Io::interrupted) throw stopped();
  if (io == Io::timed_out) throw timed_out();
  if (io == Io::closed) throw died("no reply");
  nlohmann::json header;
  try {
    header = nlohmann::json::parse(line);
  } catch (const std::exception& e) {
    slot.process.stop(true);
    ++restarts_;
    throw std::runtime_error(fmt::format("unreadable reply from the compile process for {}: {}", label, e.what()));
  }
  if (!header.at("ok").get<bool>()) {
    const std::string message = header.at("message");
    if (header.at("kind") == "compile_error") {
      throw CompileError(message, header.at("log").get<std::string>(), header.value("compile_seconds", 0.0));
    }
    throw std::runtime_error(message);
  }
  const std::size_t cubin_bytes = header.at("cubin_bytes");
  io = read_until(slot.process.stdout_fd(), buffer, cubin_bytes, deadline);
  if (io == Io::interrupted) throw stopped();
  if (io == Io::timed_out) throw timed_out();
  if (io == Io::closed) throw died("the reply was cut short");
  CompileResult result;
  result.cubin.assign(buffer.begin(), buffer.begin() + static_cast<std::ptrdiff_t>(cubin_bytes));
  result.lowered_names = header.at("lowered_names").get<std::map<std::string, std::string>>();
  for (const auto& [name, usage] : header.at("resources").items()) result.resources[name] = resource_usage_from_json(usage);
  result.log = header.at("log");
  result.compile_seconds = header.at("compile_seconds");
  read_log_warnings(result);
  return result;
}

CompileResult CompileProcessPool::compile(const CompileRequest& request) {
  Slot* slot = nullptr;
  {
    std::unique_lock lock(mutex_);
    auto found_idle = [&] {
      for (Slot& s : slots_) {
        if (!s.busy) {
          slot = &s;
          return true;
        }
      }
      return false;
    };
    // Woken now and then to see whether the search is being interrupted (a signal cannot notify).
    while (!idle_.wait_for(lock, std::chrono::milliseconds(100), found_idle)) throw_if_interrupted();
    slot->busy = true;
  }
  struct Release {
    CompileProcessPool& pool;
    Slot& slot;
    ~Release() {
      {
        std::lock_guard lock(pool.mutex_);
        slot.busy = false;
      }
      pool.idle_.notify_one();
    }
  } release{*this, *slot};
  return exchange(*slot, request);
}

}  // namespace evotune::runtime
