// Included by tiled.cu "by name": evotune hands it to NVRTC in memory (its text is in the cache key).
#pragma once
__host__ __device__ constexpr int tile_threads(int warps) { return 32 * warps; }
