#pragma once
// Internal to the bind files of python/src/optimizers/ (rensa._core.optimizers, .optimizer_hooks).
#include <memory>
#include <string>

#include "optimizers/optimizers.h"
#include "python/src/bind.h"

namespace rensa::python {

// 'auto' / 'pre' / 'post' -> HookTiming; ValueError naming the value otherwise.
optimizers::HookTiming to_hook_timing(const std::string& timing);
// A bound C++ hook as is; any other Python object (a function hook(optimizer), or an object
// with name, timing, call_for_each_param and __call__) wrapped in a C++ hook that owns it.
std::shared_ptr<optimizers::OptimizerHook> to_hook(const py::object& hook);

void bind_optimizer_base(py::module_& m);     // bind.cc
void bind_optimizer_classes(py::module_& m);  // optimizers.cc
void bind_optimizer_hooks(py::module_& m);    // hooks.cc

}  // namespace rensa::python
