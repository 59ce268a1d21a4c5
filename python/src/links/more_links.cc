// rensa._core.links: InceptionBN, NegativeSampling (with its sampler) and Parameter (the link
// chainer.links.Parameter, C++ links::ParameterLink), with Chainer's signatures and attribute
// names.
#include <memory>
#include <string>
#include <vector>

#include "autograd/modes.h"
#include "functions/loss.h"
#include "links/connection/inception_bn.h"
#include "links/connection/parameter_link.h"
#include "links/loss/negative_sampling.h"
#include "python/src/links/links.h"

namespace rensa::python::links_detail {
namespace L = rensa::links;

namespace {

// Chainer's chainer.get_dtype(dtype): None is config.dtype.
Dtype dtype_or_config(py::handle dtype) { return dtype.is_none() ? config().dtype : to_dtype(dtype); }

void bind_inception_bn(py::module_& m) {
    link_class<L::InceptionBN, L::Chain>(m, "InceptionBN",
                                         R"doc(Inception module of GoogLeNet with batch normalization (Inception-v2).

Every convolution has no bias and is followed by BatchNormalization and ReLU; the 5x5 path of Inception becomes two
3x3 convolutions. The branches, concatenated along the channels: a 1x1 convolution (``out1``, when positive), 1x1
(``proj3``) then 3x3 (``out3``), 1x1 (``proj33``) then two 3x3 (``out33``), and a 3x3 pooling followed by a 1x1
convolution (``proj_pool``, when given). ``stride`` applies to the last convolution of each branch and to the
pooling.

Args:
    in_channels (int or None): Input channels (``None``: inferred).
    out1, proj3, out3, proj33, out33 (int): Channels of the branches; ``out1 > 0`` needs ``stride == 1`` and a
        ``proj_pool``.
    pooltype (str): ``'max'`` or ``'avg'``.
    proj_pool (int or None): Channels of the projection after the pooling, or ``None`` for none.
    stride (int): Stride.
    conv_init: Initializer of the convolution weights.
    dtype: The dtype of the BatchNormalization links (``None``: ``config.dtype``).
)doc")
        .def(link_init<L::InceptionBN>([](py::handle in_channels, int64_t out1, int64_t proj3, int64_t out3,
                                          int64_t proj33, int64_t out33, std::string pooltype, py::handle proj_pool,
                                          int64_t stride, py::handle conv_init, py::handle dtype) {
                 return std::make_shared<L::InceptionBN>(optional_int(in_channels), out1, proj3, out3, proj33, out33,
                                                         std::move(pooltype), optional_int(proj_pool), stride,
                                                         to_initializer(conv_init), dtype_or_config(dtype));
             }),
             py::arg("in_channels"), py::arg("out1"), py::arg("proj3"), py::arg("out3"), py::arg("proj33"),
             py::arg("out33"), py::arg("pooltype"), py::arg("proj_pool") = py::none(), py::arg("stride") = 1,
             py::arg("conv_init") = py::none(), py::arg("dtype") = py::none())
        .def_readonly("out1", &L::InceptionBN::out1, "Channels of the 1x1 branch (0: no such branch).")
        .def_property_readonly(
            "proj_pool", [](const L::InceptionBN& self) { return self.proj_pool; },
            "Channels of the projection after the pooling, or None.")
        .def_readonly("stride", &L::InceptionBN::stride, "The stride.")
        .def_readonly("pooltype", &L::InceptionBN::pooltype, "``'max'`` or ``'avg'``.");
    // Its children (proj3, conv3n, ...; conv1 and poolp only when built) come through
    // Link.__getattr__, as Chainer's attributes.
}

void bind_negative_sampling(py::module_& m) {
    // Chainer's chainer.utils.WalkerAlias, as NegativeSampling.sampler.
    py::class_<L::WalkerAlias>(m, "_WalkerAlias")
        .def(py::init([](const std::vector<double>& probs) { return L::WalkerAlias(probs); }), py::arg("probs"))
        .def_property_readonly(
            "threshold", [](const L::WalkerAlias& self) { return py::array_t<double>(py::cast(self.threshold())); })
        .def_property_readonly(
            "values",
            [](const L::WalkerAlias& self) {
                py::array_t<int32_t> values(py::cast(self.values()));
                return values.reshape({static_cast<py::ssize_t>(self.values().size() / 2), py::ssize_t{2}});
            })
        .def(
            "sample",
            [](const L::WalkerAlias& self, py::handle shape) {
                return to_numpy(self.sample(to_shape(shape, "WalkerAlias.sample")));
            },
            py::arg("shape"));
    // Chainer's forward(x, t, reduce='sum', *, return_samples=False): with return_samples the
    // drawn (N, sample_size + 1) ids come back too, column 0 set to t as Chainer's are.
    auto forward = [](L::NegativeSampling& self, const Variable& x, const Variable& t, const std::string& reduce,
                      bool return_samples) -> py::object {
        if (!return_samples) return py::cast(self.forward(x, t, reduce));
        Array drawn;
        const L::WalkerAlias& table = self.sampler;
        const Device device = self.W.device();
        Variable loss = F::negative_sampling(
            x, t, self.W,
            [&table, &drawn, device](const Shape& shape) {
                drawn = table.sample(shape, device);
                return drawn;
            },
            self.sample_size, reduce);
        const Array samples = drawn.copy();
        samples.index({Slice{}, int64_t{0}}).assign(t.array().astype(samples.dtype()));
        return py::make_tuple(std::move(loss), to_numpy(samples));
    };
    link_class<L::NegativeSampling, L::Link>(m, "NegativeSampling", R"doc(Negative sampling loss layer (word2vec).

Holds the output embeddings ``W`` of shape ``(len(counts), in_size)`` (zeros at first). For each row the loss takes
the true word and ``sample_size`` negatives drawn from the unigram distribution raised to ``power``
(``functions.negative_sampling``). The draws come from rensa's generator (``rensa.seed``), not numpy's.

Args:
    in_size (int): The size of the input vectors.
    counts (list of numbers): The frequency of each word.
    sample_size (int): Negatives per row.
    power (float): The power the frequencies are raised to.
    dtype: The dtype of ``W`` (``None``: ``config.dtype``).
)doc")
        .def(link_init<L::NegativeSampling>([](int64_t in_size, const std::vector<double>& counts, int64_t sample_size,
                                               double power, py::handle dtype) {
                 return std::make_shared<L::NegativeSampling>(in_size, counts, sample_size, power,
                                                              dtype_or_config(dtype));
             }),
             py::arg("in_size"), py::arg("counts"), py::arg("sample_size"), py::arg("power") = 0.75,
             py::arg("dtype") = py::none())
        .def("__call__", forward, py::arg("x"), py::arg("t"), py::arg("reduce") = "sum", py::kw_only(),
             py::arg("return_samples") = false)
        .def("forward", forward, py::arg("x"), py::arg("t"), py::arg("reduce") = "sum", py::kw_only(),
             py::arg("return_samples") = false,
             "The loss of ``x`` (N, in_size) against the labels ``t`` (N,) (-1 ignores a row); ``reduce='sum'`` "
             "gives a scalar, ``'no'`` one loss per row. With ``return_samples=True`` returns ``(loss, samples)``, "
             "the drawn ids (N, sample_size + 1) with ``t`` in column 0.")
        .def_readwrite("sample_size", &L::NegativeSampling::sample_size, "The number of negatives per row.")
        .def_property_readonly(
            "sampler", [](const L::NegativeSampling& self) { return self.sampler; },
            "The Walker alias table the negatives are drawn from (Chainer's ``utils.WalkerAlias``).");
}

void bind_parameter_link(py::module_& m) {
    // Chainer's forward(volatile='off'): volatility is gone since Chainer v2, the argument stays.
    auto forward = [](L::ParameterLink& self, py::handle /*volatile*/) { return self.forward(); };
    link_class<L::ParameterLink, L::Link>(m, "Parameter",
                                          R"doc(A link that holds a given array as its only parameter ``W``.

``link()`` returns ``W``, so an array can be trained as part of a chain.

Args:
    array (ndarray): The initial value of ``W``.
)doc")
        .def(link_init<L::ParameterLink>(
                 [](py::handle array) { return std::make_shared<L::ParameterLink>(to_array(array)); }),
             py::arg("array"))
        .def("__call__", forward, py::arg("volatile") = "off")
        .def("forward", forward, py::arg("volatile") = "off",
             "Returns the parameter ``W``; ``volatile`` is accepted and ignored (volatility is gone since Chainer "
             "v2).");
}

}  // namespace

void bind_more_links(py::module_& links) {
    bind_inception_bn(links);
    bind_negative_sampling(links);
    bind_parameter_link(links);
}

}  // namespace rensa::python::links_detail
