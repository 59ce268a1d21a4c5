// random on the GPU: the same numbers as the native backend for every seed, offset,
// distribution and dtype. philox4x32_block is core/random.cc's philox4x32 made
// __host__ __device__ (same key schedule, rounds, constants and word order; a CPU test
// compares the two), and each element follows Note [Random value mapping] in
// core/native/kernels_random.cc: element i of the contiguous out uses counter offset + i.
// One kernel per dtype takes the distribution as a runtime argument.

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>
#include <type_traits>

#include "core/error.h"
#include "cuda/check.h"
#include "cuda/cuda_kernels.h"
#include "cuda/device_guard.h"
#include "cuda/dtype_dispatch.cuh"
#include "cuda/launch.cuh"
#include "cuda/stream.h"

namespace rensa::cuda {
namespace {

constexpr double kTwoPi = 2.0 * std::numbers::pi;

// Philox4x32-10 constants, as core/random.cc.
constexpr uint32_t kPhiloxM0 = 0xD2511F53u;
constexpr uint32_t kPhiloxM1 = 0xCD9E8D57u;
constexpr uint32_t kPhiloxW0 = 0x9E3779B9u;
constexpr uint32_t kPhiloxW1 = 0xBB67AE85u;
constexpr int kPhiloxRounds = 10;

// core/random.cc's philox4x32: key = {low, high} words of the seed, counter = {low, high,
// 0, 0} words of the counter.
__host__ __device__ inline void philox4x32_block(uint64_t key, uint64_t counter, uint32_t (&c)[4]) {
    c[0] = static_cast<uint32_t>(counter);
    c[1] = static_cast<uint32_t>(counter >> 32);
    c[2] = 0u;
    c[3] = 0u;
    uint32_t k0 = static_cast<uint32_t>(key);
    uint32_t k1 = static_cast<uint32_t>(key >> 32);
    for (int round = 0; round < kPhiloxRounds; ++round) {
        if (round > 0) {
            k0 += kPhiloxW0;
            k1 += kPhiloxW1;
        }
        const uint64_t p0 = static_cast<uint64_t>(kPhiloxM0) * c[0];
        const uint64_t p1 = static_cast<uint64_t>(kPhiloxM1) * c[2];
        const auto hi0 = static_cast<uint32_t>(p0 >> 32), lo0 = static_cast<uint32_t>(p0);
        const auto hi1 = static_cast<uint32_t>(p1 >> 32), lo1 = static_cast<uint32_t>(p1);
        const uint32_t n0 = hi1 ^ c[1] ^ k0, n2 = hi0 ^ c[3] ^ k1;
        c[0] = n0;
        c[1] = lo1;
        c[2] = n2;
        c[3] = lo0;
    }
}

// core/random.h's uniform_float and uniform_double.
__host__ __device__ inline float philox_uniform_float(uint32_t w) {
    return static_cast<float>(w >> 8) * (1.0f / 16777216.0f);
}
__host__ __device__ inline double philox_uniform_double(uint32_t hi, uint32_t lo) {
    return static_cast<double>(((static_cast<uint64_t>(hi) << 32) | lo) >> 11) * (1.0 / 9007199254740992.0);
}

// The next value of T toward -inf (T finite, floating); host only.
template <class T>
T next_below(T v) {
    if constexpr (kIsHalfLike<T>) {
        // Sign-magnitude bits: one step down is -1 on the magnitude when positive, +1 when negative.
        using Raw = std::conditional_t<std::is_same_v<T, __half>, __half_raw, __nv_bfloat16_raw>;
        Raw raw = v;
        const uint16_t bits = raw.x;
        const bool negative = (bits & 0x8000u) != 0;
        raw.x = bits == 0x0000u ? uint16_t{0x8001u} : static_cast<uint16_t>(negative ? bits + 1u : bits - 1u);
        return T(raw);
    } else {
        return std::nextafter(v, -std::numeric_limits<T>::infinity());
    }
}

// The largest T strictly below `high` (native's largest_below): replaces uniform values
// that round up to `high`.
template <class T>
T largest_below(double high) {
    T t = cast_value<T>(high);
    while (static_cast<double>(to_compute(t)) >= high) t = next_below(t);
    return t;
}

struct RandomParams {
    RandomDistribution distribution;
    uint64_t seed, offset;
    double a, b;
    int64_t low, high;  // kRandint
};

template <class T>
__device__ T uniform_value(const uint32_t (&w)[4], const RandomParams& p, T cap) {
    T x{};
    if constexpr (std::is_same_v<T, double>) {
        x = fma(philox_uniform_double(w[0], w[1]), p.b - p.a, p.a);
    } else {
        const auto fa = static_cast<float>(p.a);
        x = cast_value<T>(fmaf(philox_uniform_float(w[0]), static_cast<float>(p.b) - fa, fa));
    }
    return static_cast<double>(to_compute(x)) >= p.b ? cap : x;
}

__device__ double normal_value(const uint32_t (&w)[4], const RandomParams& p) {
    const double u1 = 1.0 - philox_uniform_double(w[0], w[1]);
    const double u2 = philox_uniform_double(w[2], w[3]);
    const double z = sqrt(-2.0 * log(u1)) * cos(kTwoPi * u2);
    return fma(p.b, z, p.a);
}

template <class T>
__global__ void random_kernel(T* out, int64_t n, RandomParams p, T cap) {
    for (int64_t i = grid_index(); i < n; i += grid_stride()) {
        uint32_t w[4];
        philox4x32_block(p.seed, p.offset + static_cast<uint64_t>(i), w);
        switch (p.distribution) {
            case RandomDistribution::kUniform:
                if constexpr (kIsFloating<T>) out[i] = uniform_value<T>(w, p, cap);
                break;
            case RandomDistribution::kNormal:
                if constexpr (kIsFloating<T>) out[i] = cast_value<T>(normal_value(w, p));
                break;
            case RandomDistribution::kBernoulli:
                out[i] = cast_value<T>(philox_uniform_double(w[0], w[1]) < p.a ? 1 : 0);
                break;
            case RandomDistribution::kRandint: {
                const uint64_t r = (static_cast<uint64_t>(w[0]) << 32) | w[1];
                const uint64_t range = static_cast<uint64_t>(p.high) - static_cast<uint64_t>(p.low);
                const uint64_t step = __umul64hi(r, range);
                out[i] = cast_value<T>(static_cast<int64_t>(static_cast<uint64_t>(p.low) + step));
                break;
            }
        }
    }
}

}  // namespace

// The host twin of the device generator, for the CPU test that compares it with
// rensa::philox4x32 (tests/cuda/test_random.cc declares it).
std::array<uint32_t, 4> philox4x32_twin(uint64_t key, uint64_t counter) {
    uint32_t w[4];
    philox4x32_block(key, counter, w);
    return {w[0], w[1], w[2], w[3]};
}

void CudaKernels::random(const RandomArgs& args) {
    RENSA_ASSERT(args.out.is_contiguous());
    const int64_t n = args.out.size();
    if (n == 0) return;
    DeviceGuard guard{device_};
    const RandomParams params{args.distribution,
                              args.seed,
                              args.offset,
                              args.a,
                              args.b,
                              args.distribution == RandomDistribution::kRandint ? static_cast<int64_t>(args.a) : 0,
                              args.distribution == RandomDistribution::kRandint ? static_cast<int64_t>(args.b) : 0};
    visit_dtype(args.out.dtype(), [&]<typename T>() {
        const bool floating = kIsFloating<T>;
        RENSA_ASSERT(floating || (args.distribution != RandomDistribution::kUniform &&
                                  args.distribution != RandomDistribution::kNormal));
        T cap{};
        if constexpr (kIsFloating<T>) {
            if (args.distribution == RandomDistribution::kUniform) cap = largest_below<T>(args.b);
        }
        random_kernel<T><<<grid_for(n), kThreads, 0, current_stream(device_)>>>(static_cast<T*>(args.out.raw_data()), n,
                                                                                params, cap);
        check_launch("random_kernel");
    });
}

}  // namespace rensa::cuda
