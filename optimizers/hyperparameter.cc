// Hyperparameter (chainer.optimizer.Hyperparameter) and the default calls of OptimizerHook.

#include "core/error.h"
#include "optimizers/optimizer.h"

namespace rensa::optimizers {

double Hyperparameter::get(const std::string& name) const {
    for (const Hyperparameter* h = this; h != nullptr; h = h->parent_.get()) {
        if (const auto it = h->values_.find(name); it != h->values_.end()) return it->second;
    }
    RENSA_THROW(KeyError, "Hyperparameter: no hyperparameter named '", name, "' (neither set on this object nor on ",
                "its parents)");
}

bool Hyperparameter::has(const std::string& name) const {
    for (const Hyperparameter* h = this; h != nullptr; h = h->parent_.get()) {
        if (h->values_.count(name) != 0) return true;
    }
    return false;
}

std::map<std::string, double> Hyperparameter::get_all() const {
    std::map<std::string, double> all = parent_ ? parent_->get_all() : std::map<std::string, double>{};
    for (const auto& [name, value] : values_) all[name] = value;
    return all;
}

// Chainer's Optimizer._call_hook: a per-parameter hook sees each initialised parameter
// with its update rule (parameters without an optimizer rule are skipped).
void OptimizerHook::operator()(Optimizer& optimizer) {
    RENSA_CHECK(call_for_each_param(), NotImplementedError, "optimizer hook ", name(),
                ": looks at one parameter at a time; it cannot be called with an optimizer");
    for (const links::Parameter& param : optimizer.target().params(/*include_uninit=*/false)) {
        if (auto* rule = dynamic_cast<UpdateRule*>(param.update_rule())) (*this)(*rule, param);
    }
}

void OptimizerHook::operator()(UpdateRule&, const links::Parameter&) {
    RENSA_THROW(NotImplementedError, "optimizer hook ", name(),
                ": looks at the whole optimizer (call_for_each_param is false); it cannot be added to an update rule");
}

}  // namespace rensa::optimizers
