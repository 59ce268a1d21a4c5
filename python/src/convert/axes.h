#pragma once
// Chainer's axis arguments: None (all axes), an int, or a sequence of ints.
#include <optional>
#include <variant>
#include <vector>

#include "core/shape.h"
#include "python/src/convert/ints.h"

namespace rensa::python {

// None -> nullopt, an int -> (int,), a tuple/list of ints. TypeError naming `op` otherwise.
inline std::optional<Axes> to_axes(py::handle obj, const char* op) {
    if (obj.is_none()) return std::nullopt;
    Axes axes;
    for_each_int(obj, op, "axis", [&](int64_t a) { axes.push_back(static_cast<int>(a)); });
    return axes;
}

// The same for an argument pybind11 reads itself (so that the signature shows
// `int | list[int] | None`): its variant caster tries the int first.
using Int32s = std::variant<int, std::vector<int>>;
inline std::optional<Axes> to_axes(const std::optional<Int32s>& value) {
    if (!value) return std::nullopt;
    if (const auto* one = std::get_if<int>(&*value)) return Axes{*one};
    const auto& many = std::get<std::vector<int>>(*value);
    return Axes(many.begin(), many.end());
}

}  // namespace rensa::python
