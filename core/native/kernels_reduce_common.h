#pragma once
// Shared by the reduction kernels (kernels_reduce*.cc) and cumsum (kernels_scan.cc): dim
// lists with coalescing, offset counters, element loaders, and the reducers of each op.
//
// Note [Reduction plans]: a reduction sees x's dims as kept (also in out) or reduced.
// plan_reduction drops length-1 dims, orders the reduced dims by decreasing |stride| (so
// a transposed view of contiguous memory becomes one contiguous run) and merges dims of
// one group that are contiguous for every operand. Kernels then pick a path from the
// innermost dims: a contiguous reduced run, a contiguous kept row, or strided loops.
//
// Note [Deterministic reductions]: each output's reduced elements are cut into segments
// whose number depends only on the sizes; a segment is folded from the identity and the
// segment results are folded in order. Threads only decide who computes a segment, so
// float results never depend on the thread count.

#if defined(__F16C__)
#include <immintrin.h>
#endif

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <limits>
#include <memory>
#include <type_traits>

#include "core/array.h"
#include "core/kernels.h"
#include "core/native/dtype_dispatch.h"
#include "core/native/parallel.h"

namespace rensa::native {

inline constexpr int64_t kBlock = 4096;      // contiguous elements folded by one lane loop
inline constexpr int kLanes = 32;            // independent accumulators: vectorise and hide latency
inline constexpr int64_t kCols = 1024;       // columns per task in row-accumulating loops
inline constexpr int64_t kTargetTasks = 64;  // segments make about this many tasks when outputs are few

// Dims outer to inner with the byte strides of N operands; push merges contiguous dims.
template <int N>
struct DimList {
    int n = 0;
    int64_t shape[kMaxNdim] = {};
    int64_t strides[N][kMaxNdim] = {};

    void push(int64_t length, const std::array<int64_t, N>& s) {
        bool merge = n > 0;
        for (int k = 0; k < N && merge; ++k) merge = strides[k][n - 1] == s[k] * length;
        const int d = merge ? n - 1 : n++;
        shape[d] = merge ? shape[d] * length : length;
        for (int k = 0; k < N; ++k) strides[k][d] = s[k];
    }
    // A single length-1 dim when empty, so loops always have an innermost dim.
    void pad() {
        if (n == 0) push(1, {});
    }
    int64_t size() const {
        int64_t s = 1;
        for (int d = 0; d < n; ++d) s *= shape[d];
        return s;
    }
    // Byte offset of flat index i (row-major over the first `ndim` dims) for operand k.
    int64_t offset_of(int64_t i, int k, int ndim) const {
        int64_t off = 0;
        for (int d = ndim - 1; d >= 0; --d) {
            off += (i % shape[d]) * strides[k][d];
            i /= shape[d];
        }
        return off;
    }
    int64_t offset_of(int64_t i, int k) const { return offset_of(i, k, n); }
};

// Walks the first `ndim` dims of a DimList in row-major order from a flat index.
template <int N>
class Counter {
public:
    Counter(const DimList<N>& dims, int ndim, int64_t start) : dims_{dims}, ndim_{ndim} {
        for (int d = ndim - 1; d >= 0; --d) {
            index_[d] = start % dims.shape[d];
            start /= dims.shape[d];
            for (int k = 0; k < N; ++k) offset_[k] += index_[d] * dims.strides[k][d];
        }
    }
    int64_t offset(int k) const { return offset_[k]; }
    void next() {
        for (int d = ndim_ - 1; d >= 0; --d) {
            for (int k = 0; k < N; ++k) offset_[k] += dims_.strides[k][d];
            if (++index_[d] < dims_.shape[d]) return;
            for (int k = 0; k < N; ++k) offset_[k] -= dims_.strides[k][d] * dims_.shape[d];
            index_[d] = 0;
        }
    }

private:
    const DimList<N>& dims_;
    int ndim_;
    int64_t index_[kMaxNdim] = {};
    int64_t offset_[N] = {};
};

// See Note [Reduction plans]. kept: strides of x and out; red: strides of x.
struct ReducePlan {
    char* x = nullptr;
    char* out = nullptr;
    DimList<2> kept;
    DimList<1> red;
    int64_t n_out = 1, n_red_total = 1;
};

inline ReducePlan plan_reduction(const Array& x, const Axes& axes, const Array& out) {
    ReducePlan plan;
    plan.x = static_cast<char*>(x.raw_data());
    plan.out = static_cast<char*>(out.raw_data());
    bool reduced[kMaxNdim] = {};
    for (const int a : axes) reduced[a] = true;
    int red_dims[kMaxNdim];
    int n_red = 0;
    for (int d = 0; d < x.ndim(); ++d) {
        if (x.shape()[d] == 1) continue;
        if (reduced[d]) {
            red_dims[n_red++] = d;
        } else {
            plan.kept.push(x.shape()[d], {x.strides()[d], out.strides()[d]});
        }
    }
    const auto abs_stride = [&](int d) { return x.strides()[d] < 0 ? -x.strides()[d] : x.strides()[d]; };
    std::stable_sort(red_dims, red_dims + n_red, [&](int a, int b) { return abs_stride(a) > abs_stride(b); });
    for (int i = 0; i < n_red; ++i) plan.red.push(x.shape()[red_dims[i]], {x.strides()[red_dims[i]]});
    plan.kept.pad();
    plan.red.pad();
    plan.n_out = plan.kept.size();
    plan.n_red_total = plan.red.size();
    return plan;
}

// Segments per output: about kTargetTasks tasks in all, at least 1, at most max_segments.
inline int64_t segment_count(int64_t n_out, int64_t max_segments) {
    const int64_t wanted = (kTargetTasks + n_out - 1) / std::max<int64_t>(n_out, 1);
    return std::clamp<int64_t>(wanted, 1, std::max<int64_t>(max_segments, 1));
}

// parallel_for grain (in tasks) so that each thread gets at least kParallelGrain elements.
inline int64_t grain_for(int64_t elements_per_task) {
    return std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(elements_per_task, 1));
}

