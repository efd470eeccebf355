#include "families/user_kernel/bench.h"

#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>

#include "families/user_kernel/compile.h"
#include "families/user_kernel/rules.h"
#include "core/errors.h"

namespace evotune::user_kernel {
namespace {

namespace fs = std::filesystem;

// Kernels may use 48 KiB of dynamic shared memory without asking; beyond that the function must opt in.
constexpr unsigned kDefaultDynamicSharedLimit = 48 * 1024;

std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// One kernel parameter's bytes, aligned for any scalar type (cuLaunchKernel reads it through a pointer).
union ParameterValue {
  std::uint64_t align;
  unsigned char bytes[8];
};

// A value for a message: NaN without the sign the poison's 0xFF bytes give it.
std::string shown(double v) { return std::isnan(v) ? "NaN" : fmt::format("{}", v); }

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void set_dynamic_shared(const runtime::Kernel& kernel, unsigned bytes) {
  if (bytes > kDefaultDynamicSharedLimit) kernel.set_max_dynamic_shared_bytes(static_cast<int>(bytes));
}

class UserKernelLoaded : public harness::LoadedKernel {
 public:
  UserKernelLoaded(runtime::Module module, const std::string& name, const LaunchPlan& plan,
                   std::vector<ParameterValue> parameters)
      : module_(std::move(module)), kernel_(module_.kernel(name)), parameters_(std::move(parameters)) {
    for (int axis = 0; axis < 3; ++axis) {
      geometry_.grid[axis] = plan.grid[static_cast<std::size_t>(axis)];
      geometry_.block[axis] = plan.block[static_cast<std::size_t>(axis)];
    }
    geometry_.dynamic_shared_bytes = plan.shared_bytes;
    set_dynamic_shared(kernel_, plan.shared_bytes);
    for (ParameterValue& p : parameters_) pointers_.push_back(p.bytes);
  }

  void launch(const runtime::Stream& stream) const override {
    runtime::launch(kernel_, geometry_, stream, const_cast<void**>(pointers_.data()));
  }

  nlohmann::json describe() const override {
    return {{"grid", {geometry_.grid[0], geometry_.grid[1], geometry_.grid[2]}},
            {"block", {geometry_.block[0], geometry_.block[1], geometry_.block[2]}},
            {"shared_bytes", geometry_.dynamic_shared_bytes}};
  }

 private:
  runtime::Module module_;
  runtime::Kernel kernel_;
  runtime::LaunchGeometry geometry_;
  std::vector<ParameterValue> parameters_;
  std::vector<void*> pointers_;
};

class UserKernelBench : public harness::Bench {
 public:
  UserKernelBench(std::shared_ptr<const Spec> spec, std::vector<std::int64_t> sizes, std::string problem_text,
                  const Config& default_config, const harness::BenchContext& context)
      : spec_(std::move(spec)),
        sizes_(std::move(sizes)),
        problem_text_(std::move(problem_text)),
        limits_(context.limits),
        values_(scope_values(*spec_, sizes_, nullptr)) {
    const Spec& s = *spec_;
    buffers_.resize(s.arguments.size());
    for (std::size_t i = 0; i < s.arguments.size(); ++i) {
      const Argument& a = s.arguments[i];
      Buffer& b = buffers_[i];
      if (!a.buffer()) {
        store_element(a.dtype, a.value->expression.evaluate(values_), b.scalar.bytes);
        continue;
      }
      b.elements = buffer_elements(a, values_);
      b.bytes = static_cast<std::size_t>(b.elements) * dtype_bytes(a.dtype);
      b.device = runtime::DeviceBuffer(b.bytes, fmt::format("{} argument {}", s.name, a.name));
      if (a.output) continue;
      switch (a.fill) {
        case Argument::Fill::random: {
          const std::vector<unsigned char> host = random_elements(a.dtype, b.elements, context.seed, i + 1);
          b.device.upload(host.data(), host.size());
          break;
        }
        case Argument::Fill::zero:
          b.device.fill_bytes(0, context.stream);
          context.stream.synchronize();
          break;
        case Argument::Fill::file: {
          const std::string host = data_file(substitute_sizes(a.fill_file, s, sizes_), a, b.bytes, "fill");
          b.device.upload(host.data(), host.size());
          break;
        }
      }
    }
    if (s.check.reference.empty()) {
      load_expected_files();
    } else {
      run_reference(default_config, context);
    }
  }

  void poison_outputs(const runtime::Stream& stream) override {
    for (std::size_t i = 0; i < buffers_.size(); ++i) {
      if (spec_->arguments[i].output) buffers_[i].device.fill_bytes(0xFF, stream);
    }
  }

