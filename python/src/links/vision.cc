// rensa._core.links, Chainer's pretrained vision models (chainer.links.model.vision): the C++
// chains VGGLayers, ResNetLayers, GoogLeNet and ResNet's BuildingBlock, BottleneckA and
// BottleneckB. python/rensa/links/model/vision adds extract, predict, prepare and
// pretrained_model='auto' (Note [Pretrained vision models] in links/model/vision/layers.h).
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "links/model/vision/googlenet.h"
#include "links/model/vision/resnet.h"
#include "links/model/vision/vgg.h"
#include "python/src/convert/variables.h"
#include "python/src/links/links.h"

namespace rensa::python::links_detail {
namespace L = rensa::links;

namespace {

// Chainer's pretrained_model: None -> "" (random initialisation), else the path (str or os.PathLike).
std::string pretrained_path(py::handle obj) {
    if (obj.is_none()) return "";
    return py::module_::import("os").attr("fspath")(obj).cast<std::string>();
}

py::dict to_dict(const std::map<std::string, Variable>& activations) {
    py::dict d;
    for (const auto& [name, v] : activations) d[py::str(name)] = v;
    return d;
}

// The forward / __call__ and available_layers every model binds: forward(x, layers=None)
// returns a dict of the requested layers (Chainer's default ['prob']).
template <class T, class Class>
void bind_layers_interface(Class& cls) {
    const auto forward = [](T& self, py::handle x, std::optional<std::vector<std::string>> layers) {
        return to_dict(self.forward(to_variable(x), layers.value_or(std::vector<std::string>{"prob"})));
    };
    cls.def("forward", forward, py::arg("x"), py::arg("layers") = py::none())
        .def("__call__", forward, py::arg("x"), py::arg("layers") = py::none())
        .def_property_readonly("available_layers", [](T& self) { return self.available_layers(); });
}

// A BuildingBlock argument Chainer defaults to None but needs.
template <class I>
I required(const std::optional<I>& value, const char* name) {
    RENSA_CHECK(value.has_value(), ValueError, "BuildingBlock: Expect: ", name, " to be given, Actual: None");
    return *value;
}

}  // namespace

void bind_vision_links(py::module_& m) {
    auto vgg = link_class<L::VGGLayers, L::Chain>(m, "VGGLayers");
    vgg.def(link_init<L::VGGLayers>([](py::handle pretrained_model, int n_layers) {
                return std::make_shared<L::VGGLayers>(pretrained_path(pretrained_model), n_layers);
            }),
            py::arg("pretrained_model") = "auto", py::arg("n_layers") = 16);
    bind_layers_interface<L::VGGLayers>(vgg);

    auto resnet = link_class<L::ResNetLayers, L::Chain>(m, "ResNetLayers");
    resnet.def(link_init<L::ResNetLayers>([](py::handle pretrained_model, int n_layers, bool downsample_fb) {
                   return std::make_shared<L::ResNetLayers>(pretrained_path(pretrained_model), n_layers, downsample_fb);
               }),
               py::arg("pretrained_model"), py::arg("n_layers"), py::arg("downsample_fb") = false);
    bind_layers_interface<L::ResNetLayers>(resnet);

    auto googlenet = link_class<L::GoogLeNet, L::Chain>(m, "GoogLeNet");
    googlenet.def(link_init<L::GoogLeNet>([](py::handle pretrained_model) {
                      return std::make_shared<L::GoogLeNet>(pretrained_path(pretrained_model));
                  }),
                  py::arg("pretrained_model") = "auto");
    bind_layers_interface<L::GoogLeNet>(googlenet);

    using L::resnet::BottleneckA, L::resnet::BottleneckB, L::resnet::BuildingBlock;
    link_class<BuildingBlock, L::Chain>(
        m, "BuildingBlock",
        R"doc(A building block of ResNet: a BottleneckA ``a`` then ``n_layers - 1`` BottleneckBs ``b1``, ``b2``, ...

Args:
    n_layers (int): The number of bottlenecks (at least 1).
    in_channels (int): Input channels.
    mid_channels (int): Channels inside the bottlenecks.
    out_channels (int): Output channels.
    stride (int): Stride of the first bottleneck.
    initialW: Initializer of the convolution weights.
    downsample_fb (bool): Put the stride on the 3x3 convolution (fb.resnet.torch) instead of the first 1x1.
)doc")
        .def(link_init<BuildingBlock>([](std::optional<int> n_layers, std::optional<int64_t> in_channels,
                                         std::optional<int64_t> mid_channels, std::optional<int64_t> out_channels,
                                         std::optional<int64_t> stride, py::handle initialW, py::handle downsample_fb) {
                 // One at a time: the first missing argument is the one named.
                 const int n = required(n_layers, "n_layers");
                 const int64_t in = required(in_channels, "in_channels");
                 const int64_t mid = required(mid_channels, "mid_channels");
                 const int64_t out = required(out_channels, "out_channels");
                 const int64_t s = required(stride, "stride");
                 return std::make_shared<BuildingBlock>(n, in, mid, out, s, to_initializer(initialW),
                                                        !downsample_fb.is_none() && downsample_fb.cast<bool>());
             }),
             py::arg("n_layers") = py::none(), py::arg("in_channels") = py::none(),
             py::arg("mid_channels") = py::none(), py::arg("out_channels") = py::none(), py::arg("stride") = py::none(),
             py::arg("initialW") = py::none(), py::arg("downsample_fb") = py::none());
    link_class<BottleneckA, L::Chain>(m, "BottleneckA",
                                      R"doc(A bottleneck of ResNet that changes the size.

1x1, 3x3 and 1x1 convolutions (no bias) with batch normalization, plus a strided 1x1 projection shortcut.

Args:
    in_channels (int): Input channels.
    mid_channels (int): Channels of the 3x3 convolution.
    out_channels (int): Output channels.
    stride (int): Stride, on the first 1x1 convolution or, with ``downsample_fb``, on the 3x3 one.
    initialW: Initializer of the convolution weights.
    downsample_fb (bool): Put the stride on the 3x3 convolution (fb.resnet.torch).
)doc")
        .def(link_init<BottleneckA>([](int64_t in_channels, int64_t mid_channels, int64_t out_channels, int64_t stride,
                                       py::handle initialW, bool downsample_fb) {
                 return std::make_shared<BottleneckA>(in_channels, mid_channels, out_channels, stride,
                                                      to_initializer(initialW), downsample_fb);
             }),
             py::arg("in_channels"), py::arg("mid_channels"), py::arg("out_channels"), py::arg("stride") = 2,
             py::arg("initialW") = py::none(), py::arg("downsample_fb") = false);
    link_class<BottleneckB, L::Chain>(m, "BottleneckB",
                                      R"doc(A bottleneck of ResNet that keeps the size.

1x1, 3x3 and 1x1 convolutions (no bias) with batch normalization and an identity shortcut.

Args:
    in_channels (int): Input and output channels.
    mid_channels (int): Channels of the 3x3 convolution.
    initialW: Initializer of the convolution weights.
)doc")
        .def(link_init<BottleneckB>([](int64_t in_channels, int64_t mid_channels, py::handle initialW) {
                 return std::make_shared<BottleneckB>(in_channels, mid_channels, to_initializer(initialW));
             }),
             py::arg("in_channels"), py::arg("mid_channels"), py::arg("initialW") = py::none());
}

}  // namespace rensa::python::links_detail
