// rensa._core: backward, grad, no_backprop_mode / force_backprop_mode and Config access.
#include <optional>
#include <string>
#include <vector>

#include "autograd/grad.h"
#include "autograd/modes.h"
#include "core/error.h"
#include "python/src/autograd/autograd.h"
#include "python/src/convert/variables.h"

namespace rensa::python {
namespace {

// A `with` scope over one bool of Config (no_backprop_mode, force_backprop_mode, ...).
struct BoolConfigScope {
    bool Config::*member;
    bool value;
    bool previous = false;
};

bool Config::*config_member(const std::string& name) {
    if (name == "enable_backprop") return &Config::enable_backprop;
    if (name == "train") return &Config::train;
    if (name == "debug") return &Config::debug;
    return nullptr;
}

void bind_config(py::module_& m) {
    py::class_<BoolConfigScope>(m, "_BoolConfigScope")
        .def("__enter__",
             [](BoolConfigScope& s) {
                 s.previous = config().*s.member;
                 config().*s.member = s.value;
             })
        .def("__exit__", [](BoolConfigScope& s, const py::args&) { config().*s.member = s.previous; });
    m.def(
        "no_backprop_mode",
        [] {
            return BoolConfigScope{&Config::enable_backprop, false};
        },
        "Functions applied in this scope record no graph (chainer.no_backprop_mode).");
    m.def(
        "force_backprop_mode",
        [] {
            return BoolConfigScope{&Config::enable_backprop, true};
        },
        "Functions applied in this scope record the graph even in no_backprop_mode.");
    // The fields C++ reads; configuration.py keeps Chainer's other entries in Python.
    m.attr("_config_names") = py::make_tuple("enable_backprop", "train", "debug");
    m.def("_config_get", [](const std::string& name, bool global) -> py::object {
        auto member = config_member(name);
        if (!member) return py::none();
        const Config& source = global ? global_config() : config();
        return py::bool_(source.*member);
    });
    // config.dtype (what links make parameters in): a float dtype's name, and the mixed16 flag
    // (with float16: mixed16; with bfloat16: mixed_bf16).
    m.def("_config_get_dtype", [](bool global) {
        const Config& source = global ? global_config() : config();
        return py::make_tuple(dtype_name(source.dtype), source.mixed16);
    });
    m.def("_config_set_dtype", [](const std::string& name, bool mixed16, bool global) {
        const Dtype dtype = dtype_from_name(name);
        RENSA_CHECK(is_float(dtype), DtypeError,
                    "config.dtype: expected float16, float32, float64, mixed16 or mixed_bf16, got ", name);
        RENSA_CHECK(!mixed16 || dtype == Dtype::kFloat16 || dtype == Dtype::kBFloat16, DtypeError,
                    "config.dtype: mixed precision needs a 16-bit dtype (float16 or bfloat16), got ", name);
        Config& target = global ? global_config() : config();
        target.dtype = dtype;
        target.mixed16 = mixed16;
    });
    m.def("_config_set", [](const std::string& name, bool value, bool global) {
        auto member = config_member(name);
        RENSA_CHECK(member, KeyError, "config: '", name, "' is not one of rensa's native config entries");
        Config& target = global ? global_config() : config();
        target.*member = value;
    });
}

py::object grad_list(const std::vector<Variable>& gxs) {
    py::list out;
    for (const Variable& g : gxs) out.append(g.defined() ? py::cast(g) : py::none());
    return out;
}

}  // namespace

void bind_backprop(py::module_& m) {
    bind_config(m);
    m.def(
        "backward",
        [](const py::handle& outputs, const py::handle& grad_outputs, bool retain_grad, bool enable_double_backprop,
           std::optional<double> loss_scale) {
            const auto ys = to_variables_or_undefined(outputs);
            const auto gys = to_variables_or_undefined(grad_outputs);
            py::gil_scoped_release no_gil;
            rensa::backward(ys, gys,
                            {.retain_grad = retain_grad,
                             .enable_double_backprop = enable_double_backprop,
                             .loss_scale = loss_scale});
        },
        py::arg("outputs"), py::arg("grad_outputs") = py::none(), py::kw_only(), py::arg("retain_grad") = false,
        py::arg("enable_double_backprop") = false, py::arg("loss_scale") = py::none(),
        "Backprop from several outputs at once (chainer.backward).");
    m.def(
        "grad",
        [](const py::handle& outputs, const py::handle& inputs, const py::handle& grad_outputs,
           const py::handle& grad_inputs, bool set_grad, bool retain_grad, bool enable_double_backprop,
           std::optional<double> loss_scale) {
            RENSA_CHECK(grad_inputs.is_none(), NotImplementedError,
                        "grad: grad_inputs is not supported (the gradients start from zero)");
            const auto ys = to_variables_or_undefined(outputs);
            const auto xs = to_variables_or_undefined(inputs);
            const auto gys = to_variables_or_undefined(grad_outputs);
            std::vector<Variable> gxs;
            {
                py::gil_scoped_release no_gil;
                gxs = rensa::grad(ys, xs, gys,
                                  {.enable_double_backprop = enable_double_backprop,
                                   .set_grad = set_grad,
                                   .retain_grad = retain_grad,
                                   .loss_scale = loss_scale});
            }
            return grad_list(gxs);
        },
        py::arg("outputs"), py::arg("inputs"), py::arg("grad_outputs") = py::none(),
        py::arg("grad_inputs") = py::none(), py::arg("set_grad") = false, py::arg("retain_grad") = false,
        py::arg("enable_double_backprop") = false, py::arg("loss_scale") = py::none(),
        "Gradients of the outputs with respect to the inputs (chainer.grad); a list, None where unconnected.");
}

}  // namespace rensa::python
