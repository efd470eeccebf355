#pragma once
// The GPU side of a spec's kernel for one problem: its arguments allocated and filled (seeded random,
// zero, or a file; every buffer from its own stream of the seed, so no two inputs are alike), the
// reference outputs (a reference kernel run once, or files of expected values), outputs poisoned before
// every run and judged element by element after it.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "families/user_kernel/spec.h"
#include "harness/family.h"

namespace evotune::user_kernel {

// The values of a buffer's inputs as the Bench makes them (host side, dtype bytes): `stream` numbers the
// argument, so each buffer has its own sequence of the seed.
std::vector<unsigned char> random_elements(DType type, std::int64_t elements, std::uint64_t seed, std::uint64_t stream);

// One element check: |out - ref| <= atol + rtol * |ref|, and out finite where ref is.
bool within_tolerance(double out, double ref, double atol, double rtol);

std::unique_ptr<harness::Bench> make_user_kernel_bench(std::shared_ptr<const Spec> spec,
                                                       std::vector<std::int64_t> sizes, std::string problem_text,
                                                       const Config& default_config,
                                                       const harness::BenchContext& context);

}  // namespace evotune::user_kernel
