#include "deploy/attention_launcher.h"

#include <fmt/format.h>

#include <bit>
#include <chrono>
#include <optional>
#include <span>
#include <stdexcept>
#include <utility>
#include <vector>

#include "runtime/cubin_cache.h"
#include "runtime/cuda_objects.h"
#include "runtime/device_properties.h"
#include "core/errors.h"
#include "families/attention/host/attention_family.h"
#include "families/attention/kernels/params.h"

namespace evotune {

struct AttentionLauncher::Impl {
  // Everything the kernel was compiled for; launches must match it.
  attention::Problem compiled_for;
  Config config;
  std::string config_text, target;
  runtime::DeviceProperties props;
  std::optional<runtime::DeviceContext> context;
  std::optional<runtime::Module> module;
  std::optional<runtime::Kernel> kernel;
  std::optional<runtime::Kernel> combine;  // split-KV configs
  bool allow_programmatic_combine = true;   // AttentionLauncherOptions::programmatic_combine
  bool programmatic_combine = false;        // that, and attention::programmatic_combine
  bool from_cache = false;
  bool ahead_of_time = false;
  double compile_seconds = 0;
  int registers = 0;
  float softmax_scale = 0;
  // The last shape that passed validation, and its launch plan: launching the same shape again skips
  // the checks and the planning.
  mutable std::optional<AttentionShape> validated;
  mutable attention::LaunchPlan plan;
  // The split partials and the tile counters, each in a buffer of its own, grown on demand (see launch()).
  mutable std::optional<runtime::DeviceBuffer> workspace, counters;
  // Buffers a larger shape replaced: kept, because a CUDA graph captured earlier may still use them (the
  // launcher does not ask the driver on every launch whether it is being captured). Sizes round up to powers
  // of two, so together they hold less than the buffers in use.
  mutable std::vector<runtime::DeviceBuffer> retired;
  void grow_buffers(std::size_t partial_bytes, std::size_t counter_bytes, CUstream stream) const;
  // The last launch's arguments: a launch of the same shape on the same Q, K and V reuses its TMA
  // descriptors (attention::KernelArguments::bind) instead of encoding three again on the host.
  mutable std::optional<attention::KernelArguments> arguments;
  mutable std::optional<AttentionShape> validated_arguments;  // the shape `arguments` was built for
};

namespace {

// Whether `buffer` holds `bytes` (none are needed, or it is that large).
bool holds(const std::optional<runtime::DeviceBuffer>& buffer, std::size_t bytes) {
  return bytes == 0 || (buffer && buffer->bytes() >= bytes);
}

}  // namespace

// Grows the launcher's partials and counters buffers to at least these sizes (a new shape needs more).
// Allocation is refused while `stream` is being captured into a CUDA graph (cuMemAlloc may not run then);
// the replaced buffers are retired, not freed. New counters are zeroed in `stream`'s order.
void AttentionLauncher::Impl::grow_buffers(std::size_t partial_bytes, std::size_t counter_bytes,
                                           CUstream stream) const {
  CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
  EVOTUNE_CU(cuStreamIsCapturing(stream, &status), "asking whether the attention stream is being captured");
  if (status != CU_STREAM_CAPTURE_STATUS_NONE) {
    throw std::runtime_error(fmt::format(
        "tuned attention ({}): this shape needs a {}-byte workspace the launcher has not allocated, and its "
        "stream is being captured into a CUDA graph, where allocating is not allowed: run the shape once on "
        "this stream before capturing",
        config_text, partial_bytes + counter_bytes));
  }
  auto grow = [&](std::optional<runtime::DeviceBuffer>& buffer, std::size_t bytes, const char* label) {
    if (holds(buffer, bytes)) return false;
    if (buffer) retired.push_back(std::move(*buffer));
    buffer.emplace(std::bit_ceil(bytes), label);
    return true;
  };
  grow(workspace, partial_bytes, "split partials of the attention launcher");
  if (grow(counters, counter_bytes, "tile counters of the attention launcher")) {
    EVOTUNE_CU(cuMemsetD8Async(counters->get(), 0, counters->bytes(), stream),
               "zeroing the attention counters");
  }
}

namespace {

attention::Problem problem_of(const AttentionShape& s) {
  attention::Problem p;
  p.b = s.b;
  p.hq = s.hq;
  p.hkv = s.hkv;
  p.sq = s.sq;
  p.skv = s.skv;
  p.d = s.d;
  p.causal = s.causal;
  p.dtype = s.bf16 ? attention::DType::bf16 : attention::DType::fp16;
  return p;
}

bool same_shape(const AttentionShape& a, const AttentionShape& b) {
  return a.b == b.b && a.hq == b.hq && a.hkv == b.hkv && a.sq == b.sq && a.skv == b.skv && a.d == b.d &&
         a.causal == b.causal && a.bf16 == b.bf16;
}

}  // namespace

void AttentionLauncher::begin(std::string_view config, int head_dim, bool causal, bool bf16,
                              const AttentionLauncherOptions& options) {
  Impl& m = *impl_;
  m.config = attention::parse_config(config);
  m.config_text = attention::format(m.config);
  m.props = runtime::query_device(options.device);
  m.compiled_for = attention::any_shape_problem(head_dim, causal, bf16 ? attention::DType::bf16 : attention::DType::fp16);
  m.compiled_for.validate();  // a head dim the family has no kernel for: UsageError
  m.target = m.props.native_target();
  m.context.emplace(options.device);
  m.softmax_scale = options.softmax_scale;
  m.allow_programmatic_combine = options.programmatic_combine;
}

void AttentionLauncher::compile_for_device(const AttentionLauncherOptions& options) {
  Impl& m = *impl_;
  // The search's own prepare stage: the same rules, compile and spill verdict, so a launcher never runs a
  // kernel the search would not have.
  runtime::NvrtcCompiler nvrtc;
  std::optional<runtime::CubinCache> cache;
  std::optional<runtime::CachingCompiler> caching;
  if (options.use_cache) {
    cache.emplace(options.cache_dir.empty() ? runtime::default_cache_dir() : std::filesystem::path(options.cache_dir));
    caching.emplace(nvrtc, *cache);
  }
  runtime::Compiler& compiler = caching ? static_cast<runtime::Compiler&>(*caching) : nvrtc;
  const runtime::Preparation preparation =
      attention::prepare(m.config, m.compiled_for, DeviceLimits::from(m.props), runtime::Target::parse(m.target),
                         compiler, {.cta_clock = false, .bounded_waits = options.bounded_waits});
  if (const runtime::Rejection* r = runtime::rejected(preparation)) {
    const std::string what = fmt::format("config {} on {}: {}", m.config_text, m.props.name, r->reason);
    if (r->kind == runtime::Rejection::Kind::compile_error) throw std::runtime_error("cannot compile " + what);
    throw UsageError(fmt::format("{} {}", r->kind == runtime::Rejection::Kind::rule ? "cannot run" : "rejected", what));
  }
  const runtime::PreparedKernel& prepared = std::get<runtime::PreparedKernel>(preparation);
  m.from_cache = !prepared.compiled_now;
  m.compile_seconds = m.from_cache ? 0.0 : prepared.compile_seconds;
  m.module.emplace(*prepared.cubin, m.config_text);
  take_kernels(prepared.kernel_name);
}

void AttentionLauncher::take_kernels(const std::string& kernel_name) {
  Impl& m = *impl_;
  m.kernel.emplace(m.module->kernel(kernel_name));
  m.registers = m.kernel->attributes().registers_per_thread;
  if (m.config.at("splits") != 1 && m.config.at("combine") == attention::kCombineKernel) {
    m.combine.emplace(m.module->kernel("attention_combine"));
    m.programmatic_combine = m.allow_programmatic_combine && attention::programmatic_combine(*m.combine);
  }
  attention::prepare_kernel(*m.kernel, m.config, attention::shared_bytes(m.config, m.compiled_for));
}

AttentionLauncher::AttentionLauncher(std::string_view config, int head_dim, bool causal, bool bf16,
                                     const AttentionLauncherOptions& options)
    : impl_(std::make_unique<Impl>()) {
  begin(config, head_dim, causal, bf16, options);
  compile_for_device(options);
}

AttentionLauncher::AttentionLauncher(const PrecompiledKernel& kernel, const AttentionLauncherOptions& options)
    : impl_(std::make_unique<Impl>()) {
  begin(kernel.config, kernel.head_dim, kernel.causal, kernel.bf16, options);
  Impl& m = *impl_;
  if (options.bounded_waits) {  // the check build exists only compiled now
    compile_for_device(options);
    return;
  }
  const bool has_cubin = kernel.cubin != nullptr && kernel.cubin_size > 0 && !kernel.kernel_name.empty();
  const std::string& sources = attention::kernel_sources_digest();
  if (!has_cubin || kernel.target != m.target || kernel.sources != sources) {
    const std::string why =
        !has_cubin ? std::string("it was exported without a CUBIN")
        : kernel.target != m.target
            ? fmt::format("its CUBIN is for {}, and device {} ({}) is {}", kernel.target, m.props.ordinal,
                          m.props.name, m.target)
            : fmt::format("it was compiled from other kernel sources ({}) than this launcher's ({}): export it "
                          "again with this evotune",
                          kernel.sources.empty() ? std::string("unrecorded") : std::string(kernel.sources), sources);
    if (!options.jit_fallback) {
      throw std::runtime_error(fmt::format("cannot run the tuned kernel {} ahead of time: {}; export it on or for "
                                           "this GPU, or set jit_fallback to compile it with NVRTC",
                                           m.config_text, why));
    }
    compile_for_device(options);
    return;
  }
  // The rules a compile would have checked (shared memory, registers per SM, the config's own consistency):
  // an entry exported for this target passed them there, but a sibling GPU of the family may have less.
  if (std::optional<std::string> why = attention::invalid_reason(m.config, m.compiled_for, DeviceLimits::from(m.props))) {
    throw UsageError(fmt::format("cannot run config {} on {}: {}", m.config_text, m.props.name, *why));
  }
  m.ahead_of_time = true;
  m.module.emplace(std::span<const char>(static_cast<const char*>(kernel.cubin), kernel.cubin_size), m.config_text);
  take_kernels(std::string(kernel.kernel_name));
}

AttentionLauncher AttentionLauncher::with_default_config(const AttentionShape& shape,
                                                         const AttentionLauncherOptions& options) {
  const attention::Problem problem = problem_of(shape);
  try {
    problem.validate();
  } catch (const UsageError& e) {
    throw std::invalid_argument(std::string("attention shape: ") + e.what());
  }
  const runtime::DeviceProperties props = runtime::query_device(options.device);
  const Config config = attention::heuristic_config(problem, DeviceLimits::from(props));
  return AttentionLauncher(attention::format(config), shape.d, shape.causal, shape.bf16, options);
}

AttentionLauncher::~AttentionLauncher() = default;
AttentionLauncher::AttentionLauncher(AttentionLauncher&&) noexcept = default;
AttentionLauncher& AttentionLauncher::operator=(AttentionLauncher&&) noexcept = default;

void AttentionLauncher::launch(const AttentionShape& call_shape, CUdeviceptr q, CUdeviceptr k, CUdeviceptr v,
                               CUdeviceptr o, CUstream stream, CUdeviceptr lse, float softmax_scale,
                               const AttentionLayout* layout) const {
  const Impl& m = *impl_;
  // Causal masking is aligned bottom-right, so a single query sees every key with or without it: such a
  // shape runs on a kernel compiled either way (a decode entry of the other causality, found by lookup).
  const AttentionShape shape =
      call_shape.sq == 1 ? AttentionShape{call_shape.b, call_shape.hq, call_shape.hkv, 1, call_shape.skv,
                                          call_shape.d, m.compiled_for.causal, call_shape.bf16}
                         : call_shape;
  const attention::Problem problem = problem_of(shape);
  if (!m.validated || !same_shape(*m.validated, shape)) {
    if (shape.d != m.compiled_for.d || shape.causal != m.compiled_for.causal ||
        problem.dtype != m.compiled_for.dtype) {
      throw std::invalid_argument(fmt::format(
          "this launcher was compiled for d={} causal={} {}, not d={} causal={} {}", m.compiled_for.d,
          m.compiled_for.causal ? 1 : 0, m.compiled_for.dtype_name(), shape.d, shape.causal ? 1 : 0,
          problem.dtype_name()));
    }
    try {
      problem.validate();  // positive sizes, GQA divisibility, sq <= skv, grid limits
    } catch (const UsageError& e) {
      throw std::invalid_argument(std::string("attention shape: ") + e.what());
    }
    // The family's rules for this problem, as before every launch on every path: a config proven on one
    // problem may not hold for another (a packed tile that cannot hold whole groups of query heads would
    // wait forever for TMA bytes that never come).
    const DeviceLimits limits = DeviceLimits::from(m.props);
    if (std::optional<std::string> why = attention::invalid_reason(m.config, problem, limits)) {
      throw std::invalid_argument(
          fmt::format("tuned attention {} cannot run {}: {}", m.config_text, problem.to_string(), *why));
    }
    m.plan = attention::launch_plan(m.config, problem, limits);
    if (m.plan.combine) m.plan.combine->programmatic_dependency = m.programmatic_combine;
    m.validated = shape;
  }
  if (q == 0 || k == 0 || v == 0 || o == 0)
    throw std::invalid_argument("attention: null Q, K, V or O pointer");
  AttentionParams params{};
  params.q = reinterpret_cast<const void*>(q);
  params.k = reinterpret_cast<const void*>(k);
  params.v = reinterpret_cast<const void*>(v);
  params.o = reinterpret_cast<void*>(o);
  params.lse = reinterpret_cast<float*>(lse);
  params.cta_cycles = nullptr;
  params.b = shape.b;
  params.hq = shape.hq;
  params.hkv = shape.hkv;
  params.sq = shape.sq;
  params.skv = shape.skv;
  if (layout == nullptr) {
    attention::set_dense_strides(params, shape.d);
  } else {
    auto strides = [&](const AttentionStrides& s, int heads, int seq) {
      return attention::normalised_strides(TensorStrides{s.batch, s.head, s.seq}, shape.b, heads, seq, shape.d);
    };
    params.q_strides = strides(layout->q, shape.hq, shape.sq);
    params.k_strides = strides(layout->k, shape.hkv, shape.skv);
    params.v_strides = strides(layout->v, shape.hkv, shape.skv);
    params.o_strides = strides(layout->o, shape.hq, shape.sq);
  }
  // Every kernel reads rows with 16-byte copies where it can (cp.async, TMA): the same rule for all.
  attention::check_layouts(params);
  params.softmax_scale = softmax_scale != 0.0f   ? softmax_scale
                         : m.softmax_scale != 0.0f ? m.softmax_scale
                                                   : problem.softmax_scale();
  // The caller's thread may have another context current (or none); the module lives in the primary one.
  m.context->make_current();
  const attention::LaunchPlan& plan = m.plan;
  const std::size_t partial_bytes = plan.partial_bytes(), counter_bytes = plan.counters * sizeof(unsigned);
  if (!holds(m.workspace, partial_bytes) || !holds(m.counters, counter_bytes)) {
    m.grow_buffers(partial_bytes, counter_bytes, stream);
  }
  // The counters (combine=last_cta, scheduler=dynamic, stream_k) read zero when a kernel starts: zeroed when
  // allocated, and every launch leaves them at zero. No partials are ever written over them, whatever the
  // shape, so neither a shape change nor a graph's replay needs a memset.
  attention::bind_workspace(params, plan, shape.d, m.workspace ? m.workspace->get() : 0,
                            m.counters ? m.counters->get() : 0);
  if (m.arguments && m.validated_arguments && same_shape(*m.validated_arguments, shape)) {
    m.arguments->bind(params);
  } else {
    m.arguments.emplace(m.config, problem, params);
    m.validated_arguments = shape;
  }
  attention::KernelArguments& arguments = *m.arguments;
  void* combine_args[] = {&params};  // the combine kernel takes the plain AttentionParams
  auto launch_one = [&](const runtime::Kernel& kernel, const runtime::LaunchGeometry& g, void** args,
                        const char* what) {
    const CUresult result = runtime::try_launch(kernel, g, stream, args);
    if (result != CUDA_SUCCESS) {  // the message is built only on failure: launches are on the hot path
      runtime::check(result, g.programmatic_dependency ? "cuLaunchKernelEx" : "cuLaunchKernel",
                     fmt::format("launching tuned attention {} ({}) grid ({}, {}, {})", m.config_text, what,
                                 g.grid[0], g.grid[1], g.grid[2]));
    }
  };
  launch_one(*m.kernel, plan.kernel, arguments.args(), "attention");
  if (plan.combine) launch_one(*m.combine, *plan.combine, combine_args, "split-KV combine");
}

std::size_t AttentionLauncher::workspace_bytes(const AttentionShape& shape) const {
  return attention::launch_plan(impl_->config, problem_of(shape), DeviceLimits::from(impl_->props))
      .workspace_bytes;
}

int AttentionLauncher::splits(const AttentionShape& shape) const {
  return attention::launch_plan(impl_->config, problem_of(shape), DeviceLimits::from(impl_->props)).splits;
}

const std::string& AttentionLauncher::config() const { return impl_->config_text; }
bool AttentionLauncher::programmatic_combine() const { return impl_->programmatic_combine; }
const std::string& AttentionLauncher::target() const { return impl_->target; }
bool AttentionLauncher::ahead_of_time() const { return impl_->ahead_of_time; }
bool AttentionLauncher::loaded_from_cache() const { return impl_->from_cache; }
double AttentionLauncher::compile_seconds() const { return impl_->compile_seconds; }
int AttentionLauncher::registers() const { return impl_->registers; }

}  // namespace evotune
