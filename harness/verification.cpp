#include "harness/verification.h"

#include <fmt/format.h>

#include <algorithm>

#include "harness/rejection_status.h"
#include "runtime/cuda_objects.h"
#include "runtime/device_properties.h"

namespace evotune::harness {

bool Verification::passed() const {
  return !cases.empty() && std::all_of(cases.begin(), cases.end(), [](const VerifiedCase& c) { return c.passed; });
}

Verification verify_config(const Family& family, const Config& config, const FamilyProblem& problem, int device,
                           runtime::Compiler& compiler, std::uint64_t seed, int repetitions) {
  const runtime::DeviceProperties props = runtime::query_device(device);
  runtime::DeviceContext context(device);
  const runtime::Target target = runtime::Target::parse(props.native_target());
  const DeviceLimits limits = DeviceLimits::from(props);
  runtime::Stream stream;
  Timer timer(static_cast<std::size_t>(props.l2_bytes) * 2);
  Verification out;
  const std::vector<FamilyProblem> problems = family.verification_problems(problem);
  for (std::size_t i = 0; i < problems.size(); ++i) {
    VerifiedCase c;
    c.problem = problems[i].text;
    c.seed = seed + i;
    const runtime::Preparation prepared = family.prepare(config, problems[i], limits, target, compiler);
    if (const runtime::Rejection* r = runtime::rejected(prepared)) {
      c.reason = fmt::format("{}: {}", core::status_name(trial_status(*r)), r->reason);
      out.cases.push_back(c);
      break;
    }
    try {
      const runtime::PreparedKernel& kernel = std::get<runtime::PreparedKernel>(prepared);
      const std::unique_ptr<Bench> bench =
          family.make_bench(problems[i], BenchContext{props, limits, target, compiler, stream, c.seed});
      const std::unique_ptr<LoadedKernel> loaded = bench->load(*kernel.cubin, kernel.kernel_name, config);
      bench->poison_outputs(stream);
      loaded->launch(stream);
      const CheckResult check = bench->check(stream);
      c.passed = check.passed;
      c.max_abs_error = check.max_abs_error;
      c.tolerance = check.tolerance;
      c.reason = check.reason;
      if (c.passed && i == 0) {
        TimingOptions options;
        options.repetitions = repetitions;
        out.timing = timer.time([&](const runtime::Stream& s) { loaded->launch(s); }, stream, options);
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
