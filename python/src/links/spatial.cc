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
void bind_convolution_nd_variant(py::module_& m, const char* name) {
    link_class<T, L::ConvolutionND>(m, name).def(
        link_init<T>([name](py::handle in_channels, int64_t out_channels, py::handle ksize, py::handle stride,
                            py::handle pad, bool nobias, py::handle initialW, py::handle initial_bias, bool cover_all,
                            py::handle dilate, int64_t groups) {
            L::ConvolutionNDOptions o;
            set_conv_options(o, name, stride, pad, nobias, initialW, initial_bias);
            o.cover_all = cover_all;
            o.dilate = to_int_or_tuple(dilate, name, "dilate");
            o.groups = groups;
            return std::make_shared<T>(optional_int(in_channels), out_channels, to_int_or_tuple(ksize, name, "ksize"),
                                       o);
        }),
        py::arg("in_channels"), py::arg("out_channels"), py::arg("ksize"), py::arg("stride") = 1, py::arg("pad") = 0,
        py::arg("nobias") = false, py::arg("initialW") = py::none(), py::arg("initial_bias") = py::none(),
        py::arg("cover_all") = false, py::arg("dilate") = 1, py::arg("groups") = 1);
}

template <class T>
void bind_deconvolution_nd_variant(py::module_& m, const char* name) {
    link_class<T, L::DeconvolutionND>(m, name).def(
        link_init<T>([name](py::handle in_channels, int64_t out_channels, py::handle ksize, py::handle stride,
                            py::handle pad, bool nobias, py::handle outsize, py::handle initialW,
                            py::handle initial_bias, py::handle dilate, int64_t groups) {
            L::DeconvolutionNDOptions o;
            set_conv_options(o, name, stride, pad, nobias, initialW, initial_bias);
            o.outsize = to_optional_shape(outsize, name);
            o.dilate = to_int_or_tuple(dilate, name, "dilate");
            o.groups = groups;
            return std::make_shared<T>(optional_int(in_channels), out_channels, to_int_or_tuple(ksize, name, "ksize"),
                                       o);
        }),
        py::arg("in_channels"), py::arg("out_channels"), py::arg("ksize"), py::arg("stride") = 1, py::arg("pad") = 0,
        py::arg("nobias") = false, py::arg("outsize") = py::none(), py::arg("initialW") = py::none(),
        py::arg("initial_bias") = py::none(), py::arg("dilate") = 1, py::arg("groups") = 1);
}

void bind_dilated_convolution(py::module_& m) {
    link_class<L::DilatedConvolution2D, L::Convolution2D>(m, kDilated)
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
    link_class<L::LocalConvolution2D, L::Link>(m, kLocal)
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
        .def_property_readonly("out_channels", &L::LocalConvolution2D::out_channels);
}

void bind_deformable_convolution(py::module_& m) {
    link_class<L::DeformableConvolution2DSampler, L::Link>(m, kSampler)
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
        .def_property_readonly("out_channels", &L::DeformableConvolution2DSampler::out_channels);

    link_class<L::DeformableConvolution2D, L::Chain>(m, kDeformable)
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
    bind_convolution_nd_variant<L::Convolution1D>(links, "Convolution1D");
    bind_convolution_nd_variant<L::Convolution3D>(links, "Convolution3D");
    bind_deconvolution_nd_variant<L::Deconvolution1D>(links, "Deconvolution1D");
    bind_deconvolution_nd_variant<L::Deconvolution3D>(links, "Deconvolution3D");
    bind_dilated_convolution(links);
    bind_local_convolution(links);
    bind_deformable_convolution(links);
}

}  // namespace rensa::python::links_detail
