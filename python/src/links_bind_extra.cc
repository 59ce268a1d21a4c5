// rensa._core.links: Bias, Scale, Bilinear, MLPConvolution2D and Inception.
#include <pybind11/functional.h>

#include <memory>
#include <optional>

#include "links/connection/bias.h"
#include "links/connection/bilinear.h"
#include "links/connection/inception.h"
#include "links/connection/mlp_convolution_2d.h"
#include "links/connection/scale.h"
#include "python/src/links_bind.h"

namespace rensa::python::links_detail {
namespace L = rensa::links;

namespace {}  // namespace

void bind_extra_links(py::module_& m) {
    py::classh<L::Bias, L::Link>(m, "Bias", py::dynamic_attr())
        .def(py::init(
                 [](int axis, py::handle shape) { return std::make_shared<L::Bias>(axis, to_optional_shape(shape)); }),
             py::arg("axis") = 1, py::arg("shape") = py::none());
    py::classh<L::Scale, L::Link>(m, "Scale", py::dynamic_attr())
        .def(py::init([](int axis, py::handle W_shape, bool bias_term, py::handle bias_shape) {
                 return std::make_shared<L::Scale>(axis, to_optional_shape(W_shape), bias_term,
                                                   to_optional_shape(bias_shape));
             }),
             py::arg("axis") = 1, py::arg("W_shape") = py::none(), py::arg("bias_term") = false,
             py::arg("bias_shape") = py::none());
    py::classh<L::Bilinear, L::Link>(m, "Bilinear", py::dynamic_attr())
        .def(py::init([](int64_t left_size, int64_t right_size, int64_t out_size, bool nobias, py::handle initialW,
                         py::handle initial_bias) {
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
             py::arg("initialW") = py::none(), py::arg("initial_bias") = py::none());
    py::classh<L::MLPConvolution2D, L::ChainList>(m, "MLPConvolution2D", py::dynamic_attr())
        .def(py::init([](py::handle in_channels, py::handle out_channels, py::handle ksize, py::handle stride,
                         py::handle pad, py::handle activation, py::handle conv_init, py::handle bias_init) {
                 // Chainer's short form MLPConvolution2D(out_channels, ksize).
                 if (ksize.is_none()) {
                     ksize = out_channels;
                     out_channels = in_channels;
                     in_channels = py::none();
                 }
                 L::MLPConvolution2DOptions o;
                 o.stride = to_int_or_tuple(stride);
                 o.pad = to_int_or_tuple(pad);
                 if (!activation.is_none()) o.activation = activation.cast<std::function<Variable(const Variable&)>>();
                 o.conv_init = to_initializer(conv_init);
                 o.bias_init = to_initializer(bias_init);
                 return std::make_shared<L::MLPConvolution2D>(
                     optional_int(in_channels), out_channels.cast<std::vector<int64_t>>(), to_int_or_tuple(ksize), o);
             }),
             py::arg("in_channels"), py::arg("out_channels"), py::arg("ksize") = py::none(), py::arg("stride") = 1,
             py::arg("pad") = 0, py::arg("activation") = py::none(), py::arg("conv_init") = py::none(),
             py::arg("bias_init") = py::none());
    py::classh<L::Inception, L::Chain>(m, "Inception", py::dynamic_attr())
        .def(py::init([](py::handle in_channels, int64_t out1, int64_t proj3, int64_t out3, int64_t proj5, int64_t out5,
                         int64_t proj_pool, py::handle conv_init, py::handle bias_init) {
                 return std::make_shared<L::Inception>(optional_int(in_channels), out1, proj3, out3, proj5, out5,
                                                       proj_pool, to_initializer(conv_init), to_initializer(bias_init));
             }),
             py::arg("in_channels"), py::arg("out1"), py::arg("proj3"), py::arg("out3"), py::arg("proj5"),
             py::arg("out5"), py::arg("proj_pool"), py::arg("conv_init") = py::none(),
             py::arg("bias_init") = py::none());
}

}  // namespace rensa::python::links_detail
