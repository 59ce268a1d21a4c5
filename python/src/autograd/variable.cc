// rensa._core.Variable: construction, data, grad and graph properties, backward.
#include <string>
#include <vector>

#include "autograd/function_node.h"
#include "core/error.h"
#include "python/src/autograd/autograd.h"
#include "python/src/convert/device_object.h"
#include "python/src/convert/numpy_cache.h"

namespace rensa::python {
namespace {

py::tuple shape_tuple(const Shape& shape) {
    py::tuple out(shape.size());
    for (int i = 0; i < shape.size(); ++i) out[static_cast<size_t>(i)] = py::int_(shape[i]);
    return out;
}

// The array setter; a numpy array set as is comes back from the getter (v.array = x; v.array is x).
void set_array(const Variable& v, const py::handle& value) {
    if (value.is_none()) {
        v.set_array(Array());
        return;
    }
    v.set_array(to_array(value));
    remember_numpy(v.array(), value);
}

void set_grad(const Variable& v, const py::handle& value) {
    if (value.is_none()) {
        v.cleargrad();
        return;
    }
    v.set_grad(to_array(value));
    remember_numpy(v.grad(), value);
}

void set_grad_var(const Variable& v, const py::handle& value) {
    if (value.is_none()) {
        v.cleargrad();
        return;
    }
    v.set_grad_var(to_variable(value));
}

py::object item(const Variable& v) {
    RENSA_CHECK(v.size() == 1, ValueError, "Variable.item: the variable has ", v.size(),
                " elements; only a variable of one element converts to a Python scalar");
    const Array& a = v.array();
    if (a.device().kind != DeviceKind::kNative || a.dtype() == Dtype::kBFloat16) {
        if (is_float(a.dtype())) return py::float_(a.item<double>());
        if (a.dtype() == Dtype::kBool) return py::bool_(a.item<bool>());
        return py::int_(a.item<int64_t>());
    }
    return to_numpy(a).attr("item")();
}

int64_t length(const Variable& v) {
    if (v.ndim() == 0) throw py::type_error("len() of unsized object");
    return v.shape()[0];
}

}  // namespace

void bind_variable(py::module_& m) {
    // Functions bound with Variable arguments take arrays too: See Note [Arrays as Variable arguments].
    py::class_<Variable> cls(m, "Variable",
                             "Chainer's Variable: an array with a gradient and a place in the graph "
                             "(an aliasing handle: copies share the array and the grad).");
    cls.def(py::init([](const py::handle& data, const py::handle& name, const py::handle& grad, bool requires_grad) {
                const std::string n = name.is_none() ? std::string() : name.cast<std::string>();
                Variable v = data.is_none() ? Variable::without_array(requires_grad, n)
                                            : Variable(to_array(data), requires_grad, n);
                if (!data.is_none()) remember_numpy(v.array(), data);  // Variable(x).array is x
                if (!grad.is_none()) set_grad(v, grad);
                return v;
            }),
            py::arg("data") = py::none(), py::kw_only(), py::arg("name") = py::none(), py::arg("grad") = py::none(),
            py::arg("requires_grad") = true)
        .def_property(
            "array", [](const Variable& v) { return to_numpy(v.array()); }, &set_array,
            "The array (a numpy view for native arrays: writes go into the variable); the same numpy "
            "object on every access until the array is replaced.")
        .def_property(
            "data", [](const Variable& v) { return to_numpy(v.array()); }, &set_array,
            "The array, as ``array`` (Chainer's older name); setting it replaces the array.")
        .def_property(
            "grad", [](const Variable& v) { return to_numpy(v.grad()); }, &set_grad,
            "The gradient array, or None. Setting it checks the shape and dtype against the array "
            "(DimensionError / DtypeError); setting None clears it (as ``cleargrad``).")
        .def_property(
            "grad_var",
            [](const Variable& v) -> py::object {
                const Variable& g = v.grad_var();
                if (!g.defined()) return py::none();
                return py::cast(g);
            },
            &set_grad_var,
            "The gradient as a Variable (with a graph after ``backward(enable_double_backprop=True)``), "
            "or None.")
        .def_property_readonly(
            "shape", [](const Variable& v) { return shape_tuple(v.shape()); }, "The shape of the array.")
        .def_property_readonly("ndim", &Variable::ndim, "The number of dimensions of the array.")
        .def_property_readonly("size", &Variable::size, "The number of elements of the array.")
        .def_property_readonly(
            "dtype", [](const Variable& v) { return dtype_to_python(v.dtype()); }, "The dtype of the array.")
        .def_property_readonly(
            "device", [](const Variable& v) { return device_object(v.device()); },
            "The device object (rensa.backend.CpuDevice / GpuDevice) of the array.")
        .def_property(
            "name",
            [](const Variable& v) -> py::object {
                if (v.name().empty()) return py::none();
                return py::str(v.name());
            },
            [](const Variable& v, const py::handle& name) {
                v.set_name(name.is_none() ? std::string() : name.cast<std::string>());
            },
            "The name (a str, or None), shown by repr and by computational graphs.")
        .def_property_readonly("requires_grad", &Variable::requires_grad,
                               "Whether backward computes a gradient for this variable (fixed at construction).")
        .def_property_readonly("creator", &Variable::creator,
                               "The FunctionNode that made this variable, or None for a leaf (as ``creator_node``).")
        .def_property_readonly("creator_node", &Variable::creator, "The FunctionNode that made it (None for a leaf).")
        .def_property_readonly("node", &Variable::node, "Its VariableNode in the graph.")
        .def("retain_data", &Variable::retain_data, "Lets the node keep the array (Chainer's retain_data).")
        .def_property_readonly("rank", &Variable::rank,
                               "The topological rank: 0 for a leaf, the creator's rank + 1 otherwise; backward "
                               "visits functions from the highest rank down.")
        .def("__len__", &length)
        .def("item", &item,
             "The single element as a Python scalar (numpy's item); ValueError unless the variable has exactly one "
             "element.")
        .def(
            "backward",
            [](const Variable& v, bool retain_grad, bool enable_double_backprop, std::optional<double> loss_scale) {
                py::gil_scoped_release no_gil;
                v.backward({.retain_grad = retain_grad,
                            .enable_double_backprop = enable_double_backprop,
                            .loss_scale = loss_scale});
            },
            py::arg("retain_grad") = false, py::arg("enable_double_backprop") = false,
            py::arg("loss_scale") = py::none(),
            R"doc(Runs backpropagation from this variable, accumulating gradients into the grads of the variables
it depends on.

The seed is this variable's ``grad``; when it has none and holds one element the seed is 1 (times
``loss_scale``), otherwise ValueError. The GIL is released while it runs.

Args:
    retain_grad (bool): keep the grads of intermediate variables too (by default only leaves,
        and this variable, get one).
    enable_double_backprop (bool): record the graph of the backward computation, so the grads can
        be differentiated again.
    loss_scale (float): scales the implicit seed; the leaves remember it so an optimizer can undo it.)doc")
        .def("cleargrad", &Variable::cleargrad, "Clears the gradient (grad becomes None).")
        .def("zerograd", &Variable::zerograd,
             "Sets the gradient to zeros of the array's shape and dtype (Chainer deprecates it in favour of "
             "``cleargrad``).");
    bind_variable_ops(cls);
}

}  // namespace rensa::python
