#pragma once
// Variable arguments that pybind11 cannot read by type: sequences (*args, lists) of Variables
// or arrays, and Chainer's optional Variables (b=None).
#include <optional>
#include <vector>

#include "autograd/variable.h"
#include "python/src/convert/array.h"

namespace rensa::python {

// A Python iterable (a sequence, *args) of Variables or arrays, each converted by to_variable.
inline std::vector<Variable> to_variables(py::handle seq) {
    std::vector<Variable> vars;
    if (py::isinstance<py::sequence>(seq)) vars.reserve(py::len(seq));
    for (py::handle item : seq) vars.push_back(to_variable(item));
    return vars;
}

// chainer.grad's outputs / inputs / grad_outputs: None -> none, one Variable -> itself, else
// an iterable whose None entries become undefined Variables (no seed, no grad).
inline std::vector<Variable> to_variables_or_undefined(py::handle objs) {
    std::vector<Variable> out;
    if (objs.is_none()) return out;
    if (py::isinstance<Variable>(objs)) return {objs.cast<Variable>()};
    for (const py::handle v : objs) out.push_back(v.is_none() ? Variable() : to_variable(v));
    return out;
}

// None is an undefined Variable (Chainer's b=None), anything else to_variable.
inline Variable to_variable_or_undefined(py::handle obj) { return obj.is_none() ? Variable{} : to_variable(obj); }
inline Variable to_variable_or_undefined(const std::optional<Variable>& value) { return value ? *value : Variable{}; }
// The other way: Chainer shows an undefined Variable (a state not set yet) as None.
inline py::object variable_or_none(const Variable& v) { return v.defined() ? py::cast(v) : py::object(py::none()); }

}  // namespace rensa::python
