#include "families/attention/host/problem.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <nlohmann/json.hpp>
#include <set>

#include "core/errors.h"
#include "core/config.h"

namespace evotune::attention {
namespace {

int parse_positive(std::string_view key, std::string_view value) {
  int out = 0;
  auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), out);
  if (ec != std::errc() || end != value.data() + value.size() || out <= 0) {
    throw UsageError(fmt::format("bad problem value {}={}: expected a positive integer", key, value));
  }
  return out;
}

}  // namespace

Problem Problem::parse(std::string_view text) {
  Problem p;
  bool have_hkv = false, have_skv = false;
  std::set<std::string> seen;
  const auto assignments = split_assignments(text, "problem");
  // Every size has a default, but a problem nobody wrote is a mistake (an empty --problem), not b=1,hq=1,...
  if (assignments.empty()) throw UsageError("empty problem: give e.g. b=4,hq=16,sq=4096,d=128");
  for (const auto& [key, value] : assignments) {
    if (!seen.insert(key).second) throw UsageError(fmt::format("problem key '{}' given twice", key));
    if (key == "b") {
      p.b = parse_positive(key, value);
    } else if (key == "hq") {
      p.hq = parse_positive(key, value);
    } else if (key == "hkv") {
      p.hkv = parse_positive(key, value);
      have_hkv = true;
    } else if (key == "sq") {
      p.sq = parse_positive(key, value);
    } else if (key == "skv") {
      p.skv = parse_positive(key, value);
      have_skv = true;
    } else if (key == "d") {
      p.d = parse_positive(key, value);
    } else if (key == "causal") {
      if (value != "0" && value != "1") throw UsageError(fmt::format("bad problem value causal={}: expected 0 or 1", value));
      p.causal = value == "1";
    } else if (key == "dtype") {
      if (value == "fp16") {
        p.dtype = DType::fp16;
      } else if (value == "bf16") {
        p.dtype = DType::bf16;
      } else {
        throw UsageError(fmt::format("bad problem value dtype={}: expected fp16 or bf16", value));
      }
    } else {
      throw UsageError(fmt::format("unknown problem key '{}' (known: b, hq, hkv, sq, skv, d, causal, dtype)", key));
    }
  }
  if (!have_hkv) p.hkv = p.hq;
  if (!have_skv) p.skv = p.sq;
  p.validate();
  return p;
}

void Problem::validate() const {
  for (const auto& [key, value] : {std::pair{"b", b}, {"hq", hq}, {"hkv", hkv}, {"sq", sq}, {"skv", skv}, {"d", d}}) {
    if (value <= 0) throw UsageError(fmt::format("bad problem value {}={}: expected a positive integer", key, value));
  }
  if (hq % hkv != 0) throw UsageError(fmt::format("hq={} is not a multiple of hkv={}", hq, hkv));
  if (sq > skv) throw UsageError(fmt::format("sq={} exceeds skv={}: queries attend to at most skv keys", sq, skv));
  if (d != 64 && d != 128 && d != 256) {
    throw UsageError(fmt::format("head dim d={} is not supported (64, 128 or 256)", d));
  }
  if (std::int64_t{b} * hq > 65535LL * 65535LL || b > 65535 || hq > 65535) {
    throw UsageError("b and hq must each be at most 65535 (grid limits)");
  }
  // Element counts (and the scores of one head, sq x skv) are 64-bit products everywhere they are used; past
  // 2^48 elements (512 TiB of fp16) no GPU holds the tensors, and well before 2^63 the products overflow.
  constexpr double kMaxElements = 281474976710656.0;  // 2^48
  const double q = double(b) * hq * sq * d, kv = double(b) * hkv * skv * d, scores = double(b) * hq * sq * skv;
  if (q > kMaxElements || kv > kMaxElements || scores > kMaxElements) {
    throw UsageError(fmt::format("problem b={},hq={},hkv={},sq={},skv={},d={} has more than 2^48 elements in Q, K/V "
                                 "or the scores: beyond any GPU's memory",
                                 b, hq, hkv, sq, skv, d));
  }
}

std::string Problem::to_string() const {
  return fmt::format("b={},hq={},hkv={},sq={},skv={},d={},causal={},dtype={}", b, hq, hkv, sq, skv, d, causal ? 1 : 0,
                     dtype_name());
}

double Problem::visible_fraction() const {
  if (!causal) return 1.0;
  // Row i sees i + (skv - sq) + 1 keys.
  double visible = double(sq) * (skv - sq) + double(sq) * (sq + 1) / 2.0;
  return visible / (double(sq) * skv);
}

double Problem::flops() const { return 4.0 * b * hq * double(sq) * skv * d * visible_fraction(); }

double Problem::bytes() const { return 2.0 * (2.0 * q_elements() + 2.0 * kv_elements()); }

float Problem::softmax_scale() const { return 1.0f / std::sqrt(static_cast<float>(d)); }

nlohmann::json to_json(const Problem& p) {
  return {{"b", p.b},   {"hq", p.hq}, {"hkv", p.hkv},          {"sq", p.sq},
          {"skv", p.skv}, {"d", p.d}, {"causal", p.causal ? 1 : 0}, {"dtype", p.dtype_name()}};
}

}  // namespace evotune::attention
