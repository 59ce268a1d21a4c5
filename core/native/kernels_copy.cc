// copy (with casting) and fill.

#include <cstring>

#include "core/native/dtype_dispatch.h"
#include "core/native/native_kernels.h"
#include "core/native/strided_loop.h"

namespace rensa::native {

void NativeKernels::copy(const Array& src, const Array& dst) {
    const LoopPlan<2> plan = plan_loop<2>({&dst, &src});
    if (src.dtype() == dst.dtype() && is_flat(plan, {dst.itemsize(), src.itemsize()})) {
        const int64_t item = dst.itemsize();
        parallel_for(plan.size, kParallelGrain * 4, [&](int64_t b, int64_t e) {
            std::memcpy(plan.base[0] + b * item, plan.base[1] + b * item, static_cast<size_t>((e - b) * item));
        });
        return;
    }
    visit_dtype(dst.dtype(), [&]<typename To>() {
        visit_dtype(src.dtype(), [&]<typename From>() {
            for_each_run(plan, [](std::array<char*, 2> p, const int64_t* s, int64_t n) {
                if (s[0] == sizeof(To) && s[1] == sizeof(From)) {
                    auto* out = reinterpret_cast<To*>(p[0]);
                    const auto* in = reinterpret_cast<const From*>(p[1]);
                    for (int64_t i = 0; i < n; ++i) out[i] = cast_value<To>(in[i]);
                    return;
                }
                for (int64_t i = 0; i < n; ++i) {
                    *reinterpret_cast<To*>(p[0] + i * s[0]) =
                        cast_value<To>(*reinterpret_cast<const From*>(p[1] + i * s[1]));
                }
            });
        });
    });
}

void NativeKernels::fill(const Array& dst, Scalar value) {
    const LoopPlan<1> plan = plan_loop<1>({&dst});
    visit_dtype(dst.dtype(), [&]<typename T>() {
        const T v =
            value.kind() == ScalarKind::kFloat ? cast_value<T>(value.to_double()) : cast_value<T>(value.to_int());
        for_each_run(plan, [v](std::array<char*, 1> p, const int64_t* s, int64_t n) {
            if (s[0] == sizeof(T)) {
                T* out = reinterpret_cast<T*>(p[0]);
                for (int64_t i = 0; i < n; ++i) out[i] = v;
                return;
            }
            for (int64_t i = 0; i < n; ++i) *reinterpret_cast<T*>(p[0] + i * s[0]) = v;
        });
    });
}

}  // namespace rensa::native
