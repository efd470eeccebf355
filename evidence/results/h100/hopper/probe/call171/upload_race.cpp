// probe/call171: does cuMemcpyHtoD from pageable memory return before its bytes land, as seen from a
// non-blocking stream? Each round uploads 64 MiB of new words (pageable), then at once copies the buffer on a
// CU_STREAM_NON_BLOCKING stream (cuMemcpyDtoDAsync), and counts the words of the copy that are not the
// round's. "plain": nothing between the two; "legacy sync": cuStreamSynchronize(CU_STREAM_LEGACY) between
// them (what DeviceBuffer::upload does since this call's commit).
//   g++ -O2 -std=c++20 upload_race.cpp -I/usr/local/cuda/include -L/usr/local/cuda/lib64/stubs -lcuda
#include <cuda.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(call)                                                      \
  do {                                                                   \
    CUresult r = (call);                                                 \
    if (r != CUDA_SUCCESS) {                                             \
      std::fprintf(stderr, "%s failed: %d\n", #call, static_cast<int>(r)); \
      std::exit(1);                                                      \
    }                                                                    \
  } while (0)

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 50;
  CHECK(cuInit(0));
  CUdevice device;
  CHECK(cuDeviceGet(&device, 0));
  CUcontext context;
  CHECK(cuDevicePrimaryCtxRetain(&context, device));
  CHECK(cuCtxSetCurrent(context));
  CUstream stream;
  CHECK(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
  const std::size_t words = std::size_t{16} << 20, bytes = words * 4;
  CUdeviceptr uploaded, copied;
  CHECK(cuMemAlloc(&uploaded, bytes));
  CHECK(cuMemAlloc(&copied, bytes));
  std::vector<std::uint32_t> host(words), back(words);
  for (int legacy_sync = 0; legacy_sync <= 1; ++legacy_sync) {
    int rounds_wrong = 0;
    std::size_t words_wrong = 0;
    for (int round = 1; round <= rounds; ++round) {
      const std::uint32_t seed = static_cast<std::uint32_t>(round * 2 + legacy_sync) * 2654435761u;
      for (std::size_t i = 0; i < words; ++i) host[i] = seed + static_cast<std::uint32_t>(i);
      CHECK(cuMemcpyHtoD(uploaded, host.data(), bytes));
      if (legacy_sync) CHECK(cuStreamSynchronize(CU_STREAM_LEGACY));
      CHECK(cuMemcpyDtoDAsync(copied, uploaded, bytes, stream));
      CHECK(cuStreamSynchronize(stream));
      CHECK(cuMemcpyDtoH(back.data(), copied, bytes));
      std::size_t wrong = 0;
      for (std::size_t i = 0; i < words; ++i) wrong += back[i] != host[i];
      rounds_wrong += wrong != 0;
      words_wrong += wrong;
    }
    std::printf("%-12s %d rounds of 64 MiB: %d with stale words in the copy (%zu words in all)\n",
                legacy_sync ? "legacy sync" : "plain", rounds, rounds_wrong, words_wrong);
  }
  return 0;
}
