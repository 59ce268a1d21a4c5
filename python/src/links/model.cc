// rensa._core.links, models: Classifier (its loss and accuracy functions may be Python
// callables) and the vision models of Chainer's examples (CifarVGG16, ResNet50,
// ImageNetGoogLeNet, Alex, NIN; Chainer's pretrained models are in vision.cc).
#include <pybind11/functional.h>

#include <memory>
#include <utility>

#include "links/model/classifier.h"
#include "links/model/vision/alexnet.h"
#include "links/model/vision/cifar_vgg16.h"
#include "links/model/vision/imagenet_googlenet.h"
#include "links/model/vision/nin.h"
#include "links/model/vision/resnet50.h"
#include "python/src/convert/variables.h"
#include "python/src/links/function_defaults.h"
#include "python/src/links/links.h"

namespace rensa::python::links_detail {
namespace L = rensa::links;

namespace {

// A Python function for C++; the C++ default (null) when it is rensa's own `name`, which
// then runs without Python in the loop.
L::LossFunction loss_function(py::handle f, const char* name) {
    if (f.is_none() || is_bound_function(f, name)) return nullptr;
    return f.cast<L::LossFunction>();
}

// `f` for Python: rensa.functions.<name> when it holds `default_function`, else the callable.
py::object function_to_python(const L::LossFunction& f, Variable (*default_function)(const Variable&, const Variable&),
                              const char* name) {
    using Plain = Variable (*)(const Variable&, const Variable&);
    if (const Plain* target = f.target<Plain>(); target != nullptr && *target == default_function) {
        return py::module_::import("rensa._core.functions").attr(name);
    }
    return py::cast(f);
}

}  // namespace

void bind_model_links(py::module_& m) {
    link_class<L::Classifier, L::Chain>(m, "Classifier",
                                        R"doc(A simple classifier model: a predictor with a loss and an accuracy.

``model(*args)`` takes the label out of ``args`` at ``label_key``, calls the predictor with the rest, computes
``loss = lossfun(y, t)`` (and ``accuracy = accfun(y, t)`` when ``compute_accuracy``), reports ``loss`` and
``accuracy`` to the reporter with itself as observer and returns the loss.

Args:
    predictor (Link): The predictor.
    lossfun: The loss function (``functions.softmax_cross_entropy`` by default); any Python callable ``f(y, t)``.
    accfun: The accuracy function (``functions.accuracy`` by default).
    label_key (int): The position of the label among the inputs (negative counts from the end). Chainer also
        takes a str key of keyword arguments; rensa takes only an int.
)doc")
        .def(link_init<L::Classifier>(
                 [](std::shared_ptr<L::Link> predictor, py::handle lossfun, py::handle accfun, int label_key) {
                     return std::make_shared<L::Classifier>(std::move(predictor),
                                                            loss_function(lossfun, "softmax_cross_entropy"),
                                                            loss_function(accfun, "accuracy"), label_key);
                 }),
             py::arg("predictor"), function_default("lossfun", "softmax_cross_entropy"),
             function_default("accfun", "accuracy"), py::arg("label_key") = -1)
        .def_readonly("predictor", &L::Classifier::predictor, "The predictor link.")
        // Chainer's assignable attributes; the defaults read back as rensa.functions' own.
        .def_property(
            "lossfun",
            [](const L::Classifier& self) {
                return function_to_python(self.lossfun, &L::Classifier::default_lossfun, "softmax_cross_entropy");
            },
            [](L::Classifier& self, py::handle f) {
                self.lossfun = loss_function(f, "softmax_cross_entropy");
                if (!self.lossfun) self.lossfun = &L::Classifier::default_lossfun;
            },
            "The loss function ``lossfun(y, t)``; assignable.")
        .def_property(
            "accfun",
            [](const L::Classifier& self) {
                return function_to_python(self.accfun, &L::Classifier::default_accfun, "accuracy");
            },
            [](L::Classifier& self, py::handle f) {
                self.accfun = loss_function(f, "accuracy");
                if (!self.accfun) self.accfun = &L::Classifier::default_accfun;
            },
            "The accuracy function ``accfun(y, t)``; assignable.")
        .def_readwrite("compute_accuracy", &L::Classifier::compute_accuracy,
                       "Whether a call also computes and reports the accuracy.")
        .def_readwrite("label_key", &L::Classifier::label_key, "The position of the label among the inputs.")
        .def_property_readonly(
            "y", [](const L::Classifier& self) { return variable_or_none(self.y); },
            "The predictor's output of the last call, or None.")
        .def_property_readonly(
            "loss", [](const L::Classifier& self) { return variable_or_none(self.loss); },
            "The loss of the last call, or None.")
        .def_property_readonly(
            "accuracy", [](const L::Classifier& self) { return variable_or_none(self.accuracy); },
            "The accuracy of the last call, or None (also when ``compute_accuracy`` is false).");

    link_class<L::CifarVGG16, L::Chain>(m, "CifarVGG16", R"doc(The VGG of Chainer's CIFAR example (``examples/cifar``).

Thirteen 3x3 convolution, batch normalization and ReLU blocks in five groups, with dropout between them and 2x2 max
pooling after each group, then ``fc1`` (512) with batch normalization and ReLU, and ``fc2``. Made for 32x32 inputs;
no pretrained weights. ``model(x)`` returns the logits.

Args:
    class_labels (int): The number of classes.
)doc")
        .def(py::init<int64_t>(), py::arg("class_labels") = 10);
    link_class<L::ResNet50, L::Chain>(m, "ResNet50",
                                      R"doc(ResNet-50 of Chainer's ImageNet example, without pretrained weights.

``model(x)`` returns the logits. The last pooling averages over the whole feature map, so inputs smaller than
224x224 work too (32x32 at least). For Chainer's pretrained model see ``ResNet50Layers``.

Args:
    n_class (int): The number of classes.
)doc")
        .def(py::init<int64_t>(), py::arg("n_class") = 1000);
    link_class<L::ImageNetGoogLeNet, L::Chain>(m, "ImageNetGoogLeNet",
                                               R"doc(The GoogLeNet of Chainer's ImageNet example.

``model(x)`` returns the main logits; ``model(x, t)`` returns the example's training loss
``0.3 * (loss1 + loss2) + loss3`` of the auxiliary and main classifiers and reports ``loss``, ``loss1``, ``loss2``,
``loss3`` and ``accuracy``. No pretrained weights; for Chainer's pretrained model see ``GoogLeNet``.

Args:
    n_class (int): The number of classes.
)doc")
        .def(py::init<int64_t>(), py::arg("n_class") = 1000);
    link_class<L::Alex, L::Chain>(m, "Alex",
                                  R"doc(AlexNet of Chainer's ImageNet example (single-GPU, no channel partition).

Five convolutions with ReLU, local response normalization and max pooling, then ``fc6`` and ``fc7`` (4096, ReLU,
dropout) and ``fc8``. ``model(x)`` returns the logits; input sizes are learned at the first forward. No pretrained
weights.

Args:
    n_class (int): The number of classes.
)doc")
        .def(py::init<int64_t>(), py::arg("n_class") = 1000);
    link_class<L::NIN, L::Chain>(m, "NIN", R"doc(Network in Network of Chainer's ImageNet example.

Four MLPConvolution2D blocks (HeNormal weights, ReLU) with 3x3 stride-2 max pooling after the first three and
dropout before the last, then a 6x6 average pooling to ``(n, n_class)`` logits. No pretrained
weights.

Args:
    n_class (int): The number of classes.
)doc")
        .def(py::init<int64_t>(), py::arg("n_class") = 1000);
}

}  // namespace rensa::python::links_detail
