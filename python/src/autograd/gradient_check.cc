// rensa._core.gradient_check: the numerics of autograd/gradient_check.h with Python callables,
// which rensa.gradient_check wraps with Chainer's signatures (so the Python checks and the C++
// ones cannot disagree). GradientCheckError is an AssertionError, as Chainer's checks raise.
#include <optional>
#include <vector>

#include "autograd/gradient_check.h"
#include "python/src/autograd/autograd.h"
#include "python/src/convert/tuple.h"

namespace rensa::python {
namespace {

// Chainer's outputs: one value, or a tuple / list of them; each Variable or array-like.
template <class Convert>
auto outputs_of(const py::object& out, Convert convert) {
    std::vector<decltype(convert(out))> values;
    if (py::isinstance<py::tuple>(out) || py::isinstance<py::list>(out)) {
        for (const py::handle y : out) values.push_back(convert(y));
    } else {
        values.push_back(convert(out));
    }
    return values;
}

// func(*variables) -> its outputs as Variables.
VariableFunction variable_function(const py::function& func) {
    return [func](const std::vector<Variable>& xs) {
        return outputs_of(func(*to_tuple(xs)), [](py::handle y) { return to_variable(y); });
    };
}

// f(arrays) (a list of numpy arrays / ndarrays) -> its outputs as Arrays.
ArrayFunction array_function(const py::function& f) {
    return [f](const std::vector<Array>& xs) {
        return outputs_of(f(py::list(to_tuple(xs))), [](py::handle y) { return to_array(y); });
    };
}

// Chainer's y_grad: None (scalar outputs) -> empty; a None entry -> undefined (not checked).
std::vector<Array> grad_outputs_of(py::handle obj) {
    std::vector<Array> grads;
    if (obj.is_none()) return grads;
    for (const py::handle g : obj) grads.push_back(to_array_or_undefined(g));
    return grads;
}

CheckBackwardOptions options_of(std::vector<Variable> params, std::vector<bool> no_grads, double eps, double atol,
                                double rtol, py::handle dtype) {
    return {.eps = eps,
            .atol = atol,
            .rtol = rtol,
            .dtype = dtype.is_none() ? std::nullopt : std::optional<Dtype>{to_dtype(dtype)},
            .no_grads = std::move(no_grads),
            .params = std::move(params)};
}

}  // namespace

void bind_gradient_check(py::module_& m) {
    py::module_ gc = m.def_submodule(
        "gradient_check", "The numerics of autograd/gradient_check.h (rensa.gradient_check gives Chainer's API)");
    py::register_exception<GradientCheckError>(gc, "GradientCheckError", PyExc_AssertionError);
    gc.def(
        "numerical_grad",
        [](const py::function& f, py::handle inputs, py::handle grad_outputs, double eps) {
            RENSA_CHECK(eps > 0, ValueError, "numerical_grad: eps must be positive, got ", eps);
            return to_tuple(numerical_grad(array_function(f), to_arrays(inputs), grad_outputs_of(grad_outputs), eps));
        },
        py::arg("f"), py::arg("inputs"), py::arg("grad_outputs"), py::arg("eps") = 1e-3,
        "Central differences (float64) of sum(f(inputs) * grad_outputs) w.r.t. each input; f takes the list of "
        "input arrays.");
    gc.def(
        "check_backward",
        [](const py::function& func, py::handle inputs, py::handle grad_outputs, std::vector<Variable> params,
           std::vector<bool> no_grads, double eps, double atol, double rtol, py::handle dtype) {
            check_backward(variable_function(func), to_arrays(inputs), grad_outputs_of(grad_outputs),
                           options_of(std::move(params), std::move(no_grads), eps, atol, rtol, dtype));
        },
        py::arg("func"), py::arg("inputs"), py::arg("grad_outputs"), py::arg("params"), py::arg("no_grads"),
        py::arg("eps"), py::arg("atol"), py::arg("rtol"), py::arg("dtype"));
    gc.def(
        "check_double_backward",
        [](const py::function& func, py::handle inputs, py::handle grad_outputs, py::handle grad_grad_inputs,
           std::vector<Variable> params, std::vector<bool> no_grads, double eps, double atol, double rtol,
           py::handle dtype) {
            check_double_backward(variable_function(func), to_arrays(inputs), grad_outputs_of(grad_outputs),
                                  to_arrays(grad_grad_inputs),
                                  options_of(std::move(params), std::move(no_grads), eps, atol, rtol, dtype));
        },
        py::arg("func"), py::arg("inputs"), py::arg("grad_outputs"), py::arg("grad_grad_inputs"), py::arg("params"),
        py::arg("no_grads"), py::arg("eps"), py::arg("atol"), py::arg("rtol"), py::arg("dtype"));
}

}  // namespace rensa::python
