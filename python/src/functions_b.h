#pragma once
// Internal to the functions_b_*.cc bind files (rensa.functions group b: connection,
// pooling, normalization, loss, evaluation): the per-family binders and the conversions of
// Chainer's "int or tuple of ints" and "array or None" arguments.
#include <cstdint>
#include <optional>
#include <variant>
#include <vector>

#include "functions/functions.h"
#include "python/src/bind.h"

namespace rensa::python::functions_b {

void bind_connection(py::module_& f);
void bind_recurrent(py::module_& f);
void bind_pooling(py::module_& f);
void bind_normalization(py::module_& f);
void bind_loss(py::module_& f);
void bind_evaluation(py::module_& f);

// Chainer's `stride=2` or `stride=(2, 1)`: pybind11's variant caster tries the int first,
// so a Python int never becomes a one-element tuple.
using Ints = std::variant<int64_t, std::vector<int64_t>>;
using Int32s = std::variant<int, std::vector<int>>;

// Parentheses, not braces, below: braces would pick the initializer_list constructors and
// turn Chainer's scalar `2` into a one-entry tuple.
inline Shape to_shape(const std::vector<int64_t>& values) { return Shape(values.begin(), values.end()); }

inline F::IntOrTuple to_int_or_tuple(const Ints& value) {
    if (const auto* one = std::get_if<int64_t>(&value)) return F::IntOrTuple(*one);
    return F::IntOrTuple(to_shape(std::get<std::vector<int64_t>>(value)));
}

// None (Chainer's "same as ksize" / "computed") leaves the size unset.
inline F::PoolingSize to_pooling_size(const std::optional<Ints>& value) {
    if (!value) return F::PoolingSize{};
    if (const auto* one = std::get_if<int64_t>(&*value)) return F::PoolingSize(*one);
    return F::PoolingSize(to_shape(std::get<std::vector<int64_t>>(*value)));
}

inline std::optional<Axes> to_axes(const std::optional<Int32s>& value) {
    if (!value) return std::nullopt;
    if (const auto* one = std::get_if<int>(&*value)) return Axes{*one};
    const auto& many = std::get<std::vector<int>>(*value);
    return Axes(many.begin(), many.end());
}

// Chainer's optional Variable arguments (b=None): None is an undefined Variable.
inline Variable or_undefined(const std::optional<Variable>& value) { return value ? *value : Variable{}; }

// An optional array argument (class_weight, running_mean): None is an undefined Array; a
// numpy array is wrapped without a copy, so in-place updates reach the caller's array.
inline Array array_or_undefined(const py::object& value) {
    if (value.is_none()) return Array{};
    if (py::isinstance<Variable>(value)) return value.cast<const Variable&>().array();
    return to_array(value);
}

}  // namespace rensa::python::functions_b
