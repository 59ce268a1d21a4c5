// Softmax and log-softmax along one axis, computed stably (the maximum is subtracted
// first). x is seen as kept dims (every dim but the axis) times the axis. Three paths:
//   rows:    one row (a kept index) at a time: max, sum of exp, scale, over contiguous
//            values with lanes (plain loops for short rows); rows that are strided or
//            float16/bfloat16 are gathered into a compute-type buffer first (the strided
//            fallback);
//   columns: the innermost kept dim is contiguous in x and y (softmax over channels of
//            NCHW): kColumns columns at a time walk the axis together and vectorise;
//   short rows: contiguous rows shorter than kShortRow, blocks of rows transposed so that
//            the rows are the lanes (Note [Short softmax rows]).
// float16/bfloat16 compute in float32. Each row is computed by one thread, so results
// never depend on the thread count.

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "core/native/kernels_reduce_common.h"
#include "core/native/native_kernels.h"

namespace rensa::native {
namespace {

inline constexpr int kRowLanes = 16;      // independent accumulators in the row loops
inline constexpr int64_t kColumns = 128;  // columns walked together in the columns path

// exp(x) for float without a libm call, so loops over it vectorise: Cephes' expf
// (range reduction by ln 2, degree-6 polynomial, ~1 ulp); 0 below -87.3, Inf above
// 88.7, NaN for NaN. The clamp puts NaN at -87.3 first, so the int conversion is defined.
inline float fast_exp(float x) {
    const float xc = std::min(88.7f, std::max(-87.3f, x));
    const float k = (xc * 1.44269504088896341f + 12582912.0f) - 12582912.0f;  // round to nearest
    const float r = (xc - k * 0.693359375f) + k * 2.12194440e-4f;
    float p = 1.9875691500e-4f;
    p = p * r + 1.3981999507e-3f;
    p = p * r + 8.3334519073e-3f;
    p = p * r + 4.1665795894e-2f;
    p = p * r + 1.6666665459e-1f;
    p = p * r + 5.0000001201e-1f;
    p = p * r * r + r + 1.0f;
    const float y = p * std::bit_cast<float>((static_cast<int32_t>(k) + 127) << 23);
    const float clamped = x < -87.3f ? 0.0f : (x > 88.7f ? std::numeric_limits<float>::infinity() : y);
    return x == x ? clamped : x;
}
inline double fast_exp(double x) { return std::exp(x); }

// max that propagates NaN (like the max reduction) without a branch.
template <class C>
inline C nan_max(C a, C v) {
    return ((v > a) | (v != v)) ? v : a;
}

template <class C>
C row_max(const C* x, int64_t n) {
    C lanes[kRowLanes];
    std::fill(lanes, lanes + kRowLanes, -std::numeric_limits<C>::infinity());
    int64_t i = 0;
    for (; i + kRowLanes <= n; i += kRowLanes) {
        // Kept a loop (as in fold_lanes): fully unrolled, GCC leaves the selects scalar.
#pragma GCC unroll 1
        for (int j = 0; j < kRowLanes; ++j) lanes[j] = nan_max(lanes[j], x[i + j]);
    }
    for (int j = 0; i + j < n; ++j) lanes[j] = nan_max(lanes[j], x[i + j]);
    C m = lanes[0];
    for (int j = 1; j < kRowLanes; ++j) m = nan_max(m, lanes[j]);
    return m;
}

// Sum of exp(x - m); also stores the exps into e when e is not null.
template <class C>
C row_exp_sum(const C* x, C m, int64_t n, C* e) {
    C lanes[kRowLanes] = {};
    int64_t i = 0;
    if (e != nullptr) {
        for (; i + kRowLanes <= n; i += kRowLanes) {
#pragma GCC unroll 1
            for (int j = 0; j < kRowLanes; ++j) {
                const C v = fast_exp(x[i + j] - m);
                e[i + j] = v;
                lanes[j] += v;
            }
        }
        for (int j = 0; i + j < n; ++j) lanes[j] += e[i + j] = fast_exp(x[i + j] - m);
    } else {
        for (; i + kRowLanes <= n; i += kRowLanes) {
#pragma GCC unroll 1
            for (int j = 0; j < kRowLanes; ++j) lanes[j] += fast_exp(x[i + j] - m);
        }
        for (int j = 0; i + j < n; ++j) lanes[j] += fast_exp(x[i + j] - m);
    }
    for (int width = kRowLanes / 2; width > 0; width /= 2) {
        for (int j = 0; j < width; ++j) lanes[j] += lanes[j + width];
    }
    return lanes[0];
}

// Rows shorter than this skip the lanes (10 classes of MNIST: lane set-up would dominate).
inline constexpr int64_t kShortRow = int64_t{2} * kRowLanes;

template <class C>
void softmax_short_row(const C* x, C* y, int64_t n, bool log) {
    C m = x[0], s = 0;
    for (int64_t i = 1; i < n; ++i) m = nan_max(m, x[i]);
    for (int64_t i = 0; i < n; ++i) s += y[i] = fast_exp(x[i] - m);
    if (log) {
        const C log_sum = std::log(s);
        for (int64_t i = 0; i < n; ++i) y[i] = (x[i] - m) - log_sum;
    } else {
        const C inv = C{1} / s;
        for (int64_t i = 0; i < n; ++i) y[i] *= inv;
    }
}

// Note [Short softmax rows]: rows shorter than kShortRow (the 10 classes of MNIST) are too
// short to vectorise along the row. When the rows are contiguous and back to back (the axis
// is the last dim of a contiguous x and y), kShortBlock rows are transposed into a buffer
// of (class, row) and walked class by class, each row a lane: max, exp and sum, scale, so
// every loop vectorises across rows. Each lane does what softmax_short_row does in the same
// order, so the results are bitwise those of the scalar path (and of any thread count).
// A local timing of the two loops on 65536 float32 rows (g++ -O3 -march=native, one
// thread, a loaded 2-core machine): 10 classes 1.05 -> 0.53 ms (softmax), 1.37 -> 0.65 ms
// (log_softmax); 20 classes 2.16 -> 1.09 ms, 2.54 -> 1.24 ms. Blocks of 16 rows gave
// 1.5x, of 64 rows 2.2x; 32 keeps the buffer at 8 KiB for float64.
inline constexpr int64_t kShortBlock = 32;

// `rows` (<= kShortBlock) contiguous rows of n (< kShortRow) values of T at x, y.
template <class T>
void softmax_short_rows_block(const T* x, T* y, int64_t n, int64_t rows, bool log) {
    using C = ComputeT<T>;
    C b[kShortRow][kShortBlock], m[kShortBlock], s[kShortBlock];
    for (int64_t r = 0; r < rows; ++r) {
        for (int64_t a = 0; a < n; ++a) b[a][r] = load_value<T>(reinterpret_cast<const char*>(x + r * n + a));
    }
    std::copy(b[0], b[0] + rows, m);
    std::fill(s, s + rows, C{0});
    for (int64_t a = 1; a < n; ++a) {
        for (int64_t r = 0; r < rows; ++r) m[r] = nan_max(m[r], b[a][r]);
    }
    if (log) {
        for (int64_t a = 0; a < n; ++a) {
            for (int64_t r = 0; r < rows; ++r) s[r] += fast_exp(b[a][r] - m[r]);
        }
        for (int64_t r = 0; r < rows; ++r) s[r] = std::log(s[r]);
        for (int64_t a = 0; a < n; ++a) {
            for (int64_t r = 0; r < rows; ++r) b[a][r] = (b[a][r] - m[r]) - s[r];
        }
    } else {
        for (int64_t a = 0; a < n; ++a) {
            for (int64_t r = 0; r < rows; ++r) s[r] += b[a][r] = fast_exp(b[a][r] - m[r]);
        }
        for (int64_t r = 0; r < rows; ++r) s[r] = C{1} / s[r];
        for (int64_t a = 0; a < n; ++a) {
            for (int64_t r = 0; r < rows; ++r) b[a][r] *= s[r];
        }
    }
    for (int64_t r = 0; r < rows; ++r) {
        for (int64_t a = 0; a < n; ++a) y[r * n + a] = cast_value<T>(b[a][r]);
    }
}

// y = softmax(x) or log_softmax(x) of one contiguous row; y may not alias x.
template <class C>
void softmax_row(const C* x, C* y, int64_t n, bool log) {
    if (n < kShortRow) return softmax_short_row(x, y, n, log);
    const C m = row_max(x, n);
    if (log) {
        const C log_sum = std::log(row_exp_sum<C>(x, m, n, nullptr));
        for (int64_t i = 0; i < n; ++i) y[i] = (x[i] - m) - log_sum;  // x - m is exact near the max
        return;
    }
    const C inv = C{1} / row_exp_sum(x, m, n, y);
    for (int64_t i = 0; i < n; ++i) y[i] *= inv;
}

// Kept dims (strides of x and y) and the axis.
struct SoftmaxPlan {
    char* x = nullptr;
    char* y = nullptr;
    DimList<2> kept;
    int64_t n = 0, sx = 0, sy = 0;  // axis length and byte strides
    int64_t rows = 0;
};

SoftmaxPlan plan_softmax(const SoftmaxArgs& args) {
    const Array& x = args.x;
    SoftmaxPlan plan;
    plan.x = static_cast<char*>(x.raw_data());
    plan.y = static_cast<char*>(args.y.raw_data());
    for (int d = 0; d < x.ndim(); ++d) {
        if (d == args.axis || x.shape()[d] == 1) continue;
        plan.kept.push(x.shape()[d], {x.strides()[d], args.y.strides()[d]});
    }
    plan.kept.pad();
    plan.n = x.shape()[args.axis];
    plan.sx = x.strides()[args.axis];
    plan.sy = args.y.strides()[args.axis];
    plan.rows = plan.kept.size();
    return plan;
}

// One row at a time; contiguous rows of the compute type are used in place, others go
// through buffers.
template <class T>
void softmax_rows(const SoftmaxPlan& plan, bool log) {
    using C = ComputeT<T>;
    const auto item = static_cast<int64_t>(sizeof(T));
    const bool direct_x = std::same_as<T, C> && plan.sx == item;
    const bool direct_y = std::same_as<T, C> && plan.sy == item;
    parallel_for(plan.rows, std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(plan.n, 1)),
                 [&](int64_t begin, int64_t end) {
                     std::vector<C> bx(direct_x ? 0 : static_cast<size_t>(plan.n));
                     std::vector<C> by(direct_y ? 0 : static_cast<size_t>(plan.n));
                     Counter<2> c(plan.kept, plan.kept.n, begin);
                     for (int64_t r = begin; r < end; ++r, c.next()) {
                         const char* xr = plan.x + c.offset(0);
                         char* yr = plan.y + c.offset(1);
                         if (!direct_x) {
                             for (int64_t i = 0; i < plan.n; ++i) bx[i] = load_value<T>(xr + i * plan.sx);
                         }
                         C* out = direct_y ? reinterpret_cast<C*>(yr) : by.data();
                         softmax_row(direct_x ? reinterpret_cast<const C*>(xr) : bx.data(), out, plan.n, log);
                         if (!direct_y) {
                             for (int64_t i = 0; i < plan.n; ++i) {
                                 *reinterpret_cast<T*>(yr + i * plan.sy) = cast_value<T>(by[i]);
                             }
                         }
                     }
                 });
}

// `width` (<= kColumns) contiguous columns at x, y walked along the axis together. Each
// inner loop reads one row of columns through restrict pointers, so it vectorises.
template <class T>
void softmax_columns_block(const SoftmaxPlan& plan, const char* x, char* y, int64_t width, bool log) {
    using C = ComputeT<T>;
    const auto x_row = [&](int64_t a) { return reinterpret_cast<const T*>(x + a * plan.sx); };
    C m[kColumns], s[kColumns];
    std::fill(m, m + width, -std::numeric_limits<C>::infinity());
    std::fill(s, s + width, C{0});
    for (int64_t a = 0; a < plan.n; ++a) {
        const T* __restrict xr = x_row(a);
        for (int64_t j = 0; j < width; ++j) m[j] = nan_max(m[j], load_value<T>(reinterpret_cast<const char*>(xr + j)));
    }
    for (int64_t a = 0; a < plan.n; ++a) {
        const T* __restrict xr = x_row(a);
        for (int64_t j = 0; j < width; ++j)
            s[j] += fast_exp(load_value<T>(reinterpret_cast<const char*>(xr + j)) - m[j]);
    }
    for (int64_t j = 0; j < width; ++j) s[j] = log ? std::log(s[j]) : C{1} / s[j];
    for (int64_t a = 0; a < plan.n; ++a) {
        const T* __restrict xr = x_row(a);
        T* __restrict yr = reinterpret_cast<T*>(y + a * plan.sy);
        if (log) {
            for (int64_t j = 0; j < width; ++j)
                yr[j] = cast_value<T>((load_value<T>(reinterpret_cast<const char*>(xr + j)) - m[j]) - s[j]);
        } else {
            for (int64_t j = 0; j < width; ++j)
                yr[j] = cast_value<T>(fast_exp(load_value<T>(reinterpret_cast<const char*>(xr + j)) - m[j]) * s[j]);
        }
    }
}

// The innermost kept dim is contiguous in x and y; a task is one block of columns.
template <class T>
void softmax_columns(const SoftmaxPlan& plan, bool log) {
    const DimList<2>& kept = plan.kept;
    const int64_t cols = kept.shape[kept.n - 1];
    const int64_t outer = plan.rows / cols, chunks = (cols + kColumns - 1) / kColumns;
    const int64_t task_elements = plan.n * std::min(cols, kColumns);
    parallel_for(outer * chunks, grain_for(task_elements), [&](int64_t begin, int64_t end) {
        for (int64_t t = begin; t < end; ++t) {
            const int64_t k = t / chunks, j0 = t % chunks * kColumns;
            const int64_t shift = j0 * int64_t{sizeof(T)};
            softmax_columns_block<T>(plan, plan.x + kept.offset_of(k * cols, 0) + shift,
                                     plan.y + kept.offset_of(k * cols, 1) + shift, std::min(kColumns, cols - j0), log);
        }
    });
}

// Back-to-back short rows, kShortBlock at a time (Note [Short softmax rows]).
template <class T>
void softmax_short_rows(const SoftmaxPlan& plan, bool log) {
    const T* x = reinterpret_cast<const T*>(plan.x);
    T* y = reinterpret_cast<T*>(plan.y);
    const int64_t blocks = (plan.rows + kShortBlock - 1) / kShortBlock;
    parallel_for(blocks, grain_for(kShortBlock * plan.n), [&](int64_t begin, int64_t end) {
        for (int64_t k = begin; k < end; ++k) {
            const int64_t r0 = k * kShortBlock;
            softmax_short_rows_block<T>(x + r0 * plan.n, y + r0 * plan.n, plan.n, std::min(kShortBlock, plan.rows - r0),
                                        log);
        }
    });
}

template <class T>
void softmax_typed(const SoftmaxArgs& args) {
    if (args.x.size() == 0) return;
    const SoftmaxPlan plan = plan_softmax(args);
    const auto item = static_cast<int64_t>(sizeof(T));
    const int k = plan.kept.n - 1;
    const bool columns = plan.sx != item && plan.kept.strides[0][k] == item && plan.kept.strides[1][k] == item &&
                         plan.kept.shape[k] >= 8;
    if (columns) return softmax_columns<T>(plan, args.log);
    const bool short_rows = plan.n < kShortRow && plan.n > 0 && plan.sx == item && plan.sy == item &&
                            plan.kept.n == 1 && plan.kept.strides[0][0] == plan.n * item &&
                            plan.kept.strides[1][0] == plan.n * item;
    if (short_rows) return softmax_short_rows<T>(plan, args.log);
    softmax_rows<T>(plan, args.log);
}

}  // namespace

void NativeKernels::softmax(const SoftmaxArgs& args) {
    RENSA_ASSERT(args.x.dtype() == args.y.dtype() && args.x.shape() == args.y.shape());
    visit_dtype(args.x.dtype(), [&]<typename T>() {
        if constexpr (kIsFloating<T>) {
            softmax_typed<T>(args);
        } else {
            RENSA_THROW(DtypeError, "softmax: Expect: x.dtype.kind == 'f', Actual: ", dtype_name(args.x.dtype()));
        }
    });
}

}  // namespace rensa::native
