// Attention configs tuned by evotune 0.1.0: the winners of searches on real GPUs.
// Generated 2026-11-21T19:20:19Z from /root/out/r2/deploy/deploy.db by:
//   evotune export --db /root/out/r2/deploy/deploy.db --run 1 --out /root/out/r2/deploy/tuned_attention.h
// Do not edit; export again. Self-contained C++17 (no other header of evotune is needed).
//
// Use:
//   evotune_tuned::Lookup found = evotune_tuned::lookup(device_name, sm, {b, hq, hkv, sq, skv, d, causal, bf16});
//   if (found.entry) { auto launcher = evotune::AttentionLauncher::from_tuned(*found.entry); ... }
// (evotune's launcher library, runtime/attention_launcher.h), or read entry->tunables.
//
// Times are medians of CUDA-event-timed launches with L2 flushed before each, measured during the
// search on the GPU named; TFLOP/s counts 4*b*hq*sq*skv*d, causal as the visible fraction.
#ifndef EVOTUNE_TUNED_ATTENTION_H
#define EVOTUNE_TUNED_ATTENTION_H
#include <cmath>
#include <cstring>

namespace evotune_tuned {

// One attention forward problem. Layout BHSD, contiguous; causal aligned bottom-right.
struct AttentionProblem {
  int b, hq, hkv, sq, skv, d;
  bool causal;
  bool bf16;  // false: fp16
};

// The tunables of evotune's attention family (`evotune search --help`; README, "The attention family").
struct AttentionTunables {
  const char* mma;
  int block_m;
  int block_n;
  int warps;
  int stages;
  const char* barrier;
  const char* smem_layout;
  int vec_bytes;
  const char* q_frags;
  int min_ctas;
  const char* overlap;
  int qk_split;
};

struct TunedAttention {
  const char* device;  // GPU name, as the driver reports it
  int sm;              // compute capability x 10: the device family
  AttentionProblem problem;
  const char* config;  // evotune config text, every tunable named: what the launcher compiles
  AttentionTunables tunables;
  double median_us, p10_us, p90_us;  // measured by the search
  double tflops;
  double baseline_us;  // unfused cuBLAS attention measured in the same run; 0 when none was
  long long run_id;    // in the evidence database the header was exported from
  int trial;           // the trial's seq in that run
  bool reverified;     // checked again on this GPU model, new inputs and a tail shape, at export
};

// NVIDIA H100 80GB HBM3: b=4,hq=16,hkv=16,sq=4096,skv=4096,d=128,causal=1,dtype=fp16 (sm_90)
//   run 1 (evo, 300 trials, started 2026-11-21T19:14:53Z), trial 112: median 1024.19 us (p10 1017.86, p90 1030.43), 268.5 TFLOP/s, 262 GB/s
//   speedup over cublas_unfused measured in run 1: 4.17x (4267.26 us)
//   re-verified on NVIDIA H100 80GB HBM3 at export:
//     new inputs b=4,hq=16,hkv=16,sq=4096,skv=4096,d=128,causal=1,dtype=fp16 (seed 1592590337): pass, max abs error 0.00116 <= 0.00461
//     tail shape b=1,hq=16,hkv=16,sq=4059,skv=4077,d=128,causal=1,dtype=fp16 (seed 1592590338): pass, max abs error 0.000563 <= 0.00319
//     re-timed: median 1033.79 us (p10 1027.33, p90 1039.78), 1.01x the search's median
inline constexpr TunedAttention kEntry0 = {
    "NVIDIA H100 80GB HBM3", 90,
    {4, 16, 16, 4096, 4096, 128, true, false},
    "mma=mma_sync,block_m=64,block_n=64,warps=4,stages=2,barrier=light,smem_layout=swizzled,vec_bytes=16,q_frags=regs,min_ctas=2,overlap=off,qk_split=1",
    {"mma_sync", 64, 64, 4, 2, "light", "swizzled", 16, "regs", 2, "off", 1},
    1024.191975593567, 1017.8560018539429, 1030.4319858551025, 268.45066389888143, 4267.264127731323, 1, 112, true};

inline constexpr TunedAttention kEntries[] = {kEntry0};

// How lookup() matched: the same GPU model and problem; the same problem on another GPU of the same
// family (compute capability); or, failing both, the nearest problem on the family (same device first).
enum class Match { exact, same_family, nearest_problem, none };

inline const char* match_name(Match m) {
  switch (m) {
    case Match::exact: return "exact";
    case Match::same_family: return "same device family, same problem";
    case Match::nearest_problem: return "nearest problem";
    default: return "none";
  }
}

struct Lookup {
  const TunedAttention* entry;  // null when nothing on this family has the head dim
  Match match;
  double distance;  // between the problems (0: same problem)
};

// The distance evotune's search uses to pick historical seeds: log2 ratios of batch x heads, query and
// key lengths, plus 2 for another dtype, 2 for causal vs not, 1 for another GQA group.
inline double problem_distance(const AttentionProblem& a, const AttentionProblem& b) {
  auto log_ratio = [](double x, double y) { return std::fabs(std::log2(x / y)); };
  double d = log_ratio(double(a.b) * a.hq, double(b.b) * b.hq) + log_ratio(a.sq, b.sq) + log_ratio(a.skv, b.skv);
  if (a.bf16 != b.bf16) d += 2;
  if (a.causal != b.causal) d += 2;
  if (a.hq / a.hkv != b.hq / b.hkv) d += 1;
  return d;
}

// The entry to run `problem` with on a GPU named `device` (the driver's name, e.g. from
// cudaGetDeviceProperties) of compute capability `sm` (e.g. 90). Only entries of the same family
// (sm) and head dim qualify: a config's tiles are sized for its head dim and its shared memory for its
// architecture. Among those, the nearest problem wins, and on a tie the same GPU model.
inline Lookup lookup(const char* device, int sm, const AttentionProblem& problem) {
  Lookup best{nullptr, Match::none, 0.0};
  bool best_same_device = false;
  for (const TunedAttention& e : kEntries) {
    if (e.sm != sm || e.problem.d != problem.d) continue;
    const double distance = problem_distance(e.problem, problem);
    const bool same_device = std::strcmp(e.device, device) == 0;
    if (best.entry != nullptr &&
        (distance > best.distance || (distance == best.distance && (best_same_device || !same_device)))) {
      continue;
    }
    best = {&e, distance == 0 ? (same_device ? Match::exact : Match::same_family) : Match::nearest_problem, distance};
    best_same_device = same_device;
  }
  return best;
}

}  // namespace evotune_tuned

#endif  // EVOTUNE_TUNED_ATTENTION_H
