// rensa._core.links, normalization links: BatchNormalization, LayerNormalization,
// GroupNormalization, with Chainer's signatures and attribute names.
#include <memory>
#include <optional>

#include "links/normalization/batch_normalization.h"
#include "links/normalization/group_normalization.h"
#include "links/normalization/layer_normalization.h"
#include "python/src/convert/axes.h"
#include "python/src/links/links.h"

namespace rensa::python::links_detail {
namespace L = rensa::links;

L::BatchNormalizationOptions batch_normalization_options(double decay, double eps, py::handle dtype, bool use_gamma,
                                                         bool use_beta, py::handle initial_gamma,
                                                         py::handle initial_beta, py::handle initial_avg_mean,
                                                         py::handle initial_avg_var) {
    L::BatchNormalizationOptions o;
    o.decay = decay;
    o.eps = eps;
    if (!dtype.is_none()) o.dtype = to_dtype(dtype);  // None: config.dtype
    o.use_gamma = use_gamma;
    o.use_beta = use_beta;
    o.initial_gamma = to_initializer(initial_gamma);
    o.initial_beta = to_initializer(initial_beta);
    o.initial_avg_mean = to_initializer(initial_avg_mean);
    o.initial_avg_var = to_initializer(initial_avg_var);
    return o;
}

void bind_normalization_links(py::module_& m) {
    link_class<L::BatchNormalization, L::Link>(
        m, "BatchNormalization", R"doc(Batch normalization layer on outputs of linear or convolution functions.

In training (``config.train``) it normalizes with the batch's mean and variance and updates the running statistics
``avg_mean`` and ``avg_var`` by an exponential moving average (``avg_var`` takes the unbiased variance); with
``finetune=True`` the running statistics become the plain average over the batches seen since
``start_finetuning``. In testing it normalizes with the running statistics. The result is scaled by ``gamma`` and
shifted by ``beta``.

Args:
    size (int, tuple of ints or None): The shape of ``gamma``, ``beta`` and the statistics (the channel count for
        the usual ``(N, C, ...)`` input); ``None`` learns it from the first input, which then needs ``axis``.
    decay (float): Decay rate of the moving average.
    eps (float): Added to the variance for numerical stability.
    dtype: The dtype of the input (``None``: ``config.dtype``); the parameters and statistics are float32 for a
        16-bit dtype.
    use_gamma (bool): Whether to learn the scale ``gamma``.
    use_beta (bool): Whether to learn the shift ``beta``.
    initial_gamma: Initializer of ``gamma`` (ones by default).
    initial_beta: Initializer of ``beta`` (zeros by default).
    axis (int, tuple of ints or None): The axes the statistics are taken over (by default 0 and the axes after
        ``size``).
    initial_avg_mean: Initializer of ``avg_mean`` (zeros by default).
    initial_avg_var: Initializer of ``avg_var`` (ones by default).
)doc")
        .def(link_init<L::BatchNormalization>([](py::handle size, double decay, double eps, py::handle dtype,
                                                 bool use_gamma, bool use_beta, py::handle initial_gamma,
                                                 py::handle initial_beta, py::handle axis, py::handle initial_avg_mean,
                                                 py::handle initial_avg_var) {
                 L::BatchNormalizationOptions o =
                     batch_normalization_options(decay, eps, dtype, use_gamma, use_beta, initial_gamma, initial_beta,
                                                 initial_avg_mean, initial_avg_var);
                 o.axis = to_axes(axis, "BatchNormalization");
                 return std::make_shared<L::BatchNormalization>(to_optional_shape(size, "BatchNormalization"), o);
             }),
             py::arg("size") = py::none(), py::arg("decay") = 0.9, py::arg("eps") = 2e-5, py::arg("dtype") = py::none(),
             py::arg("use_gamma") = true, py::arg("use_beta") = true, py::arg("initial_gamma") = py::none(),
             py::arg("initial_beta") = py::none(), py::arg("axis") = py::none(),
             py::arg("initial_avg_mean") = py::none(), py::arg("initial_avg_var") = py::none())
        .def(
            "__call__", [](L::BatchNormalization& self, const Variable& x) { return self.forward(x); }, py::arg("x"))
        .def(
            "__call__",
            [](L::BatchNormalization& self, const Variable& x, bool finetune) {
                return self.forward(x, L::BatchNormalizationForwardOptions{finetune});
            },
            py::arg("x"), py::kw_only(), py::arg("finetune"))
        .def(
            "forward",
            [](L::BatchNormalization& self, const Variable& x, bool finetune) {
                return self.forward(x, L::BatchNormalizationForwardOptions{finetune});
            },
            py::arg("x"), py::kw_only(), py::arg("finetune") = false,
            "Normalizes ``x``; ``finetune=True`` (in training) accumulates the plain average of the statistics.")
        .def("start_finetuning", &L::BatchNormalization::start_finetuning,
             "Restarts the fine-tuning average (sets ``N`` to 0).")
        // numpy views of the running statistics (writes go to the link's arrays).
        .def_property(
            "avg_mean", [](const L::BatchNormalization& self) { return array_or_none(self.avg_mean); },
            [](L::BatchNormalization& self, py::handle v) { self.avg_mean = to_array(v); },
            "The running mean (a numpy view; None until the size is known).")
        .def_property(
            "avg_var", [](const L::BatchNormalization& self) { return array_or_none(self.avg_var); },
            [](L::BatchNormalization& self, py::handle v) { self.avg_var = to_array(v); },
            "The running variance (a numpy view; None until the size is known).")
        .def_readwrite("N", &L::BatchNormalization::N, "The number of batches averaged while fine-tuning.")
        .def_readwrite("decay", &L::BatchNormalization::decay, "The decay rate of the moving average.")
        .def_readwrite("eps", &L::BatchNormalization::eps, "The epsilon added to the variance.")
        .def_property_readonly(
            "axis",
            [](const L::BatchNormalization& self) -> py::object {
                if (!self.axis) return py::none();
                py::list axes;
                for (int a : *self.axis) axes.append(a);
                return py::tuple(axes);
            },
            "The axes the statistics are taken over, or None for the default.");

    link_class<L::LayerNormalization, L::Link>(m, "LayerNormalization",
                                               R"doc(Layer normalization layer on a batch of vectors.

Normalizes each row of a 2-d input to zero mean and unit variance, then scales by ``gamma`` and shifts by ``beta``
(``functions.layer_normalization``).

Args:
    size (int or None): The size of a row (``None``: inferred at the first forward).
    eps (float): Added to the variance for numerical stability.
    initial_gamma: Initializer of ``gamma`` (ones by default).
    initial_beta: Initializer of ``beta`` (zeros by default).
)doc")
        .def(link_init<L::LayerNormalization>(
                 [](py::handle size, double eps, py::handle initial_gamma, py::handle initial_beta) {
                     return std::make_shared<L::LayerNormalization>(
                         optional_int(size), eps, to_initializer(initial_gamma), to_initializer(initial_beta));
                 }),
             py::arg("size") = py::none(), py::arg("eps") = 1e-6, py::arg("initial_gamma") = py::none(),
             py::arg("initial_beta") = py::none())
        .def_readwrite("eps", &L::LayerNormalization::eps, "The epsilon added to the variance.");

    link_class<L::GroupNormalization, L::Link>(m, "GroupNormalization", R"doc(Group normalization layer.

Splits the channels (axis 1) into ``groups`` groups, normalizes each group of each sample, then scales by ``gamma``
and shifts by ``beta`` per channel (``functions.group_normalization``).

Args:
    groups (int): The number of groups; it must divide the channel count.
    size (int or None): The channel count (``None``: inferred at the first forward).
    eps (float): Added to the variance for numerical stability.
    initial_gamma: Initializer of ``gamma`` (ones by default).
    initial_beta: Initializer of ``beta`` (zeros by default).
)doc")
        .def(link_init<L::GroupNormalization>(
                 [](int64_t groups, py::handle size, double eps, py::handle initial_gamma, py::handle initial_beta) {
                     return std::make_shared<L::GroupNormalization>(
                         groups, optional_int(size), eps, to_initializer(initial_gamma), to_initializer(initial_beta));
                 }),
             py::arg("groups"), py::arg("size") = py::none(), py::arg("eps") = 1e-5,
             py::arg("initial_gamma") = py::none(), py::arg("initial_beta") = py::none())
        .def_readwrite("eps", &L::GroupNormalization::eps, "The epsilon added to the variance.");
}

}  // namespace rensa::python::links_detail
