#pragma once
// The strongest attention a user already has, timed beside evotune's: PyTorch's
// F.scaled_dot_product_attention with its flash and cuDNN backends, measured by scripts/compare_sdpa.py in
// a child process (python3 with torch). That script times the way evotune's timer does: inputs of the
// same layout, L2 flushed by a read before every sample, CUDA-event medians, short calls as CUDA graphs;
// and checks each backend's output against a float64 reference. Without python3, torch or a GPU for torch,
// there is no library baseline, and the caller says why (LibraryBaselines::unavailable).
#include <optional>
#include <string>
#include <vector>

#include "core/trial.h"
#include "families/attention/host/problem.h"

namespace evotune::harness {

struct LibraryBaselineOptions {
  std::string script;  // compare_sdpa.py; empty: find_sdpa_script()
  int device = 0;      // CUDA ordinal, as this process sees it (the child inherits CUDA_VISIBLE_DEVICES)
  int reps = 30;       // timed samples per backend
  int batch = 0;       // calls per sample (compare_sdpa.py --batch); 0: each backend's length decides
  double timeout_s = 900;
};

struct LibraryBaselines {
  // sdpa_flash and sdpa_cudnn: a median where the backend ran and passed its check; otherwise none, and
  // the detail says why ("unsupported", "error", the check's verdict).
  std::vector<evidence::BaselineRecord> records;
  std::string unavailable;  // why there are no records (empty when there are)
};

// compare_sdpa.py: $EVOTUNE_SDPA_SCRIPT, else scripts/compare_sdpa.py under the working directory,
// $EVOTUNE_SOURCE_DIR, or a directory above this executable (a build tree inside the checkout).
std::optional<std::string> find_sdpa_script();

LibraryBaselines measure_library_baselines(const attention::Problem& problem, const LibraryBaselineOptions& options);

// The records of compare_sdpa.py's CSV rows for `problem` (its --csv output). Throws std::runtime_error
// on a malformed CSV.
std::vector<evidence::BaselineRecord> library_baselines_from_csv(const std::string& csv,
                                                                 const attention::Problem& problem);

}  // namespace evotune::harness
