#include "runtime/cuda_driver.h"

#include <dlfcn.h>
#include <fmt/format.h>

#include <mutex>

namespace evotune::runtime {
namespace {

#define EVOTUNE_STR2(x) #x
#define EVOTUNE_STR(x) EVOTUNE_STR2(x)

struct LoadedDriver {
  DriverApi api;
  std::string failure;  // empty when usable
};

LoadedDriver load_driver() {
  LoadedDriver loaded;
  void* handle = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    loaded.failure = fmt::format("no CUDA driver: cannot load libcuda.so.1 ({})", dlerror());
    return loaded;
  }
  std::string missing;
  // EVOTUNE_STR expands the macro first, so cuMemAlloc is looked up as "cuMemAlloc_v2" as cuda.h declares.
#define EVOTUNE_LOAD_DRIVER_FN(name)                                                   \
  loaded.api.name = reinterpret_cast<decltype(loaded.api.name)>(dlsym(handle, EVOTUNE_STR(name))); \
  if (loaded.api.name == nullptr) missing += std::string(missing.empty() ? "" : ", ") + EVOTUNE_STR(name);
  EVOTUNE_DRIVER_FUNCTIONS(EVOTUNE_LOAD_DRIVER_FN)
#undef EVOTUNE_LOAD_DRIVER_FN
  if (!missing.empty()) {
    loaded.failure = fmt::format("CUDA driver too old: libcuda.so.1 lacks {}", missing);
    return loaded;
  }
  CUresult init = loaded.api.cuInit(0);
  if (init == CUDA_ERROR_STUB_LIBRARY) {
    loaded.failure = "no CUDA driver: libcuda.so.1 is the toolkit's stub library, not a real driver";
  } else if (init == CUDA_ERROR_NO_DEVICE) {
    loaded.failure = "CUDA driver found but no CUDA device is visible";
  } else if (init != CUDA_SUCCESS) {
    const char* name = nullptr;
    loaded.api.cuGetErrorName(init, &name);
    loaded.failure = fmt::format("cuInit failed: {}", name ? name : "unknown error");
  }
  return loaded;
}

const LoadedDriver& loaded_driver() {
  static const LoadedDriver instance = load_driver();
  return instance;
}

}  // namespace

const DriverApi& driver() {
  const LoadedDriver& d = loaded_driver();
  if (!d.failure.empty()) throw NoDeviceError(d.failure);
  return d.api;
}

bool driver_available(std::string* reason) {
  const LoadedDriver& d = loaded_driver();
  if (reason != nullptr) *reason = d.failure;
  return d.failure.empty();
}

std::string describe(CUresult result) {
  const LoadedDriver& d = loaded_driver();
  const char* name = nullptr;
  const char* text = nullptr;
  if (d.api.cuGetErrorName != nullptr) d.api.cuGetErrorName(result, &name);
  if (d.api.cuGetErrorString != nullptr) d.api.cuGetErrorString(result, &text);
  if (name == nullptr) return fmt::format("CUresult {}", static_cast<int>(result));
  return text ? fmt::format("{} ({})", name, text) : std::string(name);
}

void check(CUresult result, std::string_view call, std::string_view context) {
  if (result == CUDA_SUCCESS) return;
  std::string message = fmt::format("{} failed: {}", call, describe(result));
  if (!context.empty()) message += fmt::format(" [{}]", context);
  throw CudaError(result, message);
}

}  // namespace evotune::runtime
