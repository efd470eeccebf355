#include "evidence/trial_json.h"

#include <stdexcept>

namespace evotune::evidence {
namespace {
void put(nlohmann::json& j, const char* key, const std::optional<double>& v) {
  if (v) j[key] = *v;
}
std::optional<double> get(const nlohmann::json& j, const char* key) {
  if (!j.contains(key) || j[key].is_null()) return std::nullopt;
  return j[key].get<double>();
}
}  // namespace

nlohmann::json to_json(const TrialRecord& t) {
  nlohmann::json j = {{"status", core::status_name(t.status)},
                      {"resources", t.resources_json},
                      {"compile_seconds", t.compile_seconds},
                      {"error", t.error},
                      {"samples_us", t.samples_us}};
  put(j, "max_abs_error", t.max_abs_error);
  put(j, "rel_l2_error", t.rel_l2_error);
  put(j, "median_us", t.median_us);
  put(j, "min_us", t.min_us);
  put(j, "p10_us", t.p10_us);
  put(j, "p90_us", t.p90_us);
  put(j, "tflops", t.tflops);
  put(j, "gbps", t.gbps);
  return j;
}

TrialRecord trial_from_json(const nlohmann::json& j) {
  TrialRecord t;
  const std::string status = j.at("status").get<std::string>();
  const std::optional<core::TrialStatus> parsed = core::parse_status(status);
  if (!parsed) throw std::runtime_error("unknown trial status '" + status + "'");
  t.status = *parsed;
  t.resources_json = j.value("resources", "");
  t.compile_seconds = j.value("compile_seconds", 0.0);
  t.error = j.value("error", "");
  t.samples_us = j.value("samples_us", std::vector<double>{});
  t.max_abs_error = get(j, "max_abs_error");
  t.rel_l2_error = get(j, "rel_l2_error");
  t.median_us = get(j, "median_us");
  t.min_us = get(j, "min_us");
  t.p10_us = get(j, "p10_us");
  t.p90_us = get(j, "p90_us");
  t.tflops = get(j, "tflops");
  t.gbps = get(j, "gbps");
  return t;
}

nlohmann::json to_json(const BaselineRecord& b) {
  nlohmann::json j = {{"name", b.name}, {"detail", b.detail_json}};
  put(j, "median_us", b.median_us);
  put(j, "p10_us", b.p10_us);
  put(j, "p90_us", b.p90_us);
  put(j, "tflops", b.tflops);
  put(j, "gbps", b.gbps);
  put(j, "max_abs_error", b.max_abs_error);
  return j;
}

BaselineRecord baseline_from_json(const nlohmann::json& j) {
  BaselineRecord b;
  b.name = j.at("name").get<std::string>();
  b.detail_json = j.value("detail", std::string("{}"));
  b.median_us = get(j, "median_us");
  b.p10_us = get(j, "p10_us");
  b.p90_us = get(j, "p90_us");
  b.tflops = get(j, "tflops");
  b.gbps = get(j, "gbps");
  b.max_abs_error = get(j, "max_abs_error");
  return b;
}

}  // namespace evotune::evidence
