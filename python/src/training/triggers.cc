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
        .def("__call__", &Trigger::operator(), py::arg("trainer"), "Whether the trigger fires at this iteration.")
        .def("serialize", &Trigger::serialize, py::arg("serializer"),
             "Saves or loads the trigger's state through ``serializer``, so a resumed run neither fires twice nor "
             "skips a point.")
        .def("get_training_length", &Trigger::get_training_length,
             "``(period, unit)`` when the trigger fires at a fixed length (what ProgressBar reads from the stop "
             "trigger), else None.")
        .def_property_readonly("finished", &Trigger::finished,
                               "True when the trigger will never fire again; the trainer then skips the "
                               "extension's ``initialize``.");

    py::classh<tr::IntervalTrigger, Trigger>(
        m, "IntervalTrigger",
        R"doc(Fires every ``period`` iterations or epochs (chainer.training.triggers.IntervalTrigger).

What a ``(period, unit)`` tuple given as a trigger becomes. With unit ``'iteration'`` it fires when the
iteration is a multiple of ``period``; with ``'epoch'`` when ``epoch_detail`` crossed a multiple of
``period`` since the last call.

Args:
    period (int): the interval, at least 1 (ValueError otherwise).
    unit (str): ``'iteration'`` or ``'epoch'`` (ValueError otherwise).)doc")
        .def(py::init<int64_t, std::string>(), py::arg("period"), py::arg("unit"))
        .def_property_readonly("period", &tr::IntervalTrigger::period, "The interval length.")
        .def_property_readonly("unit", &tr::IntervalTrigger::unit, "``'iteration'`` or ``'epoch'``.")
        .def("__repr__", [](const tr::IntervalTrigger& self) {
            return "IntervalTrigger(" + std::to_string(self.period()) + ", '" + self.unit() + "')";
        });

    py::classh<tr::ManualScheduleTrigger, Trigger>(
        m, "ManualScheduleTrigger",
        R"doc(Fires at the given iterations or epochs (chainer.training.triggers.ManualScheduleTrigger).

A point ``p`` fires on the call where the counter crosses it (previous < p <= now), so a resumed run
neither fires twice nor skips a point; ``finished`` is True once the last point fired.

Args:
    points: one point or a list of them; epoch points may be fractional (0.5 fires half way through
        the first epoch). ValueError for an empty list.
    unit (str): ``'iteration'`` or ``'epoch'`` (ValueError otherwise).)doc")
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
        .def_property_readonly("points", &tr::ManualScheduleTrigger::points, "The points, a list of floats.")
        .def_property_readonly("unit", &tr::ManualScheduleTrigger::unit, "``'iteration'`` or ``'epoch'``.");

    py::classh<tr::BestValueTrigger, Trigger>(
        m, "BestValueTrigger",
        R"doc(Fires when the mean of a reported value since the last check is the best so far
(chainer.training.triggers.BestValueTrigger).

Args:
    key (str): the reported key to watch (``'validation/main/loss'``, say). KeyError naming the keys
        reported when the check comes and ``key`` was never reported since the last one.
    compare: ``compare(best_value, new_value)``, True when ``new_value`` is better.
    trigger: how often the mean is compared: a trigger or a ``(period, unit)`` tuple.)doc")
        .def(py::init([](std::string key, py::object compare, py::object trigger) {
                 PyRef fn = make_py_ref(std::move(compare));
                 auto cmp = [fn](double best, double value) {
                     py::gil_scoped_acquire gil;
                     return py::cast<bool>((*fn)(best, value));
                 };
                 return std::make_shared<tr::BestValueTrigger>(std::move(key), cmp, to_trigger_arg(trigger));
             }),
             py::arg("key"), py::arg("compare"), py::arg("trigger") = py::make_tuple(1, "epoch"))
        .def_property_readonly("key", &tr::BestValueTrigger::key, "The reported key it watches.")
        .def_property_readonly("best_value", &tr::BestValueTrigger::best_value,
                               "The best mean so far, or None before the first check.");
    py::classh<tr::MaxValueTrigger, tr::BestValueTrigger>(
        m, "MaxValueTrigger",
        "A BestValueTrigger that fires when the mean of ``key`` is the largest so far (a validation accuracy, say); "
        "``trigger`` sets how often it is checked.")
        .def(py::init([](std::string key, py::object trigger) {
                 return std::make_shared<tr::MaxValueTrigger>(std::move(key), to_trigger_arg(trigger));
             }),
             py::arg("key"), py::arg("trigger") = py::make_tuple(1, "epoch"));
    py::classh<tr::MinValueTrigger, tr::BestValueTrigger>(
        m, "MinValueTrigger",
        "A BestValueTrigger that fires when the mean of ``key`` is the smallest so far (a validation loss, say); "
        "``trigger`` sets how often it is checked.")
        .def(py::init([](std::string key, py::object trigger) {
                 return std::make_shared<tr::MinValueTrigger>(std::move(key), to_trigger_arg(trigger));
             }),
             py::arg("key"), py::arg("trigger") = py::make_tuple(1, "epoch"));

    py::classh<tr::EarlyStoppingTrigger, Trigger>(
        m, "EarlyStoppingTrigger",
        R"doc(A stop trigger for early stopping (chainer.training.triggers.EarlyStoppingTrigger).

Accumulates the monitored value at each iteration; at each check it compares the mean with the best
so far, and fires when the value has not improved for ``patience`` checks in a row, or when
``max_trigger`` fires. A check without the monitored key is skipped. Unlike Chainer's, its state
(best value, count, the inner triggers) is serialized, so a resumed run keeps its patience count.

Args:
    check_trigger: how often the mean is compared: a trigger or a ``(period, unit)`` tuple.
    monitor (str): the reported key to watch.
    patience (int): checks without improvement before stopping (ValueError when negative).
    mode (str): ``'min'``, ``'max'``, or ``'auto'`` (max when ``monitor`` contains ``accuracy``, else min).
    verbose (bool): print when it stops.
    max_trigger: stops training anyway when this fires.)doc")
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
        .def_property_readonly("best", &tr::EarlyStoppingTrigger::best, "The best mean of the monitored value so far.")
        .def_property_readonly("count", &tr::EarlyStoppingTrigger::count,
                               "The number of checks in a row without improvement.")
        .def_property_readonly("patience", &tr::EarlyStoppingTrigger::patience,
                               "The checks without improvement it waits before stopping.");

    py::classh<tr::TimeTrigger, Trigger>(m, "TimeTrigger",
                                         "Fires once each time the trainer's elapsed time passes another ``period`` "
                                         "seconds (chainer.training.triggers.TimeTrigger); at most one fire per call. "
                                         "ValueError for ``period <= 0``.")
        .def(py::init<double>(), py::arg("period"))
        .def_property_readonly("period", &tr::TimeTrigger::period, "The period in seconds.");
    py::classh<tr::OnceTrigger, Trigger>(m, "OnceTrigger",
                                         "Fires on its first call only (chainer.training.triggers.OnceTrigger); with "
                                         "``call_on_resume=True`` once more on the first call after a resume.")
        .def(py::init<bool>(), py::arg("call_on_resume") = false);

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
