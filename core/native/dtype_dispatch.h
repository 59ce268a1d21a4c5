#pragma once
// visit_dtype: the one place where a runtime Dtype becomes a C++ type. Backend files only.
//   visit_dtype(x.dtype(), [&]<typename T>() { ... T ... });

#include <concepts>
#include <type_traits>

#include "core/dtype.h"
#include "core/float_to_int.h"
#include "core/half.h"

namespace rensa::native {

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

template <class T>
inline constexpr bool kIsHalfLike = std::same_as<T, Half> || std::same_as<T, BFloat16>;

// The type arithmetic on T is done in: float for float16/bfloat16, T otherwise.
template <class T>
using ComputeT = std::conditional_t<kIsHalfLike<T>, float, T>;

template <class T>
inline constexpr bool kIsFloating = kIsHalfLike<T> || std::floating_point<T>;

}  // namespace rensa::native

namespace rensa::native {

// Converts one value like numpy's astype: to bool is `!= 0`; float16/bfloat16 read
// through float and are written from float or (rounding once) from double; floats to
// integers truncate, out-of-range values as core/float_to_int.h defines.
template <class To, class From>
inline To cast_value(From v) {
    if constexpr (std::same_as<To, From>) {
        return v;
    } else if constexpr (std::same_as<To, bool>) {
        return static_cast<ComputeT<From>>(v) != ComputeT<From>{0};
    } else if constexpr (kIsHalfLike<From>) {
        return cast_value<To>(static_cast<float>(v));
    } else if constexpr (kIsHalfLike<To> && std::same_as<From, float>) {
        return To(v);
    } else if constexpr (kIsHalfLike<To>) {
        return To(static_cast<double>(v));
    } else if constexpr (std::integral<To> && std::floating_point<From>) {
        return float_to_int<To>(v);
    } else {
        return static_cast<To>(v);
    }
}

}  // namespace rensa::native
