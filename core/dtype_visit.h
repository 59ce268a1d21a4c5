#pragma once
// The one place where a runtime Dtype becomes a C++ element type, and where element types
// convert like numpy's astype, for every backend: core/native/dtype_dispatch.h instantiates
// it with rensa::Half / rensa::BFloat16, cuda/dtype_dispatch.cuh with __half /
// __nv_bfloat16. Backend files only.
//
// Note [Element types]: a backend names its two 16-bit float types and a Convert with
//   static float to_float(H);  template <class H> static H from_float(float);
//   template <class H> static H from_double(double);  (rounding once, as core/half.h)
// Arithmetic on the 16-bit types is done in float (Compute<T>). Conversions: to bool is
// `!= 0`; the 16-bit types read through float and are written from float or (rounding once)
// from double; floats to integers truncate, out-of-range values as core/float_to_int.h
// defines (not CUDA's saturation), so both backends give the same bits.

#include <cstdint>
#include <type_traits>
#include <utility>

#include "core/dtype.h"
#include "core/float_to_int.h"
#include "core/host_device.h"

namespace rensa {

template <class HalfT, class BFloat16T, class Convert>
struct ElementTypes {
    using Half = HalfT;
    using BFloat16 = BFloat16T;

    template <class T>
    static constexpr bool kIsHalfLike = std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;
    template <class T>
    static constexpr bool kIsFloating = kIsHalfLike<T> || std::is_floating_point_v<T>;
    // The type arithmetic on T is done in: float for the 16-bit floats, T otherwise.
    template <class T>
    using Compute = std::conditional_t<kIsHalfLike<T>, float, T>;

    //   visit(x.dtype(), [&]<typename T>() { ... T ... });
    template <class F>
    static decltype(auto) visit(Dtype dtype, F&& f) {
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
                return f.template operator()<Half>();
            case Dtype::kBFloat16:
                return f.template operator()<BFloat16>();
            case Dtype::kFloat32:
                return f.template operator()<float>();
            case Dtype::kFloat64:
                return f.template operator()<double>();
        }
        __builtin_unreachable();
    }

    // Only the four float dtypes (callers have checked that the dtype is floating).
    template <class F>
    static decltype(auto) visit_float(Dtype dtype, F&& f) {
        switch (dtype) {
            case Dtype::kFloat16:
                return f.template operator()<Half>();
            case Dtype::kBFloat16:
                return f.template operator()<BFloat16>();
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

    template <class T>
    RENSA_HOST_DEVICE static Compute<T> to_compute(T v) {
        if constexpr (kIsHalfLike<T>) {
            return Convert::to_float(v);
        } else {
            return v;
        }
    }

    // One value converted like numpy's astype (Note [Element types]).
    template <class To, class From>
    RENSA_HOST_DEVICE static To cast(From v) {
        if constexpr (std::is_same_v<To, From>) {
            return v;
        } else if constexpr (kIsHalfLike<From>) {
            return cast<To>(Convert::to_float(v));
        } else if constexpr (std::is_same_v<To, bool>) {
            return v != From{0};
        } else if constexpr (kIsHalfLike<To>) {
            if constexpr (std::is_same_v<From, float>) {
                return Convert::template from_float<To>(v);
            } else {
                return Convert::template from_double<To>(static_cast<double>(v));
            }
        } else if constexpr (std::is_integral_v<To> && std::is_floating_point_v<From>) {
            return float_to_int<To>(v);
        } else {
            return static_cast<To>(v);
        }
    }
};

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

}  // namespace rensa
