#pragma once
// Chainer's train_mnist MLP (784-1000-1000-10, ReLU), the model of the MLP benchmarks
// (single process: train_mlp.cc; data parallel: benchmarks/distributed).

#include <memory>

#include "autograd/modes.h"
#include "functions/activation.h"
#include "functions/array.h"
#include "links/chain.h"
#include "links/connection/linear.h"

namespace rensa::bench {

class MLP : public links::Cloneable<MLP, links::Chain> {
public:
    MLP() {
        l1 = add_link("l1", std::make_shared<links::Linear>(784, 1000));
        l2 = add_link("l2", std::make_shared<links::Linear>(1000, 1000));
        l3 = add_link("l3", std::make_shared<links::Linear>(1000, 10));
    }
    using links::Chain::forward;
    // Under a mixed config (Config::mixed16) the input is cast to config().dtype and the
    // logits back to float32; see Note [mixed_bf16 in the training benchmarks].
    Variable forward(const Variable& x) override {
        const bool mixed = config().mixed16 && x.dtype() != config().dtype;
        const Variable h = mixed ? functions::cast(x, config().dtype) : x;
        const Variable y = (*l3)(functions::relu((*l2)(functions::relu((*l1)(h)))));
        return y.dtype() != x.dtype() ? functions::cast(y, x.dtype()) : y;
    }
    std::shared_ptr<links::Linear> l1, l2, l3;
};

}  // namespace rensa::bench
