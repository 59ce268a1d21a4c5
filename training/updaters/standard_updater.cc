#include "training/updaters/standard_updater.h"

#include <utility>

#include "core/error.h"
#include "training/detail/names.h"

namespace rensa::training::updaters {

StandardUpdater::StandardUpdater(IteratorPtr iterator, std::shared_ptr<optimizers::Optimizer> optimizer,
                                 StandardUpdaterOptions options)
    : StandardUpdater(std::map<std::string, IteratorPtr>{{"main", std::move(iterator)}},
                      std::map<std::string, std::shared_ptr<optimizers::Optimizer>>{{"main", std::move(optimizer)}},
                      std::move(options)) {}

StandardUpdater::StandardUpdater(std::map<std::string, IteratorPtr> iterators,
                                 std::map<std::string, std::shared_ptr<optimizers::Optimizer>> optimizers,
                                 StandardUpdaterOptions options)
    : iterators_{std::move(iterators)}, optimizers_{std::move(optimizers)}, options_{std::move(options)} {
    RENSA_CHECK(iterators_.count("main") == 1, ValueError, "StandardUpdater: the iterators must contain 'main' (got [",
                training::detail::quoted_names(iterators_), "])");
    // Optimizers need no "main" (Chainer's GAN updaters name theirs "gen" and "dis"): only the
    // default update_core uses it.
    RENSA_CHECK(!optimizers_.empty(), ValueError, "StandardUpdater: no optimizer given");
    for (const auto& [name, it] : iterators_) {
        RENSA_CHECK(it != nullptr, ValueError, "StandardUpdater: iterator '", name, "' is null");
    }
    for (const auto& [name, opt] : optimizers_) {
        RENSA_CHECK(opt != nullptr, ValueError, "StandardUpdater: optimizer '", name, "' is null");
    }
}

void StandardUpdater::connect_trainer(Trainer& trainer) { (void)trainer; }

void StandardUpdater::finalize() {
    for (auto& [name, iterator] : iterators_) iterator->finalize();
}

optimizers::Optimizer& StandardUpdater::get_optimizer(const std::string& name) {
    return training::detail::find_named(optimizers_, name, "StandardUpdater", "optimizer");
}

std::map<std::string, std::shared_ptr<optimizers::Optimizer>> StandardUpdater::get_all_optimizers() {
    return optimizers_;
}

Iterator& StandardUpdater::get_iterator(const std::string& name) {
    return training::detail::find_named(iterators_, name, "StandardUpdater", "iterator");
}

void StandardUpdater::update() {
    update_core();
    ++iteration_;
}

int64_t StandardUpdater::epoch() const { return iterators_.at("main")->epoch(); }
double StandardUpdater::epoch_detail() const { return iterators_.at("main")->epoch_detail(); }
std::optional<double> StandardUpdater::previous_epoch_detail() const {
    return iterators_.at("main")->previous_epoch_detail();
}
bool StandardUpdater::is_new_epoch() const { return iterators_.at("main")->is_new_epoch(); }

void StandardUpdater::update_core() {
    RENSA_CHECK(optimizers_.count("main") == 1, KeyError,
                "StandardUpdater.update_core: the default update uses the optimizer 'main' (got [",
                training::detail::quoted_names(optimizers_), "]); override update_core to use others");
    Iterator& iterator = *iterators_.at("main");
    std::optional<std::vector<Example>> batch = iterator.next();
    RENSA_CHECK(batch.has_value(), ValueError,
                "StandardUpdater.update: the 'main' iterator is exhausted (repeat=false); training iterators must "
                "repeat or the stop trigger must fire first");
    const Example arrays =
        options_.converter ? options_.converter(*batch, options_.device) : concat_examples(*batch, options_.device);
    std::vector<Variable> inputs;
    inputs.reserve(arrays.values.size());
    for (const Array& a : arrays.values) inputs.emplace_back(a, /*requires_grad=*/false);

    optimizers::Optimizer& optimizer = *optimizers_.at("main");
    if (options_.loss_func) {
        optimizer.update(options_.loss_func, inputs);
    } else {
        // Chainer calls the target with the arrays as arguments: one goes to forward(x).
        links::Link& target = optimizer.target();
        optimizer.update(
            [&target](const std::vector<Variable>& xs) {
                return xs.size() == 1 ? target.forward(xs[0]) : target.forward(xs);
            },
            inputs);
    }
    if (options_.auto_new_epoch && iterator.is_new_epoch()) optimizer.new_epoch();
}

void StandardUpdater::serialize(const serializers::Serializer& serializer) {
    for (auto& [name, iterator] : iterators_) iterator->serialize(serializer["iterator:" + name]);
    for (auto& [name, optimizer] : optimizers_) {
        optimizer->serialize(serializer["optimizer:" + name]);
        optimizer->target().serialize(serializer["model:" + name]);
    }
    serializer("iteration", iteration_);
}

}  // namespace rensa::training::updaters
