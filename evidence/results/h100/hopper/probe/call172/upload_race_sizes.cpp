// probe/call172: call171's race probe at GpuSmoke's sizes (its two failing inputs were 66 and 76 KB) and
// others, each round into a freshly allocated buffer (as the smoke test allocates one per kernel). Each round
// uploads new words (pageable), then at once copies the buffer on a CU_STREAM_NON_BLOCKING stream
// (cuMemcpyDtoDAsync), and counts the words of the copy that are not the round's. "plain": nothing between the two; "legacy sync": cuStreamSynchronize(CU_STREAM_LEGACY) between
// them (what DeviceBuffer::upload does since this call's commit).
//   g++ -O2 -std=c++20 upload_race_sizes.cpp -I/usr/local/cuda/include -L/usr/local/cuda/lib64/stubs -lcuda
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
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 2000;
  CHECK(cuInit(0));
  CUdevice device;
  CHECK(cuDeviceGet(&device, 0));
  CUcontext context;
  CHECK(cuDevicePrimaryCtxRetain(&context, device));
  CHECK(cuCtxSetCurrent(context));
  CUstream stream;
  CHECK(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
  for (std::size_t bytes : {std::size_t{16} << 10, std::size_t{66} << 10, std::size_t{76} << 10,
                            std::size_t{256} << 10, std::size_t{1} << 20, std::size_t{8} << 20}) {
    const std::size_t words = bytes / 4;
    const int these_rounds = bytes > (std::size_t{1} << 20) ? rounds / 10 : rounds;
    std::vector<std::uint32_t> host(words), back(words);
    for (int legacy_sync = 0; legacy_sync <= 1; ++legacy_sync) {
      int rounds_wrong = 0;
      std::size_t words_wrong = 0;
      for (int round = 1; round <= these_rounds; ++round) {
        CUdeviceptr uploaded, copied;
        CHECK(cuMemAlloc(&uploaded, bytes));
        CHECK(cuMemAlloc(&copied, bytes));
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
        CHECK(cuMemFree(uploaded));
        CHECK(cuMemFree(copied));
      }
      std::printf("%-12s %5d rounds of %7zu KiB: %d with stale words in the copy (%zu words in all)\n",
                  legacy_sync ? "legacy sync" : "plain", these_rounds, bytes >> 10, rounds_wrong, words_wrong);
    }
  }
  return 0;
}
