// rensa._core.FunctionNode and VariableNode. A Python subclass of FunctionNode
// implements forward(inputs) on numpy arrays and backward(target_input_indexes,
// grad_outputs) on Variables (so double backprop works), as in Chainer.
//
// Note [Python function nodes held by the graph]: apply() takes `self` as a shared_ptr.
// For a Python subclass pybind11's smart holder then makes a shared_ptr whose deleter
// holds a reference on the Python object, and that shared_ptr also becomes the one
// shared_from_this() returns; the graph's reference keeps the Python overrides alive
// after the last Python reference has gone.
#include <string>
#include <vector>

#include "autograd/function_node.h"
#include "core/error.h"
#include "python/src/autograd/autograd.h"

namespace rensa::python {
namespace {

// Gives the bindings the protected members of FunctionNode (pybind11's "publicist").
class Publicist : public FunctionNode {
public:
    using FunctionNode::retain_inputs;
    using FunctionNode::retain_outputs;
    using FunctionNode::retained_input;
    using FunctionNode::retained_output;
};

class PyFunctionNode : public FunctionNode, public py::trampoline_self_life_support {
public:
    std::vector<Array> forward(const std::vector<Array>& inputs) override {
        py::gil_scoped_acquire gil;
        py::function f = py::get_override(static_cast<const FunctionNode*>(this), "forward");
        if (!f) f = py::get_override(static_cast<const FunctionNode*>(this), "forward_cpu");
        RENSA_CHECK(f, NotImplementedError, label(), ".forward: a FunctionNode subclass must define forward(inputs)");
        py::tuple xs(inputs.size());
        for (size_t i = 0; i < inputs.size(); ++i) xs[i] = to_numpy(inputs[i]);
        const py::object ys = f(xs);
        std::vector<Array> out;
        if (py::isinstance<py::tuple>(ys) || py::isinstance<py::list>(ys)) {
            for (const py::handle y : ys) out.push_back(to_array(y));
        } else {
            out.push_back(to_array(ys));
        }
        return out;
    }

    std::vector<Variable> backward(const Indexes& target_input_indexes,
                                   const std::vector<Variable>& grad_outputs) override {
        py::gil_scoped_acquire gil;
        py::function f = py::get_override(static_cast<const FunctionNode*>(this), "backward");
        RENSA_CHECK(f, NotImplementedError, label(),
                    ".backward: a FunctionNode subclass must define backward(target_input_indexes, grad_outputs)");
        py::tuple gys(grad_outputs.size());
        for (size_t i = 0; i < grad_outputs.size(); ++i) {
            gys[i] = grad_outputs[i].defined() ? py::cast(grad_outputs[i]) : py::none();
        }
        const py::object gxs = f(py::tuple(py::cast(target_input_indexes)), gys);
        std::vector<Variable> out;
        const auto add = [&out](const py::handle& g) { out.push_back(g.is_none() ? Variable() : to_variable(g)); };
        if (py::isinstance<py::tuple>(gxs) || py::isinstance<py::list>(gxs)) {
            for (const py::handle g : gxs) add(g);
        } else {
            add(gxs);
        }
        return out;
    }

    // The Python class's `label` when it defines one, else the class name (Chainer's default).
    std::string label() const override {
        py::gil_scoped_acquire gil;
        const py::handle self = py::detail::get_object_handle(static_cast<const FunctionNode*>(this),
                                                              py::detail::get_type_info(typeid(FunctionNode)));
        if (!self) return FunctionNode::label();
        const py::handle type = reinterpret_cast<PyObject*>(Py_TYPE(self.ptr()));
        const py::object attr = py::getattr(type, "label", py::none());
        if (attr.ptr() != base_label()) return py::str(py::getattr(self, "label")).cast<std::string>();
        return py::str(type.attr("__name__")).cast<std::string>();
    }

    // Set by retain_inputs / retain_outputs, read by get_retained_inputs / _outputs.
    Indexes retained_inputs_;
    Indexes retained_outputs_;

