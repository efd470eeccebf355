#pragma once
// `evotune export --format header`: the winners of searches as one self-contained C++17 header that
// production code includes. Per (device, problem) a constexpr entry with the winning config (as the
// text evotune's launcher compiles and as typed fields) and, ahead of time, its kernel: the CUBIN for the
// device's exact target, the kernel's name in it, its block size and shared memory. Each entry is
// commented with where it came from (device, run, trial, measured time, TFLOP/s, speedup over the
// baselines measured in that run, whether it was re-verified on a GPU at export). Plus
// `lookup(device, sm, problem)` with a contract: the exact problem, else the nearest one of the same kind
// within kMaxDistance, else none (README, "Using a tuned kernel").
//
// Pure text from plain data, and deterministic: the same input gives the same bytes (no clock, no
// absolute path). The caller (cli/cmd_export.cpp) gathers the entries, compiles and verifies them.
#include <cstdint>
#include <optional>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace evotune::evidence {

struct TunedBaseline {
  std::string name;  // e.g. cublas_unfused
  double median_us = 0;
};

// What an entry's config needs of a problem beyond its kind (the attention family's problem_requirements),
// written into the header so that its lookup serves the entry only where the family's rules hold.
struct TunedRequirements {
  int group_divides = 0;   // the GQA group must divide this; 0: any
  int min_group = 1;
  int min_skv = 1;
  long long max_skv = 0;   // 0: no bound
  long long max_rows = 0;  // b * hq * sq; 0: no bound
};

struct TunedEntry {
  std::string device;  // the driver's name for the GPU
  int sm = 0;          // compute capability x 10 (90 for 9.0): the device family lookup falls back to
  int b = 0, hq = 0, hkv = 0, sq = 0, skv = 0, d = 0;
  bool causal = false, bf16 = false;
  std::string problem_text;
  TunedRequirements needs;
  std::string config_text;  // every tunable, labels: "mma=mma_sync,block_m=128,..."
  std::int64_t run_id = 0;
  int trial_seq = 0;
  std::string strategy, run_created_at;
  int run_trials = 0;
  double median_us = 0, p10_us = 0, p90_us = 0;
  double tflops = 0, gbps = 0;
  std::vector<TunedBaseline> baselines;  // measured in the same run; empty when none was
  bool reverified = false;
  std::string verification;  // one or more lines: what the re-verification did and found, or why none ran
  // The kernel ahead of time; cubin empty: exported without (the launcher then needs NVRTC).
  std::string target;        // e.g. "sm_90a"
  std::string kernel_name;   // the attention kernel's lowered name in the CUBIN
  std::string sources;       // attention::kernel_sources_digest() of the evotune that compiled it
  int threads = 0;           // per CTA
  int shared_bytes = 0;      // dynamic shared memory per CTA
  int grid[3] = {0, 0, 0};   // the attention kernel's grid for this entry's own problem (a comment)
  std::vector<char> cubin;
};

struct TunedHeaderInput {
  std::string command;   // the command line that regenerates the header (file names, not paths)
  std::string database;  // its file name
  std::string evotune_version;
  // The attention family's tunables in order; true where the values are numbers (an int field), false
  // for categorical ones (a const char* field holding the label).
  std::vector<std::pair<std::string, bool>> tunables;
  // Numeric tunables whose config text may name one value (splits=auto is 0, producer_regs=none is 0):
  // the int field gets the number.
  std::map<std::string, std::pair<int, std::string>> named_values;
  std::vector<TunedEntry> entries;
};

std::string render_tuned_header(const TunedHeaderInput& input);

}  // namespace evotune::evidence
