#include "core/trial_status.h"

#include <ostream>

namespace evotune::core {

const char* status_name(TrialStatus status) {
  switch (status) {
    case TrialStatus::ok:
      return "ok";
    case TrialStatus::invalid:
      return "invalid";
    case TrialStatus::compile_error:
      return "compile_error";
    case TrialStatus::compile_timeout:
      return "compile_timeout";
    case TrialStatus::launch_error:
      return "launch_error";
    case TrialStatus::wrong_result:
      return "wrong_result";
    case TrialStatus::timeout:
      return "timeout";
    case TrialStatus::crash:
      return "crash";
    case TrialStatus::compiled:
      return "compiled";
  }
  return "unknown";  // not an enumerator (a cast); never stored: parse_status refuses it
}

std::optional<TrialStatus> parse_status(std::string_view name) {
  for (TrialStatus status : kTrialStatuses) {
    if (name == status_name(status)) return status;
  }
  return std::nullopt;
}

std::ostream& operator<<(std::ostream& out, TrialStatus status) {
  return out << status_name(status);
}

}  // namespace evotune::core
