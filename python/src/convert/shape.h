#pragma once
// Chainer's shape arguments: an int (a 1-d shape) or a sequence of ints.
#include <optional>
#include <vector>

#include "core/shape.h"
#include "python/src/convert/ints.h"

namespace rensa::python {

// An int -> (int,), a tuple/list of ints -> that shape. TypeError naming `op` otherwise.
inline Shape to_shape(py::handle obj, const char* op) {
    Shape shape;
    for_each_int(obj, op, "shape", [&](int64_t d) { shape.push_back(d); });
    return shape;
}

// None -> nullopt (Chainer's lazy sizes), else to_shape.
inline std::optional<Shape> to_optional_shape(py::handle obj, const char* op) {
    if (obj.is_none()) return std::nullopt;
    return to_shape(obj, op);
}

// A shape pybind11 already read as a list of ints. Parentheses, not braces: braces would
// pick SmallVector's initializer_list constructor.
inline Shape to_shape(const std::vector<int64_t>& values) { return Shape(values.begin(), values.end()); }

}  // namespace rensa::python
