// Pooling kernels: max and average pooling over 1 to 3 spatial dims, and their backward.
// Every (n, c) plane is independent, so planes are split over threads (parallel_for) and
// each thread walks its planes window by window; results never depend on the thread
// count. Spatial dims are padded to three with leading unit dims, so one loop serves 1-,
// 2- and 3-D. The window bounds (clipped to the input) are computed once per dim.
// Inputs are read through element strides (the strided fallback costs only the index
// arithmetic); a contiguous 2-D plane with 2x2 stride-2 windows fully inside the input
// (the usual CNN layer) takes a branchless path, with AVX-512 for float where the CPU has
// it (a random input makes the max's branches unpredictable: the branchy loop ran ~10x
// slower). float16/bfloat16 compute in float32; their backward accumulates a plane in a
// float32 buffer.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "core/error.h"
#include "core/native/dtype_dispatch.h"
#include "core/native/native_kernels.h"
#include "core/native/parallel.h"
#include "core/window_geometry.h"

#if defined(__AVX512F__)
#include <immintrin.h>
#endif

namespace rensa::native {
namespace {

constexpr int kDims = kWindowDims;

// The window geometry (core/window_geometry.h) plus each dim's window bounds per output.
struct Geometry : WindowGeometry {
    std::vector<int64_t> lo[kDims], hi[kDims];  // window [lo, hi) clipped to the input, per output
    int64_t in_plane = 1, out_plane = 1, window = 1, planes = 0, channels = 1;
};

Geometry make_geometry(const Shape& x_shape, const Shape& y_shape, const Shape& ksize, const Shape& stride,
                       const Shape& pad) {
    Geometry g;
    static_cast<WindowGeometry&>(g) = WindowGeometry::pooling(x_shape, y_shape, ksize, stride, pad);
    for (int d = 0; d < kDims; ++d) {
        for (int64_t o = 0; o < g.out[d]; ++o) {
            int64_t lo = 0, hi = 0;
            g.window_bounds(d, o, lo, hi);
            g.lo[d].push_back(lo);
            g.hi[d].push_back(hi);
        }
    }
    g.in_plane = g.in_size();
    g.out_plane = g.out_size();
    g.window = g.k_size();
    g.channels = x_shape[1];
    g.planes = x_shape[0] * x_shape[1];
    return g;
}

// Element access to an (n, c, *spatial) array of any strides, padded to three spatial dims.
template <class T>
struct PlaneView {
    T* data;
    int64_t n_stride, c_stride, sp[kDims] = {0, 0, 0};
    int64_t channels;

