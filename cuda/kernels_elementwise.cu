// copy (casting between any two dtypes) and fill, as core/native/kernels_copy.cc.

#include <type_traits>

#include "cuda/allocator.h"
#include "cuda/check.h"
#include "cuda/cuda_kernels.h"
#include "cuda/device_guard.h"
#include "cuda/dtype_dispatch.cuh"
#include "cuda/elementwise.cuh"
#include "cuda/stream.h"

namespace rensa::cuda {
namespace {

// Writes cast_value<To>(v) for the runtime dtype `to`: one kernel per source dtype
// instead of 81 (the switch is uniform across the grid).
template <class From>
__host__ __device__ void store_cast(Dtype to, char* dst, From v) {
    switch (to) {
        case Dtype::kBool:
            *reinterpret_cast<bool*>(dst) = cast_value<bool>(v);
            return;
        case Dtype::kInt8:
            *reinterpret_cast<int8_t*>(dst) = cast_value<int8_t>(v);
            return;
        case Dtype::kUInt8:
            *reinterpret_cast<uint8_t*>(dst) = cast_value<uint8_t>(v);
            return;
        case Dtype::kInt32:
            *reinterpret_cast<int32_t*>(dst) = cast_value<int32_t>(v);
            return;
        case Dtype::kInt64:
            *reinterpret_cast<int64_t*>(dst) = cast_value<int64_t>(v);
            return;
        case Dtype::kFloat16:
            *reinterpret_cast<__half*>(dst) = cast_value<__half>(v);
            return;
        case Dtype::kBFloat16:
            *reinterpret_cast<__nv_bfloat16*>(dst) = cast_value<__nv_bfloat16>(v);
            return;
        case Dtype::kFloat32:
            *reinterpret_cast<float*>(dst) = cast_value<float>(v);
            return;
        case Dtype::kFloat64:
            *reinterpret_cast<double*>(dst) = cast_value<double>(v);
            return;
    }
}

template <class From>
__global__ void cast_kernel(ElementwisePlan<2> plan, Dtype to) {
    for (int64_t i = grid_index(); i < plan.size; i += grid_stride()) {
        int64_t off[2];
        plan.offsets(i, off);
        store_cast(to, plan.base[0] + off[0], at_bytes<From>(plan.base[1], off[1]));
    }
}

// Copies raw elements of one size (a same-dtype strided copy moves bits, like memcpy).
template <class Bits>
struct CopyBits {
    static constexpr int kMaxVec = 16;
    __device__ Bits operator()(Bits v) const { return v; }
};

template <class Bits>
struct FillBits {
    static constexpr int kMaxVec = 16;
    Bits value;
    __device__ Bits operator()() const { return value; }
};

}  // namespace

void CudaKernels::copy(const Array& src, const Array& dst) {
    DeviceGuard guard{device_};
    const cudaStream_t stream = current_stream(device_);
    if (dst.size() == 0) return;
    if (src.dtype() == dst.dtype()) {
        if (src.is_contiguous() && dst.is_contiguous()) {
            check_cuda(cudaMemcpyAsync(dst.raw_data(), src.raw_data(), static_cast<size_t>(dst.nbytes()),
                                       cudaMemcpyDeviceToDevice, stream),
                       "cudaMemcpyAsync");
            return;
        }
        visit_bits(dst.itemsize(), [&]<typename Bits>() {
            launch_elementwise<CopyBits<Bits>, Bits, Bits>(stream, "copy_kernel", CopyBits<Bits>{}, {&dst, &src});
        });
        return;
    }
    const ElementwisePlan<2> plan = make_plan<2>({&dst, &src});
    visit_dtype(src.dtype(), [&]<typename From>() {
        cast_kernel<From><<<grid_for(plan.size), kThreads, 0, stream>>>(plan, dst.dtype());
    });
    check_launch("cast_kernel");
}

void CudaKernels::fill(const Array& dst, Scalar value) {
    DeviceGuard guard{device_};
    const uint64_t bits = scalar_bits(value, dst.dtype());
    visit_bits(dst.itemsize(), [&]<typename Bits>() {
        const FillBits<Bits> f{static_cast<Bits>(bits)};
        launch_elementwise<FillBits<Bits>, Bits>(current_stream(device_), "fill_kernel", f, {&dst});
    });
}

}  // namespace rensa::cuda
