// rensa._core.optimizer_hooks: Chainer's built-in hooks, and the C++ hook that runs a
// Python hook (a function hook(optimizer), or an object with name, timing,
// call_for_each_param and __call__(rule, param)) while keeping it alive.
#include <string>
#include <utility>

#include "core/error.h"
#include "python/src/optimizers/optimizers.h"

namespace rensa::python {
namespace {

namespace oh = optimizer_hooks;
using optimizers::HookTiming;
using optimizers::Optimizer;
using optimizers::OptimizerHook;
using optimizers::UpdateRule;

// Owns the Python hook, so it keeps working when only C++ holds it. The update runs with
// the GIL released: every call re-takes it.
class PythonHook final : public OptimizerHook {
public:
    explicit PythonHook(py::object hook) : hook_{std::move(hook)} {
        // Chainer reads these when the hook is added.
        if (py::hasattr(hook_, "name")) {
            name_ = py::str(hook_.attr("name")).cast<std::string>();
        } else if (py::hasattr(hook_, "__name__")) {
            name_ = hook_.attr("__name__").cast<std::string>();
        } else {
            name_ = py::type::of(hook_).attr("__name__").cast<std::string>();
        }
        timing_ = to_hook_timing(py::getattr(hook_, "timing", py::str("pre")).cast<std::string>());
        if (timing_ == HookTiming::kAuto) timing_ = HookTiming::kPre;
        for_each_param_ = py::getattr(hook_, "call_for_each_param", py::bool_(false)).cast<bool>();
    }
    ~PythonHook() override {
        if (!Py_IsInitialized()) {
            (void)hook_.release();  // the interpreter is gone: nothing to decref
            return;
        }
        py::gil_scoped_acquire gil;
        hook_ = py::object();
    }
    PythonHook(const PythonHook&) = delete;
    PythonHook& operator=(const PythonHook&) = delete;

