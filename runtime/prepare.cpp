#include "runtime/prepare.h"

namespace evotune::runtime {

Preparation prepare_kernel(Compiler& compiler, const CompileRequest& request, const std::string& entry,
                           const ResourceRule& reject) {
  CompileResult compiled;
  try {
    compiled = compiler.compile(request);
  } catch (const CompileTimeout& e) {
    return Rejection{Rejection::Kind::compile_timeout, e.what(), e.compile_seconds(), !e.from_cache(), std::nullopt};
  } catch (const CompileError& e) {
    return Rejection{Rejection::Kind::compile_error, e.what(), e.compile_seconds(), !e.from_cache(), std::nullopt};
  } catch (const std::runtime_error& e) {  // the compiler process died, NVRTC refused the program, ...
    return Rejection{Rejection::Kind::compile_error, e.what(), 0.0, true, std::nullopt};
  }
  PreparedKernel kernel;
  kernel.cache_key = cache_key(compiler, request);
  kernel.kernel_name = compiled.lowered(entry);
  kernel.resources = compiled.resources_of(entry);
  kernel.compile_seconds = compiled.compile_seconds;
  kernel.compiled_now = !compiled.from_cache;
  kernel.cubin = std::make_shared<const std::vector<char>>(std::move(compiled.cubin));
  if (std::optional<std::string> why = reject(kernel.resources)) {
    const double seconds = kernel.compile_seconds;
    const bool now = kernel.compiled_now;
    return Rejection{Rejection::Kind::resources, *why, seconds, now, std::move(kernel)};
  }
  return kernel;
}

}  // namespace evotune::runtime
