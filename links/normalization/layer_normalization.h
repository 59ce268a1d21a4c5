#pragma once
// LayerNormalization (chainer.links.LayerNormalization): F::layer_normalization of a
// (batch, units) input with learned gamma and beta of shape (units,).

#include <cstdint>
#include <optional>

#include "autograd/variable.h"
#include "links/initializers.h"
#include "links/link.h"

namespace rensa::links {

class LayerNormalization : public Cloneable<LayerNormalization> {
public:
    // size: the number of units; nullopt learns it at the first forward (the size of
    // x.shape[1:]). Null initializers mean 1 for gamma and 0 for beta.
    explicit LayerNormalization(std::optional<int64_t> size = std::nullopt, double eps = 1e-6,
                                initializers::InitializerPtr initial_gamma = nullptr,
                                initializers::InitializerPtr initial_beta = nullptr);

    using Link::forward;
    // x: (batch, units); throws DimensionError when x has fewer than 2 dims.
    Variable forward(const Variable& x) override;

    Parameter gamma, beta;
    double eps;
};

}  // namespace rensa::links

namespace L = rensa::links;  // NOLINT(misc-unused-alias-decls)
