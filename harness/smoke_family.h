#pragma once
// Host side of the smoke family: how to compile a variant, its launch geometry, and a CPU reference.
#include <string>
#include <vector>

#include "runtime/nvrtc_compiler.h"

namespace evotune::templates {

struct SmokeVariant {
  int block = 256;     // threads per block, a power of two
  int items = 4;       // elements each thread sums
  bool half = true;    // __half input (needs cuda_fp16.h from the toolkit) or float
};

std::string smoke_name_expression(const SmokeVariant& v);
runtime::CompileRequest smoke_compile_request(const SmokeVariant& v, const runtime::Target& target);
// Blocks needed to cover n elements.
int smoke_grid(const SmokeVariant& v, int n);
// out[b] = scale * sum of x over block b's elements, in double precision.
std::vector<double> smoke_reference(const SmokeVariant& v, const std::vector<float>& x, float scale);
// `count` distinct variants (block x items x type), for pool and compile-rate measurements.
std::vector<SmokeVariant> distinct_smoke_variants(int count);

}  // namespace evotune::templates