  harness::CheckResult check(const runtime::Stream& stream) override {
    stream.synchronize();
    harness::CheckResult result;
    result.tolerance = spec_->check.atol;  // atol + rtol x |reference| at the element with the largest error
    double squared_error = 0, squared_reference = 0;
    std::int64_t failed = 0, checked = 0;
    std::string first_failure;
    for (std::size_t i = 0; i < buffers_.size(); ++i) {
      const Argument& a = spec_->arguments[i];
      if (!a.output) continue;
      const Buffer& b = buffers_[i];
      std::vector<unsigned char> host(b.bytes);
      b.device.download(host.data(), host.size());
      const std::size_t width = dtype_bytes(a.dtype);
      std::int64_t failed_here = 0;
      for (std::int64_t e = 0; e < b.elements; ++e) {
        const double out = load_element(a.dtype, host.data() + static_cast<std::size_t>(e) * width);
        const double ref = b.expected[static_cast<std::size_t>(e)];
        const double error = std::fabs(out - ref);
        if (std::isfinite(error)) {
          if (error >= result.max_abs_error) {
            // The bound at the worst element, so that "max abs error <= tolerance" reads true for a pass.
            result.tolerance = spec_->check.atol + spec_->check.rtol * std::fabs(ref);
          }
          result.max_abs_error = std::max(result.max_abs_error, error);
          squared_error += error * error;
        } else {
          result.max_abs_error = INFINITY;
          squared_error = INFINITY;
        }
        squared_reference += ref * ref;
        if (within_tolerance(out, ref, spec_->check.atol, spec_->check.rtol)) continue;
        ++failed_here;
        if (first_failure.empty()) {
          first_failure = std::isfinite(out)
                              ? fmt::format("{}[{}] = {} where the reference has {} (|difference| {:.3g} > atol {} + "
                                            "rtol {} x |reference|)",
                                            a.name, e, out, ref, error, spec_->check.atol, spec_->check.rtol)
                              : fmt::format("{}[{}] = {} where the reference has {} (not written, or not finite)",
                                            a.name, e, shown(out), ref);
        }
      }
      if (failed_here > 0 && failed == 0)
        first_failure += fmt::format("; {} of {} elements of {} are outside the tolerance", failed_here, b.elements, a.name);
      failed += failed_here;
      checked += b.elements;
    }
    result.rel_l2_error = squared_reference > 0 ? std::sqrt(squared_error / squared_reference)
                                                : (squared_error > 0 ? INFINITY : 0.0);
    result.passed = failed == 0;
    if (!result.passed) result.reason = first_failure;
    result.detail = {{"checked_elements", checked}, {"failed_elements", failed}};
    return result;
  }

  std::unique_ptr<harness::LoadedKernel> load(const std::vector<char>& cubin, const std::string& kernel_name,
                                              const Config& config) override {
    const std::vector<double> values = scope_values(*spec_, sizes_, &config);
    const auto plan = plan_launch(*spec_, values, &limits_);
    if (const auto* why = std::get_if<std::string>(&plan))
      throw UsageError(fmt::format("config {} cannot run {}: {}", config.key(), problem_text_, *why));
    return std::make_unique<UserKernelLoaded>(runtime::Module(cubin, fmt::format("{} {}", spec_->name, config.key())),
                                              kernel_name, std::get<LaunchPlan>(plan), parameters(false));
  }

 private:
  struct Buffer {
    std::int64_t elements = 0;
    std::size_t bytes = 0;
    runtime::DeviceBuffer device;
    std::vector<double> expected;  // outputs: the reference's values
    ParameterValue scalar{};       // scalars: the value in the argument's dtype
  };

  // The kernel's parameters in order; `reference`: outputs point at the given reference buffers.
  std::vector<ParameterValue> parameters(bool reference,
                                         const std::vector<runtime::DeviceBuffer>* reference_outputs = nullptr) const {
    std::vector<ParameterValue> out(buffers_.size());
    for (std::size_t i = 0; i < buffers_.size(); ++i) {
      const Argument& a = spec_->arguments[i];
      if (!a.buffer()) {
        out[i] = buffers_[i].scalar;
        continue;
      }
      CUdeviceptr pointer = buffers_[i].device.get();
      if (reference && a.output) pointer = (*reference_outputs)[i].get();
      std::memcpy(out[i].bytes, &pointer, sizeof pointer);
    }
    return out;
  }

  // A raw file of values for argument `a`: it must hold exactly `bytes` bytes.
  std::string data_file(const std::string& relative, const Argument& a, std::size_t bytes, const char* what) const {
    const fs::path path = spec_->directory / relative;
    std::error_code ec;
    if (!fs::is_regular_file(path, ec))
      throw UsageError(fmt::format("{}: {} file '{}' for {} does not exist", spec_->path, what, relative, a.name));
    std::string data = read_file(path);
    if (data.size() != bytes) {
      throw UsageError(fmt::format("{}: {} file '{}' holds {} bytes; {} needs {} ({} elements of {}) for {}", spec_->path,
                                   what, relative, data.size(), a.name, bytes, bytes / dtype_bytes(a.dtype),
                                   dtype_name(a.dtype), problem_text_));
    }
    return data;
  }

