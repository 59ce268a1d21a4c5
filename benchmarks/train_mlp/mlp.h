#pragma once
// Chainer's train_mnist MLP (784-1000-1000-10, ReLU), the model of the MLP benchmarks
// (single process: train_mlp.cc; data parallel: benchmarks/distributed).

#include <memory>

#include "functions/activation.h"
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
    Variable forward(const Variable& x) override { return (*l3)(functions::relu((*l2)(functions::relu((*l1)(x))))); }
    std::shared_ptr<links::Linear> l1, l2, l3;
};

}  // namespace rensa::bench
