#pragma once
// visit_dtype for device code: the one place in cuda/ where a runtime Dtype becomes a
// CUDA type (float16 -> __half, bfloat16 -> __nv_bfloat16). Arithmetic on half types is
// done in float (ComputeT), loaded and stored through to_compute / from_compute.
//   visit_dtype(x.dtype(), [&]<typename T>() { my_kernel<T><<<grid, block, 0, stream>>>(...); });
// Keep instantiations few (nvcc time is CI time): pass ops as runtime arguments to one
// kernel per dtype rather than one kernel per (op, dtype).

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

#include "core/dtype.h"
#include "core/float_to_int.h"

namespace rensa::cuda {

template <class F>
decltype(auto) visit_dtype(Dtype dtype, F&& f) {
    switch (dtype) {
        case Dtype::kBool:
            return f.template operator()<bool>();
        case Dtype::kInt8:
            return f.template operator()<int8_t>();
        case Dtype::kUInt8:
            return f.template operator()<uint8_t>();
        case Dtype::kInt32:
            return f.template operator()<int32_t>();
        case Dtype::kInt64:
            return f.template operator()<int64_t>();
        case Dtype::kFloat16:
            return f.template operator()<__half>();
        case Dtype::kBFloat16:
            return f.template operator()<__nv_bfloat16>();
        case Dtype::kFloat32:
            return f.template operator()<float>();
        case Dtype::kFloat64:
            return f.template operator()<double>();
    }
    __builtin_unreachable();
}

// Only the four float dtypes (callers have checked the dtype is floating).
template <class F>
decltype(auto) visit_float_dtype(Dtype dtype, F&& f) {
    switch (dtype) {
        case Dtype::kFloat16:
            return f.template operator()<__half>();
        case Dtype::kBFloat16:
            return f.template operator()<__nv_bfloat16>();
        case Dtype::kFloat32:
            return f.template operator()<float>();
        case Dtype::kFloat64:
            return f.template operator()<double>();
        case Dtype::kBool:
        case Dtype::kInt8:
        case Dtype::kUInt8:
        case Dtype::kInt32:
        case Dtype::kInt64:
            break;
    }
    __builtin_unreachable();
}

// The unsigned integer type of an element of `itemsize` bytes (1, 2, 4 or 8): kernels that
// only move bits (copies, take, sort's values, fill) dispatch on this, not on the dtype.
template <class F>
decltype(auto) visit_bits(int64_t itemsize, F&& f) {
    switch (itemsize) {
        case 1:
            return f.template operator()<uint8_t>();
        case 2:
            return f.template operator()<uint16_t>();
        case 4:
            return f.template operator()<uint32_t>();
        default:
            return f.template operator()<uint64_t>();
    }
}

template <class T>
inline constexpr bool kIsHalfLike = std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>;
template <class T>
inline constexpr bool kIsFloating = kIsHalfLike<T> || std::is_floating_point_v<T>;

// The type arithmetic on T is done in: float for __half/__nv_bfloat16, T otherwise.
template <class T>
using ComputeT = std::conditional_t<kIsHalfLike<T>, float, T>;

template <class T>
__host__ __device__ inline ComputeT<T> to_compute(T v) {
    if constexpr (std::is_same_v<T, __half>) {
        return __half2float(v);
    } else if constexpr (std::is_same_v<T, __nv_bfloat16>) {
        return __bfloat162float(v);
    } else {
        return v;
    }
}

// Converts like numpy's astype (see cast_value in core/native/dtype_dispatch.h): to bool
// is `!= 0`, half types round once (from float32, else from the value as a double,
// as the CPU does), floats to integers truncate, out-of-range values as
// core/float_to_int.h defines (not CUDA's saturation).
template <class To, class From>
__host__ __device__ inline To cast_value(From v) {
    if constexpr (std::is_same_v<To, From>) {
        return v;
    } else if constexpr (kIsHalfLike<From>) {
        return cast_value<To>(to_compute(v));
    } else if constexpr (std::is_same_v<To, bool>) {
        return v != From{0};
    } else if constexpr (std::is_same_v<To, __half>) {
        if constexpr (std::is_same_v<From, float>) {
            return __float2half_rn(v);
        } else {
            return __double2half(static_cast<double>(v));
        }
    } else if constexpr (std::is_same_v<To, __nv_bfloat16>) {
        if constexpr (std::is_same_v<From, float>) {
            return __float2bfloat16_rn(v);
        } else {
            return __double2bfloat16(static_cast<double>(v));
        }
    } else if constexpr (std::is_integral_v<To> && std::is_floating_point_v<From>) {
        return float_to_int<To>(v);
    } else {
        return static_cast<To>(v);
    }
}

template <class T>
__host__ __device__ inline T from_compute(ComputeT<T> v) {
    return cast_value<T>(v);
}

}  // namespace rensa::cuda
