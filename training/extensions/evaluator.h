#pragma once
// chainer.training.extensions.Evaluator: runs the target over a validation iterator with
// backprop off and config.train=false, and reports the mean of everything reported as
// "<name>/<key>" (default name "validation": "validation/main/loss").

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/reporter.h"
#include "links/link.h"
#include "training/converter.h"
#include "training/extension.h"
#include "training/iterator.h"

namespace rensa::training::extensions {

class Evaluator;

// Computes (and reports) the metrics of one converted batch.
using EvalFunction = std::function<void(const std::vector<Variable>& inputs)>;

struct EvaluatorOptions {
    Converter converter = nullptr;  // null: concat_examples
    std::optional<Device> device = std::nullopt;
    EvalFunction eval_func = nullptr;  // null: the "main" target's forward(inputs)
    // Called with the evaluator at the start of each evaluate() (Chainer's eval_hook: resets
    // the state of stateful models, ...).
    std::function<void(Evaluator&)> eval_hook = nullptr;
};

class Evaluator : public Extension {
public:
    // One iterator and target, both "main".
    Evaluator(IteratorPtr iterator, std::shared_ptr<links::Link> target, EvaluatorOptions options = {});
    // Named iterators and targets; both must contain "main" (ValueError otherwise). A
    // null entry or an iterator that repeats (the pass would never end) is a ValueError.
    Evaluator(std::map<std::string, IteratorPtr> iterators, std::map<std::string, std::shared_ptr<links::Link>> targets,
              EvaluatorOptions options = {});

    // Reports evaluate()'s result through the trainer's reporter.
    void operator()(Trainer& trainer) override;
    std::string default_name() const override { return "validation"; }
    TriggerArg default_trigger() const override { return {1, "epoch"}; }
    int priority() const override { return kPriorityWriter; }

    // One pass over the "main" iterator (reset first, so it must not repeat: ValueError),
    // each batch under NoBackpropMode and config.train=false, its reports collected under
    // the targets' observer names ("main/loss"); returns the means (a DictSummary), as
    // 0-d float64 arrays. Called from operator() with the extension's name as prefix of the
    // keys. The multi-node evaluator overrides it to average across processes.
    virtual Observation evaluate();

    // The iterator / target registered as `name`; KeyError naming the names present.
    Iterator& get_iterator(const std::string& name = "main") const;
    links::Link& get_target(const std::string& name = "main") const;
    std::map<std::string, IteratorPtr> get_all_iterators() const { return iterators_; }
    std::map<std::string, std::shared_ptr<links::Link>> get_all_targets() const { return targets_; }
    const EvaluatorOptions& options() const { return options_; }

protected:
    std::map<std::string, IteratorPtr> iterators_;
    std::map<std::string, std::shared_ptr<links::Link>> targets_;
    EvaluatorOptions options_;
};

}  // namespace rensa::training::extensions
