#include "tests/families/toy/toy_family.h"

#include <fmt/format.h>

#include <cmath>
#include <random>

#include "core/errors.h"
#include "core/sha256.h"

namespace evotune::toy {
namespace {

constexpr const char* kSource = R"(
template <int BLOCK, int ITEMS>
__global__ void __launch_bounds__(BLOCK) toy_scale(const float* x, float* y, float scale, long long n) {
  const long long first = (static_cast<long long>(blockIdx.x) * BLOCK * ITEMS) + threadIdx.x;
#pragma unroll
  for (int i = 0; i < ITEMS; ++i) {
    const long long at = first + static_cast<long long>(i) * BLOCK;
    if (at < n) y[at] = scale * x[at];
  }
}
)";
constexpr float kScale = 1.5f;

std::int64_t n_of(const harness::FamilyProblem& p) { return p.at("n"); }

struct Launch {
  unsigned grid = 1, block = 1;
};
Launch launch_of(const Config& c, std::int64_t n) {
  const long long per_block = static_cast<long long>(c.at("block")) * c.at("items");
  return {static_cast<unsigned>((n + per_block - 1) / per_block), static_cast<unsigned>(c.at("block"))};
}

class ToyLoaded final : public harness::LoadedKernel {
 public:
  ToyLoaded(const std::vector<char>& cubin, const std::string& name, Launch launch, CUdeviceptr x, CUdeviceptr y,
            std::int64_t n)
      : module_(cubin, "toy"), kernel_(module_.kernel(name)), launch_(launch), x_(x), y_(y), n_(n) {}
  void launch(const runtime::Stream& stream) const override {
    runtime::LaunchGeometry g;
    g.grid[0] = launch_.grid;
    g.block[0] = launch_.block;
    CUdeviceptr x = x_, y = y_;
    float scale = kScale;
    long long n = n_;
    void* args[] = {&x, &y, &scale, &n};
    runtime::launch(kernel_, g, stream, args);
  }

 private:
  runtime::Module module_;
  runtime::Kernel kernel_;
  Launch launch_;
  CUdeviceptr x_, y_;
  std::int64_t n_;
};

class ToyBench final : public harness::Bench {
 public:
  ToyBench(std::int64_t n, std::uint64_t seed)
      : n_(n), x_(static_cast<std::size_t>(n) * 4, "toy x"), y_(static_cast<std::size_t>(n) * 4, "toy y") {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    host_x_.resize(static_cast<std::size_t>(n));
    for (float& v : host_x_) v = uniform(rng);
    x_.upload(host_x_.data(), host_x_.size() * 4);
  }
  void poison_outputs(const runtime::Stream& stream) override { y_.fill_bytes(0xFF, stream); }
  harness::CheckResult check(const runtime::Stream& stream) override {
    stream.synchronize();
    std::vector<float> y(host_x_.size());
    y_.download(y.data(), y.size() * 4);
    harness::CheckResult r;
    r.passed = true;
    for (std::size_t i = 0; i < y.size(); ++i) {
      const float expected = kScale * host_x_[i];  // the kernel's one fp32 multiply, rounded the same way
      const double error = std::abs(double(y[i]) - double(expected));
      if (!(error <= 0)) {  // exact; NaN (a skipped, poisoned element) fails too
        r.passed = false;
        r.reason = fmt::format("y[{}] = {} where {} was expected", i, y[i], expected);
        r.max_abs_error = std::isfinite(error) ? error : INFINITY;
        break;
      }
    }
    return r;
  }
  std::unique_ptr<harness::LoadedKernel> load(const std::vector<char>& cubin, const std::string& kernel_name,
                                              const Config& config) override {
    return std::make_unique<ToyLoaded>(cubin, kernel_name, launch_of(config, n_), x_.get(), y_.get(), n_);
  }

