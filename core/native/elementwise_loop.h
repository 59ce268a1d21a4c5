#pragma once
// Typed loops shared by the elementwise kernels (see Note [Strided loops]). Each takes
// a functor on the compute type (float for float16/bfloat16) and writes Out. The
// contiguous and scalar-broadcast cases are plain loops the compiler vectorises.

#if defined(__AVX__)
#include <immintrin.h>
#endif

#include <algorithm>
#include <cstring>
#include <type_traits>

#include "core/native/dtype_dispatch.h"
#include "core/native/strided_loop.h"

namespace rensa::native {

// Outputs at least this large bypass the cache (see Note [Streaming stores]). 32 MiB, not
// less: in a training step a layer's output (10 MB for relu on (100, 32, 28, 28) float32)
// is read again by the next op or by backward; with an 8 MiB threshold it went to DRAM and
// relu forward+backward took 2.15 ms against 1.27 ms now (benchmarks/compare, 2 threads).
inline constexpr int64_t kStreamingBytes = int64_t{32} << 20;

// Note [Streaming stores]: a large elementwise result is written once and not read
// soon, so normal stores waste bandwidth reading each line before overwriting it.
// Such loops compute a block into an L1-resident buffer and copy it out with
// non-temporal stores, which is what makes `add` run at memcpy's bandwidth.
#if defined(__AVX__)
template <class Out, class Compute>
void write_streaming(Out* out, int64_t n, Compute compute) {
    constexpr int64_t kBlock = 2048 / sizeof(Out);
    alignas(64) Out buffer[kBlock];
    int64_t i = 0;
    for (; i + kBlock <= n; i += kBlock) {
        compute(buffer, i, kBlock);
        auto* dst = reinterpret_cast<__m256i*>(out + i);
        const auto* src = reinterpret_cast<const __m256i*>(buffer);
        for (size_t k = 0; k < kBlock * sizeof(Out) / 32; ++k) _mm256_stream_si256(dst + k, _mm256_load_si256(src + k));
    }
    _mm_sfence();
    if (i < n) compute(out + i, i, n - i);
}
#endif

// Runs compute(dst, first, count) over n contiguous outputs, streaming when large and aligned.
template <class Out, class Compute>
void write_contiguous(Out* out, int64_t n, [[maybe_unused]] bool large, Compute compute) {
#if defined(__AVX__)
    if (large && reinterpret_cast<uintptr_t>(out) % 32 == 0) {
        write_streaming(out, n, compute);
        return;
    }
#endif
    compute(out, 0, n);
}

template <class T>
inline const T& at(const char* p, int64_t stride, int64_t i) {
    return *reinterpret_cast<const T*>(p + i * stride);
}

// out = f(x) for operands planned as {out, x}.
template <class Out, class T, class F>
void map_unary(const LoopPlan<2>& plan, F f) {
    using C = ComputeT<T>;
    const bool large = plan.size * static_cast<int64_t>(sizeof(Out)) >= kStreamingBytes;
    for_each_run(plan, [&f, large](std::array<char*, 2> p, const int64_t* s, int64_t n) {
        auto* out = reinterpret_cast<Out*>(p[0]);
        if (s[0] == sizeof(Out) && s[1] == sizeof(T)) {
            const auto* x = reinterpret_cast<const T*>(p[1]);
            write_contiguous(out, n, large, [&](Out* dst, int64_t first, int64_t count) {
                for (int64_t i = 0; i < count; ++i) dst[i] = cast_value<Out>(f(static_cast<C>(x[first + i])));
            });
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
    const bool large = plan.size * static_cast<int64_t>(sizeof(Out)) >= kStreamingBytes;
    for_each_run(plan, [&f, large](std::array<char*, 3> p, const int64_t* s, int64_t n) {
        const auto* a = reinterpret_cast<const T*>(p[1]);
        const auto* b = reinterpret_cast<const T*>(p[2]);
        if (s[0] == sizeof(Out)) {
            auto* out = reinterpret_cast<Out*>(p[0]);
            if (s[1] == sizeof(T) && s[2] == sizeof(T)) {
                write_contiguous(out, n, large, [&](Out* dst, int64_t first, int64_t count) {
                    const T* x = a + first;
                    const T* y = b + first;
                    for (int64_t i = 0; i < count; ++i)
                        dst[i] = cast_value<Out>(f(static_cast<C>(x[i]), static_cast<C>(y[i])));
                });
                return;
            }
            if (s[1] == sizeof(T) && s[2] == 0) {
                const C bv = static_cast<C>(b[0]);
                write_contiguous(out, n, large, [&](Out* dst, int64_t first, int64_t count) {
                    const T* x = a + first;
                    for (int64_t i = 0; i < count; ++i) dst[i] = cast_value<Out>(f(static_cast<C>(x[i]), bv));
                });
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
