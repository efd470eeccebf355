#pragma once
// Re-verification of a tuned config before it is exported (DESIGN.md: "every exported config is
// re-verified on new random inputs and on tail shapes"), for any family: the config runs each of the
// family's verification problems (the exact problem first) on inputs drawn from a seed the search never
// used, each checked by the family's Bench; the exact problem is then timed as the search timed it.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "harness/family.h"
#include "harness/timer.h"

namespace evotune::harness {

struct VerifiedCase {
  std::string problem;  // the family's text
  std::uint64_t seed = 0;
  bool passed = false;
  double max_abs_error = 0, tolerance = 0;
  std::string reason;  // why it failed
};

struct Verification {
  std::vector<VerifiedCase> cases;
  std::optional<TimingSummary> timing;  // the exact problem, when every case passed
  bool passed() const;
};

// Needs a device; compiles through `compiler` (the cubin cache, so a searched config is a cache hit).
Verification verify_config(const Family& family, const Config& config, const FamilyProblem& problem, int device,
                           runtime::Compiler& compiler, std::uint64_t seed, int repetitions = 30);

}  // namespace evotune::harness
