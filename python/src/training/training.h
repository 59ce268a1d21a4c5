#pragma once
#include <map>
// Internal pieces shared by the bind files of python/src/training/ (rensa._core.training).
#include <memory>
#include <ostream>
#include <streambuf>
#include <string>
#include <type_traits>
#include <utility>

#include "core/reporter.h"
#include "python/src/bind.h"
#include "python/src/serializers/serializers.h"
#include "training/extension.h"
#include "training/trainer.h"
#include "training/trigger.h"

namespace rensa::python {

// A strong reference to a Python object that C++ may copy and drop without the GIL (the
// std::function wrappers of options are copied inside C++ code): the last owner takes the
// GIL to release it.
using PyRef = std::shared_ptr<py::object>;
PyRef make_py_ref(py::object obj);

// The Python object of a C++ object registered as `Base` (a trampoline's self); null handle
// when C++ made it.
template <class Base>
py::object self_of(const Base* ptr) {
    return py::reinterpret_borrow<py::object>(
        py::detail::get_object_handle(ptr, py::detail::get_type_info(typeid(Base))));
}

// A trainer as the Python object that owns it (or a non-owning wrapper).
inline py::object trainer_to_python(training::Trainer& trainer) {
    return py::cast(&trainer, py::return_value_policy::reference);
}

// Chainer's get_trigger: None -> empty (the extension's default), (period, unit) -> an
// IntervalTrigger, a bound Trigger as is, any other callable `trigger(trainer) -> bool`
// through an adapter (its optional serialize / get_training_length / finished are used too).
// TypeError naming the Python type otherwise.
training::TriggerArg to_trigger_arg(py::handle obj);
// The Python object of a trigger (the original callable for an adapter).
py::object trigger_to_python(const training::TriggerPtr& trigger);

// An Observation (name -> Array) as a dict: 0-d arrays as Python floats, others as numpy
// arrays (ndarrays off the CPU).
py::dict observation_to_python(const Observation& observation);
// A dict of floats, arrays or Variables -> Observation.
Observation observation_from_python(py::handle obj);

// A std::ostream that writes to a Python file object (None: whatever sys.stdout is at
// each write, so pytest's capture and redirect_stdout see it), on flush or every 4 KiB.
class PyFileBuf : public std::streambuf {
public:
    explicit PyFileBuf(py::object file);
    ~PyFileBuf() override;
    PyFileBuf(const PyFileBuf&) = delete;
    PyFileBuf& operator=(const PyFileBuf&) = delete;
    // True when the file (sys.stdout for None) says isatty().
    bool is_terminal() const;

protected:
    int_type overflow(int_type ch) override;
    std::streamsize xsputn(const char* s, std::streamsize n) override;
    int sync() override;

private:
    void write_out();
    PyRef file_;
    std::string pending_;
};

struct PyOStream {
    explicit PyOStream(py::object file) : buf{std::move(file)}, stream{&buf} {}
    PyFileBuf buf;
    std::ostream stream;
};

// Guards the attribute reads of trampolines: a Python property that calls back into the
// same C++ virtual (the base class's default_name property) falls back to the C++ value.
struct AttrGuard {
    static inline thread_local int depth = 0;
    AttrGuard() { ++depth; }
    ~AttrGuard() { --depth; }
    AttrGuard(const AttrGuard&) = delete;
    AttrGuard& operator=(const AttrGuard&) = delete;
    static bool active() { return depth > 0; }
};

// The Python exception being handled (the current C++ exception translated as pybind11
// would), as (exc, traceback) for Chainer's on_error(trainer, exc, tb). GIL held.
std::pair<py::object, py::object> current_python_exception();

// The trampoline of an Extension (or a bound subclass such as Evaluator): Python subclasses
// override __call__, initialize, finalize, on_error, serialize, and give the attributes
// default_name, trigger and priority (class attributes or properties), as Chainer's.
template <class Base>
class PyExtensionT : public Base, public py::trampoline_self_life_support {
public:
    using Base::Base;

