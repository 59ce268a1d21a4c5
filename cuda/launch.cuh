#pragma once
// Launch geometry shared by the kernel families: grid-stride loops over int64 element
// counts with 256-thread blocks, the grid capped so huge arrays do not need huge grids.

#include <algorithm>
#include <cstdint>

namespace rensa::cuda {

inline constexpr int kThreads = 256;
inline constexpr int64_t kMaxBlocks = 65535LL * 4;

// Blocks for a grid-stride loop over n items with kThreads threads (at least 1).
inline unsigned int grid_for(int64_t n, int threads = kThreads) {
    const int64_t blocks = (n + threads - 1) / threads;
    return static_cast<unsigned int>(std::clamp<int64_t>(blocks, 1, kMaxBlocks));
}

// for (int64_t i = grid_index(); i < n; i += grid_stride())
__device__ inline int64_t grid_index() { return static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; }
__device__ inline int64_t grid_stride() { return static_cast<int64_t>(gridDim.x) * blockDim.x; }

}  // namespace rensa::cuda
