// sort on the GPU: stable ascending along an axis, NaN last (numpy's order, as
// core/native/kernels_sort.cc).
//
// Note [Radix sort keys]: the axis is swapped last and x copied contiguous (rows of n),
// each element becomes an unsigned key whose unsigned order is the value order, and
// cub::DeviceSegmentedSort::StableSortPairs sorts (key, position in row) per row. Keys:
// integers and bool flip the sign bit; floats (float16/bfloat16 through float32, float64
// as itself) map -0.0 to +0.0 (the CPU's `<` ties them, so their order is the input's),
// every NaN to the all-ones key (above +inf; ties keep NaNs in input order, like the CPU),
// then flip all bits of negatives and the sign bit of positives. Every key is held in a
// uint64 so CUB is instantiated once (nvcc time: one more key type cost ~9 s; 32-bit
// dtypes pay twice the radix passes, and sort is off the training path). The sorted positions are then written to
// indices, and values gathers x through them (bit-exact copies, like the CPU's).

#include <cub/device/device_segmented_sort.cuh>

#include <cstdint>
#include <type_traits>

#include "core/error.h"
#include "cuda/allocator.h"
#include "cuda/check.h"
#include "cuda/cuda_kernels.h"
#include "cuda/device_guard.h"
#include "cuda/dtype_dispatch.cuh"
#include "cuda/indexer.cuh"
#include "cuda/launch.cuh"
#include "cuda/stream.h"

