#pragma once
// How a trial ended: one value per outcome, named in the store (the trials table's CHECK list, which a
// test holds equal to status_name over kTrialStatuses), in the worker's JSON replies, in exported CSV and
// in the report. The names are spelled only here; everything else compares enumerators.
#include <array>
#include <cstddef>
#include <iosfwd>
#include <optional>
#include <string_view>

namespace evotune::core {

enum class TrialStatus {
  ok,               // ran, checked correct, timed
  invalid,          // rejected before running: the family's rules, or the resource report (register spills)
  compile_error,    // the source does not compile (or the compiler process died)
  compile_timeout,  // the compile ran past its time limit
  launch_error,     // compiled, but loading or launching the kernel failed
  wrong_result,     // ran, but the output failed the check
  timeout,          // the worker gave no result within the time limit
  crash,            // the worker died or answered nonsense
  compiled,         // a compile-only sweep: built and accepted, never run
};

inline constexpr std::array<TrialStatus, 9> kTrialStatuses = {TrialStatus::ok,
                                                              TrialStatus::invalid,
                                                              TrialStatus::compile_error,
                                                              TrialStatus::compile_timeout,
                                                              TrialStatus::launch_error,
                                                              TrialStatus::wrong_result,
                                                              TrialStatus::timeout,
                                                              TrialStatus::crash,
                                                              TrialStatus::compiled};
static_assert(kTrialStatuses.size() == static_cast<std::size_t>(TrialStatus::compiled) + 1,
              "kTrialStatuses lists every TrialStatus");

// The name as stored and printed ("ok", "compile_error", ...).
const char* status_name(TrialStatus status);
// The status of that name; nullopt for any other text.
std::optional<TrialStatus> parse_status(std::string_view name);

// A valid trial: correct and timed, the only kind that has a time to rank by.
constexpr bool is_valid(TrialStatus status) {
  return status == TrialStatus::ok;
}

// Writes status_name(status) (also what GoogleTest prints for a mismatch).
std::ostream& operator<<(std::ostream& out, TrialStatus status);

}  // namespace evotune::core
