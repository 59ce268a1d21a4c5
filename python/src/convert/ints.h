#pragma once
// Chainer's integer arguments from Python: an int (anything with __index__: numpy integers
// too) or a sequence of them. The shape, axes and int-or-tuple converters build on these.
#include <Python.h>
#include <pybind11/pybind11.h>

#include <cstdint>
#include <string>
#include <vector>

namespace rensa::python {
namespace py = pybind11;

// An integer-like Python object (int, numpy integer; anything with __index__). bool counts,
// as in numpy.
inline bool is_index(py::handle obj) { return PyIndex_Check(obj.ptr()) != 0; }

// The value of an integer-like object; OverflowError past int64.
inline int64_t index_value(py::handle obj) {
    const Py_ssize_t value = PyNumber_AsSsize_t(obj.ptr(), PyExc_OverflowError);
    if (value == -1 && PyErr_Occurred() != nullptr) throw py::error_already_set();
    return static_cast<int64_t>(value);
}

// Applies `add` to each int of obj (an int or a sequence of ints). TypeError naming `op` and
// `what` (the argument: "shape", "axis") for anything else, a str included.
template <class Add>
void for_each_int(py::handle obj, const char* op, const char* what, Add add) {
    if (is_index(obj)) {
        add(index_value(obj));
        return;
    }
    if (!py::isinstance<py::sequence>(obj) || py::isinstance<py::str>(obj)) {
        throw py::type_error(std::string(op) + ": " + what + " must be an int or a tuple of ints, got " +
                             std::string(py::str(py::type::of(obj).attr("__name__"))));
    }
    for (const py::object item : py::reinterpret_borrow<py::sequence>(obj)) {  // owned: items may be new
        if (!is_index(item)) {
            throw py::type_error(std::string(op) + ": " + what + " must hold ints, got " +
                                 std::string(py::str(py::type::of(item).attr("__name__"))));
        }
        add(index_value(item));
    }
}

// An int or a sequence of ints -> a vector (an int gives one element).
inline std::vector<int64_t> to_int64s(py::handle obj, const char* op) {
    std::vector<int64_t> values;
    for_each_int(obj, op, "the argument", [&](int64_t v) { values.push_back(v); });
    return values;
}

}  // namespace rensa::python
