#pragma once
// The native backend's element types (core/dtype_visit.h, Note [Element types]): float16 and
// bfloat16 are rensa::Half and rensa::BFloat16 (core/half.h). Backend files only.
//   visit_dtype(x.dtype(), [&]<typename T>() { ... T ... });

#include <utility>

#include "core/dtype_visit.h"
#include "core/half.h"

namespace rensa::native {

struct HalfConvert {
    template <class H>
    static float to_float(H h) {
        return static_cast<float>(h);
    }
    template <class H>
    static H from_float(float v) {
        return H(v);
    }
    template <class H>
    static H from_double(double v) {
        return H(v);
    }
};
using Elements = ElementTypes<Half, BFloat16, HalfConvert>;

template <class F>
decltype(auto) visit_dtype(Dtype dtype, F&& f) {
    return Elements::visit(dtype, std::forward<F>(f));
}
template <class T>
inline constexpr bool kIsHalfLike = Elements::kIsHalfLike<T>;
template <class T>
inline constexpr bool kIsFloating = Elements::kIsFloating<T>;
template <class T>
using ComputeT = Elements::Compute<T>;

template <class To, class From>
inline To cast_value(From v) {
    return Elements::cast<To>(v);
}

}  // namespace rensa::native
