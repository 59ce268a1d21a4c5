#pragma once
// Helpers shared by the math family's files (not part of the public API).

#include <memory>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "autograd/variable.h"
#include "core/error.h"

namespace rensa::functions::math_detail {

// `shape` with the `axes` (normalised, of a reduction over a `shape.size()`-d input) set to 1:
// the keepdims shape of the reduction.
[[nodiscard]] Shape kept_shape(const Shape& shape, const std::optional<Axes>& axes, std::string_view function);

// Output 0 of a new node of type Node.
template <class Node, class... Args>
Variable apply1(const std::vector<Variable>& inputs, Args&&... args) {
    return std::make_shared<Node>(std::forward<Args>(args)...)->apply(inputs)[0];
}

}  // namespace rensa::functions::math_detail
