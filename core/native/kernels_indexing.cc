// take (gather) and scatter_add along an axis.
//
// Note [Gather/scatter as strided loops]: with B = x.shape[:axis], J = indices.shape and
// I = x.shape[axis+1:], every element of take's output (shape B + J + I) reads
// x[b, indices[j], i]. Viewing x with the output's shape (strides of B and I kept, zero
// on J) and indices with the output's shape (zero on B and I) turns take into a
// three-operand strided loop: the element address is the x view's address plus
// indices[j] * x.strides[axis]. scatter_add walks B + I in parallel and J in order inside,
// so each target element receives its contributions in index order on one thread: repeated
// indices never race and the sums never depend on the thread count.

#include <cstring>
#include <vector>

#include "core/native/dtype_dispatch.h"
#include "core/native/native_kernels.h"
#include "core/native/strided_loop.h"

namespace rensa::native {
namespace {

// `a` seen with `shape` = B + (num_j zero-stride dims) + I, where `a` has B first, then
// `skip` dims of its own (x's axis, or values' J dims) and then I.
Array view_over(const Array& a, const Shape& shape, int axis, int num_j, int skip) {
    Strides strides(shape.size(), 0);
    for (int d = 0; d < axis; ++d) strides[d] = a.strides()[d];
    for (int d = axis + num_j; d < shape.size(); ++d) strides[d] = a.strides()[d - num_j + skip];
    return Array(a.storage(), shape, strides, a.offset(), a.dtype());
}

// `indices` seen with shape B + J + I: its own strides on J, zero on B and I.
Array indices_over(const Array& indices, const Shape& shape, int axis) {
    Strides strides(shape.size(), 0);
    for (int d = 0; d < indices.ndim(); ++d) strides[axis + d] = indices.strides()[d];
    return Array(indices.storage(), shape, strides, indices.offset(), indices.dtype());
}

// Walks elements [begin, end) of the plan in row-major order, calling
// fn(ptrs, inner_strides, count) once per piece of an innermost run.
template <int N, class Fn>
void for_each_in_range(const LoopPlan<N>& plan, int64_t begin, int64_t end, Fn&& fn) {
    const int inner_dim = plan.ndim - 1;
    const int64_t inner = plan.shape[inner_dim];
    int64_t inner_strides[N];
    for (int k = 0; k < N; ++k) inner_strides[k] = plan.strides[k][inner_dim];
    for (int64_t pos = begin; pos < end;) {
        int64_t rem = pos / inner;
        const int64_t i0 = pos % inner;
        std::array<char*, N> ptrs = plan.base;
        for (int d = inner_dim - 1; d >= 0; --d) {
            for (int k = 0; k < N; ++k) ptrs[k] += (rem % plan.shape[d]) * plan.strides[k][d];
            rem /= plan.shape[d];
        }
        for (int k = 0; k < N; ++k) ptrs[k] += i0 * inner_strides[k];
        const int64_t count = std::min(inner - i0, end - pos);
        fn(ptrs, static_cast<const int64_t*>(inner_strides), count);
        pos += count;
    }
}

// Byte offsets of every j of J (row-major over indices.shape) in `values`, whose J dims
// start at `axis`, and of the target row indices[j] selects.
struct ScatterOffsets {
    std::vector<int64_t> values, target;
};

ScatterOffsets scatter_offsets(const ScatterAddArgs& args) {
    const std::vector<int64_t> idx = args.indices.to_vector<int64_t>();
    const int num_j = args.indices.ndim();
    ScatterOffsets off{std::vector<int64_t>(idx.size()), std::vector<int64_t>(idx.size())};
    int64_t counter[kMaxNdim] = {};
    int64_t values_offset = 0;
    for (size_t j = 0; j < idx.size(); ++j) {
        off.values[j] = values_offset;
        off.target[j] = idx[j] * args.target.strides()[args.axis];
        for (int d = num_j - 1; d >= 0; --d) {  // advance the J counter
            const int64_t stride = args.values.strides()[args.axis + d];
            values_offset += stride;
            if (++counter[d] < args.indices.shape()[d]) break;
            values_offset -= counter[d] * stride;
            counter[d] = 0;
        }
    }
    return off;
}

}  // namespace

void NativeKernels::take(const TakeArgs& args) {
    const Array& out = args.out;
    const int num_j = args.indices.ndim();
    const Array x_view = view_over(args.x, out.shape(), args.axis, num_j, /*skip=*/1);
    const Array idx_view = indices_over(args.indices, out.shape(), args.axis);
    const int64_t axis_stride = args.x.strides()[args.axis];
    const LoopPlan<3> plan = plan_loop<3>({&out, &x_view, &idx_view});
    visit_dtype(out.dtype(), [&]<typename T>() {
        for_each_run(plan, [axis_stride](std::array<char*, 3> p, const int64_t* s, int64_t n) {
            if (s[2] == 0) {  // one index for the whole run: a strided copy of one row
                const char* src = p[1] + *reinterpret_cast<const int64_t*>(p[2]) * axis_stride;
                if (s[0] == sizeof(T) && s[1] == sizeof(T)) {
                    std::memcpy(p[0], src, static_cast<size_t>(n) * sizeof(T));
                    return;
                }
                for (int64_t i = 0; i < n; ++i) {
                    *reinterpret_cast<T*>(p[0] + i * s[0]) = *reinterpret_cast<const T*>(src + i * s[1]);
                }
                return;
            }
            for (int64_t i = 0; i < n; ++i) {
                const int64_t index = *reinterpret_cast<const int64_t*>(p[2] + i * s[2]);
                *reinterpret_cast<T*>(p[0] + i * s[0]) =
                    *reinterpret_cast<const T*>(p[1] + i * s[1] + index * axis_stride);
            }
        });
    });
}

void NativeKernels::scatter_add(const ScatterAddArgs& args) {
    const Array& target = args.target;
    if (args.values.size() == 0) return;
    // B + I: the target's shape without its axis, walked together with values at j = 0.
    Shape outer_shape = target.shape();
    outer_shape.erase(args.axis);
    const Array target_view = view_over(target, outer_shape, args.axis, 0, /*skip=*/1);
    const Array values_view = view_over(args.values, outer_shape, args.axis, 0, /*skip=*/args.indices.ndim());
    const LoopPlan<2> plan = plan_loop<2>({&target_view, &values_view});
    const ScatterOffsets off = scatter_offsets(args);
    const auto num_j = static_cast<int64_t>(off.values.size());
    visit_dtype(target.dtype(), [&]<typename T>() {
        using C = ComputeT<T>;
        auto add_run = [&](std::array<char*, 2> p, const int64_t* s, int64_t n) {
            for (int64_t j = 0; j < num_j; ++j) {  // in index order: see the Note above
                char* t = p[0] + off.target[static_cast<size_t>(j)];
                const char* v = p[1] + off.values[static_cast<size_t>(j)];
                for (int64_t i = 0; i < n; ++i) {
                    T& dst = *reinterpret_cast<T*>(t + i * s[0]);
                    const T src = *reinterpret_cast<const T*>(v + i * s[1]);
                    dst = cast_value<T>(static_cast<C>(dst) + static_cast<C>(src));
                }
            }
        };
        // Each element of B + I costs num_j additions: size the grain by work, not elements.
        const int64_t grain = std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(num_j, 1));
        parallel_for(plan.size, grain,
                     [&](int64_t begin, int64_t end) { for_each_in_range(plan, begin, end, add_run); });
    });
}

}  // namespace rensa::native
