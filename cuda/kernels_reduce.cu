// reduce (every ReduceOp over any sorted axes) and arg_reduce (argmax/argmin along one
// axis) on the GPU, with the semantics of core/native/kernels_reduce*.cc: float sums and
// products accumulate in double, integer ones in wrapping uint64, max/min propagate NaN,
// empty reductions give the identity, argmax/argmin give the first extreme (NaN counting
// as the extreme). Each output's reduced elements are folded by a group of threads (see
// Note [Reduction groups] in cuda/reduce.cuh); segments of one output go through a
// scratch buffer of partial results folded in order by a second kernel.

#include <algorithm>
#include <cstdint>

#include "core/error.h"
#include "cuda/allocator.h"
#include "cuda/check.h"
#include "cuda/cuda_kernels.h"
#include "cuda/device_guard.h"
#include "cuda/launch.cuh"
#include "cuda/reduce.cuh"
#include "cuda/stream.h"

namespace rensa::cuda {
namespace {

using namespace reduction;  // NOLINT: the private helpers of the reduction files (cuda/reduce.cuh)

// x's dims split into kept ones (strides of x and out) and reduced ones (strides of x,
// ordered by decreasing |stride| so transposed views of contiguous memory merge), as in
// core/native's plan_reduction. Length-1 dims are dropped.
struct ReducePlan {
    Indexer kept_x, kept_out, red_x;
    int64_t n_out = 1, n_red = 1;
    bool red_contiguous = false;   // the innermost reduced dim is contiguous in x
    bool kept_contiguous = false;  // the innermost kept dim is contiguous in x
};

ReducePlan plan_reduction(const Array& x, const Axes& axes, const Array& out) {
    bool reduced[kMaxNdim] = {};
    for (const int a : axes) reduced[a] = true;
    DimsBuilder<2> kept;
    DimsBuilder<1> red;
    int red_dims[kMaxNdim];
    int n_red_dims = 0;
    for (int d = 0; d < x.ndim(); ++d) {
        if (x.shape()[d] == 1) continue;
        if (reduced[d]) {
            red_dims[n_red_dims++] = d;
        } else {
            kept.push(x.shape()[d], {x.strides()[d], out.strides()[d]});
        }
    }
    const auto abs_stride = [&](int d) { return x.strides()[d] < 0 ? -x.strides()[d] : x.strides()[d]; };
    std::stable_sort(red_dims, red_dims + n_red_dims, [&](int a, int b) { return abs_stride(a) > abs_stride(b); });
    for (int i = 0; i < n_red_dims; ++i) red.push(x.shape()[red_dims[i]], {x.strides()[red_dims[i]]});
    ReducePlan plan;
    plan.kept_x = kept.indexer(0);
    plan.kept_out = kept.indexer(1);
    plan.red_x = red.indexer(0);
    plan.n_out = kept.size();
    plan.n_red = red.size();
    plan.red_contiguous = red.n > 0 && red.strides[0][red.n - 1] == x.itemsize();
    plan.kept_contiguous = kept.n > 0 && kept.strides[0][kept.n - 1] == x.itemsize();
    return plan;
}

// Launch geometry: `group` threads per (output, segment) unit; unit u is segment
// u / n_out of output u % n_out, so neighbouring threads of group 1 read neighbouring
// columns.
struct Geometry {
    int group = 1;
    int64_t n_seg = 1;
};

Geometry pick_geometry(const ReducePlan& plan) {
    Geometry g;
    g.group = pick_group(plan.n_out, plan.n_red, plan.red_contiguous, plan.kept_contiguous);
    g.n_seg = pick_segments(plan.n_out, plan.n_red, g.group);
    return g;
}

// Folds segment s of output o: reduced elements [n_red * s / n_seg, n_red * (s + 1) / n_seg),
// lane-strided over the group; every thread of the group returns the group's result.
template <class T>
__global__ void reduce_kernel(Reducer<T> r, ReducePlan plan, Geometry g, const void* x, void* out,
                              WideAcc<T>* partial) {
    using Acc = WideAcc<T>;
    __shared__ Acc shared[kGroupBlock / kWarp];
    const int per_block = kGroupBlock / g.group;
    const int lane = static_cast<int>(threadIdx.x) % g.group;
    const int64_t units = plan.n_out * g.n_seg;
    for (int64_t first = static_cast<int64_t>(blockIdx.x) * per_block; first < units;
         first += static_cast<int64_t>(gridDim.x) * per_block) {
        const int64_t u = first + static_cast<int64_t>(threadIdx.x) / g.group;
        Acc acc = r.identity();
        const int64_t o = u % plan.n_out, s = u / plan.n_out;
        if (u < units) {
            const char* xo = static_cast<const char*>(x) + offset_of(plan.kept_x, o);
            const int64_t r0 = plan.n_red * s / g.n_seg, r1 = plan.n_red * (s + 1) / g.n_seg;
            for (int64_t i = r0 + lane; i < r1; i += g.group) {
                acc = r.step(acc, to_compute(at_bytes<T>(xo, offset_of(plan.red_x, i))));
            }
        }
        acc = group_allreduce(acc, g.group, shared, [&](Acc a, Acc b) { return r.combine(a, b); });
        if (u < units && lane == 0) {
            if (g.n_seg == 1) {
                at_bytes<T>(out, offset_of(plan.kept_out, o)) = r.finish(acc);
            } else {
                partial[u] = acc;
            }
        }
    }
}

// out[o] = the segments' partial results of output o folded in order.
template <class T>
__global__ void reduce_finish_kernel(Reducer<T> r, ReducePlan plan, int64_t n_seg, const WideAcc<T>* partial,
                                     void* out) {
    for (int64_t o = grid_index(); o < plan.n_out; o += grid_stride()) {
        WideAcc<T> acc = partial[o];
        for (int64_t s = 1; s < n_seg; ++s) acc = r.combine(acc, partial[s * plan.n_out + o]);
        at_bytes<T>(out, offset_of(plan.kept_out, o)) = r.finish(acc);
    }
}

template <class T>
void reduce_typed(int device, ReduceOp op, const Array& x, const Axes& axes, const Array& out) {
    const ReducePlan plan = plan_reduction(x, axes, out);
    const Geometry g = pick_geometry(plan);
    const Reducer<T> r{op};
    cudaStream_t stream = current_stream(device);
    std::shared_ptr<Storage> scratch;
    WideAcc<T>* partial = nullptr;
    if (g.n_seg > 1) {
        scratch = caching_allocator(device).allocate(plan.n_out * g.n_seg * static_cast<int64_t>(sizeof(WideAcc<T>)));
        partial = static_cast<WideAcc<T>*>(scratch->data());
    }
    reduce_kernel<T><<<group_blocks(plan.n_out * g.n_seg, g.group), kGroupBlock, 0, stream>>>(r, plan, g, x.raw_data(),
                                                                                              out.raw_data(), partial);
    check_launch("reduce_kernel");
    if (g.n_seg == 1) return;
    reduce_finish_kernel<T><<<grid_for(plan.n_out), kThreads, 0, stream>>>(r, plan, g.n_seg, partial, out.raw_data());
    check_launch("reduce_finish_kernel");
}

// --- arg_reduce: (value, index) pairs; index -1 is the identity. A pair wins when its
// value is better (NaN beats numbers) or equal with a smaller index, so the first
// extreme wins whatever order the lanes and segments combine in.

template <class T>
struct ArgAcc {
    ComputeT<T> value;
    int64_t index;
};

template <class T>
struct ArgReducer {
    using V = ComputeT<T>;
    bool max;

