// argmax / argmin along one axis: the index of the first extreme, NaN counting as the
// extreme. Same paths as kernels_reduce.cc (see Note [Reduction plans]); segments are
// combined in order and a later one wins only when strictly better, so ties keep the
// first index whatever the split.

#include <memory>

#include "core/error.h"
#include "core/native/kernels_reduce_common.h"
#include "core/native/native_kernels.h"

namespace rensa::native {
namespace {

inline constexpr int64_t kMinSegmentRows = 16;

template <class T, bool kMax>
struct ArgReducer {
    using V = ComputeT<T>;
    struct Acc {
        V value;
        int64_t index;  // -1: no element seen yet
    };
    using Out = int64_t;
    using Extreme = ExtremeReducer<T, kMax>;

    static Acc identity() { return {V{}, -1}; }
    static bool better(V v, V best) {
        if constexpr (kIsFloating<T>) {
            return (kMax ? v > best : v < best) || (v != v && best == best);
        } else {
            return kMax ? v > best : v < best;
        }
    }
    static Acc combine(Acc a, Acc b) { return a.index < 0 || (b.index >= 0 && better(b.value, a.value)) ? b : a; }
    static Out finish(Acc a) { return a.index; }
};

// Index of the first element of v equal to m (or NaN when m is NaN); m must occur.
template <class V>
int64_t find_first(const V* v, V m) {
    int64_t i = 0;
    if (m != m) {
        while (v[i] == v[i]) ++i;
    } else {
        while (v[i] != m) ++i;
    }
    return i;
}

// The axis is contiguous: each block's extreme is found with lanes, and the block is
// scanned for its position only when it beats the best so far.
template <class A, class T>
void arg_inner(const ReducePlan& plan) {
    const int64_t length = plan.red.shape[0];
    const int64_t blocks = (length + kBlock - 1) / kBlock;
    const int64_t n_seg = segment_count(plan.n_out, blocks);
    const auto seg = [&](const char* xo, int64_t s) {
        typename A::Acc acc = A::identity();
        ValueBuffer<T> buf;
        for (int64_t b = blocks * s / n_seg; b < blocks * (s + 1) / n_seg; ++b) {
            const int64_t n = std::min(kBlock, length - b * kBlock);
            const auto* v = contiguous_values(reinterpret_cast<const T*>(xo) + b * kBlock, n, buf.data);
            const auto m = fold_lanes<typename A::Extreme>(v, n);
            if (acc.index < 0 || A::better(m, acc.value)) acc = {m, b * kBlock + find_first(v, m)};
        }
        return acc;
    };
    fold_segments<A>(plan, n_seg, length / n_seg, seg);
}

template <class A, class T>
void arg_strided(const ReducePlan& plan) {
    const int64_t length = plan.red.shape[0], stride = plan.red.strides[0][0];
    const int64_t n_seg = segment_count(plan.n_out, length / kBlock);
    const auto seg = [&](const char* xo, int64_t s) {
        const int64_t e0 = length * s / n_seg, e1 = length * (s + 1) / n_seg;
        typename A::Acc acc{load_value<T>(xo + e0 * stride), e0};
        for (int64_t i = e0 + 1; i < e1; ++i) {
            const auto v = load_value<T>(xo + i * stride);
            if (A::better(v, acc.value)) acc = {v, i};
        }
        return acc;
    };
    fold_segments<A>(plan, n_seg, length / n_seg, seg);
}

// Rows [r0, r1) of `width` contiguous columns at xk: best values and indices per column.
template <class A, class T>
void arg_rows_fold(const ReducePlan& plan, const char* xk, int64_t r0, int64_t r1, int64_t width,
                   typename A::Acc* acc) {
    ValueBuffer<T> buf;
    const int64_t stride = plan.red.strides[0][0];
    typename A::V best[kCols];
    int64_t index[kCols];
    const auto* first = contiguous_values(reinterpret_cast<const T*>(xk + r0 * stride), width, buf.data);
    std::copy(first, first + width, best);
    std::fill(index, index + width, r0);
    for (int64_t r = r0 + 1; r < r1; ++r) {
        const auto* v = contiguous_values(reinterpret_cast<const T*>(xk + r * stride), width, buf.data);
        for (int64_t j = 0; j < width; ++j) {
            const bool b = A::better(v[j], best[j]);
            best[j] = b ? v[j] : best[j];
            index[j] = b ? r : index[j];
        }
    }
    for (int64_t j = 0; j < width; ++j) acc[j] = {best[j], index[j]};
}

// The innermost kept dim is contiguous in x and out: rows of the axis are compared
// column-wise, kCols columns of one outer index per task.
template <class A, class T>
void arg_rows(const ReducePlan& plan) {
    using Acc = typename A::Acc;
    const DimList<2>& kept = plan.kept;
    const int64_t cols = kept.shape[kept.n - 1];
    const int64_t outer = plan.n_out / cols, chunks = (cols + kCols - 1) / kCols;
    const int64_t rows = plan.red.shape[0];
    const int64_t n_seg = segment_count(outer * chunks, rows / kMinSegmentRows);
    const std::unique_ptr<Acc[]> partial(new Acc[static_cast<size_t>(plan.n_out * n_seg)]);
    const int64_t task_elements = rows / n_seg * std::min(cols, kCols);
    parallel_for(n_seg * outer * chunks, grain_for(task_elements), [&](int64_t begin, int64_t end) {
        for (int64_t t = begin; t < end; ++t) {
            const int64_t c = t % chunks, k = t / chunks % outer, s = t / (chunks * outer);
            const int64_t j0 = c * kCols;
            const char* xk = plan.x + kept.offset_of(k * cols, 0) + j0 * static_cast<int64_t>(sizeof(T));
            arg_rows_fold<A, T>(plan, xk, rows * s / n_seg, rows * (s + 1) / n_seg, std::min(kCols, cols - j0),
                                partial.get() + s * plan.n_out + k * cols + j0);
        }
    });
    parallel_for(outer, grain_for(cols * n_seg), [&](int64_t begin, int64_t end) {
        for (int64_t k = begin; k < end; ++k) {
            auto* out = reinterpret_cast<int64_t*>(plan.out + kept.offset_of(k * cols, 1));
            for (int64_t j = 0; j < cols; ++j) {
                Acc a = partial[k * cols + j];
                for (int64_t s = 1; s < n_seg; ++s) a = A::combine(a, partial[s * plan.n_out + k * cols + j]);
                out[j] = A::finish(a);
            }
        }
    });
}

template <class A, class T>
void arg_reduce_typed(const Array& x, int axis, const Array& out) {
    if (out.size() == 0) return;
    const ReducePlan plan = plan_reduction(x, Axes{axis}, out);
    const auto item = static_cast<int64_t>(sizeof(T));
    const int k = plan.kept.n - 1;
    if (plan.red.strides[0][0] == item && plan.red.shape[0] >= kLanes) return arg_inner<A, T>(plan);
    if (plan.kept.strides[0][k] == item && plan.kept.strides[1][k] == 8) return arg_rows<A, T>(plan);
    arg_strided<A, T>(plan);
}

}  // namespace

void NativeKernels::arg_reduce(ArgReduceOp op, const Array& x, int axis, const Array& out) {
    RENSA_ASSERT(out.dtype() == Dtype::kInt64 && x.shape()[axis] > 0);
    visit_dtype(x.dtype(), [&]<typename T>() {
        switch (op) {
            case ArgReduceOp::kArgMax:
                return arg_reduce_typed<ArgReducer<T, true>, T>(x, axis, out);
            case ArgReduceOp::kArgMin:
                return arg_reduce_typed<ArgReducer<T, false>, T>(x, axis, out);
        }
    });
}

}  // namespace rensa::native
