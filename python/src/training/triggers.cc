// rensa._core.training.triggers and Chainer's get_trigger conversion (to_trigger_arg).
#include <utility>

#include "python/src/training/training.h"
#include "training/triggers/triggers.h"

namespace rensa::python {

namespace {

using training::Trainer;
using training::Trigger;
using training::TriggerArg;

// A Python callable `trigger(trainer) -> bool` (Chainer's duck-typed triggers) as a Trigger.
class CallableTrigger final : public Trigger {
public:
    explicit CallableTrigger(py::object fn) : fn_{make_py_ref(std::move(fn))} {}

    bool operator()(Trainer& trainer) override {
        py::gil_scoped_acquire gil;
        return py::cast<bool>((*fn_)(trainer_to_python(trainer)));
    }
    void serialize(const serializers::Serializer& serializer) override {
        py::gil_scoped_acquire gil;
        if (py::hasattr(*fn_, "serialize")) serialize_python(fn_->attr("serialize"), serializer);
    }
    std::optional<std::pair<int64_t, std::string>> get_training_length() const override {
        py::gil_scoped_acquire gil;
        if (!py::hasattr(*fn_, "get_training_length")) return std::nullopt;
        py::object length = fn_->attr("get_training_length")();
        if (length.is_none()) return std::nullopt;
        return length.cast<std::pair<int64_t, std::string>>();
    }
    bool finished() const override {
        py::gil_scoped_acquire gil;
        return py::hasattr(*fn_, "finished") && py::cast<bool>(fn_->attr("finished"));
    }
    const py::object& function() const { return *fn_; }

private:
    PyRef fn_;
};

}  // namespace

TriggerArg to_trigger_arg(py::handle obj) {
    if (obj.is_none()) return {};
    if (py::isinstance<Trigger>(obj)) return TriggerArg{obj.cast<std::shared_ptr<Trigger>>()};
    if ((py::isinstance<py::tuple>(obj) || py::isinstance<py::list>(obj)) && py::len(obj) == 2) {
        auto seq = py::reinterpret_borrow<py::sequence>(obj);
        return TriggerArg{seq[0].cast<int64_t>(), seq[1].cast<std::string>()};
    }
    if (PyCallable_Check(obj.ptr())) {
        return TriggerArg{std::make_shared<CallableTrigger>(py::reinterpret_borrow<py::object>(obj))};
    }
    throw py::type_error("trigger: expected None, a (period, unit) tuple or a callable trigger(trainer), got " +
                         std::string(py::str(py::type::handle_of(obj).attr("__name__"))));
}

py::object trigger_to_python(const training::TriggerPtr& trigger) {
    if (auto* callable = dynamic_cast<const CallableTrigger*>(trigger.get())) return callable->function();
    return py::cast(trigger);
}

void bind_training_triggers(py::module_& t) {
    namespace tr = training::triggers;
    py::module_ m = t.def_submodule("triggers", "chainer.training.triggers");

    py::classh<Trigger>(t, "Trigger", "Base of rensa's C++ triggers: trigger(trainer) -> bool")
        .def("__call__", &Trigger::operator(), py::arg("trainer"))
        .def("serialize", &Trigger::serialize, py::arg("serializer"))
        .def("get_training_length", &Trigger::get_training_length)
        .def_property_readonly("finished", &Trigger::finished);

    py::classh<tr::IntervalTrigger, Trigger>(m, "IntervalTrigger")
        .def(py::init<int64_t, std::string>(), py::arg("period"), py::arg("unit"))
        .def_property_readonly("period", &tr::IntervalTrigger::period)
        .def_property_readonly("unit", &tr::IntervalTrigger::unit)
        .def("__repr__", [](const tr::IntervalTrigger& self) {
            return "IntervalTrigger(" + std::to_string(self.period()) + ", '" + self.unit() + "')";
        });

    py::classh<tr::ManualScheduleTrigger, Trigger>(m, "ManualScheduleTrigger")
        .def(py::init([](py::handle points, std::string unit) {
                 std::vector<double> p;
                 if (py::isinstance<py::sequence>(points) && !py::isinstance<py::str>(points)) {
                     p = points.cast<std::vector<double>>();
                 } else {
                     p.push_back(points.cast<double>());
                 }
                 return std::make_shared<tr::ManualScheduleTrigger>(std::move(p), std::move(unit));
             }),
             py::arg("points"), py::arg("unit"))
        .def_property_readonly("points", &tr::ManualScheduleTrigger::points)
        .def_property_readonly("unit", &tr::ManualScheduleTrigger::unit);

    py::classh<tr::BestValueTrigger, Trigger>(m, "BestValueTrigger")
        .def(py::init([](std::string key, py::object compare, py::object trigger) {
                 PyRef fn = make_py_ref(std::move(compare));
                 auto cmp = [fn](double best, double value) {
                     py::gil_scoped_acquire gil;
                     return py::cast<bool>((*fn)(best, value));
                 };
                 return std::make_shared<tr::BestValueTrigger>(std::move(key), cmp, to_trigger_arg(trigger));
             }),
             py::arg("key"), py::arg("compare"), py::arg("trigger") = py::make_tuple(1, "epoch"))
        .def_property_readonly("key", &tr::BestValueTrigger::key)
        .def_property_readonly("best_value", &tr::BestValueTrigger::best_value);
    py::classh<tr::MaxValueTrigger, tr::BestValueTrigger>(m, "MaxValueTrigger")
        .def(py::init([](std::string key, py::object trigger) {
                 return std::make_shared<tr::MaxValueTrigger>(std::move(key), to_trigger_arg(trigger));
             }),
             py::arg("key"), py::arg("trigger") = py::make_tuple(1, "epoch"));
    py::classh<tr::MinValueTrigger, tr::BestValueTrigger>(m, "MinValueTrigger")
        .def(py::init([](std::string key, py::object trigger) {
                 return std::make_shared<tr::MinValueTrigger>(std::move(key), to_trigger_arg(trigger));
             }),
             py::arg("key"), py::arg("trigger") = py::make_tuple(1, "epoch"));

    py::classh<tr::EarlyStoppingTrigger, Trigger>(m, "EarlyStoppingTrigger")
        .def(py::init([](py::object check_trigger, std::string monitor, int64_t patience, std::string mode,
                         bool verbose, py::object max_trigger) {
                 tr::EarlyStoppingOptions o;
                 o.check_trigger = to_trigger_arg(check_trigger);
                 if (o.check_trigger.empty()) o.check_trigger = TriggerArg{1, "epoch"};
                 o.monitor = std::move(monitor);
                 o.patience = patience;
                 o.mode = std::move(mode);
                 o.verbose = verbose;
                 o.max_trigger = to_trigger_arg(max_trigger);
                 if (o.max_trigger.empty()) o.max_trigger = TriggerArg{100, "epoch"};
                 return std::make_shared<tr::EarlyStoppingTrigger>(std::move(o));
             }),
             py::arg("check_trigger") = py::make_tuple(1, "epoch"), py::arg("monitor") = "main/loss",
             py::arg("patience") = 3, py::arg("mode") = "auto", py::arg("verbose") = false,
             py::arg("max_trigger") = py::make_tuple(100, "epoch"))
        .def_property_readonly("best", &tr::EarlyStoppingTrigger::best)
        .def_property_readonly("count", &tr::EarlyStoppingTrigger::count)
        .def_property_readonly("patience", &tr::EarlyStoppingTrigger::patience);

    py::classh<tr::TimeTrigger, Trigger>(m, "TimeTrigger")
        .def(py::init<double>(), py::arg("period"))
        .def_property_readonly("period", &tr::TimeTrigger::period);
    py::classh<tr::OnceTrigger, Trigger>(m, "OnceTrigger").def(py::init<bool>(), py::arg("call_on_resume") = false);

    m.def(
        "get_trigger",
        [](py::object trigger) -> py::object {
            // Chainer returns callables as they are; None never fires.
            if (!trigger.is_none() && PyCallable_Check(trigger.ptr())) return trigger;
            TriggerArg arg = to_trigger_arg(trigger);
            if (arg.empty()) return py::cpp_function([](py::handle) { return false; });
            return trigger_to_python(arg.get());
        },
        py::arg("trigger"), "Chainer's get_trigger: a trigger from a (period, unit) tuple, a trigger or None");
}

}  // namespace rensa::python
