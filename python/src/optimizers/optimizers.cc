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
    py::classh<o::SGD, o::GradientMethod>(m, "SGD").def(
        py::init([](double lr) { return make<o::SGD>(o::SGDOptions{lr}); }), arg("lr") = 0.01);
    py::classh<o::MomentumSGD, o::GradientMethod>(m, "MomentumSGD")
        .def(py::init([](double lr, double momentum) {
                 return make<o::MomentumSGD>(o::MomentumSGDOptions{lr, momentum});
             }),
             arg("lr") = 0.01, arg("momentum") = 0.9);
    py::classh<o::CorrectedMomentumSGD, o::GradientMethod>(m, "CorrectedMomentumSGD")
        .def(py::init([](double lr, double momentum) {
                 return make<o::CorrectedMomentumSGD>(o::CorrectedMomentumSGDOptions{lr, momentum});
             }),
             arg("lr") = 0.01, arg("momentum") = 0.9);
    py::classh<o::NesterovAG, o::GradientMethod>(m, "NesterovAG")
        .def(py::init([](double lr, double momentum) {
                 return make<o::NesterovAG>(o::NesterovAGOptions{lr, momentum});
             }),
             arg("lr") = 0.01, arg("momentum") = 0.9);
}

void bind_adaptive(py::module_& m) {
    py::classh<o::AdaGrad, o::GradientMethod>(m, "AdaGrad")
        .def(py::init([](double lr, double eps) {
                 return make<o::AdaGrad>(o::AdaGradOptions{lr, eps});
             }),
             arg("lr") = 0.001, arg("eps") = 1e-8);
    py::classh<o::AdaDelta, o::GradientMethod>(m, "AdaDelta")
        .def(py::init([](double rho, double eps) {
                 return make<o::AdaDelta>(o::AdaDeltaOptions{rho, eps});
             }),
             arg("rho") = 0.95, arg("eps") = 1e-6);
    py::classh<o::RMSprop, o::GradientMethod>(m, "RMSprop")
        .def(py::init([](double lr, double alpha, double eps, bool eps_inside_sqrt) {
                 return make<o::RMSprop>(o::RMSpropOptions{lr, alpha, eps, eps_inside_sqrt});
             }),
             arg("lr") = 0.01, arg("alpha") = 0.99, arg("eps") = 1e-8, arg("eps_inside_sqrt") = false);
    py::classh<o::RMSpropGraves, o::GradientMethod>(m, "RMSpropGraves")
        .def(py::init([](double lr, double alpha, double momentum, double eps) {
                 return make<o::RMSpropGraves>(o::RMSpropGravesOptions{lr, alpha, momentum, eps});
             }),
             arg("lr") = 1e-4, arg("alpha") = 0.95, arg("momentum") = 0.9, arg("eps") = 1e-4);
    py::classh<o::SMORMS3, o::GradientMethod>(m, "SMORMS3")
        .def(py::init([](double lr, double eps) {
                 return make<o::SMORMS3>(o::SMORMS3Options{lr, eps});
             }),
             arg("lr") = 0.001, arg("eps") = 1e-16);
    py::classh<o::MSVAG, o::GradientMethod>(m, "MSVAG")
        .def(py::init([](double lr, double beta, double eta, double weight_decay_rate) {
                 return make<o::MSVAG>(o::MSVAGOptions{lr, beta, eta, weight_decay_rate});
             }),
             arg("lr") = 0.1, arg("beta") = 0.9, arg("eta") = 1.0, arg("weight_decay_rate") = 0.0);
}

void bind_adam_family(py::module_& m) {
    py::classh<o::Adam, o::GradientMethod>(m, "Adam")
        .def(py::init([](double alpha, double beta1, double beta2, double eps, double eta, double weight_decay_rate,
                         bool amsgrad, bool adabound, double final_lr, double gamma) {
                 return make<o::Adam>(o::AdamOptions{alpha, beta1, beta2, eps, eta, weight_decay_rate, amsgrad,
                                                     adabound, final_lr, gamma});
             }),
             arg("alpha") = 0.001, arg("beta1") = 0.9, arg("beta2") = 0.999, arg("eps") = 1e-8, arg("eta") = 1.0,
             arg("weight_decay_rate") = 0.0, arg("amsgrad") = false, arg("adabound") = false, arg("final_lr") = 0.1,
             arg("gamma") = 1e-3)
        // Chainer's alpha_t and its (deprecated) alias lr: the effective step size at t.
        .def_property_readonly("alpha_t", &o::Adam::alpha_t)
        .def_property_readonly("lr", &o::Adam::lr);
    py::classh<o::AdamW, o::Adam>(m, "AdamW")
        .def(py::init([](double alpha, double beta1, double beta2, double eps, double eta, double weight_decay_rate) {
                 return make<o::AdamW>(o::AdamWOptions{alpha, beta1, beta2, eps, eta, weight_decay_rate});
             }),
             arg("alpha") = 0.001, arg("beta1") = 0.9, arg("beta2") = 0.999, arg("eps") = 1e-8, arg("eta") = 1.0,
             arg("weight_decay_rate") = 0.0);
    py::classh<o::AMSGrad, o::Adam>(m, "AMSGrad")
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
    py::classh<o::AdaBound, o::Adam>(m, "AdaBound")
        .def(bound_init(std::type_identity<o::AdaBound>{}), arg("alpha") = 0.001, arg("beta1") = 0.9,
             arg("beta2") = 0.999, arg("final_lr") = 0.1, arg("gamma") = 1e-3, arg("eps") = 1e-8, arg("eta") = 1.0);
    py::classh<o::AMSBound, o::Adam>(m, "AMSBound")
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
        .def_property_readonly("alpha_t", &o::AdamRule::alpha_t)
        .def_property_readonly("lr", &o::AdamRule::alpha_t);
    bind_sgd_family(m);
    bind_adaptive(m);
    bind_adam_family(m);
}

}  // namespace rensa::python
