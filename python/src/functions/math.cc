// rensa._core.functions, math family: reductions, elementwise functions and products.
// Axis arguments are Chainer's None, int or tuple of ints.
#include <string>
#include <utility>

#include "core/error.h"
#include "functions/array.h"
#include "functions/math.h"
#include "python/src/functions/functions.h"

namespace rensa::python::functions_bind {
namespace {

// Chainer's average(x, axis=None, weights=None, keepdims=False), also bound as mean.
Variable average(const Variable& x, py::handle axis, py::handle weights, bool keepdims) {
    return F::average(x, to_axes(axis, "average"), to_variable_or_undefined(weights), keepdims);
}

void bind_reductions(py::module_& f) {
    f.def(
        "sum",
        [](const Variable& x, py::handle axis, bool keepdims) { return F::sum(x, to_axes(axis, "sum"), keepdims); },
        py::arg("x"), py::arg("axis") = py::none(), py::arg("keepdims") = false);
    f.def("average", &average, py::arg("x"), py::arg("axis") = py::none(), py::arg("weights") = py::none(),
          py::arg("keepdims") = false);
    f.def("mean", &average, py::arg("x"), py::arg("axis") = py::none(), py::arg("weights") = py::none(),
          py::arg("keepdims") = false);
    f.def(
        "max",
        [](const Variable& x, py::handle axis, bool keepdims) { return F::max(x, to_axes(axis, "max"), keepdims); },
        py::arg("x"), py::arg("axis") = py::none(), py::arg("keepdims") = false);
    f.def(
        "min",
        [](const Variable& x, py::handle axis, bool keepdims) { return F::min(x, to_axes(axis, "min"), keepdims); },
        py::arg("x"), py::arg("axis") = py::none(), py::arg("keepdims") = false);
    f.def(
        "prod",
        [](const Variable& x, py::handle axis, bool keepdims) { return F::prod(x, to_axes(axis, "prod"), keepdims); },
        py::arg("x"), py::arg("axis") = py::none(), py::arg("keepdims") = false);
    f.def(
        "logsumexp", [](const Variable& x, py::handle axis) { return F::logsumexp(x, to_axes(axis, "logsumexp")); },
        py::arg("x"), py::arg("axis") = py::none());
    f.def("argmax", &F::argmax, py::arg("x"), py::arg("axis") = py::none());
    f.def("argmin", &F::argmin, py::arg("x"), py::arg("axis") = py::none());
    f.def("cumsum", &F::cumsum, py::arg("x"), py::arg("axis") = py::none());
}

void bind_elementwise(py::module_& f) {
    using Unary = Variable (*)(const Variable&);
    f.def("exp", static_cast<Unary>(&F::exp), py::arg("x"));
    f.def("log", static_cast<Unary>(&F::log), py::arg("x"));
    f.def("log1p", &F::log1p, py::arg("x"));
    f.def("log2", &F::log2, py::arg("x"));
    f.def("log10", &F::log10, py::arg("x"));
    f.def("sqrt", &F::sqrt, py::arg("x"));
    f.def("rsqrt", &F::rsqrt, py::arg("x"));
    f.def("square", &F::square, py::arg("x"));
    // Chainer names its one argument `self` (absolute is also Variable.__abs__).
    f.def("absolute", &F::absolute, py::arg("self"));
    f.def("sin", &F::sin, py::arg("x"));
    f.def("cos", &F::cos, py::arg("x"));
    f.def("tan", &F::tan, py::arg("x"));
    f.def("arctan", &F::arctan, py::arg("x"));
    f.def("sinh", &F::sinh, py::arg("x"));
    f.def("cosh", &F::cosh, py::arg("x"));
    f.def("erf", &F::erf, py::arg("x"));
    f.def("expm1", &F::expm1, py::arg("x"));
    f.def("arcsin", &F::arcsin, py::arg("x"));
    f.def("arccos", &F::arccos, py::arg("x"));
    f.def("erfc", &F::erfc, py::arg("x"));
    f.def("ndtr", &F::ndtr, py::arg("x"));
    f.def("erfcx", &F::erfcx, py::arg("x"));
    f.def("lgamma", &F::lgamma, py::arg("x"));
    f.def("digamma", &F::digamma, py::arg("x"));
    f.def("polygamma", &F::polygamma, py::arg("n"), py::arg("x"));
    f.def("log_ndtr", &F::log_ndtr, py::arg("x"));
    f.def("ndtri", &F::ndtri, py::arg("x"));
    f.def("erfinv", &F::erfinv, py::arg("x"));
    f.def("arctan2", &F::arctan2, py::arg("x1"), py::arg("x2"));
    f.def("fmod", &F::fmod, py::arg("x"), py::arg("divisor"));
    f.def("floor", &F::floor, py::arg("x"));
    f.def("ceil", &F::ceil, py::arg("x"));
    f.def("fix", &F::fix, py::arg("x"));
    f.def("sign", &F::sign, py::arg("x"));
    f.def("clip", &F::clip, py::arg("x"), py::arg("x_min"), py::arg("x_max"));
    f.def("maximum", &F::maximum, py::arg("x1"), py::arg("x2"));
    f.def("minimum", &F::minimum, py::arg("x1"), py::arg("x2"));
    f.def("squared_difference", &F::squared_difference, py::arg("x1"), py::arg("x2"));
    f.def("batch_l2_norm_squared", &F::batch_l2_norm_squared, py::arg("x"));
    f.def("linear_interpolate", &F::linear_interpolate, py::arg("p"), py::arg("x"), py::arg("y"));
    f.def("bias", &F::bias, py::arg("x"), py::arg("y"), py::arg("axis") = 1);
    f.def("scale", &F::scale, py::arg("x"), py::arg("y"), py::arg("axis") = 1);
    // Chainer's identity(*inputs) / add(*xs): one Variable for one input, else a tuple.
    f.def("identity", [](const py::args& inputs) -> py::object {
        std::vector<Variable> ys = F::identity(to_variables(inputs));
        return ys.size() == 1 ? py::cast(std::move(ys[0])) : py::object(to_tuple(std::move(ys)));
    });
    f.def("add", [](const py::args& xs) {
        const std::vector<Variable> vars = to_variables(xs);
        RENSA_CHECK(!vars.empty(), ValueError, "add: needs at least one input");
        Variable y = vars[0];
        for (size_t i = 1; i < vars.size(); ++i) {
            y = F::add(y, vars[i]);
        }
        return y;
    });
}

}  // namespace

void bind_math(py::module_& f) {
    bind_reductions(f);
    bind_elementwise(f);
}

void bind_math_products(py::module_& f) {
    f.def("matmul", &F::matmul, py::arg("a"), py::arg("b"), py::arg("transa") = false, py::arg("transb") = false);
    f.def("batch_matmul", &F::batch_matmul, py::arg("a"), py::arg("b"), py::arg("transa") = false,
          py::arg("transb") = false);
    // numpy's tensordot axes: an int, or (a_axes, b_axes) each an int or a sequence.
    f.def(
        "tensordot",
        [](const Variable& a, const Variable& b, py::handle axes) {
            if (PyIndex_Check(axes.ptr())) {
                return F::tensordot(a, b, axes.cast<int>());
            }
            const auto pair = py::reinterpret_borrow<py::sequence>(axes);
            RENSA_CHECK(py::len(pair) == 2, ValueError, "tensordot: axes must be an int or (a_axes, b_axes)");
            return F::tensordot(a, b, to_axes(pair[0], "tensordot").value(), to_axes(pair[1], "tensordot").value());
        },
        py::arg("a"), py::arg("b"), py::arg("axes") = 2);
    // Chainer's einsum(*operands): the subscripts string first.
    f.def("einsum", [](const py::args& operands) {
        RENSA_CHECK(
            !operands.empty() && py::isinstance<py::str>(operands[0]), ValueError,
            "einsum: Expect: the subscripts string as the first operand, Actual: ",
            operands.empty() ? std::string("no operands") : py::str(py::type::of(operands[0])).cast<std::string>());
        const auto subscripts = operands[0].cast<std::string>();
        return F::einsum(subscripts, to_variables(operands[py::slice(1, py::ssize_t_cast(operands.size()), 1)]));
    });
}

}  // namespace rensa::python::functions_bind
