#pragma once
// The records of a search, as plain data: a run's description, every trial, the baselines measured beside
// them and the re-timings after. The worker protocol carries them, the store writes and reads them
// (evidence/store.h), exporters and the report read them. No SQLite, no CUDA.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/trial_status.h"

namespace evotune::core {

struct RunInfo {
  std::string family;        // "attention", or "replay" for a recorded space
  std::string problem;       // canonical problem text (or the T4 file's name)
  std::string problem_json;
  std::string strategy;
  std::uint64_t seed = 0;
  int budget = 0;
  std::string device;        // name, or "replay"
  std::string device_json;
  std::string versions;      // evotune / NVRTC / driver
  std::string options_json;  // whatever else reproduces the run
  // A replay run's recorded space: its absolute path and the SHA-256 of its bytes, so that a resume can
  // tell another or a changed file. Empty for other runs, and for runs recorded before schema 4.
  std::string space_path, space_sha256;
  std::string status;  // read back only: running, finished, interrupted, failed
};

struct TrialRecord {
  int seq = 0;         // order within the run, from 0
  int generation = 0;
  std::string config_key;  // stable identity (Config::key)
  std::string config;      // human form with labels
  // How it ended (core/trial_status.h). The default claims nothing: a record nobody judged is not valid.
  TrialStatus status = TrialStatus::invalid;
  std::string resources_json;
  std::optional<double> max_abs_error, rel_l2_error;
  std::optional<double> median_us, min_us, p10_us, p90_us, tflops, gbps;
  double compile_seconds = 0;
  std::string error;
  std::vector<double> samples_us;
  std::string created_at;  // when it was recorded (UTC, ISO 8601); filled when read
};

// A reference point measured in the same run as the trials, on the same device and inputs: the unfused
// cuBLAS attention ("cublas_unfused", with its time and check), the device's measured peaks ("peak_gemm":
// tflops of a large GEMM in the problem's dtype; "peak_copy": gbps of a device copy, read + write), and
// the library kernels a user already has, PyTorch SDPA's backends ("sdpa_flash", "sdpa_cudnn": time and
// check; harness/library_baseline.h).
struct BaselineRecord {
  std::string name;
  std::optional<double> median_us, p10_us, p90_us, tflops, gbps, max_abs_error;
  std::string detail_json;  // anything else (e.g. the check's verdict), JSON
  std::string created_at;   // filled when read
};

// One config of a run re-timed after the search, interleaved with the run's other top configs: in each
// round every config is timed once, in the same order, so drift of the GPU's state (clocks, temperature)
// over the seconds between trials reaches them all alike. The confirmed winner has the lowest median over
// rounds.
struct RetimeRecord {
  std::string config_key;
  int round = 0;
  double median_us = 0;
};

}  // namespace evotune::core

// The names these records were first declared under (evidence/store.h), kept so that code written against
// them compiles unchanged; new code may name them core::.
namespace evotune::evidence {
using core::BaselineRecord;
using core::RetimeRecord;
using core::RunInfo;
using core::TrialRecord;
using core::TrialStatus;
}  // namespace evotune::evidence
