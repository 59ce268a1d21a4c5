#pragma once
// Private helpers of the reduction families (kernels_reduce.cu, kernels_scan.cu,
// kernels_softmax.cu): dim lists that merge contiguous dims, the accumulator of each op
// (as core/native/kernels_reduce_common.h: float sums and products in double, integer
// ones in wrapping uint64), and warp/block reductions.
//
// Note [Reduction groups]: one kernel per dtype reduces every output with a group of
// 1, 32 or 256 threads (a thread, a warp or a block). A group folds its share of the
// reduced elements lane-strided, then combines lanes with a fixed shuffle tree; when an
// output is split into segments the segment results are folded in order by a second
// pass. The split depends only on the sizes, so results are the same run to run.

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "core/kernels.h"
#include "cuda/dtype_dispatch.cuh"
#include "cuda/indexer.cuh"

// A namespace of its own: these names are private to the reduction files, and other
// families' helpers may use the same ones.
namespace rensa::cuda::reduction {

// Dims outer to inner with the byte strides of N operands; push merges a dim into the
// previous one when it is contiguous with it for every operand.
template <int N>
struct DimsBuilder {
    int n = 0;
    int64_t shape[kMaxNdim] = {};
    int64_t strides[N][kMaxNdim] = {};

    void push(int64_t length, const int64_t (&s)[N]) {
        bool merge = n > 0;
        for (int k = 0; k < N && merge; ++k) merge = strides[k][n - 1] == s[k] * length;
        const int d = merge ? n - 1 : n++;
        shape[d] = merge ? shape[d] * length : length;
        for (int k = 0; k < N; ++k) strides[k][d] = s[k];
    }
    int64_t size() const {
        int64_t total = 1;
        for (int d = 0; d < n; ++d) total *= shape[d];
        return total;
    }
    // The Indexer of operand k (ndim 0 when empty: every offset is 0).
    Indexer indexer(int k) const {
        Indexer ix;
        ix.ndim = n;
        for (int d = 0; d < n; ++d) {
            ix.shape[d] = shape[d];
            ix.strides[d] = strides[k][d];
        }
        return ix;
    }
};

// Indexer::offset without the 64-bit division of the common one-dim case.
__device__ inline int64_t offset_of(const Indexer& ix, int64_t i) {
    if (ix.ndim == 1) return i * ix.strides[0];
    return ix.offset(i);
}

// The accumulator of every ReduceOp on T (see the reducers of kernels_reduce_common.h):
// double for floats, uint64 (wrapping) for integers and bool. max/min compare as the
// compute type (the accumulator holds those values exactly), any/all hold 0 or 1.
template <class T>
using WideAcc = std::conditional_t<kIsFloating<T>, double, uint64_t>;

template <class T>
struct Reducer {
    using V = ComputeT<T>;
    using Acc = WideAcc<T>;
    ReduceOp op;

