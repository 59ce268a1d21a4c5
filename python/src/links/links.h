#pragma once
// Internal to the bind files of rensa._core.links (python/src/links/, one file per family of
// links/): the conversion of Chainer's initializer arguments, the trampoline of Python
// subclasses and the parts of bind_links, one per file.
#include <memory>
#include <optional>
#include <tuple>
#include <utility>

#include "functions/connection/convolution.h"
#include "links/initializer.h"
#include "links/link.h"
#include "links/normalization/batch_normalization.h"
#include "python/src/bind.h"
#include "python/src/convert/int_or_tuple.h"
#include "python/src/convert/shape.h"
#include "python/src/convert/variables.h"
#include "python/src/serializers/serializers.h"
#include "serializers/serializer.h"

namespace rensa::python::links_detail {

// Chainer's _get_initializer: None -> null (the link's default), an Initializer as is,
// a scalar -> Constant, an array -> FromArray (its shape must match the parameter's).
initializers::InitializerPtr to_initializer(py::handle obj);

// Python subclasses: forward(*xs) in Python (or, Chainer v1 style, __call__ when the class
// defines only that), serialize(serializer). The Python objects stay alive while C++ holds
// them (smart holder + trampoline_self_life_support).
template <class Base>
class PyLink : public Base, public py::trampoline_self_life_support {
public:
    using Base::Base;
    // The copy Link::copy starts from (clone_object below): the registry, not the Python state.
    explicit PyLink(const Base& source) : Base(source) {}

    // A Python subclass copies as its own class: a new Python object of that class over a
    // C++ copy, its __dict__ copied (rensa.link._init_clone); Link::copy then rebinds the
    // parameters and children (Note [Link copies]).
    std::shared_ptr<links::Link> clone_object() const override {
        py::gil_scoped_acquire gil;
        py::object self = py::cast(static_cast<const Base*>(this), py::return_value_policy::reference);
        py::object cls = py::type::of(self);
        py::object copy = cls.attr("__new__")(cls);
        py::module_::import("rensa.link").attr("_init_clone")(copy, self);
        return copy.cast<std::shared_ptr<links::Link>>();
    }

    Variable forward(const Variable& x) override {
        if (!in_python_forward_) {
            py::gil_scoped_acquire gil;
            if (py::function f = python_forward()) {
                PythonForwardScope scope(in_python_forward_);
                return to_variable(f(x));
            }
        }
        if constexpr (requires { Base::forward(x); }) {
            return Base::forward(x);
        } else {
            return links::Link::forward(x);
        }
    }
    Variable forward(const std::vector<Variable>& xs) override {
        if (!in_python_forward_) {
            py::gil_scoped_acquire gil;
            if (py::function f = python_forward()) {
                PythonForwardScope scope(in_python_forward_);
                py::tuple args(xs.size());
                for (size_t i = 0; i < xs.size(); ++i) args[i] = py::cast(xs[i]);
                return to_variable(f(*args));
            }
        }
        // A base that declares only forward(x) hides Link's forward(xs).
        if constexpr (requires { Base::forward(xs); }) {
            return Base::forward(xs);
        } else {
            return links::Link::forward(xs);
        }
    }
    void serialize(const serializers::Serializer& serializer) override {
        {
            py::gil_scoped_acquire gil;
            if (py::function f = py::get_override(static_cast<const Base*>(this), "serialize")) {
                serialize_python(f, serializer);  // See Note [Python loads in two passes]
                return;
            }
        }
        Base::serialize(serializer);
    }

private:
    // Note [Python forward of a built-in link]: a Python subclass of a built-in link (class
    // MyLinear(L.Linear) with its own forward) is called through this trampoline by C++
    // (containers, Classifier, updaters) and by the bound __call__. Its forward usually calls
    // super().forward(x), which is the bound C++ forward and dispatches virtually back here:
    // while the Python forward of this object runs, the C++ forward is the base's.
    struct PythonForwardScope {
        explicit PythonForwardScope(bool& flag) : flag_(flag) { flag_ = true; }
        ~PythonForwardScope() { flag_ = false; }
        PythonForwardScope(const PythonForwardScope&) = delete;
        PythonForwardScope& operator=(const PythonForwardScope&) = delete;
        bool& flag_;
    };
    bool in_python_forward_ = false;

