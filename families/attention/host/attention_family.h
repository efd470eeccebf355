#pragma once
// The attention family on the host: its tunables, validity rules, and how a (config, problem) becomes
// an NVRTC compile request and a launch. Every tunable reaches the kernel as a template argument.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "runtime/cuda_objects.h"
#include "runtime/nvrtc_compiler.h"
#include "runtime/prepare.h"
#include "families/attention/kernels/params.h"
#include "families/attention/host/problem.h"
#include "runtime/device_limits.h"
#include "core/config.h"

namespace evotune::attention {

enum Mma { kScalar = 0, kMmaSync = 1, kWgmma = 2 };
enum Barrier { kFullBarrier = 0, kLightBarrier = 1 };
enum SmemLayout { kPaddedLayout = 0, kSwizzledLayout = 1 };
enum QFragments { kQInSharedMemory = 0, kQInRegisters = 1 };
enum Combine { kCombineKernel = 0, kCombineLastCta = 1 };
enum Scheduler { kGridScheduler = 0, kPersistentScheduler = 1, kDynamicScheduler = 2, kStreamKScheduler = 3 };  // mainloop_wgmma.cuh's
constexpr int kAutoSplits = 0;  // splits=auto: the launch plan picks the count (auto_splits)
// The split workspace a config may ask for (rule); a larger one would be a GPU-memory hazard, not a speedup.
constexpr std::size_t kMaxSplitWorkspaceBytes = std::size_t{1} << 30;

// mma, block_m, block_n, warps, stages, barrier, smem_layout, vec_bytes, q_frags, min_ctas, overlap,
// qk_split, kv_warps, splits, combine, pack_gqa, pingpong, producer_regs (in this order).
const std::vector<Parameter>& parameters();
// The fill for tunables a config text does not name: the hand-picked config for an H100 and b4 hq16
// s4096 d128 (evidence/results/h100/issue3-attention), unsplit and unpacked, so a config text written
// before a tunable existed still names the same kernel.
Config default_config();
// The problem-aware default: what bench (without --config), the launcher's fallback and a search's first
// generation start from. One function, the reasoning beside each rule (attention_family.cpp).
Config heuristic_config(const Problem& problem, const DeviceLimits& limits);
// Configs the same rules give on the other side of a bound that falls on this problem's kind, for a search's
// first generation beside heuristic_config: there the search times both families on the problem itself,
// rather than trusting a bound measured on other shapes. On sm_90 at d=64: the four-CTA short-range config
// where the long-range one is the default, and the other way round. Empty where no bound applies.
std::vector<Config> heuristic_alternatives(const Problem& problem, const DeviceLimits& limits);
// Parses "name=value,..."; tunables not named take the default config's value, or the value the named ones
// fix (conform), so "mma=wgmma,block_m=128" is the 12-warp kernel with the cp.async tunables at rest.
Config parse_config(std::string_view text);
// A config text for one problem on one device: as parse_config, except that "default" (alone or first:
// "default,rescale=every,stages=3") stands for heuristic_config(problem, limits), the tunables named after
// it changed (and what those fix, as parse_config does); "" is the default too.
Config parse_config_for(std::string_view text, const Problem& problem, const DeviceLimits& limits);
// When a config text starts from the problem-aware default ("", "default" or "default,..."), the
// assignments that change it ("" for none); otherwise nullopt.
std::optional<std::string_view> default_changes(std::string_view text);
// A config read back from a database (Config::from_key): a run recorded before a tunable existed ran it at
// its default value (default_config's: unsplit, unpacked, rescale=every), so the missing ones are filled in;
// a config naming a tunable this family does not have is another family's or version's, and is returned
// as read (the rules refuse it).
Config complete_recorded(const Config& recorded);
// The tunables a config's other choices fix, set: for mma=wgmma, warps from block_m (4 per consumer
// warpgroup of 64 rows, plus the producer's 4) and the cp.async mainloops' tunables (barrier, smem_layout,
// vec_bytes, q_frags, min_ctas, qk_split, kv_warps) at their defaults; for the other mainloops, wgmma's
// own (pingpong, producer_regs) off. The rules accept only configs this leaves unchanged, so each kernel
// has one name; a search conforms every config it proposes (search::SearchSpace), so that changing
// block_m or mma under wgmma is one step, not a step into an invalid config.
Config conform(const Config& config);
std::string format(const Config& config);

int threads(const Config& config);
int shared_bytes(const Config& config, const Problem& problem);

// The problem a kernel that must serve every batch, head count and length of one head dim, dtype and
// causality is compiled and checked for: the launcher's JIT compile and `evotune export`'s ahead-of-time
// CUBIN both use it, so the two give the same kernel for a config.
Problem any_shape_problem(int head_dim, bool causal, DType dtype);
// A digest of the attention family's kernel sources (the embedded attention/ headers), 16 hex digits. A CUBIN
// compiled from other sources may expect other kernel arguments or launch geometry than this build plans,
// so an exported kernel records the digest it was compiled from and the launcher runs it only on a match.
const std::string& kernel_sources_digest();

// Why the config cannot run this problem on this device, before compiling; nullopt when it can.
std::optional<std::string> invalid_reason(const Config& config, const Problem& problem, const DeviceLimits& limits);
// What a config needs of a problem beyond the kind an exported header's lookup matches on (head dim, dtype,
// causality, decode or prefill): the rules of invalid_reason that depend on the GQA group, the key length and
// the rows, read off the config as bounds a header can check with no evotune code. For a problem of that
// kind on a device within `limits` (whose sm_count must be at least the device's: stream_k's bound grows
// with it), meets() holds exactly when invalid_reason finds nothing.
struct ProblemRequirements {
  int group_divides = 0;   // the GQA group (hq / hkv) must divide this; 0: any group
  int min_group = 1;       // 2 for packed GQA heads: hq > hkv
  int min_skv = 1;         // a fixed split count leaves no chunk without a key block
  long long max_skv = 0;   // scheduler=stream_k's 32-bit tail arithmetic; 0: no bound
  long long max_rows = 0;  // b * hq * sq, bounded by a fixed split count's workspace; 0: no bound
  bool operator==(const ProblemRequirements&) const = default;
};
ProblemRequirements problem_requirements(const Config& config, int head_dim, const DeviceLimits& limits);
bool meets(const ProblemRequirements& requirements, const Problem& problem);

// Why a search leaves the config out unless asked for the whole space (`search --space all`): configs
// whose cost is known not to pay, and configs certain to spill (they would be compiled only to be
// rejected). nullopt: part of the default space.
std::optional<std::string> excluded_by_default(const Config& config, const Problem& problem, const DeviceLimits& limits);
// mma_sync: 32-bit registers per thread that must be live at once (O accumulators, the scores of one or
// two K/V blocks in qk_split accumulator sets, Q fragments kept in registers), and the registers per thread
// that __launch_bounds__(threads, min_ctas) allows.
int mma_live_registers(const Config& config, const Problem& problem);
// Bytes of the K/V buffers in shared memory, and what the kv_warps merge reuses of them.
int kv_buffer_bytes(const Config& config, const Problem& problem);
int merge_bytes(const Config& config, const Problem& problem);
int register_budget(const Config& config, const DeviceLimits& limits);
// mma=wgmma: registers per consumer thread that must be live at once (O, a block's scores and its 16-bit
// probabilities), and what a consumer thread has (the launch bounds, and the producer_regs reallocation).
int wgmma_live_registers(const Config& config, const Problem& problem);
int wgmma_consumer_registers(const Config& config);
// Why a compiled kernel is rejected (register spills), nullopt when accepted.
std::optional<std::string> rejected_resources(const runtime::ResourceUsage& usage);

// The kernel's one template argument: a struct generated per compile (tunables_struct) with the problem's
// element type T, head dim d and causality, and every tunable as a `static constexpr int` of its name,
// which the kernel's configuration (attention.cuh's KernelConfig, mainloop_wgmma.cuh's WgmmaConfig)
// reads by name.
inline constexpr const char* kTunablesStruct = "AttentionTunables";
std::string tunables_struct(const Config& config, const Problem& problem);
std::string name_expression(const Config& config, const Problem& problem);
// Variants of a config's build beside the kernel itself (each a distinct cache entry).
struct KernelBuild {
  bool cta_clock = false;      // records clock64 cycles per CTA (bench --timer clock64)
  bool bounded_waits = false;  // a barrier wait that nothing completes traps with a message (bench --check)
};
runtime::CompileRequest compile_request(const Config& config, const Problem& problem, const runtime::Target& target,
                                        KernelBuild build = {});

// How one call of a config runs: the attention kernel's grid, and with splits > 1 the combine kernel's and
// the workspace the two share (partial outputs and LSEs). splits=auto is resolved here, per problem and
// device, so a launch must be planned for its own problem.
struct LaunchPlan {
  runtime::LaunchGeometry kernel;
  int splits = 1;
  std::optional<runtime::LaunchGeometry> combine;  // when splits > 1 and combine=kernel
  std::size_t workspace_bytes = 0;  // split partials (or stream_k slots), then counters; zeroed when allocated
  // At the workspace's end: combine=last_cta's per tile, scheduler=dynamic's one, stream_k's per tail tile.
  std::size_t counters = 0;
  std::size_t partial_bytes() const { return workspace_bytes - counters * sizeof(unsigned); }
  // scheduler=stream_k: partial-piece slots (two per CTA) of slot_rows rows each, at the workspace's start.
  std::size_t stream_k_slots = 0;
  int slot_rows = 0;
  // tile_order=sections: the (batch, head) pairs of one L2 section (KV heads when packed); 1 otherwise.
  int section_heads = 1;
};
LaunchPlan launch_plan(const Config& config, const Problem& problem, const DeviceLimits& limits);
// Whether a loaded combine kernel may be launched as a programmatic dependent launch: its code is for sm_90
// or newer, where combine.cuh waits (griddepcontrol.wait) for the attention kernel before reading the
// partials. A combine built for an older target has no wait, and must start after the attention kernel.
bool programmatic_combine(const runtime::Kernel& combine);
// Readies a loaded attention kernel for its launches (the harness's and the launcher library's): its dynamic
// shared memory limit, and with min_ctas > 1 the largest shared-memory carveout, so that the CTAs per SM
// its launch bounds ask for fit beside each other whatever carveout the driver would have picked.
void prepare_kernel(const runtime::Kernel& kernel, const Config& config, int dynamic_shared_bytes);
// The chunk count splits=auto chooses (1: no split).
int auto_splits(const Config& config, const Problem& problem, const DeviceLimits& limits);
// auto_splits' choice among its counts over `slots` CTA slots, the unsplit grid included: the fewest chunks
// within 85% of the best wave efficiency (CTAs / (waves x slots)).
int splits_by_waves(const Config& config, const Problem& problem, long long slots);
// Whether `splits` is one of auto_splits' counts for the problem with chunks of min_chunk_blocks K/V blocks
// at least (a count whose chunks repeat a smaller count's length is not).
bool eligible_split(const Config& config, const Problem& problem, int splits, int min_chunk_blocks);
// The fewest chunks (of auto_splits' counts, each chunk at least min_chunk_blocks K/V blocks) whose grid keeps
// 80% of `slots` busy over its waves (the split rule of sm_90 one-wave grids, heuristic_config); 1 where none.
int fewest_splits_filling_waves(const Config& config, const Problem& problem, long long slots,
                                int min_chunk_blocks);
// The most chunks (of those auto_splits may choose) whose grid stays within `streams`, the K/V streams the
// SMs hold (the split rule of sm_90 decode grids, heuristic_config); 1 where none does.
int splits_within_streams(const Config& config, const Problem& problem, long long streams);
// Bytes of the split workspace for `splits` chunks (0 for one).
std::size_t split_workspace_bytes(const Problem& problem, int splits);
// Points the kernel arguments at a workspace of plan.workspace_bytes (partial outputs and their LSEs when
// split, then the plan's counters: combine=last_cta's per tile, scheduler=dynamic's one) and sets the split
// count; clears what the plan does not use. Rows come from params (b * hq * sq). `counters` (non-zero) puts
// the counters there instead, in a buffer of their own (the launcher's: see attention_launcher.cpp); the
// workspace then needs only plan.partial_bytes().
void bind_workspace(AttentionParams& params, const LaunchPlan& plan, int head_dim, CUdeviceptr workspace,
                    CUdeviceptr counters = 0);
// The strides of a dense BHSD tensor [b, heads, seq, head_dim], in elements.
TensorStrides dense_strides(int heads, int seq, int head_dim);
// Sets Q, K, V and O of `params` dense BHSD (from its sizes): what the harness's own buffers are.
void set_dense_strides(AttentionParams& params, int head_dim);
// Why the kernels cannot take a tensor of `what` ("Q", ...) at `base` laid out at `strides` (a pointer not
// 16-byte aligned, a stride that is not a positive multiple of 8 elements, a position stride of 2^23
// elements or more), or nullopt when they can.
// Strides of extents of 1 are never read: pass any value, or normalise them first (normalised_strides).
std::optional<std::string> layout_problem(const char* what, const void* base, const TensorStrides& strides);
// layout_problem for each of Q, K, V and O of `params`: throws std::invalid_argument with the first reason. The
// launcher checks every launch with it, KernelArguments every TMA encoding.
void check_layouts(const AttentionParams& params);
// `strides` with those of extents of 1 (a single batch, head or position) replaced by the dense ones, which
// the kernels never step by: a view's stride there can be anything, and must not fail the checks above.
TensorStrides normalised_strides(TensorStrides strides, int batch, int heads, int seq, int head_dim);

// Query tiles of one (batch, CTA head): its rows (queries, x the group when packed) over block_m.
long long query_tiles(const Config& config, const Problem& problem);
// CTAs of the grid before splitting: query tiles x heads (KV heads when packed) x batch.
long long unsplit_ctas(const Config& config, const Problem& problem);
// CTAs of the config one SM holds at once, by shared memory and threads (registers are known only after
// compiling).
int resident_ctas(const Config& config, const Problem& problem, const DeviceLimits& limits);

// tile_order=sections' cut of the launch's `pairs` (batch, head) pairs (the KV heads' when packed) into
// sections of `section_heads` (the launch plan's; at least 1, at most all of them), read by the kernels'
// tile order (params.h's section_order_tile). Needs args.x_extent set. One pair a section is heads' order.
void set_sections(TmaAttentionParams& args, int pairs, int section_heads);

// The argument block of one call of a config's attention kernel: AttentionParams, preceded for mma=wgmma by
// the TMA descriptors of Q, K, V (and O for o_store=tma), encoded here (cuTensorMapEncodeTiled, through the run-time driver
// loader) from the pointers and sizes in `params`. The harness (AttentionKernel) and the launcher library
// both launch through it, so they cannot build different arguments. Needs the driver for wgmma, where a
// layout the TMA cannot take (layout_problem) throws std::invalid_argument.
class KernelArguments {
 public:
  KernelArguments(const Config& config, const Problem& problem, const AttentionParams& params);
  KernelArguments(const KernelArguments&) = delete;  // args() points into this object
  KernelArguments& operator=(const KernelArguments&) = delete;
  // The arguments of another call of the same problem: the descriptors are encoded again only when Q, K, V
  // or O moved or changed strides. Throws std::invalid_argument for another problem's sizes.
  void bind(const AttentionParams& params);
  void** args() { return args_; }

 private:
  Config config_;
  Problem problem_;
  TmaAttentionParams block_{};
  bool encoded_ = false;
  void* args_[1];
};

// The one prepare stage of an attention config (runtime/prepare.h): the validity rules against the device
// (or target) limits, the compile through `compiler` (a CachingCompiler: compiled once, failures too), and
// the spill rule. Every path from a config to a launch goes through here.
runtime::Preparation prepare(const Config& config, const Problem& problem, const DeviceLimits& limits,
                             const runtime::Target& target, runtime::Compiler& compiler, KernelBuild build = {});

}  // namespace evotune::attention
