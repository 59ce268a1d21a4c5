#pragma once
// Highway (chainer.links.Highway): y = activate(plain(x)) * T + x * (1 - T) with the
// transform gate T = sigmoid(transform(x)); plain and transform are square Linear children.

#include <cstdint>
#include <functional>
#include <memory>

#include "functions/activation.h"
#include "links/chain.h"
#include "links/connection/linear.h"
#include "links/initializers.h"

namespace rensa::links {

// Chainer's keyword arguments of Highway, in its order.
struct HighwayOptions {
    bool nobias = false;
    std::function<Variable(const Variable&)> activate = [](const Variable& x) { return F::relu(x); };
    initializers::InitializerPtr init_Wh{};  // plain's W; null: LeCunNormal
    initializers::InitializerPtr init_Wt{};  // transform's W; null: LeCunNormal
    initializers::InitializerPtr init_bh{};  // plain's b; null: zeros
    // transform's b: -1 by default (a negative gate bias, as the paper recommends)
    initializers::InitializerPtr init_bt = initializers::constant(-1);
};

class Highway : public Cloneable<Highway, Chain> {
public:
    std::shared_ptr<Linear> plain;      // Linear(in_out_size, in_out_size)
    std::shared_ptr<Linear> transform;  // Linear(in_out_size, in_out_size)

    explicit Highway(int64_t in_out_size, const HighwayOptions& options = {});

    using Link::forward;
    // x (batch, in_out_size) -> y of the same shape; DimensionError (from Linear) otherwise.
    Variable forward(const Variable& x) override;

private:
    std::function<Variable(const Variable&)> activate_;
};

}  // namespace rensa::links

namespace L = rensa::links;  // NOLINT(misc-unused-alias-decls)