    PlaneView(const Array& a, int64_t channels_) : data{static_cast<T*>(a.raw_data())}, channels{channels_} {
        const int64_t item = a.itemsize();
        n_stride = a.strides()[0] / item;
        c_stride = a.strides()[1] / item;
        const int shift = kDims - (a.ndim() - 2);
        for (int i = 2; i < a.ndim(); ++i) sp[shift + i - 2] = a.strides()[i] / item;
    }
    T* plane(int64_t p) const { return data + (p / channels) * n_stride + (p % channels) * c_stride; }
    int64_t offset(int64_t z, int64_t y, int64_t x) const { return z * sp[0] + y * sp[1] + x * sp[2]; }
    bool contiguous_2d(const Geometry& g) const { return sp[2] == 1 && sp[1] == g.in[2]; }
};

// Calls fn(p) for every plane, planes split over threads when the work is large enough.
template <class Fn>
void for_each_plane(const Geometry& g, Fn&& fn) {
    const int64_t work = std::max<int64_t>(1, g.in_plane + g.out_plane * g.window);
    parallel_for(g.planes, std::max<int64_t>(1, kParallelGrain / work), [&](int64_t begin, int64_t end) {
        for (int64_t p = begin; p < end; ++p) fn(p);
    });
}

template <class C>
inline bool takes_max(C v, C best) {
    return v > best || v != v;  // NaN propagates
}

// Max of one window: the value and its flat index in the plane (-1 for an empty window).
template <class T, class C = ComputeT<T>>
inline void window_max(const T* x, const PlaneView<const T>& v, const Geometry& g, int64_t oz, int64_t oy, int64_t ox,
                       C& best, int64_t& best_index) {
    const int64_t z0 = g.lo[0][oz], z1 = g.hi[0][oz], y0 = g.lo[1][oy], y1 = g.hi[1][oy];
    const int64_t x0 = g.lo[2][ox], x1 = g.hi[2][ox];
    best = -std::numeric_limits<C>::infinity();
    best_index = (z0 < z1 && y0 < y1 && x0 < x1) ? (z0 * g.in[1] + y0) * g.in[2] + x0 : -1;
    for (int64_t z = z0; z < z1; ++z) {
        for (int64_t y = y0; y < y1; ++y) {
            const T* row = x + v.offset(z, y, 0);
            const int64_t row_start = (z * g.in[1] + y) * g.in[2];
            for (int64_t i = x0; i < x1; ++i) {
                const C value = static_cast<C>(row[i * v.sp[2]]);
                const bool take = takes_max(value, best);
                best_index = take ? row_start + i : best_index;
                best = take ? value : best;
            }
        }
    }
}

#if defined(__AVX512F__)
// takes_max on 16 lanes: v > m, or v is NaN.
inline __mmask16 takes_max16(__m512 v, __m512 m) {
    return _mm512_cmp_ps_mask(v, m, _CMP_GT_OQ) | _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
}

// One output row of the 2x2 path (float): 16 outputs per step, the tail masked, so
// short rows (28 -> 14) need no scalar epilogue. Indices are plane positions
// (base = the row pair's first position); the plane holds fewer than 2^31 elements.
void max_row_2x2_avx512(const float* r0, const float* r1, int64_t ow, int64_t w, int64_t base, float* y,
                        int64_t* indices) {
    const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    const __m512i odd = _mm512_add_epi32(even, _mm512_set1_epi32(1));
    const __m512i w0 = _mm512_set1_epi32(static_cast<int32_t>(w)), w1 = _mm512_set1_epi32(static_cast<int32_t>(w + 1));
    const __m512i one = _mm512_set1_epi32(1), zero = _mm512_setzero_si512();
    for (int64_t ox = 0; ox < ow; ox += 16) {
        const int n = static_cast<int>(std::min<int64_t>(16, ow - ox));
        const auto mask = static_cast<__mmask16>((1u << n) - 1);
        const auto lo = static_cast<__mmask16>(n >= 8 ? 0xFFFFu : (1u << (2 * n)) - 1);
        const auto hi = static_cast<__mmask16>(n > 8 ? (1u << (2 * n - 16)) - 1 : 0u);
        const __m512 p0 = _mm512_maskz_loadu_ps(lo, r0 + 2 * ox), p1 = _mm512_maskz_loadu_ps(hi, r0 + 2 * ox + 16);
        const __m512 q0 = _mm512_maskz_loadu_ps(lo, r1 + 2 * ox), q1 = _mm512_maskz_loadu_ps(hi, r1 + 2 * ox + 16);
        const __m512 a = _mm512_permutex2var_ps(p0, even, p1), b = _mm512_permutex2var_ps(p0, odd, p1);
        const __m512 c = _mm512_permutex2var_ps(q0, even, q1), d = _mm512_permutex2var_ps(q0, odd, q1);
        const __mmask16 tb = takes_max16(b, a), td = takes_max16(d, c);
        const __m512 ab = _mm512_mask_blend_ps(tb, a, b), cd = _mm512_mask_blend_ps(td, c, d);
        const __mmask16 tt = takes_max16(cd, ab);
        _mm512_mask_storeu_ps(y + ox, mask, _mm512_mask_blend_ps(tt, ab, cd));
        if (indices == nullptr) continue;
        const __m512i off =
            _mm512_mask_blend_epi32(tt, _mm512_mask_blend_epi32(tb, zero, one), _mm512_mask_blend_epi32(td, w0, w1));
        const __m512i at =
            _mm512_add_epi32(_mm512_add_epi32(even, _mm512_set1_epi32(static_cast<int32_t>(2 * ox))), off);
        const __m512i b64 = _mm512_set1_epi64(base);
        _mm512_mask_storeu_epi64(
            indices + ox, static_cast<__mmask8>(mask & 0xFF),
            _mm512_add_epi64(b64, _mm512_maskz_cvtepi32_epi64(0xFF, _mm512_maskz_extracti64x4_epi64(0xFF, at, 0))));
        _mm512_mask_storeu_epi64(
            indices + ox + 8, static_cast<__mmask8>(mask >> 8),
            _mm512_add_epi64(b64, _mm512_maskz_cvtepi32_epi64(0xFF, _mm512_maskz_extracti64x4_epi64(0xFF, at, 1))));
    }
}

// Note [bfloat16 2x2 max pooling]: a bfloat16 row pair goes through the float row above:
// widened exactly (a bfloat16 is the high half of a float), and the maxima narrowed back by
// taking the high half, exact too since each is one of the inputs (a NaN stays a NaN).
// Both passes vectorise; the generic loop, which rounds each result back from float, did
// not, and took 29% of a mixed_bf16 ConvNet step (perf, 1 thread).
void max_row_2x2_avx512(const BFloat16* r0, const BFloat16* r1, int64_t ow, int64_t w, int64_t base, BFloat16* y,
                        int64_t* indices) {
    thread_local std::vector<uint32_t> buffer;
    const int64_t n = 2 * ow;
    buffer.resize(static_cast<size_t>(2 * n + ow));
    uint32_t* const f0 = buffer.data();
    uint32_t* const f1 = f0 + n;
    uint32_t* const out = f1 + n;
    for (int64_t i = 0; i < n; ++i) {
        f0[i] = static_cast<uint32_t>(r0[i].bits) << 16;
        f1[i] = static_cast<uint32_t>(r1[i].bits) << 16;
    }
    max_row_2x2_avx512(reinterpret_cast<const float*>(f0), reinterpret_cast<const float*>(f1), ow, w, base,
                       reinterpret_cast<float*>(out), indices);
    for (int64_t i = 0; i < ow; ++i) y[i] = BFloat16(static_cast<uint16_t>(out[i] >> 16), FromBits{});
}
#endif

// 2x2 windows with stride 2 and no padding on a contiguous 2-D plane whose windows all
// lie inside: branchless selects without bounds (the compiler vectorises the C++ loops;
// float rows use AVX-512 where available).
template <class T, class C = ComputeT<T>>
void max_plane_2x2(const T* x, const Geometry& g, T* y, int64_t* indices) {
    const int64_t w = g.in[2], ow = g.out[2];
    for (int64_t oy = 0; oy < g.out[1]; ++oy) {
        const T* r0 = x + 2 * oy * w;
        const T* r1 = r0 + w;
#if defined(__AVX512F__)
        if constexpr (std::is_same_v<T, float> || std::is_same_v<T, BFloat16>) {
            if (g.in_plane < (int64_t{1} << 30)) {
                max_row_2x2_avx512(r0, r1, ow, w, 2 * oy * w, y + oy * ow, indices ? indices + oy * ow : nullptr);
                continue;
            }
        }
#endif
        T* yr = y + oy * ow;
        for (int64_t ox = 0; ox < ow; ++ox) {
            const C a = r0[2 * ox], b = r0[2 * ox + 1], c = r1[2 * ox], d = r1[2 * ox + 1];
            const C ab = takes_max(b, a) ? b : a;
            const C cd = takes_max(d, c) ? d : c;
            yr[ox] = static_cast<T>(takes_max(cd, ab) ? cd : ab);
        }
        if (indices == nullptr) continue;
        int64_t* ir = indices + oy * ow;
        const int64_t base = 2 * oy * w;
        for (int64_t ox = 0; ox < ow; ++ox) {
            const C a = r0[2 * ox], b = r0[2 * ox + 1], c = r1[2 * ox], d = r1[2 * ox + 1];
            const C ab = takes_max(b, a) ? b : a;
            const C cd = takes_max(d, c) ? d : c;
            const int64_t top = takes_max(b, a) ? 1 : 0;
            const int64_t bottom = takes_max(d, c) ? w + 1 : w;
            ir[ox] = base + 2 * ox + (takes_max(cd, ab) ? bottom : top);
        }
    }
}

bool is_2x2_interior(const Geometry& g) {
    return g.k[0] == 1 && g.in[0] == 1 && g.k[1] == 2 && g.k[2] == 2 && g.stride[1] == 2 && g.stride[2] == 2 &&
           g.pad[1] == 0 && g.pad[2] == 0 && 2 * g.out[1] <= g.in[1] && 2 * g.out[2] <= g.in[2];
}

template <class T>
void max_pool(const PoolArgs& a, const Geometry& g) {
    using C = ComputeT<T>;
    const PlaneView<const T> xv(a.x, g.channels);
    T* y = static_cast<T*>(a.y.raw_data());
    int64_t* indices = a.indices.defined() ? static_cast<int64_t*>(a.indices.raw_data()) : nullptr;
    const bool fast = is_2x2_interior(g) && xv.contiguous_2d(g);
    for_each_plane(g, [&](int64_t p) {
        const T* x = xv.plane(p);
        T* yp = y + p * g.out_plane;
        int64_t* ip = indices != nullptr ? indices + p * g.out_plane : nullptr;
        if (fast) return max_plane_2x2<T>(x, g, yp, ip);
        int64_t o = 0;
        for (int64_t oz = 0; oz < g.out[0]; ++oz) {
            for (int64_t oy = 0; oy < g.out[1]; ++oy) {
                for (int64_t ox = 0; ox < g.out[2]; ++ox, ++o) {
                    C best;
                    int64_t at;
                    window_max<T>(x, xv, g, oz, oy, ox, best, at);
                    yp[o] = static_cast<T>(best);
                    if (ip != nullptr) ip[o] = at;
                }
            }
        }
    });
}

// The divisor of window (oz, oy, ox); 0 for an empty window in kAverageExcludePad.
inline int64_t divisor(PoolMode mode, const Geometry& g, int64_t oz, int64_t oy, int64_t ox) {
    if (mode == PoolMode::kAverage) return g.window;
    return (g.hi[0][oz] - g.lo[0][oz]) * (g.hi[1][oy] - g.lo[1][oy]) * (g.hi[2][ox] - g.lo[2][ox]);
}

template <class T>
void average_pool(const PoolArgs& a, const Geometry& g) {
    using C = ComputeT<T>;
    const PlaneView<const T> xv(a.x, g.channels);
    T* y = static_cast<T*>(a.y.raw_data());
    for_each_plane(g, [&](int64_t p) {
        const T* x = xv.plane(p);
        T* yp = y + p * g.out_plane;
        int64_t o = 0;
        for (int64_t oz = 0; oz < g.out[0]; ++oz) {
            for (int64_t oy = 0; oy < g.out[1]; ++oy) {
                for (int64_t ox = 0; ox < g.out[2]; ++ox, ++o) {
                    C sum = 0;
                    for (int64_t z = g.lo[0][oz]; z < g.hi[0][oz]; ++z) {
                        for (int64_t yy = g.lo[1][oy]; yy < g.hi[1][oy]; ++yy) {
                            const T* row = x + xv.offset(z, yy, 0);
                            for (int64_t i = g.lo[2][ox]; i < g.hi[2][ox]; ++i)
                                sum += static_cast<C>(row[i * xv.sp[2]]);
                        }
                    }
                    const int64_t n = divisor(a.mode, g, oz, oy, ox);
                    yp[o] = static_cast<T>(n > 0 ? sum / static_cast<C>(n) : C{0});
                }
            }
        }
    });
}

// The plane of gx to accumulate into: gx itself, or a float32 buffer for float16/bfloat16.
template <class T>
struct GradPlane {
    using C = ComputeT<T>;
    std::vector<C> buffer;
    C* begin(T* gx, int64_t size) {
        if constexpr (std::is_same_v<C, T>) {
            std::fill(gx, gx + size, T{0});
            return gx;
        } else {
            buffer.assign(static_cast<size_t>(size), C{0});
            return buffer.data();
        }
    }
    void end(T* gx, int64_t size) {
        if constexpr (!std::is_same_v<C, T>) {
            for (int64_t i = 0; i < size; ++i) gx[i] = static_cast<T>(buffer[static_cast<size_t>(i)]);
        }
    }
};

template <class T>
void max_pool_backward(const PoolBackwardArgs& a, const Geometry& g) {
    using C = ComputeT<T>;
    const PlaneView<const T> gyv(a.gy, g.channels);
    const PlaneView<const int64_t> iv(a.indices, g.channels);
    T* gx = static_cast<T*>(a.gx.raw_data());
    const bool contiguous = a.gy.is_contiguous() && a.indices.is_contiguous();
    for_each_plane(g, [&](int64_t p) {
        GradPlane<T> grad;
        T* gxp = gx + p * g.in_plane;
        C* acc = grad.begin(gxp, g.in_plane);
        const T* gy = gyv.plane(p);
        const int64_t* idx = iv.plane(p);
        if (contiguous) {
            for (int64_t o = 0; o < g.out_plane; ++o) {
                const int64_t at = idx[o];
                if (static_cast<uint64_t>(at) < static_cast<uint64_t>(g.in_plane)) acc[at] += static_cast<C>(gy[o]);
            }
        } else {
            for (int64_t oz = 0; oz < g.out[0]; ++oz) {
                for (int64_t oy = 0; oy < g.out[1]; ++oy) {
                    for (int64_t ox = 0; ox < g.out[2]; ++ox) {
                        const int64_t at = idx[iv.offset(oz, oy, ox)];
                        const C v = static_cast<C>(gy[gyv.offset(oz, oy, ox)]);
                        if (static_cast<uint64_t>(at) < static_cast<uint64_t>(g.in_plane)) acc[at] += v;
                    }
                }
            }
        }
        grad.end(gxp, g.in_plane);
    });
}

template <class T>
void average_pool_backward(const PoolBackwardArgs& a, const Geometry& g) {
    using C = ComputeT<T>;
    const PlaneView<const T> gyv(a.gy, g.channels);
    T* gx = static_cast<T*>(a.gx.raw_data());
    for_each_plane(g, [&](int64_t p) {
        GradPlane<T> grad;
        T* gxp = gx + p * g.in_plane;
        C* acc = grad.begin(gxp, g.in_plane);
        const T* gy = gyv.plane(p);
        for (int64_t oz = 0; oz < g.out[0]; ++oz) {
            for (int64_t oy = 0; oy < g.out[1]; ++oy) {
                for (int64_t ox = 0; ox < g.out[2]; ++ox) {
                    const int64_t n = divisor(a.mode, g, oz, oy, ox);
                    if (n == 0) continue;
                    const C v = static_cast<C>(gy[gyv.offset(oz, oy, ox)]) / static_cast<C>(n);
                    for (int64_t z = g.lo[0][oz]; z < g.hi[0][oz]; ++z) {
                        for (int64_t y = g.lo[1][oy]; y < g.hi[1][oy]; ++y) {
                            C* row = acc + (z * g.in[1] + y) * g.in[2];
                            for (int64_t i = g.lo[2][ox]; i < g.hi[2][ox]; ++i) row[i] += v;
                        }
                    }
                }
            }
        }
        grad.end(gxp, g.in_plane);
    });
}

}  // namespace

void NativeKernels::pool(const PoolArgs& args) {
    const Geometry g = make_geometry(args.x.shape(), args.y.shape(), args.ksize, args.stride, args.pad);
    visit_dtype(args.x.dtype(), [&]<typename T>() {
        if constexpr (kIsFloating<T>) {
            switch (args.mode) {
                case PoolMode::kMax:
                    return max_pool<T>(args, g);
                case PoolMode::kAverage:
                case PoolMode::kAverageExcludePad:
                    return average_pool<T>(args, g);
            }
        } else {
            RENSA_ASSERT(false && "pool: float dtypes only");
        }
    });
}

void NativeKernels::pool_backward(const PoolBackwardArgs& args) {
    const Geometry g = make_geometry(args.gx.shape(), args.gy.shape(), args.ksize, args.stride, args.pad);
    visit_dtype(args.gx.dtype(), [&]<typename T>() {
        if constexpr (kIsFloating<T>) {
            switch (args.mode) {
                case PoolMode::kMax:
                    return max_pool_backward<T>(args, g);
                case PoolMode::kAverage:
                case PoolMode::kAverageExcludePad:
                    return average_pool_backward<T>(args, g);
            }
        } else {
            RENSA_ASSERT(false && "pool_backward: float dtypes only");
        }
    });
}

}  // namespace rensa::native
