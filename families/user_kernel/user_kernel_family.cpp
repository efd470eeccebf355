#include "families/user_kernel/user_kernel_family.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <charconv>
#include <cmath>
#include <nlohmann/json.hpp>

#include "families/user_kernel/baseline.h"
#include "families/user_kernel/bench.h"
#include "families/user_kernel/compile.h"
#include "families/user_kernel/header_writer.h"
#include "families/user_kernel/rules.h"
#include "families/user_kernel/spec.h"
#include "core/errors.h"
#include "core/sha256.h"

namespace evotune::user_kernel {
namespace {

class UserKernelFamily : public harness::Family {
 public:
  explicit UserKernelFamily(std::shared_ptr<const Spec> spec) : spec_(std::move(spec)) {
    for (const Tunable& t : spec_->tunables) {
      Parameter p;
      p.name = t.name;
      p.values = t.values;
      p.help = fmt::format("{} ({}:{})", spec_->is_template_argument(t.name) ? "template argument" : "#define",
                           spec_->path, t.line);
      parameters_.push_back(std::move(p));
    }
    runtime::Sha256 digest;
    digest.field(spec_->text).field(spec_->source_text).field(spec_->check.reference_source_text);
    for (const auto& [name, text] : spec_->headers) digest.field(name).field(text);
    sources_digest_ = digest.hex_digest().substr(0, 16);
    for (const std::vector<std::int64_t>& sizes : spec_->listed) listed_.push_back(make_problem(sizes));
  }

  std::string id() const override { return "user_kernel:" + spec_->name; }
  std::string description() const override {
    return spec_->description.empty() ? fmt::format("{} from {}", spec_->kernel, spec_->path) : spec_->description;
  }

  // ---- Problem
  std::string problem_help() const override {
    std::vector<std::string> fields;
    for (const std::string& s : spec_->sizes) fields.push_back(s + "=N");
    return fmt::format("{}: positive integers, e.g. {}", fmt::join(fields, ","), listed_.front().text);
  }

