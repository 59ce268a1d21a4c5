#pragma once
// The parent Hyperparameter of a rule made without an optimizer: Chainer's defaults,
// written by the optimizer's own set_options from a default-constructed Options, built once.

#include <memory>

#include "optimizers/optimizer.h"

namespace rensa::optimizers::detail {

template <class Options, void (*set_options)(Hyperparameter&, const Options&)>
std::shared_ptr<const Hyperparameter> default_hyperparam() {
    static const std::shared_ptr<const Hyperparameter> defaults = [] {
        auto h = std::make_shared<Hyperparameter>();
        set_options(*h, Options{});
        return h;
    }();
    return defaults;
}

}  // namespace rensa::optimizers::detail