    void operator()(training::Trainer& trainer) override {
        {
            py::gil_scoped_acquire gil;
            py::function f = py::get_override(static_cast<const Base*>(this), "__call__");
            if (f) {
                f(trainer_to_python(trainer));
                return;
            }
        }
        if constexpr (std::is_abstract_v<Base>) {
            throw py::type_error("Extension subclass does not define __call__(self, trainer)");
        } else {
            Base::operator()(trainer);
        }
    }
    std::string default_name() const override {
        if (!AttrGuard::active()) {
            py::gil_scoped_acquire gil;
            const AttrGuard guard;
            py::object self = self_of<Base>(this);
            if (self) {
                py::object v = py::getattr(self, "default_name", py::none());
                if (py::isinstance<py::str>(v)) return v.cast<std::string>();
            }
        }
        if constexpr (std::is_abstract_v<Base>) {
            py::gil_scoped_acquire gil;
            py::object self = self_of<Base>(this);
            return self ? py::type::handle_of(self).attr("__name__").cast<std::string>() : std::string{"Extension"};
        } else {
            return Base::default_name();
        }
    }
    training::TriggerArg default_trigger() const override {
        {
            py::gil_scoped_acquire gil;
            py::object self = self_of<Base>(this);
            if (self) {
                py::object v = py::getattr(self, "trigger", py::none());
                if (!v.is_none()) return to_trigger_arg(v);
            }
        }
        return Base::default_trigger();
    }
    int priority() const override {
        if (!AttrGuard::active()) {
            py::gil_scoped_acquire gil;
            const AttrGuard guard;
            py::object self = self_of<Base>(this);
            if (self) {
                py::object v = py::getattr(self, "priority", py::none());
                if (py::isinstance<py::int_>(v)) return v.cast<int>();
            }
        }
        return Base::priority();
    }
    void initialize(training::Trainer& trainer) override {
        {
            py::gil_scoped_acquire gil;
            py::function f = py::get_override(static_cast<const Base*>(this), "initialize");
            if (f) {
                f(trainer_to_python(trainer));
                return;
            }
        }
        Base::initialize(trainer);
    }
    void on_error(training::Trainer& trainer, const std::exception& error) override {
        {
            py::gil_scoped_acquire gil;
            py::function f = py::get_override(static_cast<const Base*>(this), "on_error");
            if (f) {
                auto [exc, tb] = current_python_exception();
                f(trainer_to_python(trainer), exc, tb);
                return;
            }
        }
        Base::on_error(trainer, error);
    }
    void finalize() override {
        {
            py::gil_scoped_acquire gil;
            py::function f = py::get_override(static_cast<const Base*>(this), "finalize");
            if (f) {
                f();
                return;
            }
        }
        Base::finalize();
    }
    void serialize(const serializers::Serializer& serializer) override {
        {
            py::gil_scoped_acquire gil;
            py::function f = py::get_override(static_cast<const Base*>(this), "serialize");
            if (f) {
                serialize_python(f, serializer);  // See Note [Python loads in two passes]
                return;
            }
        }
        Base::serialize(serializer);
    }
};

// A Python extension object -> Extension: bound extensions (and Python subclasses) as they
// are; any other callable (a make_extension function, a duck-typed object) through an
// adapter reading its trigger / priority / default_name / initialize / finalize / on_error
// / serialize attributes as Chainer's Trainer does.
training::ExtensionPtr extension_from_python(py::handle obj);

// The parts of bind_training (bind.cc calls them in this order).
void bind_training_summary(py::module_& t);     // summary.cc: Summary, DictSummary
void bind_training_triggers(py::module_& t);    // triggers.cc: submodule "triggers"
void bind_training_trainer(py::module_& t);     // trainer.cc: Extension, Trainer
void bind_training_updaters(py::module_& t);    // updaters.cc: submodule "updaters"
void bind_training_extensions(py::module_& t);  // extensions.cc: "extensions"
void bind_training_reports(py::module_& t);     // reports.cc: "extensions" (reports, shifts, ...)

// Chainer's `x` or `{'main': x, ...}` arguments (iterators, optimizers, targets) -> name -> value.
template <class T>
std::map<std::string, T> named(py::handle obj, T (*convert)(py::handle)) {
    std::map<std::string, T> out;
    if (py::isinstance<py::dict>(obj)) {
        for (const auto& [k, v] : py::reinterpret_borrow<py::dict>(obj)) out[py::cast<std::string>(k)] = convert(v);
    } else {
        out["main"] = convert(obj);
    }
    return out;
}

}  // namespace rensa::python
