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
//   -> {"retime": {"kernels": [{"config": KEY, "cache_key": K, "kernel": NAME}, ...], "rounds": R, "reps": N}}
//        the search's top configs timed again, interleaved: R rounds, each timing every kernel once (N
//        flushed samples) in the order given
//   <- {"retime": [[median of round 0, round 1, ...] per kernel, in request order], "busy_seconds": S}
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "core/trial.h"

namespace evotune::search {

struct EvaluateRequest {
  std::string config_key;
  std::string cache_key;    // empty for replay workers
  std::string kernel_name;  // likewise
  std::optional<double> best_us;
  int batch = 0;  // launches per timed sample, the search's (WorkerPool); 0: the kernel's length decides
};

struct BaselinesRequest {
  int batch = 0;  // launches per timed sample, as the confirmation's (RetimeReply::batch); 0: each decides
};

struct RetimeRequest {
  std::vector<EvaluateRequest> kernels;  // best_us and batch unused
  int rounds = 5;
  int reps = 10;
  int batch = 0;  // launches per timed sample for all; 0: the first kernel's length decides
};

using WorkerRequest = std::variant<EvaluateRequest, BaselinesRequest, RetimeRequest>;

struct RetimeReply {
  std::vector<std::vector<double>> medians_us;  // [kernel][round]
  int batch = 1;  // launches per timed sample, the same for every kernel and round
  double busy_seconds = 0;
};

struct EvaluateReply {
  evidence::TrialRecord trial;
  int batch = 0;  // launches per sample the trial was timed with in full; 0: not so timed (failed, raced)
  bool restart = false;
  double busy_seconds = 0;
};

// One line each, without the newline. parse_* throw std::exception subclasses on malformed input.
std::string to_line(const WorkerRequest& request);
WorkerRequest parse_worker_request(const std::string& line);
std::string to_line(const EvaluateReply& reply);
EvaluateReply parse_evaluate_reply(const std::string& line);
std::string to_line(const RetimeReply& reply);
RetimeReply parse_retime_reply(const std::string& line);
std::string baselines_reply_line(const std::vector<evidence::BaselineRecord>& baselines);
std::vector<evidence::BaselineRecord> parse_baselines_reply(const std::string& line);

}  // namespace evotune::search
