#pragma once
// Helpers the datasets share (internal).

#include <cstdint>
#include <string_view>

#include "core/array.h"
#include "core/error.h"

namespace rensa::training::datasets::detail {

// i in [-size, size) mapped into [0, size); IndexError naming `op`, i and the size.
inline int64_t normalize_index(int64_t i, int64_t size, std::string_view op) {
    RENSA_CHECK(i >= -size && i < size, IndexError, op, ": index ", i, " is out of range for a dataset of size ", size);
    return i < 0 ? i + size : i;
}

// a[i] as a view, built directly (no index parsing): the hot path of every batch.
inline Array row_view(const Array& a, int64_t i) {
    Shape shape;
    Strides strides;
    for (int d = 1; d < a.ndim(); ++d) {
        shape.push_back(a.shape()[d]);
        strides.push_back(a.strides()[d]);
    }
    return Array{a.storage(), shape, strides, a.offset() + i * a.strides()[0], a.dtype()};
}

}  // namespace rensa::training::datasets::detail
