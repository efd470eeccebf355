#include "harness/smoke_family.h"

#include <fmt/format.h>

#include <stdexcept>

#include "runtime/embedded_sources.h"

namespace evotune::templates {

std::string smoke_name_expression(const SmokeVariant& v) {
  return fmt::format("block_sum<{}, {}, {}>", v.block, v.items, v.half ? "__half" : "float");
}

runtime::CompileRequest smoke_compile_request(const SmokeVariant& v, const runtime::Target& target) {
  runtime::CompileRequest request;
  request.source_name = "smoke.cu";
  request.source = "#include \"smoke/smoke.cuh\"\n";
  request.headers = embedded_headers("smoke/");
  request.name_expressions = {smoke_name_expression(v)};
  request.target = target;
  request.label = smoke_name_expression(v);
  return request;
}

int smoke_grid(const SmokeVariant& v, int n) {
  int per_block = v.block * v.items;
  return (n + per_block - 1) / per_block;
}

std::vector<double> smoke_reference(const SmokeVariant& v, const std::vector<float>& x, float scale) {
  int n = static_cast<int>(x.size());
  std::vector<double> out(static_cast<std::size_t>(smoke_grid(v, n)), 0.0);
  for (int i = 0; i < n; ++i) out[static_cast<std::size_t>(i / (v.block * v.items))] += x[static_cast<std::size_t>(i)];
  for (double& o : out) o *= scale;
  return out;
}

std::vector<SmokeVariant> distinct_smoke_variants(int count) {
  std::vector<SmokeVariant> variants;
  for (int block : {64, 128, 256, 512}) {
    for (int items = 1; items <= 16; ++items) {
      for (bool half : {true, false}) {
        if (static_cast<int>(variants.size()) == count) return variants;
        variants.push_back({block, items, half});
      }
    }
  }
  if (static_cast<int>(variants.size()) < count) {
    throw std::invalid_argument(fmt::format("at most {} distinct smoke variants", variants.size()));
  }
  return variants;
}

}  // namespace evotune::templates
