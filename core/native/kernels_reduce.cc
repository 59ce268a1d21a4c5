// Reductions (sum, prod, max, min, any, all) over any set of axes. Three paths, picked
// from the plan's innermost dims (see Note [Reduction plans]):
//   inner:   the innermost reduced dim is contiguous: fixed blocks folded with lanes;
//   rows:    the innermost kept dim is contiguous in x and out: whole rows are folded
//            into a row of accumulators (out[j] += x[i, j]), which vectorises over j;
//   strided: anything else, one output at a time.
// All of them follow Note [Deterministic reductions].

#include <memory>

#include "core/error.h"
#include "core/native/kernels_reduce_common.h"
#include "core/native/native_kernels.h"
#include "core/native/strided_loop.h"

namespace rensa::native {
namespace {

inline constexpr int64_t kMinSegmentRows = 16;  // reduced rows per segment in the rows path, at least

// The innermost reduced dim is contiguous: an output's reduced elements are runs of L
// elements, cut into blocks of kBlock; its units (run, block) are split into segments.
template <class R, class T>
void reduce_inner(const ReducePlan& plan) {
    const DimList<1>& red = plan.red;
    const int64_t length = red.shape[red.n - 1];
    const int64_t blocks_per_run = (length + kBlock - 1) / kBlock;
    const int64_t units = plan.n_red_total / length * blocks_per_run;
    const int64_t n_seg = segment_count(plan.n_out, units);
    const auto seg = [&](const char* xo, int64_t s) {
        const int64_t u0 = units * s / n_seg, u1 = units * (s + 1) / n_seg;
        Counter<1> run(red, red.n - 1, u0 / blocks_per_run);
        typename R::Acc acc = R::identity();
        for (int64_t u = u0; u < u1; run.next()) {
            const T* p = reinterpret_cast<const T*>(xo + run.offset(0));
            for (int64_t b = u % blocks_per_run; b < blocks_per_run && u < u1; ++b, ++u) {
                acc = R::combine(acc, fold_block<R>(p + b * kBlock, std::min(kBlock, length - b * kBlock)));
            }
        }
        return acc;
    };
    fold_segments<R>(plan, n_seg, plan.n_red_total / n_seg, seg);
}

// Any strides: each segment walks the reduced index space with a counter.
template <class R, class T>
void reduce_strided(const ReducePlan& plan) {
    const DimList<1>& red = plan.red;
    const int inner = red.n - 1;
    const int64_t length = red.shape[inner], stride = red.strides[0][inner];
    const int64_t total = plan.n_red_total;
    const int64_t n_seg = segment_count(plan.n_out, total / kBlock);
    const auto seg = [&](const char* xo, int64_t s) {
        const int64_t e0 = total * s / n_seg, e1 = total * (s + 1) / n_seg;
        Counter<1> outer(red, inner, e0 / length);
        typename R::Acc acc = R::identity();
        for (int64_t i = e0; i < e1; outer.next()) {
            const int64_t j = i % length;
            const int64_t count = std::min(length - j, e1 - i);
            const char* p = xo + outer.offset(0) + j * stride;
            for (int64_t k = 0; k < count; ++k) acc = R::step(acc, load_value<T>(p + k * stride));
            i += count;
        }
        return acc;
    };
    fold_segments<R>(plan, n_seg, total / n_seg, seg);
}

// Folds reduced rows [r0, r1) of `width` contiguous columns at xk into acc[0, width).
// When rows follow each other in memory (`packed`), kCols / width of them are folded at
// once as one contiguous stretch, element i into wide[i], and the partial rows are then
// combined in order: narrow rows (sum over axis 0 of an (N, 2) array) vectorise too.
template <class R, class T>
void fold_rows(const ReducePlan& plan, const char* xk, int64_t r0, int64_t r1, int64_t width, bool packed,
               typename R::Acc* acc) {
    const DimList<1>& red = plan.red;
    const int inner = red.n - 1;
    const int64_t run = red.shape[inner], stride = red.strides[0][inner];
    const int64_t group = packed ? std::max<int64_t>(1, kCols / width) : 1;
    typename R::Acc wide[kCols];
    std::fill(wide, wide + group * width, R::identity());
    ValueBuffer<T> buf;
    Counter<1> outer(red, inner, r0 / run);
    for (int64_t r = r0; r < r1; outer.next()) {
        const int64_t first = r % run, end = std::min(run, first + (r1 - r));
        for (int64_t p = first; p < end;) {
            const int64_t n = std::min(group, end - p) * width;
            const auto* v =
                contiguous_values(reinterpret_cast<const T*>(xk + outer.offset(0) + p * stride), n, buf.data);
            for (int64_t i = 0; i < n; ++i) wide[i] = R::step(wide[i], v[i]);
            p += n / width;
        }
        r += end - first;
    }
    std::copy(wide, wide + width, acc);
    for (int64_t k = 1; k < group; ++k) {
        for (int64_t j = 0; j < width; ++j) acc[j] = R::combine(acc[j], wide[k * width + j]);
    }
}

// The innermost kept dim (M columns) is contiguous in x and out. A task folds the reduced
// rows of one segment for kCols columns of one outer kept index.
template <class R, class T>
void reduce_rows(const ReducePlan& plan) {
    using Acc = typename R::Acc;
    const DimList<2>& kept = plan.kept;
    const int64_t cols = kept.shape[kept.n - 1];
    const int64_t outer = plan.n_out / cols, chunks = (cols + kCols - 1) / kCols;
    const int64_t rows = plan.n_red_total;
    const int64_t n_seg = segment_count(outer * chunks, rows / kMinSegmentRows);
    const bool packed = chunks == 1 && plan.red.strides[0][plan.red.n - 1] == cols * static_cast<int64_t>(sizeof(T));
    const std::unique_ptr<Acc[]> partial(n_seg > 1 ? new Acc[static_cast<size_t>(plan.n_out * n_seg)] : nullptr);
    const int64_t tasks = n_seg * outer * chunks;
    const int64_t task_elements = rows / n_seg * std::min(cols, kCols);
    parallel_for(tasks, grain_for(task_elements), [&](int64_t begin, int64_t end) {
        Acc acc[kCols];
        for (int64_t t = begin; t < end; ++t) {
            const int64_t c = t % chunks, k = t / chunks % outer, s = t / (chunks * outer);
            const int64_t j0 = c * kCols, width = std::min(kCols, cols - j0);
            const char* xk = plan.x + kept.offset_of(k * cols, 0) + j0 * static_cast<int64_t>(sizeof(T));
            fold_rows<R, T>(plan, xk, rows * s / n_seg, rows * (s + 1) / n_seg, width, packed, acc);
            if (n_seg > 1) {
                std::copy(acc, acc + width, partial.get() + s * plan.n_out + k * cols + j0);
                continue;
            }
            auto* out = reinterpret_cast<typename R::Out*>(plan.out + kept.offset_of(k * cols, 1)) + j0;
            for (int64_t j = 0; j < width; ++j) out[j] = R::finish(acc[j]);
        }
    });
    if (n_seg == 1) return;
    parallel_for(outer, grain_for(cols * n_seg), [&](int64_t begin, int64_t end) {
        for (int64_t k = begin; k < end; ++k) {
            auto* out = reinterpret_cast<typename R::Out*>(plan.out + kept.offset_of(k * cols, 1));
            for (int64_t j = 0; j < cols; ++j) {
                Acc a = partial[k * cols + j];
                for (int64_t s = 1; s < n_seg; ++s) a = R::combine(a, partial[s * plan.n_out + k * cols + j]);
                out[j] = R::finish(a);
            }
        }
    });
}

template <class R>
void fill_identity(const Array& out) {
    const typename R::Out v = R::finish(R::identity());
    for_each_run(plan_loop<1>({&out}), [v](std::array<char*, 1> p, const int64_t* s, int64_t n) {
        for (int64_t i = 0; i < n; ++i) *reinterpret_cast<typename R::Out*>(p[0] + i * s[0]) = v;
    });
}

template <class R, class T>
void reduce_typed(const Array& x, const Axes& axes, const Array& out) {
    if (out.size() == 0) return;
    if (x.size() == 0) return fill_identity<R>(out);
    const ReducePlan plan = plan_reduction(x, axes, out);
    const auto item = static_cast<int64_t>(sizeof(T));
    const int r = plan.red.n - 1, k = plan.kept.n - 1;
    if (plan.red.strides[0][r] == item && plan.red.shape[r] >= kLanes) return reduce_inner<R, T>(plan);
    if (plan.kept.strides[0][k] == item && plan.kept.strides[1][k] == item) return reduce_rows<R, T>(plan);
    reduce_strided<R, T>(plan);
}

}  // namespace

void NativeKernels::reduce(ReduceOp op, const Array& x, const Axes& axes, const Array& out) {
    RENSA_ASSERT(x.dtype() == out.dtype() && x.ndim() == out.ndim());
    visit_dtype(x.dtype(),
                [&]<typename T>() { visit_reducer<T>(op, [&]<class R>() { reduce_typed<R, T>(x, axes, out); }); });
}

}  // namespace rensa::native
