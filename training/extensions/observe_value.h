#pragma once
// chainer.training.extensions.observe_value and observe_lr: extensions that put one number
// into the trainer's observation (default trigger {1, "epoch"}, priority writer, so that
// LogReport and PrintReport see it in the same iteration).
//
//   trainer.extend(extensions::observe_lr());                                  // "lr"
//   trainer.extend(extensions::observe_value("alpha", [](Trainer& t) { return ...; }));

#include <functional>
#include <string>

#include "training/extension.h"

namespace rensa::training::extensions {

struct ObserveValueOptions {
    TriggerArg trigger = {1, "epoch"};  // Chainer's default trigger of observe_value
};

// Stores target_func(trainer) as a 0-d float64 array under observation_key (replacing a
// value reported there before). Default name "_observe_value" (Chainer's function name).
[[nodiscard]] ExtensionPtr observe_value(std::string observation_key, std::function<double(Trainer&)> target_func,
                                         ObserveValueOptions options = {});

// Observes the learning rate of the optimizer `optimizer_name` of the trainer's updater:
// its hyperparameter "lr", or for Adam (and AdamW, AMSGrad, ...) Chainer's Adam.lr property
// alpha * sqrt(1 - beta2^t) / (1 - beta1^t) (an Error before the first update, as Chainer).
// KeyError when the optimizer has no "lr".
[[nodiscard]] ExtensionPtr observe_lr(std::string optimizer_name = "main", std::string observation_key = "lr",
                                      ObserveValueOptions options = {});

}  // namespace rensa::training::extensions
