#include "search/worker_protocol.h"

#include <nlohmann/json.hpp>

#include "evidence/trial_json.h"

namespace evotune::search {

namespace {

nlohmann::json evaluate_body(const EvaluateRequest& e) {
  nlohmann::json body = {{"config", e.config_key}};
  if (!e.cache_key.empty()) body["cache_key"] = e.cache_key;
  if (!e.kernel_name.empty()) body["kernel"] = e.kernel_name;
  if (e.best_us) body["best_us"] = *e.best_us;
  if (e.batch > 0) body["batch"] = e.batch;
  return body;
}

EvaluateRequest evaluate_from(const nlohmann::json& body) {
  EvaluateRequest e;
  e.config_key = body.at("config");
  e.cache_key = body.value("cache_key", "");
  e.kernel_name = body.value("kernel", "");
  if (body.contains("best_us")) e.best_us = body.at("best_us").get<double>();
  e.batch = body.value("batch", 0);
  return e;
}

}  // namespace

std::string to_line(const WorkerRequest& request) {
  if (const auto* b = std::get_if<BaselinesRequest>(&request)) {
    if (b->batch == 0) return R"({"baselines":true})";
    return nlohmann::json{{"baselines", {{"batch", b->batch}}}}.dump();
  }
  if (const auto* r = std::get_if<RetimeRequest>(&request)) {
    nlohmann::json kernels = nlohmann::json::array();
    for (const EvaluateRequest& k : r->kernels) kernels.push_back(evaluate_body(k));
    return nlohmann::json{{"retime", {{"kernels", kernels}, {"rounds", r->rounds}, {"reps", r->reps}, {"batch", r->batch}}}}
        .dump();
  }
  return nlohmann::json{{"evaluate", evaluate_body(std::get<EvaluateRequest>(request))}}.dump();
}

WorkerRequest parse_worker_request(const std::string& line) {
  const nlohmann::json j = nlohmann::json::parse(line);
  if (j.contains("baselines")) {
    BaselinesRequest b;
    if (j.at("baselines").is_object()) b.batch = j.at("baselines").value("batch", 0);
    return b;
  }
  if (j.contains("retime")) {
    const nlohmann::json& body = j.at("retime");
    RetimeRequest r;
    for (const nlohmann::json& k : body.at("kernels")) r.kernels.push_back(evaluate_from(k));
    r.rounds = body.at("rounds");
    r.reps = body.at("reps");
    r.batch = body.value("batch", 0);
    return r;
  }
  return evaluate_from(j.at("evaluate"));
}

std::string to_line(const RetimeReply& reply) {
  return nlohmann::json{{"retime", reply.medians_us}, {"batch", reply.batch}, {"busy_seconds", reply.busy_seconds}}
      .dump();
}

RetimeReply parse_retime_reply(const std::string& line) {
  const nlohmann::json j = nlohmann::json::parse(line);
  RetimeReply r;
  r.medians_us = j.at("retime").get<std::vector<std::vector<double>>>();
  r.batch = j.value("batch", 1);
  r.busy_seconds = j.value("busy_seconds", 0.0);
  return r;
}

std::string to_line(const EvaluateReply& reply) {
  return nlohmann::json{{"trial", evidence::to_json(reply.trial)},
                        {"batch", reply.batch},
                        {"restart", reply.restart},
                        {"busy_seconds", reply.busy_seconds}}
      .dump();
}

EvaluateReply parse_evaluate_reply(const std::string& line) {
  const nlohmann::json j = nlohmann::json::parse(line);
  EvaluateReply r;
  r.trial = evidence::trial_from_json(j.at("trial"));
  r.batch = j.value("batch", 0);
  r.restart = j.value("restart", false);
  r.busy_seconds = j.value("busy_seconds", 0.0);
  return r;
}

std::string baselines_reply_line(const std::vector<evidence::BaselineRecord>& baselines) {
  nlohmann::json list = nlohmann::json::array();
  for (const evidence::BaselineRecord& b : baselines) list.push_back(evidence::to_json(b));
  return nlohmann::json{{"baselines", list}}.dump();
}

std::vector<evidence::BaselineRecord> parse_baselines_reply(const std::string& line) {
  // Parsed into a named value: a range-for over parse(...).at(...) would iterate a destroyed temporary.
  const nlohmann::json parsed = nlohmann::json::parse(line);
  std::vector<evidence::BaselineRecord> out;
  for (const nlohmann::json& b : parsed.at("baselines")) out.push_back(evidence::baseline_from_json(b));
  return out;
}

}  // namespace evotune::search
