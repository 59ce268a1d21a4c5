// where: out = cond ? a : b.

#include "core/native/dtype_dispatch.h"
#include "core/native/native_kernels.h"
#include "core/native/strided_loop.h"

namespace rensa::native {

void NativeKernels::where(const Array& cond, const Array& a, const Array& b, const Array& out) {
    const LoopPlan<4> plan = plan_loop<4>({&out, &cond, &a, &b});
    visit_dtype(out.dtype(), [&]<typename T>() {
        for_each_run(plan, [](std::array<char*, 4> p, const int64_t* s, int64_t n) {
            for (int64_t i = 0; i < n; ++i) {
                const bool c = *reinterpret_cast<const bool*>(p[1] + i * s[1]);
                *reinterpret_cast<T*>(p[0] + i * s[0]) = *reinterpret_cast<const T*>(p[c ? 2 : 3] + i * s[c ? 2 : 3]);
            }
        });
    });
}

}  // namespace rensa::native
