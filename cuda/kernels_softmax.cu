// Softmax and log-softmax along one axis, computed stably like
// core/native/kernels_softmax.cc: m = max (NaN propagates), s = sum of exp(x - m), then
// y = exp(x - m) * (1 / s) or (x - m) - log(s). float16/bfloat16 compute in float32,
// float64 in double. x is seen as rows (every dim but the axis, any strides) times the
// axis; each row is done by a group of threads (see Note [Reduction groups] in
// cuda/reduce.cuh): a thread when rows are short or the axis is strided while the rows'
// innermost dim is contiguous (softmax over the channels of NCHW: neighbouring threads
// read neighbouring columns), a warp for medium rows, a block for long ones.

#include <cmath>
#include <cstdint>
#include <limits>

#include "core/error.h"
#include "cuda/check.h"
#include "cuda/cuda_kernels.h"
#include "cuda/device_guard.h"
#include "cuda/reduce.cuh"
#include "cuda/stream.h"

namespace rensa::cuda {
namespace {

using namespace reduction;  // NOLINT: the private helpers of the reduction files (cuda/reduce.cuh)

struct SoftmaxPlan {
    Indexer rows_x, rows_y;  // every dim but the axis: strides of x and y
    int64_t rows = 1, n = 0, sx = 0, sy = 0;
    bool rows_contiguous = false;  // the innermost row dim is contiguous in x
};

SoftmaxPlan plan_softmax(const SoftmaxArgs& args) {
    const Array& x = args.x;
    DimsBuilder<2> kept;
    for (int d = 0; d < x.ndim(); ++d) {
        if (d == args.axis || x.shape()[d] == 1) continue;
        kept.push(x.shape()[d], {x.strides()[d], args.y.strides()[d]});
    }
    SoftmaxPlan plan;
    plan.rows_x = kept.indexer(0);
    plan.rows_y = kept.indexer(1);
    plan.rows = kept.size();
    plan.n = x.shape()[args.axis];
    plan.sx = x.strides()[args.axis];
    plan.sy = args.y.strides()[args.axis];
    plan.rows_contiguous = kept.n > 0 && kept.strides[0][kept.n - 1] == x.itemsize();
    return plan;
}

__device__ inline float exp_c(float v) { return expf(v); }
__device__ inline double exp_c(double v) { return exp(v); }
__device__ inline float log_c(float v) { return logf(v); }
__device__ inline double log_c(double v) { return log(v); }

// max that propagates NaN, as the max reduction.
template <class C>
__device__ inline C nan_max(C a, C v) {
    return (v > a || v != v) ? v : a;
}

template <class T>
__global__ void softmax_kernel(SoftmaxPlan plan, int group, bool log, const void* x, void* y) {
    using C = ComputeT<T>;
    __shared__ C shared[kGroupBlock / kWarp];
    const int per_block = kGroupBlock / group;
    const int lane = static_cast<int>(threadIdx.x) % group;
    const auto load = [&](const char* xr, int64_t i) { return to_compute(at_bytes<T>(xr, i * plan.sx)); };
    for (int64_t first = static_cast<int64_t>(blockIdx.x) * per_block; first < plan.rows;
         first += static_cast<int64_t>(gridDim.x) * per_block) {
        const int64_t row = first + static_cast<int64_t>(threadIdx.x) / group;
        const bool active = row < plan.rows;  // inactive threads still join the group reductions
        const char* xr = static_cast<const char*>(x) + (active ? offset_of(plan.rows_x, row) : 0);
        char* yr = static_cast<char*>(y) + (active ? offset_of(plan.rows_y, row) : 0);
        const int64_t n = active ? plan.n : 0;
        C m = -std::numeric_limits<C>::infinity();
        for (int64_t i = lane; i < n; i += group) m = nan_max(m, load(xr, i));
        m = group_allreduce(m, group, shared, [](C a, C b) { return nan_max(a, b); });
        C s = 0;
        for (int64_t i = lane; i < n; i += group) s += exp_c(load(xr, i) - m);
        s = group_allreduce(s, group, shared, [](C a, C b) { return a + b; });
        const C k = log ? log_c(s) : C{1} / s;
        for (int64_t i = lane; i < n; i += group) {
            const C v = load(xr, i) - m;
            at_bytes<T>(yr, i * plan.sy) = cast_value<T>(log ? v - k : exp_c(v) * k);
        }
    }
}

int pick_softmax_group(const SoftmaxPlan& plan, int64_t itemsize) {
    const bool axis_contiguous = plan.sx == itemsize;
    if (!axis_contiguous && plan.rows_contiguous && plan.rows >= 64) return 1;
    if (plan.n < 32) return 1;
    return plan.n >= 4096 ? kGroupBlock : kWarp;
}

}  // namespace

void CudaKernels::softmax(const SoftmaxArgs& args) {
    RENSA_ASSERT(args.x.dtype() == args.y.dtype() && args.x.shape() == args.y.shape());
    RENSA_CHECK(is_float(args.x.dtype()), DtypeError,
                "softmax: Expect: x.dtype.kind == 'f', Actual: ", dtype_name(args.x.dtype()));
    if (args.x.size() == 0) return;
    DeviceGuard guard{device_};
    const SoftmaxPlan plan = plan_softmax(args);
    const int group = pick_softmax_group(plan, args.x.itemsize());
    cudaStream_t stream = current_stream(device_);
    visit_float_dtype(args.x.dtype(), [&]<typename T>() {
        softmax_kernel<T><<<group_blocks(plan.rows, group), kGroupBlock, 0, stream>>>(
            plan, group, args.log, args.x.raw_data(), args.y.raw_data());
        check_launch("softmax_kernel");
    });
}

}  // namespace rensa::cuda
