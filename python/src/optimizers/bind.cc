// rensa._core.optimizers: Hyperparameter, UpdateRule, Optimizer, GradientMethod (the
// concrete optimizers are in optimizers.cc, the hooks in hooks.cc).
#include <optional>
#include <string>
#include <vector>

#include "core/error.h"
#include "links/link.h"
#include "python/src/optimizers/optimizers.h"
#include "python/src/optimizers/subclass.h"
#include "serializers/serializer.h"

namespace rensa::python {
namespace {

using optimizers::GradientMethod;
using optimizers::Hyperparameter;
using optimizers::Optimizer;
using optimizers::UpdateRule;

// Chainer keeps these as bools; C++ stores every hyperparameter as a double.
py::object hyper_value(const std::string& name, double value) {
    if (name == "amsgrad" || name == "adabound" || name == "eps_inside_sqrt") return py::bool_(value != 0.0);
    return py::float_(value);
}

py::object hyper_getattr(const Hyperparameter& h, const std::string& name) {
    if (!h.has(name)) throw py::attribute_error("no hyperparameter or attribute '" + name + "'");
    return hyper_value(name, h.get(name));
}

py::dict hyper_dict(const Hyperparameter& h) {
    py::dict d;
    for (const auto& [name, value] : h.get_all()) d[py::str(name)] = hyper_value(name, value);
    return d;
}

void bind_hyperparameter(py::module_& m) {
    py::classh<Hyperparameter>(m, "Hyperparameter",
                               R"doc(Set of hyperparameters, as Chainer's ``chainer.optimizer.Hyperparameter``.

Hyperparameters are read and set as attributes (``hp.lr = 0.1``). A name not set here is looked up
in the parent, so that an update rule follows its optimizer unless overridden. Values are stored as
floats (``amsgrad``, ``adabound`` and ``eps_inside_sqrt`` read back as bools).

:param parent: The parent hyperparameter object, or None.)doc")
        .def(py::init([](std::shared_ptr<Hyperparameter> parent) { return std::make_shared<Hyperparameter>(parent); }),
             py::arg("parent") = nullptr)
        .def("__getattr__", &hyper_getattr)
        .def("__setattr__", [](Hyperparameter& h, const std::string& name, double value) { h.set(name, value); })
        .def("get_dict", &hyper_dict,
             R"doc(Returns a dict of every hyperparameter visible here, its own and its parent's, by name.)doc")
        .def_property_readonly(
            "parent", [](const Hyperparameter& h) { return std::const_pointer_cast<Hyperparameter>(h.parent()); },
            R"doc(The parent hyperparameter object whose values this one falls back to, or None.)doc")
        .def("__repr__", [](const Hyperparameter& h) {
            return "Hyperparameter(" + py::repr(hyper_dict(h)).cast<std::string>() + ")";
        });
}

constexpr const char* kUpdateRuleDoc =
    R"doc(Base class of all update rules: the update of one parameter, as Chainer's ``UpdateRule``.

A gradient method installs one rule per parameter (``param.update_rule``). A Python subclass
overrides ``init_state(param)`` and ``update_core(param)``; its state arrays are in ``state``.
Hyperparameters not set on the rule are read from its optimizer's as attributes.

:param parent_hyperparam: The hyperparameter object to fall back to, or None.)doc";

template <class Class>
void define_update_rule(Class cls) {
    // Chainer's UpdateRule(parent_hyperparam=None), for Python subclasses.
    cls.def(py::init([](std::shared_ptr<Hyperparameter> parent) { return std::make_shared<PyUpdateRule>(parent); }),
            py::arg("parent_hyperparam") = nullptr)
        .def_property_readonly(
            "hyperparam", [](UpdateRule& r) -> Hyperparameter& { return r.hyperparam(); },
            py::return_value_policy::reference_internal,
            R"doc(The rule's hyperparameters; a name not set here falls back to the optimizer's.)doc")
        .def_readwrite("t", &UpdateRule::t, R"doc(The number of updates this rule has made.)doc")
        .def_readwrite("enabled", &UpdateRule::enabled,
                       R"doc(Whether the rule updates its parameter; a disabled rule leaves it alone.)doc")
        .def_readwrite("use_fp32_update", &UpdateRule::use_fp32_update,
                       R"doc(Whether a float16 parameter is updated through a float32 master copy.)doc")
        // numpy views of the state arrays (in-place edits reach the rule).
        .def("update", &UpdateRule::update, py::arg("param"), py::call_guard<py::gil_scoped_release>(),
             R"doc(Updates the parameter from its gradient (Chainer's ``UpdateRule.update``).

Does nothing when the rule is disabled or the gradient is None. Otherwise it undoes the loss scale,
runs the rule's hooks, creates the state on first use, makes one step (on a float32 copy of a
float16 parameter with ``use_fp32_update``) and counts ``t``.

:param param: The parameter to update in place.)doc")
        .def("serialize", &UpdateRule::serialize, py::arg("serializer"),
             R"doc(Serializes the rule: ``t`` and every state array under its name.

:param serializer: A serializer or deserializer.)doc")
        .def(
            "add_hook",
            [](UpdateRule& r, const py::object& hook, std::optional<std::string> name, const std::string& timing) {
                r.add_hook(to_hook(hook), name.value_or(""), to_hook_timing(timing));
            },
            py::arg("hook"), py::arg("name") = py::none(), py::arg("timing") = "auto",
            R"doc(Adds a hook that runs on this rule's parameter only.

:param hook: A hook of :mod:`rensa.optimizer_hooks`, or any callable ``hook(rule, param)``.
:param name: The hook's name; None takes the hook's own.
:param timing: ``'pre'`` (before the update), ``'post'`` (after it) or ``'auto'`` (the hook's own).)doc")
        .def("remove_hook", &UpdateRule::remove_hook, py::arg("name"),
             R"doc(Removes the hook of the given name.

:param name: The name the hook was added under.)doc")
        // The state by name for rensa.optimizer's mapping (UpdateRule.state in Python): numpy
        // views; an array set here is aliased, so Python's in-place edits reach the rule.
        .def("_state_keys",
             [](const UpdateRule& r) {
                 std::vector<std::string> keys;
                 for (const auto& [name, array] : r.state) keys.push_back(name);
                 return keys;
             })
        .def("_state_get",
             [](const UpdateRule& r, const std::string& name) {
                 auto it = r.state.find(name);
                 if (it == r.state.end()) throw py::key_error(name);
                 return to_numpy(it->second);
             })
        .def("_state_set",
             [](UpdateRule& r, const std::string& name, py::handle value) { r.state[name] = to_array(value); })
        .def("_state_del",
             [](UpdateRule& r, const std::string& name) {
                 if (r.state.erase(name) == 0) throw py::key_error(name);
             })
        .def("__getattr__", [](UpdateRule& r, const std::string& name) { return hyper_getattr(r.hyperparam(), name); });
}

void bind_update_rule(py::module_& m) {
    // A subclass of the links helper's ParameterUpdateRule when it is bound, so that
    // param.update_rule finds the rule classes.
    if (py::detail::get_type_info(typeid(links::ParameterUpdateRule)) != nullptr) {
        define_update_rule(
            py::classh<UpdateRule, links::ParameterUpdateRule, PyUpdateRule>(m, "UpdateRule", kUpdateRuleDoc));
    } else {
        define_update_rule(py::classh<UpdateRule, PyUpdateRule>(m, "UpdateRule", kUpdateRuleDoc));
    }
}

// Chainer's Optimizer.update(lossfun=None, *args, **kwds).
void optimizer_update(Optimizer& self, const py::object& lossfun, const py::args& args, const py::kwargs& kwds) {
    if (lossfun.is_none()) {
        py::gil_scoped_release release;
        self.update();
        return;
    }
    const Variable loss = to_variable(lossfun(*args, **kwds));
    py::gil_scoped_release release;  // backward and the update are C++ loops
    self.update([&loss] { return loss; });
}

// optimizer.lr = 0.1 sets the hyperparameter (Chainer's Optimizer.__setattr__); any other
// name is an ordinary attribute.
void optimizer_setattr(const py::object& self, const py::str& name, const py::object& value) {
    auto& opt = self.cast<Optimizer&>();
    const auto key = name.cast<std::string>();
    if (opt.hyperparam().has(key) && !py::hasattr(py::type::of(self), name)) {
        opt.hyperparam().set(key, value.cast<double>());
        return;
    }
    py::module_::import("builtins").attr("object").attr("__setattr__")(self, name, value);
}

void bind_optimizer(py::module_& m) {
    py::classh<Optimizer, PyOptimizer>(m, "Optimizer",
                                       R"doc(Base class of all numerical optimizers, as Chainer's ``Optimizer``.

An optimizer is set up with a target link (:meth:`setup`) and then updates its parameters
(:meth:`update`). Its hyperparameters are attributes (``optimizer.lr = 0.1``); ``t`` counts the
updates and ``epoch`` the epochs. Hooks added with :meth:`add_hook` run before or after each
update.)doc",
                                       py::dynamic_attr())
        .def(py::init<>())
        .def(
            "setup",
            [](Optimizer& self, std::shared_ptr<links::Link> link) -> Optimizer& {
                RENSA_CHECK(link != nullptr, ValueError, "Optimizer.setup: the link is None");
                self.setup(std::move(link));
                return self;
            },
            py::arg("link"), py::return_value_policy::reference,
            R"doc(Sets a target link and prepares the optimizer for it; ``t`` and ``epoch`` restart at 0.

A gradient method installs a fresh update rule on every parameter of the link.

:param link: The target link.
:returns: The optimizer itself.)doc")
        .def_property_readonly(
            "target", [](const Optimizer& self) { return self.target_ptr(); },
            R"doc(The target link, set by :meth:`setup`.)doc")
        .def("update", &optimizer_update, py::arg("lossfun") = py::none(),
             R"doc(Updates the parameters of the target link.

Without ``lossfun`` the gradients already in the target are used. With one, it computes
``loss = lossfun(*args, **kwds)``, clears the gradients, runs backward (with the loss scale) and
then updates, as Chainer does.

:param lossfun: A callable returning the loss variable, or None.)doc")
        .def_readwrite("t", &Optimizer::t, R"doc(The number of updates done.)doc")
        .def_readwrite("epoch", &Optimizer::epoch, R"doc(The number of epochs done (counted by :meth:`new_epoch`).)doc")
        .def("new_epoch", &Optimizer::new_epoch,
             R"doc(Starts a new epoch: counts ``epoch`` and runs the hooks' epoch handling.)doc")
        // Shared, so that a Python GradientMethod can hand it to its rules as their parent.
        .def_property_readonly(
            "hyperparam",
            [](Optimizer& self) { return std::const_pointer_cast<Hyperparameter>(self.hyperparam_ptr()); },
            R"doc(The optimizer's hyperparameters, the parent of every update rule's (``optimizer.lr = 0.1`` sets
one).)doc")
        .def(
            "add_hook",
            [](Optimizer& self, const py::object& hook, std::optional<std::string> name, const std::string& timing) {
                self.add_hook(to_hook(hook), name.value_or(""), to_hook_timing(timing));
            },
            py::arg("hook"), py::arg("name") = py::none(), py::arg("timing") = "auto",
            R"doc(Registers a hook function, as Chainer's ``Optimizer.add_hook``.

Hooks run in the order added. A duplicate name raises ``ValueError``.

:param hook: A hook of :mod:`rensa.optimizer_hooks`; a callable ``hook(optimizer)``; or an object
    with ``name``, ``timing`` and ``call_for_each_param = True`` whose ``__call__(rule, param)``
    runs for each parameter.
:param name: The hook's name; None takes the hook's own name.
:param timing: ``'pre'`` (before the update), ``'post'`` (after it) or ``'auto'`` (the hook's own).)doc")
        .def("remove_hook", &Optimizer::remove_hook, py::arg("name"),
             R"doc(Removes the hook registered under the given name.

:param name: The hook's name.)doc")
        .def(
            "call_hooks", [](Optimizer& self, const std::string& timing) { self.call_hooks(to_hook_timing(timing)); },
            py::arg("timing") = "pre", py::call_guard<py::gil_scoped_release>(),
            R"doc(Invokes the hooks of one timing.

:param timing: ``'pre'`` or ``'post'``.)doc")
        .def("loss_scaling", &Optimizer::loss_scaling, py::arg("interval") = 1000, py::arg("scale") = py::none())
        .def_property_readonly("_loss_scale", &Optimizer::loss_scale)
        .def_property_readonly("loss_scale", &Optimizer::loss_scale,
                               R"doc(The current loss scale: the factor the loss is multiplied by before backward.)doc")
        .def("serialize", &Optimizer::serialize, py::arg("serializer"),
             R"doc(Serializes or deserializes the optimizer: ``t``, ``epoch`` and every rule's state under its
parameter's path, as Chainer (the hyperparameters are not saved).

:param serializer: A serializer or deserializer.)doc")
        .def("__getattr__",
             [](const Optimizer& self, const std::string& name) { return hyper_getattr(self.hyperparam(), name); })
        .def("__setattr__", &optimizer_setattr);

    py::classh<GradientMethod, Optimizer, PyGradientMethod>(
        m, "GradientMethod",
        R"doc(Base class of all single gradient-based optimizers, as Chainer's ``GradientMethod``.

Each parameter of the target is updated by its own update rule, created by
``create_update_rule()`` when the optimizer is set up. An update runs the pre hooks, counts ``t``,
updates every parameter and runs the post hooks.)doc",
        py::dynamic_attr())
        .def(py::init<>())
        .def("use_fp32_update", &GradientMethod::use_fp32_update, py::arg("flag") = true,
             R"doc(Makes float16 parameters update through a float32 master copy.

Applies to the existing rules and those created later; until it is called, :meth:`setup` chooses.

:param flag: Whether to use the float32 update.)doc");
}

}  // namespace

optimizers::HookTiming to_hook_timing(const std::string& timing) {
    if (timing == "auto") return optimizers::HookTiming::kAuto;
    if (timing == "pre") return optimizers::HookTiming::kPre;
    if (timing == "post") return optimizers::HookTiming::kPost;
    RENSA_THROW(ValueError, "optimizer hook timing: '", timing, "', expected 'auto', 'pre' or 'post'");
}

void bind_optimizer_base(py::module_& m) {
    bind_hyperparameter(m);
    bind_update_rule(m);
    bind_optimizer(m);
}

void bind_optimizers(py::module_& m) {
    py::module_ opt = m.def_submodule("optimizers", "chainer.optimizers and the base classes of chainer.optimizer");
    py::module_ hooks = m.def_submodule("optimizer_hooks", "chainer.optimizer_hooks");
    bind_optimizer_base(opt);
    bind_optimizer_hooks(hooks);
    bind_optimizer_classes(opt);
}

}  // namespace rensa::python