    py::function python_forward() const {
        const Base* self = this;
        if (py::function f = py::get_override(self, "forward")) return f;
        // rensa.link's own __call__ (marked) dispatches to forward: only a user's counts.
        py::function call = py::get_override(self, "__call__");
        if (call && !py::hasattr(call, "_rensa_dispatch")) return call;
        return {};
    }
};

// py::init for a built-in link T from its factory (a lambda returning std::shared_ptr<T>):
// the link itself for T, and for a Python subclass of T the trampoline PyLink<T> over the
// same registry (a copy of the new link: same parameters and children), so that C++ calls
// the subclass's Python forward (Note [Python forward of a built-in link]).
template <class F>
struct FactoryArgs : FactoryArgs<decltype(&F::operator())> {};
template <class C, class R, class... A>
struct FactoryArgs<R (C::*)(A...) const> {
    using type = std::tuple<A...>;
};
template <class T, class F, class... A>
auto link_init_from(F make, std::tuple<A...>* /*args*/) {
    return py::init([make](A... a) -> std::shared_ptr<T> { return make(std::forward<A>(a)...); },
                    [make](A... a) -> std::shared_ptr<PyLink<T>> {
                        return std::make_shared<PyLink<T>>(*make(std::forward<A>(a)...));
                    });
}
template <class T, class F>
auto link_init(F make) {
    return link_init_from<T>(std::move(make), static_cast<typename FactoryArgs<F>::type*>(nullptr));
}

// The class of a built-in link T (parent P) with a dynamic __dict__, the trampoline for Python
// subclasses, and the copy constructor rensa.link._init_clone calls for Link.copy (`_source`).
// `doc` is the class's docstring (none when null).
template <class T, class P>
auto link_class(py::module_& m, const char* name, const char* doc = nullptr) {
    auto cls = doc ? py::classh<T, P, PyLink<T>>(m, name, doc, py::dynamic_attr())
                   : py::classh<T, P, PyLink<T>>(m, name, py::dynamic_attr());
    cls.def(py::init([](const T& source) { return std::make_shared<PyLink<T>>(source); }), py::arg("_source"));
    return cls;
}

// Parts of bind_links, in the order bind_links calls them.
void bind_initializers(py::module_& init);          // initializers.cc
void bind_link_classes(py::module_& m);             // link.cc: Parameter, Link
void bind_chains(py::module_& m);                   // chain.cc: Chain, ChainList, Sequential
void bind_connection_links(py::module_& links);     // connection.cc
void bind_normalization_links(py::module_& links);  // normalization.cc
// BatchNormalization's options from its Python arguments (normalization.cc; BatchRenormalization's too).
links::BatchNormalizationOptions batch_normalization_options(double decay, double eps, py::handle dtype, bool use_gamma,
                                                             bool use_beta, py::handle initial_gamma,
                                                             py::handle initial_beta, py::handle initial_avg_mean,
                                                             py::handle initial_avg_var);
void bind_activation_links(py::module_& links);  // activation.cc: PReLU, Maxout
void bind_recurrent_links(py::module_& links);   // connection_rnn.cc: LSTM, GRU, ...
void bind_n_step_links(py::module_& links);      // connection_n_step.cc: NStepLSTM, NStepGRU, ...
void bind_model_links(py::module_& links);       // model.cc: Classifier, vision models
void bind_spatial_links(py::module_& links);     // spatial.cc: LocalConvolution2D, ... (issue 23)
void bind_model_links(py::module_& links);       // model.cc: Classifier, the examples' vision models
void bind_vision_links(py::module_& links);      // vision.cc: Chainer's pretrained vision models
void bind_normloss_links(py::module_& links);    // normloss.cc: issue 23 normalization and loss links
void bind_sampling_filters(py::module_& init);   // initializers_sampling.cc: Up/DownsamplingConvFilter
void bind_more_links(py::module_& links);        // more_links.cc: InceptionBN, NegativeSampling, Parameter
void bind_act_links(py::module_& links);  // act.cc: issue 23's Swish, SimplifiedDropconnect, MGU, tree LSTMs, ...

// None -> nullopt (Chainer's lazy sizes and optional labels), else the int.
inline std::optional<int64_t> optional_int(py::handle obj) {
    if (obj.is_none()) return std::nullopt;
    return obj.cast<int64_t>();
}

// The options every convolution link shares, from Chainer's keyword arguments.
// `op` (the link's name) names it in errors.
template <class Options>
void set_conv_options(Options& o, const char* op, py::handle stride, py::handle pad, bool nobias, py::handle initialW,
                      py::handle initial_bias) {
    o.stride = to_int_or_tuple(stride, op, "stride");
    o.pad = to_int_or_tuple(pad, op, "pad");
    o.nobias = nobias;
    o.initialW = to_initializer(initialW);
    o.initial_bias = to_initializer(initial_bias);
}

}  // namespace rensa::python::links_detail
