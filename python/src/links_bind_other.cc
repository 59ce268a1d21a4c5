// rensa._core.links: normalization, activation, recurrent and model links (Classifier and
// the reference vision models), with Chainer's signatures and attribute names.
#include <pybind11/functional.h>

#include <memory>
#include <optional>

#include "links/activation/maxout.h"
#include "links/activation/prelu.h"
#include "links/connection/gru.h"
#include "links/connection/lstm.h"
#include "links/model/classifier.h"
#include "links/model/vision/alexnet.h"
#include "links/model/vision/googlenet.h"
#include "links/model/vision/nin.h"
#include "links/model/vision/resnet50.h"
#include "links/model/vision/vgg16.h"
#include "links/normalization/batch_normalization.h"
#include "links/normalization/group_normalization.h"
#include "links/normalization/layer_normalization.h"
#include "python/src/links_bind.h"

namespace rensa::python::links_detail {
namespace L = rensa::links;

namespace {

// Chainer shows an undefined Variable (no state yet) as None.
py::object variable_or_none(const Variable& v) { return v.defined() ? py::cast(v) : py::object(py::none()); }
Variable none_or_variable(py::handle obj) { return obj.is_none() ? Variable() : to_variable(obj); }
py::object array_or_none(const Array& a) { return a.defined() ? to_numpy(a) : py::object(py::none()); }

void bind_normalization(py::module_& m) {
    py::classh<L::BatchNormalization, L::Link>(m, "BatchNormalization", py::dynamic_attr())
        .def(py::init([](py::handle size, double decay, double eps, py::handle dtype, bool use_gamma, bool use_beta,
                         py::handle initial_gamma, py::handle initial_beta, py::handle axis,
                         py::handle initial_avg_mean, py::handle initial_avg_var) {
                 L::BatchNormalizationOptions o;
                 o.decay = decay;
                 o.eps = eps;
                 o.dtype = to_dtype(dtype);
                 o.use_gamma = use_gamma;
                 o.use_beta = use_beta;
                 o.initial_gamma = to_initializer(initial_gamma);
                 o.initial_beta = to_initializer(initial_beta);
                 if (!axis.is_none()) {
                     Axes axes;
                     for (int64_t a : to_shape(axis)) axes.push_back(static_cast<int>(a));
                     o.axis = axes;
                 }
                 o.initial_avg_mean = to_initializer(initial_avg_mean);
                 o.initial_avg_var = to_initializer(initial_avg_var);
                 return std::make_shared<L::BatchNormalization>(to_optional_shape(size), o);
             }),
             py::arg("size") = py::none(), py::arg("decay") = 0.9, py::arg("eps") = 2e-5,
             py::arg("dtype") = py::module_::import("numpy").attr("float32"), py::arg("use_gamma") = true,
             py::arg("use_beta") = true, py::arg("initial_gamma") = py::none(), py::arg("initial_beta") = py::none(),
             py::arg("axis") = py::none(), py::arg("initial_avg_mean") = py::none(),
             py::arg("initial_avg_var") = py::none())
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

    py::classh<L::LayerNormalization, L::Link>(m, "LayerNormalization", py::dynamic_attr())
        .def(py::init([](py::handle size, double eps, py::handle initial_gamma, py::handle initial_beta) {
                 return std::make_shared<L::LayerNormalization>(optional_int(size), eps, to_initializer(initial_gamma),
                                                                to_initializer(initial_beta));
             }),
             py::arg("size") = py::none(), py::arg("eps") = 1e-6, py::arg("initial_gamma") = py::none(),
             py::arg("initial_beta") = py::none())
        .def_readwrite("eps", &L::LayerNormalization::eps);

    py::classh<L::GroupNormalization, L::Link>(m, "GroupNormalization", py::dynamic_attr())
        .def(py::init(
                 [](int64_t groups, py::handle size, double eps, py::handle initial_gamma, py::handle initial_beta) {
                     return std::make_shared<L::GroupNormalization>(
                         groups, optional_int(size), eps, to_initializer(initial_gamma), to_initializer(initial_beta));
                 }),
             py::arg("groups"), py::arg("size") = py::none(), py::arg("eps") = 1e-5,
             py::arg("initial_gamma") = py::none(), py::arg("initial_beta") = py::none())
        .def_readwrite("eps", &L::GroupNormalization::eps);
}

void bind_activation(py::module_& m) {
    py::classh<L::PReLU, L::Link>(m, "PReLU", py::dynamic_attr())
        .def(py::init([](py::handle shape, py::handle init) {
                 return std::make_shared<L::PReLU>(to_shape(shape), to_initializer(init));
             }),
             py::arg("shape") = py::tuple(), py::arg("init") = 0.25);
    py::classh<L::Maxout, L::Link>(m, "Maxout", py::dynamic_attr())
        .def(py::init([](py::handle in_size, int64_t out_size, int64_t pool_size, py::handle initialW,
                         py::handle initial_bias) {
                 return std::make_shared<L::Maxout>(optional_int(in_size), out_size, pool_size,
                                                    to_initializer(initialW), to_initializer(initial_bias));
             }),
             py::arg("in_size"), py::arg("out_size"), py::arg("pool_size"), py::arg("initialW") = py::none(),
             py::arg("initial_bias") = 0);
}

void bind_recurrent(py::module_& m) {
    auto lstm_options = [](py::handle lateral_init, py::handle upward_init, py::handle bias_init,
                           py::handle forget_bias_init) {
        return L::LSTMOptions{to_initializer(lateral_init), to_initializer(upward_init), to_initializer(bias_init),
                              to_initializer(forget_bias_init)};
    };
    py::classh<L::LSTM, L::Chain>(m, "LSTM", py::dynamic_attr())
        .def(py::init([lstm_options](py::handle in_size, py::handle out_size, py::handle lateral_init,
                                     py::handle upward_init, py::handle bias_init, py::handle forget_bias_init) {
                 return std::make_shared<L::LSTM>(optional_int(in_size), optional_int(out_size),
                                                  lstm_options(lateral_init, upward_init, bias_init, forget_bias_init));
             }),
             py::arg("in_size"), py::arg("out_size") = py::none(), py::arg("lateral_init") = py::none(),
             py::arg("upward_init") = py::none(), py::arg("bias_init") = py::none(),
             py::arg("forget_bias_init") = py::none())
        .def_property_readonly("h", [](const L::LSTM& self) { return variable_or_none(self.h); })
        .def_property_readonly("c", [](const L::LSTM& self) { return variable_or_none(self.c); })
        .def_property_readonly("state_size", &L::LSTM::state_size)
        .def("reset_state", &L::LSTM::reset_state)
        .def(
            "set_state",
            [](L::LSTM& self, py::handle c, py::handle h) { self.set_state(none_or_variable(c), none_or_variable(h)); },
            py::arg("c"), py::arg("h"));

    py::classh<L::StatelessLSTM, L::Chain>(m, "StatelessLSTM", py::dynamic_attr())
        .def(py::init([lstm_options](py::handle in_size, py::handle out_size, py::handle lateral_init,
                                     py::handle upward_init, py::handle bias_init, py::handle forget_bias_init) {
                 return std::make_shared<L::StatelessLSTM>(
                     optional_int(in_size), optional_int(out_size),
                     lstm_options(lateral_init, upward_init, bias_init, forget_bias_init));
             }),
             py::arg("in_size"), py::arg("out_size") = py::none(), py::arg("lateral_init") = py::none(),
             py::arg("upward_init") = py::none(), py::arg("bias_init") = py::none(),
             py::arg("forget_bias_init") = py::none())
        .def(
            "__call__",
            [](L::StatelessLSTM& self, py::handle c, py::handle h, const Variable& x) {
                return self.forward(none_or_variable(c), none_or_variable(h), x);
            },
            py::arg("c"), py::arg("h"), py::arg("x"))
        .def_property_readonly("state_size", &L::StatelessLSTM::state_size);

    py::classh<L::StatefulGRU, L::Chain>(m, "StatefulGRU", py::dynamic_attr())
        .def(py::init([](py::handle in_size, int64_t out_size, py::handle init, py::handle inner_init,
                         py::handle bias_init) {
                 return std::make_shared<L::StatefulGRU>(
                     optional_int(in_size), out_size,
                     L::GRUOptions{to_initializer(init), to_initializer(inner_init), to_initializer(bias_init)});
             }),
             py::arg("in_size"), py::arg("out_size"), py::arg("init") = py::none(), py::arg("inner_init") = py::none(),
             py::arg("bias_init") = py::none())
        .def_property_readonly("h", [](const L::StatefulGRU& self) { return variable_or_none(self.h); })
        .def("reset_state", &L::StatefulGRU::reset_state)
        .def(
            "set_state", [](L::StatefulGRU& self, py::handle h) { self.set_state(none_or_variable(h)); }, py::arg("h"));
    py::classh<L::GRU, L::StatefulGRU>(m, "GRU", py::dynamic_attr())
        .def(py::init([](py::handle in_size, py::handle out_size, py::handle init, py::handle inner_init,
                         py::handle bias_init) {
                 return std::make_shared<L::GRU>(
                     optional_int(in_size), optional_int(out_size),
                     L::GRUOptions{to_initializer(init), to_initializer(inner_init), to_initializer(bias_init)});
             }),
             py::arg("in_size"), py::arg("out_size") = py::none(), py::arg("init") = py::none(),
             py::arg("inner_init") = py::none(), py::arg("bias_init") = py::none());
    py::classh<L::StatelessGRU, L::Chain>(m, "StatelessGRU", py::dynamic_attr())
        .def(py::init([](py::handle in_size, int64_t out_size, py::handle init, py::handle inner_init,
                         py::handle bias_init) {
                 return std::make_shared<L::StatelessGRU>(
                     optional_int(in_size), out_size,
                     L::GRUOptions{to_initializer(init), to_initializer(inner_init), to_initializer(bias_init)});
             }),
             py::arg("in_size"), py::arg("out_size"), py::arg("init") = py::none(), py::arg("inner_init") = py::none(),
             py::arg("bias_init") = py::none())
        .def(
            "__call__",
            [](L::StatelessGRU& self, py::handle h, const Variable& x) { return self.forward(none_or_variable(h), x); },
            py::arg("h"), py::arg("x"));
}

// A Python function for C++; the C++ default (null) when it is rensa's own `name`, which
// then runs without Python in the loop.
L::LossFunction loss_function(py::handle f, const char* name) {
    if (f.is_none()) return nullptr;
    py::object functions = py::module_::import("rensa._core.functions");
    if (py::hasattr(functions, name) && f.is(functions.attr(name))) return nullptr;
    return f.cast<L::LossFunction>();
}

void bind_models(py::module_& m) {
    py::classh<L::Classifier, L::Chain>(m, "Classifier", py::dynamic_attr())
        .def(py::init([](std::shared_ptr<L::Link> predictor, py::handle lossfun, py::handle accfun, int label_key) {
                 return std::make_shared<L::Classifier>(std::move(predictor),
                                                        loss_function(lossfun, "softmax_cross_entropy"),
                                                        loss_function(accfun, "accuracy"), label_key);
             }),
             py::arg("predictor"), py::arg("lossfun") = py::none(), py::arg("accfun") = py::none(),
             py::arg("label_key") = -1)
        .def_readonly("predictor", &L::Classifier::predictor)
        .def_readwrite("compute_accuracy", &L::Classifier::compute_accuracy)
        .def_readwrite("label_key", &L::Classifier::label_key)
        .def_property_readonly("y", [](const L::Classifier& self) { return variable_or_none(self.y); })
        .def_property_readonly("loss", [](const L::Classifier& self) { return variable_or_none(self.loss); })
        .def_property_readonly("accuracy", [](const L::Classifier& self) { return variable_or_none(self.accuracy); });

    py::classh<L::VGG16, L::Chain>(m, "VGG16", py::dynamic_attr())
        .def(py::init<int64_t>(), py::arg("class_labels") = 10);
    py::classh<L::ResNet50, L::Chain>(m, "ResNet50", py::dynamic_attr())
        .def(py::init<int64_t>(), py::arg("n_class") = 1000);
    py::classh<L::GoogLeNet, L::Chain>(m, "GoogLeNet", py::dynamic_attr())
        .def(py::init<int64_t>(), py::arg("n_class") = 1000);
    py::classh<L::Alex, L::Chain>(m, "Alex", py::dynamic_attr()).def(py::init<int64_t>(), py::arg("n_class") = 1000);
    py::classh<L::NIN, L::Chain>(m, "NIN", py::dynamic_attr()).def(py::init<int64_t>(), py::arg("n_class") = 1000);
}

}  // namespace

void bind_other_links(py::module_& links) {
    bind_normalization(links);
    bind_activation(links);
    bind_recurrent(links);
    bind_models(links);
}

}  // namespace rensa::python::links_detail
