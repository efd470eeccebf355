#pragma once
// The CUDA driver API, resolved at run time from libcuda.so.1.
//
// Why not link libcuda: the toolkit's stub libcuda.so satisfies the linker, but then the dynamic loader
// refuses to start the binary wherever no driver is installed (CI, build machines), so `evotune devices`
// could never say "no driver" and the CPU test suite could not run. Opening the library ourselves keeps
// one binary for both kinds of machine. Names go through cuda.h's macros, so `api.cuMemAlloc` is the
// versioned entry point (cuMemAlloc_v2) the header declares.
#include <cuda.h>

#include <stdexcept>
#include <string>
#include <string_view>

#include "core/errors.h"

namespace evotune::runtime {

#define EVOTUNE_DRIVER_FUNCTIONS(X)                                                                    \
  X(cuInit) X(cuDriverGetVersion) X(cuGetErrorName) X(cuGetErrorString) X(cuDeviceGetCount)            \
  X(cuDeviceGet) X(cuDeviceGetName) X(cuDeviceGetAttribute) X(cuDeviceTotalMem) X(cuDeviceGetPCIBusId) \
  X(cuDevicePrimaryCtxRetain) X(cuDevicePrimaryCtxRelease) X(cuDevicePrimaryCtxSetFlags)               \
  X(cuCtxSetCurrent) X(cuCtxGetCurrent) X(cuCtxSynchronize) X(cuModuleLoadData) X(cuModuleUnload)      \
  X(cuModuleGetFunction) X(cuFuncGetAttribute) X(cuFuncSetAttribute) X(cuLaunchKernel) X(cuLaunchKernelEx) X(cuMemAlloc)   \
  X(cuMemFree) X(cuMemcpyHtoD) X(cuMemcpyDtoH) X(cuMemcpyHtoDAsync) X(cuMemcpyDtoHAsync) X(cuMemsetD8) \
  X(cuMemsetD8Async) X(cuMemsetD32Async) X(cuMemGetInfo) X(cuMemcpyDtoDAsync) X(cuStreamCreate)        \
  X(cuStreamDestroy) X(cuStreamSynchronize) X(cuEventCreate) X(cuEventDestroy) X(cuEventRecord)        \
  X(cuEventSynchronize) X(cuEventElapsedTime) X(cuStreamBeginCapture) X(cuStreamEndCapture)            \
  X(cuStreamIsCapturing)                                                                              \
  X(cuGraphInstantiate) X(cuGraphLaunch) X(cuGraphExecDestroy) X(cuGraphDestroy) X(cuTensorMapEncodeTiled)

struct DriverApi {
#define EVOTUNE_DECLARE_DRIVER_FN(name) decltype(&::name) name = nullptr;
  EVOTUNE_DRIVER_FUNCTIONS(EVOTUNE_DECLARE_DRIVER_FN)
#undef EVOTUNE_DECLARE_DRIVER_FN
};

// A failed driver call: names the call, its context and the driver's error name and text.
class CudaError : public std::runtime_error {
 public:
  CudaError(CUresult code, const std::string& message) : std::runtime_error(message), code_(code) {}
  CUresult code() const { return code_; }

 private:
  CUresult code_;
};

// Loads libcuda.so.1 and calls cuInit(0) once. Throws NoDeviceError when there is no driver library,
// the library is the toolkit's stub, or the driver sees no device.
const DriverApi& driver();

// True when driver() would succeed; never throws. `reason` receives why not.
bool driver_available(std::string* reason = nullptr);

// "CUDA_ERROR_X (text)" for a result code, using the driver's tables when loaded.
std::string describe(CUresult result);

// Throws CudaError("<call> failed: CUDA_ERROR_X (text) [context]") unless result is CUDA_SUCCESS.
void check(CUresult result, std::string_view call, std::string_view context = {});

}  // namespace evotune::runtime

// CU_CALL(cuMemAlloc(&ptr, n), "allocating Q") calls through the loaded table and checks the result.
#define EVOTUNE_CU(call, context) ::evotune::runtime::check(::evotune::runtime::driver().call, #call, context)
