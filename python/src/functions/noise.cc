// rensa._core.functions, noise family (functions/noise.h): dropout, gaussian, zoneout,
// gumbel_softmax, with Chainer's keyword-only mask / eps arguments.
#include <utility>

#include "autograd/modes.h"
#include "core/error.h"
#include "core/ops/random.h"
#include "functions/array.h"
#include "functions/noise.h"
#include "python/src/functions/functions.h"

namespace rensa::python::functions_bind {

void bind_noise(py::module_& f) {
    // Chainer's dropout(x, ratio=.5, *, mask=None, return_mask=False).
    f.def(
        "dropout",
        [](const Variable& x, double ratio, py::object mask, bool return_mask) -> py::object {
            if (!mask.is_none()) {
                Variable y = F::dropout(x, ratio, to_array(mask));
                return return_mask ? py::object(py::make_tuple(y, mask)) : py::cast(std::move(y));
            }
            if (return_mask) {
                auto [y, used] = F::dropout_with_mask(x, ratio);
                return py::make_tuple(std::move(y), array_or_none(used));
            }
            return py::cast(F::dropout(x, ratio));
        },
        py::arg("x"), py::arg("ratio") = 0.5, py::kw_only(), py::arg("mask") = py::none(),
        py::arg("return_mask") = false,
        R"doc(Drops elements of the input at random.

In training (``chainer.config.train``) each element is zeroed with probability ``ratio`` and the
rest are scaled by ``1 / (1 - ratio)``; otherwise ``x`` is returned as it is. The noise comes from
rensa's seeded generator.

:param x: Input variable of a floating-point dtype.
:param ratio: Dropout ratio, in ``[0, 1)``.
:param mask: Keyword only: a mask of x's shape and dtype, elements 0 or ``1 / (1 - ratio)``, used as it
    is instead of a random one.
:param return_mask: Keyword only: also return the mask used (None outside training).
:returns: The output variable, or ``(y, mask)`` with ``return_mask=True``.)doc");
    // Chainer's gaussian(mean, ln_var, *, eps=None, return_eps=False). For return_eps in
    // training the noise is drawn here (rensa's seeded generator) so that it can be returned;
    // outside training y is mean and eps None, as C++'s gaussian does.
    f.def(
        "gaussian",
        [](const Variable& mean, const Variable& ln_var, py::object eps, bool return_eps) -> py::object {
            if (!eps.is_none()) {
                Variable y = F::gaussian(mean, ln_var, to_array(eps));
                return return_eps ? py::object(py::make_tuple(std::move(y), eps)) : py::cast(std::move(y));
            }
            if (!return_eps) {
                return py::cast(F::gaussian(mean, ln_var));
            }
            if (!config().train) {
                return py::make_tuple(F::gaussian(mean, ln_var), py::none());
            }
            const Array noise = ops::normal(mean.shape(), 0.0, 1.0, mean.dtype(), mean.device());
            return py::make_tuple(F::gaussian(mean, ln_var, noise), to_numpy(noise));
        },
        py::arg("mean"), py::arg("ln_var"), py::kw_only(), py::arg("eps") = py::none(), py::arg("return_eps") = false,
        R"doc(Gaussian sampling function ``mean + exp(ln_var / 2) * eps`` with ``eps ~ N(0, 1)``.

Outside training the result is ``mean`` itself unless ``eps`` is given.

:param mean: Mean of the distribution.
:param ln_var: Logarithm of the variance, of mean's shape and dtype.
:param eps: Keyword only: the standard normal noise to use (mean's shape and dtype).
:param return_eps: Keyword only: also return the noise used (None outside training).
:returns: The sampled variable, or ``(y, eps)`` with ``return_eps=True``.)doc");
    // Chainer's zoneout(h, x, ratio=.5): x outside training.
    f.def("zoneout", &F::zoneout, py::arg("h"), py::arg("x"), py::arg("ratio") = 0.5,
          R"doc(Zoneout: in training each element is h's with probability ``ratio``, else x's.

Gradients flow to the element chosen. Outside training ``x`` is returned as it is.

:param h: Previous state.
:param x: New state, of h's shape and floating-point dtype.
:param ratio: Probability of keeping the previous state, in ``[0, 1]``.
:returns: A variable of x's shape and dtype.)doc");
    f.def("gumbel_softmax", &F::gumbel_softmax, py::arg("log_pi"), py::arg("tau") = 0.1, py::arg("axis") = 1,
          R"doc(Gumbel-Softmax sampling: ``softmax((log_pi + g) / tau, axis)`` with Gumbel noise ``g``.

A differentiable relaxation of sampling from the categorical distribution ``log_pi``.

:param log_pi: Log-probabilities (unnormalised) of a floating-point dtype.
:param tau: Positive temperature (``ValueError`` otherwise); small values give near one-hot samples.
:param axis: The axis of the categories.
:returns: A variable of log_pi's shape and dtype.)doc");
}

}  // namespace rensa::python::functions_bind