// --- Loading elements as their compute type (float for float16/bfloat16).

inline float half_to_float(Half h) {
#ifdef __F16C__
    return _cvtsh_ss(h.bits);
#else
    return static_cast<float>(h);
#endif
}

inline float bfloat16_to_float(BFloat16 b) { return std::bit_cast<float>(static_cast<uint32_t>(b.bits) << 16); }

template <class T>
inline ComputeT<T> load_value(const char* p) {
    const T v = *reinterpret_cast<const T*>(p);
    if constexpr (std::same_as<T, Half>) {
        return half_to_float(v);
    } else if constexpr (std::same_as<T, BFloat16>) {
        return bfloat16_to_float(v);
    } else {
        return v;
    }
}

// n contiguous elements as ComputeT<T>: `p` itself, or converted into `buf` (n entries)
// for float16/bfloat16.
template <class T>
inline const ComputeT<T>* contiguous_values(const T* p, int64_t n, ComputeT<T>* buf) {
    if constexpr (std::same_as<T, Half>) {
        int64_t i = 0;
#ifdef __F16C__
        for (; i + 8 <= n; i += 8) {
            const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
            _mm256_storeu_ps(buf + i, _mm256_cvtph_ps(h));
        }
#endif
        for (; i < n; ++i) buf[i] = half_to_float(p[i]);
        return buf;
    } else if constexpr (std::same_as<T, BFloat16>) {
        for (int64_t i = 0; i < n; ++i) buf[i] = bfloat16_to_float(p[i]);
        return buf;
    } else {
        (void)n;
        (void)buf;
        return p;
    }
}

// Scratch for contiguous_values: kBlock floats for float16/bfloat16, nothing otherwise.
template <class T>
struct ValueBuffer {
    ComputeT<T> data[kIsHalfLike<T> ? kBlock : 1];
};

// --- Reducers: identity, step (fold one value), combine (fold two partial results), finish.
// Sums and products of floats accumulate in double; of integers in uint64, which wraps
// like numpy's int64 and truncates to narrower types modulo 2^n.

template <class T>
using WideAcc = std::conditional_t<kIsFloating<T>, double, uint64_t>;

template <class T>
struct SumReducer {
    using V = ComputeT<T>;
    using Acc = WideAcc<T>;
    using Out = T;
    static Acc identity() {
        if constexpr (kIsFloating<T>) {
            return -0.0;  // -0.0 + x == x for every x, so sums of -0.0 stay -0.0
        } else {
            return 0;
        }
    }
    static Acc step(Acc a, V v) { return a + static_cast<Acc>(v); }
    static Acc combine(Acc a, Acc b) { return a + b; }
    static Out finish(Acc a) { return cast_value<T>(a); }
};

template <class T>
struct ProdReducer {
    using V = ComputeT<T>;
    using Acc = WideAcc<T>;
    using Out = T;
    static Acc identity() { return 1; }
    static Acc step(Acc a, V v) { return a * static_cast<Acc>(v); }
    static Acc combine(Acc a, Acc b) { return a * b; }
    static Out finish(Acc a) { return cast_value<T>(a); }
};

template <class T, bool kMax>
struct ExtremeReducer {
    using V = ComputeT<T>;
    using Acc = V;
    using Out = T;
    static Acc identity() {
        if constexpr (kIsFloating<T>) {
            return kMax ? -std::numeric_limits<V>::infinity() : std::numeric_limits<V>::infinity();
        } else {
            return kMax ? std::numeric_limits<V>::lowest() : std::numeric_limits<V>::max();
        }
    }
    // v replaces a when more extreme or NaN; a NaN a is never replaced, so NaN propagates.
    static Acc step(Acc a, V v) {
        if constexpr (kIsFloating<T>) {
            // `|`, not `||`: no branch, so loops over lanes or columns vectorise to compare + blend.
            return ((kMax ? v > a : v < a) | (v != v)) ? v : a;
        } else {
            return (kMax ? v > a : v < a) ? v : a;
        }
    }
    static Acc combine(Acc a, Acc b) { return step(a, b); }
    static Out finish(Acc a) { return cast_value<T>(a); }
};

