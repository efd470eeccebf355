#pragma once
// evotune bench for any family: prepare one config (an error when the prepare stage rejects it, with the
// stage's reason), check it on poisoned outputs against the family's reference, time it (L2 flushed, CUDA
// events), and time the family's reference points and library baselines the same way, in the same run.
#include "harness/family.h"

namespace evotune::harness {

void run_bench(const Family& family, const BenchRequest& request, runtime::Compiler& compiler);

// The prepared kernel of `config`, or the prepare stage's reason as an error: UsageError when the family's
// rules refuse it, std::runtime_error when it does not compile or its resources are refused.
runtime::PreparedKernel prepare_or_throw(const Family& family, const Config& config, const FamilyProblem& problem,
                                         const runtime::DeviceProperties& props, const runtime::Target& target,
                                         runtime::Compiler& compiler, const BuildFlags& build = {});

// A baseline as bench prints and writes it.
nlohmann::json baseline_json(const evidence::BaselineRecord& b);

}  // namespace evotune::harness
