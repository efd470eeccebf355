#pragma once
// evotune's launcher library: runs a tuned attention config in production code, on caller-owned device
// buffers and a caller-owned stream. Two ways to get the kernel:
//   - ahead of time: an entry of a header written by `evotune export` carries its CUBIN for one exact
//     target (sm_90a on an H100); from_tuned() loads it with the driver alone. NVRTC is never loaded.
//   - just in time: from config text (or, for a device the entry was not compiled for, from_tuned with
//     jit_fallback), compiled for the device with NVRTC through the disk cache the search fills. NVRTC
//     is opened at run time by the first compile (runtime/nvrtc_library.h), so only programs that
//     compile need it installed.
//
// Public API: this header needs only <cuda.h> (for CUdeviceptr and CUstream) and the C++ standard
// library; link evotune_launcher. The kernel runs in the device's primary context, the one the CUDA
// runtime uses, so buffers from cudaMalloc and streams from cudaStreamCreate work as they are.
#include <cuda.h>

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

namespace evotune {

// One attention forward call: Q and O are [b, hq, sq, d], K and V are [b, hkv, skv, d] (dense BHSD unless
// launch() is given an AttentionLayout), all fp16 or all bf16. Causal is aligned bottom-right (query i sees
// keys 0 .. i + skv - sq). hq must be a multiple of hkv (GQA/MQA), sq <= skv.
struct AttentionShape {
  int b = 1, hq = 1, hkv = 1, sq = 1, skv = 1, d = 128;
  bool causal = false;
  bool bf16 = false;
};

// Where one tensor's rows are, in elements: row (batch, head, position) starts at batch * this->batch +
// head * this->head + position * seq, and its d elements are contiguous. Every stride a positive multiple
// of 8 elements (16 bytes), the position stride below 2^23, every pointer 16-byte aligned; the stride of an
// extent of 1 is never used. Dense BHSD [b, h, s, d] is {h * s * d, s * d, d}; the BSHD view a model's
// projection gives, transposed to [b, h, s, d], is {s * h * d, d, h * d}.
struct AttentionStrides {
  long long batch = 0, head = 0, seq = 0;
};
// The layouts of one call's Q, K, V and O (O: [b, hq, sq, d], often Q's).
struct AttentionLayout {
  AttentionStrides q, k, v, o;
};

struct AttentionLauncherOptions {
  int device = 0;              // CUDA device ordinal
  std::string cache_dir;       // empty: $EVOTUNE_CACHE_DIR, $XDG_CACHE_HOME/evotune or ~/.cache/evotune
  bool use_cache = true;       // false: compile with NVRTC every time, touch no cache
  float softmax_scale = 0.0f;  // 0: 1/sqrt(d)
  // from_tuned on a device the entry's CUBIN was not compiled for (another architecture), or an entry
  // exported without one: true compiles the entry's config with NVRTC for this device; false (the
  // default) throws, so a program never compiles unless it asked to.
  bool jit_fallback = false;
  // Split-KV with a combine kernel: on sm_90+ it is a programmatic dependent launch (scheduled while the
  // attention kernel runs, waiting for it in the kernel); false launches it after the attention kernel ends,
  // as on older GPUs (`evotune bench --combine-launch plain`; the C ABI: $EVOTUNE_COMBINE_LAUNCH=plain).
  bool programmatic_combine = true;
  // A check build: every barrier wait is bounded (4 s), so a launch whose host and kernel disagree traps with
  // a message (printed by the device) instead of hanging the GPU. Always compiled with NVRTC (an exported
  // CUBIN is the plain build); slower; for debugging (the C ABI: $EVOTUNE_BOUNDED_WAITS=1).
  bool bounded_waits = false;
};

// A kernel compiled ahead of time: what `evotune export` embeds per entry.
struct PrecompiledKernel {
  std::string_view config;       // the config the CUBIN was compiled from, every tunable named
  int head_dim = 128;
  bool causal = false;
  bool bf16 = false;
  std::string_view target;       // the CUBIN's architecture, e.g. "sm_90a"; the device must be exactly it
  std::string_view kernel_name;  // the attention kernel's name in the CUBIN
  std::string_view sources;      // the kernel sources' digest it was compiled from; must be this build's
  const void* cubin = nullptr;
  std::size_t cubin_size = 0;
};

class AttentionLauncher {
 public:
  // Compiles `config` ("mma=mma_sync,block_m=128,..."; tunables not named keep evotune's defaults) for
  // one head dim, element type and causality; any batch, head count and lengths can then be launched.
  // Throws std::runtime_error (or a subclass) when there is no driver or device, the config is
  // malformed or invalid for the device, or the compile fails; the message says which.
  AttentionLauncher(std::string_view config, int head_dim, bool causal, bool bf16,
                    const AttentionLauncherOptions& options = {});