    __device__ bool better(V v, V best) const {
        if constexpr (kIsFloating<T>) {
            return (max ? v > best : v < best) || (v != v && best == best);
        } else {
            return max ? v > best : v < best;
        }
    }
    __device__ ArgAcc<T> combine(ArgAcc<T> a, ArgAcc<T> b) const {
        if (b.index < 0) return a;
        if (a.index < 0) return b;
        if (better(b.value, a.value)) return b;
        if (better(a.value, b.value)) return a;
        return b.index < a.index ? b : a;
    }
};

template <class T>
__device__ ArgAcc<T> arg_group_allreduce(ArgReducer<T> r, ArgAcc<T> acc, int group, ComputeT<T>* shared_value,
                                         int64_t* shared_index) {
    if (group == 1) return acc;
    for (int delta = kWarp / 2; delta > 0; delta /= 2) {
        const ArgAcc<T> other{shfl_down(acc.value, delta), shfl_down(acc.index, delta)};
        acc = r.combine(acc, other);
    }
    acc = {shfl_from(acc.value, 0), shfl_from(acc.index, 0)};
    if (group == kWarp) return acc;
    const int warp = static_cast<int>(threadIdx.x) / kWarp;
    if (threadIdx.x % kWarp == 0) {
        shared_value[warp] = acc.value;
        shared_index[warp] = acc.index;
    }
    __syncthreads();
    ArgAcc<T> total{shared_value[0], shared_index[0]};
    for (int w = 1; w < kGroupBlock / kWarp; ++w) total = r.combine(total, {shared_value[w], shared_index[w]});
    __syncthreads();
    return total;
}

template <class T>
__global__ void arg_reduce_kernel(ArgReducer<T> r, ReducePlan plan, Geometry g, const void* x, void* out,
                                  ArgAcc<T>* partial) {
    __shared__ ComputeT<T> shared_value[kGroupBlock / kWarp];
    __shared__ int64_t shared_index[kGroupBlock / kWarp];
    const int per_block = kGroupBlock / g.group;
    const int lane = static_cast<int>(threadIdx.x) % g.group;
    const int64_t units = plan.n_out * g.n_seg;
    for (int64_t first = static_cast<int64_t>(blockIdx.x) * per_block; first < units;
         first += static_cast<int64_t>(gridDim.x) * per_block) {
        const int64_t u = first + static_cast<int64_t>(threadIdx.x) / g.group;
        ArgAcc<T> acc{ComputeT<T>{}, -1};
        const int64_t o = u % plan.n_out, s = u / plan.n_out;
        if (u < units) {
            const char* xo = static_cast<const char*>(x) + offset_of(plan.kept_x, o);
            const int64_t r0 = plan.n_red * s / g.n_seg, r1 = plan.n_red * (s + 1) / g.n_seg;
            for (int64_t i = r0 + lane; i < r1; i += g.group) {
                acc = r.combine(acc, {to_compute(at_bytes<T>(xo, offset_of(plan.red_x, i))), i});
            }
        }
        acc = arg_group_allreduce(r, acc, g.group, shared_value, shared_index);
        if (u < units && lane == 0) {
            if (g.n_seg == 1) {
                at_bytes<int64_t>(out, offset_of(plan.kept_out, o)) = acc.index;
            } else {
                partial[u] = acc;
            }
        }
    }
}

template <class T>
__global__ void arg_reduce_finish_kernel(ArgReducer<T> r, ReducePlan plan, int64_t n_seg, const ArgAcc<T>* partial,
                                         void* out) {
    for (int64_t o = grid_index(); o < plan.n_out; o += grid_stride()) {
        ArgAcc<T> acc = partial[o];
        for (int64_t s = 1; s < n_seg; ++s) acc = r.combine(acc, partial[s * plan.n_out + o]);
        at_bytes<int64_t>(out, offset_of(plan.kept_out, o)) = acc.index;
    }
}

template <class T>
void arg_reduce_typed(int device, ArgReduceOp op, const Array& x, int axis, const Array& out) {
    const ReducePlan plan = plan_reduction(x, Axes{axis}, out);
    const Geometry g = pick_geometry(plan);
    const ArgReducer<T> r{op == ArgReduceOp::kArgMax};
    cudaStream_t stream = current_stream(device);
    std::shared_ptr<Storage> scratch;
    ArgAcc<T>* partial = nullptr;
    if (g.n_seg > 1) {
        scratch = caching_allocator(device).allocate(plan.n_out * g.n_seg * static_cast<int64_t>(sizeof(ArgAcc<T>)));
        partial = static_cast<ArgAcc<T>*>(scratch->data());
    }
    arg_reduce_kernel<T><<<group_blocks(plan.n_out * g.n_seg, g.group), kGroupBlock, 0, stream>>>(
        r, plan, g, x.raw_data(), out.raw_data(), partial);
    check_launch("arg_reduce_kernel");
    if (g.n_seg == 1) return;
    arg_reduce_finish_kernel<T>
        <<<grid_for(plan.n_out), kThreads, 0, stream>>>(r, plan, g.n_seg, partial, out.raw_data());
    check_launch("arg_reduce_finish_kernel");
}

}  // namespace

void CudaKernels::reduce(ReduceOp op, const Array& x, const Axes& axes, const Array& out) {
    RENSA_ASSERT(x.dtype() == out.dtype() && x.ndim() == out.ndim());
    if (out.size() == 0) return;
    DeviceGuard guard{device_};
    visit_dtype(x.dtype(), [&]<typename T>() { reduce_typed<T>(device_, op, x, axes, out); });
}

void CudaKernels::arg_reduce(ArgReduceOp op, const Array& x, int axis, const Array& out) {
    RENSA_ASSERT(out.dtype() == Dtype::kInt64 && x.shape()[axis] > 0);
    if (out.size() == 0) return;
    DeviceGuard guard{device_};
    visit_dtype(x.dtype(), [&]<typename T>() { arg_reduce_typed<T>(device_, op, x, axis, out); });
}

}  // namespace rensa::cuda