namespace rensa::cuda {
namespace {

// The key type of every dtype (32-bit keys widened; see the Note above).
template <class T>
using KeyT = uint64_t;

// The key of one element (Note [Radix sort keys]).
template <class T>
__device__ KeyT<T> sort_key(T v) {
    if constexpr (std::is_same_v<T, double>) {
        if (v != v) return ~uint64_t{0};
        const uint64_t bits = __double_as_longlong(v == 0.0 ? 0.0 : v);
        return (bits >> 63) != 0 ? ~bits : bits | (uint64_t{1} << 63);
    } else if constexpr (kIsFloating<T>) {
        const float f = to_compute(v);
        if (f != f) return ~uint32_t{0};
        const auto bits = static_cast<uint32_t>(__float_as_uint(f == 0.0f ? 0.0f : f));
        return (bits >> 31) != 0 ? ~bits : bits | (uint32_t{1} << 31);
    } else if constexpr (std::is_same_v<T, int64_t>) {
        return static_cast<uint64_t>(v) ^ (uint64_t{1} << 63);
    } else if constexpr (std::is_same_v<T, bool> || std::is_same_v<T, uint8_t>) {
        return static_cast<uint32_t>(v);
    } else {  // int8, int32
        return static_cast<uint32_t>(static_cast<int32_t>(v)) ^ (uint32_t{1} << 31);
    }
}

// keys[i] = key of x[i], positions[i] = i % n, offsets[r] = r * n (r <= rows).
template <class T>
__global__ void prepare_kernel(const T* x, KeyT<T>* keys, int64_t* positions, int64_t* offsets, int64_t n,
                               int64_t total) {
    for (int64_t i = grid_index(); i < total; i += grid_stride()) {
        keys[i] = sort_key(x[i]);
        positions[i] = i % n;
        if (i % n == 0) offsets[i / n] = i;
    }
    if (grid_index() == 0) offsets[total / n] = total;
}

// Writes the sorted row positions to `indices` (if non-null) and x gathered through them
// to `values` (if non-null); both are strided views of the (rows, n) shape. U: an
// unsigned type of x's item size.
template <class U>
__global__ void write_kernel(const U* x, const int64_t* sorted, int64_t n, int64_t total, char* values,
                             Indexer values_ix, char* indices, Indexer indices_ix) {
    for (int64_t i = grid_index(); i < total; i += grid_stride()) {
        const int64_t position = sorted[i];
        if (values != nullptr) {
            *reinterpret_cast<U*>(values + values_ix.offset(i)) = x[i - i % n + position];
        }
        if (indices != nullptr) *reinterpret_cast<int64_t*>(indices + indices_ix.offset(i)) = position;
    }
}

// Sorts the keys of each row with their positions: sorted_positions gets the result.
template <class K>
void segmented_sort(int device, const K* keys_in, const int64_t* positions_in, int64_t total, int64_t rows,
                    const int64_t* offsets, int64_t* sorted_positions) {
    auto& allocator = caching_allocator(device);
    const cudaStream_t stream = current_stream(device);
    const auto keys_out = allocator.allocate(total * static_cast<int64_t>(sizeof(K)));
    size_t temp_bytes = 0;
    check_cuda(cub::DeviceSegmentedSort::StableSortPairs(nullptr, temp_bytes, keys_in,
                                                         static_cast<K*>(keys_out->data()), positions_in,
                                                         sorted_positions, total, rows, offsets, offsets + 1, stream),
               "cub::DeviceSegmentedSort::StableSortPairs (size query)");
    const auto temp = allocator.allocate(static_cast<int64_t>(temp_bytes));
    check_cuda(cub::DeviceSegmentedSort::StableSortPairs(temp->data(), temp_bytes, keys_in,
                                                         static_cast<K*>(keys_out->data()), positions_in,
                                                         sorted_positions, total, rows, offsets, offsets + 1, stream),
               "cub::DeviceSegmentedSort::StableSortPairs");
}

}  // namespace

void CudaKernels::sort(const SortArgs& args) {
    const int64_t total = args.x.size();
    if (total == 0) return;
    DeviceGuard guard{device_};
    const int last = args.x.ndim() - 1;
    const auto axis_last = [&](const Array& a) { return a.defined() ? a.swapaxes(args.axis, last) : a; };
    // A contiguous (rows, n) copy, made by the copy kernel on this GPU.
    const Array x = axis_last(args.x).as_contiguous();
    const Array values = axis_last(args.values), indices = axis_last(args.indices);
    const int64_t n = x.shape()[last], rows = total / n;
    auto& allocator = caching_allocator(device_);
    const cudaStream_t stream = current_stream(device_);
    const auto positions = allocator.allocate(total * static_cast<int64_t>(sizeof(int64_t)));
    const auto sorted = allocator.allocate(total * static_cast<int64_t>(sizeof(int64_t)));
    const auto offsets = allocator.allocate((rows + 1) * static_cast<int64_t>(sizeof(int64_t)));
    auto* positions_ptr = static_cast<int64_t*>(positions->data());
    auto* sorted_ptr = static_cast<int64_t*>(sorted->data());
    auto* offsets_ptr = static_cast<int64_t*>(offsets->data());
    visit_dtype(x.dtype(), [&]<typename T>() {
        using K = KeyT<T>;
        const auto keys = allocator.allocate(total * static_cast<int64_t>(sizeof(K)));
        auto* keys_ptr = static_cast<K*>(keys->data());
        prepare_kernel<T><<<grid_for(total), kThreads, 0, stream>>>(data_ptr<const T>(x), keys_ptr, positions_ptr,
                                                                    offsets_ptr, n, total);
        check_launch("sort prepare_kernel");
        segmented_sort<K>(device_, keys_ptr, positions_ptr, total, rows, offsets_ptr, sorted_ptr);
    });
    char* values_ptr = values.defined() ? static_cast<char*>(values.raw_data()) : nullptr;
    char* indices_ptr = indices.defined() ? static_cast<char*>(indices.raw_data()) : nullptr;
    const Indexer values_ix = values.defined() ? make_indexer(values) : Indexer{};
    const Indexer indices_ix = indices.defined() ? make_indexer(indices) : Indexer{};
    visit_bits(x.itemsize(), [&]<typename U>() {
        write_kernel<U><<<grid_for(total), kThreads, 0, stream>>>(data_ptr<const U>(x), sorted_ptr, n, total,
                                                                  values_ptr, values_ix, indices_ptr, indices_ix);
        check_launch("sort write_kernel");
    });
}

}  // namespace rensa::cuda
