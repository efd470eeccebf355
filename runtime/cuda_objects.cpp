#include "runtime/cuda_objects.h"

#include <fmt/format.h>

namespace evotune::runtime {

DeviceContext::DeviceContext(int ordinal, Wait wait) {
  const DriverApi& api = driver();
  int count = 0;
  EVOTUNE_CU(cuDeviceGetCount(&count), "counting devices");
  if (ordinal < 0 || ordinal >= count) {
    throw NoDeviceError(fmt::format("device {} does not exist ({} CUDA device(s) visible)", ordinal, count));
  }
  EVOTUNE_CU(cuDeviceGet(&device_, ordinal), fmt::format("device {}", ordinal));
  if (wait == Wait::blocking) {
    EVOTUNE_CU(cuDevicePrimaryCtxSetFlags(device_, CU_CTX_SCHED_BLOCKING_SYNC),
               fmt::format("device {}: blocking synchronization", ordinal));
  }
  EVOTUNE_CU(cuDevicePrimaryCtxRetain(&context_, device_), fmt::format("device {}", ordinal));
  check(api.cuCtxSetCurrent(context_), "cuCtxSetCurrent", fmt::format("device {}", ordinal));
}

DeviceContext::~DeviceContext() {
  if (context_ != nullptr) driver().cuDevicePrimaryCtxRelease(device_);
}

void DeviceContext::make_current() const { EVOTUNE_CU(cuCtxSetCurrent(context_), "making context current"); }

void DeviceContext::synchronize() const {
  make_current();
  EVOTUNE_CU(cuCtxSynchronize(), "synchronizing the device");
}

Stream::Stream() { EVOTUNE_CU(cuStreamCreate(&stream_, CU_STREAM_NON_BLOCKING), "creating a stream"); }
Stream::~Stream() {
  if (stream_ != nullptr) driver().cuStreamDestroy(stream_);
}
void Stream::synchronize() const { EVOTUNE_CU(cuStreamSynchronize(stream_), "waiting for the stream"); }

Event::Event() { EVOTUNE_CU(cuEventCreate(&event_, CU_EVENT_DEFAULT), "creating an event"); }
Event::~Event() {
  if (event_ != nullptr) driver().cuEventDestroy(event_);
}
void Event::record(const Stream& stream) const {
  EVOTUNE_CU(cuEventRecord(event_, stream.get()), "recording an event");
}
void Event::synchronize() const { EVOTUNE_CU(cuEventSynchronize(event_), "waiting for an event"); }
float Event::elapsed_ms_since(const Event& start) const {
  float ms = 0.0f;
  EVOTUNE_CU(cuEventElapsedTime(&ms, start.get(), event_), "reading event time");
  return ms;
}

DeviceBuffer::DeviceBuffer(std::size_t bytes, std::string label) : bytes_(bytes), label_(std::move(label)) {
  if (bytes_ > 0) EVOTUNE_CU(cuMemAlloc(&ptr_, bytes_), fmt::format("allocating {} ({} bytes)", label_, bytes_));
}
DeviceBuffer::~DeviceBuffer() { release(); }
DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  if (this != &other) {
    release();
    ptr_ = take(other.ptr_);
    bytes_ = take(other.bytes_);
    label_ = std::move(other.label_);
  }
  return *this;
}
void DeviceBuffer::release() noexcept {
  if (ptr_ != 0) driver().cuMemFree(ptr_);
  ptr_ = 0;
  bytes_ = 0;
}

void DeviceBuffer::upload(const void* host, std::size_t bytes) {
  if (bytes > bytes_) throw std::out_of_range(fmt::format("upload of {} bytes into {} of {}", bytes, label_, bytes_));
  EVOTUNE_CU(cuMemcpyHtoD(ptr_, host, bytes), fmt::format("copying {} to the device", label_));
  // From pageable memory cuMemcpyHtoD returns once the bytes are staged, before the DMA lands, ordered only
  // on the legacy stream, and our streams are non-blocking: work issued right after on one of them can read
  // the old bytes. On the H100 a copy on such a stream read stale words in 1982 of 2000 rounds of 1 MiB
  // (254 of 2000 at 256 KiB; none at 16-76 KiB) into fresh buffers, and in none with this wait
  // (probe/call172). Waiting for the legacy stream makes the copy complete on return, as callers assume.
  EVOTUNE_CU(cuStreamSynchronize(CU_STREAM_LEGACY), fmt::format("waiting for the copy of {}", label_));
}
void DeviceBuffer::download(void* host, std::size_t bytes) const {
  if (bytes > bytes_) throw std::out_of_range(fmt::format("download of {} bytes from {} of {}", bytes, label_, bytes_));
  EVOTUNE_CU(cuMemcpyDtoH(host, ptr_, bytes), fmt::format("copying {} to the host", label_));
}
void DeviceBuffer::fill_bytes(unsigned char value, const Stream& stream) {
  EVOTUNE_CU(cuMemsetD8Async(ptr_, value, bytes_, stream.get()), fmt::format("filling {}", label_));
}

