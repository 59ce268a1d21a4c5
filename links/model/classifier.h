#pragma once
// Classifier (chainer.links.Classifier): wraps a predictor, computes the loss (and the
// accuracy) of its output against the label among the inputs, and reports "loss" and
// "accuracy" through the reporter with itself as observer, so that a trainer that
// registered it as "main" collects "main/loss" and "main/accuracy".

#include <functional>
#include <memory>
#include <vector>

#include "autograd/variable.h"
#include "links/chain.h"

namespace rensa::links {

// loss(y, t) and accuracy(y, t).
using LossFunction = std::function<Variable(const Variable&, const Variable&)>;
using AccuracyFunction = std::function<Variable(const Variable&, const Variable&)>;

class Classifier : public Cloneable<Classifier, Chain> {
public:
    // lossfun / accfun null: F::softmax_cross_entropy / F::accuracy with their defaults.
    // label_key: the position of the label among the inputs (negative counts from the end).
    explicit Classifier(std::shared_ptr<Link> predictor, LossFunction lossfun = nullptr,
                        AccuracyFunction accfun = nullptr, int label_key = -1);

    using Chain::forward;
    // Takes the label out of xs at label_key (ValueError when out of bounds), calls the
    // predictor with the rest (one input: forward(x), several: forward(xs)), returns the loss.
    // ValueError for fewer than 2 inputs.
    Variable forward(const std::vector<Variable>& xs) override;
    // A single input cannot hold both data and label: ValueError.
    Variable forward(const Variable& x) override;

    // The defaults lossfun and accfun hold (plain functions, so a binding can tell them apart).
    static Variable default_lossfun(const Variable& y, const Variable& t);
    static Variable default_accfun(const Variable& y, const Variable& t);

    std::shared_ptr<Link> predictor;
    LossFunction lossfun;
    AccuracyFunction accfun;
    int label_key;
    bool compute_accuracy = true;
    // The results of the last forward (undefined before; accuracy stays undefined when
    // compute_accuracy is false).
    Variable y, loss, accuracy;
};

}  // namespace rensa::links

namespace L = rensa::links;  // NOLINT(misc-unused-alias-decls)
