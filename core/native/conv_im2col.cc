// im2col + GEMM convolution. Note [im2col layout]: for a chunk of `bn` samples and one
// group, col is (c_in_group * k_size, bn * out_size) row-major: row (c, kz, ky, kx),
// column (sample, oz, oy, ox). Then y_g = W_g @ col, col = W_g^T @ gy_g and
// gW_g = gy_g @ col^T are single GEMMs over the whole chunk.

#include "core/native/conv_im2col.h"

#include <cblas.h>

#include <algorithm>
#include <concepts>
#include <cstring>
#include <vector>

#include "core/native/parallel.h"

namespace rensa::native {
namespace {

// Elements of col a chunk may hold (bounds the buffer while keeping GEMMs wide).
constexpr int64_t kColumnBudget = int64_t{1} << 22;

template <class T>
void gemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, const T* a, int64_t lda, const T* b, int64_t ldb,
          T beta, T* c, int64_t ldc) {
    const CBLAS_TRANSPOSE ta = trans_a ? CblasTrans : CblasNoTrans, tb = trans_b ? CblasTrans : CblasNoTrans;
    const auto i = [](int64_t v) { return static_cast<blasint>(v); };
    if constexpr (std::same_as<T, float>) {
        cblas_sgemm(CblasRowMajor, ta, tb, i(m), i(n), i(k), 1.0f, a, i(lda), b, i(ldb), beta, c, i(ldc));
    } else {
        cblas_dgemm(CblasRowMajor, ta, tb, i(m), i(n), i(k), 1.0, a, i(lda), b, i(ldb), beta, c, i(ldc));
    }
}

// The outputs o in [0, out) whose input position o * s + offset lies in [0, in).
struct ValidRange {
    int64_t lo, hi;
};
ValidRange valid_range(int64_t offset, int64_t s, int64_t in, int64_t out) {
    const int64_t lo = offset >= 0 ? 0 : (-offset + s - 1) / s;
    const int64_t hi = in - offset <= 0 ? 0 : (in - 1 - offset) / s + 1;
    return {std::min(lo, out), std::clamp(hi, std::min(lo, out), out)};
}

// Visits every (kernel offset, output row) pair of one channel: fn(kernel index, row of
// col starting at that output row, input row or nullptr when it lies in the padding, and
// the valid range along the last axis and its input offset).
template <class Fn>
void for_each_row(const WindowGeometry& g, Fn&& fn) {
    int64_t kidx = 0;
    for (int64_t kz = 0; kz < g.k[0]; ++kz) {
        for (int64_t ky = 0; ky < g.k[1]; ++ky) {
            for (int64_t kx = 0; kx < g.k[2]; ++kx, ++kidx) {
                const int64_t off_x = kx * g.dilate[2] - g.pad[2];
                const ValidRange rx = valid_range(off_x, g.stride[2], g.in[2], g.out[2]);
                for (int64_t oz = 0; oz < g.out[0]; ++oz) {
                    const int64_t iz = g.input_at(0, oz, kz);
                    for (int64_t oy = 0; oy < g.out[1]; ++oy) {
                        const int64_t iy = g.input_at(1, oy, ky);
                        const bool inside = iz >= 0 && iz < g.in[0] && iy >= 0 && iy < g.in[1];
                        const int64_t in_row = inside ? (iz * g.in[1] + iy) * g.in[2] : -1;
                        fn(kidx, (oz * g.out[1] + oy) * g.out[2], in_row, rx, off_x);
                    }
                }
            }
        }
    }
}

// col rows of one channel (k_size rows with leading dimension ld) from its input plane.
template <class T>
void im2col_channel(const WindowGeometry& g, const T* x, T* col, int64_t ld) {
    const int64_t s = g.stride[2];
    for_each_row(g, [&](int64_t kidx, int64_t o, int64_t in_row, ValidRange r, int64_t off) {
        T* dst = col + kidx * ld + o;
        if (in_row < 0) {
            std::fill(dst, dst + g.out[2], T{0});
            return;
        }
        const T* src = x + in_row + off;
        std::fill(dst, dst + r.lo, T{0});
        if (s == 1) {
            std::memcpy(dst + r.lo, src + r.lo, static_cast<size_t>(r.hi - r.lo) * sizeof(T));
        } else {
            for (int64_t ox = r.lo; ox < r.hi; ++ox) dst[ox] = src[ox * s];
        }
        std::fill(dst + r.hi, dst + g.out[2], T{0});
    });
}

// The input plane of one channel (accumulated into) from its col rows.
template <class T>
void col2im_channel(const WindowGeometry& g, const T* col, int64_t ld, T* x) {
    const int64_t s = g.stride[2];
    for_each_row(g, [&](int64_t kidx, int64_t o, int64_t in_row, ValidRange r, int64_t off) {
        if (in_row < 0) return;
        const T* src = col + kidx * ld + o;
        T* dst = x + in_row + off;
        for (int64_t ox = r.lo; ox < r.hi; ++ox) dst[ox * s] += src[ox];
    });
}

// Runs fn(sample in chunk, channel in group) over bn * channels pairs in parallel.
template <class Fn>
void parallel_planes(int64_t bn, int64_t channels, int64_t work_per_plane, Fn&& fn) {
    const int64_t grain = std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(1, work_per_plane));
    parallel_for(bn * channels, grain, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) fn(i / channels, i % channels);
    });
}

// The chunk of samples processed together.
int64_t chunk_samples(const WindowGeometry& g) {
    const int64_t per_sample = std::max<int64_t>(1, g.c_in_group() * g.k_size() * g.out_size());
    return std::clamp<int64_t>(kColumnBudget / per_sample, 1, std::max<int64_t>(g.n, 1));
}

