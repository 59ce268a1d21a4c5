// rensa._core.Variable: operators (Chainer's basic_math), views, indexing, repr and the
// remaining methods. Every operator accepts a Variable, a numpy array / ndarray (through
// Variable's implicit conversion) or a Python scalar on either side.
#include <sstream>
#include <string>
#include <vector>

#include "autograd/basic_math.h"
#include "autograd/function_node.h"
#include "core/error.h"
#include "functions/array.h"
#include "functions/math.h"
#include "python/src/autograd/autograd.h"

namespace rensa::python {
namespace {

using VV = Variable (*)(const Variable&, const Variable&);
using VS = Variable (*)(const Variable&, Scalar);
using SV = Variable (*)(Scalar, const Variable&);

// Binds `name` (a op b) and `rname` (b op a) for Variable, int and float right operands.
// Overloads are tried without conversions first: a Variable, then a Python int / float;
// numpy arrays match the Variable overload in the second pass. is_operator makes a
// mismatch return NotImplemented (so Python raises the usual TypeError).
void bind_binary(py::class_<Variable>& cls, const char* name, const char* rname, VV vv, VS vs, SV sv) {
    cls.def(name, vv, py::is_operator())
        .def(
            name, [vs](const Variable& a, int64_t b) { return vs(a, Scalar(b)); }, py::is_operator())
        .def(
            name, [vs](const Variable& a, double b) { return vs(a, Scalar(b)); }, py::is_operator())
        .def(
            rname, [vv](const Variable& a, const Variable& b) { return vv(b, a); }, py::is_operator())
        .def(
            rname, [sv](const Variable& a, int64_t b) { return sv(Scalar(b), a); }, py::is_operator())
        .def(
            rname, [sv](const Variable& a, double b) { return sv(Scalar(b), a); }, py::is_operator());
}

// Chainer's message for comparisons, which Variables do not support.
[[noreturn]] void no_comparison() {
    RENSA_THROW(NotImplementedError,
                "Variable: comparison operators are not supported (compare the arrays: x.array < y.array)");
}

// The shape of reshape(*shape) / reshape(shape).
Shape shape_args(const py::args& args) {
    Shape shape;
    if (args.size() == 1 && !PyLong_Check(args[0].ptr())) {
        for (const py::handle d : args[0]) shape.push_back(d.cast<int64_t>());
    } else {
        for (const py::handle d : args) shape.push_back(d.cast<int64_t>());
    }
    return shape;
}

// Chainer's variable_repr / variable_str: numpy.array2string with the prefix's indent.
std::string describe(const Variable& v, bool repr) {
    const std::string prefix = !v.defined() || v.name().empty() ? "variable" : "variable " + v.name();
    if (!v.defined() || !v.array().defined()) return prefix + "(None)";
    const Array& a = v.array();
    py::object host = to_numpy(a.device().kind == DeviceKind::kNative ? a : a.to_device(Device::native()));
    if (!py::isinstance<py::array>(host)) return prefix + "(" + a.repr() + ")";
    std::string body;
    if (a.size() > 0 || (a.ndim() == 1 && a.shape()[0] == 0)) {
        body =
            py::module_::import("numpy")
                .attr("array2string")(host, py::arg("separator") = repr ? ", " : " ", py::arg("prefix") = prefix + "(")
                .cast<std::string>();
    } else {
        body = "[], shape=" + py::repr(host.attr("shape")).cast<std::string>();
    }
    return prefix + "(" + body + ")";
}

void bind_operators(py::class_<Variable>& cls) {
    bind_binary(cls, "__add__", "__radd__", &rensa::add, &rensa::add, &rensa::add);
    bind_binary(cls, "__sub__", "__rsub__", &rensa::sub, &rensa::sub, &rensa::sub);
    bind_binary(cls, "__mul__", "__rmul__", &rensa::mul, &rensa::mul, &rensa::mul);
    bind_binary(cls, "__truediv__", "__rtruediv__", &rensa::div, &rensa::div, &rensa::div);
    bind_binary(cls, "__pow__", "__rpow__", &rensa::pow, &rensa::pow, &rensa::pow);
    // Chainer's floordiv: floor(a / b) (F.floor has no gradient, as in Chainer).
    bind_binary(
        cls, "__floordiv__", "__rfloordiv__",
        [](const Variable& a, const Variable& b) { return F::floor(rensa::div(a, b)); },
        [](const Variable& a, Scalar b) { return F::floor(rensa::div(a, b)); },
        [](Scalar a, const Variable& b) { return F::floor(rensa::div(a, b)); });
    cls.def(
           "__matmul__", [](const Variable& a, const Variable& b) { return F::matmul(a, b); }, py::is_operator())
        .def(
            "__rmatmul__", [](const Variable& a, const Variable& b) { return F::matmul(b, a); }, py::is_operator())
        .def("__neg__", [](const Variable& x) { return rensa::neg(x); })
        .def("__pos__", [](const Variable& x) { return x; })
        .def("__abs__", [](const Variable& x) { return F::absolute(x); });
    for (const char* name : {"__lt__", "__le__", "__gt__", "__ge__", "__eq__", "__ne__"}) {
        cls.def(name, [](const Variable&, const py::handle&) { no_comparison(); });
    }
    cls.def("__bool__", [](const Variable&) -> bool {
        RENSA_THROW(NotImplementedError, "Variable: the truth value of a Variable is not defined (use x.array)");
    });
    // The Python object's identity, as Chainer's Variable (comparisons do not define equality).
    cls.def("__hash__", [](const py::handle& self) { return reinterpret_cast<intptr_t>(self.ptr()) >> 4; });
    // numpy defers binary operators to Variable's reflected ones (np_array + variable).
    cls.attr("__array_ufunc__") = py::none();
    cls.attr("__array_priority__") = 200;
}

void bind_views(py::class_<Variable>& cls) {
    // __getitem__ (F.get_item, with boolean masks) is bound by python/src/functions/array_index.cc.
    cls.def(
           "reshape", [](const Variable& x, const py::args& shape) { return rensa::reshape(x, shape_args(shape)); },
           "F.reshape of this variable; the shape is given as ints or one tuple (``x.reshape(2, 3)``, "
           "``x.reshape((2, 3))``).")
        .def(
            "transpose",
            [](const Variable& x, const py::args& axes) {
                if (axes.empty() || (axes.size() == 1 && axes[0].is_none())) return F::transpose(x);
                Axes out;
                for (int64_t a : shape_args(axes)) out.push_back(static_cast<int>(a));
                return F::transpose(x, out);
            },
            "F.transpose of this variable: the axes reversed when none are given, else permuted as ``axes`` "
            "(ints or one tuple).")
        .def_property_readonly(
            "T", [](const Variable& x) { return F::transpose(x); }, "F.transpose of this variable (axes reversed).");
}

void bind_methods(py::class_<Variable>& cls) {
    cls.def("__float__", [](const Variable& v) { return v.item<double>(); })
        .def("__int__", [](const Variable& v) { return v.item<int64_t>(); })
        .def("__repr__", [](const Variable& v) { return describe(v, true); })
        .def("__str__", [](const Variable& v) { return describe(v, false); })
        .def("unchain", &Variable::unchain,
             "Forgets the creator: this variable becomes a leaf, and the graph behind it is freed when nothing "
             "else holds it.")
        .def("unchain_backward", &Variable::unchain_backward,
             "Unchains every function reachable backward from this variable, cutting the whole graph behind it.")
        .def(
            "to_device", [](const Variable& v, const py::handle& device) { v.to_device(to_device(device)); },
            py::arg("device"),
            "Moves the array and the grad to ``device`` in place (a no-op when already there); ``device`` is any "
            "device specifier or device object.")
        .def(
            "to_cpu", [](const Variable& v) { v.to_device(Device::native()); },
            "Moves the array and the grad to the CPU (native:0) in place.")
        .def(
            "to_gpu", [](const Variable& v, const py::handle& device) { v.to_device(to_gpu_device(device)); },
            py::arg("device") = py::none(),
            "Moves the array and the grad to a GPU in place: ``device`` (an id or specifier), or GPU 0 when None "
            "(Chainer uses the current device).")
        .def(
            "copydata", [](const Variable& v, const Variable& src) { v.array().assign(src.array()); }, py::arg("var"),
            "Copies the array of ``var`` into this variable's array, in place (broadcast and cast to this array's "
            "shape and dtype).")
        .def(
            "addgrad",
            [](const Variable& v, const Variable& src) {
                const Array g = src.grad();
                if (!g.defined()) return;
                const Array mine = v.grad();
                if (!mine.defined()) {
                    v.set_grad(g.to_device(v.device()).copy());
                } else {
                    v.set_grad_var(v.grad_var() + Variable(g.to_device(v.device()), false));
                }
            },
            py::arg("var"),
            "Adds the grad of ``var`` (moved to this variable's device) to this variable's grad; copies it when this "
            "variable has none, and does nothing when ``var`` has none.")
        .def_property_readonly(
            "label",
            [](const Variable& v) {
                std::ostringstream os;
                if (v.ndim() == 0) {
                    os << "()";
                } else {
                    os << v.shape();
                }
                os << ", " << v.dtype();
                return os.str();
            },
            "A short description for computational graphs: the shape and the dtype (``(2, 3), float32``).")
        .def_property_readonly(
            "xp",
            [](const Variable& v) -> py::object {
                if (v.device().kind == DeviceKind::kNative) return py::module_::import("numpy");
                return py::module_::import("rensa");
            },
            "The array module of the variable's device: ``numpy`` on the CPU, ``rensa`` on a GPU (where Chainer "
            "gives ``cupy``).");
}

}  // namespace

void bind_variable_ops(py::class_<Variable>& cls) {
    bind_operators(cls);
    bind_views(cls);
    bind_methods(cls);
}

}  // namespace rensa::python
