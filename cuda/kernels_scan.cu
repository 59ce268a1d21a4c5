// cumsum: inclusive prefix sums along one axis, accumulating like core/native's
// SumReducer (double for floats, wrapping uint64 for integers and bool). Two paths:
//   lines:  one thread per line walks it serially (short lines, or many strided ones:
//           neighbouring threads then read neighbouring columns);
//   blocks: a block scans a stretch of a line in chunks of kGroupBlock elements
//           (warp shuffles, then the warp totals). Long lines are cut into segments
//           whose number depends only on the sizes: a first kernel sums each segment,
//           a second turns the sums into each segment's starting value, in order.

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

inline constexpr int64_t kMinBlockLine = 256;     // lines at least this long may use blocks
inline constexpr int64_t kManyLines = 4096;       // this many strided lines use threads
inline constexpr int64_t kMinSegment = 8192;      // elements per segment of a long line, at least
inline constexpr int64_t kTargetSegments = 1024;  // (line, segment) units wanted in all

struct ScanPlan {
    Indexer lines_x, lines_out;  // every dim but the axis (length-1 dims dropped)
    int64_t n_lines = 1, length = 0, x_stride = 0, out_stride = 0;
    int64_t n_seg = 1;  // segments per line (block path)
};

ScanPlan plan_scan(const Array& x, int axis, const Array& out) {
    DimsBuilder<2> lines;
    for (int d = 0; d < x.ndim(); ++d) {
        if (d != axis && x.shape()[d] != 1) lines.push(x.shape()[d], {x.strides()[d], out.strides()[d]});
    }
    ScanPlan plan;
    plan.lines_x = lines.indexer(0);
    plan.lines_out = lines.indexer(1);
    plan.n_lines = lines.size();
    plan.length = x.shape()[axis];
    plan.x_stride = x.strides()[axis];
    plan.out_stride = out.strides()[axis];
    return plan;
}

template <class T>
__global__ void scan_lines_kernel(ScanPlan plan, const void* x, void* out) {
    const Reducer<T> r{ReduceOp::kSum};
    for (int64_t line = grid_index(); line < plan.n_lines; line += grid_stride()) {
        const char* xl = static_cast<const char*>(x) + offset_of(plan.lines_x, line);
        char* ol = static_cast<char*>(out) + offset_of(plan.lines_out, line);
        WideAcc<T> acc = r.identity();
        for (int64_t i = 0; i < plan.length; ++i) {
            acc = r.step(acc, to_compute(at_bytes<T>(xl, i * plan.x_stride)));
            at_bytes<T>(ol, i * plan.out_stride) = r.finish(acc);
        }
    }
}

// Bounds of segment s of a line.
__device__ inline int64_t segment_begin(const ScanPlan& plan, int64_t s) { return plan.length * s / plan.n_seg; }

// totals[u] = sum of segment u % n_seg of line u / n_seg (a block per unit).
template <class T>
__global__ void segment_total_kernel(ScanPlan plan, const void* x, WideAcc<T>* totals) {
    using Acc = WideAcc<T>;
    __shared__ Acc shared[kGroupBlock / kWarp];
    const Reducer<T> r{ReduceOp::kSum};
    for (int64_t u = blockIdx.x; u < plan.n_lines * plan.n_seg; u += gridDim.x) {
        const int64_t line = u / plan.n_seg, s = u % plan.n_seg;
        const char* xl = static_cast<const char*>(x) + offset_of(plan.lines_x, line);
        Acc acc = r.identity();
        for (int64_t i = segment_begin(plan, s) + threadIdx.x; i < segment_begin(plan, s + 1); i += kGroupBlock) {
            acc = r.step(acc, to_compute(at_bytes<T>(xl, i * plan.x_stride)));
        }
        acc = group_allreduce(acc, kGroupBlock, shared, [&](Acc a, Acc b) { return a + b; });
        if (threadIdx.x == 0) totals[u] = acc;
    }
}

// Segment totals of each line become the segments' starting values (exclusive scan, in order).
template <class T>
__global__ void segment_start_kernel(ScanPlan plan, WideAcc<T>* totals) {
    const Reducer<T> r{ReduceOp::kSum};
    for (int64_t line = grid_index(); line < plan.n_lines; line += grid_stride()) {
        WideAcc<T> acc = r.identity();
        for (int64_t s = 0; s < plan.n_seg; ++s) {
            const WideAcc<T> total = totals[line * plan.n_seg + s];
            totals[line * plan.n_seg + s] = acc;
            acc = acc + total;
        }
    }
}

