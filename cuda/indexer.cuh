#pragma once
// Indexer: an array's shape and byte strides passed by value to a kernel, mapping a
// row-major linear element index to a byte offset (broadcast views have stride 0,
// flipped ones negative strides). Shared by every family that walks strided arrays.

#include <cstdint>

#include "core/array.h"
#include "core/small_vector.h"

namespace rensa::cuda {

struct Indexer {
    int ndim = 0;
    int64_t shape[kMaxNdim] = {};
    int64_t strides[kMaxNdim] = {};  // bytes

    __host__ __device__ int64_t offset(int64_t linear) const {
        int64_t off = 0;
        for (int d = ndim - 1; d >= 0; --d) {
            const int64_t i = linear % shape[d];
            linear /= shape[d];
            off += i * strides[d];
        }
        return off;
    }
};

// The indexer of `a` (its shape and strides as they are; no dims merged).
inline Indexer make_indexer(const Array& a) {
    Indexer ix;
    ix.ndim = a.ndim();
    for (int d = 0; d < ix.ndim; ++d) {
        ix.shape[d] = a.shape()[d];
        ix.strides[d] = a.strides()[d];
    }
    return ix;
}

// Typed element pointer of `a` (data + offset); device memory.
template <class T>
inline T* data_ptr(const Array& a) {
    return static_cast<T*>(a.raw_data());
}

// Reads/writes element at a byte offset from a base pointer.
template <class T>
__device__ inline T& at_bytes(void* base, int64_t offset) {
    return *reinterpret_cast<T*>(static_cast<char*>(base) + offset);
}
template <class T>
__device__ inline const T& at_bytes(const void* base, int64_t offset) {
    return *reinterpret_cast<const T*>(static_cast<const char*>(base) + offset);
}

}  // namespace rensa::cuda
