// rensa._core.functions, indexing: get_item (also Variable.__getitem__), select_item, where.
// numpy's index terms become F::get_item's ItemIndex (integer arrays and boolean masks as
// Arrays, any number of them).
#include <string>
#include <utility>

#include "core/error.h"
#include "core/ops/creation.h"
#include "functions/array.h"
#include "python/src/functions/functions.h"

namespace rensa::python::functions_bind {
namespace {

// An index given as a Variable, ndarray, numpy array or list -> an Array.
Array index_array(py::handle term) {
    if (py::isinstance<Variable>(term)) {
        return term.cast<const Variable&>().array();
    }
    return to_array(term);
}

}  // namespace

F::ItemIndex to_item(py::handle term) {
    if (PyLong_Check(term.ptr()) && !PyBool_Check(term.ptr())) {
        return term.cast<int64_t>();
    }
    if (PySlice_Check(term.ptr())) {
        const auto slice = py::reinterpret_borrow<py::slice>(term);
        const auto bound = [](py::object v) -> std::optional<int64_t> {
            return v.is_none() ? std::nullopt : std::optional<int64_t>(v.cast<int64_t>());
        };
        const py::object step = slice.attr("step");
        return Slice{bound(slice.attr("start")), bound(slice.attr("stop")), step.is_none() ? 1 : step.cast<int64_t>()};
    }
    if (term.is_none()) {
        return NewAxis{};
    }
    if (term.ptr() == Py_Ellipsis) {
        return Ellipsis{};
    }
    if (PyBool_Check(term.ptr())) {
        RENSA_THROW(NotImplementedError, "get_item: a bool scalar index (x[True]) is not supported");
    }
    if (PyIndex_Check(term.ptr()) && !py::isinstance<py::array>(term)) {
        return term.cast<int64_t>();  // numpy integer scalars
    }
    return index_array(term);
}

namespace {

Variable get_item(const Variable& x, py::handle slices) {
    if (PyLong_Check(slices.ptr()) && !PyBool_Check(slices.ptr())) {
        return F::get_item(x, slices.cast<int64_t>());  // the common x[i], kept quick
    }
    std::vector<F::ItemIndex> items;
    const auto add = [&](py::handle term) { items.push_back(to_item(term)); };
    if (PyTuple_Check(slices.ptr())) {
        for (py::handle term : py::reinterpret_borrow<py::tuple>(slices)) {
            add(term);
        }
    } else {
        add(slices);
    }
    return F::get_item(x, items);
}

// x and y of where: a Python number takes the other operand's dtype (a 0-d array).
Variable where_operand(py::handle value, const Variable* other) {
    const bool number = PyFloat_Check(value.ptr()) || PyLong_Check(value.ptr());
    if (number && other != nullptr) {
        const Scalar s = PyFloat_Check(value.ptr())  ? Scalar(value.cast<double>())
                         : PyBool_Check(value.ptr()) ? Scalar(value.ptr() == Py_True)
                                                     : Scalar(value.cast<int64_t>());
        return Variable(ops::full(Shape{}, s, other->dtype(), other->device()), false);
    }
    return to_variable(value);
}

bool is_number(py::handle v) { return PyFloat_Check(v.ptr()) || PyLong_Check(v.ptr()); }

}  // namespace

void bind_array_indexing(py::module_& f, py::module_& m) {
    f.def("get_item", &get_item, py::arg("x"), py::arg("slices"));
    f.def("select_item", &F::select_item, py::arg("x"), py::arg("t"));
    f.def(
        "where",
        [](const Variable& condition, py::handle x, py::handle y) {
            if (is_number(x) && !is_number(y)) {
                const Variable yv = to_variable(y);
                return F::where(condition, where_operand(x, &yv), yv);
            }
            const Variable xv = to_variable(x);
            return F::where(condition, xv, where_operand(y, &xv));
        },
        py::arg("condition"), py::arg("x"), py::arg("y"));
    // The core helper registers Variable first; a development build without it has none.
    // Set as the one __getitem__ (no overload chain), replacing any earlier definition, so
    // that boolean masks and Variable indices reach this one.
    if (py::hasattr(m, "Variable")) {
        const py::object cls = m.attr("Variable");
        cls.attr("__getitem__") =
            py::cpp_function(&get_item, py::name("__getitem__"), py::is_method(cls), py::arg("slices"));
    }
}

}  // namespace rensa::python::functions_bind
