#include "families/attention/host/library_baseline.h"

#include <fmt/format.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "runtime/child_process.h"
#include "runtime/interrupt.h"

namespace evotune::harness {
namespace fs = std::filesystem;

namespace {

constexpr const char* kScriptPath = "scripts/compare_sdpa.py";

// One CSV record: comma-separated, a field may be double-quoted ("" inside is a quote).
std::vector<std::string> split_csv_line(const std::string& line) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        fields.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        fields.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      fields.emplace_back();
    } else if (c != '\r') {
      fields.back() += c;
    }
  }
  if (quoted) throw std::runtime_error("unterminated quote in: " + line);
  return fields;
}

std::optional<double> number(const std::string& text) {
  if (text.empty()) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || *end != '\0' || !std::isfinite(v)) return std::nullopt;
  return v;
}

std::string backend_what(const std::string& backend) {
  static const std::map<std::string, std::string> names = {
      {"flash", "FlashAttention-2 backend"}, {"cudnn", "cuDNN backend"}, {"efficient", "memory-efficient backend"},
      {"math", "math backend"}};
  const auto it = names.find(backend);
  return fmt::format("PyTorch F.scaled_dot_product_attention, {} (scripts/compare_sdpa.py: L2 flushed, CUDA-event "
                     "median)",
                     it == names.end() ? backend : it->second);
}

}  // namespace

std::optional<std::string> find_sdpa_script() {
  if (const char* set = std::getenv("EVOTUNE_SDPA_SCRIPT"); set && *set) {
    if (fs::is_regular_file(set)) return std::string(set);
    return std::nullopt;  // named but missing: not silently another one
  }
  std::vector<fs::path> roots = {fs::current_path()};
  if (const char* source = std::getenv("EVOTUNE_SOURCE_DIR"); source && *source) roots.emplace_back(source);
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    for (fs::path dir = exe.parent_path(); !dir.empty() && dir != dir.root_path(); dir = dir.parent_path())
      roots.push_back(dir);
  }
  for (const fs::path& root : roots) {
    const fs::path candidate = root / kScriptPath;
    if (fs::is_regular_file(candidate, ec)) return candidate.string();
  }
  return std::nullopt;
}

std::vector<evidence::BaselineRecord> library_baselines_from_csv(const std::string& csv,
                                                                 const attention::Problem& problem) {
  std::istringstream in(csv);
  std::string line;
  if (!std::getline(in, line)) throw std::runtime_error("empty SDPA CSV");
  const std::vector<std::string> header = split_csv_line(line);
  std::map<std::string, std::size_t> column;
  for (std::size_t i = 0; i < header.size(); ++i) column[header[i]] = i;
  for (const char* needed : {"problem", "backend", "status", "median_us", "p10_us", "p90_us", "tflops", "gbps",
                             "max_abs_err", "note", "reps", "batch"}) {
    if (!column.count(needed)) throw std::runtime_error(fmt::format("SDPA CSV without a '{}' column", needed));
  }
  const std::string wanted = problem.to_string();
  std::vector<evidence::BaselineRecord> out;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    const std::vector<std::string> f = split_csv_line(line);
    if (f.size() != header.size()) throw std::runtime_error("SDPA CSV row with a different field count: " + line);
    auto at = [&](const char* name) { return f[column.at(name)]; };
    if (attention::Problem::parse(at("problem")).to_string() != wanted) continue;
    evidence::BaselineRecord b;
    b.name = "sdpa_" + at("backend");
    const bool ok = at("status") == "ok";
    if (ok) {
      b.median_us = number(at("median_us"));
      b.p10_us = number(at("p10_us"));
      b.p90_us = number(at("p90_us"));
      b.tflops = number(at("tflops"));
      b.gbps = number(at("gbps"));
    }
    b.max_abs_error = number(at("max_abs_err"));
    b.detail_json = nlohmann::json{{"what", backend_what(at("backend"))},
                                   {"check", ok ? "pass" : "fail"},
                                   {"status", at("status")},
                                   {"reason", at("note")},
                                   {"samples", number(at("reps")).value_or(0)},
                                   {"calls_per_sample", number(at("batch")).value_or(1)},
                                   {"role", "library"}}
                        .dump();
    out.push_back(std::move(b));
  }
  return out;
}

LibraryBaselines measure_library_baselines(const attention::Problem& problem, const LibraryBaselineOptions& options) {
  LibraryBaselines result;
  const std::optional<std::string> script = options.script.empty() ? find_sdpa_script() : options.script;
  if (!script || !fs::is_regular_file(*script)) {
    result.unavailable = options.script.empty()
                             ? fmt::format("{} not found (set EVOTUNE_SDPA_SCRIPT or run from the checkout)", kScriptPath)
                             : fmt::format("{} does not exist", options.script);
    return result;
  }
  std::error_code ec;
  const fs::path dir = fs::temp_directory_path() / fmt::format("evotune-sdpa-{}", ::getpid());
  fs::create_directories(dir, ec);
  const fs::path csv = dir / "sdpa.csv";
  // posix_spawn does not search PATH: env does.
  runtime::ChildProcess child;
  try {
    std::vector<std::string> command{"/usr/bin/env", "python3", *script, "--problem", problem.to_string(),
                                     "--backends", "flash,cudnn", "--csv", csv.string(), "--reps",
                                     std::to_string(options.reps), "--device", std::to_string(options.device)};
    if (options.batch > 0) command.insert(command.end(), {"--batch", std::to_string(options.batch)});
    child.start(command);
  } catch (const std::exception& e) {
    result.unavailable = e.what();
    fs::remove_all(dir, ec);
    return result;
  }
  ::close(child.stdin_fd());  // it reads nothing
  // Its stdout is its table for a person; drained here (a full pipe would stop it) until it exits or the
  // time is up.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(options.timeout_s);
  bool timed_out = false;
  char buffer[4096];
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      timed_out = true;
      break;
    }
    pollfd p[2] = {{child.stdout_fd(), POLLIN, 0}, {runtime::interrupt_fd(), POLLIN, 0}};
    const int ready = ::poll(p, 2, static_cast<int>(std::min<long long>(left.count(), 1000)));
    if (runtime::interrupted()) {  // a search being interrupted: the baselines are not wanted any more
      child.stop(true);
      fs::remove_all(dir, ec);
      runtime::throw_if_interrupted();
    }
    if (ready < 0 && errno != EINTR) break;
    if (ready <= 0 || !(p[0].revents & (POLLIN | POLLHUP | POLLERR))) continue;
    const ssize_t n = ::read(child.stdout_fd(), buffer, sizeof buffer);
    if (n <= 0) break;  // EOF: it exited (or closed its stdout)
  }
  if (timed_out) child.stop(true);
  const std::string ended = timed_out ? fmt::format("timed out after {:.0f} s", options.timeout_s) : child.reap();
  std::ifstream in(csv);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  fs::remove_all(dir, ec);
  if (!timed_out && !text.empty()) {
    try {
      result.records = library_baselines_from_csv(text, problem);
    } catch (const std::exception& e) {
      result.unavailable = fmt::format("compare_sdpa.py wrote an unreadable CSV ({})", e.what());
      return result;
    }
  }
  if (result.records.empty()) {
    // Exit 1 without a CSV: no torch; 3: torch has no GPU (compare_sdpa.py's exit codes). Its stderr, shared
    // with ours, has said which.
    result.unavailable = fmt::format("python3 {} {} without a result (see its message above)", *script, ended);
  }
  return result;
}

}  // namespace evotune::harness