  void load_expected_files() {
    for (std::size_t i = 0; i < buffers_.size(); ++i) {
      const Argument& a = spec_->arguments[i];
      if (!a.output) continue;
      Buffer& b = buffers_[i];
      const std::string data =
          data_file(substitute_sizes(spec_->check.expected.at(a.name), *spec_, sizes_), a, b.bytes, "expected");
      b.expected.resize(static_cast<std::size_t>(b.elements));
      for (std::size_t e = 0; e < b.expected.size(); ++e)
        b.expected[e] = load_element(a.dtype, data.data() + e * dtype_bytes(a.dtype));
    }
  }

  // Runs the reference kernel once on the inputs, its outputs in buffers of their own (poisoned first, so
  // an element the reference does not write is found here rather than blamed on every config).
  void run_reference(const Config& default_config, const harness::BenchContext& context) {
    const runtime::CompileRequest request = reference_compile_request(*spec_, default_config, context.target);
    const runtime::CompileResult compiled = context.utilities.compile(request);
    runtime::Module module(compiled.cubin, request.label);
    const runtime::Kernel kernel = module.kernel(compiled.lowered(spec_->check.reference));
    const auto plan = plan_reference_launch(*spec_, values_);
    if (const auto* why = std::get_if<std::string>(&plan))
      throw UsageError(fmt::format("{}: the reference cannot run {}: {}", spec_->path, problem_text_, *why));
    const LaunchPlan& p = std::get<LaunchPlan>(plan);
    std::vector<runtime::DeviceBuffer> outputs(buffers_.size());
    for (std::size_t i = 0; i < buffers_.size(); ++i) {
      if (!spec_->arguments[i].output) continue;
      outputs[i] = runtime::DeviceBuffer(buffers_[i].bytes, "reference " + spec_->arguments[i].name);
      outputs[i].fill_bytes(0xFF, context.stream);
    }
    std::vector<ParameterValue> parameters = this->parameters(true, &outputs);
    std::vector<void*> pointers;
    for (ParameterValue& v : parameters) pointers.push_back(v.bytes);
    runtime::LaunchGeometry geometry;
    for (std::size_t axis = 0; axis < 3; ++axis) {
      geometry.grid[axis] = p.grid[axis];
      geometry.block[axis] = p.block[axis];
    }
    geometry.dynamic_shared_bytes = p.shared_bytes;
    set_dynamic_shared(kernel, p.shared_bytes);
    runtime::launch(kernel, geometry, context.stream, pointers.data());
    context.stream.synchronize();
    for (std::size_t i = 0; i < buffers_.size(); ++i) {
      const Argument& a = spec_->arguments[i];
      if (!a.output) continue;
      Buffer& b = buffers_[i];
      std::vector<unsigned char> host(b.bytes);
      outputs[i].download(host.data(), host.size());
      b.expected.resize(static_cast<std::size_t>(b.elements));
      for (std::size_t e = 0; e < b.expected.size(); ++e) {
        b.expected[e] = load_element(a.dtype, host.data() + e * dtype_bytes(a.dtype));
        if (!std::isfinite(b.expected[e])) {
          throw std::runtime_error(fmt::format("{}: the reference kernel {} left {}[{}] = {} for {} (unwritten, or not "
                                               "finite): it cannot judge the kernel",
                                               spec_->path, spec_->check.reference, a.name, e, shown(b.expected[e]),
                                               problem_text_));
        }
      }
    }
  }

  std::shared_ptr<const Spec> spec_;
  std::vector<std::int64_t> sizes_;
  std::string problem_text_;
  DeviceLimits limits_;
  std::vector<double> values_;
  std::vector<Buffer> buffers_;
};

}  // namespace

std::vector<unsigned char> random_elements(DType type, std::int64_t elements, std::uint64_t seed, std::uint64_t stream) {
  const std::size_t width = dtype_bytes(type);
  std::vector<unsigned char> out(static_cast<std::size_t>(elements) * width);
  std::uint64_t state = seed * 0xD1B54A32D192ED03ull + stream * 0x9E3779B97F4A7C15ull;
  const bool floating = is_float(type);
  for (std::size_t e = 0; e < static_cast<std::size_t>(elements); ++e) {
    const std::uint64_t bits = splitmix64(state);
    const double value = floating ? static_cast<double>(bits >> 11) * 0x1.0p-52 - 1.0  // uniform in [-1, 1)
                                  : static_cast<double>(bits % 100);
    store_element(type, value, out.data() + e * width);
  }
  return out;
}

bool within_tolerance(double out, double ref, double atol, double rtol) {
  if (!std::isfinite(out)) return false;
  return std::fabs(out - ref) <= atol + rtol * std::fabs(ref);
}

std::unique_ptr<harness::Bench> make_user_kernel_bench(std::shared_ptr<const Spec> spec,
                                                       std::vector<std::int64_t> sizes, std::string problem_text,
                                                       const Config& default_config,
                                                       const harness::BenchContext& context) {
  return std::make_unique<UserKernelBench>(std::move(spec), std::move(sizes), std::move(problem_text), default_config,
                                           context);
}

}  // namespace evotune::user_kernel
