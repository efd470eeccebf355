#include "runtime/nvrtc_library.h"

#include <cuda.h>
#include <dlfcn.h>
#include <fmt/format.h>

#include <atomic>
#include <cstdlib>
#include <vector>

namespace evotune::runtime {
namespace {

std::atomic<bool> loaded_flag{false};

struct LoadedNvrtc {
  NvrtcApi api;
  std::string failure;  // empty when usable
};

std::vector<std::string> candidates() {
  // A library named by the user is the one to use, or none: no silent fallback to another NVRTC.
  if (const char* env = std::getenv("EVOTUNE_NVRTC_LIBRARY"); env != nullptr && *env != '\0') return {env};
  std::vector<std::string> files;
  // NVRTC's soname carries the toolkit's major version (libnvrtc.so.13 for CUDA 13): the one whose nvrtc.h
  // this was compiled against.
  files.push_back(fmt::format("libnvrtc.so.{}", CUDA_VERSION / 1000));
#ifdef EVOTUNE_BUILD_NVRTC_LIBRARY
  files.push_back(EVOTUNE_BUILD_NVRTC_LIBRARY);
#endif
  return files;
}

LoadedNvrtc load_nvrtc() {
  LoadedNvrtc loaded;
  std::vector<std::string> tried;
  void* handle = nullptr;
  for (const std::string& file : candidates()) {
    handle = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle != nullptr) break;
    const char* why = dlerror();
    tried.push_back(fmt::format("{} ({})", file, why ? why : "not found"));
  }
  if (handle == nullptr) {
    loaded.failure = fmt::format("NVRTC is needed to compile a kernel and could not be loaded: tried {}",
                                 fmt::join(tried, "; "));
    return loaded;
  }
  std::string missing;
#define EVOTUNE_LOAD_NVRTC_FN(name)                                                    \
  loaded.api.name = reinterpret_cast<decltype(loaded.api.name)>(dlsym(handle, #name)); \
  if (loaded.api.name == nullptr) missing += std::string(missing.empty() ? "" : ", ") + #name;
  EVOTUNE_NVRTC_FUNCTIONS(EVOTUNE_LOAD_NVRTC_FN)
#undef EVOTUNE_LOAD_NVRTC_FN
  if (!missing.empty()) loaded.failure = fmt::format("the NVRTC library loaded lacks {}", missing);
  loaded_flag = true;
  return loaded;
}

}  // namespace

const NvrtcApi& nvrtc() {
  static const LoadedNvrtc instance = load_nvrtc();
  if (!instance.failure.empty()) throw NvrtcUnavailable(instance.failure);
  return instance.api;
}

bool nvrtc_loaded() {
  return loaded_flag;
}

}  // namespace evotune::runtime
