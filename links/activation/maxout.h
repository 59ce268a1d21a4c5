#pragma once
// Maxout (chainer.links.Maxout): a Linear to out_size * pool_size units followed by
// F::maxout over groups of pool_size consecutive units. The Linear is the child
// "linear", so the NPZ keys are Chainer's: linear/W (out_size * pool_size, in_size) and
// linear/b (out_size * pool_size).

#include <cstdint>
#include <memory>
#include <optional>

#include "autograd/variable.h"
#include "links/connection/linear.h"
#include "links/initializers.h"
#include "links/link.h"

namespace rensa::links {

class Maxout : public Cloneable<Maxout> {
public:
    // in_size nullopt: learned at the first forward. initialW null: Linear's default
    // (LeCunNormal); an array (out_size, pool_size, in_size) goes through
    // initializers::from_array(w.reshape({out_size * pool_size, in_size})). initial_bias
    // null: no bias (Chainer's initial_bias=None). ValueError unless out_size and
    // pool_size are positive.
    Maxout(std::optional<int64_t> in_size, int64_t out_size, int64_t pool_size,
           initializers::InitializerPtr initialW = nullptr,
           initializers::InitializerPtr initial_bias = initializers::constant(0));

    using Link::forward;
    Variable forward(const Variable& x) override;

    std::shared_ptr<Linear> linear;
    int64_t out_size, pool_size;
};

}  // namespace rensa::links

namespace L = rensa::links;  // NOLINT(misc-unused-alias-decls)
