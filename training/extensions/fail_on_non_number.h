#pragma once
// chainer.training.extensions.FailOnNonNumber: stops training with an error as soon as a
// parameter (or, with check_grad, a gradient) of any optimizer's target holds NaN or Inf,
// instead of letting a diverged run continue.

#include <string>

#include "training/extension.h"

namespace rensa::training::extensions {

struct FailOnNonNumberOptions {
    bool check_grad = true;  // also check the gradients (those that exist)
};

class FailOnNonNumber : public Extension {
public:
    explicit FailOnNonNumber(FailOnNonNumberOptions options = {});

    // Throws rensa::Error (Chainer's RuntimeError) naming the optimizer and the parameter
    // path ("main/predictor/l1/W") of the first non-finite parameter or gradient.
    void operator()(Trainer& trainer) override;
    std::string default_name() const override { return "FailOnNonNumber"; }

private:
    FailOnNonNumberOptions options_;
};

}  // namespace rensa::training::extensions
