#pragma once
// The baseline measured beside every kernel, in the same run: unfused attention the way a library user
// writes it without a fused kernel: S = Q.K^T (cuBLAS batched GEMM, fp32 out), softmax (scale, bottom-
// right causal mask; P stored as fp16/bf16), O = P.V (cuBLAS). GQA without replicating K/V: the
// query heads that share a K/V head are contiguous in BHSD, so each (batch, kv head) is one GEMM with
// group * sq rows. Also measures the device's peaks (fp16/bf16 GEMM rate, copy bandwidth) once.
#include <cublas_v2.h>

#include "families/attention/host/attention_workspace.h"
#include "harness/timer.h"

namespace evotune::harness {

class CublasHandle {
 public:
  CublasHandle();
  ~CublasHandle();
  CublasHandle(const CublasHandle&) = delete;
  CublasHandle& operator=(const CublasHandle&) = delete;
  cublasHandle_t get() const { return handle_; }

 private:
  cublasHandle_t handle_ = nullptr;
};

void check_cublas(cublasStatus_t status, const char* call);

class UnfusedCublasAttention {
 public:
  // Allocates S (fp32) and P for the whole problem: b*hq*sq*skv elements each.
  UnfusedCublasAttention(const AttentionWorkspace& workspace, const CublasHandle& handle);
  // Writes the workspace's O.
  void run(const runtime::Stream& stream);

 private:
  const AttentionWorkspace& ws_;
  const CublasHandle& handle_;
  runtime::DeviceBuffer scores_, probs_;
  runtime::Kernel softmax_;
};

struct DevicePeaks {
  double gemm_tflops = 0;  // 8192^3 GEMM, the problem's dtype in and out, fp32 accumulate (cuBLAS)
  double copy_gbps = 0;    // device-to-device copy of 1 GiB, bytes read + written
};

DevicePeaks measure_peaks(const AttentionWorkspace& workspace, const CublasHandle& handle, Timer& timer,
                          const runtime::Stream& stream);

}  // namespace evotune::harness
