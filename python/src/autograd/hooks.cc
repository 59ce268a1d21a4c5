// rensa._core: function hooks (FunctionHook subclassable from Python, TimerHook, `with
// hook:`) and the computational graph dump.
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "autograd/computational_graph.h"
#include "autograd/function_hook.h"
#include "autograd/function_node.h"
#include "core/error.h"
#include "python/src/autograd/autograd.h"

namespace rensa::python {
namespace {

// The node as the Python object that owns it (a Python subclass keeps its identity).
py::object node_object(const FunctionNode& function) {
    try {
        return py::cast(std::const_pointer_cast<FunctionNode>(function.shared_from_this()));
    } catch (const std::bad_weak_ptr&) {
        return py::cast(&function, py::return_value_policy::reference);
    }
}

py::tuple arrays_tuple(const std::vector<Array>& arrays) {
    py::tuple out(arrays.size());
    for (size_t i = 0; i < arrays.size(); ++i) out[i] = to_numpy(arrays[i]);
    return out;
}

class PyFunctionHook : public FunctionHook, public py::trampoline_self_life_support {
public:
    std::string name() const override { PYBIND11_OVERRIDE(std::string, FunctionHook, name, ); }
    void added() override { call("added"); }
    void deleted() override { call("deleted"); }
    void forward_preprocess(const FunctionNode& function, const std::vector<Array>& in_data) override {
        call("forward_preprocess", function, &in_data);
    }
    void forward_postprocess(const FunctionNode& function, const std::vector<Array>& in_data) override {
        call("forward_postprocess", function, &in_data);
    }
    void backward_preprocess(const FunctionNode& function, const std::vector<Array>& in_data,
                             const std::vector<Array>& grad_outputs) override {
        call("backward_preprocess", function, &in_data, &grad_outputs);
    }
    void backward_postprocess(const FunctionNode& function, const std::vector<Array>& in_data,
                              const std::vector<Array>& grad_outputs) override {
        call("backward_postprocess", function, &in_data, &grad_outputs);
    }

private:
    void call(const char* method) {
        py::gil_scoped_acquire gil;
        if (py::function f = py::get_override(static_cast<const FunctionHook*>(this), method)) f();
    }
    // Chainer's signatures: (function, in_data) and (function, in_data, out_grad).
    void call(const char* method, const FunctionNode& function, const std::vector<Array>* in_data,
              const std::vector<Array>* grads = nullptr) {
        py::gil_scoped_acquire gil;
        py::function f = py::get_override(static_cast<const FunctionHook*>(this), method);
        if (!f) return;
        if (grads) {
            f(node_object(function), arrays_tuple(*in_data), arrays_tuple(*grads));
        } else {
            f(node_object(function), arrays_tuple(*in_data));
        }
    }
};

// The hooks `with hook:` registered on this thread, innermost last.
struct ActiveHook {
    std::shared_ptr<FunctionHook> hook;  // keeps a Python hook alive while registered
    std::unique_ptr<FunctionHookScope> scope;
};
std::vector<ActiveHook>& active_hooks() {
    thread_local std::vector<ActiveHook> hooks;
    return hooks;
}

void bind_function_hooks(py::module_& m) {
    py::classh<FunctionHook, PyFunctionHook>(m, "FunctionHook",
                                             "Chainer's FunctionHook: ``with hook:`` runs its callbacks around "
                                             "every function applied on this thread.")
        .def(py::init<>())
        .def_property_readonly("name", &FunctionHook::name,
                               "The hook's name (the class's ``name`` attribute in a Python subclass).")
        .def("__enter__",
             [](const std::shared_ptr<FunctionHook>& self) {
                 ActiveHook active{self, nullptr};
                 active.scope = std::make_unique<FunctionHookScope>(*self);
                 active_hooks().push_back(std::move(active));
                 return self;
             })
        .def("__exit__", [](FunctionHook& self, const py::args&) {
            auto& hooks = active_hooks();
            RENSA_CHECK(!hooks.empty() && hooks.back().hook.get() == &self, ValueError,
                        "FunctionHook.__exit__: this hook is not the innermost `with hook:` scope");
            hooks.back().scope.reset();
            hooks.pop_back();
        });
    py::classh<TimerHook, FunctionHook>(m, "TimerHook", "Measures the time of each forward and backward call.")
        .def(py::init<>())
        .def_property_readonly(
            "call_history",
            [](const TimerHook& h) {
                py::list out;
                for (const auto& r : h.call_history()) {
                    out.append(py::make_tuple(r.function, r.backward, r.seconds));
                }
                return out;
            },
            "One ``(label, is_backward, seconds)`` tuple per call, in call order. Chainer records "
            "``(function, seconds)``; rensa records the label and whether it was a backward call.")
        .def("total_time", &TimerHook::total_time, "The total time of all recorded calls, in seconds.")
        .def(
            "summary",
            [](const TimerHook& h) {
                py::dict out;
                for (const auto& [label, entry] : h.summary()) {
                    py::dict row;
                    row["elapsed_time"] = entry.elapsed_time;
                    row["occurrence"] = entry.occurrence;
                    out[py::str(label)] = row;
                }
                return out;
            },
            "Per-label totals, forward and backward together: ``{label: {'elapsed_time': seconds, 'occurrence': "
            "count}}``.")
        .def(
            "print_report",
            [](const TimerHook& h, const py::handle& file) {
                std::ostringstream os;
                h.print_report(os);
                py::object out = file.is_none() ? py::module_::import("sys").attr("stdout")
                                                : py::reinterpret_borrow<py::object>(file);
                out.attr("write")(os.str());
            },
            py::arg("file") = py::none(),
            "Writes a table ``FunctionName  ElapsedTime  Occurrence``, one row per label, to ``file`` (sys.stdout by "
            "default).");
}

void bind_graph(py::module_& m) {
    py::class_<ComputationalGraph>(m, "ComputationalGraph",
                                   "The function and variable nodes reachable backward from some outputs "
                                   "(chainer.computational_graph.ComputationalGraph); made by "
                                   "``build_computational_graph``, written as Graphviz DOT by ``dump``.")
        .def(
            "dump",
            [](const ComputationalGraph& g, const std::string& format) {
                RENSA_CHECK(format == "dot", NotImplementedError, "ComputationalGraph.dump: format '", format,
                            "' is not supported (only 'dot')");
                return g.dump();
            },
            py::arg("format") = "dot",
            "The graph as Graphviz DOT text: variables as ovals (``name: (2, 3), float32``), functions as boxes with "
            "their label, edges input -> function -> output. Only ``format='dot'`` is supported.")
        .def_property_readonly(
            "nodes",
            [](const ComputationalGraph& g) {
                py::list out;
                for (const auto& v : g.variables()) out.append(py::cast(v));
                for (const auto& f : g.functions()) out.append(py::cast(f));
                return out;
            },
            "A list of the graph's nodes: the VariableNodes, then the FunctionNodes.")
        .def_property_readonly("functions", &ComputationalGraph::functions, "A list of the graph's FunctionNodes.")
        .def_property_readonly("variables", &ComputationalGraph::variables, "A list of the graph's VariableNodes.")
        .def_property_readonly(
            "edges", [](const ComputationalGraph& g) { return g.edges().size(); },
            "The number of edges (Chainer gives the list of node pairs; rensa exposes only their count).");
    m.def(
        "build_computational_graph",
        [](const py::handle& outputs, const std::string& rankdir, bool remove_variable, bool show_name) {
            std::vector<Variable> ys;
            if (py::isinstance<Variable>(outputs)) {
                ys.push_back(outputs.cast<Variable>());
            } else {
                for (const py::handle y : outputs) ys.push_back(to_variable(y));
            }
            return build_computational_graph(
                ys, {.rankdir = rankdir, .remove_variable = remove_variable, .show_name = show_name});
        },
        py::arg("outputs"), py::arg("rankdir") = "TB", py::arg("remove_variable") = false, py::arg("show_name") = true);
}

}  // namespace

void bind_hooks_and_graph(py::module_& m) {
    bind_function_hooks(m);
    bind_graph(m);
}

}  // namespace rensa::python
