#pragma once
// The user-kernel family: a user's own CUDA kernel, described by a spec file (docs/kernel-spec.md), tuned
// with no C++ to write. The registry opens it for `--kernel spec.toml`; its id is "user_kernel:<name>".
#include <memory>
#include <string>

#include "harness/family.h"

namespace evotune::user_kernel {

// Reads and checks the spec whole (every expression parsed, every name known, every listed problem's
// launch evaluated) before anything compiles. Throws UsageError, one line "<path>:<line>: <what>".
std::unique_ptr<harness::Family> open_spec(const std::string& spec_path);

}  // namespace evotune::user_kernel