template <class T, bool kAny>
struct LogicalReducer {
    using V = ComputeT<T>;
    using Acc = bool;
    using Out = T;
    static Acc identity() { return !kAny; }
    static Acc step(Acc a, V v) { return kAny ? (a | (v != V{})) : (a & (v != V{})); }
    static Acc combine(Acc a, Acc b) { return kAny ? (a | b) : (a & b); }
    static Out finish(Acc a) { return cast_value<T>(a); }
};

// Calls f.template operator()<Reducer>() for op on elements of type T.
template <class T, class F>
void visit_reducer(ReduceOp op, F&& f) {
    switch (op) {
        case ReduceOp::kSum:
            return f.template operator()<SumReducer<T>>();
        case ReduceOp::kProd:
            return f.template operator()<ProdReducer<T>>();
        case ReduceOp::kMax:
            return f.template operator()<ExtremeReducer<T, true>>();
        case ReduceOp::kMin:
            return f.template operator()<ExtremeReducer<T, false>>();
        case ReduceOp::kAny:
            return f.template operator()<LogicalReducer<T, true>>();
        case ReduceOp::kAll:
            return f.template operator()<LogicalReducer<T, false>>();
    }
}

// Folds n contiguous values with kLanes accumulators, combined pairwise at the end.
template <class R>
typename R::Acc fold_lanes(const typename R::V* p, int64_t n) {
    typename R::Acc lanes[kLanes];
    for (auto& lane : lanes) lane = R::identity();
    int64_t i = 0;
    for (; i + kLanes <= n; i += kLanes) {
        // Kept a loop: fully unrolled, GCC leaves compare-and-select steps scalar.
#pragma GCC unroll 1
        for (int j = 0; j < kLanes; ++j) lanes[j] = R::step(lanes[j], p[i + j]);
    }
    for (int j = 0; i + j < n; ++j) lanes[j] = R::step(lanes[j], p[i + j]);
    for (int width = kLanes / 2; width > 0; width /= 2) {
        for (int j = 0; j < width; ++j) lanes[j] = R::combine(lanes[j], lanes[j + width]);
    }
    return lanes[0];
}

// Folds n (<= kBlock) contiguous elements of type T.
template <class R, class T>
typename R::Acc fold_block(const T* p, int64_t n) {
    ValueBuffer<T> buf;
    return fold_lanes<R>(contiguous_values(p, n, buf.data), n);
}

// Folds n contiguous elements block by block, in order.
template <class R, class T>
typename R::Acc fold_run(const T* p, int64_t n) {
    typename R::Acc acc = R::identity();
    for (int64_t b = 0; b < n; b += kBlock) acc = R::combine(acc, fold_block<R>(p + b, std::min(kBlock, n - b)));
    return acc;
}

// Writes R::finish(acc) at p.
template <class R>
void store(char* p, typename R::Acc acc) {
    *reinterpret_cast<typename R::Out*>(p) = R::finish(acc);
}

// out[o] = finish(fold over s < n_seg of seg(x_o, s)), where x_o is output o's first element.
template <class R, class SegFn>
void fold_segments(const ReducePlan& plan, int64_t n_seg, int64_t seg_elements, SegFn&& seg) {
    using Acc = typename R::Acc;
    const DimList<2>& kept = plan.kept;
    if (n_seg == 1) {
        parallel_for(plan.n_out, grain_for(seg_elements), [&](int64_t begin, int64_t end) {
            Counter<2> c(kept, kept.n, begin);
            for (int64_t o = begin; o < end; ++o, c.next())
                store<R>(plan.out + c.offset(1), seg(plan.x + c.offset(0), 0));
        });
        return;
    }
    // Not std::vector: Acc may be bool, whose packed vector would race between threads.
    const std::unique_ptr<Acc[]> partial(new Acc[static_cast<size_t>(plan.n_out * n_seg)]);
    parallel_for(plan.n_out * n_seg, grain_for(seg_elements), [&](int64_t begin, int64_t end) {
        for (int64_t t = begin; t < end; ++t) partial[t] = seg(plan.x + kept.offset_of(t / n_seg, 0), t % n_seg);
    });
    Counter<2> c(kept, kept.n, 0);
    for (int64_t o = 0; o < plan.n_out; ++o, c.next()) {
        Acc acc = partial[o * n_seg];
        for (int64_t s = 1; s < n_seg; ++s) acc = R::combine(acc, partial[o * n_seg + s]);
        store<R>(plan.out + c.offset(1), acc);
    }
}

}  // namespace rensa::native