    std::string name() const override { return name_; }
    HookTiming timing() const override { return timing_; }
    bool call_for_each_param() const override { return for_each_param_; }
    void operator()(Optimizer& optimizer) override {
        if (for_each_param_) return OptimizerHook::operator()(optimizer);  // loops over the rules
        py::gil_scoped_acquire gil;
        hook_(py::cast(&optimizer, py::return_value_policy::reference));
    }
    void operator()(UpdateRule& rule, const links::Parameter& param) override {
        py::gil_scoped_acquire gil;
        hook_(py::cast(&rule, py::return_value_policy::reference), py::cast(param));
    }

private:
    py::object hook_;
    std::string name_;
    HookTiming timing_ = HookTiming::kPre;
    bool for_each_param_ = false;
};

// Chainer's noise_func(xp, shape, dtype, hook, opt) from Python.
oh::NoiseFunction python_noise(py::object func) {
    // The deleter re-takes the GIL: the hook may die on a C++ thread.
    std::shared_ptr<py::object> holder(new py::object(std::move(func)), [](py::object* p) {
        if (Py_IsInitialized()) {
            py::gil_scoped_acquire gil;
            delete p;
        }
    });
    return [holder](Device, const Shape& shape, Dtype dtype, const oh::GradientNoise& hook, const UpdateRule& rule) {
        py::gil_scoped_acquire gil;
        py::tuple dims(static_cast<size_t>(shape.size()));
        for (size_t i = 0; i < dims.size(); ++i) dims[i] = py::int_(shape[static_cast<int>(i)]);
        const py::object result = (*holder)(py::module_::import("numpy"), dims, dtype_to_python(dtype),
                                            py::cast(&hook, py::return_value_policy::reference),
                                            py::cast(&rule, py::return_value_policy::reference));
        return to_array(result).astype(dtype, false);
    };
}

}  // namespace

std::shared_ptr<OptimizerHook> to_hook(const py::object& hook) {
    if (py::isinstance<OptimizerHook>(hook)) return hook.cast<std::shared_ptr<OptimizerHook>>();
    RENSA_CHECK(PyCallable_Check(hook.ptr()) != 0, ValueError, "add_hook: the hook (",
                py::repr(hook).cast<std::string>(), ") is not callable");
    return std::make_shared<PythonHook>(hook);
}

void bind_optimizer_hooks(py::module_& m) {
    using py::arg;
    py::classh<OptimizerHook>(
        m, "OptimizerHook",
        R"doc(Base class of the built-in optimizer hooks (C++ hooks); any Python callable may be a hook too.)doc")
        .def_property_readonly("name", &OptimizerHook::name,
                               R"doc(The hook's name, under which an optimizer registers it.)doc")
        .def_property_readonly(
            "timing",
            [](const OptimizerHook& h) {
                switch (h.timing()) {
                    case HookTiming::kPre:
                        return "pre";
                    case HookTiming::kPost:
                        return "post";
                    case HookTiming::kAuto:
                        break;
                }
                return "auto";
            },
            R"doc(When the hook runs: ``'pre'`` (before the update) or ``'post'`` (after it).)doc")
        .def_property_readonly(
            "call_for_each_param", &OptimizerHook::call_for_each_param,
            R"doc(Whether the hook runs once per parameter (with the rule and the parameter) rather than once per
update (with the optimizer).)doc")
        .def(
            "__call__", [](OptimizerHook& h, Optimizer& opt) { h(opt); }, arg("optimizer"),
            py::call_guard<py::gil_scoped_release>(),
            R"doc(Runs the hook on a whole optimizer.

:param optimizer: The optimizer.)doc")
        .def(
            "__call__", [](OptimizerHook& h, UpdateRule& rule, const links::Parameter& param) { h(rule, param); },
            arg("rule"), arg("param"), py::call_guard<py::gil_scoped_release>(),
            R"doc(Runs the hook on one parameter.

:param rule: The parameter's update rule.
:param param: The parameter.)doc");

    py::classh<oh::WeightDecay, OptimizerHook>(
        m, "WeightDecay",
        R"doc(Optimizer/UpdateRule hook function for weight decay regularization (L2):
``grad += rate * param``.

Added to an optimizer, it sees the gradients still multiplied by the loss scale, so the rate is
too, as in Chainer.

:param rate: Coefficient of the weight decay.)doc")
        .def(py::init<double>(), arg("rate"))
        .def_readwrite("rate", &oh::WeightDecay::rate, R"doc(Coefficient of the weight decay.)doc");
    py::classh<oh::Lasso, OptimizerHook>(
        m, "Lasso",
        R"doc(Optimizer/UpdateRule hook function for Lasso regularization (L1): ``grad += rate * sign(param)``.

:param rate: Coefficient of the regularization.)doc")
        .def(py::init<double>(), arg("rate"))
        .def_readwrite("rate", &oh::Lasso::rate, R"doc(Coefficient of the L1 regularization.)doc");
    py::classh<oh::GradientClipping, OptimizerHook>(
        m, "GradientClipping",
        R"doc(Optimizer hook function for gradient clipping by the global L2 norm.

When the L2 norm of all gradients together exceeds ``threshold``, every gradient is scaled by
``threshold / norm``. An optimizer-level hook only.

:param threshold: L2 norm threshold.)doc")
        .def(py::init<double>(), arg("threshold"))
        .def_readwrite("threshold", &oh::GradientClipping::threshold, R"doc(L2 norm threshold of the gradients.)doc");
    py::classh<oh::GradientHardClipping, OptimizerHook>(
        m, "GradientHardClipping",
        R"doc(Optimizer/UpdateRule hook function for gradient clipping: every gradient
element is clipped into ``[lower_bound, upper_bound]``.

:param lower_bound: The lower bound of the gradient value.
:param upper_bound: The upper bound of the gradient value.)doc")
        .def(py::init<double, double>(), arg("lower_bound"), arg("upper_bound"))
        .def_readwrite("lower_bound", &oh::GradientHardClipping::lower_bound,
                       R"doc(The lower bound of the gradient value.)doc")
        .def_readwrite("upper_bound", &oh::GradientHardClipping::upper_bound,
                       R"doc(The upper bound of the gradient value.)doc");
    py::classh<oh::GradientNoise, OptimizerHook>(
        m, "GradientNoise",
        R"doc(Optimizer/UpdateRule hook function for adding gradient noise: ``grad += noise``.

By default the noise is normal with variance ``eta / (1 + t) ** 0.55`` (Neelakantan et al.), ``t``
the rule's update count, drawn from rensa's seeded generator.

:param eta: Parameter of the noise variance.
:param noise_func: None, or Chainer's ``noise_func(xp, shape, dtype, hook, rule)`` returning the
    noise array (``xp`` is numpy).)doc")
        .def(py::init([](double eta, const py::object& noise_func) {
                 if (noise_func.is_none()) return std::make_shared<oh::GradientNoise>(eta);
                 return std::make_shared<oh::GradientNoise>(eta, python_noise(noise_func));
             }),
             arg("eta"), arg("noise_func") = py::none())
        .def_readwrite("eta", &oh::GradientNoise::eta, R"doc(Parameter of the noise variance.)doc");
    py::classh<oh::GradientLARS, OptimizerHook>(
        m, "GradientLARS",
        R"doc(Optimizer/UpdateRule hook function for layer-wise adaptive rate scaling (LARS,
You et al., 2017).

For a parameter whose norm exceeds ``threshold``, ``grad = (grad + weight_decay * param) *
norm(param) / (eps + norm(grad) + weight_decay * norm(param))``; otherwise
``grad += weight_decay * param``.

:param threshold: Parameters with a smaller norm are not rescaled.
:param weight_decay: Coefficient of the weight decay.
:param eps: Small value for numerical stability.)doc")
        .def(py::init<double, double, double>(), arg("threshold") = 1e-2, arg("weight_decay") = 0.0, arg("eps") = 1e-9)
        .def_readwrite("threshold", &oh::GradientLARS::threshold,
                       R"doc(Parameters with a smaller norm are not rescaled.)doc")
        .def_readwrite("weight_decay", &oh::GradientLARS::weight_decay, R"doc(Coefficient of the weight decay.)doc")
        .def_readwrite("eps", &oh::GradientLARS::eps, R"doc(Small value for numerical stability.)doc");
}

}  // namespace rensa::python
