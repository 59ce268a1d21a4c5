#pragma once
// Array: an n-dimensional array on a device. An Array is an aliasing handle: copying
// an Array, and every view method below, shares the same Storage, so writes through
// one are seen by all. `copy()` copies the data. Strides are in bytes; an offset makes
// slices free.

#include <cstdint>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "core/device.h"
#include "core/dtype.h"
#include "core/scalar.h"
#include "core/shape.h"
#include "core/storage.h"

namespace rensa {

// Basic indexing terms, as in numpy's `a[1, 2:8:2, None, ...]`.
struct Slice {
    std::optional<int64_t> start, stop;
    int64_t step = 1;
};
struct NewAxis {};
struct Ellipsis {};
using Index = std::variant<int64_t, Slice, NewAxis, Ellipsis>;

class Array {
public:
    Array() = default;  // undefined: holds no storage
    Array(std::shared_ptr<Storage> storage, Shape shape, Strides strides, int64_t offset, Dtype dtype);

    // Uninitialised contiguous array; throws ValueError on bad shapes, OutOfMemoryError.
    [[nodiscard]] static Array empty(const Shape& shape, Dtype dtype, Device device = default_device());
    // Copies `shape_size(shape)` contiguous elements of `dtype` from host memory.
    [[nodiscard]] static Array from_host(const void* data, const Shape& shape, Dtype dtype,
                                         Device device = default_device());
    template <class T>
    [[nodiscard]] static Array from_vector(const std::vector<T>& values, const Shape& shape,
                                           Device device = default_device());

    bool defined() const { return storage_ != nullptr; }
    const Shape& shape() const { return shape_; }
    const Strides& strides() const { return strides_; }
    int ndim() const { return shape_.size(); }
    int64_t size() const { return size_; }
    Dtype dtype() const { return dtype_; }
    int64_t itemsize() const { return rensa::itemsize(dtype_); }
    int64_t nbytes() const { return size_ * itemsize(); }
    int64_t offset() const { return offset_; }  // bytes from the storage's start
    Device device() const;
    const std::shared_ptr<Storage>& storage() const { return storage_; }
    // Address of element (0, ..., 0) in device memory, once queued fused updates that write
    // this memory ran (see Note [Batched fused updates] in core/ops/fused_update.h).
    void* raw_data() const;
    bool is_contiguous() const;  // row-major with no gaps
    // False when the memory is read-only (see Note [Read-only memory] in core/storage.h).
    bool writeable() const { return storage_ == nullptr || !storage_->read_only(); }

    // --- Views (share storage) ---
    // numpy reshape: a view when the strides allow it, else a contiguous copy. One -1 is inferred.
    [[nodiscard]] Array reshape(const Shape& shape) const;
    [[nodiscard]] Array transpose() const;  // reverses the axes
    [[nodiscard]] Array transpose(const Axes& axes) const;
    [[nodiscard]] Array swapaxes(int axis1, int axis2) const;
    [[nodiscard]] Array squeeze() const;                  // drops every axis of length 1
    [[nodiscard]] Array squeeze(const Axes& axes) const;  // those axes must have length 1
    [[nodiscard]] Array expand_dims(int axis) const;
    [[nodiscard]] Array broadcast_to(const Shape& shape) const;
    [[nodiscard]] Array index(const std::vector<Index>& indices) const;  // basic indexing
    [[nodiscard]] Array operator[](int64_t i) const { return index({i}); }
    [[nodiscard]] Array ravel() const { return reshape({size_}); }  // view when contiguous

    // --- Data ---
    [[nodiscard]] Array copy() const;           // contiguous copy on the same device
    [[nodiscard]] Array as_contiguous() const;  // this when already contiguous, else a copy
    // A copy with another dtype (numpy casting: floats to integers truncate); with
    // copy=false returns this when the dtype already matches.
    [[nodiscard]] Array astype(Dtype dtype, bool copy = true) const;
    // Writes `value` (cast to dtype) into every element, through views too.
    void fill(Scalar value) const;
    // Copies `src` (broadcast to this shape, cast to this dtype) into this array.
    void assign(const Array& src) const;
    // This array when already on `device`, else a copy there.
    [[nodiscard]] Array to_device(Device device) const;
    // The single element of a size-1 array, cast to T; throws ValueError otherwise.
    template <class T>
    T item() const;
    // Contiguous host copy of the elements as T (casting).
    template <class T>
    std::vector<T> to_vector() const;

    std::string repr() const;  // numpy-like: array([[1., 2.]], dtype=float32)

private:
    void copy_to_host(void* dst) const;  // contiguous bytes of this array's dtype

    std::shared_ptr<Storage> storage_;
    Shape shape_;
    Strides strides_;
    int64_t offset_ = 0;
    int64_t size_ = 0;
    Dtype dtype_ = Dtype::kFloat32;
};

std::ostream& operator<<(std::ostream& os, const Array& a);

// Throws ValueError "<operation>: assignment destination is read-only ..." when `a`'s memory
// is read-only (see Note [Read-only memory] in core/storage.h). Queued fused updates that
// read or write a's memory run first (Note [Batched fused updates] in core/ops/fused_update.h).
void check_writeable(const Array& a, std::string_view operation);

// The dtype that stores T: float -> float32, int -> int32, Half -> float16, ...
template <class T>
constexpr Dtype dtype_of();

}  // namespace rensa

#include "core/array_inl.h"