KernelAttributes Kernel::attributes() const {
  KernelAttributes a;
  auto get = [&](CUfunction_attribute attribute, int& out) {
    EVOTUNE_CU(cuFuncGetAttribute(&out, attribute, function_), fmt::format("attributes of {}", name_));
  };
  get(CU_FUNC_ATTRIBUTE_NUM_REGS, a.registers_per_thread);
  get(CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, a.static_shared_bytes);
  get(CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, a.local_bytes_per_thread);
  get(CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, a.max_threads_per_block);
  get(CU_FUNC_ATTRIBUTE_BINARY_VERSION, a.binary_version);
  return a;
}

void Kernel::set_max_dynamic_shared_bytes(int bytes) const {
  EVOTUNE_CU(cuFuncSetAttribute(function_, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, bytes),
             fmt::format("raising dynamic shared memory of {} to {} bytes", name_, bytes));
}

void Kernel::prefer_shared_carveout(int percent) const {
  EVOTUNE_CU(cuFuncSetAttribute(function_, CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, percent),
             fmt::format("setting the shared memory carveout of {} to {}%", name_, percent));
}

CUresult try_launch(const Kernel& kernel, const LaunchGeometry& g, CUstream stream, void** args) {
  if (!g.programmatic_dependency) {
    return driver().cuLaunchKernel(kernel.get(), g.grid[0], g.grid[1], g.grid[2], g.block[0], g.block[1],
                                   g.block[2], g.dynamic_shared_bytes, stream, args, nullptr);
  }
  CUlaunchAttribute attribute{};
  attribute.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
  attribute.value.programmaticStreamSerializationAllowed = 1;
  CUlaunchConfig config{};
  config.gridDimX = g.grid[0];
  config.gridDimY = g.grid[1];
  config.gridDimZ = g.grid[2];
  config.blockDimX = g.block[0];
  config.blockDimY = g.block[1];
  config.blockDimZ = g.block[2];
  config.sharedMemBytes = g.dynamic_shared_bytes;
  config.hStream = stream;
  config.attrs = &attribute;
  config.numAttrs = 1;
  return driver().cuLaunchKernelEx(&config, kernel.get(), args, nullptr);
}

void launch(const Kernel& kernel, const LaunchGeometry& g, const Stream& stream, void** args) {
  const CUresult result = try_launch(kernel, g, stream.get(), args);
  if (result != CUDA_SUCCESS) {  // the message is built only on failure: launches are on the timed path
    check(result, g.programmatic_dependency ? "cuLaunchKernelEx" : "cuLaunchKernel",
          fmt::format("launching {} grid ({},{},{}) block ({},{},{}) smem {}", kernel.name(), g.grid[0], g.grid[1],
                      g.grid[2], g.block[0], g.block[1], g.block[2], g.dynamic_shared_bytes));
  }
}

Module::Module(std::span<const char> cubin, std::string label) : label_(std::move(label)) {
  EVOTUNE_CU(cuModuleLoadData(&module_, cubin.data()), fmt::format("loading module {}", label_));
}
Module::~Module() {
  if (module_ != nullptr) driver().cuModuleUnload(module_);
}
Kernel Module::kernel(const std::string& lowered_name) const {
  CUfunction function = nullptr;
  EVOTUNE_CU(cuModuleGetFunction(&function, module_, lowered_name.c_str()),
             fmt::format("finding {} in module {}", lowered_name, label_));
  return Kernel(function, lowered_name);
}

}  // namespace evotune::runtime
