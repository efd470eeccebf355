#include "families/attention/host/cublas_baseline.h"

#include <fmt/format.h>

namespace evotune::harness {

void check_cublas(cublasStatus_t status, const char* call) {
  if (status != CUBLAS_STATUS_SUCCESS) {
    throw std::runtime_error(fmt::format("{} failed: {}", call, cublasGetStatusString(status)));
  }
}

CublasHandle::CublasHandle() { check_cublas(cublasCreate(&handle_), "cublasCreate"); }
CublasHandle::~CublasHandle() {
  if (handle_ != nullptr) cublasDestroy(handle_);
}

namespace {
cudaDataType_t cuda_type(attention::DType t) { return t == attention::DType::fp16 ? CUDA_R_16F : CUDA_R_16BF; }
}  // namespace

UnfusedCublasAttention::UnfusedCublasAttention(const AttentionWorkspace& workspace, const CublasHandle& handle)
    : ws_(workspace),
      handle_(handle),
      scores_(static_cast<std::size_t>(workspace.problem().rows()) * workspace.problem().skv * 4, "baseline S"),
      probs_(static_cast<std::size_t>(workspace.problem().rows()) * workspace.problem().skv * 2, "baseline P"),
      softmax_(workspace.kernels().baseline_softmax()) {}

void UnfusedCublasAttention::run(const runtime::Stream& stream) {
  const attention::Problem& p = ws_.problem();
  check_cublas(cublasSetStream(handle_.get(), stream.get()), "cublasSetStream");
  const cudaDataType_t type = cuda_type(p.dtype);
  const int rows = p.group() * p.sq;  // query rows sharing one K/V head
  const float one = 1.0f, zero = 0.0f;
  // Row-major S[rows][skv] = Q[rows][d] . K[skv][d]^T, as column-major S^T = K . Q^T.
  check_cublas(cublasGemmStridedBatchedEx(handle_.get(), CUBLAS_OP_T, CUBLAS_OP_N, p.skv, rows, p.d, &one,
                                          reinterpret_cast<const void*>(ws_.k().get()), type, p.d,
                                          static_cast<long long>(p.skv) * p.d,
                                          reinterpret_cast<const void*>(ws_.q().get()), type, p.d,
                                          static_cast<long long>(rows) * p.d, &zero,
                                          reinterpret_cast<void*>(scores_.get()), CUDA_R_32F, p.skv,
                                          static_cast<long long>(rows) * p.skv, p.b * p.hkv, CUBLAS_COMPUTE_32F,
                                          CUBLAS_GEMM_DEFAULT),
               "cublasGemmStridedBatchedEx (Q.K^T)");
  CUdeviceptr s = scores_.get(), prob = probs_.get();
  int sq = p.sq, skv = p.skv;
  float scale = p.softmax_scale();
  void* args[] = {&s, &prob, &sq, &skv, &scale};
  runtime::LaunchGeometry g;
  g.grid[0] = static_cast<unsigned>(p.rows());
  g.block[0] = 256;
  runtime::launch(softmax_, g, stream, args);
  // Row-major O[rows][d] = P[rows][skv] . V[skv][d], as column-major O^T = V^T . P^T.
  check_cublas(cublasGemmStridedBatchedEx(handle_.get(), CUBLAS_OP_N, CUBLAS_OP_N, p.d, rows, p.skv, &one,
                                          reinterpret_cast<const void*>(ws_.v().get()), type, p.d,
                                          static_cast<long long>(p.skv) * p.d,
                                          reinterpret_cast<const void*>(probs_.get()), type, p.skv,
                                          static_cast<long long>(rows) * p.skv, &zero,
                                          reinterpret_cast<void*>(ws_.o().get()), type, p.d,
                                          static_cast<long long>(rows) * p.d, p.b * p.hkv, CUBLAS_COMPUTE_32F,
                                          CUBLAS_GEMM_DEFAULT),
               "cublasGemmStridedBatchedEx (P.V)");
}

DevicePeaks measure_peaks(const AttentionWorkspace& workspace, const CublasHandle& handle, Timer& timer,
                          const runtime::Stream& stream) {
  DevicePeaks peaks;
  const attention::Problem& p = workspace.problem();
  constexpr int n = 8192;
  const std::size_t elements = std::size_t{n} * n;
  runtime::DeviceBuffer a(elements * 2, "GEMM A"), b(elements * 2, "GEMM B"), c(elements * 2, "GEMM C");
  runtime::Kernel fill = workspace.kernels().fill();
  std::uint64_t seed = 777;
  for (const runtime::DeviceBuffer* buffer : {&a, &b}) {
    CUdeviceptr ptr = buffer->get();
    long long count = static_cast<long long>(elements);
    ++seed;
    void* args[] = {&ptr, &count, &seed};
    runtime::LaunchGeometry g;
    g.grid[0] = 1024;
    g.block[0] = 256;
    runtime::launch(fill, g, stream, args);  // random data: a GEMM on zeros runs faster than on real data
  }
  check_cublas(cublasSetStream(handle.get(), stream.get()), "cublasSetStream");
  const cudaDataType_t type = cuda_type(p.dtype);
  const float one = 1.0f, zero = 0.0f;
  TimingOptions options;
  options.repetitions = 20;
  TimingSummary gemm = timer.time(
      [&](const runtime::Stream&) {
        check_cublas(cublasGemmEx(handle.get(), CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one,
                                  reinterpret_cast<const void*>(a.get()), type, n,
                                  reinterpret_cast<const void*>(b.get()), type, n, &zero,
                                  reinterpret_cast<void*>(c.get()), type, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
                     "cublasGemmEx (peak)");
      },
      stream, options);
  peaks.gemm_tflops = 2.0 * n * double(n) * n / (gemm.median_us * 1e-6) / 1e12;

  constexpr std::size_t kCopyBytes = std::size_t{1} << 30;
  runtime::DeviceBuffer src(kCopyBytes, "copy source"), dst(kCopyBytes, "copy destination");
  TimingSummary copy = timer.time(
      [&](const runtime::Stream& s) {
        EVOTUNE_CU(cuMemcpyDtoDAsync(dst.get(), src.get(), kCopyBytes, s.get()), "device copy (peak)");
      },
      stream, options);
  peaks.copy_gbps = 2.0 * double(kCopyBytes) / (copy.median_us * 1e-6) / 1e9;
  return peaks;
}

}  // namespace evotune::harness
