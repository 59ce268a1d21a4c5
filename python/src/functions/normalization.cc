// rensa.functions: batch, fixed batch, layer, group and local response normalization, and
// normalize. running_mean / running_var given as numpy arrays are updated in place, as in
// Chainer (the array is wrapped, not copied).
#include "python/src/functions/functions.h"

namespace rensa::python::functions_bind {
namespace {

using Release = py::call_guard<py::gil_scoped_release>;

Variable batch_normalization(const Variable& x, const Variable& gamma, const Variable& beta, double eps,
                             const py::object& running_mean, const py::object& running_var, double decay,
                             const std::optional<Int32s>& axis) {
    const F::BatchNormalizationOptions options{.eps = eps,
                                               .running_mean = to_array_or_undefined(running_mean),
                                               .running_var = to_array_or_undefined(running_var),
                                               .decay = decay,
                                               .axis = to_axes(axis)};
    py::gil_scoped_release release;
    return F::batch_normalization(x, gamma, beta, options);
}

}  // namespace

void bind_normalization(py::module_& f) {
    // Chainer takes the options as **kwargs: keyword-only here.
    f.def("batch_normalization", &batch_normalization, py::arg("x"), py::arg("gamma"), py::arg("beta"), py::kw_only(),
          py::arg("eps") = 2e-5, py::arg("running_mean") = py::none(), py::arg("running_var") = py::none(),
          py::arg("decay") = 0.9, py::arg("axis") = py::none(),
          R"doc(Batch normalization function with batch statistics (training mode).

``y = (x - mean) / sqrt(var + eps) * gamma + beta``, ``mean`` and ``var`` taken over the ``axis``
axes. float16 inputs are normalized with float32 statistics.

:param x: Input variable of a floating-point dtype.
:param gamma: Scaling parameter, of x's shape without the reduced axes.
:param beta: Shifting parameter, of gamma's shape.
:param eps: Keyword only: added to the variance for stability.
:param running_mean: Keyword only: an array of gamma's shape updated in place (the array is wrapped,
    not copied) as ``decay * running_mean + (1 - decay) * mean``, or None.
:param running_var: Keyword only: likewise with the unbiased variance, or None.
:param decay: Keyword only: decay rate of the running statistics.
:param axis: Keyword only: the axes to reduce over, an int or a tuple; None takes axis 0 and the
    axes after gamma's (``x.shape[1:1 + gamma.ndim]`` is gamma's shape).
:returns: A variable of x's shape and dtype. Supports double backprop.)doc");
    f.def(
        "fixed_batch_normalization",
        [](const Variable& x, const Variable& gamma, const Variable& beta, const Variable& mean, const Variable& var,
           double eps, const std::optional<Int32s>& axis) {
            return F::fixed_batch_normalization(x, gamma, beta, mean, var, eps, to_axes(axis));
        },
        py::arg("x"), py::arg("gamma"), py::arg("beta"), py::arg("mean"), py::arg("var"), py::arg("eps") = 2e-5,
        py::arg("axis") = py::none(), Release(),
        R"doc(Batch normalization function with fixed statistics (test mode).

``y = (x - mean) / sqrt(var + eps) * gamma + beta``.

:param x: Input variable of a floating-point dtype.
:param gamma: Scaling parameter.
:param beta: Shifting parameter.
:param mean: Mean to use, of gamma's shape.
:param var: Variance to use, of gamma's shape.
:param eps: Added to the variance for stability.
:param axis: The axes the statistics were taken over, as :func:`batch_normalization` takes them.
:returns: A variable of x's shape and dtype.)doc");
    f.def("layer_normalization", &F::layer_normalization, py::arg("x"), py::arg("gamma"), py::arg("beta"),
          py::arg("eps") = 1e-5, Release(),
          R"doc(Layer normalization: each row of ``x`` normalized over axis 1, then ``* gamma + beta``.

:param x: Input ``(batch, units)`` of a floating-point dtype.
:param gamma: Scaling parameter ``(units,)``.
:param beta: Shifting parameter ``(units,)``.
:param eps: Added to the variance for stability.
:returns: A variable of x's shape and dtype.)doc");
    f.def("group_normalization", &F::group_normalization, py::arg("x"), py::arg("groups"), py::arg("gamma"),
          py::arg("beta"), py::arg("eps") = 1e-5, Release(),
          R"doc(Group normalization: the channels of each sample split into groups, each normalized.

:param x: Input ``(n, c, ...)`` of a floating-point dtype, at least two dimensions.
:param groups: The number of groups; it must divide ``c``.
:param gamma: Scaling parameter ``(c,)``.
:param beta: Shifting parameter ``(c,)``.
:param eps: Added to the variance for stability.
:returns: A variable of x's shape and dtype.)doc");
    f.def(
        "local_response_normalization",
        [](const Variable& x, int64_t n, double k, double alpha, double beta) {
            return F::local_response_normalization(x, {.n = n, .k = k, .alpha = alpha, .beta = beta});
        },
        py::arg("x"), py::arg("n") = 5, py::arg("k") = 2.0, py::arg("alpha") = 1e-4, py::arg("beta") = 0.75, Release(),
        R"doc(Local response normalization across neighbouring channels.

``y = x / (k + alpha * sum of x ** 2 over the n neighbouring channels) ** beta``. No double
backprop, as in Chainer.

:param x: Input ``(n, c, ...)`` of a floating-point dtype.
:param n: Width of the channel window.
:param k: Smoothing parameter.
:param alpha: Normalizer scaling parameter.
:param beta: Normalizer power parameter.
:returns: A variable of x's shape and dtype.)doc");
    f.def(
        "normalize",
        [](const Variable& x, double eps, const Int32s& axis) {
            return F::normalize(x, eps, *to_axes(std::optional<Int32s>{axis}));
        },
        py::arg("x"), py::arg("eps") = 1e-5, py::arg("axis") = 1, Release(),
        R"doc(Normalizes an input by its L2 norm: ``y = x / (sqrt(sum(x ** 2, axis)) + eps)``.

:param x: Input variable of a floating-point dtype.
:param eps: Added to the norm to avoid division by zero.
:param axis: The axis, or a tuple of axes, along which the norm is taken.
:returns: A variable of x's shape and dtype.)doc");
}

}  // namespace rensa::python::functions_bind
