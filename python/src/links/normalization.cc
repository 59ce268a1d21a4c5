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
    link_class<L::BatchNormalization, L::Link>(m, "BatchNormalization")
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
            py::arg("x"), py::kw_only(), py::arg("finetune") = false)
        .def("start_finetuning", &L::BatchNormalization::start_finetuning)
        // numpy views of the running statistics (writes go to the link's arrays).
        .def_property(
            "avg_mean", [](const L::BatchNormalization& self) { return array_or_none(self.avg_mean); },
            [](L::BatchNormalization& self, py::handle v) { self.avg_mean = to_array(v); })
        .def_property(
            "avg_var", [](const L::BatchNormalization& self) { return array_or_none(self.avg_var); },
            [](L::BatchNormalization& self, py::handle v) { self.avg_var = to_array(v); })
        .def_readwrite("N", &L::BatchNormalization::N)
        .def_readwrite("decay", &L::BatchNormalization::decay)
        .def_readwrite("eps", &L::BatchNormalization::eps)
        .def_property_readonly("axis", [](const L::BatchNormalization& self) -> py::object {
            if (!self.axis) return py::none();
            py::list axes;
            for (int a : *self.axis) axes.append(a);
            return py::tuple(axes);
        });

    link_class<L::LayerNormalization, L::Link>(m, "LayerNormalization")
        .def(link_init<L::LayerNormalization>(
                 [](py::handle size, double eps, py::handle initial_gamma, py::handle initial_beta) {
                     return std::make_shared<L::LayerNormalization>(
                         optional_int(size), eps, to_initializer(initial_gamma), to_initializer(initial_beta));
                 }),
             py::arg("size") = py::none(), py::arg("eps") = 1e-6, py::arg("initial_gamma") = py::none(),
             py::arg("initial_beta") = py::none())
        .def_readwrite("eps", &L::LayerNormalization::eps);

    link_class<L::GroupNormalization, L::Link>(m, "GroupNormalization")
        .def(link_init<L::GroupNormalization>(
                 [](int64_t groups, py::handle size, double eps, py::handle initial_gamma, py::handle initial_beta) {
                     return std::make_shared<L::GroupNormalization>(
                         groups, optional_int(size), eps, to_initializer(initial_gamma), to_initializer(initial_beta));
                 }),
             py::arg("groups"), py::arg("size") = py::none(), py::arg("eps") = 1e-5,
             py::arg("initial_gamma") = py::none(), py::arg("initial_beta") = py::none())
        .def_readwrite("eps", &L::GroupNormalization::eps);
}

}  // namespace rensa::python::links_detail
