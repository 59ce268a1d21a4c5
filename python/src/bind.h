#pragma once
// Shared by the bind files of rensa._core (python/src). Each module of docs/design.md has its
// bind file(s) `<module>_bind*.cc` defining one entry point below; module.cc calls the
// entry points in layer order, so a type is registered before a later file uses it. The
// distributed module (distributed_*.cc) and the CUDA runtime (cuda_*.cc) are extensions of
// their own, rensa._distributed and rensa._cuda (Note [Lazy native libraries],
// python/CMakeLists.txt).
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

namespace rensa::python {
namespace py = pybind11;

// --- Entry points, in the order module.cc calls them --------------------------------------
void bind_core(py::module_& m);      // core_bind*.cc: ndarray, dtypes, devices, config, random, reporter, errors
void bind_autograd(py::module_& m);  // autograd_bind*.cc: Variable, FunctionNode, backward, grad, modes, hooks, checks
void bind_functions_a(py::module_& m);  // functions_a_bind*.cc: submodule "functions": activation, array, math, noise
void bind_functions_b(
    py::module_& m);  // functions_b_bind*.cc: "functions": connection, pooling, normalization, loss, evaluation
void bind_links(py::module_& m);         // links_bind*.cc: submodules "links", "initializers"
void bind_optimizers(py::module_& m);    // optimizers_bind*.cc: submodules "optimizers", "optimizer_hooks"
void bind_serializers(py::module_& m);   // serializers_bind*.cc: submodule "serializers"
void bind_data(py::module_& m);          // data_bind*.cc: datasets, DatasetMixin, Iterator, iterators, converters
void bind_training(py::module_& m);      // training_bind*.cc: Trainer, updaters, triggers, extensions
void bind_runtime_info(py::module_& m);  // core_bind*.cc: runtime_info() -> dict, for print_runtime_info

// --- Conversions (convert.cc) --------------------------------------------------------------
// Anything array-like -> Array. A numpy array of one of rensa's dtypes is wrapped without a
// copy (the Array's storage keeps the numpy object alive; strides may be negative or zero);
// an ndarray is returned as is; Python scalars, lists and other dtypes are converted (copy).
// TypeError naming the Python type when obj is not array-like.
Array to_array(py::handle obj);
// An Array on the native device -> a numpy array over the same memory (no copy; the numpy
// object keeps the storage alive). Other devices, and bfloat16 (numpy has none), give an
// ndarray instead. So var.array[...] = value writes into the Variable's array.
py::object to_numpy(const Array& array);
// A Variable is returned as is (same handle); anything to_array takes becomes a new
// Variable with requires_grad=false (Chainer's treatment of raw arrays as inputs).
Variable to_variable(py::handle obj);
// numpy dtype, numpy scalar type (numpy.float32), Python type (float, int, bool) or name
// ('float32', 'f', 'bfloat16') -> Dtype; TypeError naming the value otherwise.
Dtype to_dtype(py::handle obj);
// The numpy dtype for `dtype` (bfloat16: the string 'bfloat16').
py::object dtype_to_python(Dtype dtype);
// Chainer's device specifiers: '@numpy', 'native', 'native:0', '@cupy:0', 'cuda:0', -1
// (CPU), a non-negative int (that GPU), a Device, None (the default device).
// DeviceError naming the specifier when unknown.
Device to_device(py::handle obj);

}  // namespace rensa::python
