#pragma once
// The C++ header `evotune export` writes for a spec's kernel: self-contained C++17 needing only <cuda.h>
// and the driver (-lcuda). It holds every winner's CUBIN and config, the spec's rules and launch geometry
// written as C++ (the same expressions, evaluated the same way), a lookup by problem that serves an entry
// only where its rules hold, and a launch through cuModuleLoadData / cuLaunchKernel.
#include <string>
#include <vector>

#include "families/user_kernel/spec.h"
#include "harness/family.h"

namespace evotune::user_kernel {

struct HeaderInput {
  std::string generated_by;    // the command line that regenerates it
  std::string sources_digest;  // of the spec and its sources
  std::vector<harness::ExportedWinner> winners;
};

// Throws UsageError for winners it cannot write (none; a problem or config of another spec).
std::string render_header(const Spec& spec, const HeaderInput& input);

}  // namespace evotune::user_kernel