    // FunctionNode.label of the bound class (a property object), set at binding time.
    static PyObject*& base_label() {
        static PyObject* label = nullptr;
        return label;
    }
};

py::tuple retained(FunctionNode& node, bool outputs) {
    auto* py_node = dynamic_cast<PyFunctionNode*>(&node);
    RENSA_CHECK(py_node != nullptr, ValueError, node.label(),
                ": get_retained_inputs/get_retained_outputs are for FunctionNodes defined in Python");
    const auto& indexes = outputs ? py_node->retained_outputs_ : py_node->retained_inputs_;
    py::tuple out(indexes.size());
    for (size_t i = 0; i < indexes.size(); ++i) {
        out[i] =
            outputs ? (node.*&Publicist::retained_output)(indexes[i]) : (node.*&Publicist::retained_input)(indexes[i]);
    }
    return out;
}

FunctionNode::Indexes indexes_of(const py::iterable& indexes) {
    FunctionNode::Indexes out;
    for (const py::handle i : indexes) out.push_back(i.cast<int>());
    return out;
}

py::tuple apply(const std::shared_ptr<FunctionNode>& self, const py::iterable& inputs) {
    std::vector<Variable> xs;
    for (const py::handle x : inputs) xs.push_back(to_variable(x));
    const std::vector<Variable> ys = self->apply(xs);
    py::tuple out(ys.size());
    for (size_t i = 0; i < ys.size(); ++i) out[i] = py::cast(ys[i]);
    return out;
}

void bind_variable_node(py::module_& m) {
    py::classh<VariableNode>(m, "VariableNode", "A variable's node in the graph (Chainer's VariableNode).")
        .def_property_readonly(
            "shape",
            [](const VariableNode& n) {
                return py::tuple(py::cast(std::vector<int64_t>(n.shape().begin(), n.shape().end())));
            },
            "The shape of the variable's array (kept after the variable is gone).")
        .def_property_readonly(
            "dtype", [](const VariableNode& n) { return dtype_to_python(n.dtype()); },
            "The dtype of the variable's array.")
        .def_property_readonly(
            "name",
            [](const VariableNode& n) -> py::object {
                if (n.name().empty()) return py::none();
                return py::str(n.name());
            },
            "The variable's name, or None.")
        .def_property_readonly("rank", &VariableNode::rank, "0 for a leaf, the creator's rank + 1 otherwise.")
        .def_property_readonly("creator", &VariableNode::creator,
                               "The FunctionNode that made the variable, or None for a leaf.")
        .def_property_readonly("requires_grad", &VariableNode::requires_grad,
                               "Whether the variable requires a gradient.")
        // The array a function or retain_data() kept; None otherwise (Chainer's node.data).
        .def_property_readonly(
            "data",
            [](const VariableNode& n) -> py::object {
                if (!n.retained_data().defined()) return py::none();
                return to_numpy(n.retained_data());
            },
            "The array a function or ``Variable.retain_data()`` kept in the node, else None.")
        .def(
            "get_variable", [](VariableNode& n) { return n.get_variable(); },
            "The Variable of this node: the live one when it still exists, else a new Variable over the retained "
            "data that shares this node (and so stays connected to the graph).")
        .def(
            "get_variable_or_none",
            [](const VariableNode& n) -> py::object {
                Variable v = n.get_variable_or_none();
                if (!v.defined()) return py::none();
                return py::cast(v);
            },
            "The live Variable of this node, or None when it is gone.");
}

}  // namespace

void bind_function_node(py::module_& m) {
    bind_variable_node(m);
    py::classh<FunctionNode, PyFunctionNode> cls(m, "FunctionNode",
                                                 "Chainer's FunctionNode: subclass it with forward(inputs) on arrays "
                                                 "and backward(target_input_indexes, grad_outputs) on Variables.");
    cls.def(py::init<>())
        .def("apply", &apply, py::arg("inputs"),
             "Applies the function to ``inputs`` (Variables or arrays): runs ``forward`` on their arrays and, when "
             "backprop is enabled and an input requires a gradient, links this node into the graph. Returns a tuple "
             "of Variables.")
        .def(
            "retain_inputs",
            [](FunctionNode& self, const py::iterable& indexes) {
                auto idx = indexes_of(indexes);
                if (auto* p = dynamic_cast<PyFunctionNode*>(&self)) p->retained_inputs_ = idx;
                (self.*&Publicist::retain_inputs)(std::move(idx));
            },
            py::arg("indexes"),
            "Keeps the inputs at ``indexes`` for backward (call it in ``forward``); ``get_retained_inputs`` gives "
            "them back.")
        .def(
            "retain_outputs",
            [](FunctionNode& self, const py::iterable& indexes) {
                auto idx = indexes_of(indexes);
                if (auto* p = dynamic_cast<PyFunctionNode*>(&self)) p->retained_outputs_ = idx;
                (self.*&Publicist::retain_outputs)(std::move(idx));
            },
            py::arg("indexes"),
            "Keeps the outputs at ``indexes`` for backward (call it in ``forward``); ``get_retained_outputs`` gives "
            "them back.")
        .def(
            "get_retained_inputs", [](FunctionNode& self) { return retained(self, false); },
            "The inputs kept by ``retain_inputs``, as a tuple of Variables connected to the graph (so backward can "
            "differentiate through them).")
        .def(
            "get_retained_outputs", [](FunctionNode& self) { return retained(self, true); },
            "The outputs kept by ``retain_outputs``, as a tuple of Variables connected to the graph.")
        .def_property_readonly(
            "inputs",
            [](const FunctionNode& self) {
                py::tuple out(self.inputs().size());
                for (size_t i = 0; i < self.inputs().size(); ++i) out[i] = py::cast(self.inputs()[i]);
                return out;
            },
            "The input VariableNodes, a tuple (empty once unchained).")
        .def_property_readonly(
            "outputs",
            [](const FunctionNode& self) {
                py::tuple out(self.outputs().size());
                for (size_t i = 0; i < self.outputs().size(); ++i) {
                    auto node = self.outputs()[i].lock();
                    out[i] = node ? py::cast(node) : py::none();
                }
                return out;
            },
            "The output VariableNodes, a tuple (None for an output that is gone).")
        .def_property_readonly("rank", &FunctionNode::rank, "The largest rank of the inputs.")
        .def_property_readonly("label", &FunctionNode::label,
                               "The name in error messages, hooks and graph dumps: the class name by default.")
        .def("unchain", &FunctionNode::unchain,
             "Cuts the node out of the graph: its outputs forget their creator and it forgets its inputs.");
    PyFunctionNode::base_label() = py::getattr(cls, "label").release().ptr();  // kept for the process
}

}  // namespace rensa::python
