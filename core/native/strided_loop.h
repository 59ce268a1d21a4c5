#pragma once
// Note [Strided loops]: elementwise kernels see N operands of one shape with byte
// strides (zero for broadcast, negative for flipped views). plan_loop drops length-1
// dims and merges dims that are contiguous for every operand, so the common cases
// become one flat run; for_each_run then walks the outer dims with a counter and
// calls fn(ptrs, inner_strides, count) once per innermost run, in parallel above
// kParallelGrain elements.

#include <array>
#include <cstdint>

#include "core/array.h"
#include "core/native/parallel.h"

namespace rensa::native {

template <int N>
struct LoopPlan {
    int ndim = 0;  // after coalescing; dims outer to inner
    int64_t shape[kMaxNdim] = {};
    int64_t strides[N][kMaxNdim] = {};
    std::array<char*, N> base{};
    int64_t size = 0;
};

template <int N>
LoopPlan<N> plan_loop(const std::array<const Array*, N>& operands) {
    LoopPlan<N> plan;
    const Array& first = *operands[0];
    plan.size = first.size();
    for (int k = 0; k < N; ++k) plan.base[k] = static_cast<char*>(operands[k]->raw_data());
    for (int d = 0; d < first.ndim(); ++d) {
        if (first.shape()[d] == 1) continue;
        const int last = plan.ndim - 1;
        bool merge = last >= 0;
        for (int k = 0; k < N && merge; ++k) {
            merge = plan.strides[k][last] == operands[k]->strides()[d] * first.shape()[d];
        }
        if (merge) {
            plan.shape[last] *= first.shape()[d];
            for (int k = 0; k < N; ++k) plan.strides[k][last] = operands[k]->strides()[d];
        } else {
            plan.shape[plan.ndim] = first.shape()[d];
            for (int k = 0; k < N; ++k) plan.strides[k][plan.ndim] = operands[k]->strides()[d];
            ++plan.ndim;
        }
    }
    if (plan.ndim == 0) {  // 0-d or all-ones: one element
        plan.ndim = 1;
        plan.shape[0] = 1;
    }
    return plan;
}

// Runs fn(std::array<char*, N> ptrs, const int64_t* inner_strides, int64_t count) over
// runs [begin, end) of the plan's innermost dim, where runs are (outer index, chunk).
template <int N, class Fn>
void for_each_run(const LoopPlan<N>& plan, Fn&& fn) {
    if (plan.size == 0) return;
    const int inner_dim = plan.ndim - 1;
    const int64_t inner = plan.shape[inner_dim];
    const int64_t outer = plan.size / inner;
    int64_t inner_strides[N];
    for (int k = 0; k < N; ++k) inner_strides[k] = plan.strides[k][inner_dim];
    // Long inner runs are cut into chunks so a single row still spreads over threads.
    const int64_t chunk = std::max<int64_t>(std::min<int64_t>(inner, kParallelGrain), 1);
    const int64_t chunks_per_row = (inner + chunk - 1) / chunk;
    const int64_t tasks = outer * chunks_per_row;
    parallel_for(tasks, std::max<int64_t>(1, kParallelGrain / chunk), [&](int64_t begin, int64_t end) {
        int64_t row = begin / chunks_per_row;
        int64_t index[kMaxNdim] = {};
        int64_t rem = row;
        for (int d = inner_dim - 1; d >= 0; --d) {
            index[d] = rem % plan.shape[d];
            rem /= plan.shape[d];
        }
        for (int64_t t = begin; t < end;) {
            std::array<char*, N> ptrs = plan.base;
            for (int d = 0; d < inner_dim; ++d) {
                for (int k = 0; k < N; ++k) ptrs[k] += index[d] * plan.strides[k][d];
            }
            for (int64_t c = t - row * chunks_per_row; c < chunks_per_row && t < end; ++c, ++t) {
                const int64_t start = c * chunk;
                std::array<char*, N> p = ptrs;
                for (int k = 0; k < N; ++k) p[k] += start * inner_strides[k];
                fn(p, static_cast<const int64_t*>(inner_strides), std::min(chunk, inner - start));
            }
            ++row;
            for (int d = inner_dim - 1; d >= 0; --d) {  // increment the outer counter
                if (++index[d] < plan.shape[d]) break;
                index[d] = 0;
            }
        }
    });
}

// True when the plan is one run whose operands are all contiguous elements of `itemsizes`.
template <int N>
bool is_flat(const LoopPlan<N>& plan, const std::array<int64_t, N>& itemsizes) {
    if (plan.ndim != 1) return false;
    for (int k = 0; k < N; ++k) {
        if (plan.strides[k][0] != itemsizes[k] && plan.shape[0] != 1) return false;
    }
    return true;
}

}  // namespace rensa::native
