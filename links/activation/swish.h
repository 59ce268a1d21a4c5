#pragma once
// Swish (chainer.links.Swish): F::swish with a learned beta, broadcast against
// x.shape[1 : 1 + beta.ndim].

#include <optional>

#include "autograd/variable.h"
#include "links/link.h"

namespace rensa::links {

class Swish : public Cloneable<Swish> {
public:
    // beta of `beta_shape` filled with beta_init; nullopt (Chainer's None): beta takes
    // x.shape[1:] at the first forward.
    explicit Swish(std::optional<Shape> beta_shape, double beta_init = 1.0);

    using Link::forward;
    Variable forward(const Variable& x) override;

    Parameter beta;
};

}  // namespace rensa::links

namespace L = rensa::links;  // NOLINT(misc-unused-alias-decls)
