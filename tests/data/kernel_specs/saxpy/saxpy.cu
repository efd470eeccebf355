// out = a * x + y over n floats: each thread handles ITEMS elements (a #define), BLOCK threads per block
// (a template argument). Beside it, a reference and two broken variants the tests expect to be caught.
#ifndef ITEMS
#error "ITEMS must be defined (evotune passes it as -DITEMS=...)"
#endif

template <int BLOCK>
__global__ void __launch_bounds__(BLOCK) scaled_add(const float* x, const float* y, float* out, float a, int n) {
  static_assert(BLOCK % 32 == 0, "BLOCK is a whole number of warps");
  const long long first = (static_cast<long long>(blockIdx.x) * BLOCK) * ITEMS + threadIdx.x;
#pragma unroll
  for (int i = 0; i < ITEMS; ++i) {
    const long long e = first + static_cast<long long>(i) * BLOCK;
    if (e < n) out[e] = a * x[e] + y[e];
  }
}

// Misses the last element: poisoned outputs must catch it.
template <int BLOCK>
__global__ void scaled_add_skips_last(const float* x, const float* y, float* out, float a, int n) {
  const long long first = (static_cast<long long>(blockIdx.x) * BLOCK) * ITEMS + threadIdx.x;
  for (int i = 0; i < ITEMS; ++i) {
    const long long e = first + static_cast<long long>(i) * BLOCK;
    if (e < n - 1) out[e] = a * x[e] + y[e];
  }
}

// Writes a * x - y: wrong values everywhere.
template <int BLOCK>
__global__ void scaled_add_wrong(const float* x, const float* y, float* out, float a, int n) {
  const long long first = (static_cast<long long>(blockIdx.x) * BLOCK) * ITEMS + threadIdx.x;
  for (int i = 0; i < ITEMS; ++i) {
    const long long e = first + static_cast<long long>(i) * BLOCK;
    if (e < n) out[e] = a * x[e] - y[e];
  }
}

extern "C" __global__ void reference_scaled_add(const float* x, const float* y, float* out, float a, int n) {
  const long long e = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (e < n) out[e] = a * x[e] + y[e];
}
