// rensa._core.links, connection links (links/connection) but the recurrent ones
// (connection_rnn.cc): Chainer's constructor signatures and keyword names (Linear(in_size,
// out_size=None, ...), Convolution2D(in_channels, out_channels, ksize=None, ...) with their
// lazy short forms), Bias, Scale, Bilinear, MLPConvolution2D and Inception. __call__ and the
// Link conveniences come from Link.
#include <pybind11/functional.h>

#include <memory>
#include <optional>
#include <vector>

#include "links/connection/bias.h"
#include "links/connection/bilinear.h"
#include "links/connection/convolution_2d.h"
#include "links/connection/convolution_nd.h"
#include "links/connection/deconvolution_2d.h"
#include "links/connection/deconvolution_nd.h"
#include "links/connection/depthwise_convolution_2d.h"
#include "links/connection/embed_id.h"
#include "links/connection/highway.h"
#include "links/connection/inception.h"
#include "links/connection/linear.h"
#include "links/connection/mlp_convolution_2d.h"
#include "links/connection/scale.h"
#include "python/src/links/function_defaults.h"
#include "python/src/links/links.h"

namespace rensa::python::links_detail {
namespace L = rensa::links;

namespace {

// Chainer's (in_channels, out_channels, ksize=None) with the short form (out_channels, ksize).
struct ConvSizes {
    std::optional<int64_t> in_channels;
    int64_t out_channels;
    functions::IntOrTuple ksize;
};
ConvSizes conv_sizes(py::handle in_channels, py::handle out_channels, py::handle ksize) {
    if (ksize.is_none())
        return {std::nullopt, in_channels.cast<int64_t>(),
                to_int_or_tuple(out_channels, "Convolution", "out_channels")};
    return {optional_int(in_channels), out_channels.cast<int64_t>(), to_int_or_tuple(ksize, "Convolution", "ksize")};
}

void bind_linear(py::module_& m) {
    link_class<L::Linear, L::Link>(m, "Linear")
        .def(link_init<L::Linear>([](py::handle in_size, py::handle out_size, bool nobias, py::handle initialW,
                                     py::handle initial_bias) {
                 return std::make_shared<L::Linear>(optional_int(in_size), optional_int(out_size), nobias,
                                                    to_initializer(initialW), to_initializer(initial_bias));
             }),
             py::arg("in_size"), py::arg("out_size") = py::none(), py::arg("nobias") = false,
             py::arg("initialW") = py::none(), py::arg("initial_bias") = py::none())
        .def(
            "__call__", [](L::Linear& self, const Variable& x) { return self.forward(x); }, py::arg("x"))
        .def(
            "__call__",
            [](L::Linear& self, const Variable& x, int n_batch_axes) { return self.forward(x, n_batch_axes); },
            py::arg("x"), py::arg("n_batch_axes"))
        .def(
            "forward",
            [](L::Linear& self, const Variable& x, int n_batch_axes) { return self.forward(x, n_batch_axes); },
            py::arg("x"), py::arg("n_batch_axes") = 1)
        .def_property_readonly("out_size", &L::Linear::out_size)
        .def_property_readonly("in_size", &L::Linear::in_size);
}

void bind_convolutions(py::module_& m) {
    link_class<L::Convolution2D, L::Link>(m, "Convolution2D")
        .def(link_init<L::Convolution2D>([](py::handle in_channels, py::handle out_channels, py::handle ksize,
                                            py::handle stride, py::handle pad, bool nobias, py::handle initialW,
                                            py::handle initial_bias, py::handle dilate, int64_t groups) {
                 ConvSizes s = conv_sizes(in_channels, out_channels, ksize);
                 L::Convolution2DOptions o;
                 set_conv_options(o, "Convolution2D", stride, pad, nobias, initialW, initial_bias);
                 o.dilate = to_int_or_tuple(dilate, "Convolution2D", "dilate");
                 o.groups = groups;
                 return std::make_shared<L::Convolution2D>(s.in_channels, s.out_channels, s.ksize, o);
             }),
             py::arg("in_channels"), py::arg("out_channels"), py::arg("ksize") = py::none(), py::arg("stride") = 1,
             py::arg("pad") = 0, py::arg("nobias") = false, py::arg("initialW") = py::none(),
             py::arg("initial_bias") = py::none(), py::kw_only(), py::arg("dilate") = 1, py::arg("groups") = 1)
        .def_property_readonly("out_channels", &L::Convolution2D::out_channels);

    link_class<L::Deconvolution2D, L::Link>(m, "Deconvolution2D")
        .def(link_init<L::Deconvolution2D>([](py::handle in_channels, py::handle out_channels, py::handle ksize,
                                              py::handle stride, py::handle pad, bool nobias, py::handle outsize,
                                              py::handle initialW, py::handle initial_bias, py::handle dilate,
                                              int64_t groups) {
                 ConvSizes s = conv_sizes(in_channels, out_channels, ksize);
                 L::Deconvolution2DOptions o;
                 set_conv_options(o, "Deconvolution2D", stride, pad, nobias, initialW, initial_bias);
                 o.outsize = to_optional_shape(outsize, "Deconvolution2D");
                 o.dilate = to_int_or_tuple(dilate, "Deconvolution2D", "dilate");
                 o.groups = groups;
                 return std::make_shared<L::Deconvolution2D>(s.in_channels, s.out_channels, s.ksize, o);
             }),
             py::arg("in_channels"), py::arg("out_channels"), py::arg("ksize") = py::none(), py::arg("stride") = 1,
             py::arg("pad") = 0, py::arg("nobias") = false, py::arg("outsize") = py::none(),
             py::arg("initialW") = py::none(), py::arg("initial_bias") = py::none(), py::kw_only(),
             py::arg("dilate") = 1, py::arg("groups") = 1);

    link_class<L::DepthwiseConvolution2D, L::Link>(m, "DepthwiseConvolution2D")
        .def(link_init<L::DepthwiseConvolution2D>([](py::handle in_channels, int64_t channel_multiplier,
                                                     py::handle ksize, py::handle stride, py::handle pad, bool nobias,
                                                     py::handle initialW, py::handle initial_bias) {
                 L::DepthwiseConvolution2DOptions o;
                 set_conv_options(o, "DepthwiseConvolution2D", stride, pad, nobias, initialW, initial_bias);
                 return std::make_shared<L::DepthwiseConvolution2D>(
                     optional_int(in_channels), channel_multiplier,
                     to_int_or_tuple(ksize, "DepthwiseConvolution2D", "ksize"), o);
             }),
             py::arg("in_channels"), py::arg("channel_multiplier"), py::arg("ksize"), py::arg("stride") = 1,
             py::arg("pad") = 0, py::arg("nobias") = false, py::arg("initialW") = py::none(),
             py::arg("initial_bias") = py::none());

    link_class<L::ConvolutionND, L::Link>(m, "ConvolutionND")
        .def(
            link_init<L::ConvolutionND>([](int ndim, py::handle in_channels, py::handle out_channels, py::handle ksize,
                                           py::handle stride, py::handle pad, bool nobias, py::handle initialW,
                                           py::handle initial_bias, bool cover_all, py::handle dilate, int64_t groups) {
                ConvSizes s = conv_sizes(in_channels, out_channels, ksize);
                L::ConvolutionNDOptions o;
                set_conv_options(o, "ConvolutionND", stride, pad, nobias, initialW, initial_bias);
                o.cover_all = cover_all;
                o.dilate = to_int_or_tuple(dilate, "ConvolutionND", "dilate");
                o.groups = groups;
                return std::make_shared<L::ConvolutionND>(ndim, s.in_channels, s.out_channels, s.ksize, o);
            }),
            py::arg("ndim"), py::arg("in_channels"), py::arg("out_channels"), py::arg("ksize") = py::none(),
            py::arg("stride") = 1, py::arg("pad") = 0, py::arg("nobias") = false, py::arg("initialW") = py::none(),
            py::arg("initial_bias") = py::none(), py::arg("cover_all") = false, py::arg("dilate") = 1,
            py::arg("groups") = 1);

    link_class<L::DeconvolutionND, L::Link>(m, "DeconvolutionND")
        .def(link_init<L::DeconvolutionND>([](int ndim, py::handle in_channels, py::handle out_channels,
                                              py::handle ksize, py::handle stride, py::handle pad, bool nobias,
                                              py::handle outsize, py::handle initialW, py::handle initial_bias,
                                              py::handle dilate, int64_t groups) {
                 ConvSizes s = conv_sizes(in_channels, out_channels, ksize);
                 L::DeconvolutionNDOptions o;
                 set_conv_options(o, "DeconvolutionND", stride, pad, nobias, initialW, initial_bias);
                 o.outsize = to_optional_shape(outsize, "DeconvolutionND");
                 o.dilate = to_int_or_tuple(dilate, "DeconvolutionND", "dilate");
                 o.groups = groups;
                 return std::make_shared<L::DeconvolutionND>(ndim, s.in_channels, s.out_channels, s.ksize, o);
             }),
             py::arg("ndim"), py::arg("in_channels"), py::arg("out_channels"), py::arg("ksize") = py::none(),
             py::arg("stride") = 1, py::arg("pad") = 0, py::arg("nobias") = false, py::arg("outsize") = py::none(),
             py::arg("initialW") = py::none(), py::arg("initial_bias") = py::none(), py::arg("dilate") = 1,
             py::arg("groups") = 1);
}

void bind_embed_and_highway(py::module_& m) {
    link_class<L::EmbedID, L::Link>(m, "EmbedID")
        .def(link_init<L::EmbedID>([](int64_t in_size, int64_t out_size, py::handle initialW, py::handle ignore_label) {
                 return std::make_shared<L::EmbedID>(in_size, out_size, to_initializer(initialW),
                                                     optional_int(ignore_label));
             }),
             py::arg("in_size"), py::arg("out_size"), py::arg("initialW") = py::none(),
             py::arg("ignore_label") = py::none())
        .def_property_readonly("ignore_label", &L::EmbedID::ignore_label);

    link_class<L::Highway, L::Chain>(m, "Highway")
        .def(link_init<L::Highway>([](int64_t in_out_size, bool nobias, py::handle activate, py::handle init_Wh,
                                      py::handle init_Wt, py::handle init_bh, py::handle init_bt) {
                 L::HighwayOptions o;
                 o.nobias = nobias;
                 if (auto f = activation_or_default(activate, "relu")) o.activate = std::move(f);
                 o.init_Wh = to_initializer(init_Wh);
                 o.init_bh = to_initializer(init_bh);
                 o.init_Wt = to_initializer(init_Wt);
                 if (!init_bt.is_none()) o.init_bt = to_initializer(init_bt);
                 return std::make_shared<L::Highway>(in_out_size, o);
             }),
             py::arg("in_out_size"), py::arg("nobias") = false, function_default("activate", "relu"),
             py::arg("init_Wh") = py::none(), py::arg("init_Wt") = py::none(), py::arg("init_bh") = py::none(),
             py::arg("init_bt") = -1);
}

Variable bilinear_forward(L::Bilinear& self, const Variable& e1, const Variable& e2) {
    return self.forward(std::vector<Variable>{e1, e2});
}

void bind_composite_links(py::module_& m) {
    link_class<L::Bias, L::Link>(m, "Bias").def(link_init<L::Bias>([](int axis, py::handle shape) {
                                                    return std::make_shared<L::Bias>(axis,
                                                                                     to_optional_shape(shape, "Bias"));
                                                }),
                                                py::arg("axis") = 1, py::arg("shape") = py::none());
    link_class<L::Scale, L::Link>(m, "Scale")
        .def(link_init<L::Scale>([](int axis, py::handle W_shape, bool bias_term, py::handle bias_shape) {
                 return std::make_shared<L::Scale>(axis, to_optional_shape(W_shape, "Scale"), bias_term,
                                                   to_optional_shape(bias_shape, "Scale"));
             }),
             py::arg("axis") = 1, py::arg("W_shape") = py::none(), py::arg("bias_term") = false,
             py::arg("bias_shape") = py::none());
    link_class<L::Bilinear, L::Link>(m, "Bilinear")
        .def(link_init<L::Bilinear>([](int64_t left_size, int64_t right_size, int64_t out_size, bool nobias,
                                       py::handle initialW, py::handle initial_bias) {
                 std::optional<L::BilinearInitialBias> bias;
                 if (!initial_bias.is_none()) {
                     // Chainer's (V1, V2, b) tuple.
                     auto t = initial_bias.cast<py::tuple>();
                     bias = L::BilinearInitialBias{to_initializer(t[0]), to_initializer(t[1]), to_initializer(t[2])};
                 }
                 return std::make_shared<L::Bilinear>(left_size, right_size, out_size, nobias, to_initializer(initialW),
                                                      bias);
             }),
             py::arg("left_size"), py::arg("right_size"), py::arg("out_size"), py::arg("nobias") = false,
             py::arg("initialW") = py::none(), py::arg("initial_bias") = py::none())
        // Chainer's forward(e1, e2).
        .def("__call__", bilinear_forward, py::arg("e1"), py::arg("e2"))
        .def("forward", bilinear_forward, py::arg("e1"), py::arg("e2"));
    link_class<L::MLPConvolution2D, L::ChainList>(m, "MLPConvolution2D")
        .def(link_init<L::MLPConvolution2D>([](py::handle in_channels, py::handle out_channels, py::handle ksize,
                                               py::handle stride, py::handle pad, py::handle activation,
                                               const py::args& args, py::handle conv_init, py::handle bias_init) {
                 // Chainer's *args only catch v1's positional wscale, which it refuses.
                 if (!args.empty()) {
                     throw py::type_error(
                         "MLPConvolution2D: wscale is not supported anymore; use conv_init and bias_init "
                         "(keyword arguments) to set the initializers");
                 }
                 // Chainer's short form MLPConvolution2D(out_channels, ksize).
                 if (ksize.is_none()) {
                     ksize = out_channels;
                     out_channels = in_channels;
                     in_channels = py::none();
                 }
                 L::MLPConvolution2DOptions o;
                 o.stride = to_int_or_tuple(stride, "MLPConvolution2D", "stride");
                 o.pad = to_int_or_tuple(pad, "MLPConvolution2D", "pad");
                 if (auto f = activation_or_default(activation, "relu")) o.activation = std::move(f);
                 o.conv_init = to_initializer(conv_init);
                 o.bias_init = to_initializer(bias_init);
                 return std::make_shared<L::MLPConvolution2D>(optional_int(in_channels),
                                                              out_channels.cast<std::vector<int64_t>>(),
                                                              to_int_or_tuple(ksize, "MLPConvolution2D", "ksize"), o);
             }),
             py::arg("in_channels"), py::arg("out_channels"), py::arg("ksize") = py::none(), py::arg("stride") = 1,
             py::arg("pad") = 0, function_default("activation", "relu"), py::arg("conv_init") = py::none(),
             py::arg("bias_init") = py::none());
    link_class<L::Inception, L::Chain>(m, "Inception")
        .def(
            link_init<L::Inception>([](py::handle in_channels, int64_t out1, int64_t proj3, int64_t out3, int64_t proj5,
                                       int64_t out5, int64_t proj_pool, py::handle conv_init, py::handle bias_init) {
                return std::make_shared<L::Inception>(optional_int(in_channels), out1, proj3, out3, proj5, out5,
                                                      proj_pool, to_initializer(conv_init), to_initializer(bias_init));
            }),
            py::arg("in_channels"), py::arg("out1"), py::arg("proj3"), py::arg("out3"), py::arg("proj5"),
            py::arg("out5"), py::arg("proj_pool"), py::arg("conv_init") = py::none(),
            py::arg("bias_init") = py::none());
}

}  // namespace

void bind_connection_links(py::module_& links) {
    bind_linear(links);
    bind_convolutions(links);
    bind_embed_and_highway(links);
    bind_composite_links(links);
}

}  // namespace rensa::python::links_detail
