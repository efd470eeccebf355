#include "families/user_kernel/rules.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>

namespace evotune::user_kernel {
namespace {

// CUDA's launch limits on every architecture evotune targets (sm_70 and later).
constexpr std::array<std::int64_t, 3> kMaxBlock = {1024, 1024, 64};
constexpr std::array<std::int64_t, 3> kMaxGrid = {2147483647, 65535, 65535};
constexpr const char* kAxes = "xyz";

std::optional<std::string> plan_dimensions(const std::vector<SpecExpression>& expressions,
                                           std::span<const double> values, const std::array<std::int64_t, 3>& maxima,
                                           std::array<unsigned, 3>& out) {
  for (std::size_t axis = 0; axis < expressions.size(); ++axis) {
    const auto size = positive_integer(expressions[axis], values);
    if (const auto* why = std::get_if<std::string>(&size)) return *why;
    const std::int64_t v = std::get<std::int64_t>(size);
    if (v > maxima[axis]) {
      return describe_failure(expressions[axis],
                              fmt::format("is {}, above CUDA's limit of {} in {}", v, maxima[axis], kAxes[axis]));
    }
    out[axis] = static_cast<unsigned>(v);
  }
  return std::nullopt;
}

}  // namespace

std::vector<double> scope_values(const Spec& spec, std::span<const std::int64_t> sizes, const Config* config) {
  std::vector<double> values;
  values.reserve(spec.sizes.size() + spec.tunables.size());
  for (std::int64_t s : sizes) values.push_back(static_cast<double>(s));
  values.resize(spec.sizes.size(), 0.0);
  for (const Tunable& t : spec.tunables)
    values.push_back(config != nullptr && config->has(t.name) ? config->at(t.name) : 0.0);
  return values;
}

std::string describe_failure(const SpecExpression& e, const std::string& what) {
  return fmt::format("{} '{}' {}", e.role, e.text(), what);
}

std::variant<std::int64_t, std::string> positive_integer(const SpecExpression& e, std::span<const double> values) {
  double v = 0;
  try {
    v = e.expression.evaluate(values);
  } catch (const EvaluationError& error) {
    return describe_failure(e, error.what());
  }
  if (v < 1 || v != std::floor(v) || v > 9.0e15) {
    return describe_failure(e, fmt::format("is {}, not a positive integer", v));
  }
  return static_cast<std::int64_t>(v);
}

std::optional<std::string> restriction_failure(const Spec& spec, std::span<const double> values) {
  for (const SpecExpression& r : spec.restrictions) {
    try {
      if (r.expression.evaluate(values) == 0) return describe_failure(r, "does not hold");
    } catch (const EvaluationError& error) {
      return describe_failure(r, error.what());
    }
  }
  return std::nullopt;
}

std::variant<LaunchPlan, std::string> plan_launch(const Spec& spec, std::span<const double> values,
                                                  const DeviceLimits* limits) {
  LaunchPlan plan;
  if (auto why = plan_dimensions(spec.block, values, kMaxBlock, plan.block)) return *why;
  if (auto why = plan_dimensions(spec.grid, values, kMaxGrid, plan.grid)) return *why;
  if (spec.shared_bytes) {
    double v = 0;
    try {
      v = spec.shared_bytes->expression.evaluate(values);
    } catch (const EvaluationError& error) {
      return describe_failure(*spec.shared_bytes, error.what());
    }
    if (v < 0 || v != std::floor(v) || v > std::numeric_limits<int>::max())
      return describe_failure(*spec.shared_bytes, fmt::format("is {}, not a byte count", v));
    plan.shared_bytes = static_cast<unsigned>(v);
  }
  const std::int64_t threads = std::int64_t{plan.block[0]} * plan.block[1] * plan.block[2];
  const std::int64_t max_threads = limits ? limits->max_threads_per_block : 1024;
  if (threads > max_threads) {
    return fmt::format("{} threads per block, above the device's {}", threads, max_threads);
  }
  if (limits && plan.shared_bytes > static_cast<unsigned>(limits->shared_bytes_per_block_optin)) {
    return fmt::format("{} bytes of dynamic shared memory per block, above the device's {}", plan.shared_bytes,
                       limits->shared_bytes_per_block_optin);
  }
  return plan;
}

std::variant<LaunchPlan, std::string> plan_reference_launch(const Spec& spec, std::span<const double> values) {
  LaunchPlan plan;
  if (auto why = plan_dimensions(spec.check.reference_block, values, kMaxBlock, plan.block)) return *why;
  if (auto why = plan_dimensions(spec.check.reference_grid, values, kMaxGrid, plan.grid)) return *why;
  if (spec.check.reference_shared_bytes) {
    double v = 0;
    try {
      v = spec.check.reference_shared_bytes->expression.evaluate(values);
    } catch (const EvaluationError& error) {
      return describe_failure(*spec.check.reference_shared_bytes, error.what());
    }
    if (v < 0 || v != std::floor(v) || v > std::numeric_limits<int>::max())
      return describe_failure(*spec.check.reference_shared_bytes, fmt::format("is {}, not a byte count", v));
    plan.shared_bytes = static_cast<unsigned>(v);
  }
  if (std::int64_t{plan.block[0]} * plan.block[1] * plan.block[2] > 1024)
    return fmt::format("the reference's block has more than 1024 threads");
  return plan;
}

std::optional<std::string> problem_failure(const Spec& spec, std::span<const std::int64_t> sizes) {
  const std::vector<double> values = scope_values(spec, sizes, nullptr);
  for (const SpecExpression& r : spec.requires_) {
    try {
      if (r.expression.evaluate(values) == 0) return describe_failure(r, "does not hold");
    } catch (const EvaluationError& error) {
      return describe_failure(r, error.what());
    }
  }
  for (const Argument& a : spec.arguments) {
    if (a.buffer()) {
      const auto n = positive_integer(*a.size, values);
      if (const auto* why = std::get_if<std::string>(&n)) return fmt::format("argument {}: {}", a.name, *why);
      continue;
    }
    double v = 0;
    try {
      v = a.value->expression.evaluate(values);
    } catch (const EvaluationError& error) {
      return fmt::format("argument {}: {}", a.name, describe_failure(*a.value, error.what()));
    }
    if (!is_float(a.dtype) && v != std::floor(v))
      return fmt::format("argument {}: {}", a.name, describe_failure(*a.value, fmt::format("is {}, not an integer", v)));
    if (v < dtype_lowest(a.dtype) || v > dtype_highest(a.dtype)) {
      return fmt::format("argument {}: {}", a.name,
                         describe_failure(*a.value, fmt::format("is {}, outside {}", v, dtype_name(a.dtype))));
    }
  }
  for (const auto* metric : {&spec.flops, &spec.bytes}) {
    if (!*metric) continue;
    try {
      (*metric)->expression.evaluate(values);
    } catch (const EvaluationError& error) {
      return describe_failure(**metric, error.what());
    }
  }
  if (!spec.check.reference.empty()) {
    const auto plan = plan_reference_launch(spec, values);
    if (const auto* why = std::get_if<std::string>(&plan)) return *why;
  }
  return std::nullopt;
}

Config middle_config(const Spec& spec) {
  std::vector<std::pair<std::string, int>> entries;
  for (const Tunable& t : spec.tunables) entries.emplace_back(t.name, t.values[(t.values.size() - 1) / 2]);
  return Config(std::move(entries));
}

std::optional<Config> first_config(const Spec& spec, const std::function<bool(const Config&)>& accept,
                                   std::size_t limit) {
  const Config middle = middle_config(spec);
  if (accept(middle)) return middle;
  std::vector<std::size_t> index(spec.tunables.size(), 0);
  for (std::size_t tried = 0; tried < limit; ++tried) {
    std::vector<std::pair<std::string, int>> entries;
    for (std::size_t i = 0; i < index.size(); ++i)
      entries.emplace_back(spec.tunables[i].name, spec.tunables[i].values[index[i]]);
    Config candidate(std::move(entries));
    if (accept(candidate)) return candidate;
    // The next index, the last tunable fastest.
    std::size_t i = index.size();
    while (i > 0) {
      --i;
      if (++index[i] < spec.tunables[i].values.size()) break;
      index[i] = 0;
      if (i == 0) return std::nullopt;
    }
    if (index.empty()) return std::nullopt;
  }
  return std::nullopt;
}

std::int64_t buffer_elements(const Argument& argument, std::span<const double> values) {
  const auto n = positive_integer(*argument.size, values);
  if (const auto* why = std::get_if<std::string>(&n)) throw std::logic_error(*why);
  return std::get<std::int64_t>(n);
}

}  // namespace evotune::user_kernel
