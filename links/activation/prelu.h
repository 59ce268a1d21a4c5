#pragma once
// PReLU (chainer.links.PReLU): F::prelu with a learned slope W of shape `shape`, which
// broadcasts against x.shape[1 : 1 + W.ndim].

#include "autograd/variable.h"
#include "links/initializers.h"
#include "links/link.h"

namespace rensa::links {

class PReLU : public Cloneable<PReLU> {
public:
    // W of `shape` filled by `init` (null: Constant(0.25), Chainer's default).
    explicit PReLU(Shape shape = {}, initializers::InitializerPtr init = nullptr);
    // W of `shape` filled with `init`.
    PReLU(Shape shape, double init) : PReLU(std::move(shape), initializers::constant(init)) {}

    using Link::forward;
    Variable forward(const Variable& x) override;

    Parameter W;  // NOLINT(readability-identifier-naming): Chainer's name
};

}  // namespace rensa::links

namespace L = rensa::links;  // NOLINT(misc-unused-alias-decls)
