#pragma once
// The coordinator <-> worker protocol (search/worker_pool.h is the client, `evotune worker` the server):
// one JSON object per line each way. Typed here, both directions, so client and server cannot drift.
//
//   -> {"evaluate": {"config": KEY, "cache_key": K, "kernel": NAME, "best_us": B}}
//        a config to check and time: a GPU worker loads the prepared kernel (cubin cache entry K, entry
//        point NAME) and never compiles; a replay worker answers from its recording (no kernel fields).
//        best_us, when present, is the best median so far (racing).
//   <- {"trial": {...}, "restart": R, "busy_seconds": S}
//        the measured trial; R: the worker's CUDA context may be poisoned, it exits after replying;
//        S: the time it spent loading, checking and timing (the GPU-busy time).
//   -> {"baselines": true}
//   <- {"baselines": [...]}
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "evidence/store.h"

namespace evotune::search {

struct EvaluateRequest {
  std::string config_key;
  std::string cache_key;    // empty for replay workers
  std::string kernel_name;  // likewise
  std::optional<double> best_us;
};

struct BaselinesRequest {};

using WorkerRequest = std::variant<EvaluateRequest, BaselinesRequest>;

struct EvaluateReply {
  evidence::TrialRecord trial;
  bool restart = false;
  double busy_seconds = 0;
};

// One line each, without the newline. parse_* throw std::exception subclasses on malformed input.
std::string to_line(const WorkerRequest& request);
WorkerRequest parse_worker_request(const std::string& line);
std::string to_line(const EvaluateReply& reply);
EvaluateReply parse_evaluate_reply(const std::string& line);
std::string baselines_reply_line(const std::vector<evidence::BaselineRecord>& baselines);
std::vector<evidence::BaselineRecord> parse_baselines_reply(const std::string& line);

}  // namespace evotune::search
