// rensa.functions: the loss functions (squared_error and absolute_error included). Labels are
// integer Variables or arrays (an int32 numpy array converts like any other array).
#include <string>
#include <string_view>
#include <utility>

#include "python/src/functions/functions.h"

namespace rensa::python::functions_bind {
namespace {

using Release = py::call_guard<py::gil_scoped_release>;

Variable softmax_cross_entropy(const Variable& x, const Variable& t, bool normalize, bool cache_score,
                               const py::object& class_weight, int64_t ignore_label, std::string reduce,
                               bool enable_double_backprop, std::string soft_target_loss) {
    const F::SoftmaxCrossEntropyOptions options{.normalize = normalize,
                                                .cache_score = cache_score,
                                                .class_weight = to_array_or_undefined(class_weight),
                                                .ignore_label = ignore_label,
                                                .reduce = std::move(reduce),
                                                .enable_double_backprop = enable_double_backprop,
                                                .soft_target_loss = std::move(soft_target_loss)};
    py::gil_scoped_release release;
    return F::softmax_cross_entropy(x, t, options);
}

// Chainer's sampler: a callable taking the shape tuple and returning integer ids. Its result
// is copied while the GIL is held, so no numpy-backed array is freed without the GIL.
// With return_samples=True the drawn array comes back too, column 0 set to t as in Chainer.
py::object negative_sampling(const Variable& x, const Variable& t, const Variable& W, const py::function& sampler,
                             int64_t sample_size, std::string_view reduce, bool return_samples) {
    py::object drawn;
    const F::NegativeSampler call_sampler = [&sampler, &drawn](const Shape& shape) {
        py::gil_scoped_acquire gil;
        py::tuple py_shape(static_cast<size_t>(shape.size()));
        for (int i = 0; i < shape.size(); ++i) py_shape[static_cast<size_t>(i)] = shape[i];
        drawn = sampler(py_shape);
        return to_array(drawn).copy();
    };
    Variable loss;
    {
        py::gil_scoped_release release;
        loss = F::negative_sampling(x, t, W, call_sampler, sample_size, reduce);
    }
    if (!return_samples) return py::cast(std::move(loss));
    drawn[py::make_tuple(py::slice(py::none(), py::none(), py::none()), 0)] = to_numpy(t.array());
    return py::make_tuple(std::move(loss), drawn);
}

Variable ctc(const std::vector<Variable>& x, const Variable& t, int64_t blank_symbol,
             const std::optional<Variable>& input_length, const std::optional<Variable>& label_length,
             std::string_view reduce) {
    return F::connectionist_temporal_classification(x, t, blank_symbol,
                                                    {.input_length = to_variable_or_undefined(input_length),
                                                     .label_length = to_variable_or_undefined(label_length),
                                                     .reduce = reduce});
}

void bind_regression(py::module_& f) {
    f.def("mean_squared_error", &F::mean_squared_error, py::arg("x0"), py::arg("x1"), Release(),
          R"doc(Mean squared error function: ``mean((x0 - x1) ** 2)`` over every element.

:param x0: Input variable.
:param x1: Input variable of x0's shape and dtype.
:returns: A 0-d variable of x0's dtype.)doc");
    f.def("mean_absolute_error", &F::mean_absolute_error, py::arg("x0"), py::arg("x1"), Release(),
          R"doc(Mean absolute error function: the mean of ``abs(x0 - x1)`` over every element.

:param x0: Input variable.
:param x1: Input variable of x0's shape and dtype.
:returns: A 0-d variable of x0's dtype.)doc");
    f.def("huber_loss", &F::huber_loss, py::arg("x"), py::arg("t"), py::arg("delta"),
          py::arg("reduce") = "sum_along_second_axis", Release(),
          R"doc(Computes the Huber loss: ``0.5 * d ** 2`` where ``abs(d) <= delta``, else
``delta * (abs(d) - 0.5 * delta)``, with ``d = x - t``.

:param x: Prediction variable.
:param t: Target variable of x's shape and dtype.
:param delta: The threshold between the quadratic and the linear part.
:param reduce: ``'sum_along_second_axis'`` (sums axis 1; x needs two dimensions or more) or ``'no'``
    (the elementwise loss).
:returns: The loss variable.)doc");
    f.def("gaussian_kl_divergence", &F::gaussian_kl_divergence, py::arg("mean"), py::arg("ln_var"),
          py::arg("reduce") = "sum", Release(),
          R"doc(Computes the KL-divergence of a Gaussian from the standard normal:
``KL(N(mean, exp(ln_var)) || N(0, 1))``.

Elementwise ``(mean ** 2 + exp(ln_var) - ln_var - 1) / 2``.

:param mean: Mean of the Gaussian.
:param ln_var: Logarithm of its variance, of mean's shape and dtype.
:param reduce: ``'sum'``, ``'mean'`` or ``'no'`` (elementwise).
:returns: The divergence.)doc");
    f.def("bernoulli_nll", &F::bernoulli_nll, py::arg("x"), py::arg("y"), py::arg("reduce") = "sum", Release(),
          R"doc(Computes the negative log-likelihood of a Bernoulli distribution: ``softplus(y) - x * y``.

:param x: Observed values.
:param y: Logits (pre-sigmoid parameters) of the distribution, of x's shape and dtype.
:param reduce: ``'sum'`` or ``'no'`` (elementwise).
:returns: The negative log-likelihood.)doc");
    f.def("gaussian_nll", &F::gaussian_nll, py::arg("x"), py::arg("mean"), py::arg("ln_var"), py::arg("reduce") = "sum",
          Release(),
          R"doc(Computes the negative log-likelihood of a Gaussian distribution ``N(mean, exp(ln_var))``.

Elementwise ``(ln_var + log(2 pi)) / 2 + (x - mean) ** 2 * exp(-ln_var) / 2``.

:param x: Observed values.
:param mean: Mean of the distribution.
:param ln_var: Logarithm of its variance.
:param reduce: ``'sum'`` or ``'no'`` (elementwise).
:returns: The negative log-likelihood.)doc");
}

}  // namespace

void bind_loss(py::module_& f) {
    f.def("squared_error", &F::squared_error, py::arg("x0"), py::arg("x1"), Release(),
          R"doc(Squared error function: ``(x0 - x1) ** 2`` elementwise.

:param x0: Input variable of a floating-point dtype.
:param x1: Input variable of x0's shape and dtype.
:returns: A variable of the inputs' shape. Double-differentiable.)doc");
    f.def("absolute_error", &F::absolute_error, py::arg("x0"), py::arg("x1"), Release(),
          R"doc(Absolute error function: ``abs(x0 - x1)`` elementwise.

The gradient is ``sign(x0 - x1)`` (0 where they are equal).

:param x0: Input variable of a floating-point dtype.
:param x1: Input variable of x0's shape and dtype.
:returns: A variable of the inputs' shape.)doc");
    f.def("softmax_cross_entropy", &softmax_cross_entropy, py::arg("x"), py::arg("t"), py::arg("normalize") = true,
          py::arg("cache_score") = true, py::arg("class_weight") = py::none(), py::arg("ignore_label") = -1,
          py::arg("reduce") = "mean", py::arg("enable_double_backprop") = false,
          py::arg("soft_target_loss") = "cross-entropy",
          R"doc(Computes cross entropy loss for pre-softmax activations.

The cross entropy of ``softmax(x)`` along axis 1 against integer labels. A float ``t`` of x's shape
is a soft target, a distribution over axis 1; then ``normalize``, ``class_weight`` and
``ignore_label`` do not apply.

:param x: Pre-softmax scores ``(N, C, ...)`` of a floating-point dtype.
:param t: Integer labels ``(N, ...)`` in ``[0, C)`` or ``ignore_label`` (``ValueError`` otherwise), or
    soft targets.
:param normalize: With ``reduce='mean'``, divide by the number of non-ignored labels (True) or by the
    batch size (False).
:param cache_score: Keep ``softmax(x)`` from the forward pass for backward.
:param class_weight: Weights of the classes ``(C,)``, or None.
:param ignore_label: Labels equal to it count 0.
:param reduce: ``'mean'`` (a 0-d loss) or ``'no'`` (per-sample losses of t's shape).
:param enable_double_backprop: Compose differentiable functions so that the gradient can be
    differentiated again (slower); otherwise one fused node, as in Chainer.
:param soft_target_loss: For soft targets: ``'cross-entropy'`` or ``'kl-divergence'``.
:returns: The loss variable.)doc");
    f.def(
        "sigmoid_cross_entropy",
        [](const Variable& x, const Variable& t, bool normalize, std::string reduce) {
            return F::sigmoid_cross_entropy(x, t, {.normalize = normalize, .reduce = std::move(reduce)});
        },
        py::arg("x"), py::arg("t"), py::arg("normalize") = true, py::arg("reduce") = "mean", Release(),
        R"doc(Computes cross entropy loss for pre-sigmoid activations.

:param x: Pre-sigmoid scores of a floating-point dtype.
:param t: Integer labels of x's shape: 0, 1, or -1 to ignore.
:param normalize: With ``reduce='mean'``, divide by the number of labels other than -1 (True) or by
    ``x.shape[0]`` (False).
:param reduce: ``'mean'`` (a 0-d loss) or ``'no'`` (the elementwise loss, x's shape).
:returns: The loss variable. Supports double backprop.)doc");
    bind_regression(f);
    f.def("hinge", &F::hinge, py::arg("x"), py::arg("t"), py::arg("norm") = "L1", py::arg("reduce") = "mean", Release(),
          R"doc(Computes the hinge loss for a one-of-many classification task.

Elementwise ``max(0, 1 + s * x)`` with ``s = -1`` at the label and ``+1`` elsewhere, squared for
``norm='L2'``.

:param x: Scores ``(N, K)``.
:param t: Integer labels ``(N,)``.
:param norm: ``'L1'`` or ``'L2'`` (``NotImplementedError`` otherwise).
:param reduce: ``'mean'`` (summed and divided by N, 0-d) or ``'no'`` (``(N, K)``).
:returns: The loss variable.)doc");
    f.def("contrastive", &F::contrastive, py::arg("x0"), py::arg("x1"), py::arg("y"), py::arg("margin") = 1.0,
          py::arg("reduce") = "mean", Release(),
          R"doc(Computes the contrastive loss of pairs:
``(y * d ** 2 + (1 - y) * max(margin - d, 0) ** 2) / 2`` with ``d = norm(x0 - x1)`` per row.

:param x0: First inputs ``(N, D)``.
:param x1: Second inputs ``(N, D)``.
:param y: Integer labels ``(N,)``, 1 for a similar pair.
:param margin: Positive margin (``ValueError`` otherwise).
:param reduce: ``'mean'`` (summed and divided by N, 0-d) or ``'no'`` (``(N,)``).
:returns: The loss variable.)doc");
    f.def("triplet", &F::triplet, py::arg("anchor"), py::arg("positive"), py::arg("negative"), py::arg("margin") = 0.2,
          py::arg("reduce") = "mean", Release(),
          R"doc(Computes the triplet loss ``max(||a - p|| ** 2 - ||a - n|| ** 2 + margin, 0)`` per row.

:param anchor: Anchor examples ``(N, D)``.
:param positive: Positive examples ``(N, D)``.
:param negative: Negative examples ``(N, D)``.
:param margin: Positive margin.
:param reduce: ``'mean'`` (0-d) or ``'no'`` (``(N,)``).
:returns: The loss variable.)doc");
    f.def("negative_sampling", &negative_sampling, py::arg("x"), py::arg("t"), py::arg("W"), py::arg("sampler"),
          py::arg("sample_size"), py::arg("reduce") = "sum", py::kw_only(), py::arg("return_samples") = false,
          R"doc(Negative sampling loss function.

Per row ``sum_k softplus(s_k * W[ids_k] . x)`` with ``ids`` the label and ``sample_size`` drawn
ids, ``s_0 = -1`` and ``s_k = 1`` for the samples.

:param x: Input ``(N, D)``.
:param t: Integer labels ``(N,)``; -1 ignores the row.
:param W: Output embeddings ``(V, D)``.
:param sampler: A callable taking a shape tuple ``(N, sample_size + 1)`` and returning integer ids in
    ``[0, V)`` of that shape (column 0 is replaced by ``t``).
:param sample_size: The number of negative samples per row.
:param reduce: ``'sum'`` (0-d) or ``'no'`` (``(N,)``).
:param return_samples: Keyword only: also return the sampled ids (column 0 set to ``t``).
:returns: The loss, or ``(loss, samples)`` with ``return_samples=True``.)doc");
    f.def("connectionist_temporal_classification", &ctc, py::arg("x"), py::arg("t"), py::arg("blank_symbol"),
          py::arg("input_length") = py::none(), py::arg("label_length") = py::none(), py::arg("reduce") = "mean",
          Release(),
          R"doc(Connectionist Temporal Classification loss function ``-log p(t | x)``.

The gradient is Chainer's: ``softmax(x)`` minus the label posteriors, zero past
``input_length``. Computed in float64; not double-differentiable.

:param x: Unnormalized scores: a list over time of ``(B, V)`` variables.
:param t: Integer labels ``(B, L)``, values in ``[0, V)`` other than ``blank_symbol``.
:param blank_symbol: The index of the blank label.
:param input_length: Integer lengths ``(B,)`` of the inputs, or None (every one is ``len(x)``).
:param label_length: Integer lengths ``(B,)`` of the labels, or None (every one is ``t.shape[1]``).
:param reduce: ``'mean'`` over the batch (0-d) or ``'no'`` (``(B,)``).
:returns: The loss variable.)doc");
}

}  // namespace rensa::python::functions_bind
