#pragma once
// The loop machinery of the elementwise kernels (copy, fill, unary, binary, where):
// operand 0 is the output, the others are inputs of the output's shape (broadcast views
// have stride 0, flipped ones negative strides). Private to kernels_{elementwise,unary,
// binary,where}.cu.
//
// Note [Elementwise plans]: before launching, size-1 dims are dropped and adjacent dims
// that are contiguous in every operand are merged, so most strided cases need one or two
// dims of index math (and a 1-d plan none: linear * stride). When every operand is then
// flat (each stride equals its own itemsize) the contiguous kernel runs instead, with
// vectorised loads and stores of V elements per operand (Pack) when every pointer is
// aligned to V * sizeof(T), and a scalar tail. A functor F maps the inputs' stored values
// to the output's stored value (it converts to ComputeT itself); one kernel is
// instantiated per functor type, with the op a runtime member (uniform across a warp).

#include <cuda/std/tuple>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <utility>

#include "core/array.h"
#include "core/half.h"
#include "core/scalar.h"
#include "cuda/check.h"
#include "cuda/indexer.cuh"
#include "cuda/launch.cuh"

namespace rensa::cuda {

// Shape and byte strides of N operands after dropping size-1 dims and merging.
template <int N>
struct ElementwisePlan {
    int ndim = 0;
    int64_t size = 1;
    int64_t shape[kMaxNdim] = {};
    int64_t strides[N][kMaxNdim] = {};
    char* base[N] = {};
    int64_t itemsize[N] = {};

    // True when every operand is flat in memory (a 0-d plan is one element).
    bool contiguous() const {
        if (ndim == 0) return true;
        if (ndim > 1) return false;
        for (int k = 0; k < N; ++k) {
            if (strides[k][0] != itemsize[k]) return false;
        }
        return true;
    }

