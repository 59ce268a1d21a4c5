// rensa._core.functions, activation family (functions/activation.h).
#include "functions/activation.h"
#include "python/src/functions/functions.h"

namespace rensa::python::functions_bind {

void bind_activation(py::module_& f) {
    f.def("relu", &F::relu, py::arg("x"),
          R"doc(Rectified Linear Unit function: ``max(x, 0)`` elementwise.

:param x: Input variable of a floating-point dtype.
:returns: A variable of x's shape and dtype. Supports double backprop.)doc");
    f.def("leaky_relu", &F::leaky_relu, py::arg("x"), py::arg("slope") = 0.2,
          R"doc(Leaky Rectified Linear Unit function: ``x`` where ``x >= 0``, ``slope * x`` elsewhere.

:param x: Input variable of a floating-point dtype.
:param slope: Slope of the negative part (0.2 by default, as Chainer).
:returns: A variable of x's shape and dtype.)doc");
    f.def("elu", &F::elu, py::arg("x"), py::arg("alpha") = 1.0,
          R"doc(Exponential Linear Unit function: ``x`` where ``x > 0``, ``alpha * (exp(x) - 1)`` elsewhere.

:param x: Input variable of a floating-point dtype.
:param alpha: Coefficient of the negative part.
:returns: A variable of x's shape and dtype.)doc");
    f.def("selu", &F::selu, py::arg("x"), py::arg("alpha") = 1.6732632423543772, py::arg("scale") = 1.0507009873554805,
          R"doc(Scaled Exponential Linear Unit function: ``scale * elu(x, alpha)``.

The defaults are the self-normalising constants of Klambauer et al. (2017).

:param x: Input variable of a floating-point dtype.
:param alpha: Coefficient of the negative part of the ELU.
:param scale: Factor applied to the ELU.
:returns: A variable of x's shape and dtype.)doc");
    f.def("clipped_relu", &F::clipped_relu, py::arg("x"), py::arg("z") = 20.0,
          R"doc(Clipped Rectified Linear Unit function: ``min(max(0, x), z)``.

:param x: Input variable of a floating-point dtype.
:param z: Clipping value.
:returns: A variable of x's shape and dtype.)doc");
    f.def("sigmoid", &F::sigmoid, py::arg("x"),
          R"doc(Elementwise sigmoid function ``1 / (1 + exp(-x))``.

:param x: Input variable of a floating-point dtype.
:returns: A variable of x's shape and dtype.)doc");
    f.def("hard_sigmoid", &F::hard_sigmoid, py::arg("x"),
          R"doc(Elementwise hard sigmoid function: ``clip(0.2 * x + 0.5, 0, 1)``.

:param x: Input variable of a floating-point dtype.
:returns: A variable of x's shape and dtype.)doc");
    f.def("tanh", &F::tanh, py::arg("x"),
          R"doc(Elementwise hyperbolic tangent function.

:param x: Input variable of a floating-point dtype.
:returns: A variable of x's shape and dtype.)doc");
    f.def("softplus", &F::softplus, py::arg("x"), py::arg("beta") = 1.0,
          R"doc(Elementwise softplus function ``log(1 + exp(beta * x)) / beta``, computed without overflow.

:param x: Input variable of a floating-point dtype.
:param beta: Sharpness parameter; the function approaches ``relu`` as it grows.
:returns: A variable of x's shape and dtype.)doc");
    f.def("swish", &F::swish, py::arg("x"), py::arg("beta"),
          R"doc(Swish activation function ``x * sigmoid(beta * x)``.

:param x: Input variable of a floating-point dtype, of shape ``(s_B, s_1, s_2, ..., s_N)``.
:param beta: Learnable parameter of shape ``x.shape[1:1 + beta.ndim]``, broadcast along the other
    axes (``DimensionError`` when it does not fit).
:returns: A variable of x's shape and dtype.)doc");
    f.def("gelu", &F::gelu, py::arg("x"),
          R"doc(Gaussian Error Linear Unit function, the exact form ``x * Phi(x) = 0.5 * x * (1 + erf(x / sqrt(2)))``.

:param x: Input variable of a floating-point dtype.
:returns: A variable of x's shape and dtype.)doc");
    f.def("softmax", &F::softmax, py::arg("x"), py::arg("axis") = 1,
          R"doc(Softmax function ``exp(x) / sum(exp(x), axis)`` along one axis, computed stably.

:param x: Input variable of a floating-point dtype.
:param axis: The axis along which the softmax is taken.
:returns: A variable of x's shape and dtype.)doc");
    f.def("log_softmax", &F::log_softmax, py::arg("x"), py::arg("axis") = 1,
          R"doc(Logarithm of the softmax function, ``x - logsumexp(x, axis)``, computed stably.

:param x: Input variable of a floating-point dtype.
:param axis: The axis along which the log-softmax is taken.
:returns: A variable of x's shape and dtype.)doc");
    f.def("prelu", &F::prelu, py::arg("x"), py::arg("W"),
          R"doc(Parametric ReLU function: ``x`` where ``x >= 0``, ``W * x`` elsewhere.

:param x: Input variable of a floating-point dtype.
:param W: Learnable slopes of x's dtype and shape ``x.shape[1:1 + W.ndim]``, broadcast along the other
    axes.
:returns: A variable of x's shape and dtype.)doc");
    f.def("maxout", &F::maxout, py::arg("x"), py::arg("pool_size"), py::arg("axis") = 1,
          R"doc(Maxout activation: the maximum over groups of ``pool_size`` consecutive entries along ``axis``.

:param x: Input variable of a floating-point dtype.
:param pool_size: Size of each group; it must be positive and divide ``x.shape[axis]`` (``ValueError``
    otherwise).
:param axis: The axis to pool over; it shrinks to ``x.shape[axis] // pool_size``.
:returns: A variable of x's dtype.)doc");
    f.def("lstm", &F::lstm, py::arg("c_prev"), py::arg("x"),
          R"doc(Long Short-Term Memory unit as an activation function.

``x`` of shape ``(batch, 4 * units, ...)`` holds the gates ``a, i, f, o`` interleaved along axis 1
(``x.reshape(batch, units, 4, ...)[:, :, k]``), as in Chainer. The cell computes
``c = tanh(a) * sigmoid(i) + sigmoid(f) * c_prev`` and ``h = sigmoid(o) * tanh(c)``.

:param c_prev: Previous cell state of shape ``(batch, units, ...)``. It may have more rows than ``x``
    (shrinking batches): the extra rows pass into ``c`` unchanged.
:param x: Gate pre-activations of shape ``(batch, 4 * units, ...)``.
:returns: A tuple ``(c, h)``; ``h`` has x's rows.)doc");
    f.def("relu6", &F::relu6, py::arg("x"),
          R"doc(ReLU6 function ``min(max(0, x), 6)``, i.e. ``clipped_relu(x, 6)``.

:param x: Input variable of a floating-point dtype.
:returns: A variable of x's shape and dtype.)doc");
    f.def("crelu", &F::crelu, py::arg("x"), py::arg("axis") = 1,
          R"doc(Concatenated ReLU: ``concat((relu(x), relu(-x)), axis)``.

:param x: Input variable of a floating-point dtype.
:param axis: The axis along which the two halves are joined; its length doubles.
:returns: A variable of x's dtype.)doc");
}

}  // namespace rensa::python::functions_bind
