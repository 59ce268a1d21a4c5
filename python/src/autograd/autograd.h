#pragma once
// Internal entry points of the bind files of python/src/autograd/ (python/src/bind.h has the public ones).
#include "python/src/bind.h"

namespace rensa::python {
void bind_function_node(py::module_& m);            // function_node.cc: FunctionNode and its trampoline
void bind_variable(py::module_& m);                 // variable.cc: Variable
void bind_variable_ops(py::class_<Variable>& cls);  // variable_ops.cc: operators, views
void bind_backprop(py::module_& m);                 // backprop.cc: backward, grad, modes, config
void bind_hooks_and_graph(py::module_& m);          // hooks.cc: function hooks, computational graph
void bind_gradient_check(py::module_& m);           // gradient_check.cc: submodule "gradient_check"
void bind_recorder(py::module_& m);                 // recorder.cc: _record_functions, _array_key (rensa.onnx)
}  // namespace rensa::python
