// take (gather) and scatter_add along an axis on the GPU.
//
// Both walk one element of the shape B + J + I per thread (B = x.shape[:axis], J =
// indices.shape, I = x.shape[axis+1:]; see Note [Gather/scatter as strided loops] in
// core/native/kernels_indexing.cc): the data operand is viewed with that shape (zero
// strides on J), the indices with that shape (zero strides on B and I), and the element
// address is the view's address plus indices[j] * strides[axis]. take is a pure copy, so
// it dispatches on the item size (1, 2, 4, 8 bytes) instead of the dtype. scatter_add
// adds with atomics: repeated indices accumulate, and for float dtypes the order of the
// additions (hence the last bits of the sums) varies from run to run, unlike the CPU's
// in-index-order loop; integer and bool sums are exact in any order.

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>

#include "cuda/check.h"
#include "cuda/cuda_kernels.h"
#include "cuda/device_guard.h"
#include "cuda/dtype_dispatch.cuh"
#include "cuda/launch.cuh"
#include "cuda/stream.h"

namespace rensa::cuda {
namespace {

// Shape B + J + I with three sets of byte strides: [0] the walked operand (out or
// values, as it is), [1] the data view (x or target, zero on J), [2] the indices view.
struct GatherIndexer {
    int ndim = 0;
    int64_t shape[kMaxNdim] = {};
    int64_t strides[3][kMaxNdim] = {};

    __device__ void offsets(int64_t linear, int64_t (&off)[3]) const {
        off[0] = off[1] = off[2] = 0;
        for (int d = ndim - 1; d >= 0; --d) {
            const int64_t i = linear % shape[d];
            linear /= shape[d];
            for (int k = 0; k < 3; ++k) off[k] += i * strides[k][d];
        }
    }
};

// `walked` has shape B + J + I; `data` has B, its own axis, then I; `indices` has J.
GatherIndexer make_gather_indexer(const Array& walked, const Array& data, const Array& indices, int axis) {
    GatherIndexer g;
    g.ndim = walked.ndim();
    const int num_j = indices.ndim();
    for (int d = 0; d < g.ndim; ++d) {
        g.shape[d] = walked.shape()[d];
        g.strides[0][d] = walked.strides()[d];
    }
    for (int d = 0; d < axis; ++d) g.strides[1][d] = data.strides()[d];
    for (int d = axis + num_j; d < g.ndim; ++d) g.strides[1][d] = data.strides()[d - num_j + 1];
    for (int d = 0; d < num_j; ++d) g.strides[2][axis + d] = indices.strides()[d];
    return g;
}

// U: an unsigned type of the element's size.
template <class U>
__global__ void take_kernel(char* out, const char* x, const char* indices, GatherIndexer g, int64_t axis_stride,
                            int64_t n) {
    for (int64_t i = grid_index(); i < n; i += grid_stride()) {
        int64_t off[3];
        g.offsets(i, off);
        const int64_t index = *reinterpret_cast<const int64_t*>(indices + off[2]);
        *reinterpret_cast<U*>(out + off[0]) = *reinterpret_cast<const U*>(x + off[1] + index * axis_stride);
    }
}

// Adds a one-byte value into *p with a CAS loop on the aligned 32-bit word holding it
// (wrapping like the CPU's cast of the sum; bool adds as logical or).
template <class T>
__device__ void atomic_add_byte(T* p, T v) {
    auto* word = reinterpret_cast<unsigned int*>(reinterpret_cast<uintptr_t>(p) & ~uintptr_t{3});
    const unsigned int shift = (reinterpret_cast<uintptr_t>(p) & 3u) * 8u;
    unsigned int old = *word, assumed = 0;
    do {
        assumed = old;
        const auto current = static_cast<uint8_t>((assumed >> shift) & 0xFFu);
        uint8_t sum = 0;
        if constexpr (std::is_same_v<T, bool>) {
            sum = static_cast<uint8_t>((current != 0 || v) ? 1 : 0);
        } else {
            sum = static_cast<uint8_t>(current + static_cast<uint8_t>(v));
        }
        const unsigned int replaced = (assumed & ~(0xFFu << shift)) | (static_cast<unsigned int>(sum) << shift);
        old = atomicCAS(word, assumed, replaced);
    } while (old != assumed);
}

template <class T>
__device__ void atomic_add_value(T* p, T v) {
    if constexpr (sizeof(T) == 1) {
        atomic_add_byte(p, v);
    } else if constexpr (std::is_same_v<T, int64_t>) {
        // Two's complement: the unsigned sum has the same bits as the signed one.
        atomicAdd(reinterpret_cast<unsigned long long*>(p), static_cast<unsigned long long>(v));
    } else {
        atomicAdd(p, v);  // int32, float16 (sm_70+), bfloat16 (sm_80+), float32, float64
    }
}

template <class T>
__global__ void scatter_add_kernel(const char* values, char* target, const char* indices, GatherIndexer g,
                                   int64_t axis_stride, int64_t n) {
    for (int64_t i = grid_index(); i < n; i += grid_stride()) {
        int64_t off[3];
        g.offsets(i, off);
        const int64_t index = *reinterpret_cast<const int64_t*>(indices + off[2]);
        T* dst = reinterpret_cast<T*>(target + off[1] + index * axis_stride);
        atomic_add_value(dst, *reinterpret_cast<const T*>(values + off[0]));
    }
}

}  // namespace

void CudaKernels::take(const TakeArgs& args) {
    const Array& out = args.out;
    const int64_t n = out.size();
    if (n == 0) return;
    DeviceGuard guard{device_};
    const GatherIndexer g = make_gather_indexer(out, args.x, args.indices, args.axis);
    const int64_t axis_stride = args.x.strides()[args.axis];
    auto* out_ptr = static_cast<char*>(out.raw_data());
    const auto* x_ptr = static_cast<const char*>(args.x.raw_data());
    const auto* idx_ptr = static_cast<const char*>(args.indices.raw_data());
    visit_bits(out.itemsize(), [&]<typename U>() {
        take_kernel<U>
            <<<grid_for(n), kThreads, 0, current_stream(device_)>>>(out_ptr, x_ptr, idx_ptr, g, axis_stride, n);
        check_launch("take_kernel");
    });
}

void CudaKernels::scatter_add(const ScatterAddArgs& args) {
    const Array& values = args.values;
    const int64_t n = values.size();
    if (n == 0) return;
    DeviceGuard guard{device_};
    const GatherIndexer g = make_gather_indexer(values, args.target, args.indices, args.axis);
    const int64_t axis_stride = args.target.strides()[args.axis];
    const auto* values_ptr = static_cast<const char*>(values.raw_data());
    auto* target_ptr = static_cast<char*>(args.target.raw_data());
    const auto* idx_ptr = static_cast<const char*>(args.indices.raw_data());
    visit_dtype(args.target.dtype(), [&]<typename T>() {
        scatter_add_kernel<T>
            <<<grid_for(n), kThreads, 0, current_stream(device_)>>>(values_ptr, target_ptr, idx_ptr, g, axis_stride, n);
        check_launch("scatter_add_kernel");
    });
}

}  // namespace rensa::cuda
