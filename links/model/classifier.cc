#include "links/model/classifier.h"

#include "core/error.h"
#include "core/reporter.h"
#include "functions/evaluation.h"
#include "functions/loss.h"

namespace rensa::links {

Classifier::Classifier(std::shared_ptr<Link> predictor, LossFunction lossfun, AccuracyFunction accfun, int label_key)
    : lossfun{lossfun ? std::move(lossfun) : LossFunction(&Classifier::default_lossfun)},
      accfun{accfun ? std::move(accfun) : AccuracyFunction(&Classifier::default_accfun)},
      label_key{label_key} {
    RENSA_CHECK(predictor != nullptr, ValueError, "Classifier: predictor is null");
    register_link("predictor", &Classifier::predictor, std::move(predictor));
}

Variable Classifier::default_lossfun(const Variable& y, const Variable& t) { return F::softmax_cross_entropy(y, t); }

Variable Classifier::default_accfun(const Variable& y, const Variable& t) { return F::accuracy(y, t); }

Variable Classifier::forward(const std::vector<Variable>& xs) {
    const int n = static_cast<int>(xs.size());
    RENSA_CHECK(-n <= label_key && label_key < n, ValueError, "Classifier: label key ", label_key,
                " is out of bounds for ", n, " inputs");
    const size_t label_index = static_cast<size_t>(label_key < 0 ? label_key + n : label_key);
    RENSA_CHECK(n >= 2, ValueError, "Classifier: needs the predictor's inputs and the label, got ", n, " input",
                n == 1 ? "" : "s");
    const Variable& t = xs[label_index];
    std::vector<Variable> args;
    for (size_t i = 0; i < xs.size(); ++i) {
        if (i != label_index) args.push_back(xs[i]);
    }
    y = Variable();
    loss = Variable();
    accuracy = Variable();
    y = args.size() == 1 ? predictor->forward(args[0]) : predictor->forward(args);
    loss = lossfun(y, t);
    report({{"loss", loss.array()}}, this);
    if (compute_accuracy) {
        accuracy = accfun(y, t);
        report({{"accuracy", accuracy.array()}}, this);
    }
    return loss;
}

Variable Classifier::forward(const Variable& x) { return forward(std::vector<Variable>{x}); }

}  // namespace rensa::links
