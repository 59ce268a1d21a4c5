#pragma once
// Bias (chainer.links.Bias): adds a learnt (or given) bias broadcast along x's axes.

#include <optional>
#include <vector>

#include "links/link.h"

namespace rensa::links {

class Bias : public Cloneable<Bias> {
public:
    Parameter b;  // of `shape`, zeros; registered only when shape is given, else undefined

    // Chainer's Bias(axis, shape): with a shape, b is a parameter added to x along
    // x's axes [axis, axis + b.ndim); without one, the bias is the second input.
    explicit Bias(int axis = 1, std::optional<Shape> shape = std::nullopt);

    using Link::forward;
    // F::bias(x, b, axis); ValueError when the link has no b (give it as a second input).
    Variable forward(const Variable& x) override;
    // {x} as above, or {x, b}: F::bias(x, b, axis). ValueError for other counts.
    Variable forward(const std::vector<Variable>& xs) override;

    int axis() const { return axis_; }

private:
    int axis_;
};

}  // namespace rensa::links

namespace L = rensa::links;  // NOLINT(misc-unused-alias-decls)
