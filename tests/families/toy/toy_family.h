#pragma once
// A toy family, y[i] = scale * x[i], written as a new family would be: this folder and one registration
// line (evotune::families::register_family) are all it takes for the shared layers (spaces, prepare,
// the GPU evaluator, the store, history seeds, T4, the header writer's caller) to work with it.
#include <memory>

#include "harness/family.h"

namespace evotune::toy {

std::unique_ptr<harness::Family> make_toy_family();

}  // namespace evotune::toy
