#pragma once
// An attention forward problem: shapes, causality and element type. Layout is BHSD, contiguous.
// Causal is aligned bottom-right: query row i sees keys 0 .. i + (skv - sq), as FlashAttention does for
// KV-cache prefill and decode.
#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <string>
#include <string_view>

namespace evotune::attention {

enum class DType { fp16, bf16 };

struct Problem {
  int b = 1, hq = 1, hkv = 1, sq = 1, skv = 1, d = 128;
  bool causal = false;
  DType dtype = DType::fp16;

  // "b=4,hq=32,hkv=8,sq=4096,skv=4096,d=128,causal=1,dtype=bf16". hkv defaults to hq, skv to sq.
  // Throws UsageError (one line) for empty text, unknown keys, bad values, hq % hkv != 0, sq > skv,
  // unsupported d, and sizes whose element counts pass 2^48 (see validate()).
  static Problem parse(std::string_view text);
  // The rules parse() enforces on the values (positive sizes, hq % hkv == 0, sq <= skv, d of 64, 128 or 256,
  // grid limits), for problems built field by field; throws UsageError naming the broken one.
  void validate() const;
  std::string to_string() const;  // the canonical form parse() reads back
  bool operator==(const Problem&) const = default;

  int group() const { return hq / hkv; }
  // Fraction of the sq x skv score matrix that is visible (1 without causal masking).
  double visible_fraction() const;
  // 4 * b * hq * sq * skv * d (two matmuls), causal counted as the visible fraction.
  double flops() const;
  // Each input read once and the output written once.
  double bytes() const;
  std::int64_t q_elements() const { return std::int64_t{b} * hq * sq * d; }
  std::int64_t kv_elements() const { return std::int64_t{b} * hkv * skv * d; }
  std::int64_t rows() const { return std::int64_t{b} * hq * sq; }
  const char* dtype_name() const { return dtype == DType::fp16 ? "fp16" : "bf16"; }
  const char* cuda_type() const { return dtype == DType::fp16 ? "__half" : "__nv_bfloat16"; }
  float softmax_scale() const;
};

nlohmann::json to_json(const Problem& p);

}  // namespace evotune::attention
