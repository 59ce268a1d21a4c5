// rensa._core.training.updaters: Updater, StandardUpdater (update_core overridable in Python).
#include <optional>
#include <utility>
#include <vector>

#include "core/error.h"
#include "python/src/gc_support.h"
#include "python/src/training/data.h"
#include "python/src/training/training.h"
#include "training/updaters/standard_updater.h"

namespace rensa::python {

namespace {

using training::Updater;
using training::updaters::StandardUpdater;
using training::updaters::StandardUpdaterOptions;
using OptimizerPtr = std::shared_ptr<optimizers::Optimizer>;

// What Python passed, for the converter / device / loss_func attributes.
struct UpdaterPyArgs {
    PyRef converter, device, loss_func;
};

// StandardUpdater with Python overrides of update_core and serialize (Chainer's custom
// updaters: BPTT, GANs). Made for every StandardUpdater created from Python, so it also
// keeps the Python arguments.
class PyStandardUpdater : public StandardUpdater, public py::trampoline_self_life_support {
public:
    PyStandardUpdater(std::map<std::string, training::IteratorPtr> iterators, std::map<std::string, OptimizerPtr> opts,
                      StandardUpdaterOptions options, UpdaterPyArgs args)
        : StandardUpdater(std::move(iterators), std::move(opts), std::move(options)), args_{std::move(args)} {}

    // Chainer's update() is update_core() plus the count; a Python override does both.
    void update() override {
        {
            py::gil_scoped_acquire gil;
            py::function f = py::get_override(static_cast<const StandardUpdater*>(this), "update");
            if (f) {
                f();
                return;
            }
        }
        StandardUpdater::update();
    }
    void update_core() override {
        {
            py::gil_scoped_acquire gil;
            py::function f = py::get_override(static_cast<const StandardUpdater*>(this), "update_core");
            if (f) {
                f();
                return;
            }
        }
        StandardUpdater::update_core();
    }
    void serialize(const serializers::Serializer& serializer) override {
        {
            py::gil_scoped_acquire gil;
            py::function f = py::get_override(static_cast<const StandardUpdater*>(this), "serialize");
            if (f) {
                serialize_python(f, serializer);  // See Note [Python loads in two passes]
                return;
            }
        }
        StandardUpdater::serialize(serializer);
    }
    void finalize() override {
        {
            py::gil_scoped_acquire gil;
            py::function f = py::get_override(static_cast<const StandardUpdater*>(this), "finalize");
            if (f) {
                f();
                return;
            }
        }
        StandardUpdater::finalize();
    }

