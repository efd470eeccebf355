#pragma once
// What NVRTC is asked for a spec's kernel and its reference: the user's source with the files it includes
// (in memory, so the cubin cache's key covers their text), tunables as template arguments or -D defines,
// and the spec's compile options.
#include <optional>
#include <string>

#include "families/user_kernel/spec.h"
#include "runtime/nvrtc_compiler.h"
#include "core/config.h"

namespace evotune::user_kernel {

// "tiled_gemm<64, 64, 32>" (template arguments in the spec's order), or "tiled_gemm" without any.
std::string kernel_name_expression(const Spec& spec, const Config& config);

// The tuned kernel for one config: every tunable that is not a template argument as -DNAME=value.
runtime::CompileRequest kernel_compile_request(const Spec& spec, const Config& config, const runtime::Target& target);

// The reference kernel ([check] reference). In the kernel's own source it is compiled with the defines of
// `defines_from` (the problem's default config), so a source that uses a tunable's macro outside its
// templates still compiles; a separate reference_source gets no tunables.
runtime::CompileRequest reference_compile_request(const Spec& spec, const Config& defines_from,
                                                  const runtime::Target& target);

// The resource rule of prepare(): a kernel that spills registers is not run (its time would be the
// spill's, and a search would learn nothing about the config).
std::optional<std::string> rejected_resources(const runtime::ResourceUsage& usage);

}  // namespace evotune::user_kernel
