// Batch normalization kernels on x viewed as (n, c, s). Statistics take one pass over x:
// blocks of each (sample, channel) run are summed in the compute type around a
// per-channel shift (x[0, c, 0], which keeps the variance accurate), and the blocks are
// added up in double. Threads split the channels for the sums and the rows for the
// elementwise passes, so results never depend on the thread count.

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/error.h"
#include "core/native/dtype_dispatch.h"
#include "core/native/native_kernels.h"
#include "core/native/parallel.h"

namespace rensa::native {
namespace {

struct Dims {
    int64_t n, c, s;
    int64_t m() const { return n * s; }  // elements per channel
};

Dims dims_of(const Array& x) { return {x.shape()[0], x.shape()[1], x.shape()[2]}; }

// Channels per thread chunk so that a chunk holds at least kParallelGrain elements.
int64_t channel_grain(const Dims& d) { return std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(1, d.m())); }
int64_t row_grain(const Dims& d) { return std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(1, d.s)); }

template <class T>
const T* data_of(const Array& a) {
    return static_cast<const T*>(a.raw_data());
}
template <class T>
T* mutable_data_of(const Array& a) {
    return static_cast<T*>(a.raw_data());
}

// Elements summed in the compute type before they are added to a double total.
inline constexpr int64_t kBlock = 2048;

// Per-channel sums over channels [c0, c1): (sum1, sum2)[c] = sums of row(c, offset, length),
// a pair of sums in S over blocks of at most kBlock elements of the rows (i, c); the
// blocks add up in double.
template <class S, class RowFn>
void channel_sums(const Dims& d, int64_t c0, int64_t c1, RowFn&& row, double* sum1, double* sum2) {
    for (int64_t c = c0; c < c1; ++c) sum1[c] = sum2[c] = 0.0;
    for (int64_t i = 0; i < d.n; ++i) {
        for (int64_t c = c0; c < c1; ++c) {
            for (int64_t k = 0; k < d.s; k += kBlock) {
                const auto [u, v] = row(c, (i * d.c + c) * d.s + k, std::min(kBlock, d.s - k));
                sum1[c] += static_cast<double>(u);
                sum2[c] += static_cast<double>(v);
            }
        }
    }
}

// (sum of x - shift, sum of (x - shift)^2) over one row.
template <class T, class S>
std::pair<S, S> row_moments(const T* x, int64_t s, S shift) {
    S u = 0, v = 0;
#pragma omp simd reduction(+ : u, v)
    for (int64_t k = 0; k < s; ++k) {
        const S d = static_cast<S>(x[k]) - shift;
        u += d;
        v += d * d;
    }
    return {u, v};
}

// (sum of gy, sum of gy * (x - mean)) over one row.
template <class T, class S>
std::pair<S, S> row_grad_sums(const T* gy, const T* x, int64_t s, S mean) {
    S u = 0, v = 0;
#pragma omp simd reduction(+ : u, v)
    for (int64_t k = 0; k < s; ++k) {
        const S g = static_cast<S>(gy[k]);
        u += g;
        v += g * (static_cast<S>(x[k]) - mean);
    }
    return {u, v};
}

// Per-channel coefficients of out = p * (a - ca) + q * (b - cb) + r (b may be absent).
template <class S>
struct Affine {
    std::vector<S> p, ca, q, cb, r;
    explicit Affine(int64_t c) : p(c), ca(c), q(c), cb(c), r(c) {}
};

// out[i, c, k] = p[c] * (a[i, c, k] - ca[c]) + q[c] * (b[i, c, k] - cb[c]) + r[c]. The
// centred form keeps constant channels exact.
template <class T, class S>
void affine_rows(const T* a, const T* b, const Dims& d, const Affine<S>& f, T* out) {
    parallel_for(d.n * d.c, row_grain(d), [&](int64_t begin, int64_t end) {
        for (int64_t row = begin; row < end; ++row) {
            const size_t c = static_cast<size_t>(row % d.c);
            const int64_t base = row * d.s;
            const S p = f.p[c], ca = f.ca[c], q = f.q[c], cb = f.cb[c], r = f.r[c];
            if (b) {
#pragma omp simd
                for (int64_t k = 0; k < d.s; ++k) {
                    out[base + k] = static_cast<T>(p * (static_cast<S>(a[base + k]) - ca) +
                                                   q * (static_cast<S>(b[base + k]) - cb) + r);
                }
            } else {
#pragma omp simd
                for (int64_t k = 0; k < d.s; ++k)
                    out[base + k] = static_cast<T>(p * (static_cast<S>(a[base + k]) - ca) + r);
            }
        }
    });
}

