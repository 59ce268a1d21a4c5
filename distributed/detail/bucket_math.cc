#include "distributed/detail/bucket_math.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <vector>

#include "core/error.h"
#include "core/half.h"

#if defined(__F16C__)
#include <immintrin.h>
#endif

namespace rensa::distributed::detail {
namespace {

// Elements per block: the block's sums live in L1 between the loads and the stores.
constexpr int64_t kBlock = 1024;

template <class T>
struct ComputeOf {
    using type = float;
};
template <>
struct ComputeOf<double> {
    using type = double;
};
template <class T>
using C = typename ComputeOf<T>::type;

// dst[i] = src[i] in the compute type.
template <class T>
void load(const T* src, C<T>* dst, int64_t n) {
    for (int64_t i = 0; i < n; ++i) dst[i] = static_cast<C<T>>(src[i]);
}

template <>
void load<BFloat16>(const BFloat16* src, float* dst, int64_t n) {
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) dst[i] = std::bit_cast<float>(static_cast<uint32_t>(src[i].bits) << 16);
}

#if defined(__F16C__)
template <>
void load<Half>(const Half* src, float* dst, int64_t n) {
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i));
        _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(h));
    }
    for (; i < n; ++i) dst[i] = static_cast<float>(src[i]);
}
#endif

// dst[i] = src[i] rounded to T (nearest even).
template <class T>
void store(const C<T>* src, T* dst, int64_t n) {
    for (int64_t i = 0; i < n; ++i) dst[i] = T(src[i]);
}

template <>
void store<BFloat16>(const float* src, BFloat16* dst, int64_t n) {
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) {
        const auto f = std::bit_cast<uint32_t>(src[i]);
        const uint32_t rounded = (f + 0x7fffu + ((f >> 16) & 1u)) >> 16;
        const uint32_t quiet_nan = (f >> 16) | 0x40u;
        dst[i].bits = static_cast<uint16_t>((f & 0x7fffffffu) > 0x7f800000u ? quiet_nan : rounded);
    }
}

#if defined(__F16C__)
template <>
void store<Half>(const float* src, Half* dst, int64_t n) {
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m128i h = _mm256_cvtps_ph(_mm256_loadu_ps(src + i), _MM_FROUND_TO_NEAREST_INT);
        _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i), h);
    }
    for (; i < n; ++i) dst[i] = Half(src[i]);
}
#endif

template <class T>
void sum_typed(std::span<const void* const> srcs, std::span<void* const> dsts, int64_t count, double scale) {
    using CT = C<T>;
    const auto s = static_cast<CT>(scale);
    CT acc[kBlock], part[kBlock];
    for (int64_t begin = 0; begin < count; begin += kBlock) {
        const int64_t n = std::min(kBlock, count - begin);
        load(static_cast<const T*>(srcs[0]) + begin, acc, n);
        for (size_t q = 1; q < srcs.size(); ++q) {
            load(static_cast<const T*>(srcs[q]) + begin, part, n);
#pragma omp simd
            for (int64_t i = 0; i < n; ++i) acc[i] += part[i];
        }
        if (s != CT{1}) {
#pragma omp simd
            for (int64_t i = 0; i < n; ++i) acc[i] *= s;
        }
        for (void* dst : dsts) store(acc, static_cast<T*>(dst) + begin, n);
    }
}

template <class T>
void ring_typed(void* own, const void* in, int64_t count, double scale, bool first) {
    using CT = C<T>;
    const auto s = static_cast<CT>(scale);
    CT mine[kBlock], theirs[kBlock];
    for (int64_t begin = 0; begin < count; begin += kBlock) {
        const int64_t n = std::min(kBlock, count - begin);
        T* const out = static_cast<T*>(own) + begin;
        load(out, mine, n);
        load(static_cast<const T*>(in) + begin, theirs, n);
        if (first) {
#pragma omp simd
            for (int64_t i = 0; i < n; ++i) mine[i] = (mine[i] + theirs[i]) * s;
        } else {
#pragma omp simd
            for (int64_t i = 0; i < n; ++i) mine[i] = mine[i] * s + theirs[i];
        }
        store(mine, out, n);
    }
}

template <class F>
void visit_float(Dtype dtype, const char* what, F&& f) {
    switch (dtype) {
        case Dtype::kFloat16:
            return f(Half{});
        case Dtype::kBFloat16:
            return f(BFloat16{});
        case Dtype::kFloat32:
            return f(float{});
        case Dtype::kFloat64:
            return f(double{});
        case Dtype::kBool:
        case Dtype::kInt8:
        case Dtype::kUInt8:
        case Dtype::kInt32:
        case Dtype::kInt64:
            break;
    }
    RENSA_THROW(DtypeError, what, ": gradient buckets hold floating-point dtypes, got ", dtype);
}

}  // namespace

void sum_into(Dtype dtype, std::span<const void* const> srcs, std::span<void* const> dsts, int64_t count,
              double scale) {
    RENSA_ASSERT(!srcs.empty());
    visit_float(dtype, "bucket reduction", [&]<class T>(T) { sum_typed<T>(srcs, dsts, count, scale); });
}

bool convert(Dtype src_dtype, const void* src, Dtype dst_dtype, void* dst, int64_t count) {
    const bool half_dst = dst_dtype == Dtype::kFloat16 || dst_dtype == Dtype::kBFloat16;
    const bool half_src = src_dtype == Dtype::kFloat16 || src_dtype == Dtype::kBFloat16;
    if (src_dtype == Dtype::kFloat32 && half_dst) {
        const auto* in = static_cast<const float*>(src);
        if (dst_dtype == Dtype::kFloat16) {
            store(in, static_cast<Half*>(dst), count);
        } else {
            store(in, static_cast<BFloat16*>(dst), count);
        }
        return true;
    }
    if (half_src && dst_dtype == Dtype::kFloat32) {
        auto* out = static_cast<float*>(dst);
        if (src_dtype == Dtype::kFloat16) {
            load(static_cast<const Half*>(src), out, count);
        } else {
            load(static_cast<const BFloat16*>(src), out, count);
        }
        return true;
    }
    return false;
}

void ring_accumulate(Dtype dtype, void* own, const void* in, int64_t count, double scale, bool first) {
    visit_float(dtype, "bucket ring step", [&]<class T>(T) { ring_typed<T>(own, in, count, scale, first); });
}

}  // namespace rensa::distributed::detail
