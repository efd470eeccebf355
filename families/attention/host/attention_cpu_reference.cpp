#include "families/attention/host/attention_cpu_reference.h"

#include <cmath>
#include <limits>

namespace evotune::harness {

CpuAttention cpu_attention_fp64(const attention::Problem& p, const std::vector<float>& q, const std::vector<float>& k,
                                const std::vector<float>& v) {
  CpuAttention r;
  r.out.assign(static_cast<std::size_t>(p.q_elements()), 0.0);
  r.lse.assign(static_cast<std::size_t>(p.rows()), 0.0);
  const int d = p.d;
  const double scale = 1.0 / std::sqrt(static_cast<double>(d));
  std::vector<double> scores(static_cast<std::size_t>(p.skv));
  for (int b = 0; b < p.b; ++b) {
    for (int h = 0; h < p.hq; ++h) {
      const int kvh = h / p.group();
      const float* qh = q.data() + (static_cast<std::size_t>(b) * p.hq + h) * p.sq * d;
      const float* kh = k.data() + (static_cast<std::size_t>(b) * p.hkv + kvh) * p.skv * d;
      const float* vh = v.data() + (static_cast<std::size_t>(b) * p.hkv + kvh) * p.skv * d;
      for (int i = 0; i < p.sq; ++i) {
        // Bottom-right causal: row i sees keys 0 .. i + (skv - sq).
        const int visible = p.causal ? i + (p.skv - p.sq) + 1 : p.skv;
        double max_score = -std::numeric_limits<double>::infinity();
        for (int j = 0; j < visible; ++j) {
          double dot = 0.0;
          for (int c = 0; c < d; ++c) dot += double(qh[i * d + c]) * double(kh[static_cast<std::size_t>(j) * d + c]);
          scores[static_cast<std::size_t>(j)] = dot * scale;
          max_score = std::max(max_score, scores[static_cast<std::size_t>(j)]);
        }
        double sum = 0.0;
        for (int j = 0; j < visible; ++j) sum += std::exp(scores[static_cast<std::size_t>(j)] - max_score);
        const std::size_t row = (static_cast<std::size_t>(b) * p.hq + h) * p.sq + i;
        r.lse[row] = max_score + std::log(sum);
        double* o = r.out.data() + row * d;
        for (int j = 0; j < visible; ++j) {
          const double prob = std::exp(scores[static_cast<std::size_t>(j)] - max_score) / sum;
          for (int c = 0; c < d; ++c) o[c] += prob * double(vh[static_cast<std::size_t>(j) * d + c]);
        }
      }
    }
  }
  return r;
}

}  // namespace evotune::harness
