#include "harness/smoke_selftest.h"

#include <cmath>
#include <future>
#include <random>

#include "runtime/compile_pool.h"
#include "runtime/cuda_objects.h"
#include "runtime/device_properties.h"
#include "runtime/float16.h"

namespace evotune::harness {

bool SmokeSelfTest::passed() const {
  if (checks.empty()) return false;
  for (const SmokeCheck& c : checks) {
    if (!c.passed()) return false;
  }
  return true;
}

SmokeSelfTest run_smoke_selftest(int ordinal, runtime::Compiler& compiler, int variants, unsigned compile_threads) {
  runtime::DeviceProperties props = runtime::query_device(ordinal);
  runtime::DeviceContext context(ordinal);
  runtime::Target target = runtime::Target::parse(props.native_target());

  SmokeSelfTest report;
  report.device_name = props.name;
  report.target = target.name();

  std::vector<templates::SmokeVariant> list = templates::distinct_smoke_variants(variants);
  std::vector<std::future<runtime::CompileResult>> compiled;
  runtime::CompilePool pool(compiler, compile_threads);
  for (const auto& v : list) compiled.push_back(pool.submit(templates::smoke_compile_request(v, target)));

  std::mt19937 rng(20261121);
  std::uniform_int_distribution<int> sixty_fourths(-128, 127);  // x = k / 64 in [-2, 2): exact in fp16
  runtime::Stream stream;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const templates::SmokeVariant& v = list[i];
    runtime::CompileResult result = compiled[i].get();
    SmokeCheck check;
    check.variant = v;
    check.kernel = templates::smoke_name_expression(v);
    check.resources = result.resources_of(check.kernel);
    check.from_cache = result.from_cache;

    runtime::Module module(result.cubin, check.kernel);
    runtime::Kernel kernel = module.kernel(result.lowered(check.kernel));
    check.driver_registers = kernel.attributes().registers_per_thread;

    // A length that is not a multiple of the block's span, so the tail guard is exercised too.
    int n = v.block * v.items * 37 + 11;
    std::vector<float> x(static_cast<std::size_t>(n));
    for (float& value : x) value = static_cast<float>(sixty_fourths(rng)) / 64.0f;
    std::vector<std::uint16_t> x_half;
    std::size_t element_bytes = v.half ? 2 : 4;
    runtime::DeviceBuffer x_device(x.size() * element_bytes, "smoke input");
    if (v.half) {
      for (float value : x) x_half.push_back(runtime::float_to_half_bits(value));
      x_device.upload(x_half.data(), x_half.size() * 2);
    } else {
      x_device.upload(x.data(), x.size() * 4);
    }
    check.elements = n;
    check.blocks = templates::smoke_grid(v, n);
    runtime::DeviceBuffer out_device(static_cast<std::size_t>(check.blocks) * 4, "smoke output");
    out_device.fill_bytes(0xFF, stream);  // NaN: an unwritten output cannot pass

    float scale = 0.5f;
    CUdeviceptr x_ptr = x_device.get(), out_ptr = out_device.get();
    void* args[] = {&x_ptr, &out_ptr, &n, &scale};
    runtime::LaunchGeometry geometry;
    geometry.grid[0] = static_cast<unsigned>(check.blocks);
    geometry.block[0] = static_cast<unsigned>(v.block);
    runtime::launch(kernel, geometry, stream, args);
    stream.synchronize();

    std::vector<float> out = out_device.download_as<float>(static_cast<std::size_t>(check.blocks));
    std::vector<double> expected = templates::smoke_reference(v, x, scale);
    for (std::size_t b = 0; b < out.size(); ++b) {
      double error = std::abs(static_cast<double>(out[b]) - expected[b]);
      if (!(out[b] == expected[b])) ++check.mismatches;  // NaN compares unequal
      if (std::isnan(out[b])) error = INFINITY;
      check.max_abs_error = std::max(check.max_abs_error, error);
    }
    report.checks.push_back(check);
  }
  return report;
}

}  // namespace evotune::harness
