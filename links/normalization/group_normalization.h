#pragma once
// GroupNormalization (chainer.links.GroupNormalization): F::group_normalization of an
// input (batch, channels, ...) with its channels split into `groups` groups, and learned
// per-channel gamma and beta.

#include <cstdint>
#include <optional>

#include "autograd/variable.h"
#include "links/initializers.h"
#include "links/link.h"

namespace rensa::links {

class GroupNormalization : public Cloneable<GroupNormalization> {
public:
    // size: the number of channels; nullopt learns it from x.shape[1] at the first forward.
    // Null initializers mean 1 for gamma and 0 for beta. groups must be positive (ValueError).
    explicit GroupNormalization(int64_t groups, std::optional<int64_t> size = std::nullopt, double eps = 1e-5,
                                initializers::InitializerPtr initial_gamma = nullptr,
                                initializers::InitializerPtr initial_beta = nullptr);

    using Link::forward;
    // x: (batch, channels, ...) with channels divisible by groups (F::group_normalization's errors).
    Variable forward(const Variable& x) override;

    int64_t groups;
    Parameter gamma, beta;
    double eps;
};

}  // namespace rensa::links

namespace L = rensa::links;  // NOLINT(misc-unused-alias-decls)