  harness::FamilyProblem parse_problem(std::string_view text) const override {
    std::vector<std::int64_t> sizes(spec_->sizes.size(), 0);
    for (const auto& [name, value] : split_assignments(text, "problem")) {
      const auto it = std::find(spec_->sizes.begin(), spec_->sizes.end(), name);
      if (it == spec_->sizes.end())
        throw UsageError(fmt::format("problem '{}': '{}' is not a size of {} ({})", text, name, spec_->name, problem_help()));
      std::int64_t& slot = sizes[static_cast<std::size_t>(it - spec_->sizes.begin())];
      if (slot != 0) throw UsageError(fmt::format("problem '{}': {} is given twice", text, name));
      const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), slot);
      if (ec != std::errc() || end != value.data() + value.size() || slot < 1)
        throw UsageError(fmt::format("problem '{}': {}={} is not a positive integer", text, name, value));
    }
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      if (sizes[i] == 0) throw UsageError(fmt::format("problem '{}': {} is missing ({})", text, spec_->sizes[i], problem_help()));
    }
    if (auto why = problem_failure(*spec_, sizes)) throw UsageError(fmt::format("problem '{}': {}", text, *why));
    return make_problem(sizes);
  }

  nlohmann::json problem_json(const harness::FamilyProblem& problem) const override {
    nlohmann::json j = nlohmann::json::object();
    for (const auto& [name, value] : problem.sizes) j[name] = value;
    return j;
  }

  std::vector<harness::FamilyProblem> listed_problems() const override { return listed_; }

  double distance(const harness::FamilyProblem& a, const harness::FamilyProblem& b) const override {
    double d = 0;
    for (const std::string& s : spec_->sizes)
      d += std::fabs(std::log2(static_cast<double>(a.at(s)) / static_cast<double>(b.at(s))));
    return d;
  }

  double flops(const harness::FamilyProblem& problem) const override { return metric(spec_->flops, problem); }
  double bytes(const harness::FamilyProblem& problem) const override { return metric(spec_->bytes, problem); }

  // ---- Parameters and rules
  const std::vector<Parameter>& parameters() const override { return parameters_; }

  // The middle of every domain when it is valid, else the first valid config with the domains scanned in
  // the spec's order (rules.h, first_config): deterministic, and independent of any measurement.
  Config default_config(const harness::FamilyProblem& problem, const DeviceLimits& limits) const override {
    const auto found = first_config(*spec_, [&](const Config& c) { return !invalid_reason(c, problem, limits); });
    if (!found) {
      throw UsageError(fmt::format("{}: no config of the tunables' domains is valid for problem {} (first reason: {})",
                                   spec_->path, problem.text, *invalid_reason(middle_config(*spec_), problem, limits)));
    }
    return *found;
  }

  std::optional<std::string> invalid_reason(const Config& config, const harness::FamilyProblem& problem,
                                            const DeviceLimits& limits) const override {
    for (const Tunable& t : spec_->tunables) {
      if (!config.has(t.name)) return fmt::format("no value for tunable {}", t.name);
      if (std::find(t.values.begin(), t.values.end(), config.at(t.name)) == t.values.end())
        return fmt::format("{}={} is outside its domain", t.name, config.at(t.name));
    }
    const std::vector<double> values = scope_values(*spec_, sizes_of(problem), &config);
    if (auto why = restriction_failure(*spec_, values)) return why;
    const auto plan = plan_launch(*spec_, values, &limits);
    if (const auto* why = std::get_if<std::string>(&plan)) return *why;
    return std::nullopt;
  }

  // ---- Prepare and run
  runtime::CompileRequest compile_request(const Config& config, const harness::FamilyProblem&,
                                          const runtime::Target& target) const override {
    return kernel_compile_request(*spec_, config, target);
  }
  runtime::Preparation prepare(const Config& config, const harness::FamilyProblem& problem, const DeviceLimits& limits,
                               const runtime::Target& target, runtime::Compiler& compiler,
                               const harness::BuildFlags& build) const override {
    if (build.cta_clock || build.bounded_waits)
      throw UsageError(fmt::format("{} has no {} build", id(), build.cta_clock ? "clock64 timer" : "bounded-wait check"));
    if (std::optional<std::string> why = invalid_reason(config, problem, limits))
      return runtime::Rejection{runtime::Rejection::Kind::rule, *why, 0.0, false, std::nullopt};
    const runtime::CompileRequest request = kernel_compile_request(*spec_, config, target);
    return runtime::prepare_kernel(compiler, request, request.name_expressions.at(0), rejected_resources);
  }

  std::unique_ptr<harness::Bench> make_bench(const harness::FamilyProblem& problem,
                                             const harness::BenchContext& context) const override {
    return make_user_kernel_bench(spec_, sizes_of(problem), problem.text, default_config(problem, context.limits), context);
  }

  LibraryBaselines library_baselines(const harness::FamilyProblem& problem, int device, int batch) const override {
    return run_baseline(*spec_, sizes_of(problem), device, batch, flops(problem), bytes(problem));
  }
  std::string baselines_description() const override {
    return spec_->baseline ? fmt::format("{} (the spec's baseline command)", spec_->baseline->name)
                           : "no baseline (the spec has no [baseline])";
  }

  // ---- Export
  const std::string& sources_digest() const override { return sources_digest_; }

  std::string render_header(const harness::ExportInput& input) const override {
    return user_kernel::render_header(*spec_, HeaderInput{input.command, sources_digest_, input.winners});
  }
  std::string default_header_name() const override { return "tuned_" + spec_->name + ".h"; }

 private:
  harness::FamilyProblem make_problem(const std::vector<std::int64_t>& sizes) const {
    harness::FamilyProblem p;
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      p.text += fmt::format("{}{}={}", i ? "," : "", spec_->sizes[i], sizes[i]);
      p.sizes.emplace_back(spec_->sizes[i], sizes[i]);
    }
    return p;
  }

  std::vector<std::int64_t> sizes_of(const harness::FamilyProblem& problem) const {
    std::vector<std::int64_t> sizes;
    for (const std::string& s : spec_->sizes) sizes.push_back(problem.at(s));
    return sizes;
  }

  double metric(const std::optional<SpecExpression>& e, const harness::FamilyProblem& problem) const {
    if (!e) return 0;
    try {
      return e->expression.evaluate(scope_values(*spec_, sizes_of(problem), nullptr));
    } catch (const EvaluationError&) {
      return 0;  // parse_problem refuses such a problem; a recorded one without it counts nothing
    }
  }

  std::shared_ptr<const Spec> spec_;
  std::vector<Parameter> parameters_;
  std::vector<harness::FamilyProblem> listed_;
  std::string sources_digest_;
};

}  // namespace

std::unique_ptr<harness::Family> open_spec(const std::string& spec_path) {
  return std::make_unique<UserKernelFamily>(std::make_shared<const Spec>(read_spec(spec_path)));
}

}  // namespace evotune::user_kernel