template <class T, class S>
void compute_stats(const T* x, const Dims& d, double eps, S* mean, S* inv_std) {
    std::vector<double> sum1(static_cast<size_t>(d.c)), sum2(static_cast<size_t>(d.c));
    std::vector<S> shift(static_cast<size_t>(d.c), S{0});
    if (d.m() > 0) {
        for (int64_t c = 0; c < d.c; ++c) shift[static_cast<size_t>(c)] = static_cast<S>(x[c * d.s]);
    }
    const S* sh = shift.data();
    parallel_for(d.c, channel_grain(d), [&](int64_t c0, int64_t c1) {
        channel_sums<S>(
            d, c0, c1, [&](int64_t c, int64_t base, int64_t len) { return row_moments<T, S>(x + base, len, sh[c]); },
            sum1.data(), sum2.data());
    });
    const double m = static_cast<double>(d.m());
    for (int64_t c = 0; c < d.c; ++c) {
        const size_t ci = static_cast<size_t>(c);
        const double mu = d.m() > 0 ? sum1[ci] / m : std::numeric_limits<double>::quiet_NaN();
        const double var = std::max(sum2[ci] / m - mu * mu, 0.0);
        mean[c] = static_cast<S>(static_cast<double>(shift[ci]) + mu);
        inv_std[c] = static_cast<S>(1.0 / std::sqrt(var + eps));
    }
}

template <class T>
void batch_norm_impl(const BatchNormArgs& args) {
    using S = ComputeT<T>;
    const Dims d = dims_of(args.x);
    S* mean = mutable_data_of<S>(args.mean);
    S* inv_std = mutable_data_of<S>(args.inv_std);
    if (args.compute_stats) compute_stats<T, S>(data_of<T>(args.x), d, args.eps, mean, inv_std);
    const S* gamma = data_of<S>(args.gamma);
    const S* beta = data_of<S>(args.beta);
    Affine<S> f(d.c);
    for (int64_t c = 0; c < d.c; ++c) {
        const size_t ci = static_cast<size_t>(c);
        f.p[ci] = gamma[c] * inv_std[c];
        f.ca[ci] = mean[c];
        f.r[ci] = beta[c];
    }
    affine_rows<T, S>(data_of<T>(args.x), nullptr, d, f, mutable_data_of<T>(args.y));
}

template <class T>
void batch_norm_backward_impl(const BatchNormBackwardArgs& args) {
    using S = ComputeT<T>;
    const Dims d = dims_of(args.x);
    const S* mean = data_of<S>(args.mean);
    const S* inv_std = data_of<S>(args.inv_std);
    const S* gamma = data_of<S>(args.gamma);
    const T* gy = data_of<T>(args.gy);
    const T* x = data_of<T>(args.x);
    std::vector<double> sum_gy(static_cast<size_t>(d.c)), sum_gy_xmu(static_cast<size_t>(d.c));
    parallel_for(d.c, channel_grain(d), [&](int64_t c0, int64_t c1) {
        channel_sums<S>(
            d, c0, c1,
            [&](int64_t c, int64_t base, int64_t len) {
                return row_grad_sums<T, S>(gy + base, x + base, len, mean[c]);
            },
            sum_gy.data(), sum_gy_xmu.data());
    });
    S* ggamma = mutable_data_of<S>(args.ggamma);
    S* gbeta = mutable_data_of<S>(args.gbeta);
    const double inv_m = d.m() > 0 ? 1.0 / static_cast<double>(d.m()) : 0.0;
    Affine<S> f(d.c);
    for (int64_t c = 0; c < d.c; ++c) {
        const size_t ci = static_cast<size_t>(c);
        const double is = inv_std[c], gb = sum_gy[ci], gg = sum_gy_xmu[ci] * is;
        ggamma[c] = static_cast<S>(gg);
        gbeta[c] = static_cast<S>(gb);
        // gx = gamma * inv_std * (gy - (x_hat * ggamma + gbeta) / m) = p * gy + q * (x - mean) + r.
        const double pc = static_cast<double>(gamma[c]) * is;
        f.p[ci] = static_cast<S>(pc);
        f.q[ci] = static_cast<S>(-pc * is * gg * inv_m);
        f.cb[ci] = mean[c];
        f.r[ci] = static_cast<S>(-pc * gb * inv_m);
    }
    affine_rows<T, S>(gy, x, d, f, mutable_data_of<T>(args.gx));
}

}  // namespace

void NativeKernels::batch_norm(const BatchNormArgs& args) {
    visit_dtype(args.x.dtype(), [&]<typename T>() {
        if constexpr (kIsFloating<T>) {
            batch_norm_impl<T>(args);
        } else {
            RENSA_THROW(DtypeError, "batch_norm: x must be floating point, got ", dtype_name(args.x.dtype()));
        }
    });
}

void NativeKernels::batch_norm_backward(const BatchNormBackwardArgs& args) {
    visit_dtype(args.x.dtype(), [&]<typename T>() {
        if constexpr (kIsFloating<T>) {
            batch_norm_backward_impl<T>(args);
        } else {
            RENSA_THROW(DtypeError, "batch_norm_backward: x must be floating point, got ", dtype_name(args.x.dtype()));
        }
    });
}

}  // namespace rensa::native
