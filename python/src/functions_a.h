#pragma once
// Internals of the functions_a bind files (rensa._core.functions, group a: activation,
// array, math, noise): the argument conversions they share and one entry per family.
#include <optional>
#include <vector>

#include "python/src/bind.h"

namespace rensa::python::functions_a {

// Chainer's axis arguments: None -> nullopt, an int -> (int,), a tuple/list of ints.
// TypeError naming `op` for anything else.
std::optional<Axes> to_axes(py::handle obj, const char* op);
// A shape: an int -> (int,), a tuple/list of ints.
Shape to_shape(py::handle obj, const char* op);
// An int or a sequence of ints -> a vector (an int gives one element).
std::vector<int64_t> to_int64s(py::handle obj, const char* op);
// A Python sequence of Variables or arrays (each converted like a Variable argument).
std::vector<Variable> to_variables(py::handle seq);
// A list of Variables -> a tuple of Python objects (Chainer returns tuples).
py::tuple to_tuple(std::vector<Variable> vars);
// Arrays from C++ handed back to Python: None when undefined, numpy when native.
py::object array_or_none(const Array& array);

void bind_activation(py::module_& f);
void bind_array(py::module_& f);
void bind_array_indexing(py::module_& f, py::module_& m);
void bind_math(py::module_& f);
void bind_math_products(py::module_& f);
void bind_noise(py::module_& f);

}  // namespace rensa::python::functions_a
