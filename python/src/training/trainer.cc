// rensa._core.training: Extension (with its trampoline), the adapter for plain Python
// extensions, and Trainer (run with the GIL released, Ctrl-C checked once per iteration).
#include <utility>

#include "python/src/gc_support.h"
#include "python/src/training/training.h"

namespace rensa::python {

namespace {

using training::Extension;
using training::ExtensionPtr;
using training::Trainer;
using training::TriggerArg;

// A callable that is not a bound Extension (a function decorated by make_extension, or an
// object with __call__), with Chainer's optional attributes read once at extend() time
// (trigger, priority, default_name) or at each call (initialize, finalize, on_error, serialize).
class FunctionExtension final : public Extension {
public:
    explicit FunctionExtension(py::object fn) : fn_{make_py_ref(std::move(fn))} {
        const py::object& f = *fn_;
        py::object name = py::getattr(f, "default_name", py::none());
        if (name.is_none()) name = py::getattr(f, "__name__", py::none());
        if (name.is_none()) name = py::type::handle_of(f).attr("__name__");
        default_name_ = py::str(name);
        trigger_ = to_trigger_arg(py::getattr(f, "trigger", py::none()));
        py::object priority = py::getattr(f, "priority", py::none());
        priority_ = priority.is_none() ? training::kPriorityReader : priority.cast<int>();
    }

    void operator()(Trainer& trainer) override {
        py::gil_scoped_acquire gil;
        (*fn_)(trainer_to_python(trainer));
    }
    std::string default_name() const override { return default_name_; }
    TriggerArg default_trigger() const override { return trigger_.empty() ? TriggerArg{1, "iteration"} : trigger_; }
    int priority() const override { return priority_; }
    void initialize(Trainer& trainer) override {
        py::gil_scoped_acquire gil;
        py::object f = attr("initialize");
        if (!f.is_none()) f(trainer_to_python(trainer));
    }
    void on_error(Trainer& trainer, const std::exception& error) override {
        (void)error;
        py::gil_scoped_acquire gil;
        py::object f = attr("on_error");
        if (f.is_none()) return;
        auto [exc, tb] = current_python_exception();
        f(trainer_to_python(trainer), exc, tb);
    }
    void finalize() override {
        py::gil_scoped_acquire gil;
        py::object f = attr("finalize");
        if (!f.is_none()) f();
    }
    void serialize(const serializers::Serializer& serializer) override {
        py::gil_scoped_acquire gil;
        py::object f = attr("serialize");
        if (!f.is_none()) serialize_python(f, serializer);
    }
    const py::object& function() const { return *fn_; }

private:
    py::object attr(const char* name) const { return py::getattr(*fn_, name, py::none()); }

