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
    link_class<L::Linear, L::Link>(m, "Linear", R"doc(Fully-connected layer: ``y = x W^T + b``.

Holds ``W`` of shape ``(out_size, in_size)`` and ``b`` of shape ``(out_size,)``. ``Linear(out_size)`` is the short
form with a lazy ``in_size``.

Args:
    in_size (int or None): Input size; ``None`` infers it (the product of the non-batch axes) at the first forward.
    out_size (int): Output size.
    nobias (bool): No bias when ``True``.
    initialW: Initializer of ``W`` (LeCunNormal by default); a scalar or an array is accepted.
    initial_bias: Initializer of ``b`` (zeros by default).
)doc")
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
            py::arg("x"), py::arg("n_batch_axes") = 1,
            "Applies the layer to ``x``; the first ``n_batch_axes`` axes are batch axes, the rest is flattened to "
            "``in_size``.")
        .def_property_readonly("out_size", &L::Linear::out_size, "The output size.")
        .def_property_readonly("in_size", &L::Linear::in_size,
                               "The input size (``None`` until known when it is inferred).");
}

void bind_convolutions(py::module_& m) {
    link_class<L::Convolution2D, L::Link>(m, "Convolution2D", R"doc(Two-dimensional convolution layer.

Holds the filter ``W`` of shape ``(out_channels, in_channels / groups, kh, kw)`` and the bias ``b``; applies
``functions.convolution_2d``.

Args:
    in_channels (int or None): Input channels; ``None`` infers them at the first forward. With the short form
        ``(out_channels, ksize)`` the first two arguments shift.
    out_channels (int): Output channels.
    ksize (int or tuple of ints): Kernel size.
    stride (int or tuple of ints): Stride.
    pad (int or tuple of ints): Padding.
    nobias (bool): No bias when ``True``.
    initialW: Initializer of ``W`` (LeCunNormal by default); a scalar or an array is accepted.
    initial_bias: Initializer of ``b`` (zeros by default).
    dilate (int or tuple of ints): Dilation (keyword only).
    groups (int): Number of groups of channels (keyword only).
)doc")
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
        .def_property_readonly("out_channels", &L::Convolution2D::out_channels, "The number of output channels.");

    link_class<L::Deconvolution2D, L::Link>(m, "Deconvolution2D",
                                            R"doc(Two-dimensional deconvolution (transposed convolution) layer.

Holds ``W`` of shape ``(in_channels, out_channels / groups, kh, kw)`` and ``b``; applies
``functions.deconvolution_2d``.

Args:
    in_channels (int or None): Input channels; ``None`` infers them at the first forward. With the short form
        ``(out_channels, ksize)`` the first two arguments shift.
    out_channels (int): Output channels.
    ksize (int or tuple of ints): Kernel size.
    stride (int or tuple of ints): Stride.
    pad (int or tuple of ints): Padding.
    nobias (bool): No bias when ``True``.
    initialW: Initializer of ``W`` (LeCunNormal by default); a scalar or an array is accepted.
    initial_bias: Initializer of ``b`` (zeros by default).
    outsize (tuple of ints or None): The output's spatial size, when the stride leaves it ambiguous.
    dilate (int or tuple of ints): Dilation (keyword only).
    groups (int): Number of groups of channels (keyword only).
)doc")
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

    link_class<L::DepthwiseConvolution2D, L::Link>(m, "DepthwiseConvolution2D",
                                                   R"doc(Two-dimensional depthwise convolution layer.

Each input channel is convolved with its own ``channel_multiplier`` filters, giving
``in_channels * channel_multiplier`` output channels (``functions.depthwise_convolution_2d``).

Args:
    in_channels (int or None): Input channels; ``None`` infers them at the first forward.
    channel_multiplier (int): Output channels per input channel.
    ksize (int or tuple of ints): Kernel size.
    stride (int or tuple of ints): Stride.
    pad (int or tuple of ints): Padding.
    nobias (bool): No bias when ``True``.
    initialW: Initializer of ``W``.
    initial_bias: Initializer of ``b``.
)doc")
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

    link_class<L::ConvolutionND, L::Link>(m, "ConvolutionND", R"doc(N-dimensional convolution layer.

Holds ``W`` of shape ``(out_channels, in_channels / groups) + ksize`` and ``b``; applies
``functions.convolution_nd`` over ``ndim`` spatial axes.

Args:
    ndim (int): Number of spatial dimensions.
    in_channels (int or None): Input channels; ``None`` infers them at the first forward. With the short form
        ``(out_channels, ksize)`` the first two arguments shift.
    out_channels (int): Output channels.
    ksize (int or tuple of ints): Kernel size.
    stride (int or tuple of ints): Stride.
    pad (int or tuple of ints): Padding.
    nobias (bool): No bias when ``True``.
    initialW: Initializer of ``W`` (LeCunNormal by default); a scalar or an array is accepted.
    initial_bias: Initializer of ``b`` (zeros by default).
    cover_all (bool): Whether the output covers every input pixel (as in ``max_pooling_nd``).
    dilate (int or tuple of ints): Dilation.
    groups (int): Number of groups of channels.
)doc")
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

    link_class<L::DeconvolutionND, L::Link>(m, "DeconvolutionND",
                                            R"doc(N-dimensional deconvolution (transposed convolution) layer.

Holds ``W`` of shape ``(in_channels, out_channels / groups) + ksize`` and ``b``; applies
``functions.deconvolution_nd`` over ``ndim`` spatial axes.

Args:
    ndim (int): Number of spatial dimensions.
    in_channels (int or None): Input channels; ``None`` infers them at the first forward. With the short form
        ``(out_channels, ksize)`` the first two arguments shift.
    out_channels (int): Output channels.
    ksize (int or tuple of ints): Kernel size.
    stride (int or tuple of ints): Stride.
    pad (int or tuple of ints): Padding.
    nobias (bool): No bias when ``True``.
    initialW: Initializer of ``W`` (LeCunNormal by default); a scalar or an array is accepted.
    initial_bias: Initializer of ``b`` (zeros by default).
    outsize (tuple of ints or None): The output's spatial size, when the stride leaves it ambiguous.
    dilate (int or tuple of ints): Dilation.
    groups (int): Number of groups of channels.
)doc")
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
    link_class<L::EmbedID, L::Link>(m, "EmbedID", R"doc(Word embedding: maps integer IDs to rows of ``W``.

Holds ``W`` of shape ``(in_size, out_size)``; applies ``functions.embed_id``.

Args:
    in_size (int): Number of IDs (the vocabulary size).
    out_size (int): Size of an embedding vector.
    initialW: Initializer of ``W`` (Normal(1.0) by default, as in Chainer).
    ignore_label (int or None): An ID whose output is a zero vector.
)doc")
        .def(link_init<L::EmbedID>([](int64_t in_size, int64_t out_size, py::handle initialW, py::handle ignore_label) {
                 return std::make_shared<L::EmbedID>(in_size, out_size, to_initializer(initialW),
                                                     optional_int(ignore_label));
             }),
             py::arg("in_size"), py::arg("out_size"), py::arg("initialW") = py::none(),
             py::arg("ignore_label") = py::none())
        .def_property_readonly("ignore_label", &L::EmbedID::ignore_label,
                               "The ID whose embedding is the zero vector, or ``None``.");

    link_class<L::Highway, L::Chain>(m, "Highway", R"doc(Highway network layer.

``y = activate(plain(x)) * t + x * (1 - t)`` with the transform gate ``t = sigmoid(transform(x))``; ``plain`` and
``transform`` are Linear links of size ``in_out_size``.

Args:
    in_out_size (int): Size of the input and the output.
    nobias (bool): No biases when ``True``.
    activate: The activation of the plain path (``functions.relu`` by default).
    init_Wh, init_bh: Initializers of the plain Linear.
    init_Wt, init_bt: Initializers of the transform Linear (``init_bt`` is -1, which favours the carry path at
        first).
)doc")
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
    link_class<L::Bias, L::Link>(m, "Bias", R"doc(Adds a learnable bias broadcast along ``axis`` (``functions.bias``).

Args:
    axis (int): The first axis of the input the bias is added along.
    shape (tuple of ints or None): The shape of the bias parameter ``b``; ``None`` means that the bias is given as
        the second input of ``forward(x, b)`` instead.
)doc")
        .def(link_init<L::Bias>([](int axis, py::handle shape) {
                 return std::make_shared<L::Bias>(axis, to_optional_shape(shape, "Bias"));
             }),
             py::arg("axis") = 1, py::arg("shape") = py::none());
    link_class<L::Scale, L::Link>(
        m, "Scale",
        R"doc(Multiplies by a learnable scale broadcast along ``axis`` (``functions.scale``), with an optional bias.

Args:
    axis (int): The first axis of the input the scale applies along.
    W_shape (tuple of ints or None): The shape of the scale parameter ``W``; ``None`` means that the scale is given
        as the second input of ``forward(x, y)``.
    bias_term (bool): Whether to add a Bias link after the scaling.
    bias_shape (tuple of ints or None): The bias shape when ``W_shape`` is ``None``.
)doc")
        .def(link_init<L::Scale>([](int axis, py::handle W_shape, bool bias_term, py::handle bias_shape) {
                 return std::make_shared<L::Scale>(axis, to_optional_shape(W_shape, "Scale"), bias_term,
                                                   to_optional_shape(bias_shape, "Scale"));
             }),
             py::arg("axis") = 1, py::arg("W_shape") = py::none(), py::arg("bias_term") = false,
             py::arg("bias_shape") = py::none());
    link_class<L::Bilinear, L::Link>(m, "Bilinear",
                                     R"doc(Bilinear layer: ``y_k = e1^T W_k e2 + V1_k e1 + V2_k e2 + b_k``.

Holds ``W`` of shape ``(left_size, right_size, out_size)`` and, unless ``nobias``, ``V1``, ``V2`` and ``b``
(``functions.bilinear``).

Args:
    left_size (int): Size of ``e1``'s vectors.
    right_size (int): Size of ``e2``'s vectors.
    out_size (int): Output size.
    nobias (bool): Only the bilinear term when ``True``.
    initialW: Initializer of ``W``.
    initial_bias: A tuple ``(V1, V2, b)`` of initializers, or ``None``.
)doc")
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
        .def("forward", bilinear_forward, py::arg("e1"), py::arg("e2"),
             "Applies the layer to a batch of left vectors ``e1`` (N, left_size) and right vectors ``e2`` (N, "
             "right_size); returns (N, out_size).");
    link_class<L::MLPConvolution2D, L::ChainList>(m, "MLPConvolution2D",
                                                  R"doc(Two-dimensional MLP convolution layer of Network in Network.

A Convolution2D of ``ksize`` followed by 1x1 convolutions, one per further entry of ``out_channels``, with
``activation`` between and after them. ``MLPConvolution2D(out_channels, ksize)`` is the short form.

Args:
    in_channels (int or None): Input channels (``None``: inferred).
    out_channels (tuple of ints): Output channels of each convolution.
    ksize (int or tuple of ints): Kernel size of the first convolution.
    stride (int or tuple of ints): Stride of the first convolution.
    pad (int or tuple of ints): Padding of the first convolution.
    activation: The activation (``functions.relu`` by default).
    conv_init: Initializer of the filters (keyword only).
    bias_init: Initializer of the biases (keyword only).
)doc")
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
    link_class<L::Inception, L::Chain>(m, "Inception", R"doc(Inception module of GoogLeNet.

Concatenates along the channels a 1x1 convolution (``out1``), a 1x1 (``proj3``) then 3x3 (``out3``) convolution, a
1x1 (``proj5``) then 5x5 (``out5``) convolution, and a 3x3 max pooling then 1x1 (``proj_pool``) convolution, each
followed by ReLU.

Args:
    in_channels (int or None): Input channels (``None``: inferred).
    out1, proj3, out3, proj5, out5, proj_pool (int): Channels of the branches.
    conv_init: Initializer of the filters.
    bias_init: Initializer of the biases.
)doc")
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
