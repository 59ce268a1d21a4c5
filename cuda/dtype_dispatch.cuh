#pragma once
// The CUDA backend's element types (core/dtype_visit.h, Note [Element types]): float16 ->
// __half, bfloat16 -> __nv_bfloat16. Arithmetic on half types is done in float (ComputeT),
// loaded and stored through to_compute / from_compute.
//   visit_dtype(x.dtype(), [&]<typename T>() { my_kernel<T><<<grid, block, 0, stream>>>(...); });
// Keep instantiations few (nvcc time is CI time): pass ops as runtime arguments to one
// kernel per dtype rather than one kernel per (op, dtype).

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <type_traits>
#include <utility>

#include "core/dtype_visit.h"

namespace rensa::cuda {

struct HalfConvert {
    __host__ __device__ static float to_float(__half h) { return __half2float(h); }
    __host__ __device__ static float to_float(__nv_bfloat16 h) { return __bfloat162float(h); }
    template <class H>
    __host__ __device__ static H from_float(float v) {
        if constexpr (std::is_same_v<H, __half>) {
            return __float2half_rn(v);
        } else {
            return __float2bfloat16_rn(v);
        }
    }
    template <class H>
    __host__ __device__ static H from_double(double v) {
        if constexpr (std::is_same_v<H, __half>) {
            return __double2half(v);
        } else {
            return __double2bfloat16(v);
        }
    }
};
using Elements = ElementTypes<__half, __nv_bfloat16, HalfConvert>;

template <class F>
decltype(auto) visit_dtype(Dtype dtype, F&& f) {
    return Elements::visit(dtype, std::forward<F>(f));
}
template <class F>
decltype(auto) visit_float_dtype(Dtype dtype, F&& f) {
    return Elements::visit_float(dtype, std::forward<F>(f));
}
template <class T>
inline constexpr bool kIsHalfLike = Elements::kIsHalfLike<T>;
template <class T>
inline constexpr bool kIsFloating = Elements::kIsFloating<T>;
template <class T>
using ComputeT = Elements::Compute<T>;

template <class T>
__host__ __device__ inline ComputeT<T> to_compute(T v) {
    return Elements::to_compute(v);
}
template <class To, class From>
__host__ __device__ inline To cast_value(From v) {
    return Elements::cast<To>(v);
}
template <class T>
__host__ __device__ inline T from_compute(ComputeT<T> v) {
    return cast_value<T>(v);
}

}  // namespace rensa::cuda
