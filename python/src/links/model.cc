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
    link_class<L::Classifier, L::Chain>(m, "Classifier")
        .def(link_init<L::Classifier>(
                 [](std::shared_ptr<L::Link> predictor, py::handle lossfun, py::handle accfun, int label_key) {
                     return std::make_shared<L::Classifier>(std::move(predictor),
                                                            loss_function(lossfun, "softmax_cross_entropy"),
                                                            loss_function(accfun, "accuracy"), label_key);
                 }),
             py::arg("predictor"), function_default("lossfun", "softmax_cross_entropy"),
             function_default("accfun", "accuracy"), py::arg("label_key") = -1)
        .def_readonly("predictor", &L::Classifier::predictor)
        // Chainer's assignable attributes; the defaults read back as rensa.functions' own.
        .def_property(
            "lossfun",
            [](const L::Classifier& self) {
                return function_to_python(self.lossfun, &L::Classifier::default_lossfun, "softmax_cross_entropy");
            },
            [](L::Classifier& self, py::handle f) {
                self.lossfun = loss_function(f, "softmax_cross_entropy");
                if (!self.lossfun) self.lossfun = &L::Classifier::default_lossfun;
            })
        .def_property(
            "accfun",
            [](const L::Classifier& self) {
                return function_to_python(self.accfun, &L::Classifier::default_accfun, "accuracy");
            },
            [](L::Classifier& self, py::handle f) {
                self.accfun = loss_function(f, "accuracy");
                if (!self.accfun) self.accfun = &L::Classifier::default_accfun;
            })
        .def_readwrite("compute_accuracy", &L::Classifier::compute_accuracy)
        .def_readwrite("label_key", &L::Classifier::label_key)
        .def_property_readonly("y", [](const L::Classifier& self) { return variable_or_none(self.y); })
        .def_property_readonly("loss", [](const L::Classifier& self) { return variable_or_none(self.loss); })
        .def_property_readonly("accuracy", [](const L::Classifier& self) { return variable_or_none(self.accuracy); });

    link_class<L::CifarVGG16, L::Chain>(m, "CifarVGG16").def(py::init<int64_t>(), py::arg("class_labels") = 10);
    link_class<L::ResNet50, L::Chain>(m, "ResNet50").def(py::init<int64_t>(), py::arg("n_class") = 1000);
    link_class<L::ImageNetGoogLeNet, L::Chain>(m, "ImageNetGoogLeNet")
        .def(py::init<int64_t>(), py::arg("n_class") = 1000);
    link_class<L::Alex, L::Chain>(m, "Alex").def(py::init<int64_t>(), py::arg("n_class") = 1000);
    link_class<L::NIN, L::Chain>(m, "NIN").def(py::init<int64_t>(), py::arg("n_class") = 1000);
}

}  // namespace rensa::python::links_detail