    __device__ Acc identity() const {
        if constexpr (kIsFloating<T>) {
            constexpr double kInf = std::numeric_limits<double>::infinity();
            switch (op) {
                case ReduceOp::kSum:
                    return -0.0;  // -0.0 + x == x, so sums of -0.0 stay -0.0 (as native)
                case ReduceOp::kMax:
                    return -kInf;
                case ReduceOp::kMin:
                    return kInf;
                case ReduceOp::kAny:
                    return 0.0;
                case ReduceOp::kProd:
                case ReduceOp::kAll:
                    return 1.0;
            }
            return 0.0;
        } else {
            switch (op) {
                case ReduceOp::kSum:
                case ReduceOp::kAny:
                    return 0;
                case ReduceOp::kMax:
                    return static_cast<Acc>(std::numeric_limits<V>::lowest());
                case ReduceOp::kMin:
                    return static_cast<Acc>(std::numeric_limits<V>::max());
                case ReduceOp::kProd:
                case ReduceOp::kAll:
                    return 1;
            }
            return 0;
        }
    }
    __device__ static Acc to_acc(V v) { return static_cast<Acc>(v); }
    // b replaces a when more extreme or NaN; a NaN a is kept, so NaN propagates.
    __device__ static Acc extreme(Acc a, Acc b, bool max) {
        if constexpr (kIsFloating<T>) {
            return ((max ? b > a : b < a) || b != b) ? b : a;
        } else {
            const V va = static_cast<V>(a), vb = static_cast<V>(b);
            return (max ? vb > va : vb < va) ? b : a;
        }
    }
    __device__ Acc combine(Acc a, Acc b) const {
        switch (op) {
            case ReduceOp::kSum:
                return a + b;
            case ReduceOp::kProd:
                return a * b;
            case ReduceOp::kMax:
                return extreme(a, b, true);
            case ReduceOp::kMin:
                return extreme(a, b, false);
            case ReduceOp::kAny:
                return (a != Acc{0} || b != Acc{0}) ? 1 : 0;
            case ReduceOp::kAll:
                return (a != Acc{0} && b != Acc{0}) ? 1 : 0;
        }
        return a;
    }
    __device__ Acc step(Acc a, V v) const { return combine(a, to_acc(v)); }
    // max/min go back through V so integers truncate to their own value.
    __device__ T finish(Acc a) const {
        if (op == ReduceOp::kMax || op == ReduceOp::kMin) return cast_value<T>(static_cast<V>(a));
        return cast_value<T>(a);
    }
};

// __shfl_down_sync / __shfl_sync for every accumulator and compute type (narrow ones
// travel as int).
template <class A>
__device__ inline A shfl_down(A v, unsigned delta) {
    if constexpr (sizeof(A) < 4) {
        return static_cast<A>(__shfl_down_sync(0xffffffffU, static_cast<int>(v), delta));
    } else if constexpr (std::is_same_v<A, uint64_t> || std::is_same_v<A, int64_t>) {
        return static_cast<A>(__shfl_down_sync(0xffffffffU, static_cast<long long>(v), delta));
    } else {
        return __shfl_down_sync(0xffffffffU, v, delta);
    }
}
template <class A>
__device__ inline A shfl_up(A v, unsigned delta) {
    if constexpr (std::is_same_v<A, uint64_t>) {
        return static_cast<A>(__shfl_up_sync(0xffffffffU, static_cast<long long>(v), delta));
    } else {
        return __shfl_up_sync(0xffffffffU, v, delta);
    }
}
template <class A>
__device__ inline A shfl_from(A v, int lane) {
    if constexpr (sizeof(A) < 4) {
        return static_cast<A>(__shfl_sync(0xffffffffU, static_cast<int>(v), lane));
    } else if constexpr (std::is_same_v<A, uint64_t> || std::is_same_v<A, int64_t>) {
        return static_cast<A>(__shfl_sync(0xffffffffU, static_cast<long long>(v), lane));
    } else {
        return __shfl_sync(0xffffffffU, v, lane);
    }
}

inline constexpr int kWarp = 32;
inline constexpr int kGroupBlock = 256;  // threads of every group kernel's block

// Combines the values of a group of `group` (1, 32 or kGroupBlock) threads with `comb`;
// every thread of the group gets the same result. Every thread of the block must call it
// (group kGroupBlock synchronises); `shared` holds kGroupBlock / kWarp entries.
template <class A, class Comb>
__device__ A group_allreduce(A v, int group, A* shared, Comb comb) {
    if (group == 1) return v;
    for (int delta = kWarp / 2; delta > 0; delta /= 2) v = comb(v, shfl_down(v, delta));
    v = shfl_from(v, 0);  // lane 0 holds the warp's result
    if (group == kWarp) return v;
    const int warp = static_cast<int>(threadIdx.x) / kWarp;
    if (threadIdx.x % kWarp == 0) shared[warp] = v;
    __syncthreads();
    A total = shared[0];
    for (int w = 1; w < kGroupBlock / kWarp; ++w) total = comb(total, shared[w]);
    __syncthreads();  // shared may be written again by the next call
    return total;
}

// Threads per output for a reduction of `n_red` elements per output among `n_out`
// outputs: a thread for short reductions or many strided columns, a warp for medium
// ones, a block for long ones.
inline int pick_group(int64_t n_out, int64_t n_red, bool red_contiguous, bool kept_contiguous) {
    if (n_red < 64) return 1;
    if (kept_contiguous && !red_contiguous && n_out >= 64) return 1;
    return n_red >= 8192 ? kGroupBlock : kWarp;
}

// Segments per output so the grid has about kTargetThreads threads, each folding at
// least kMinPerThread elements.
inline int64_t pick_segments(int64_t n_out, int64_t n_red, int group) {
    constexpr int64_t kTargetThreads = int64_t{1} << 18, kMinPerThread = 16, kMaxSegments = 1024;
    const int64_t wanted = kTargetThreads / group / std::max<int64_t>(n_out, 1);
    const int64_t most = n_red / (group * kMinPerThread);
    return std::clamp<int64_t>(std::min(wanted, most), 1, kMaxSegments);
}

// Blocks of kGroupBlock threads for `units` groups of `group` threads.
inline unsigned int group_blocks(int64_t units, int group) {
    const int64_t per_block = kGroupBlock / group;
    const int64_t blocks = (units + per_block - 1) / per_block;
    return static_cast<unsigned int>(std::clamp<int64_t>(blocks, 1, 65535LL * 4));
}

}  // namespace rensa::cuda::reduction