 private:
  std::int64_t n_;
  runtime::DeviceBuffer x_, y_;
  std::vector<float> host_x_;
};

class ToyFamily final : public harness::Family {
 public:
  std::string id() const override { return "toy"; }
  std::string description() const override { return "y = 1.5 x over n floats (a test family)"; }
  std::string problem_help() const override { return "n=<elements>, e.g. n=1048576"; }
  harness::FamilyProblem parse_problem(std::string_view text) const override {
    const auto items = split_assignments(text, "problem");
    if (items.size() != 1 || items[0].first != "n") throw UsageError(fmt::format("toy problem '{}': give n=N", text));
    const long long n = std::stoll(items[0].second);
    if (n < 1) throw UsageError("toy problem: n must be positive");
    return {fmt::format("n={}", n), {{"n", n}}};
  }
  nlohmann::json problem_json(const harness::FamilyProblem& p) const override { return {{"n", n_of(p)}}; }
  double distance(const harness::FamilyProblem& a, const harness::FamilyProblem& b) const override {
    return std::abs(std::log2(double(n_of(a)) / double(n_of(b))));
  }
  double flops(const harness::FamilyProblem& p) const override { return double(n_of(p)); }
  double bytes(const harness::FamilyProblem& p) const override { return 8.0 * double(n_of(p)); }
  const std::vector<Parameter>& parameters() const override {
    static const std::vector<Parameter> parameters = {{"block", {64, 128, 256, 512, 1024}, {}, "threads per block"},
                                                      {"items", {1, 2, 4, 8}, {}, "elements per thread"}};
    return parameters;
  }
  Config default_config(const harness::FamilyProblem&, const DeviceLimits&) const override {
    return Config({{"block", 256}, {"items", 4}});
  }
  std::optional<std::string> invalid_reason(const Config& c, const harness::FamilyProblem&,
                                            const DeviceLimits& limits) const override {
    if (c.at("block") > limits.max_threads_per_block) return "more threads than a block holds";
    return std::nullopt;
  }
  runtime::CompileRequest compile_request(const Config& c, const harness::FamilyProblem&,
                                          const runtime::Target& target) const override {
    runtime::CompileRequest request;
    request.source_name = "toy.cu";
    request.source = kSource;
    request.name_expressions = {fmt::format("toy_scale<{}, {}>", c.at("block"), c.at("items"))};
    request.target = target;
    request.label = format_config(c);
    return request;
  }
  runtime::Preparation prepare(const Config& c, const harness::FamilyProblem& p, const DeviceLimits& limits,
                               const runtime::Target& target, runtime::Compiler& compiler,
                               const harness::BuildFlags&) const override {
    if (auto why = invalid_reason(c, p, limits)) return runtime::Rejection{runtime::Rejection::Kind::rule, *why, 0.0, false, std::nullopt};
    const runtime::CompileRequest request = compile_request(c, p, target);
    return runtime::prepare_kernel(compiler, request, request.name_expressions[0],
                                   [](const runtime::ResourceUsage&) { return std::optional<std::string>(); });
  }
  std::unique_ptr<harness::Bench> make_bench(const harness::FamilyProblem& p,
                                             const harness::BenchContext& context) const override {
    return std::make_unique<ToyBench>(n_of(p), context.seed);
  }
  const std::string& sources_digest() const override {
    static const std::string digest = runtime::sha256_hex(kSource);
    return digest;
  }
  // One line per winner: enough to show export's generic part hands the family what it needs.
  std::string render_header(const harness::ExportInput& input) const override {
    std::string out = "// toy winners: " + input.command + "\n";
    for (const harness::ExportedWinner& w : input.winners) {
      out += fmt::format("// {} {} {} bytes of CUBIN\n", w.problem.text, format_config(w.config), w.cubin.size());
    }
    return out;
  }
};

}  // namespace

std::unique_ptr<harness::Family> make_toy_family() { return std::make_unique<ToyFamily>(); }

}  // namespace evotune::toy