// Inclusive scan of v over the block (kGroupBlock threads, all calling); `total` gets the
// block's sum. warp_totals holds kGroupBlock / kWarp entries.
template <class A>
__device__ A block_inclusive_scan(A v, A identity, A* warp_totals, A& total) {
    const int lane = static_cast<int>(threadIdx.x) % kWarp, warp = static_cast<int>(threadIdx.x) / kWarp;
    for (int delta = 1; delta < kWarp; delta *= 2) {
        const A earlier = shfl_up(v, delta);
        if (lane >= delta) v = earlier + v;
    }
    if (lane == kWarp - 1) warp_totals[warp] = v;
    __syncthreads();
    A prefix = identity;
    total = identity;
    for (int w = 0; w < kGroupBlock / kWarp; ++w) {
        if (w < warp) prefix = prefix + warp_totals[w];
        total = total + warp_totals[w];
    }
    __syncthreads();  // warp_totals is written again by the next call
    return prefix + v;
}

// Scans segment u % n_seg of line u / n_seg from its starting value (identity when
// `starts` is null), a chunk of kGroupBlock elements at a time.
template <class T>
__global__ void scan_blocks_kernel(ScanPlan plan, const void* x, void* out, const WideAcc<T>* starts) {
    using Acc = WideAcc<T>;
    __shared__ Acc warp_totals[kGroupBlock / kWarp];
    const Reducer<T> r{ReduceOp::kSum};
    for (int64_t u = blockIdx.x; u < plan.n_lines * plan.n_seg; u += gridDim.x) {
        const int64_t line = u / plan.n_seg, s = u % plan.n_seg;
        const char* xl = static_cast<const char*>(x) + offset_of(plan.lines_x, line);
        char* ol = static_cast<char*>(out) + offset_of(plan.lines_out, line);
        Acc carry = starts != nullptr ? starts[u] : r.identity();
        const int64_t end = segment_begin(plan, s + 1);
        for (int64_t chunk = segment_begin(plan, s); chunk < end; chunk += kGroupBlock) {
            const int64_t i = chunk + threadIdx.x;
            Acc v = r.identity();
            if (i < end) v = r.to_acc(to_compute(at_bytes<T>(xl, i * plan.x_stride)));
            Acc total;
            v = block_inclusive_scan(v, r.identity(), warp_totals, total);
            if (i < end) at_bytes<T>(ol, i * plan.out_stride) = r.finish(carry + v);
            carry = carry + total;
        }
    }
}

template <class T>
void cumsum_typed(int device, const Array& x, int axis, const Array& out) {
    ScanPlan plan = plan_scan(x, axis, out);
    cudaStream_t stream = current_stream(device);
    const bool axis_contiguous = plan.x_stride == x.itemsize();
    if (plan.length < kMinBlockLine || (!axis_contiguous && plan.n_lines >= kManyLines)) {
        scan_lines_kernel<T><<<grid_for(plan.n_lines), kThreads, 0, stream>>>(plan, x.raw_data(), out.raw_data());
        check_launch("scan_lines_kernel");
        return;
    }
    plan.n_seg =
        std::clamp<int64_t>(std::min(plan.length / kMinSegment, kTargetSegments / plan.n_lines), 1, kTargetSegments);
    const int64_t units = plan.n_lines * plan.n_seg;
    const auto blocks = static_cast<unsigned int>(std::min<int64_t>(units, kMaxBlocks));
    std::shared_ptr<Storage> scratch;
    WideAcc<T>* starts = nullptr;
    if (plan.n_seg > 1) {
        scratch = caching_allocator(device).allocate(units * static_cast<int64_t>(sizeof(WideAcc<T>)));
        starts = static_cast<WideAcc<T>*>(scratch->data());
        segment_total_kernel<T><<<blocks, kGroupBlock, 0, stream>>>(plan, x.raw_data(), starts);
        check_launch("segment_total_kernel");
        segment_start_kernel<T><<<grid_for(plan.n_lines), kThreads, 0, stream>>>(plan, starts);
        check_launch("segment_start_kernel");
    }
    scan_blocks_kernel<T><<<blocks, kGroupBlock, 0, stream>>>(plan, x.raw_data(), out.raw_data(), starts);
    check_launch("scan_blocks_kernel");
}

}  // namespace

void CudaKernels::cumsum(const Array& x, int axis, const Array& out) {
    RENSA_ASSERT(x.dtype() == out.dtype() && x.shape() == out.shape());
    if (x.size() == 0) return;
    DeviceGuard guard{device_};
    visit_dtype(x.dtype(), [&]<typename T>() { cumsum_typed<T>(device_, x, axis, out); });
}

}  // namespace rensa::cuda
