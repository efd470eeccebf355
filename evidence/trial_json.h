#pragma once
// TrialRecord <-> JSON, for the coordinator/worker protocol (one JSON object per line). The status is
// its name (core::status_name); trial_from_json throws std::runtime_error for a name it does not know.
#include <nlohmann/json.hpp>

#include "core/trial.h"

namespace evotune::evidence {

nlohmann::json to_json(const TrialRecord& t);
TrialRecord trial_from_json(const nlohmann::json& j);
nlohmann::json to_json(const BaselineRecord& b);
BaselineRecord baseline_from_json(const nlohmann::json& j);

}  // namespace evotune::evidence
