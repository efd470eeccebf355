#pragma once
// Move-only RAII owners of driver-API objects. Every failure throws CudaError naming the call and what
// it was for; destructors never throw (a failure there is ignored: the context may already be gone).
#include <cuda.h>

#include <cstddef>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "runtime/cuda_driver.h"

namespace evotune::runtime {

// Moves a handle out and leaves the zero value behind, so a moved-from owner destroys nothing.
template <typename T>
T take(T& handle) {
  return std::exchange(handle, T{});
}

// The device's primary context (the one the CUDA runtime and cuBLAS also use), made current on the
// calling thread.
class DeviceContext {
 public:
  // How a thread waits for the GPU (stream, event and context synchronization). spin (the driver's
  // default heuristic): lowest wake-up latency, a CPU core busy while it waits; blocking: the thread
  // sleeps, so the core is free for other work (a search's compile processes) at the price of a few
  // microseconds per wake-up, which CUDA-event timing does not see.
  enum class Wait { spin, blocking };
  explicit DeviceContext(int ordinal, Wait wait = Wait::spin);
  ~DeviceContext();
  DeviceContext(DeviceContext&& other) noexcept : device_(other.device_), context_(take(other.context_)) {}
  DeviceContext& operator=(DeviceContext&&) = delete;
  DeviceContext(const DeviceContext&) = delete;

  CUdevice device() const { return device_; }
  CUcontext get() const { return context_; }
  void make_current() const;
  void synchronize() const;

 private:
  CUdevice device_ = 0;
  CUcontext context_ = nullptr;
};

class Stream {
 public:
  Stream();
  ~Stream();
  Stream(Stream&& other) noexcept : stream_(take(other.stream_)) {}
  Stream& operator=(Stream&&) = delete;
  Stream(const Stream&) = delete;

  CUstream get() const { return stream_; }
  void synchronize() const;

 private:
  CUstream stream_ = nullptr;
};

class Event {
 public:
  Event();
  ~Event();
  Event(Event&& other) noexcept : event_(take(other.event_)) {}
  Event& operator=(Event&&) = delete;
  Event(const Event&) = delete;

  CUevent get() const { return event_; }
  void record(const Stream& stream) const;
  void synchronize() const;
  // Milliseconds from `start` to this event; both must have completed.
  float elapsed_ms_since(const Event& start) const;

 private:
  CUevent event_ = nullptr;
};

// Device memory of a fixed size in bytes.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t bytes, std::string label = "buffer");
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& other) noexcept
      : ptr_(take(other.ptr_)), bytes_(take(other.bytes_)), label_(std::move(other.label_)) {}
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;

  CUdeviceptr get() const { return ptr_; }
  std::size_t bytes() const { return bytes_; }

  // Complete on return: the bytes are on the device before any stream's next launch.
  void upload(const void* host, std::size_t bytes);
  void download(void* host, std::size_t bytes) const;
  // Sets every byte to `value` (0xFF turns fp16/bf16/fp32 data into NaN: the output-poisoning pattern).
  void fill_bytes(unsigned char value, const Stream& stream);

  template <typename T>
  void upload(std::span<const T> host) {
    upload(host.data(), host.size_bytes());
  }
  template <typename T>
  std::vector<T> download_as(std::size_t count) const {
    std::vector<T> out(count);
    download(out.data(), count * sizeof(T));
    return out;
  }

 private:
  void release() noexcept;

  CUdeviceptr ptr_ = 0;
  std::size_t bytes_ = 0;
  std::string label_;
};

// What the driver reports for a loaded kernel: the figures the validity rules and the report use.
struct KernelAttributes {
  int registers_per_thread = 0;
  int static_shared_bytes = 0;
  int local_bytes_per_thread = 0;
  int max_threads_per_block = 0;
  int binary_version = 0;  // e.g. 90 for sm_90
};

class Kernel {
 public:
  Kernel(CUfunction function, std::string name) : function_(function), name_(std::move(name)) {}
  CUfunction get() const { return function_; }
  const std::string& name() const { return name_; }
  KernelAttributes attributes() const;
  // Raises the kernel's dynamic shared memory limit; needed above 48 KiB.
  void set_max_dynamic_shared_bytes(int bytes) const;
  // The share of the SM's unified L1/shared memory the kernel prefers as shared memory, in percent of the
  // most it can be (CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT; the driver rounds up to a size it has).
  void prefer_shared_carveout(int percent) const;

 private:
  CUfunction function_;
  std::string name_;
};

struct LaunchGeometry {
  unsigned grid[3] = {1, 1, 1};
  unsigned block[3] = {1, 1, 1};
  unsigned dynamic_shared_bytes = 0;
  // Programmatic dependent launch (sm_90+): the kernel may be scheduled while the previous kernel in the
  // stream still runs (once that one's CTAs have all executed griddepcontrol.launch_dependents), so its
  // launch latency is hidden. Only for a kernel that executes griddepcontrol.wait before it reads what the
  // previous kernel writes: nothing else orders the two.
  bool programmatic_dependency = false;
};

// Launches with kernel arguments given as pointers to each argument value, as cuLaunchKernel expects.
void launch(const Kernel& kernel, const LaunchGeometry& geometry, const Stream& stream, void** args);
// The same launch, returning the driver's result instead of throwing (for callers that word the error).
CUresult try_launch(const Kernel& kernel, const LaunchGeometry& geometry, CUstream stream, void** args);

// A module loaded from a CUBIN image; the image must be for this device's architecture.
class Module {
 public:
  Module(std::span<const char> cubin, std::string label);
  ~Module();
  Module(Module&& other) noexcept : module_(take(other.module_)), label_(std::move(other.label_)) {}
  Module& operator=(Module&&) = delete;
  Module(const Module&) = delete;

  Kernel kernel(const std::string& lowered_name) const;

 private:
  CUmodule module_ = nullptr;
  std::string label_;
};

}  // namespace evotune::runtime