// col for samples [n0, n0 + bn) of group `grp`.
template <class T>
void im2col_chunk(const WindowGeometry& g, const T* x, int64_t n0, int64_t bn, int64_t grp, T* col) {
    const int64_t cg = g.c_in_group(), ks = g.k_size(), os = g.out_size(), ld = bn * os;
    parallel_planes(bn, cg, ks * os, [&](int64_t b, int64_t c) {
        const T* plane = x + ((n0 + b) * g.c_in + grp * cg + c) * g.in_size();
        im2col_channel(g, plane, col + c * ks * ld + b * os, ld);
    });
}

// gy_g for samples [n0, n0 + bn) of group `grp` as a (c_out_group, bn * out_size) matrix:
// a view into gy for one sample, else a copy into `buffer`.
template <class T>
const T* gather_gy(const WindowGeometry& g, const T* gy, int64_t n0, int64_t bn, int64_t grp, std::vector<T>& buffer) {
    const int64_t cog = g.c_out_group(), os = g.out_size();
    const T* base = gy + (n0 * g.c_out + grp * cog) * os;
    if (bn == 1) return base;
    buffer.resize(static_cast<size_t>(cog * bn * os));
    parallel_planes(bn, cog, os, [&](int64_t b, int64_t c) {
        std::memcpy(buffer.data() + (c * bn + b) * os, base + (b * g.c_out + c) * os,
                    static_cast<size_t>(os) * sizeof(T));
    });
    return buffer.data();
}

}  // namespace

template <class T>
void im2col_convolution(const WindowGeometry& g, const T* x, const T* w, const T* b, T* y) {
    const int64_t cog = g.c_out_group(), ck = g.c_in_group() * g.k_size(), os = g.out_size();
    const int64_t chunk = chunk_samples(g);
    std::vector<T> col(static_cast<size_t>(ck * chunk * os)), tmp(static_cast<size_t>(cog * chunk * os));
    for (int64_t grp = 0; grp < g.groups; ++grp) {
        for (int64_t n0 = 0; n0 < g.n; n0 += chunk) {
            const int64_t bn = std::min(chunk, g.n - n0);
            im2col_chunk(g, x, n0, bn, grp, col.data());
            gemm<T>(false, false, cog, bn * os, ck, w + grp * cog * ck, ck, col.data(), bn * os, T{0}, tmp.data(),
                    bn * os);
            parallel_planes(bn, cog, os, [&](int64_t s, int64_t c) {
                const T bias = b ? b[grp * cog + c] : T{0};
                const T* src = tmp.data() + (c * bn + s) * os;
                T* dst = y + ((n0 + s) * g.c_out + grp * cog + c) * os;
                for (int64_t i = 0; i < os; ++i) dst[i] = src[i] + bias;
            });
        }
    }
}

template <class T>
void im2col_convolution_backward_data(const WindowGeometry& g, const T* gy, const T* w, T* gx) {
    const int64_t cg = g.c_in_group(), cog = g.c_out_group(), ks = g.k_size(), ck = cg * ks, os = g.out_size();
    const int64_t chunk = chunk_samples(g);
    std::fill(gx, gx + g.n * g.c_in * g.in_size(), T{0});
    std::vector<T> col(static_cast<size_t>(ck * chunk * os)), buffer;
    for (int64_t grp = 0; grp < g.groups; ++grp) {
        for (int64_t n0 = 0; n0 < g.n; n0 += chunk) {
            const int64_t bn = std::min(chunk, g.n - n0), ld = bn * os;
            const T* gyg = gather_gy(g, gy, n0, bn, grp, buffer);
            gemm<T>(true, false, ck, ld, cog, w + grp * cog * ck, ck, gyg, ld, T{0}, col.data(), ld);
            parallel_planes(bn, cg, ks * os, [&](int64_t s, int64_t c) {
                col2im_channel(g, col.data() + c * ks * ld + s * os, ld,
                               gx + ((n0 + s) * g.c_in + grp * cg + c) * g.in_size());
            });
        }
    }
}

template <class T>
void im2col_convolution_backward_filter(const WindowGeometry& g, const T* x, const T* gy, T* gw) {
    const int64_t cog = g.c_out_group(), ck = g.c_in_group() * g.k_size(), os = g.out_size();
    const int64_t chunk = chunk_samples(g);
    std::vector<T> col(static_cast<size_t>(ck * chunk * os)), buffer;
    for (int64_t grp = 0; grp < g.groups; ++grp) {
        for (int64_t n0 = 0; n0 < g.n; n0 += chunk) {
            const int64_t bn = std::min(chunk, g.n - n0), ld = bn * os;
            im2col_chunk(g, x, n0, bn, grp, col.data());
            const T* gyg = gather_gy(g, gy, n0, bn, grp, buffer);
            gemm<T>(false, true, cog, ck, ld, gyg, ld, col.data(), ld, n0 == 0 ? T{0} : T{1}, gw + grp * cog * ck, ck);
        }
    }
}

template void im2col_convolution<float>(const WindowGeometry&, const float*, const float*, const float*, float*);
template void im2col_convolution<double>(const WindowGeometry&, const double*, const double*, const double*, double*);
template void im2col_convolution_backward_data<float>(const WindowGeometry&, const float*, const float*, float*);
template void im2col_convolution_backward_data<double>(const WindowGeometry&, const double*, const double*, double*);
template void im2col_convolution_backward_filter<float>(const WindowGeometry&, const float*, const float*, float*);
template void im2col_convolution_backward_filter<double>(const WindowGeometry&, const double*, const double*, double*);

}  // namespace rensa::native
