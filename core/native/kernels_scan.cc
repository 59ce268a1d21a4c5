// cumsum: inclusive prefix sums along one axis, accumulating like SumReducer (double for
// floats, wrapping uint64 for integers). Paths as in kernels_reduce.cc: contiguous lines,
// contiguous rows of lines scanned side by side, or strided lines.
//
// A long contiguous line is cut into segments whose number depends only on the sizes:
// segment totals are summed in order into each segment's starting value, then segments
// are scanned in parallel. Results never depend on the thread count.

#include <memory>

#include "core/error.h"
#include "core/native/kernels_reduce_common.h"
#include "core/native/native_kernels.h"

namespace rensa::native {
namespace {

inline constexpr int64_t kMinScanSegment = 16384;  // elements per segment of a long line, at least
inline constexpr int kScanChains = 4;              // running sums per block of a contiguous scan

struct ScanPlan {
    const char* x = nullptr;
    char* out = nullptr;
    DimList<2> lines;  // every dim but the axis; strides of x and out
    int64_t length = 0, x_stride = 0, out_stride = 0;
    int64_t n_lines = 0;
};

ScanPlan plan_scan(const Array& x, int axis, const Array& out) {
    ScanPlan plan;
    plan.x = static_cast<const char*>(x.raw_data());
    plan.out = static_cast<char*>(out.raw_data());
    for (int d = 0; d < x.ndim(); ++d) {
        if (d != axis && x.shape()[d] != 1) plan.lines.push(x.shape()[d], {x.strides()[d], out.strides()[d]});
    }
    plan.lines.pad();
    plan.length = x.shape()[axis];
    plan.x_stride = x.strides()[axis];
    plan.out_stride = out.strides()[axis];
    plan.n_lines = plan.lines.size();
    return plan;
}

// Scans n contiguous elements starting from acc; returns the final accumulator. A serial
// scan waits on one add per element, so each block is cut into kScanChains parts scanned
// side by side from the identity, and each part is then offset by everything before it.
template <class T>
WideAcc<T> scan_contiguous(const T* x, T* out, int64_t n, WideAcc<T> acc) {
    using R = SumReducer<T>;
    ValueBuffer<T> buf;
    WideAcc<T> local[kBlock];
    for (int64_t b = 0; b < n; b += kBlock) {
        const int64_t count = std::min(kBlock, n - b), part = count / kScanChains;
        const auto* v = contiguous_values(x + b, count, buf.data);
        WideAcc<T> run[kScanChains];
        std::fill(run, run + kScanChains, R::identity());
        for (int64_t i = 0; i < part; ++i) {
            for (int c = 0; c < kScanChains; ++c) local[c * part + i] = run[c] = R::step(run[c], v[c * part + i]);
        }
        WideAcc<T>& last = run[kScanChains - 1];  // the last part also takes the remainder
        for (int64_t k = kScanChains * part; k < count; ++k) local[k] = last = R::step(last, v[k]);
        for (int c = 0; c < kScanChains; ++c) {
            const int64_t end = c + 1 < kScanChains ? (c + 1) * part : count;
            for (int64_t k = c * part; k < end; ++k) out[b + k] = R::finish(R::combine(acc, local[k]));
            acc = R::combine(acc, run[c]);
        }
    }
    return acc;
}

template <class T>
void scan_lines(const ScanPlan& plan) {
    using R = SumReducer<T>;
    using Acc = WideAcc<T>;
    const int64_t n_seg = segment_count(plan.n_lines, plan.length / kMinScanSegment);
    const int64_t total = plan.n_lines * n_seg;
    const auto bounds = [&](int64_t s) { return std::pair{plan.length * s / n_seg, plan.length * (s + 1) / n_seg}; };
    const auto line_x = [&](int64_t line) {
        return reinterpret_cast<const T*>(plan.x + plan.lines.offset_of(line, 0));
    };
    const auto line_out = [&](int64_t line) { return reinterpret_cast<T*>(plan.out + plan.lines.offset_of(line, 1)); };
    // start[t]: the accumulator before segment t % n_seg of line t / n_seg.
    const std::unique_ptr<Acc[]> start(new Acc[static_cast<size_t>(total)]());
    if (n_seg > 1) {
        parallel_for(total, 1, [&](int64_t begin, int64_t end) {
            for (int64_t t = begin; t < end; ++t) {
                const auto [e0, e1] = bounds(t % n_seg);
                start[t] = fold_run<R>(line_x(t / n_seg) + e0, e1 - e0);
            }
        });
    }
    for (int64_t line = 0; line < plan.n_lines; ++line) {
        Acc acc = R::identity();
        for (int64_t s = 0; s < n_seg; ++s) {
            const Acc segment_total = start[line * n_seg + s];
            start[line * n_seg + s] = acc;
            if (s + 1 < n_seg) acc = R::combine(acc, segment_total);
        }
    }
    parallel_for(total, grain_for(plan.length / n_seg), [&](int64_t begin, int64_t end) {
        for (int64_t t = begin; t < end; ++t) {
            const auto [e0, e1] = bounds(t % n_seg);
            scan_contiguous<T>(line_x(t / n_seg) + e0, line_out(t / n_seg) + e0, e1 - e0, start[t]);
        }
    });
}

// The innermost line dim is contiguous in x and out: kCols lines are scanned side by side.
template <class T>
void scan_rows(const ScanPlan& plan) {
    using R = SumReducer<T>;
    const DimList<2>& lines = plan.lines;
    const int64_t cols = lines.shape[lines.n - 1];
    const int64_t outer = plan.n_lines / cols, chunks = (cols + kCols - 1) / kCols;
    parallel_for(outer * chunks, grain_for(plan.length * std::min(cols, kCols)), [&](int64_t begin, int64_t end) {
        WideAcc<T> acc[kCols];
        ValueBuffer<T> buf;
        for (int64_t t = begin; t < end; ++t) {
            const int64_t j0 = t % chunks * kCols, width = std::min(kCols, cols - j0);
            const int64_t item = static_cast<int64_t>(sizeof(T)), k = t / chunks;
            const char* x = plan.x + lines.offset_of(k * cols, 0) + j0 * item;
            char* out = plan.out + lines.offset_of(k * cols, 1) + j0 * item;
            std::fill(acc, acc + width, R::identity());
            for (int64_t i = 0; i < plan.length; ++i) {
                const auto* v = contiguous_values(reinterpret_cast<const T*>(x + i * plan.x_stride), width, buf.data);
                T* o = reinterpret_cast<T*>(out + i * plan.out_stride);
                for (int64_t j = 0; j < width; ++j) {
                    acc[j] = R::step(acc[j], v[j]);
                    o[j] = R::finish(acc[j]);
                }
            }
        }
    });
}

template <class T>
void scan_strided(const ScanPlan& plan) {
    using R = SumReducer<T>;
    parallel_for(plan.n_lines, grain_for(plan.length), [&](int64_t begin, int64_t end) {
        Counter<2> line(plan.lines, plan.lines.n, begin);
        for (int64_t l = begin; l < end; ++l, line.next()) {
            const char* x = plan.x + line.offset(0);
            char* out = plan.out + line.offset(1);
            WideAcc<T> acc = R::identity();
            for (int64_t i = 0; i < plan.length; ++i) {
                acc = R::step(acc, load_value<T>(x + i * plan.x_stride));
                *reinterpret_cast<T*>(out + i * plan.out_stride) = R::finish(acc);
            }
        }
    });
}

}  // namespace

void NativeKernels::cumsum(const Array& x, int axis, const Array& out) {
    RENSA_ASSERT(x.dtype() == out.dtype() && x.shape() == out.shape());
    if (x.size() == 0) return;
    const ScanPlan plan = plan_scan(x, axis, out);
    visit_dtype(x.dtype(), [&]<typename T>() {
        const auto item = static_cast<int64_t>(sizeof(T));
        const int k = plan.lines.n - 1;
        if (plan.x_stride == item && plan.out_stride == item) return scan_lines<T>(plan);
        if (plan.lines.strides[0][k] == item && plan.lines.strides[1][k] == item) return scan_rows<T>(plan);
        scan_strided<T>(plan);
    });
}

}  // namespace rensa::native