    // Byte offsets of the element with row-major index `linear` in every operand.
    __host__ __device__ void offsets(int64_t linear, int64_t (&off)[N]) const {
        if (ndim == 1) {
            for (int k = 0; k < N; ++k) off[k] = linear * strides[k][0];
            return;
        }
        for (int k = 0; k < N; ++k) off[k] = 0;
        for (int d = ndim - 1; d >= 0; --d) {
            const int64_t i = linear % shape[d];
            linear /= shape[d];
            for (int k = 0; k < N; ++k) off[k] += i * strides[k][d];
        }
    }
};

// Plans operands (out first), all of out's shape. See Note [Elementwise plans].
template <int N>
ElementwisePlan<N> make_plan(const std::array<const Array*, N>& operands) {
    ElementwisePlan<N> plan;
    const Array& out = *operands[0];
    for (int k = 0; k < N; ++k) {
        plan.base[k] = static_cast<char*>(operands[k]->raw_data());
        plan.itemsize[k] = operands[k]->itemsize();
    }
    plan.size = out.size();
    for (int d = 0; d < out.ndim(); ++d) {
        const int64_t extent = out.shape()[d];
        if (extent == 1) continue;
        const int last = plan.ndim - 1;
        bool mergeable = last >= 0;
        for (int k = 0; k < N && mergeable; ++k) {
            mergeable = plan.strides[k][last] == operands[k]->strides()[d] * extent;
        }
        const int target = mergeable ? last : plan.ndim++;
        plan.shape[target] = mergeable ? plan.shape[last] * extent : extent;
        for (int k = 0; k < N; ++k) plan.strides[k][target] = operands[k]->strides()[d];
    }
    return plan;
}

// The stored bits (little-endian, low bytes) of `value` cast to `dtype` exactly as the
// native fill does, through Scalar::to of the host type (float16/bfloat16 share their
// bit layout with CUDA's): fill's value and binary_scalar's operand.
inline uint64_t scalar_bits(Scalar value, Dtype dtype) {
    uint64_t bits = 0;
    auto store = [&](auto v) { std::memcpy(&bits, &v, sizeof(v)); };
    switch (dtype) {
        case Dtype::kBool:
            store(value.to<bool>());
            break;
        case Dtype::kInt8:
            store(value.to<int8_t>());
            break;
        case Dtype::kUInt8:
            store(value.to<uint8_t>());
            break;
        case Dtype::kInt32:
            store(value.to<int32_t>());
            break;
        case Dtype::kInt64:
            store(value.to<int64_t>());
            break;
        case Dtype::kFloat16:
            store(value.to<Half>());
            break;
        case Dtype::kBFloat16:
            store(value.to<BFloat16>());
            break;
        case Dtype::kFloat32:
            store(value.to<float>());
            break;
        case Dtype::kFloat64:
            store(value.to<double>());
            break;
    }
    return bits;
}

// V elements of T loaded or stored as one (16 bytes at most) access.
template <class T, int V>
struct alignas(sizeof(T) * V) Pack {
    T v[V];
};

// Elements per vector access: 16 bytes of the widest operand, at most F::kMaxVec (a bound
// on how many copies of a large op switch the unrolled loop holds).
template <class F, class Out, class... In>
constexpr int vec_width() {
    const int widest = static_cast<int>(std::max({sizeof(Out), sizeof(In)...}));
    return std::min(16 / widest, F::kMaxVec);
}

struct InputPointers {
    const void* p[3] = {};
};

template <class F, class Out, class... In>
__global__ void elementwise_contiguous_kernel(int64_t n, int64_t n_vec, Out* out, InputPointers in, F f) {
    constexpr int V = vec_width<F, Out, In...>();
    [&]<size_t... I>(std::index_sequence<I...>) {
        for (int64_t v = grid_index(); v < n_vec; v += grid_stride()) {
            const ::cuda::std::tuple<Pack<In, V>...> packs{static_cast<const Pack<In, V>*>(in.p[I])[v]...};
            Pack<Out, V> result;
#pragma unroll
            for (int j = 0; j < V; ++j) result.v[j] = f(::cuda::std::get<I>(packs).v[j]...);
            reinterpret_cast<Pack<Out, V>*>(out)[v] = result;
        }
        for (int64_t i = n_vec * V + grid_index(); i < n; i += grid_stride()) {
            out[i] = f(static_cast<const In*>(in.p[I])[i]...);
        }
    }
    (std::index_sequence_for<In...>{});
}

template <class F, class Out, class... In>
__global__ void elementwise_strided_kernel(ElementwisePlan<1 + sizeof...(In)> plan, F f) {
    [&]<size_t... I>(std::index_sequence<I...>) {
        for (int64_t i = grid_index(); i < plan.size; i += grid_stride()) {
            int64_t off[1 + sizeof...(In)];
            plan.offsets(i, off);
            at_bytes<Out>(plan.base[0], off[0]) = f(at_bytes<In>(plan.base[I + 1], off[I + 1])...);
        }
    }
    (std::index_sequence_for<In...>{});
}

// operands = {out, in...}: out = f(in...) elementwise on `stream`; Out and In are the
// operands' stored (CUDA) types. Returns without launching on empty arrays.
template <class F, class Out, class... In>
void launch_elementwise(cudaStream_t stream, const char* name, F f,
                        const std::array<const Array*, 1 + sizeof...(In)>& operands) {
    static_assert(sizeof...(In) <= 3);
    constexpr int N = 1 + sizeof...(In);
    const ElementwisePlan<N> plan = make_plan<N>(operands);
    if (plan.size == 0) return;
    if (!plan.contiguous()) {
        elementwise_strided_kernel<F, Out, In...><<<grid_for(plan.size), kThreads, 0, stream>>>(plan, f);
        check_launch(name);
        return;
    }
    constexpr int V = vec_width<F, Out, In...>();
    bool aligned = true;
    for (int k = 0; k < N; ++k)
        aligned = aligned && reinterpret_cast<uintptr_t>(plan.base[k]) % (V * plan.itemsize[k]) == 0;
    const int64_t n_vec = aligned ? plan.size / V : 0;
    InputPointers pointers;
    for (int k = 1; k < N; ++k) pointers.p[k - 1] = plan.base[k];
    elementwise_contiguous_kernel<F, Out, In...><<<grid_for(n_vec > 0 ? n_vec : plan.size), kThreads, 0, stream>>>(
        plan.size, n_vec, reinterpret_cast<Out*>(plan.base[0]), pointers, f);
    check_launch(name);
}

}  // namespace rensa::cuda
