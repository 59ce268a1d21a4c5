// random: fills a contiguous array from the Philox stream. See Note [Philox streams].
//
// Note [Random value mapping]: the contract every backend reproduces. Element i of the
// contiguous `out` (row-major) takes one block w = philox4x32(seed, offset + i) and becomes:
//   kUniform   float32, float16, bfloat16: u = uniform_float(w[0]) in [0, 1),
//              x = fmaf(u, float(b) - float(a), float(a)), rounded to the dtype.
//              float64: u = uniform_double(w[0], w[1]), x = fma(u, b - a, a).
//              A value that rounds to b or above becomes the largest value of the dtype below b.
//   kNormal    u1 = 1 - uniform_double(w[0], w[1]) in (0, 1] (log never sees 0),
//              u2 = uniform_double(w[2], w[3]),
//              x = fma(b, sqrt(-2 log(u1)) * cos((2 pi) * u2), a), all in double for every
//              dtype, then rounded to the dtype.
//   kBernoulli uniform_double(w[0], w[1]) < a, as 1 or 0 of the dtype.
//   kRandint   a and b hold int64 values exactly (ops::randint checks); r = (w[0] << 32) | w[1];
//              range = uint64(b) - uint64(a) (wrapping, so any int64 range fits);
//              x = a + high 64 bits of the 128-bit product r * range (__umul64hi on CUDA):
//              every int64 range works, with a bias below range / 2^64.
// The fma calls are spelled out so neither a compiler nor nvcc can contract differently; log
// and cos of float64 may differ in the last bit between libms, which rounding a normal to
// float32 or narrower almost always hides. Each element depends only on its own counter, so
// the result is bit-identical for any thread count.

#include <cmath>
#include <concepts>
#include <cstdint>
#include <limits>
#include <numbers>

#include "core/error.h"
#include "core/native/dtype_dispatch.h"
#include "core/native/native_kernels.h"
#include "core/native/parallel.h"
#include "core/random.h"

namespace rensa::native {
namespace {

// Philox blocks cost far more than a copy, so fewer elements are worth a thread.
constexpr int64_t kRandomGrain = 4096;

// The next value of T toward -inf (T finite, floating).
template <class T>
T next_below(T v) {
    if constexpr (kIsHalfLike<T>) {
        // Sign-magnitude bits: one step down is -1 on the magnitude when positive, +1 when negative.
        const uint16_t bits = v.bits;
        if (bits == 0x0000u) return T(uint16_t{0x8001u}, FromBits{});
        const bool negative = (bits & 0x8000u) != 0;
        return T(static_cast<uint16_t>(negative ? bits + 1u : bits - 1u), FromBits{});
    } else {
        return std::nextafter(v, -std::numeric_limits<T>::infinity());
    }
}

// The largest T strictly below `high`, which replaces uniform values that round up to `high`.
template <class T>
T largest_below(double high) {
    T t = cast_value<T>(high);
    while (cast_value<double>(t) >= high) t = next_below(t);
    return t;
}

template <class T>
void fill_uniform(T* out, int64_t n, uint64_t seed, uint64_t offset, double a, double b) {
    const T cap = largest_below<T>(b);
    parallel_for(n, kRandomGrain, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) {
            const std::array<uint32_t, 4> w = philox4x32(seed, offset + static_cast<uint64_t>(i));
            T x{};
            if constexpr (std::same_as<T, double>) {
                x = std::fma(uniform_double(w[0], w[1]), b - a, a);
            } else {
                const auto fa = static_cast<float>(a);
                x = cast_value<T>(std::fma(uniform_float(w[0]), static_cast<float>(b) - fa, fa));
            }
            out[i] = cast_value<double>(x) >= b ? cap : x;
        }
    });
}

template <class T>
void fill_normal(T* out, int64_t n, uint64_t seed, uint64_t offset, double mean, double stddev) {
    parallel_for(n, kRandomGrain, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) {
            const std::array<uint32_t, 4> w = philox4x32(seed, offset + static_cast<uint64_t>(i));
            const double u1 = 1.0 - uniform_double(w[0], w[1]);
            const double u2 = uniform_double(w[2], w[3]);
            const double z = std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
            out[i] = cast_value<T>(std::fma(stddev, z, mean));
        }
    });
}

template <class T>
void fill_bernoulli(T* out, int64_t n, uint64_t seed, uint64_t offset, double p) {
    parallel_for(n, kRandomGrain, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) {
            const std::array<uint32_t, 4> w = philox4x32(seed, offset + static_cast<uint64_t>(i));
            out[i] = cast_value<T>(uniform_double(w[0], w[1]) < p ? 1 : 0);
        }
    });
}

template <class T>
void fill_randint(T* out, int64_t n, uint64_t seed, uint64_t offset, int64_t low, int64_t high) {
    const uint64_t range = static_cast<uint64_t>(high) - static_cast<uint64_t>(low);
    parallel_for(n, kRandomGrain, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) {
            const std::array<uint32_t, 4> w = philox4x32(seed, offset + static_cast<uint64_t>(i));
            const uint64_t r = (static_cast<uint64_t>(w[0]) << 32) | w[1];
            const auto step = static_cast<uint64_t>((static_cast<unsigned __int128>(r) * range) >> 64);
            out[i] = cast_value<T>(static_cast<int64_t>(static_cast<uint64_t>(low) + step));
        }
    });
}

}  // namespace

void NativeKernels::random(const RandomArgs& args) {
    RENSA_ASSERT(args.out.is_contiguous());
    const int64_t n = args.out.size();
    visit_dtype(args.out.dtype(), [&]<typename T>() {
        T* out = static_cast<T*>(args.out.raw_data());
        switch (args.distribution) {
            case RandomDistribution::kUniform:
                if constexpr (kIsFloating<T>) {
                    fill_uniform(out, n, args.seed, args.offset, args.a, args.b);
                } else {
                    RENSA_ASSERT(!"random: kUniform needs a float dtype");
                }
                return;
            case RandomDistribution::kNormal:
                if constexpr (kIsFloating<T>) {
                    fill_normal(out, n, args.seed, args.offset, args.a, args.b);
                } else {
                    RENSA_ASSERT(!"random: kNormal needs a float dtype");
                }
                return;
            case RandomDistribution::kBernoulli:
                fill_bernoulli(out, n, args.seed, args.offset, args.a);
                return;
            case RandomDistribution::kRandint:
                fill_randint(out, n, args.seed, args.offset, static_cast<int64_t>(args.a),
                             static_cast<int64_t>(args.b));
                return;
        }
    });
}

}  // namespace rensa::native
