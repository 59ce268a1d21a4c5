#pragma once
// Shared by the bind files of rensa._core (python/src). Each module of docs/design.md has its
// folder python/src/<module>/ (the data side of training, datasets and iterators, too),
// with one file per family or class group named after what it binds and a bind.cc defining
// the module's entry point below; module.cc calls the entry points in layer order, so a type
// is registered before a later file uses it. The distributed module (distributed/) and the
// CUDA runtime (cuda/) are extensions of their own, rensa._distributed and rensa._cuda
// (Note [Lazy native libraries], python/CMakeLists.txt). The conversions of Python
// arguments live in python/src/convert/, one header per kind of argument.
//
// Holders: value handles (Array, Variable, Parameter, Device, Scalar-like values) use
// py::class_ with the default holder; every polymorphic class C++ holds by shared_ptr
// (Link and its subclasses, FunctionNode, Optimizer, UpdateRule, hooks, Dataset,
// Iterator, Updater, Extension, Trigger, Communicator, ...) is bound with py::classh
// (pybind11's smart holder), with a trampoline deriving py::trampoline_self_life_support
// where Python may subclass it. So a Python subclass held only by C++ keeps its Python
// overrides (docs/design.md, "Python").
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "autograd/variable.h"
#include "core/array.h"
#include "core/device.h"
#include "core/dtype.h"
#include "python/src/convert/array.h"
#include "python/src/convert/device.h"
#include "python/src/convert/dtype.h"
#include "python/src/convert/variable_caster.h"

namespace rensa::python {
namespace py = pybind11;

// --- Entry points, in the order module.cc calls them --------------------------------------
void bind_core(py::module_& m);          // core/: ndarray, dtypes, devices, config, random, reporter, errors
void bind_autograd(py::module_& m);      // autograd/: Variable, FunctionNode, backward, grad, modes, hooks, checks
void bind_functions(py::module_& m);     // functions/: submodule "functions", one file per family of functions/
void bind_links(py::module_& m);         // links/: submodules "links", "initializers"
void bind_optimizers(py::module_& m);    // optimizers/: submodules "optimizers", "optimizer_hooks"
void bind_serializers(py::module_& m);   // serializers/: submodule "serializers"
void bind_data(py::module_& m);          // training/data.cc: datasets, DatasetMixin, Iterator, iterators, converters
void bind_training(py::module_& m);      // training/bind.cc: Trainer, updaters, triggers, extensions
void bind_runtime_info(py::module_& m);  // core/runtime_info.cc: runtime_info() -> dict, for print_runtime_info

}  // namespace rensa::python
