// SGD and its rule.

#include "optimizers/sgd.h"

#include "core/ops/fused_update.h"
#include "core/ops/update_program.h"

namespace rensa::optimizers {
namespace {

std::shared_ptr<const Hyperparameter> default_hyperparam() {
    static const auto defaults = [] {
        auto h = std::make_shared<Hyperparameter>();
        h->set("lr", SGDOptions{}.lr);
        return h;
    }();
    return defaults;
}

}  // namespace

SGDRule::SGDRule(std::shared_ptr<const Hyperparameter> parent)
    : UpdateRule(parent ? std::move(parent) : default_hyperparam()) {}

void SGDRule::init_state(const Array&) {}

namespace {

// param -= lr * grad
std::shared_ptr<const UpdateProgram> program() {
    using namespace ops::update_registers;
    constexpr uint8_t lr = scalar(0);
    static constexpr ops::StaticUpdateCode kCode{{UpdateOp::kSubMul, kParam, lr, kGrad, kParam}};
    static const auto p = ops::make_update_program<kCode>("sgd", {}, 1);
    return p;
}

}  // namespace

FusedUpdateArgs SGDRule::update_args(const Array& param, const Array& grad) const {
    return {.program = program(), .param = param, .grad = grad, .scalars = {hyperparam().get("lr")}};
}

void SGDRule::update_core(const Array& param, const Array& grad) { ops::fused_update(update_args(param, grad)); }

SGD::SGD(const SGDOptions& options) { hyperparam().set("lr", options.lr); }

std::shared_ptr<UpdateRule> SGD::create_update_rule() { return std::make_shared<SGDRule>(hyperparam_ptr()); }

}  // namespace rensa::optimizers