    void base_update_core() { StandardUpdater::update_core(); }
    void set_iteration(int64_t iteration) { iteration_ = iteration; }
    const UpdaterPyArgs& args() const { return args_; }

private:
    UpdaterPyArgs args_;
};

OptimizerPtr optimizer_from_python(py::handle obj) { return obj.cast<OptimizerPtr>(); }

PyStandardUpdater& py_updater(StandardUpdater& self) {
    auto* p = dynamic_cast<PyStandardUpdater*>(&self);
    if (p == nullptr) throw py::type_error("StandardUpdater: not created from Python");
    return *p;
}

// A batch concatenated by concat_examples, in the form Chainer's concat_examples gives it: a dict
// for dict examples, the bare array for one value (a call with it or with its 1-tuple is the same),
// else a tuple.
py::object concatenated_to_python(const training::Example& result) {
    if (result.is_dict()) {
        py::dict d;
        for (size_t i = 0; i < result.size(); ++i) d[py::str(result.keys[i])] = to_numpy(result.values[i]);
        return d;
    }
    if (result.size() == 1) return to_numpy(result.values[0]);
    py::tuple t(result.size());
    for (size_t i = 0; i < result.size(); ++i) t[i] = to_numpy(result.values[i]);
    return t;
}

// The next batch of the 'main' iterator through concat_examples, all in C++ (the Python update
// step's path for the default converter: no Python object per example).
py::object next_concatenated(StandardUpdater& self, const py::object& device) {
    const std::optional<Device> dev = to_optional_device(device);
    std::optional<std::vector<training::Example>> batch;
    training::Example result;
    {
        py::gil_scoped_release release;
        batch = self.get_iterator("main").next();
        if (batch) result = training::concat_examples(*batch, dev);
    }
    RENSA_CHECK(batch.has_value(), ValueError,
                "StandardUpdater.update: the 'main' iterator is exhausted (repeat=false); training iterators must "
                "repeat or the stop trigger must fire first");
    return concatenated_to_python(result);
}

}  // namespace

void bind_training_updaters(py::module_& t) {
    py::module_ m = t.def_submodule("updaters", "chainer.training.updaters");

    // Holds Python objects through C++ (See Note [Garbage collection through C++]).
    py::classh<Updater>(t, "Updater",
                        "The base of updaters (chainer.training.Updater): one training step per ``update()``, and the "
                        "iteration and epoch counters that triggers read.",
                        py::custom_type_setup(&gc_support::enable_gc))
        .def("update", &Updater::update, py::call_guard<py::gil_scoped_release>(),
             "Runs one training step (``update_core``) and advances the iteration counter.")
        .def("get_optimizer", &Updater::get_optimizer, py::arg("name"), py::return_value_policy::reference_internal,
             "The optimizer registered as ``name`` (``'main'`` for a single one); KeyError naming the names present.")
        .def("get_all_optimizers", &Updater::get_all_optimizers, "A dict of every optimizer by name, ordered by name.")
        .def(
            "get_iterator",
            [](Updater& self, const std::string& name) {
                return py::cast(&self.get_iterator(name), py::return_value_policy::reference);
            },
            py::arg("name"),
            "The iterator registered as ``name`` (``'main'`` for a single one); KeyError naming the names present.")
        .def("finalize", &Updater::finalize, "Called when training ends: finalizes the iterators.")
        .def("connect_trainer", &Updater::connect_trainer, py::arg("trainer"),
             "Called by the Trainer's constructor with the trainer (nothing by default).")
        .def_property_readonly("iteration", &Updater::iteration, "The number of updates done.")
        .def_property_readonly("epoch", &Updater::epoch, "The main iterator's epoch count.")
        .def_property_readonly("epoch_detail", &Updater::epoch_detail,
                               "The main iterator's epoch as a float (epoch plus the fraction of the current one).")
        .def_property_readonly("previous_epoch_detail", &Updater::previous_epoch_detail,
                               "The main iterator's ``epoch_detail`` before the last update, or None before the first.")
        .def_property_readonly("is_new_epoch", &Updater::is_new_epoch,
                               "Whether the last update finished an epoch of the main iterator.")
        .def("serialize", &Updater::serialize, py::arg("serializer"),
             "Saves or loads the updater's state through ``serializer``: each iterator (``iterator:<name>``), "
             "each optimizer and its target (``optimizer:<name>``, ``model:<name>``) and the iteration.");

    py::classh<StandardUpdater, Updater, PyStandardUpdater>(m, "StandardUpdater",
                                                            "chainer.training.updaters.StandardUpdater")
        .def(py::init([](py::object iterator, py::object optimizer, py::object converter, py::object device,
                         py::object loss_func, py::object loss_scale, bool auto_new_epoch) {
                 StandardUpdaterOptions options;
                 options.converter = converter_from_python(converter);
                 options.device = to_optional_device(device);
                 options.auto_new_epoch = auto_new_epoch;
                 if (!loss_func.is_none()) {
                     PyRef fn = make_py_ref(loss_func);
                     options.loss_func = [fn](const std::vector<Variable>& inputs) {
                         py::gil_scoped_acquire gil;
                         py::tuple args(inputs.size());
                         for (size_t i = 0; i < inputs.size(); ++i) args[i] = py::cast(inputs[i]);
                         return to_variable((*fn)(*args));
                     };
                 }
                 auto iterators = named<training::IteratorPtr>(iterator, &iterator_from_python);
                 auto optimizers = named<OptimizerPtr>(optimizer, &optimizer_from_python);
                 if (!loss_scale.is_none()) {
                     for (auto& [name, opt] : optimizers) opt->loss_scaling(1000, loss_scale.cast<double>());
                 }
                 UpdaterPyArgs args{make_py_ref(converter), make_py_ref(device), make_py_ref(loss_func)};
                 return std::make_shared<PyStandardUpdater>(std::move(iterators), std::move(optimizers),
                                                            std::move(options), std::move(args));
             }),
             py::arg("iterator"), py::arg("optimizer"), py::arg("converter") = py::none(),
             py::arg("device") = py::none(), py::arg("loss_func") = py::none(), py::arg("loss_scale") = py::none(),
             py::arg("auto_new_epoch") = true)
        .def(
            "update_core", [](StandardUpdater& self) { py_updater(self).base_update_core(); },
            py::call_guard<py::gil_scoped_release>(),
            "The C++ training step: the next batch of the ``'main'`` iterator through the converter, then "
            "``optimizer.update`` of the ``'main'`` optimizer with the loss function (its target by default).")
        .def("_next_concatenated", &next_concatenated, py::arg("device") = py::none(),
             "The next batch of the 'main' iterator through concat_examples on `device`, in C++.")
        .def_property("iteration", &StandardUpdater::iteration,
                      [](StandardUpdater& self, int64_t iteration) { py_updater(self).set_iteration(iteration); })
        .def_property_readonly("converter",
                               [](StandardUpdater& self) -> py::object {
                                   const py::object& c = *py_updater(self).args().converter;
                                   if (!c.is_none()) return c;
                                   return py::module_::import("rensa.dataset").attr("concat_examples");
                               })
        .def_property_readonly("device", [](StandardUpdater& self) { return *py_updater(self).args().device; })
        .def_property_readonly("loss_func", [](StandardUpdater& self) { return *py_updater(self).args().loss_func; })
        .def_property_readonly("auto_new_epoch", [](StandardUpdater& self) { return self.options().auto_new_epoch; });
}

}  // namespace rensa::python
