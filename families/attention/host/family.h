#pragma once
// The attention forward family behind harness::Family: its problem (b, hq, hkv, sq, skv, d, causal,
// dtype), tunables, rules and defaults (families/attention/host/attention_family.h), its bench (seeded Q, K, V,
// the fp32 reference and the same-precision tolerance: families/attention/host/attention_workspace.h), its reference
// points (the unfused cuBLAS pipeline, GEMM and copy peaks; PyTorch SDPA), and its exported header.
#include <memory>

#include "harness/family.h"
#include "families/attention/host/problem.h"

namespace evotune::families {

std::unique_ptr<harness::Family> make_attention_family();

// The attention problem a FamilyProblem carries (its canonical text); throws UsageError.
attention::Problem attention_problem(const harness::FamilyProblem& problem);
harness::FamilyProblem family_problem(const attention::Problem& problem);

// evotune bench for attention (families/attention/host/bench.cpp).
void attention_bench(const harness::Family& family, const harness::BenchRequest& request, runtime::Compiler& compiler);

}  // namespace evotune::families
