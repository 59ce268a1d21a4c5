#pragma once
// ParameterLink (chainer.links.Parameter, bound under that name): a link that holds one
// parameter W and returns it. C++ names it apart from rensa::links::Parameter, the
// parameter variable itself (chainer.Parameter).

#include <vector>

#include "autograd/variable.h"
#include "links/link.h"

namespace rensa::links {

class ParameterLink : public Cloneable<ParameterLink> {
public:
    // W holds `array` itself, no copy, as Chainer sets W.array = array (its shape, dtype and
    // device). ValueError when `array` is undefined.
    explicit ParameterLink(const Array& array);

    using Link::forward;
    // F::identity(W): a new variable whose gradient flows into W.
    Variable forward();
    // No inputs (ValueError otherwise): forward().
    Variable forward(const std::vector<Variable>& xs) override;

    Parameter W;  // NOLINT(readability-identifier-naming): Chainer's name
};

}  // namespace rensa::links

namespace L = rensa::links;  // NOLINT(misc-unused-alias-decls)
