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
    f.def("get_item", &get_item, py::arg("x"), py::arg("slices"),
          R"doc(Extracts elements from a variable, as numpy's ``x[slices]`` (also ``Variable.__getitem__``).

Integers, slices with any step, None (a new axis) and Ellipsis give views; integer arrays gather
(numpy's advanced indexing, any number of them) and boolean arrays select by mask.

:param x: Input variable.
:param slices: An index term or a tuple of them. A bool scalar index is not supported.
:returns: The indexed variable. ``IndexError`` names an out-of-range index, its position and the
    axis.)doc");
    f.def("select_item", &F::select_item, py::arg("x"), py::arg("t"),
          R"doc(Selects elements stored in given indices: ``y[i] = x[i, t[i]]``.

:param x: Variable of shape ``(B, N)``.
:param t: Integer variable of shape ``(B,)``, values in ``[-N, N)`` (``IndexError`` names a label
    outside).
:returns: A variable of shape ``(B,)``.)doc");
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
        py::arg("condition"), py::arg("x"), py::arg("y"),
        R"doc(Chooses elements depending on a condition: ``condition ? x : y`` elementwise with broadcasting.

:param condition: A boolean array or variable (never differentiated).
:param x: Values where the condition holds; a Python number takes y's dtype.
:param y: Values elsewhere; a Python number takes x's dtype.
:returns: A variable of the broadcast shape, of the dtype x and y share.)doc");
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
