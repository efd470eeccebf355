#include "families/user_kernel/baseline.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <nlohmann/json.hpp>

#include "runtime/child_process.h"
#include "runtime/interrupt.h"

namespace evotune::user_kernel {

std::vector<std::string> baseline_command(const Spec& spec, const std::vector<std::int64_t>& sizes, int device, int batch) {
  std::vector<std::string> words;
  for (const std::string& word : spec.baseline->command) {
    words.push_back(substitute_sizes(word, spec, sizes, {{"device", std::to_string(device)}, {"batch", std::to_string(batch)}}));
  }
  return words;
}

evidence::BaselineRecord baseline_record(const SpecBaseline& baseline, const std::string& output, double flops,
                                         double bytes) {
  std::size_t end = output.find_last_not_of(" \t\r\n");
  if (end == std::string::npos) throw std::runtime_error("it printed nothing");
  const std::size_t start = output.rfind('\n', end);
  const std::string last = output.substr(start == std::string::npos ? 0 : start + 1, end + 1 - (start == std::string::npos ? 0 : start + 1));
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(last);
  } catch (const nlohmann::json::exception&) {
    throw std::runtime_error(fmt::format("its last line is not JSON: {}", last.substr(0, 200)));
  }
  if (!j.is_object()) throw std::runtime_error(fmt::format("its last line is not a JSON object: {}", last.substr(0, 200)));
  auto number = [&](const char* key) -> std::optional<double> {
    if (!j.contains(key)) return std::nullopt;
    if (!j[key].is_number() || !std::isfinite(j[key].get<double>()))
      throw std::runtime_error(fmt::format("\"{}\" is not a finite number", key));
    return j[key].get<double>();
  };
  evidence::BaselineRecord record;
  record.name = baseline.name;
  record.median_us = number("median_us");
  if (!record.median_us || *record.median_us <= 0) throw std::runtime_error("no positive \"median_us\" in its last line");
  record.p10_us = number("p10_us");
  record.p90_us = number("p90_us");
  record.max_abs_error = number("max_abs_error");
  if (flops > 0) record.tflops = flops / (*record.median_us * 1e-6) / 1e12;
  if (bytes > 0) record.gbps = bytes / (*record.median_us * 1e-6) / 1e9;
  std::string what = j.contains("what") && j["what"].is_string() ? j["what"].get<std::string>() : "";
  if (what.empty()) {
    what = fmt::format("{}", fmt::join(baseline.command, " "));
  }
  record.detail_json = nlohmann::json{{"what", what}, {"role", "library"}}.dump();
  return record;
}

harness::Family::LibraryBaselines run_baseline(const Spec& spec, const std::vector<std::int64_t>& sizes, int device,
                                               int batch, double flops, double bytes) {
  harness::Family::LibraryBaselines result;
  if (!spec.baseline) {
    result.unavailable = fmt::format("{} has no [baseline]", spec.path);
    return result;
  }
  const SpecBaseline& baseline = *spec.baseline;
  // env runs it from the spec's directory and searches PATH (posix_spawn does neither).
  std::vector<std::string> argv = {"/usr/bin/env", "-C", spec.directory.string()};
  const std::vector<std::string> command = baseline_command(spec, sizes, device, batch);
  argv.insert(argv.end(), command.begin(), command.end());
  runtime::ChildProcess child;
  try {
    child.start(argv);
  } catch (const std::exception& e) {
    result.unavailable = fmt::format("baseline {}: {}", baseline.name, e.what());
    return result;
  }
  ::close(child.stdin_fd());  // it reads nothing
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(baseline.timeout_s);
  std::string output;
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
    if (runtime::interrupted()) {  // the search is being interrupted: the baseline is not wanted any more
      child.stop(true);
      runtime::throw_if_interrupted();
    }
    if (ready < 0 && errno != EINTR) break;
    if (ready <= 0 || !(p[0].revents & (POLLIN | POLLHUP | POLLERR))) continue;
    const ssize_t n = ::read(child.stdout_fd(), buffer, sizeof buffer);
    if (n <= 0) break;  // EOF: it exited (or closed its stdout)
    output.append(buffer, static_cast<std::size_t>(n));
  }
  if (timed_out) child.stop(true);
  const std::string ended = timed_out ? fmt::format("timed out after {:.0f} s", baseline.timeout_s) : child.reap();
  const std::string words = fmt::format("{}", fmt::join(command, " "));
  if (timed_out || ended != "exited with code 0") {
    result.unavailable = fmt::format("baseline {} ({}) {}", baseline.name, words, ended);
    return result;
  }
  try {
    result.records.push_back(baseline_record(baseline, output, flops, bytes));
  } catch (const std::exception& e) {
    result.unavailable = fmt::format("baseline {} ({}): {}", baseline.name, words, e.what());
  }
  return result;
}

}  // namespace evotune::user_kernel
