#pragma once
// Results C++ returns as vectors, handed to Python as tuples (Chainer returns tuples).
#include <utility>
#include <vector>

#include "autograd/variable.h"
#include "python/src/convert/array.h"
#include "python/src/convert/variable_caster.h"

namespace rensa::python {

// Variables -> a tuple of Variables (the same handles).
inline py::tuple to_tuple(std::vector<Variable> vars) {
    py::tuple out(vars.size());
    for (size_t i = 0; i < vars.size(); ++i) out[i] = py::cast(std::move(vars[i]));
    return out;
}

// Arrays -> a tuple of numpy arrays over the same memory (to_numpy).
inline py::tuple to_tuple(const std::vector<Array>& arrays) {
    py::tuple out(arrays.size());
    for (size_t i = 0; i < arrays.size(); ++i) out[i] = to_numpy(arrays[i]);
    return out;
}

}  // namespace rensa::python
