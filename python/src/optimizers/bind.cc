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
    py::classh<Hyperparameter>(m, "Hyperparameter")
        .def(py::init([](std::shared_ptr<Hyperparameter> parent) { return std::make_shared<Hyperparameter>(parent); }),
             py::arg("parent") = nullptr)
        .def("__getattr__", &hyper_getattr)
        .def("__setattr__", [](Hyperparameter& h, const std::string& name, double value) { h.set(name, value); })
        .def("get_dict", &hyper_dict)
        .def_property_readonly(
            "parent", [](const Hyperparameter& h) { return std::const_pointer_cast<Hyperparameter>(h.parent()); })
        .def("__repr__", [](const Hyperparameter& h) {
            return "Hyperparameter(" + py::repr(hyper_dict(h)).cast<std::string>() + ")";
        });
}

template <class Class>
void define_update_rule(Class cls) {
    // Chainer's UpdateRule(parent_hyperparam=None), for Python subclasses.
    cls.def(py::init([](std::shared_ptr<Hyperparameter> parent) { return std::make_shared<PyUpdateRule>(parent); }),
            py::arg("parent_hyperparam") = nullptr)
        .def_property_readonly(
            "hyperparam", [](UpdateRule& r) -> Hyperparameter& { return r.hyperparam(); },
            py::return_value_policy::reference_internal)
        .def_readwrite("t", &UpdateRule::t)
        .def_readwrite("enabled", &UpdateRule::enabled)
        .def_readwrite("use_fp32_update", &UpdateRule::use_fp32_update)
        // numpy views of the state arrays (in-place edits reach the rule).
        .def("update", &UpdateRule::update, py::arg("param"), py::call_guard<py::gil_scoped_release>())
        .def("serialize", &UpdateRule::serialize, py::arg("serializer"))
        .def(
            "add_hook",
            [](UpdateRule& r, const py::object& hook, std::optional<std::string> name, const std::string& timing) {
                r.add_hook(to_hook(hook), name.value_or(""), to_hook_timing(timing));
            },
            py::arg("hook"), py::arg("name") = py::none(), py::arg("timing") = "auto")
        .def("remove_hook", &UpdateRule::remove_hook, py::arg("name"))
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
        define_update_rule(py::classh<UpdateRule, links::ParameterUpdateRule, PyUpdateRule>(m, "UpdateRule"));
    } else {
        define_update_rule(py::classh<UpdateRule, PyUpdateRule>(m, "UpdateRule"));
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
    py::classh<Optimizer, PyOptimizer>(m, "Optimizer", py::dynamic_attr())
        .def(py::init<>())
        .def(
            "setup",
            [](Optimizer& self, std::shared_ptr<links::Link> link) -> Optimizer& {
                RENSA_CHECK(link != nullptr, ValueError, "Optimizer.setup: the link is None");
                self.setup(std::move(link));
                return self;
            },
            py::arg("link"), py::return_value_policy::reference)
        .def_property_readonly("target", [](const Optimizer& self) { return self.target_ptr(); })
        .def("update", &optimizer_update, py::arg("lossfun") = py::none())
        .def_readwrite("t", &Optimizer::t)
        .def_readwrite("epoch", &Optimizer::epoch)
        .def("new_epoch", &Optimizer::new_epoch)
        // Shared, so that a Python GradientMethod can hand it to its rules as their parent.
        .def_property_readonly(
            "hyperparam",
            [](Optimizer& self) { return std::const_pointer_cast<Hyperparameter>(self.hyperparam_ptr()); })
        .def(
            "add_hook",
            [](Optimizer& self, const py::object& hook, std::optional<std::string> name, const std::string& timing) {
                self.add_hook(to_hook(hook), name.value_or(""), to_hook_timing(timing));
            },
            py::arg("hook"), py::arg("name") = py::none(), py::arg("timing") = "auto")
        .def("remove_hook", &Optimizer::remove_hook, py::arg("name"))
        .def(
            "call_hooks", [](Optimizer& self, const std::string& timing) { self.call_hooks(to_hook_timing(timing)); },
            py::arg("timing") = "pre", py::call_guard<py::gil_scoped_release>())
        .def("loss_scaling", &Optimizer::loss_scaling, py::arg("interval") = 1000, py::arg("scale") = py::none())
        .def_property_readonly("_loss_scale", &Optimizer::loss_scale)
        .def_property_readonly("loss_scale", &Optimizer::loss_scale)
        .def("serialize", &Optimizer::serialize, py::arg("serializer"))
        .def("__getattr__",
             [](const Optimizer& self, const std::string& name) { return hyper_getattr(self.hyperparam(), name); })
        .def("__setattr__", &optimizer_setattr);

    py::classh<GradientMethod, Optimizer, PyGradientMethod>(m, "GradientMethod", py::dynamic_attr())
        .def(py::init<>())
        .def("use_fp32_update", &GradientMethod::use_fp32_update, py::arg("flag") = true);
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
