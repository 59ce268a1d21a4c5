#pragma once
// Chainer's `stride=2` or `stride=(2, 1)` arguments (ksize, stride, pad, dilate, outsize).
#include <optional>
#include <variant>
#include <vector>

#include "functions/connection/convolution.h"
#include "functions/pooling.h"
#include "python/src/convert/shape.h"

namespace rensa::python {

// An argument pybind11 reads itself: its variant caster tries the int first, so a Python int
// never becomes a one-element tuple.
using Ints = std::variant<int64_t, std::vector<int64_t>>;

inline functions::IntOrTuple to_int_or_tuple(const Ints& value) {
    if (const auto* one = std::get_if<int64_t>(&value)) return functions::IntOrTuple(*one);
    return functions::IntOrTuple(to_shape(std::get<std::vector<int64_t>>(value)));
}

// The same from a Python object (an int, numpy integers included, or a sequence of ints);
// TypeError naming `op` and the argument `what` otherwise.
inline functions::IntOrTuple to_int_or_tuple(py::handle obj, const char* op, const char* what) {
    if (is_index(obj)) return functions::IntOrTuple(index_value(obj));
    Shape values;
    for_each_int(obj, op, what, [&](int64_t v) { values.push_back(v); });
    return functions::IntOrTuple(values);
}

// Pooling sizes: None (Chainer's "same as ksize" / "computed") leaves the size unset.
inline functions::PoolingSize to_pooling_size(const std::optional<Ints>& value) {
    if (!value) return functions::PoolingSize{};
    if (const auto* one = std::get_if<int64_t>(&*value)) return functions::PoolingSize(*one);
    return functions::PoolingSize(to_shape(std::get<std::vector<int64_t>>(*value)));
}

}  // namespace rensa::python
