// where: out = cond ? a : b, as core/native/kernels_where.cc. Values are moved as raw
// bits of their size, so one kernel pair per element size serves every dtype.

#include <cstdint>

#include "cuda/cuda_kernels.h"
#include "cuda/device_guard.h"
#include "cuda/elementwise.cuh"
#include "cuda/stream.h"

namespace rensa::cuda {
namespace {

template <class Bits>
struct WhereFn {
    static constexpr int kMaxVec = 16;
    __device__ Bits operator()(bool c, Bits a, Bits b) const { return c ? a : b; }
};

template <class Bits>
void launch_where(cudaStream_t stream, const Array& cond, const Array& a, const Array& b, const Array& out) {
    launch_elementwise<WhereFn<Bits>, Bits, bool, Bits, Bits>(stream, "where_kernel", WhereFn<Bits>{},
                                                              {&out, &cond, &a, &b});
}

}  // namespace

void CudaKernels::where(const Array& cond, const Array& a, const Array& b, const Array& out) {
    DeviceGuard guard{device_};
    const cudaStream_t stream = current_stream(device_);
    switch (out.itemsize()) {
        case 1:
            return launch_where<uint8_t>(stream, cond, a, b, out);
        case 2:
            return launch_where<uint16_t>(stream, cond, a, b, out);
        case 4:
            return launch_where<uint32_t>(stream, cond, a, b, out);
        default:
            return launch_where<uint64_t>(stream, cond, a, b, out);
    }
}

}  // namespace rensa::cuda
