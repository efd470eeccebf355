#pragma once
// TrialRecord <-> JSON, for the coordinator/worker protocol (one JSON object per line).
#include <nlohmann/json.hpp>

#include "core/trial.h"

namespace evotune::evidence {

nlohmann::json to_json(const TrialRecord& t);
TrialRecord trial_from_json(const nlohmann::json& j);
nlohmann::json to_json(const BaselineRecord& b);
BaselineRecord baseline_from_json(const nlohmann::json& j);

}  // namespace evotune::evidence
