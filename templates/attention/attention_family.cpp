#include "templates/attention/attention_family.h"

#include <fmt/format.h>

#include <algorithm>

#include "templates/embedded_sources.h"

namespace evotune::attention {

const std::vector<Parameter>& parameters() {
  static const std::vector<Parameter> params = {
      {"mma", {kScalar, kMmaSync}, {"scalar", "mma_sync"}, "arithmetic: fp32 FMA, or mma.sync m16n8k16 tensor cores"},
      {"block_m", {16, 32, 64, 128, 256}, {}, "query rows per CTA"},
      {"block_n", {16, 32, 64, 128}, {}, "keys per K/V block"},
      {"warps", {1, 2, 4, 8}, {}, "warps per CTA"},
      {"stages", {1, 2, 3}, {}, "K/V blocks in flight through the cp.async ring"},
      {"barrier", {kFullBarrier, kLightBarrier}, {"full", "light"},
       "full: a CTA barrier around every shared-memory phase; light: only the ones the algorithm needs"},
      {"smem_layout", {kPaddedLayout, kSwizzledLayout}, {"padded", "swizzled"},
       "bank-conflict avoidance for shared tiles: 16-byte row padding, or xor swizzle of 16-byte chunks"},
      {"vec_bytes", {4, 8, 16}, {}, "bytes per cp.async global->shared copy"},
      {"q_frags", {kQInSharedMemory, kQInRegisters}, {"smem", "regs"},
       "mma_sync: keep Q's MMA fragments in registers, or re-read them from shared memory every K/V block"},
      {"min_ctas", {1, 2, 3, 4}, {}, "CTAs per SM the register allocation must allow (__launch_bounds__)"},
      {"overlap", {0, 1}, {"off", "on"},
       "mma_sync, stages >= 3: issue the next block's Q.K^T before this block's softmax (software pipelining)"},
      {"qk_split", {1, 2}, {}, "mma_sync: independent accumulator sets in Q.K^T (more HMMA chains in flight)"},
  };
  return params;
}

Config default_config() {
  // Hand-picked on the H100 for b4 hq16 s4096 d128 fp16 (evidence/results/h100/issue3-attention): the
  // fastest of the configs measured there, 279 TFLOP/s. 8 warps of 16 rows, 128-key blocks
  // double-buffered: (128 + 2*2*128) rows * 256 B = 160 KiB of shared memory, 246 registers.
  return Config({{"mma", kMmaSync},
                 {"block_m", 128},
                 {"block_n", 128},
                 {"warps", 8},
                 {"stages", 2},
                 {"barrier", kLightBarrier},
                 {"smem_layout", kSwizzledLayout},
                 {"vec_bytes", 16},
                 {"q_frags", kQInSharedMemory},
                 {"min_ctas", 1},
                 {"overlap", 0},
                 {"qk_split", 1}});
}

Config parse_config(std::string_view text) { return evotune::parse_config(text, parameters(), default_config()); }

std::string format(const Config& config) { return format_config(config, parameters()); }

int threads(const Config& c) { return c.at("warps") * 32; }

int shared_bytes(const Config& c, const Problem& p) {
  // Must match attention.cuh: Q tile + stages x (K tile + V tile), rows of d (+8 when padded) 2-byte
  // elements, plus the scalar mainloop's fp32 probability rows.
  int row_stride = p.d + (c.at("smem_layout") == kPaddedLayout ? 8 : 0);
  int rows = c.at("block_m") + 2 * c.at("stages") * c.at("block_n");
  int scratch = c.at("mma") == kScalar ? c.at("block_m") * c.at("block_n") * 4 : 0;
  return rows * row_stride * 2 + scratch;
}

std::optional<std::string> invalid_reason(const Config& c, const Problem& p, const DeviceLimits& limits) {
  for (const Parameter& param : parameters()) {
    if (!c.has(param.name)) return fmt::format("missing parameter {}", param.name);
    if (!param.contains(c.at(param.name))) return fmt::format("{}={} outside its domain", param.name, c.at(param.name));
  }
  const int block_m = c.at("block_m"), block_n = c.at("block_n"), warps = c.at("warps");
  const int n_threads = threads(c);
  if (n_threads > limits.max_threads_per_block) {
    return fmt::format("{} threads exceed the device's {} per block", n_threads, limits.max_threads_per_block);
  }
  if (c.at("mma") == kMmaSync) {
    // Each warp owns one or two 16-row MMA tiles.
    if (block_m % (16 * warps) != 0 || block_m / (16 * warps) > 2) {
      return fmt::format("mma_sync needs block_m = 16 or 32 rows per warp (block_m={}, warps={})", block_m, warps);
    }
    if (limits.compute_capability < 80) return "mma_sync m16n8k16 with bf16 and cp.async need sm_80 or newer";
    if (c.at("q_frags") == kQInRegisters && block_m / (16 * warps) != 1) {
      return "q_frags=regs needs one 16-row tile per warp (block_m = 16 x warps)";
    }
    if (c.at("overlap") == 1 && c.at("stages") < 3) return "overlap=on keeps three K/V blocks in flight: stages >= 3";
  } else {
    // The scalar mainloop reads Q from shared memory; a register copy of whole Q rows does not fit.
    if (c.at("q_frags") == kQInRegisters) return "q_frags=regs is for mma_sync; scalar reads Q from shared memory";
    if (c.at("overlap") == 1) return "overlap=on is a tensor-core schedule (mma_sync)";
    if (c.at("qk_split") != 1) return "qk_split applies to the mma_sync mainloop";
    // Scalar: a power-of-two group of threads, within one warp, per row.
    if (n_threads % block_m != 0 || n_threads / block_m > 32) {
      return fmt::format("scalar needs 1 to 32 threads per row (block_m={}, threads={})", block_m, n_threads);
    }
    const int per_row = n_threads / block_m;
    if (block_n % per_row != 0 || p.d % per_row != 0) {
      return fmt::format("scalar: {} threads per row do not split block_n={} and d={}", per_row, block_n, p.d);
    }
  }
  const int smem = shared_bytes(c, p);
  if (smem > limits.shared_bytes_per_block_optin) {
    return fmt::format("{} bytes of shared memory exceed the device's {} per block", smem,
                       limits.shared_bytes_per_block_optin);
  }
  return std::nullopt;
}

int mma_live_registers(const Config& c, const Problem& p) {
  const int m_tiles = c.at("block_m") / (16 * c.at("warps"));  // 16-row MMA tiles per warp
  const int scores = m_tiles * (c.at("block_n") / 8) * 4;        // m16n8 accumulators: 4 floats per thread each
  const int output = m_tiles * (p.d / 8) * 4;
  // Q.K^T accumulates into qk_split sets; with overlap the next block's scores exist beside this block's.
  const int held_scores = scores * c.at("qk_split") + (c.at("overlap") == 1 ? scores : 0);
  const int q_fragments = c.at("q_frags") == kQInRegisters ? (p.d / 16) * 4 : 0;
  return output + held_scores + q_fragments;
}

int register_budget(const Config& c, const DeviceLimits& limits) {
  // Registers are allocated per thread in steps of 8, at most 255.
  return std::min(255, limits.registers_per_sm / (threads(c) * c.at("min_ctas")) / 8 * 8);
}

std::optional<std::string> excluded_by_default(const Config& c, const Problem& p, const DeviceLimits& limits) {
  // Measured on the H100 (evidence/results/h100/issue5-deploy/deploy.db, run 1): the fastest of 46 scalar
  // configs took 26.6 ms where the best mma_sync config took 1.02 ms, and scalar compiles took 9 s on
  // average and up to 39 s (mma_sync: 1.4 s, at most 3.9 s). Where tensor cores exist it cannot win, and it
  // stalls the compile pipeline.
  if (c.at("mma") == kScalar && limits.compute_capability >= 80) {
    return "mma=scalar on sm_80 and newer: ~25x slower than mma_sync and 6x slower to compile (--space all includes it)";
  }
  // Certain to spill: the registers that must be live at once, plus the fewest any kernel of this family
  // needed beside them (24 among the 1252 configs that compiled without spills for the H100 searches; 16 is
  // used, to leave room), exceed what the launch bounds allow. Of the 520 configs that spilled in those
  // searches this rule names 219 (each a compile of ~1 s spent only to reject it), and none of the 1252
  // that did not (tests: AttentionFamily.CertainSpillRuleNeverExcludesAKernelThatCompiledCleanly).
  constexpr int kLeastOverhead = 16;
  if (c.at("mma") == kMmaSync) {
    const int live = mma_live_registers(c, p), budget = register_budget(c, limits);
    if (live + kLeastOverhead > budget) {
      return fmt::format("certain to spill: {} registers per thread must be live at once (+{} at least for the rest), "
                         "{} threads x min_ctas={} allow {} (--space all compiles it anyway)",
                         live, kLeastOverhead, threads(c), c.at("min_ctas"), budget);
    }
  }
  return std::nullopt;
}

std::optional<std::string> rejected_resources(const runtime::ResourceUsage& u) {
  if (u.spill_store_bytes > 0 || u.spill_load_bytes > 0) {
    return fmt::format("register spills ({} bytes stored, {} loaded; {} registers)", u.spill_store_bytes,
                       u.spill_load_bytes, u.registers);
  }
  return std::nullopt;
}

std::string name_expression(const Config& c, const Problem& p) {
  return fmt::format("attention_fwd<{}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}>", p.cuda_type(), p.d,
                     c.at("mma"), c.at("block_m"), c.at("block_n"), c.at("warps"), c.at("stages"), c.at("barrier"),
                     c.at("smem_layout"), c.at("vec_bytes"), c.at("q_frags"), c.at("min_ctas"), c.at("overlap"),
                     c.at("qk_split"), p.causal ? "true" : "false");
}

runtime::CompileRequest compile_request(const Config& c, const Problem& p, const runtime::Target& target,
                                        bool cta_clock) {
  runtime::CompileRequest r;
  r.source_name = "attention.cu";
  r.source = "#include \"attention/attention.cuh\"\n";
  r.headers = templates::embedded_headers("attention/");
  r.name_expressions = {name_expression(c, p)};
  r.options = {"--use_fast_math"};
  if (cta_clock) r.options.push_back("-DEVOTUNE_CTA_CLOCK=1");
  r.target = target;
  r.label = format(c);
  return r;
}

runtime::Preparation prepare(const Config& config, const Problem& problem, const DeviceLimits& limits,
                             const runtime::Target& target, runtime::Compiler& compiler, bool cta_clock) {
  if (std::optional<std::string> why = invalid_reason(config, problem, limits)) {
    return runtime::Rejection{runtime::Rejection::Kind::rule, *why, 0.0, false, std::nullopt};
  }
  const runtime::CompileRequest request = compile_request(config, problem, target, cta_clock);
  return runtime::prepare_kernel(compiler, request, request.name_expressions.at(0), rejected_resources);
}

runtime::LaunchGeometry launch_geometry(const Config& c, const Problem& p) {
  runtime::LaunchGeometry g;
  g.grid[0] = static_cast<unsigned>((p.sq + c.at("block_m") - 1) / c.at("block_m"));
  g.grid[1] = static_cast<unsigned>(p.hq);
  g.grid[2] = static_cast<unsigned>(p.b);
  g.block[0] = static_cast<unsigned>(threads(c));
  g.dynamic_shared_bytes = static_cast<unsigned>(shared_bytes(c, p));
  return g;
}

}  // namespace evotune::attention