    PyRef fn_;
    std::string default_name_;
    TriggerArg trigger_;
    int priority_;
};

// Wraps the stop trigger so that the loop looks at Python's pending signals once per
// iteration: Ctrl-C raises KeyboardInterrupt out of run() (extensions finalized first).
class SignalCheckTrigger final : public training::Trigger {
public:
    explicit SignalCheckTrigger(training::TriggerPtr inner) : inner_{std::move(inner)} {}
    bool operator()(Trainer& trainer) override {
        {
            py::gil_scoped_acquire gil;
            if (PyErr_CheckSignals() != 0) throw py::error_already_set();
        }
        return (*inner_)(trainer);
    }
    void serialize(const serializers::Serializer& serializer) override { inner_->serialize(serializer); }
    std::optional<std::pair<int64_t, std::string>> get_training_length() const override {
        return inner_->get_training_length();
    }
    bool finished() const override { return inner_->finished(); }
    const training::TriggerPtr& inner() const { return inner_; }

private:
    training::TriggerPtr inner_;
};

// Never fires (Chainer's stop trigger when none is given).
class NeverTrigger final : public training::Trigger {
public:
    bool operator()(Trainer& trainer) override {
        (void)trainer;
        return false;
    }
};

py::object extension_to_python(Extension& extension) {
    if (auto* f = dynamic_cast<FunctionExtension*>(&extension)) return f->function();
    return py::cast(&extension, py::return_value_policy::reference);
}

void extend(Trainer& trainer, py::handle extension, py::object name, py::object trigger, py::object priority,
            bool call_before_training) {
    ExtensionPtr ext = extension_from_python(extension);
    training::ExtendOptions options;
    if (name.is_none()) name = py::getattr(extension, "name", py::none());
    if (!name.is_none()) options.name = name.cast<std::string>();
    options.trigger = to_trigger_arg(trigger);
    if (!priority.is_none()) options.priority = priority.cast<int>();
    options.call_before_training = call_before_training;
    trainer.extend(ext, std::move(options));
    // Chainer sets extension.name to the name registered (with its "_1" suffix).
    if (!dynamic_cast<FunctionExtension*>(ext.get())) {
        try {
            extension.attr("name") = ext->name();
        } catch (py::error_already_set&) {
            PyErr_Clear();
        }
    }
}

}  // namespace

std::pair<py::object, py::object> current_python_exception() {
    std::exception_ptr current = std::current_exception();
    if (!current) return {py::none(), py::none()};
    try {
        std::rethrow_exception(current);
    } catch (py::error_already_set& e) {
        return {e.value(), e.trace()};
    } catch (...) {
        try {
            py::detail::try_translate_exceptions();
        } catch (...) {
            PyErr_SetString(PyExc_RuntimeError, "unknown C++ exception");
        }
        py::error_already_set e;
        return {e.value(), e.trace()};
    }
}

ExtensionPtr extension_from_python(py::handle obj) {
    if (py::isinstance<Extension>(obj)) return obj.cast<ExtensionPtr>();
    if (PyCallable_Check(obj.ptr()))
        return std::make_shared<FunctionExtension>(py::reinterpret_borrow<py::object>(obj));
    throw py::type_error("Trainer.extend: expected an Extension or a callable extension(trainer), got " +
                         std::string(py::str(py::type::handle_of(obj).attr("__name__"))));
}

void bind_training_trainer(py::module_& t) {
    t.attr("PRIORITY_WRITER") = training::kPriorityWriter;
    t.attr("PRIORITY_EDITOR") = training::kPriorityEditor;
    t.attr("PRIORITY_READER") = training::kPriorityReader;

    using PyExtension = PyExtensionT<Extension>;
    // Both hold Python objects through C++ (See Note [Garbage collection through C++]).
    py::classh<Extension, PyExtension>(t, "Extension", "chainer.training.Extension (subclass it in Python)",
                                       py::custom_type_setup(&gc_support::enable_gc))
        .def(py::init<>())
        .def("__call__", &Extension::operator(), py::arg("trainer"),
             "Runs the extension; the trainer calls it after each update where its trigger fires.")
        .def_property_readonly("default_name", &Extension::default_name,
                               "The name the trainer registers the extension under when ``extend`` gets none: the "
                               "class name by default.")
        .def_property_readonly("priority", &Extension::priority,
                               "The order among extensions at the same iteration: higher runs first "
                               "(``PRIORITY_READER`` by default).")
        .def_property("name", &Extension::name, &Extension::set_name,
                      "The name the trainer registered the extension under (``default_name`` until then).")
        .def(
            "initialize", &Extension::initialize, py::arg("trainer"),
            "Called once by ``Trainer.run`` before the loop, also on a resumed run (not when its trigger is finished); "
            "nothing by default.")
        .def(
            "on_error",
            [](Extension& self, Trainer& trainer, py::object exc, py::object tb) {
                (void)self;
                (void)trainer;
                (void)exc;
                (void)tb;
            },
            py::arg("trainer"), py::arg("exc"), py::arg("tb"),
            "Called with the exception when the training loop fails, before it is re-raised; nothing by default.")
        .def(
            "finalize",
            [](Extension& self, py::object trainer) {
                (void)trainer;
                self.finalize();
            },
            py::arg("trainer") = py::none(), "Called when training ends, however it ends; nothing by default.")
        .def("serialize", &Extension::serialize, py::arg("serializer"),
             "Saves or loads the extension's state through ``serializer`` (nothing by default).");

    py::classh<Trainer>(
        t, "Trainer",
        R"doc(The training loop (chainer.training.Trainer): runs the updater until the stop trigger fires,
calling the extensions whose triggers fire after each update.

The loop itself runs in C++ with the GIL released; Python extensions, datasets and loss functions
take it when called. Example::

    trainer = training.Trainer(updater, (20, 'epoch'), out='result')
    trainer.extend(extensions.LogReport())
    trainer.run()

Args:
    updater: the Updater that runs one training step per iteration.
    stop_trigger: when training stops: a trigger or a ``(period, unit)`` tuple; None never
        stops by itself.
    out (str): the folder extensions write to (created by ``run``).
    extensions: a list of extensions to register with their default options.)doc",
        py::custom_type_setup(&gc_support::enable_gc))
        .def(py::init([](py::object updater, py::object stop_trigger, std::string out, py::object extensions) {
                 TriggerArg stop = to_trigger_arg(stop_trigger);
                 training::TriggerPtr inner = stop.empty() ? std::make_shared<NeverTrigger>() : stop.get();
                 auto trainer =
                     std::make_shared<Trainer>(updater.cast<training::UpdaterPtr>(),
                                               TriggerArg{std::make_shared<SignalCheckTrigger>(inner)}, std::move(out));
                 if (!extensions.is_none()) {
                     for (py::handle e : extensions) extend(*trainer, e, py::none(), py::none(), py::none(), false);
                 }
                 return trainer;
             }),
             py::arg("updater"), py::arg("stop_trigger") = py::none(), py::arg("out") = "result",
             py::arg("extensions") = py::none())
        .def(
            "extend",
            [](Trainer& self, py::object extension, py::object name, py::object trigger, py::object priority,
               bool call_before_training, py::object invoke_before_training) {
                if (!invoke_before_training.is_none()) call_before_training = invoke_before_training.cast<bool>();
                extend(self, extension, std::move(name), std::move(trigger), std::move(priority), call_before_training);
            },
            py::arg("extension"), py::arg("name") = py::none(), py::arg("trigger") = py::none(),
            py::arg("priority") = py::none(), py::kw_only(), py::arg("call_before_training") = false,
            py::arg("invoke_before_training") = py::none(),
            R"doc(Registers an extension, called after each update whose trigger fires.

Args:
    extension: an Extension, or any callable ``extension(trainer)`` (its ``trigger``, ``priority``
        and ``default_name`` attributes are used where present, as Chainer's ``make_extension``).
    name (str): the name under which it is registered; the extension's ``default_name`` when None.
        A name already taken gets ``_1``, ``_2``, ... appended, as in Chainer.
    trigger: a trigger object or a ``(period, unit)`` tuple (unit ``'epoch'`` or
        ``'iteration'``); the extension's own trigger when None.
    priority (int): extensions with a higher priority run first (``PRIORITY_WRITER`` >
        ``PRIORITY_EDITOR`` > ``PRIORITY_READER``); the extension's own priority when None.
    call_before_training (bool): also call it once before the first update (not on a resumed run).
    invoke_before_training (bool): Chainer's older name of ``call_before_training``.

ValueError for an empty name, the name ``'training'``, and when called during or after ``run``.)doc")
        .def(
            "get_extension",
            [](Trainer& self, const std::string& name) { return extension_to_python(self.get_extension(name)); },
            py::arg("name"), "The extension registered as ``name``; KeyError naming the registered names otherwise.")
        .def(
            "run",
            [](Trainer& self, bool show_loop_exception_msg) {
                // The C++ loop always reports a loop exception on stderr (Chainer's default).
                (void)show_loop_exception_msg;
                py::gil_scoped_release release;
                self.run();
            },
            py::arg("show_loop_exception_msg") = true,
            R"doc(Runs the training loop until the stop trigger fires.

Sorts the extensions by priority, initializes them, calls the ``call_before_training`` ones on a
fresh run, then repeats: a fresh observation as the reporter's scope, ``updater.update()``, and
each extension whose trigger fires. Every extension and the updater are finalized however the
loop ends; an exception is first passed to each extension's ``on_error``, then re-raised.
The GIL is released while the C++ loop runs. ``show_loop_exception_msg`` is accepted for Chainer
compatibility: a loop exception is always reported on stderr. ValueError when called twice.)doc")
        .def_property_readonly(
            "updater", [](Trainer& self) { return py::cast(self.updater_ptr()); }, "The updater the trainer runs.")
        .def_property_readonly(
            "stop_trigger",
            [](Trainer& self) {
                training::TriggerPtr trigger = self.stop_trigger();
                if (auto* s = dynamic_cast<SignalCheckTrigger*>(trigger.get())) trigger = s->inner();
                return trigger_to_python(trigger);
            },
            "The stop trigger (a trigger that never fires when the trainer got none).")
        .def_property_readonly("out", &Trainer::out, "The output folder extensions write to (created by ``run``).")
        .def_property_readonly("elapsed_time", &Trainer::elapsed_time,
                               "Seconds since ``run`` began, plus the time recorded in a loaded snapshot (frozen when "
                               "``run`` ends).")
        .def_property_readonly("is_before_training", &Trainer::is_before_training,
                               "True before the first update (iteration 0).")
        // As Chainer: the values reported during the iteration, as Variables (not floats).
        .def_property_readonly(
            "observation",
            [](Trainer& self) {
                py::dict out;
                for (const auto& [key, value] : self.observation) {
                    out[py::str(key)] = py::cast(Variable(value, /*requires_grad=*/false));
                }
                return out;
            },
            "A dict of the values reported during the current iteration, as Variables (as "
            "Chainer).")
        .def_property_readonly("reporter", &Trainer::reporter, py::return_value_policy::reference_internal,
                               "The Reporter of the loop: each optimizer's target is an observer under the "
                               "optimizer's name (``main``), its child links under ``main/<path>``.")
        .def("serialize", &Trainer::serialize, py::arg("serializer"), py::call_guard<py::gil_scoped_release>(),
             "Saves or loads the trainer's state through ``serializer``: the updater (``updater/``), the stop "
             "trigger, each extension and its trigger (``extensions/<name>/``, ``extension_triggers/<name>/``) and "
             "the elapsed time, as Chainer.");
}

}  // namespace rensa::python
