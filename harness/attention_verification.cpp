#include "harness/attention_verification.h"

#include <fmt/format.h>

#include <algorithm>

#include "harness/attention_kernel.h"
#include "harness/attention_workspace.h"
#include "runtime/cuda_objects.h"
#include "runtime/device_properties.h"
#include "templates/attention/attention_family.h"

namespace evotune::harness {

bool AttentionVerification::passed() const {
  return !cases.empty() && std::all_of(cases.begin(), cases.end(), [](const VerificationCase& c) { return c.passed; });
}

std::vector<attention::Problem> verification_problems(const attention::Problem& problem) {
  attention::Problem tail = problem;
  tail.b = 1;
  tail.sq = problem.sq > 96 ? problem.sq - 37 : std::max(1, problem.sq - 3);
  tail.skv = std::max(tail.sq, problem.skv > 96 ? problem.skv - 19 : problem.skv - 1);
  return {problem, tail};
}

AttentionVerification verify_attention_config(const Config& config, const attention::Problem& problem, int device,
                                              runtime::Compiler& compiler, std::uint64_t seed, int repetitions) {
  const runtime::DeviceProperties props = runtime::query_device(device);
  runtime::DeviceContext context(device);
  const runtime::Target target = runtime::Target::parse(props.native_target());
  runtime::Stream stream;
  Timer timer(static_cast<std::size_t>(props.l2_bytes) * 2);
  AttentionVerification out;
  const std::vector<attention::Problem> problems = verification_problems(problem);
  for (std::size_t i = 0; i < problems.size(); ++i) {
    VerificationCase c;
    c.problem = problems[i];
    c.seed = seed + i;
    const runtime::Preparation prepared =
        attention::prepare(config, c.problem, DeviceLimits::from(props), target, compiler);
    if (const runtime::Rejection* r = runtime::rejected(prepared)) {
      c.reason = fmt::format("{}: {}", r->trial_status(), r->reason);
      out.cases.push_back(c);
      break;
    }
    try {
      AttentionKernel kernel(std::get<runtime::PreparedKernel>(prepared), config, c.problem,
                             DeviceLimits::from(props));
      AttentionWorkspace workspace(c.problem, compiler, target, c.seed, stream);
      const AttentionParams params = workspace.params(true);
      workspace.poison_outputs(stream);
      kernel.launch(params, stream);
      const AttentionCheck check = workspace.check(stream, true);
      c.passed = check.passed;
      c.max_abs_error = check.max_abs_error;
      c.tolerance = check.tolerance;
      c.reason = check.reason;
      if (c.passed && i == 0) {
        TimingOptions options;
        options.repetitions = repetitions;
        out.timing = timer.time([&](const runtime::Stream& s) { kernel.launch(params, s); }, stream, options);
      }
    } catch (const std::exception& e) {  // launch errors: the config fails verification
      c.passed = false;
      c.reason = e.what();
    }
    out.cases.push_back(c);
    if (!c.passed) break;
  }
  return out;
}

}  // namespace evotune::harness
