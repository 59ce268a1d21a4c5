// rensa._core.links, issue 23's spatial links with Chainer's constructor signatures:
// LocalConvolution2D, DeformableConvolution2D (and the class of its deform_conv child,
// DeformableConvolution2DSampler, which Chainer keeps in
// chainer.links.connection.deformable_convolution_2d), DilatedConvolution2D, Convolution1D /
// Convolution3D and Deconvolution1D / Deconvolution3D (subclasses of ConvolutionND /
// DeconvolutionND / Convolution2D, as in Chainer).
#include <memory>
#include <optional>

#include "core/error.h"
#include "links/connection/convolution_variants.h"
#include "links/connection/deformable_convolution_2d.h"
#include "links/connection/local_convolution_2d.h"
#include "python/src/links/links.h"

namespace rensa::python::links_detail {
namespace L = rensa::links;

namespace {

constexpr const char* kDilated = "DilatedConvolution2D";
constexpr const char* kLocal = "LocalConvolution2D";
constexpr const char* kSampler = "DeformableConvolution2DSampler";
constexpr const char* kDeformable = "DeformableConvolution2D";

template <class T>
void bind_convolution_nd_variant(py::module_& m, const char* name, const char* doc) {
    link_class<T, L::ConvolutionND>(m, name, doc)
        .def(link_init<T>([name](py::handle in_channels, int64_t out_channels, py::handle ksize, py::handle stride,
                                 py::handle pad, bool nobias, py::handle initialW, py::handle initial_bias,
                                 bool cover_all, py::handle dilate, int64_t groups) {
                 L::ConvolutionNDOptions o;
                 set_conv_options(o, name, stride, pad, nobias, initialW, initial_bias);
                 o.cover_all = cover_all;
                 o.dilate = to_int_or_tuple(dilate, name, "dilate");
                 o.groups = groups;
                 return std::make_shared<T>(optional_int(in_channels), out_channels,
                                            to_int_or_tuple(ksize, name, "ksize"), o);
             }),
             py::arg("in_channels"), py::arg("out_channels"), py::arg("ksize"), py::arg("stride") = 1,
             py::arg("pad") = 0, py::arg("nobias") = false, py::arg("initialW") = py::none(),
             py::arg("initial_bias") = py::none(), py::arg("cover_all") = false, py::arg("dilate") = 1,
             py::arg("groups") = 1);
}

template <class T>
void bind_deconvolution_nd_variant(py::module_& m, const char* name, const char* doc) {
    link_class<T, L::DeconvolutionND>(m, name, doc)
        .def(link_init<T>([name](py::handle in_channels, int64_t out_channels, py::handle ksize, py::handle stride,
                                 py::handle pad, bool nobias, py::handle outsize, py::handle initialW,
                                 py::handle initial_bias, py::handle dilate, int64_t groups) {
                 L::DeconvolutionNDOptions o;
                 set_conv_options(o, name, stride, pad, nobias, initialW, initial_bias);
                 o.outsize = to_optional_shape(outsize, name);
                 o.dilate = to_int_or_tuple(dilate, name, "dilate");
                 o.groups = groups;
                 return std::make_shared<T>(optional_int(in_channels), out_channels,
                                            to_int_or_tuple(ksize, name, "ksize"), o);
             }),
             py::arg("in_channels"), py::arg("out_channels"), py::arg("ksize"), py::arg("stride") = 1,
             py::arg("pad") = 0, py::arg("nobias") = false, py::arg("outsize") = py::none(),
             py::arg("initialW") = py::none(), py::arg("initial_bias") = py::none(), py::arg("dilate") = 1,
             py::arg("groups") = 1);
}

void bind_dilated_convolution(py::module_& m) {
    link_class<L::DilatedConvolution2D, L::Convolution2D>(m, kDilated, R"doc(Two-dimensional dilated convolution layer.

A Convolution2D with the dilation as a positional argument: ``DilatedConvolution2D(in_channels, out_channels,
ksize, stride=1, pad=0, dilate=1, nobias=False, initialW=None, initial_bias=None)``, or the short form
``(out_channels, ksize)`` with lazy input channels (``functions.dilated_convolution_2d``).
)doc")
        .def(link_init<L::DilatedConvolution2D>([](py::handle in_channels, py::handle out_channels, py::handle ksize,
                                                   py::handle stride, py::handle pad, py::handle dilate, bool nobias,
                                                   py::handle initialW, py::handle initial_bias) {
                 // Chainer's short form DilatedConvolution2D(out_channels, ksize).
                 if (ksize.is_none()) ksize = std::exchange(out_channels, std::exchange(in_channels, py::none()));
                 L::DilatedConvolution2DOptions o{.stride = to_int_or_tuple(stride, kDilated, "stride"),
                                                  .pad = to_int_or_tuple(pad, kDilated, "pad"),
                                                  .dilate = to_int_or_tuple(dilate, kDilated, "dilate"),
                                                  .nobias = nobias,
                                                  .initialW = to_initializer(initialW),
                                                  .initial_bias = to_initializer(initial_bias)};
                 return std::make_shared<L::DilatedConvolution2D>(optional_int(in_channels),
                                                                  out_channels.cast<int64_t>(),
                                                                  to_int_or_tuple(ksize, kDilated, "ksize"), o);
             }),
             py::arg("in_channels"), py::arg("out_channels"), py::arg("ksize") = py::none(), py::arg("stride") = 1,
             py::arg("pad") = 0, py::arg("dilate") = 1, py::arg("nobias") = false, py::arg("initialW") = py::none(),
             py::arg("initial_bias") = py::none());
}

void bind_local_convolution(py::module_& m) {
    link_class<L::LocalConvolution2D, L::Link>(
        m, kLocal, R"doc(Two-dimensional local convolution layer: a convolution without weight sharing.

Each output position has its own filter: ``W`` has shape ``(out_channels, out_h, out_w, in_channels, kh, kw)`` and
``b`` ``(out_channels, out_h, out_w)`` (``functions.local_convolution_2d``). ``out_h = (h - kh) // sy + 1``: unlike
Chainer's link, which ignores the stride there, strides other than 1 work.

Args:
    in_channels (int or None): Input channels (``None``: inferred with ``in_size``).
    out_channels (int): Output channels.
    in_size (int, pair of ints or None): The input's spatial size (``None``: inferred at the first forward).
    ksize (int or pair of ints): Kernel size (required).
    stride (int or pair of ints): Stride.
    nobias (bool): No bias when ``True``.
    initialW: Initializer of ``W``.
    initial_bias: Initializer of ``b``.
)doc")
        .def(link_init<L::LocalConvolution2D>([](py::handle in_channels, int64_t out_channels, py::handle in_size,
                                                 py::handle ksize, py::handle stride, bool nobias, py::handle initialW,
                                                 py::handle initial_bias) {
                 RENSA_CHECK(!ksize.is_none(), ValueError, kLocal, ": ksize must be given");
                 std::optional<F::IntOrTuple> size;
                 if (!in_size.is_none()) size = to_int_or_tuple(in_size, kLocal, "in_size");
                 return std::make_shared<L::LocalConvolution2D>(
                     optional_int(in_channels), out_channels, size, to_int_or_tuple(ksize, kLocal, "ksize"),
                     L::LocalConvolution2DOptions{.stride = to_int_or_tuple(stride, kLocal, "stride"),
                                                  .nobias = nobias,
                                                  .initialW = to_initializer(initialW),
                                                  .initial_bias = to_initializer(initial_bias)});
             }),
             py::arg("in_channels"), py::arg("out_channels"), py::arg("in_size") = py::none(),
             py::arg("ksize") = py::none(), py::arg("stride") = 1, py::arg("nobias") = false,
             py::arg("initialW") = py::none(), py::arg("initial_bias") = py::none())
        .def_property_readonly("out_channels", &L::LocalConvolution2D::out_channels, "The number of output channels.");
}

void bind_deformable_convolution(py::module_& m) {
    link_class<L::DeformableConvolution2DSampler, L::Link>(
        m, kSampler, R"doc(The sampling convolution of DeformableConvolution2D (its ``deform_conv`` child).

``sampler(x, offset)`` convolves ``x`` sampled at the kernel positions moved by ``offset``
(``functions.deformable_convolution_2d_sampler``). Arguments as in Convolution2D.
)doc")
        .def(link_init<L::DeformableConvolution2DSampler>(
                 [](py::handle in_channels, int64_t out_channels, py::handle ksize, py::handle stride, py::handle pad,
                    bool nobias, py::handle initialW, py::handle initial_bias) {
                     return std::make_shared<L::DeformableConvolution2DSampler>(
                         optional_int(in_channels), out_channels, to_int_or_tuple(ksize, kSampler, "ksize"),
                         L::DeformableConvolution2DSamplerOptions{.stride = to_int_or_tuple(stride, kSampler, "stride"),
                                                                  .pad = to_int_or_tuple(pad, kSampler, "pad"),
                                                                  .nobias = nobias,
                                                                  .initialW = to_initializer(initialW),
                                                                  .initial_bias = to_initializer(initial_bias)});
                 }),
             py::arg("in_channels"), py::arg("out_channels"), py::arg("ksize"), py::arg("stride") = 1,
             py::arg("pad") = 0, py::arg("nobias") = false, py::arg("initialW") = py::none(),
             py::arg("initial_bias") = py::none())
        .def_property_readonly("out_channels", &L::DeformableConvolution2DSampler::out_channels,
                               "The number of output channels.");

    link_class<L::DeformableConvolution2D, L::Chain>(m, kDeformable, R"doc(Two-dimensional deformable convolution layer.

A Convolution2D ``offset_conv`` computes ``2 * kh * kw`` offset channels from ``x``; the DeformableConvolution2DSampler
``deform_conv`` then convolves ``x`` sampled at the offset kernel positions.

Args:
    in_channels (int or None): Input channels (``None``: inferred).
    out_channels (int): Output channels.
    ksize (int or pair of ints): Kernel size.
    stride (int or pair of ints): Stride.
    pad (int or pair of ints): Padding.
    offset_nobias, offset_initialW, offset_initial_bias: Bias switch and initializers of ``offset_conv``.
    deform_nobias, deform_initialW, deform_initial_bias: Bias switch and initializers of ``deform_conv``.
)doc")
        .def(link_init<L::DeformableConvolution2D>(
                 [](py::handle in_channels, int64_t out_channels, py::handle ksize, py::handle stride, py::handle pad,
                    bool offset_nobias, py::handle offset_initialW, py::handle offset_initial_bias, bool deform_nobias,
                    py::handle deform_initialW, py::handle deform_initial_bias) {
                     return std::make_shared<L::DeformableConvolution2D>(
                         optional_int(in_channels), out_channels, to_int_or_tuple(ksize, kDeformable, "ksize"),
                         L::DeformableConvolution2DOptions{.stride = to_int_or_tuple(stride, kDeformable, "stride"),
                                                           .pad = to_int_or_tuple(pad, kDeformable, "pad"),
                                                           .offset_nobias = offset_nobias,
                                                           .offset_initialW = to_initializer(offset_initialW),
                                                           .offset_initial_bias = to_initializer(offset_initial_bias),
                                                           .deform_nobias = deform_nobias,
                                                           .deform_initialW = to_initializer(deform_initialW),
                                                           .deform_initial_bias = to_initializer(deform_initial_bias)});
                 }),
             py::arg("in_channels"), py::arg("out_channels"), py::arg("ksize"), py::arg("stride") = 1,
             py::arg("pad") = 0, py::arg("offset_nobias") = false, py::arg("offset_initialW") = py::none(),
             py::arg("offset_initial_bias") = py::none(), py::arg("deform_nobias") = false,
             py::arg("deform_initialW") = py::none(), py::arg("deform_initial_bias") = py::none());
}

}  // namespace

void bind_spatial_links(py::module_& links) {
    bind_convolution_nd_variant<L::Convolution1D>(
        links, "Convolution1D",
        "One-dimensional convolution layer: ConvolutionND with ``ndim=1``, ``Convolution1D(in_channels, "
        "out_channels, ksize, stride=1, pad=0, nobias=False, initialW=None, initial_bias=None, cover_all=False, "
        "dilate=1, groups=1)``.");
    bind_convolution_nd_variant<L::Convolution3D>(
        links, "Convolution3D",
        "Three-dimensional convolution layer: ConvolutionND with ``ndim=3``, arguments as in Convolution1D.");
    bind_deconvolution_nd_variant<L::Deconvolution1D>(
        links, "Deconvolution1D",
        "One-dimensional deconvolution layer: DeconvolutionND with ``ndim=1``, ``Deconvolution1D(in_channels, "
        "out_channels, ksize, stride=1, pad=0, nobias=False, outsize=None, initialW=None, initial_bias=None, "
        "dilate=1, groups=1)``.");
    bind_deconvolution_nd_variant<L::Deconvolution3D>(
        links, "Deconvolution3D",
        "Three-dimensional deconvolution layer: DeconvolutionND with ``ndim=3``, arguments as in Deconvolution1D.");
    bind_dilated_convolution(links);
    bind_local_convolution(links);
    bind_deformable_convolution(links);
}

}  // namespace rensa::python::links_detail
