#include "training/extensions/evaluator.h"

#include <utility>

#include "autograd/modes.h"
#include "core/error.h"
#include "core/ops/creation.h"
#include "training/detail/evaluation.h"
#include "training/detail/names.h"
#include "training/summary.h"

namespace rensa::training::detail {

Variable call_target(links::Link& target, const std::vector<Variable>& inputs) {
    return inputs.size() == 1 ? target.forward(inputs[0]) : target.forward(inputs);
}

void register_targets(Reporter& reporter, const std::map<std::string, std::shared_ptr<links::Link>>& targets) {
    for (const auto& [name, target] : targets) {
        // The most-derived address: what a link's report(values, this) passes (as the Trainer).
        reporter.add_observer(name, dynamic_cast<const void*>(target.get()));
        std::vector<std::pair<std::string, const void*>> children;
        for (const auto& [path, link] : target->namedlinks(/*skipself=*/true)) {
            children.emplace_back(path, dynamic_cast<const void*>(link));
        }
        reporter.add_observers(name, children);
    }
}

}  // namespace rensa::training::detail

namespace rensa::training::extensions {

Evaluator::Evaluator(IteratorPtr iterator, std::shared_ptr<links::Link> target, EvaluatorOptions options)
    : Evaluator(std::map<std::string, IteratorPtr>{{"main", std::move(iterator)}},
                std::map<std::string, std::shared_ptr<links::Link>>{{"main", std::move(target)}}, std::move(options)) {}

Evaluator::Evaluator(std::map<std::string, IteratorPtr> iterators,
                     std::map<std::string, std::shared_ptr<links::Link>> targets, EvaluatorOptions options)
    : iterators_{std::move(iterators)}, targets_{std::move(targets)}, options_{std::move(options)} {
    RENSA_CHECK(iterators_.count("main") == 1, ValueError, "Evaluator: no iterator named 'main' (iterators: [",
                training::detail::quoted_names(iterators_), "])");
    RENSA_CHECK(targets_.count("main") == 1, ValueError, "Evaluator: no target named 'main' (targets: [",
                training::detail::quoted_names(targets_), "])");
    for (const auto& [name, iterator] : iterators_) {
        RENSA_CHECK(iterator != nullptr, ValueError, "Evaluator: iterator '", name, "' is null");
        RENSA_CHECK(!iterator->repeat(), ValueError, "Evaluator: iterator '", name,
                    "' repeats (repeat=true), so a pass over it would never end; create it with repeat=false");
    }
    for (const auto& [name, target] : targets_) {
        RENSA_CHECK(target != nullptr, ValueError, "Evaluator: target '", name, "' is null");
    }
    if (!options_.converter) {
        options_.converter = [](const std::vector<Example>& batch, std::optional<Device> device) {
            return concat_examples(batch, device);
        };
    }
}

void Evaluator::operator()(Trainer& trainer) {
    (void)trainer;
    const Observation result = evaluate();
    Observation prefixed;
    for (const auto& [key, value] : result) prefixed.emplace(name() + "/" + key, value);
    report(prefixed);  // to the trainer's reporter: "validation/main/loss"
}

Observation Evaluator::evaluate() {
    Iterator& iterator = get_iterator("main");
    links::Link& target = get_target("main");
    RENSA_CHECK(!iterator.repeat(), ValueError,
                "Evaluator.evaluate: the 'main' iterator repeats (repeat=true), so the pass would never end");
    ConfigScope<bool> eval_mode{&Config::train, false};  // the hook too, as Chainer
    if (options_.eval_hook) options_.eval_hook(*this);
    Reporter reporter;
    detail::register_targets(reporter, targets_);
    iterator.reset();
    DictSummary summary;
    while (auto batch = iterator.next()) {
        Observation observation;
        {
            ReporterScope scope{reporter, observation};
            const Example converted = options_.converter(*batch, options_.device);
            std::vector<Variable> inputs;
            inputs.reserve(converted.size());
            for (const Array& value : converted.values) inputs.emplace_back(value, /*requires_grad=*/false);
            NoBackpropMode no_graph;
            if (options_.eval_func) {
                options_.eval_func(inputs);
            } else {
                (void)detail::call_target(target, inputs);
            }
        }
        summary.add(observation);  // each batch weighs the same, as Chainer's DictSummary
    }

    Observation result;
    for (const auto& [key, mean] : summary.compute_mean()) {
        result.emplace(key, ops::full(Shape{}, mean, Dtype::kFloat64));
    }
    return result;
}

Iterator& Evaluator::get_iterator(const std::string& name) const {
    return training::detail::find_named(iterators_, name, "Evaluator.get_iterator", "iterator");
}

links::Link& Evaluator::get_target(const std::string& name) const {
    return training::detail::find_named(targets_, name, "Evaluator.get_target", "target");
}

}  // namespace rensa::training::extensions
