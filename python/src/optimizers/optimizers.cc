// rensa._core.optimizers: the concrete optimizers with Chainer's constructor keywords and
// defaults. Hyperparameters are read and set as attributes through Optimizer's
// __getattr__/__setattr__ (bind.cc), so only Chainer's extra properties are here.
#include "python/src/optimizers/optimizers.h"

namespace rensa::python {
namespace {

namespace o = optimizers;
using py::arg;

template <class T, class Options>
std::shared_ptr<T> make(const Options& options) {
    return std::make_shared<T>(options);
}

void bind_sgd_family(py::module_& m) {
    py::classh<o::SGD, o::GradientMethod>(m, "SGD",
                                          R"doc(Vanilla Stochastic Gradient Descent: ``param -= lr * grad``.

:param lr: Learning rate.)doc")
        .def(py::init([](double lr) { return make<o::SGD>(o::SGDOptions{lr}); }), arg("lr") = 0.01);
    py::classh<o::MomentumSGD, o::GradientMethod>(m, "MomentumSGD",
                                                  R"doc(Momentum SGD: ``v = momentum * v - lr * grad``; ``param += v``.

:param lr: Learning rate.
:param momentum: Exponential decay rate of the first order moment.)doc")
        .def(py::init([](double lr, double momentum) {
                 return make<o::MomentumSGD>(o::MomentumSGDOptions{lr, momentum});
             }),
             arg("lr") = 0.01, arg("momentum") = 0.9);
    py::classh<o::CorrectedMomentumSGD, o::GradientMethod>(
        m, "CorrectedMomentumSGD",
        R"doc(Momentum SGD with the momentum correction of Goyal et al. (2017):
``v = momentum * v - grad``; ``param += lr * v``.

It stays consistent when the learning rate changes during training.

:param lr: Learning rate.
:param momentum: Exponential decay rate of the first order moment.)doc")
        .def(py::init([](double lr, double momentum) {
                 return make<o::CorrectedMomentumSGD>(o::CorrectedMomentumSGDOptions{lr, momentum});
             }),
             arg("lr") = 0.01, arg("momentum") = 0.9);
    py::classh<o::NesterovAG, o::GradientMethod>(m, "NesterovAG",
                                                 R"doc(Nesterov's Accelerated Gradient.

:param lr: Learning rate.
:param momentum: Exponential decay rate of the first order moment.)doc")
        .def(py::init([](double lr, double momentum) {
                 return make<o::NesterovAG>(o::NesterovAGOptions{lr, momentum});
             }),
             arg("lr") = 0.01, arg("momentum") = 0.9);
}

void bind_adaptive(py::module_& m) {
    py::classh<o::AdaGrad, o::GradientMethod>(
        m, "AdaGrad",
        R"doc(AdaGrad optimizer: ``h += grad ** 2``; ``param -= lr * grad / (sqrt(h) + eps)``.

:param lr: Learning rate.
:param eps: Small value for numerical stability.)doc")
        .def(py::init([](double lr, double eps) {
                 return make<o::AdaGrad>(o::AdaGradOptions{lr, eps});
             }),
             arg("lr") = 0.001, arg("eps") = 1e-8);
    py::classh<o::AdaDelta, o::GradientMethod>(m, "AdaDelta",
                                               R"doc(Zeiler's ADADELTA.

:param rho: Exponential decay rate of the first and second order moments.
:param eps: Small value for numerical stability.)doc")
        .def(py::init([](double rho, double eps) {
                 return make<o::AdaDelta>(o::AdaDeltaOptions{rho, eps});
             }),
             arg("rho") = 0.95, arg("eps") = 1e-6);
    py::classh<o::RMSprop, o::GradientMethod>(m, "RMSprop",
                                              R"doc(RMSprop optimizer: ``ms = alpha * ms + (1 - alpha) * grad ** 2``;
``param -= lr * grad / (sqrt(ms) + eps)``.

:param lr: Learning rate.
:param alpha: Exponential decay rate of the second order moment.
:param eps: Small value for numerical stability.
:param eps_inside_sqrt: Divide by ``sqrt(ms + eps)`` instead.)doc")
        .def(py::init([](double lr, double alpha, double eps, bool eps_inside_sqrt) {
                 return make<o::RMSprop>(o::RMSpropOptions{lr, alpha, eps, eps_inside_sqrt});
             }),
             arg("lr") = 0.01, arg("alpha") = 0.99, arg("eps") = 1e-8, arg("eps_inside_sqrt") = false);
    py::classh<o::RMSpropGraves, o::GradientMethod>(m, "RMSpropGraves",
                                                    R"doc(Alex Graves's RMSprop (Graves, 2013), with momentum.

:param lr: Learning rate.
:param alpha: Exponential decay rate of the first and second order moments of the gradient.
:param momentum: Exponential decay rate of the update.
:param eps: Small value for numerical stability.)doc")
        .def(py::init([](double lr, double alpha, double momentum, double eps) {
                 return make<o::RMSpropGraves>(o::RMSpropGravesOptions{lr, alpha, momentum, eps});
             }),
             arg("lr") = 1e-4, arg("alpha") = 0.95, arg("momentum") = 0.9, arg("eps") = 1e-4);
    py::classh<o::SMORMS3, o::GradientMethod>(m, "SMORMS3",
                                              R"doc(Simon Funk's SMORMS3.

:param lr: Learning rate.
:param eps: Small value for numerical stability.)doc")
        .def(py::init([](double lr, double eps) {
                 return make<o::SMORMS3>(o::SMORMS3Options{lr, eps});
             }),
             arg("lr") = 0.001, arg("eps") = 1e-16);
    py::classh<o::MSVAG, o::GradientMethod>(m, "MSVAG",
                                            R"doc(M-SVAG optimizer of Balles and Hennig, "Dissecting Adam" (2018).

The step ``lr * m`` (bias-corrected running mean of the gradient) is scaled per element by a
variance-adapted factor; weight decay is decoupled:
``param -= eta * (lr * m * factor + weight_decay_rate * param)``.

:param lr: Learning rate.
:param beta: Exponential decay rate of the first and second order moments.
:param eta: Schedule multiplier, for learning rate scheduling.
:param weight_decay_rate: Weight decay rate.)doc")
        .def(py::init([](double lr, double beta, double eta, double weight_decay_rate) {
                 return make<o::MSVAG>(o::MSVAGOptions{lr, beta, eta, weight_decay_rate});
             }),
             arg("lr") = 0.1, arg("beta") = 0.9, arg("eta") = 1.0, arg("weight_decay_rate") = 0.0);
}

void bind_adam_family(py::module_& m) {
    py::classh<o::Adam, o::GradientMethod>(m, "Adam",
                                           R"doc(Adam optimizer (Kingma and Ba, 2015), with Chainer's variants.

``m += (1 - beta1) * (grad - m)``; ``v += (1 - beta2) * (grad ** 2 - v)``;
``param -= eta * (alpha_t * m / (sqrt(v) + eps) + weight_decay_rate * param)``, ``alpha_t`` the
bias-corrected step size.

:param alpha: Coefficient of the learning rate.
:param beta1: Exponential decay rate of the first order moment.
:param beta2: Exponential decay rate of the second order moment.
:param eps: Small value for numerical stability.
:param eta: Schedule multiplier, for learning rate scheduling.
:param weight_decay_rate: Weight decay rate, decoupled from the gradient (AdamW).
:param amsgrad: Use AMSGrad: divide by the running maximum of ``v``.
:param adabound: Use AdaBound: clip the step to bounds that close in on ``final_lr``.
:param final_lr: AdaBound's final (SGD) learning rate.
:param gamma: AdaBound's convergence speed of the bounds.)doc")
        .def(py::init([](double alpha, double beta1, double beta2, double eps, double eta, double weight_decay_rate,
                         bool amsgrad, bool adabound, double final_lr, double gamma) {
                 return make<o::Adam>(o::AdamOptions{alpha, beta1, beta2, eps, eta, weight_decay_rate, amsgrad,
                                                     adabound, final_lr, gamma});
             }),
             arg("alpha") = 0.001, arg("beta1") = 0.9, arg("beta2") = 0.999, arg("eps") = 1e-8, arg("eta") = 1.0,
             arg("weight_decay_rate") = 0.0, arg("amsgrad") = false, arg("adabound") = false, arg("final_lr") = 0.1,
             arg("gamma") = 1e-3)
        // Chainer's alpha_t and its (deprecated) alias lr: the effective step size at t.
        .def_property_readonly("alpha_t", &o::Adam::alpha_t,
                               R"doc(The bias-corrected step size at the optimizer's current ``t``:
``alpha * sqrt(1 - beta2 ** t) / (1 - beta1 ** t)``.)doc")
        .def_property_readonly(
            "lr", &o::Adam::lr,
            R"doc(An alias of :attr:`alpha_t` (deprecated in Chainer), what LR-observing extensions read.)doc");
    py::classh<o::AdamW, o::Adam>(
        m, "AdamW",
        R"doc(AdamW optimizer: :class:`Adam` with decoupled weight decay (Loshchilov and Hutter).

:param alpha: Coefficient of the learning rate.
:param beta1: Exponential decay rate of the first order moment.
:param beta2: Exponential decay rate of the second order moment.
:param eps: Small value for numerical stability.
:param eta: Schedule multiplier, for learning rate scheduling.
:param weight_decay_rate: Weight decay rate.)doc")
        .def(py::init([](double alpha, double beta1, double beta2, double eps, double eta, double weight_decay_rate) {
                 return make<o::AdamW>(o::AdamWOptions{alpha, beta1, beta2, eps, eta, weight_decay_rate});
             }),
             arg("alpha") = 0.001, arg("beta1") = 0.9, arg("beta2") = 0.999, arg("eps") = 1e-8, arg("eta") = 1.0,
             arg("weight_decay_rate") = 0.0);
    py::classh<o::AMSGrad, o::Adam>(m, "AMSGrad",
                                    R"doc(AMSGrad optimizer: :class:`Adam` with ``amsgrad=True``.

:param alpha: Coefficient of the learning rate.
:param beta1: Exponential decay rate of the first order moment.
:param beta2: Exponential decay rate of the second order moment.
:param eps: Small value for numerical stability.
:param eta: Schedule multiplier, for learning rate scheduling.)doc")
        .def(py::init([](double alpha, double beta1, double beta2, double eps, double eta) {
                 return make<o::AMSGrad>(o::AMSGradOptions{alpha, beta1, beta2, eps, eta});
             }),
             arg("alpha") = 0.001, arg("beta1") = 0.9, arg("beta2") = 0.999, arg("eps") = 1e-8, arg("eta") = 1.0);
    const auto bound_init = [](auto tag) {
        using T = typename decltype(tag)::type;
        return py::init(
            [](double alpha, double beta1, double beta2, double final_lr, double gamma, double eps, double eta) {
                return make<T>(o::AdaBoundOptions{alpha, beta1, beta2, final_lr, gamma, eps, eta});
            });
    };
    py::classh<o::AdaBound, o::Adam>(m, "AdaBound",
                                     R"doc(AdaBound optimizer: :class:`Adam` with ``adabound=True`` (Luo et al., 2019).

:param alpha: Coefficient of the learning rate.
:param beta1: Exponential decay rate of the first order moment.
:param beta2: Exponential decay rate of the second order moment.
:param final_lr: Final (SGD) learning rate the bounds close in on.
:param gamma: Convergence speed of the bounds.
:param eps: Small value for numerical stability.
:param eta: Schedule multiplier, for learning rate scheduling.)doc")
        .def(bound_init(std::type_identity<o::AdaBound>{}), arg("alpha") = 0.001, arg("beta1") = 0.9,
             arg("beta2") = 0.999, arg("final_lr") = 0.1, arg("gamma") = 1e-3, arg("eps") = 1e-8, arg("eta") = 1.0);
    py::classh<o::AMSBound, o::Adam>(
        m, "AMSBound",
        R"doc(AMSBound optimizer: :class:`Adam` with ``amsgrad=True`` and ``adabound=True``.

:param alpha: Coefficient of the learning rate.
:param beta1: Exponential decay rate of the first order moment.
:param beta2: Exponential decay rate of the second order moment.
:param final_lr: Final (SGD) learning rate the bounds close in on.
:param gamma: Convergence speed of the bounds.
:param eps: Small value for numerical stability.
:param eta: Schedule multiplier, for learning rate scheduling.)doc")
        .def(bound_init(std::type_identity<o::AMSBound>{}), arg("alpha") = 0.001, arg("beta1") = 0.9,
             arg("beta2") = 0.999, arg("final_lr") = 0.1, arg("gamma") = 1e-3, arg("eps") = 1e-8, arg("eta") = 1.0);
}

}  // namespace

void bind_optimizer_classes(py::module_& m) {
    // The rules, so that param.update_rule (a ParameterUpdateRule* in C++) is seen as one.
    py::classh<o::SGDRule, o::UpdateRule>(m, "SGDRule");
    py::classh<o::MomentumSGDRule, o::UpdateRule>(m, "MomentumSGDRule");
    py::classh<o::CorrectedMomentumSGDRule, o::UpdateRule>(m, "CorrectedMomentumSGDRule");
    py::classh<o::NesterovAGRule, o::UpdateRule>(m, "NesterovAGRule");
    py::classh<o::AdaGradRule, o::UpdateRule>(m, "AdaGradRule");
    py::classh<o::AdaDeltaRule, o::UpdateRule>(m, "AdaDeltaRule");
    py::classh<o::RMSpropRule, o::UpdateRule>(m, "RMSpropRule");
    py::classh<o::RMSpropGravesRule, o::UpdateRule>(m, "RMSpropGravesRule");
    py::classh<o::SMORMS3Rule, o::UpdateRule>(m, "SMORMS3Rule");
    py::classh<o::MSVAGRule, o::UpdateRule>(m, "MSVAGRule");
    py::classh<o::AdamRule, o::UpdateRule>(m, "AdamRule")
        .def_property_readonly("alpha_t", &o::AdamRule::alpha_t,
                               R"doc(The bias-corrected step size of this rule at its current ``t``.)doc")
        .def_property_readonly("lr", &o::AdamRule::alpha_t,
                               R"doc(The bias-corrected step size (an alias of ``alpha_t``).)doc");
    bind_sgd_family(m);
    bind_adaptive(m);
    bind_adam_family(m);
}

}  // namespace rensa::python
