#pragma once
// Typed loops shared by the elementwise kernels (see Note [Strided loops]). Each takes
// a functor on the compute type (float for float16/bfloat16) and writes Out. The
// contiguous and scalar-broadcast cases are plain loops the compiler vectorises.

#include <type_traits>

#include "core/native/dtype_dispatch.h"
#include "core/native/strided_loop.h"

namespace rensa::native {

template <class T>
inline const T& at(const char* p, int64_t stride, int64_t i) {
    return *reinterpret_cast<const T*>(p + i * stride);
}

// out = f(x) for operands planned as {out, x}.
template <class Out, class T, class F>
void map_unary(const LoopPlan<2>& plan, F f) {
    using C = ComputeT<T>;
    for_each_run(plan, [&f](std::array<char*, 2> p, const int64_t* s, int64_t n) {
        auto* out = reinterpret_cast<Out*>(p[0]);
        if (s[0] == sizeof(Out) && s[1] == sizeof(T)) {
            const auto* x = reinterpret_cast<const T*>(p[1]);
            for (int64_t i = 0; i < n; ++i) out[i] = cast_value<Out>(f(static_cast<C>(x[i])));
            return;
        }
        for (int64_t i = 0; i < n; ++i) {
            *reinterpret_cast<Out*>(p[0] + i * s[0]) = cast_value<Out>(f(static_cast<C>(at<T>(p[1], s[1], i))));
        }
    });
}

// out = f(a, b) for operands planned as {out, a, b}.
template <class Out, class T, class F>
void map_binary(const LoopPlan<3>& plan, F f) {
    using C = ComputeT<T>;
    for_each_run(plan, [&f](std::array<char*, 3> p, const int64_t* s, int64_t n) {
        const auto* a = reinterpret_cast<const T*>(p[1]);
        const auto* b = reinterpret_cast<const T*>(p[2]);
        if (s[0] == sizeof(Out)) {
            auto* out = reinterpret_cast<Out*>(p[0]);
            if (s[1] == sizeof(T) && s[2] == sizeof(T)) {
                for (int64_t i = 0; i < n; ++i) out[i] = cast_value<Out>(f(static_cast<C>(a[i]), static_cast<C>(b[i])));
                return;
            }
            if (s[1] == sizeof(T) && s[2] == 0) {
                const C bv = static_cast<C>(b[0]);
                for (int64_t i = 0; i < n; ++i) out[i] = cast_value<Out>(f(static_cast<C>(a[i]), bv));
                return;
            }
            if (s[1] == 0 && s[2] == sizeof(T)) {
                const C av = static_cast<C>(a[0]);
                for (int64_t i = 0; i < n; ++i) out[i] = cast_value<Out>(f(av, static_cast<C>(b[i])));
                return;
            }
        }
        for (int64_t i = 0; i < n; ++i) {
            *reinterpret_cast<Out*>(p[0] + i * s[0]) =
                cast_value<Out>(f(static_cast<C>(at<T>(p[1], s[1], i)), static_cast<C>(at<T>(p[2], s[2], i))));
        }
    });
}

}  // namespace rensa::native
