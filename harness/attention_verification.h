#pragma once
// Re-verification of a tuned config before it is exported (DESIGN.md: "every exported config is
// re-verified on new random inputs and on tail shapes"): the config runs the exact problem on inputs
// drawn from a seed the search never used, and a tail shape of the same problem (odd lengths, so no
// dimension is a multiple of a tile; bottom-right causal with sq != skv), each checked against the fp32
// reference by the harness's rule; the exact problem is then timed as the search timed it.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "harness/timer.h"
#include "runtime/nvrtc_compiler.h"
#include "templates/attention/problem.h"
#include "templates/space.h"

namespace evotune::harness {

struct VerificationCase {
  attention::Problem problem;
  std::uint64_t seed = 0;
  bool passed = false;
  double max_abs_error = 0, tolerance = 0;
  std::string reason;  // why it failed
};

struct AttentionVerification {
  std::vector<VerificationCase> cases;
  std::optional<TimingSummary> timing;  // the exact problem, when every case passed
  bool passed() const;
};

// The exact problem and its tail shape: batch 1, same heads and head dim, query and key lengths cut by
// odd amounts (4096 -> 4059 queries, 4077 keys), so tiles are partial and causal masks are offset.
std::vector<attention::Problem> verification_problems(const attention::Problem& problem);

// Needs a device; compiles through `compiler` (the cubin cache, so a searched config is a cache hit).
AttentionVerification verify_attention_config(const Config& config, const attention::Problem& problem, int device,
                                              runtime::Compiler& compiler, std::uint64_t seed, int repetitions = 30);

}  // namespace evotune::harness