  // The launcher's fallback, for a shape no tuned entry covers: the problem-aware default config
  // (attention::heuristic_config: e.g. for decode, 16-row tiles of packed GQA heads and split-KV sized
  // to fill the SMs) for this shape on options.device. Other shapes of the same head dim, dtype and
  // causality may then be launched too where the config's rules hold for them (launch() checks); the config
  // stays the one chosen for `shape`.
  static AttentionLauncher with_default_config(const AttentionShape& shape,
                                               const AttentionLauncherOptions& options = {});

  // Loads a kernel compiled ahead of time; no NVRTC. Throws std::runtime_error when the device is not of
  // the kernel's target or the kernel was compiled from other kernel sources than this build's (a header
  // exported by another evotune: its kernel arguments may differ), unless options.jit_fallback (then the
  // config is compiled for this device); when the CUBIN does not load or lacks the kernel; or when the
  // config is invalid for the device.
  explicit AttentionLauncher(const PrecompiledKernel& kernel, const AttentionLauncherOptions& options = {});

  // From an entry of an exported header, e.g. `AttentionLauncher::from_tuned(*evotune_tuned::lookup(...).entry)`:
  // its embedded CUBIN (see the PrecompiledKernel constructor).
  template <typename TunedEntry>
  static AttentionLauncher from_tuned(const TunedEntry& entry, const AttentionLauncherOptions& options = {}) {
    PrecompiledKernel kernel;
    kernel.config = entry.config;
    kernel.head_dim = entry.problem.d;
    kernel.causal = entry.problem.causal;
    kernel.bf16 = entry.problem.bf16;
    kernel.target = entry.target;
    kernel.kernel_name = entry.kernel;
    kernel.sources = entry.sources;
    kernel.cubin = entry.cubin;
    kernel.cubin_size = entry.cubin_size;
    return AttentionLauncher(kernel, options);
  }

  ~AttentionLauncher();
  AttentionLauncher(AttentionLauncher&&) noexcept;
  AttentionLauncher& operator=(AttentionLauncher&&) noexcept;

  // Enqueues the call on `stream`; returns at once. `lse` (optional, [b, hq, sq] fp32) receives the
  // natural-log log-sum-exp of the scaled scores. Throws std::invalid_argument for a shape this
  // launcher was not compiled for (head dim, dtype, causal; causality is
  // moot for a single query, sq = 1, which runs either way), that is malformed, or that the config's
  // validity rules refuse (e.g. a GQA group its packed tiles cannot hold), and std::runtime_error when the
  // launch fails.
  //
  // Split-KV (a config with splits > 1, or splits=auto where the shape calls for it) uses a workspace of
  // workspace_bytes(shape): the chunks' partials and, with combine=last_cta (or scheduler=dynamic or
  // stream_k), tile counters, which the launcher keeps in a buffer of their own. It allocates both on the
  // first launch that needs them (cuMemAlloc, which synchronizes the device: do a warm-up launch before
  // timing; the counters are zeroed then, and every launch leaves them at zero), keeps them, and grows them
  // (to powers of two) when a larger shape needs more. Because the workspace is the launcher's, launches
  // of one launcher on streams that may run concurrently race on it: give each concurrent stream its own
  // launcher.
  // CUDA graphs: a launch may be captured once the launcher holds a workspace large enough for its shape
  // (a warm-up launch of that shape, or a larger one); a launch that would allocate during capture throws
  // std::runtime_error instead. A grown workspace keeps the old one alive for the graphs that use it, and
  // replays need nothing else (no memset): eager launches and replays mix.
  // softmax_scale (non-zero) overrides options.softmax_scale for this call. `layout` (null: all four dense
  // BHSD) gives strided tensors, read and written in place; one the kernels cannot take (see
  // AttentionStrides) throws std::invalid_argument. The LSE is always dense [b, hq, sq].
  void launch(const AttentionShape& shape, CUdeviceptr q, CUdeviceptr k, CUdeviceptr v, CUdeviceptr o,
              CUstream stream, CUdeviceptr lse = 0, float softmax_scale = 0.0f,
              const AttentionLayout* layout = nullptr) const;
  // The split workspace a launch of `shape` uses (0: it does not split), and the chunk count.
  std::size_t workspace_bytes(const AttentionShape& shape) const;
  int splits(const AttentionShape& shape) const;

  // The config with every tunable named, the target, and where the kernel came from.
  const std::string& config() const;
  const std::string& target() const;
  bool ahead_of_time() const;      // true: loaded from a PrecompiledKernel's CUBIN, nothing compiled
  bool loaded_from_cache() const;  // true: the disk cache had it; false: NVRTC compiled it now
  // true: split launches start the combine kernel as a programmatic dependent launch (sm_90+, unless
  // AttentionLauncherOptions::programmatic_combine was false); false: after the attention kernel, or none.
  bool programmatic_combine() const;
  double compile_seconds() const;  // NVRTC time (0 when loaded from the cache)
  int registers() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  // The constructors' steps: what both share; the JIT compile; the module's kernels, once loaded.
  void begin(std::string_view config, int head_dim, bool causal, bool bf16, const AttentionLauncherOptions& options);
  void compile_for_device(const AttentionLauncherOptions& options);
  void take_kernels(const std::string& kernel_name);
};

}  // namespace evotune
