#pragma once
// Internal to python/src/optimizers/bind.cc: the trampolines that let Python subclass
// Optimizer, GradientMethod and UpdateRule as Chainer's documentation shows (a GradientMethod
// with its own create_update_rule returning an UpdateRule with its own init_state and
// update_core / update_core_cpu / update_core_gpu). Chainer passes those methods the
// Parameter: here a Parameter over the array the C++ rule updates (the float32 master copy
// under use_fp32_update), its grad set, so in-place edits of param.data reach the parameter.
#include <memory>
#include <string>
#include <type_traits>

#include "core/error.h"
#include "links/parameter.h"
#include "optimizers/optimizer.h"
#include "python/src/bind.h"

namespace rensa::python {

// Sets `flag` while a Python override runs, so that its super().update() reaches the C++
// method instead of coming back to Python.
class OverrideScope {
public:
    explicit OverrideScope(bool& flag) : flag_(flag) { flag_ = true; }
    ~OverrideScope() { flag_ = false; }
    OverrideScope(const OverrideScope&) = delete;
    OverrideScope& operator=(const OverrideScope&) = delete;

private:
    bool& flag_;
};

inline std::string python_class_name(const void* self, const std::type_info& type) {
    py::handle obj = py::detail::get_object_handle(self, py::detail::get_type_info(type));
    return obj ? py::str(py::type::of(obj).attr("__name__")).cast<std::string>() : std::string("UpdateRule");
}

class PyUpdateRule : public optimizers::UpdateRule, public py::trampoline_self_life_support {
public:
    using optimizers::UpdateRule::UpdateRule;

protected:
    // Chainer's default init_state does nothing.
    void init_state(const Array& param) override {
        py::gil_scoped_acquire gil;
        if (py::function f = py::get_override(static_cast<const optimizers::UpdateRule*>(this), "init_state")) {
            f(links::Parameter(param, "param"));
        }
    }
    void update_core(const Array& param, const Array& grad) override {
        py::gil_scoped_acquire gil;
        const optimizers::UpdateRule* self = this;
        py::function f = py::get_override(self, "update_core");
        if (!f)
            f = py::get_override(self,
                                 param.device().kind == DeviceKind::kNative ? "update_core_cpu" : "update_core_gpu");
        RENSA_CHECK(static_cast<bool>(f), NotImplementedError,
                    "UpdateRule.update_core: ", python_class_name(self, typeid(optimizers::UpdateRule)),
                    " defines none of update_core, update_core_cpu (for native arrays) and update_core_gpu");
        links::Parameter p(param, "param");
        p.set_grad(grad);
        f(p);
    }
};

// Optimizer (abstract update) and GradientMethod (abstract create_update_rule) for Python.
template <class Base>
class PyOptimizerOf : public Base, public py::trampoline_self_life_support {
public:
    using Base::Base;

    // A Python update() (Chainer's Optimizer subclasses define update(lossfun=None, ...)) is
    // what C++ calls too (the updaters); its super().update() is the C++ one.
    void update() override {
        if (!in_python_update_) {
            py::gil_scoped_acquire gil;
            if (py::function f = py::get_override(static_cast<const Base*>(this), "update")) {
                OverrideScope scope(in_python_update_);
                f();
                return;
            }
        }
        if constexpr (std::is_same_v<Base, optimizers::Optimizer>) {
            RENSA_THROW(NotImplementedError, "Optimizer.update: ", python_class_name(this, typeid(Base)),
                        " does not define update()");
        } else {
            Base::update();
        }
    }

private:
    bool in_python_update_ = false;
};

class PyOptimizer : public PyOptimizerOf<optimizers::Optimizer> {
public:
    using PyOptimizerOf::PyOptimizerOf;
};

class PyGradientMethod : public PyOptimizerOf<optimizers::GradientMethod> {
public:
    using PyOptimizerOf::PyOptimizerOf;

protected:
    std::shared_ptr<optimizers::UpdateRule> create_update_rule() override {
        py::gil_scoped_acquire gil;
        const optimizers::GradientMethod* self = this;
        py::function f = py::get_override(self, "create_update_rule");
        RENSA_CHECK(static_cast<bool>(f), NotImplementedError,
                    "GradientMethod.create_update_rule: ", python_class_name(self, typeid(optimizers::GradientMethod)),
                    " does not define it");
        py::object rule = f();
        if (!py::isinstance<optimizers::UpdateRule>(rule)) {
            throw py::type_error("GradientMethod.create_update_rule must return an UpdateRule, got " +
                                 py::str(py::type::of(rule).attr("__name__")).cast<std::string>());
        }
        return rule.cast<std::shared_ptr<optimizers::UpdateRule>>();
    }
};

}  // namespace rensa::python
