// rensa.functions: the normalizations and losses of issue 23 (batch_renormalization,
// decorrelated_batch_normalization,
// black_out, crf1d, argmax_crf1d, cross_covariance, decov and the discriminative loss),
// with Chainer 7's positional order, keyword names and defaults.
#include <string_view>
#include <vector>

#include "python/src/convert/array.h"
#include "python/src/functions/functions.h"

namespace rensa::python::functions_bind {
namespace {

using Release = py::call_guard<py::gil_scoped_release>;

// Chainer raises TypeError('running_mean is required') for a missing statistic.
Variable batch_renormalization(const Variable& x, const Variable& gamma, const Variable& beta, double rmax, double dmax,
                               double eps, const py::object& running_mean, const py::object& running_var, double decay,
                               bool update_statistics) {
    if (running_mean.is_none()) throw py::type_error("running_mean is required");
    if (running_var.is_none()) throw py::type_error("running_var is required");
    const F::BatchRenormalizationOptions options{.eps = eps,
                                                 .running_mean = to_array(running_mean),
                                                 .running_var = to_array(running_var),
                                                 .decay = decay,
                                                 .update_statistics = update_statistics};
    py::gil_scoped_release release;
    return F::batch_renormalization(x, gamma, beta, rmax, dmax, options);
}

// (score, path) with the path a list of integer arrays, as Chainer returns it.
py::tuple argmax_crf1d(const Variable& cost, const py::object& xs) {
    const std::vector<Variable> steps = to_variables(xs);
    std::pair<Variable, std::vector<Array>> result;
    {
        py::gil_scoped_release release;
        result = F::argmax_crf1d(cost, steps);
    }
    py::list path;
    for (const Array& p : result.second) path.append(to_numpy(p));
    return py::make_tuple(result.first, path);
}

// Chainer 7 takes decorrelated_batch_normalization's options as keywords only (**kwargs).
Variable decorrelated_batch_normalization(const Variable& x, int64_t groups, double eps, const py::object& running_mean,
                                          const py::object& running_projection, double decay) {
    const F::DecorrelatedBatchNormalizationOptions options{
        .groups = groups,
        .eps = eps,
        .running_mean = to_array_or_undefined(running_mean),
        .running_projection = to_array_or_undefined(running_projection),
        .decay = decay};
    py::gil_scoped_release release;
    return F::decorrelated_batch_normalization(x, options);
}

}  // namespace

void bind_normloss(py::module_& f) {
    f.def("batch_renormalization", &batch_renormalization, py::arg("x"), py::arg("gamma"), py::arg("beta"),
          py::arg("rmax"), py::arg("dmax"), py::arg("eps") = 2e-5, py::arg("running_mean") = py::none(),
          py::arg("running_var") = py::none(), py::arg("decay") = 0.9, py::arg("update_statistics") = false,
          R"doc(Batch renormalization function (Ioffe, 2017).

``y = gamma * (x_hat * r + d) + beta`` with ``x_hat`` the batch-normalized ``x``,
``r = clip(sigma_B / sigma_running, 1 / rmax, rmax)`` and
``d = clip((mu_B - mu_running) / sigma_running, -dmax, dmax)``, both held constant in the gradient.

:param x: Input variable of a floating-point dtype.
:param gamma: Scaling parameter, of shape ``x.shape[1:1 + gamma.ndim]``.
:param beta: Shifting parameter, of gamma's shape.
:param rmax: Upper bound of ``r``.
:param dmax: Upper bound of the absolute value of ``d``.
:param eps: Added to the variance for stability.
:param running_mean: Running mean, an array of gamma's shape (required: ``TypeError`` when None).
:param running_var: Running variance, likewise required.
:param decay: Decay rate of the running statistics.
:param update_statistics: Update ``running_mean`` and ``running_var`` in place.
:returns: A variable of x's shape and dtype.)doc");
    f.def("fixed_batch_renormalization", &F::fixed_batch_renormalization, py::arg("x"), py::arg("gamma"),
          py::arg("beta"), py::arg("mean"), py::arg("var"), py::arg("eps") = 2e-5, Release(),
          R"doc(Batch renormalization in test mode: the same as :func:`fixed_batch_normalization`.

:param x: Input variable of a floating-point dtype.
:param gamma: Scaling parameter.
:param beta: Shifting parameter.
:param mean: Mean to use, of gamma's shape.
:param var: Variance to use, of gamma's shape.
:param eps: Added to the variance for stability.
:returns: A variable of x's shape and dtype.)doc");
    f.def("decorrelated_batch_normalization", &decorrelated_batch_normalization, py::arg("x"), py::kw_only(),
          py::arg("groups") = 16, py::arg("eps") = 2e-5, py::arg("running_mean") = py::none(),
          py::arg("running_projection") = py::none(), py::arg("decay") = 0.9,
          R"doc(Decorrelated batch normalization function (Huang et al., 2018): ZCA whitening per group of channels.

``y = (cov + eps I) ** (-1/2) (x - mean)`` over the batch and spatial axes, for each group of
``C = c / groups`` channels. Chainer's gradient; no double backprop.

:param x: Input ``(b, c, ...)`` of a floating-point dtype; ``c`` divisible by ``groups``.
:param groups: Keyword only: the number of channel groups.
:param eps: Keyword only: added to the covariance's diagonal for stability.
:param running_mean: Keyword only: an array ``(groups, C)`` updated in place with the batch mean, or
    None.
:param running_projection: Keyword only: an array ``(groups, C, C)`` updated in place with the
    whitening matrix, or None.
:param decay: Keyword only: decay rate of the running statistics.
:returns: A variable of x's shape and dtype.)doc");
    f.def("fixed_decorrelated_batch_normalization", &F::fixed_decorrelated_batch_normalization, py::arg("x"),
          py::arg("mean"), py::arg("projection"), py::arg("groups") = 16, Release(),
          R"doc(Decorrelated batch normalization with fixed statistics (test mode): ``y = projection (x - mean)``
per group.

:param x: Input ``(b, c, ...)`` of a floating-point dtype.
:param mean: Mean ``(groups, C)``.
:param projection: Whitening matrices ``(groups, C, C)``, of x's dtype.
:param groups: The number of channel groups.
:returns: A variable of x's shape and dtype.)doc");
    f.def("black_out", &F::black_out, py::arg("x"), py::arg("t"), py::arg("W"), py::arg("samples"),
          py::arg("reduce") = "mean", Release(),
          R"doc(BlackOut loss function (Ji et al., 2016).

``-(log p(t) + sum_s log(1 - p(s)))`` with ``p`` the softmax over the label and the negative
samples.

:param x: Input ``(N, D)``.
:param t: Integer labels ``(N,)``.
:param W: Output embeddings ``(V, D)``.
:param samples: Integer negative samples ``(N, S)``.
:param reduce: ``'mean'`` (0-d) or ``'no'`` (``(N,)``).
:returns: The loss variable.)doc");
    f.def(
        "crf1d",
        [](const Variable& cost, const py::object& xs, const py::object& ys, std::string_view reduce) {
            const std::vector<Variable> x = to_variables(xs), y = to_variables(ys);
            py::gil_scoped_release release;
            return F::crf1d(cost, x, y, reduce);
        },
        py::arg("cost"), py::arg("xs"), py::arg("ys"), py::arg("reduce") = "mean",
        R"doc(Calculates the negative log-likelihood of a linear-chain CRF.

:param cost: Transition costs ``(K, K)``.
:param xs: Scores per time step, ``xs[t]`` of shape ``(B_t, K)``, over sequences sorted by
    decreasing length (``B_t`` non-increasing).
:param ys: Integer labels per time step, ``ys[t]`` of shape ``(B_t,)``.
:param reduce: ``'mean'`` (summed and divided by ``B_0``, 0-d) or ``'no'`` (``(B_0,)``).
:returns: The loss variable.)doc");
    f.def("argmax_crf1d", &argmax_crf1d, py::arg("cost"), py::arg("xs"),
          R"doc(Computes a state that maximizes a joint probability of a linear-chain CRF (Viterbi decoding).

:param cost: Transition costs ``(K, K)``.
:param xs: Scores per time step, ``xs[t]`` of shape ``(B_t, K)``, as :func:`crf1d` takes them.
:returns: A tuple ``(score, path)``: the best score of each sequence ``(B_0,)`` (differentiable) and
    the best path, a list of int64 arrays ``(B_t,)``.)doc");
    f.def("cross_covariance", &F::cross_covariance, py::arg("y"), py::arg("z"), py::arg("reduce") = "half_squared_sum",
          Release(),
          R"doc(Computes the sum-squared cross-covariance penalty between ``y`` and ``z``.

``C = yc^T zc / N`` with ``yc`` and ``zc`` centred over the batch.

:param y: Variable ``(N, I)``.
:param z: Variable ``(N, J)``.
:param reduce: ``'half_squared_sum'`` (``0.5 * sum(C ** 2)``, 0-d) or ``'no'`` (``C``, ``(I, J)``).
:returns: The penalty variable.)doc");
    f.def("decov", &F::decov, py::arg("h"), py::arg("reduce") = "half_squared_sum", Release(),
          R"doc(Computes the DeCov loss of ``h``: the covariance of its units with the diagonal zeroed.

:param h: Variable ``(N, M)``.
:param reduce: ``'half_squared_sum'`` (0-d) or ``'no'`` (``(M, M)``).
:returns: The loss variable.)doc");
    f.def("discriminative_margin_based_clustering_loss", &F::discriminative_margin_based_clustering_loss,
          py::arg("embeddings"), py::arg("labels"), py::arg("delta_v"), py::arg("delta_d"),
          py::arg("max_embedding_dim"), py::arg("norm") = 1, py::arg("alpha") = 1.0, py::arg("beta") = 1.0,
          py::arg("gamma") = 0.001, Release(),
          R"doc(Discriminative loss for instance segmentation (De Brabandere et al., 2017).

:param embeddings: Predicted embeddings ``(N, C, H, W)`` with ``C == max_embedding_dim``.
:param labels: Instance labels ``(N, H, W)``: instance ``k + 1`` for ``k < C``; 0 and others are
    ignored.
:param delta_v: Margin of the variance term.
:param delta_d: Margin of the distance term.
:param max_embedding_dim: The embedding dimension, also the largest number of instances.
:param norm: 1 or 2, the norm used (``ValueError`` otherwise).
:param alpha: Weight of the variance term.
:param beta: Weight of the distance term.
:param gamma: Weight of the regularisation term.
:returns: A tuple of three 0-d variables: the weighted variance, distance and regularisation terms.)doc");
}

}  // namespace rensa::python::functions_bind
