// rensa._core.functions, math family: reductions, elementwise functions and products.
// Axis arguments are Chainer's None, int or tuple of ints.
#include <initializer_list>
#include <string>
#include <utility>

#include "core/error.h"
#include "functions/array.h"
#include "functions/math.h"
#include "python/src/functions/functions.h"

namespace rensa::python::functions_bind {
namespace {

// A function of one floating-point variable returning one of its shape and dtype (sin, log1p, ...),
// bound with its argument `x` and a docstring of `summary` and that contract.
struct UnaryFloatFunction {
    const char* name;
    Variable (*fn)(const Variable&);
    const char* summary;
};

void def_unary_float(py::module_& f, std::initializer_list<UnaryFloatFunction> functions) {
    for (const UnaryFloatFunction& fn : functions) {
        const std::string doc = std::string(fn.summary) +
                                "\n\n:param x: Input variable of a floating-point dtype.\n"
                                ":returns: A variable of x's shape and dtype.";
        f.def(fn.name, fn.fn, py::arg("x"), doc.c_str());
    }
}

// Chainer's average(x, axis=None, weights=None, keepdims=False), also bound as mean.
Variable average(const Variable& x, py::handle axis, py::handle weights, bool keepdims) {
    return F::average(x, to_axes(axis, "average"), to_variable_or_undefined(weights), keepdims);
}

void bind_reductions(py::module_& f) {
    f.def(
        "sum",
        [](const Variable& x, py::handle axis, bool keepdims) { return F::sum(x, to_axes(axis, "sum"), keepdims); },
        py::arg("x"), py::arg("axis") = py::none(), py::arg("keepdims") = false,
        R"doc(Sums the elements of a variable over the given axes.

:param x: Input variable.
:param axis: None (all axes), an int or a tuple of ints.
:param keepdims: Keep the reduced axes as axes of length one.
:returns: A variable of x's dtype.)doc");
    f.def("average", &average, py::arg("x"), py::arg("axis") = py::none(), py::arg("weights") = py::none(),
          py::arg("keepdims") = false,
          R"doc(Calculates the weighted average of a variable over the given axes.

Without weights this is the arithmetic mean. With weights the result is
``sum(x * weights, axis) / sum(weights)``.

:param x: Input variable of a floating-point dtype.
:param axis: None (all axes), an int or a tuple of ints. With weights only one axis is allowed.
:param weights: None, or weights of x's dtype: x's shape when ``axis`` is None, else 1-D of length
    ``x.shape[axis]``.
:param keepdims: Keep the reduced axes as axes of length one.
:returns: A variable of x's dtype.)doc");
    f.def("mean", &average, py::arg("x"), py::arg("axis") = py::none(), py::arg("weights") = py::none(),
          py::arg("keepdims") = false,
          R"doc(Calculates the (weighted) average of a variable; the same function as :func:`average`.

:param x: Input variable of a floating-point dtype.
:param axis: None (all axes), an int or a tuple of ints.
:param weights: None, or the weights as :func:`average` takes them.
:param keepdims: Keep the reduced axes as axes of length one.
:returns: A variable of x's dtype.)doc");
    f.def(
        "max",
        [](const Variable& x, py::handle axis, bool keepdims) { return F::max(x, to_axes(axis, "max"), keepdims); },
        py::arg("x"), py::arg("axis") = py::none(), py::arg("keepdims") = false,
        R"doc(Maximum of the elements of a variable over the given axes.

The gradient flows to every element equal to the result, as in Chainer. An empty reduction raises
``ValueError``.

:param x: Input variable of a floating-point dtype.
:param axis: None (all axes), an int or a tuple of ints.
:param keepdims: Keep the reduced axes as axes of length one.
:returns: A variable of x's dtype.)doc");
    f.def(
        "min",
        [](const Variable& x, py::handle axis, bool keepdims) { return F::min(x, to_axes(axis, "min"), keepdims); },
        py::arg("x"), py::arg("axis") = py::none(), py::arg("keepdims") = false,
        R"doc(Minimum of the elements of a variable over the given axes.

The gradient flows to every element equal to the result, as in Chainer. An empty reduction raises
``ValueError``.

:param x: Input variable of a floating-point dtype.
:param axis: None (all axes), an int or a tuple of ints.
:param keepdims: Keep the reduced axes as axes of length one.
:returns: A variable of x's dtype.)doc");
    f.def(
        "prod",
        [](const Variable& x, py::handle axis, bool keepdims) { return F::prod(x, to_axes(axis, "prod"), keepdims); },
        py::arg("x"), py::arg("axis") = py::none(), py::arg("keepdims") = false,
        R"doc(Product of the elements of a variable over the given axes.

The gradient is exact also where ``x`` has zeros; double backprop needs no zeros.

:param x: Input variable of a floating-point dtype.
:param axis: None (all axes), an int or a tuple of ints.
:param keepdims: Keep the reduced axes as axes of length one.
:returns: A variable of x's dtype.)doc");
    f.def(
        "logsumexp", [](const Variable& x, py::handle axis) { return F::logsumexp(x, to_axes(axis, "logsumexp")); },
        py::arg("x"), py::arg("axis") = py::none(),
        R"doc(Log-sum-exp of a variable over the given axes, ``log(sum(exp(x), axis))``, computed stably.

:param x: Input variable of a floating-point dtype.
:param axis: None (all axes), an int or a tuple of ints.
:returns: A variable of x's dtype without the reduced axes.)doc");
    f.def("argmax", &F::argmax, py::arg("x"), py::arg("axis") = py::none(),
          R"doc(Returns the index of the first maximum value along an axis.

:param x: Input variable of a floating-point dtype.
:param axis: The axis; None takes the flattened ``x``.
:returns: An int32 variable that does not require grad (not differentiable).)doc");
    f.def("argmin", &F::argmin, py::arg("x"), py::arg("axis") = py::none(),
          R"doc(Returns the index of the first minimum value along an axis.

:param x: Input variable of a floating-point dtype.
:param axis: The axis; None takes the flattened ``x``.
:returns: An int32 variable that does not require grad (not differentiable).)doc");
    f.def("cumsum", &F::cumsum, py::arg("x"), py::arg("axis") = py::none(),
          R"doc(Cumulative (inclusive prefix) sum of the elements along an axis.

:param x: Input variable of a floating-point dtype.
:param axis: The axis; None sums over the flattened ``x`` (a 1-D result).
:returns: A variable of x's dtype.)doc");
}

void bind_elementwise(py::module_& f) {
    using Unary = Variable (*)(const Variable&);
    f.def("exp", static_cast<Unary>(&F::exp), py::arg("x"),
          R"doc(Elementwise exponential function.

:param x: Input variable of a floating-point dtype.
:returns: A variable of x's shape and dtype.)doc");
    f.def("log", static_cast<Unary>(&F::log), py::arg("x"),
          R"doc(Elementwise natural logarithm function.

:param x: Input variable of a floating-point dtype.
:returns: A variable of x's shape and dtype.)doc");
    def_unary_float(f,
                    {
                        {"log1p", &F::log1p,
                         R"doc(Elementwise natural logarithm plus one function, ``log(1 + x)``, accurate near 0.)doc"},
                        {"log2", &F::log2, R"doc(Elementwise logarithm function to the base 2.)doc"},
                        {"log10", &F::log10, R"doc(Elementwise logarithm function to the base 10.)doc"},
                        {"sqrt", &F::sqrt, R"doc(Elementwise square root function.)doc"},
                        {"rsqrt", &F::rsqrt, R"doc(Elementwise reciprocal square root function ``1 / sqrt(x)``.)doc"},
                        {"square", &F::square, R"doc(Elementwise square function ``x * x``.)doc"},
                    });
    // Chainer names its one argument `self` (absolute is also Variable.__abs__).
    f.def("absolute", &F::absolute, py::arg("self"),
          R"doc(Elementwise absolute value function; the gradient is ``sign(x)`` (0 at 0).

:param self: Input variable of a floating-point dtype.
:returns: A variable of the input's shape and dtype.)doc");
    def_unary_float(
        f,
        {
            {"sin", &F::sin, R"doc(Elementwise sine function.)doc"},
            {"cos", &F::cos, R"doc(Elementwise cosine function.)doc"},
            {"tan", &F::tan, R"doc(Elementwise tangent function.)doc"},
            {"arctan", &F::arctan, R"doc(Elementwise arctangent function.)doc"},
            {"sinh", &F::sinh, R"doc(Elementwise hyperbolic sine function.)doc"},
            {"cosh", &F::cosh, R"doc(Elementwise hyperbolic cosine function.)doc"},
            {"erf", &F::erf, R"doc(Elementwise error function.)doc"},
            {"expm1", &F::expm1,
             R"doc(Elementwise exponential minus one function, ``exp(x) - 1``, accurate near 0.)doc"},
            {"arcsin", &F::arcsin, R"doc(Elementwise arcsine function.)doc"},
            {"arccos", &F::arccos, R"doc(Elementwise arccosine function.)doc"},
            {"erfc", &F::erfc,
             R"doc(Elementwise complementary error function ``1 - erf(x)``, accurate for large ``x``.)doc"},
            {"ndtr", &F::ndtr,
             R"doc(Elementwise cumulative distribution function of the standard normal distribution.)doc"},
            {"erfcx", &F::erfcx, R"doc(Elementwise scaled complementary error function ``exp(x ** 2) * erfc(x)``.)doc"},
            {"lgamma", &F::lgamma, R"doc(Logarithm of the absolute value of the gamma function, elementwise.)doc"},
            {"digamma", &F::digamma,
             R"doc(Elementwise digamma function ``psi(x)``, the derivative of :func:`lgamma`.)doc"},
        });
    f.def("polygamma", &F::polygamma, py::arg("n"), py::arg("x"),
          R"doc(Polygamma function: the ``n``-th derivative of the digamma function at ``x``.

:param n: Integer array or variable of the orders (not differentiated).
:param x: Floating-point input variable; n and x broadcast.
:returns: A variable of x's dtype.)doc");
    def_unary_float(
        f,
        {
            {"log_ndtr", &F::log_ndtr,
             R"doc(Logarithm of the cumulative distribution function of the standard normal distribution, elementwise.)doc"},
        });
    f.def("ndtri", &F::ndtri, py::arg("x"),
          R"doc(Elementwise inverse of :func:`ndtr`, defined on ``[0, 1]``.

:param x: Input variable of a floating-point dtype. Outside ``[0, 1]`` the result is NaN, at the ends
    it is infinite.
:returns: A variable of x's shape and dtype.)doc");
    f.def("erfinv", &F::erfinv, py::arg("x"),
          R"doc(Elementwise inverse error function, defined on ``[-1, 1]``.

:param x: Input variable of a floating-point dtype. Outside ``[-1, 1]`` the result is NaN, at the ends
    it is infinite.
:returns: A variable of x's shape and dtype.)doc");
    f.def("arctan2", &F::arctan2, py::arg("x1"), py::arg("x2"),
          R"doc(Elementwise arctangent of ``x1 / x2`` in the quadrant of ``(x2, x1)``.

:param x1: The y-coordinates.
:param x2: The x-coordinates; x1 and x2 broadcast and share a floating-point dtype.
:returns: The angles in radians.)doc");
    f.def("fmod", &F::fmod, py::arg("x"), py::arg("divisor"),
          R"doc(Elementwise remainder of division with the sign of the dividend, as ``numpy.fmod``.

:param x: The dividend.
:param divisor: The divisor; x and divisor broadcast and share a floating-point dtype.
:returns: The remainder.)doc");
    def_unary_float(
        f,
        {
            {"floor", &F::floor,
             R"doc(Elementwise floor function. Not differentiable: the result does not require grad.)doc"},
            {"ceil", &F::ceil,
             R"doc(Elementwise ceiling function. Not differentiable: the result does not require grad.)doc"},
            {"fix", &F::fix,
             R"doc(Elementwise rounding toward zero. Not differentiable: the result does not require grad.)doc"},
            {"sign", &F::sign,
             R"doc(Elementwise sign function (-1, 0 or 1). Not differentiable: the result does not require grad.)doc"},
        });
    f.def("clip", &F::clip, py::arg("x"), py::arg("x_min"), py::arg("x_max"),
          R"doc(Clips (limits) elements of the input: ``min(max(x, x_min), x_max)``.

The gradient passes where ``x_min <= x <= x_max``.

:param x: Input variable of a floating-point dtype.
:param x_min: The lower bound, or None. At least one bound must be given and ``x_min < x_max``
    (``ValueError``).
:param x_max: The upper bound, or None.
:returns: A variable of x's shape and dtype.)doc");
    f.def("maximum", &F::maximum, py::arg("x1"), py::arg("x2"),
          R"doc(Elementwise maximum of two variables, with broadcasting; ties send the gradient to ``x1``.

:param x1: Input variable.
:param x2: Input variable of x1's dtype.
:returns: The elementwise maximum.)doc");
    f.def("minimum", &F::minimum, py::arg("x1"), py::arg("x2"),
          R"doc(Elementwise minimum of two variables, with broadcasting; ties send the gradient to ``x1``.

:param x1: Input variable.
:param x2: Input variable of x1's dtype.
:returns: The elementwise minimum.)doc");
    f.def("squared_difference", &F::squared_difference, py::arg("x1"), py::arg("x2"),
          R"doc(Squared difference of two variables, ``(x1 - x2) ** 2`` elementwise.

:param x1: Input variable.
:param x2: Input variable of x1's shape (``DimensionError`` otherwise) and dtype.
:returns: A variable of the inputs' shape.)doc");
    f.def("batch_l2_norm_squared", &F::batch_l2_norm_squared, py::arg("x"),
          R"doc(Squared L2 norm of each sample: ``sum(x.reshape(len(x), -1) ** 2, axis=1)``.

:param x: Input variable of at least one dimension; axis 0 is the batch axis.
:returns: A variable of shape ``(len(x),)``.)doc");
    f.def("linear_interpolate", &F::linear_interpolate, py::arg("p"), py::arg("x"), py::arg("y"),
          R"doc(Elementwise linear interpolation ``p * x + (1 - p) * y``.

:param p: The weights.
:param x: The first values.
:param y: The second values; p, x and y share one shape and dtype.
:returns: The interpolated variable.)doc");
    f.def("bias", &F::bias, py::arg("x"), py::arg("y"), py::arg("axis") = 1,
          R"doc(Elementwise summation with broadcasting: ``x + y`` with ``y`` broadcast along the axes of ``x``.

:param x: Input variable.
:param y: Input variable whose shape equals ``x.shape[axis:axis + y.ndim]`` (``DimensionError``
    otherwise).
:param axis: The first axis of ``x`` that ``y`` is aligned with.
:returns: A variable of x's shape.)doc");
    f.def("scale", &F::scale, py::arg("x"), py::arg("y"), py::arg("axis") = 1,
          R"doc(Elementwise product with broadcasting: ``x * y`` with ``y`` broadcast along the axes of ``x``.

:param x: Input variable.
:param y: Input variable whose shape equals ``x.shape[axis:axis + y.ndim]`` (``DimensionError``
    otherwise).
:param axis: The first axis of ``x`` that ``y`` is aligned with.
:returns: A variable of x's shape.)doc");
    // Chainer's identity(*inputs) / add(*xs): one Variable for one input, else a tuple.
    f.def(
        "identity",
        [](const py::args& inputs) -> py::object {
            std::vector<Variable> ys = F::identity(to_variables(inputs));
            return ys.size() == 1 ? py::cast(std::move(ys[0])) : py::object(to_tuple(std::move(ys)));
        },
        R"doc(Just returns the input variables, called as ``identity(x1, x2, ...)``.

The results are new variables over the same arrays; gradients pass through unchanged.

:param inputs: Input variables (positional).
:returns: One variable for one input, else a tuple of variables.)doc");
    f.def(
        "add",
        [](const py::args& xs) {
            const std::vector<Variable> vars = to_variables(xs);
            RENSA_CHECK(!vars.empty(), ValueError, "add: needs at least one input");
            Variable y = vars[0];
            for (size_t i = 1; i < vars.size(); ++i) {
                y = F::add(y, vars[i]);
            }
            return y;
        },
        R"doc(Elementwise sum of the input variables, called as ``add(x1, x2, ...)``.

:param xs: Input variables (positional, at least one); they broadcast (numpy's rules).
:returns: The sum.)doc");
}

}  // namespace

void bind_math(py::module_& f) {
    bind_reductions(f);
    bind_elementwise(f);
}

void bind_math_products(py::module_& f) {
    f.def("matmul", &F::matmul, py::arg("a"), py::arg("b"), py::arg("transa") = false, py::arg("transb") = false,
          R"doc(Computes the matrix multiplication of two arrays, as ``numpy.matmul``.

:param a: The left operand; batch axes broadcast.
:param b: The right operand, of a's dtype.
:param transa: Transpose the last two axes of ``a`` first (ignored for a 1-D operand).
:param transb: Transpose the last two axes of ``b`` first (ignored for a 1-D operand).
:returns: The product. Mismatched shapes raise ``DimensionError``.)doc");
    f.def("batch_matmul", &F::batch_matmul, py::arg("a"), py::arg("b"), py::arg("transa") = false,
          py::arg("transb") = false,
          R"doc(Computes the batch matrix multiplications of two sets of arrays.

Each of ``a`` and ``b`` is viewed as ``(batch, rows, prod(rest))`` and multiplied per batch.
Chainer deprecates it in favour of :func:`matmul`.

:param a: The left operands.
:param b: The right operands.
:param transa: Transpose each matrix of ``a`` first.
:param transb: Transpose each matrix of ``b`` first.
:returns: A variable of shape ``(batch, m, n)``.)doc");
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
        py::arg("a"), py::arg("b"), py::arg("axes") = 2,
        R"doc(Returns the tensor dot product of two arrays along specified axes, as ``numpy.tensordot``.

:param a: The first operand.
:param b: The second operand, of a's dtype.
:param axes: An int ``n`` sums over the last ``n`` axes of ``a`` and the first ``n`` of ``b``; a pair
    ``(a_axes, b_axes)`` (each an int or a sequence) sums over those axis pairs.
:returns: The product.)doc");
    // Chainer's einsum(*operands): the subscripts string first.
    f.def(
        "einsum",
        [](const py::args& operands) {
            RENSA_CHECK(
                !operands.empty() && py::isinstance<py::str>(operands[0]), ValueError,
                "einsum: Expect: the subscripts string as the first operand, Actual: ",
                operands.empty() ? std::string("no operands") : py::str(py::type::of(operands[0])).cast<std::string>());
            const auto subscripts = operands[0].cast<std::string>();
            return F::einsum(subscripts, to_variables(operands[py::slice(1, py::ssize_t_cast(operands.size()), 1)]));
        },
        R"doc(Einstein summation, as ``numpy.einsum``: called as ``einsum(subscripts, x1, x2, ...)``.

Supports explicit (``'ij,jk->ik'``) and implicit output, repeated labels (``'ii->'``) and ``...``
for broadcast axes. Bad subscripts raise ``ValueError``, mismatched sizes ``DimensionError``.

:param operands: The subscripts string, then the input variables (positional).
:returns: The result variable.)doc");
}

}  // namespace rensa::python::functions_bind
