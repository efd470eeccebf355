#pragma once
// CPU attention in double precision: the reference the tests hold the GPU fp32 reference to. Inputs are
// given as floats holding exactly the fp16/bf16 values the GPU sees.
#include <vector>

#include "families/attention/host/problem.h"

namespace evotune::harness {

struct CpuAttention {
  std::vector<double> out;  // [b, hq, sq, d]
  std::vector<double> lse;  // [b, hq, sq], natural log of the scaled scores' exp-sum
};

CpuAttention cpu_attention_fp64(const attention::Problem& p, const std::vector<float>& q, const std::vector<float>& k,
                                const std::vector<float>& v);

}  // namespace evotune::harness
