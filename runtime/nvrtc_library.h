#pragma once
// NVRTC, resolved at run time from its shared library, the first time something compiles.
//
// Why not link it: a program that runs only ahead-of-time kernels (a header exported with its CUBINs, the
// C ABI behind the PyTorch op) must start, and run, where no NVRTC is installed, and must not map 100 MB
// of compiler it never calls. Linking libnvrtc would load it at start-up in every process. Opened here, it
// is loaded by the first compile and never otherwise; nvrtc_loaded() says whether that happened.
#include <nvrtc.h>

#include <stdexcept>
#include <string>

namespace evotune::runtime {

#define EVOTUNE_NVRTC_FUNCTIONS(X)                                                                      \
  X(nvrtcGetErrorString)                                                                                \
  X(nvrtcVersion) X(nvrtcGetNumSupportedArchs) X(nvrtcGetSupportedArchs) X(nvrtcCreateProgram)          \
      X(nvrtcDestroyProgram) X(nvrtcAddNameExpression) X(nvrtcCompileProgram) X(nvrtcGetProgramLogSize) \
          X(nvrtcGetProgramLog) X(nvrtcGetCUBINSize) X(nvrtcGetCUBIN) X(nvrtcGetLoweredName)

struct NvrtcApi {
#define EVOTUNE_DECLARE_NVRTC_FN(name) decltype(&::name) name = nullptr;
  EVOTUNE_NVRTC_FUNCTIONS(EVOTUNE_DECLARE_NVRTC_FN)
#undef EVOTUNE_DECLARE_NVRTC_FN
};

// NVRTC could not be loaded: names every library file tried and why each failed.
class NvrtcUnavailable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Opens NVRTC once: $EVOTUNE_NVRTC_LIBRARY when set (that file only); else libnvrtc.so.<the build's CUDA
// major> through the dynamic loader's search path, then the file the build found. Throws NvrtcUnavailable
// when none loads or the one loaded lacks an entry point.
const NvrtcApi& nvrtc();

// True once nvrtc() has loaded the library in this process. Never loads it.
bool nvrtc_loaded();

}  // namespace evotune::runtime
