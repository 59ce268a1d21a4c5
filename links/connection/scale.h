#pragma once
// Scale (chainer.links.Scale): multiplies by a learnt (or given) scale broadcast along x's
// axes, optionally followed by a Bias child.

#include <memory>
#include <optional>
#include <vector>

#include "links/connection/bias.h"
#include "links/link.h"

namespace rensa::links {

class Scale : public Cloneable<Scale> {
public:
    Parameter W;                 // of W_shape, ones; registered only when W_shape is given
    std::shared_ptr<Bias> bias;  // child "bias" when bias_term, else null

    // Chainer's Scale(axis, W_shape, bias_term, bias_shape): with W_shape, W is a parameter
    // (and the bias, with bias_term, has W_shape); without, the scale is the second input
    // and bias_term needs bias_shape (ValueError otherwise).
    explicit Scale(int axis = 1, std::optional<Shape> W_shape = std::nullopt, bool bias_term = false,
                   std::optional<Shape> bias_shape = std::nullopt);

    using Link::forward;
    // F::scale(x, W, axis) (+ bias); ValueError when the link has no W.
    Variable forward(const Variable& x) override;
    // {x} as above, or {x, y} on a link without W: F::scale(x, y, axis) (+ bias). ValueError
    // for other counts, or for {x, y} when the link has W (as Chainer's one-argument case).
    Variable forward(const std::vector<Variable>& xs) override;

    int axis() const { return axis_; }

private:
    Variable add_bias(const Variable& z);
    int axis_;
};

}  // namespace rensa::links

namespace L = rensa::links;  // NOLINT(misc-unused-alias-decls)
