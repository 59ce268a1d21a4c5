// rensa._core.training.extensions: Evaluator (evaluate() overridable in Python), snapshot,
// snapshot_object, the LR shifts, observe_value / observe_lr, FailOnNonNumber,
// ParameterStatistics, DumpGraph, MicroAverage.
#include <utility>

#include "links/link.h"
#include "python/src/training/data.h"
#include "python/src/training/training.h"
#include "training/extensions/dump_graph.h"
#include "training/extensions/evaluator.h"
#include "training/extensions/fail_on_non_number.h"
#include "training/extensions/lr_shifts.h"
#include "training/extensions/micro_average.h"
#include "training/extensions/observe_value.h"
#include "training/extensions/parameter_statistics.h"
#include "training/extensions/snapshot.h"

namespace rensa::python {

namespace {

namespace ext = training::extensions;
using training::Extension;
using training::Trainer;
using LinkPtr = std::shared_ptr<links::Link>;
using OptimizerPtr = std::shared_ptr<optimizers::Optimizer>;

struct EvaluatorPyArgs {
    PyRef converter, device, eval_hook, eval_func;
};

// Evaluator with the Extension overrides and evaluate() overridable in Python; keeps the
// Python arguments for the converter / device / eval_hook / eval_func attributes.
class PyEvaluator : public PyExtensionT<ext::Evaluator> {
public:
    PyEvaluator(std::map<std::string, training::IteratorPtr> iterators, std::map<std::string, LinkPtr> targets,
                ext::EvaluatorOptions options, EvaluatorPyArgs args)
        : PyExtensionT<ext::Evaluator>(std::move(iterators), std::move(targets), std::move(options)),
          args_{std::move(args)} {}

    Observation evaluate() override {
        {
            py::gil_scoped_acquire gil;
            py::function f = py::get_override(static_cast<const ext::Evaluator*>(this), "evaluate");
            if (f) return observation_from_python(f());
        }
        return ext::Evaluator::evaluate();
    }
    const EvaluatorPyArgs& args() const { return args_; }

private:
    EvaluatorPyArgs args_;
};

LinkPtr link_from_python(py::handle obj) { return obj.cast<LinkPtr>(); }

PyEvaluator& py_evaluator(ext::Evaluator& self) {
    auto* p = dynamic_cast<PyEvaluator*>(&self);
    if (p == nullptr) throw py::type_error("Evaluator: not created from Python");
    return *p;
}

// A snapshot target: a bound Link or Optimizer serialized in C++, a Trainer, or any Python
// object with serialize(serializer).
ext::SnapshotTarget snapshot_target(py::handle obj) {
    if (py::isinstance<links::Link>(obj)) {
        LinkPtr link = obj.cast<LinkPtr>();
        return [link](const serializers::Serializer& s) { link->serialize(s); };
    }
    if (py::isinstance<optimizers::Optimizer>(obj)) {
        OptimizerPtr opt = obj.cast<OptimizerPtr>();
        return [opt](const serializers::Serializer& s) { opt->serialize(s); };
    }
    if (!py::hasattr(obj, "serialize")) {
        throw py::type_error("snapshot_object: the target has no serialize(serializer) method (got " +
                             std::string(py::str(py::type::handle_of(obj).attr("__name__"))) + ")");
    }
    PyRef target = make_py_ref(py::reinterpret_borrow<py::object>(obj));
    return [target](const serializers::Serializer& s) {
        py::gil_scoped_acquire gil;
        serialize_python(target->attr("serialize"), s);
    };
}

ext::SnapshotOptions snapshot_options(py::object savefun, py::object filename, py::object condition, py::object writer,
                                      bool snapshot_on_error, int64_t n_retains, bool autoload) {
    if (!savefun.is_none()) {
        py::object save_npz = py::module_::import("rensa.serializers").attr("save_npz");
        if (!savefun.is(save_npz))
            throw py::value_error("snapshot: only savefun=rensa.serializers.save_npz is supported");
    }
    if (!writer.is_none()) throw py::value_error("snapshot: writer= is not supported (snapshots are written in C++)");
    ext::SnapshotOptions o;
    if (PyCallable_Check(filename.ptr())) {
        PyRef fn = make_py_ref(filename);
        o.filename_fn = [fn](const Trainer& trainer) {
            py::gil_scoped_acquire gil;
            return py::str((*fn)(trainer_to_python(const_cast<Trainer&>(trainer)))).cast<std::string>();
        };
    } else {
        o.filename = filename.cast<std::string>();
    }
    if (!condition.is_none()) {
        PyRef fn = make_py_ref(condition);
        o.condition = [fn]() {
            py::gil_scoped_acquire gil;
            return py::cast<bool>((*fn)());
        };
    }
    o.snapshot_on_error = snapshot_on_error;
    o.n_retains = n_retains;
    o.autoload = autoload;
    return o;
}

ext::ShiftOptions shift_options(std::optional<double> init, std::optional<double> target, py::object optimizer) {
    ext::ShiftOptions o;
    o.init = init;
    o.target = target;
    if (!optimizer.is_none()) o.optimizer = optimizer.cast<OptimizerPtr>();
    return o;
}

OptimizerPtr optional_optimizer(py::object optimizer) {
    return optimizer.is_none() ? nullptr : optimizer.cast<OptimizerPtr>();
}

// A Python statistic f(numpy array) -> number or sequence, as ParameterStatistics takes.
ext::StatisticFunction statistic_from_python(py::object fn) {
    PyRef f = make_py_ref(std::move(fn));
    return [f](const std::vector<double>& values) {
        py::gil_scoped_acquire gil;
        py::array_t<double> a(static_cast<py::ssize_t>(values.size()), values.data());
        py::object r = (*f)(a);
        py::object flat = py::module_::import("numpy").attr("ravel")(r);
        return flat.cast<std::vector<double>>();
    };
}

}  // namespace

void bind_training_extensions(py::module_& t) {
    py::module_ m = t.def_submodule("extensions", "chainer.training.extensions");

    py::classh<ext::Evaluator, Extension, PyEvaluator>(m, "Evaluator", "chainer.training.extensions.Evaluator")
        .def(py::init([](py::object iterator, py::object target, py::object converter, py::object device,
                         py::object eval_hook, py::object eval_func) {
                 ext::EvaluatorOptions o;
                 o.converter = converter_from_python(converter);
                 o.device = to_optional_device(device);
                 if (!eval_func.is_none()) {
                     PyRef fn = make_py_ref(eval_func);
                     o.eval_func = [fn](const std::vector<Variable>& inputs) {
                         py::gil_scoped_acquire gil;
                         py::tuple args(inputs.size());
                         for (size_t i = 0; i < inputs.size(); ++i) args[i] = py::cast(inputs[i]);
                         (*fn)(*args);
                     };
                 }
                 if (!eval_hook.is_none()) {
                     PyRef fn = make_py_ref(eval_hook);
                     o.eval_hook = [fn](ext::Evaluator& evaluator) {
                         py::gil_scoped_acquire gil;
                         (*fn)(py::cast(&evaluator, py::return_value_policy::reference));
                     };
                 }
                 EvaluatorPyArgs args{make_py_ref(converter), make_py_ref(device), make_py_ref(eval_hook),
                                      make_py_ref(eval_func)};
                 return std::make_shared<PyEvaluator>(named<training::IteratorPtr>(iterator, &iterator_from_python),
                                                      named<LinkPtr>(target, &link_from_python), std::move(o),
                                                      std::move(args));
             }),
             py::arg("iterator"), py::arg("target"), py::arg("converter") = py::none(), py::arg("device") = py::none(),
             py::arg("eval_hook") = py::none(), py::arg("eval_func") = py::none())
        .def("evaluate",
             [](ext::Evaluator& self) {
                 Observation result;
                 {
                     py::gil_scoped_release release;
                     result = self.ext::Evaluator::evaluate();
                 }
                 return observation_to_python(result);
             })
        .def(
            "__call__",
            [](ext::Evaluator& self, py::object trainer) -> py::object {
                if (trainer.is_none()) return observation_to_python(self.evaluate());
                Trainer& tr = trainer.cast<Trainer&>();
                py::gil_scoped_release release;
                self.ext::Evaluator::operator()(tr);
                return py::none();
            },
            py::arg("trainer") = py::none())
        .def(
            "get_iterator",
            [](ext::Evaluator& self, const std::string& name) {
                return py::cast(&self.get_iterator(name), py::return_value_policy::reference);
            },
            py::arg("name") = "main")
        .def(
            "get_target",
            [](ext::Evaluator& self, const std::string& name) {
                return py::cast(&self.get_target(name), py::return_value_policy::reference);
            },
            py::arg("name") = "main")
        .def("get_all_targets", &ext::Evaluator::get_all_targets)
        .def("get_all_iterators",
             [](ext::Evaluator& self) {
                 py::dict out;
                 for (const auto& [name, it] : self.get_all_iterators()) out[py::str(name)] = iterator_to_python(it);
                 return out;
             })
        .def_property_readonly("_targets", &ext::Evaluator::get_all_targets)
        .def_property_readonly("_iterators",
                               [](ext::Evaluator& self) {
                                   py::dict out;
                                   for (const auto& [name, it] : self.get_all_iterators()) {
                                       out[py::str(name)] = iterator_to_python(it);
                                   }
                                   return out;
                               })
        .def_property_readonly(
            "converter",
            [](ext::Evaluator& self) -> py::object {
                const py::object& c = *py_evaluator(self).args().converter;
                if (!c.is_none()) return c;
                return py::module_::import("rensa.dataset").attr("concat_examples");
            },
            "The converter applied to each batch (``rensa.dataset.concat_examples`` by default).")
        .def_property_readonly("device", [](ext::Evaluator& self) { return *py_evaluator(self).args().device; })
        .def_property_readonly("eval_hook", [](ext::Evaluator& self) { return *py_evaluator(self).args().eval_hook; })
        .def_property_readonly("eval_func", [](ext::Evaluator& self) { return *py_evaluator(self).args().eval_func; });

    py::classh<ext::Snapshot, Extension>(m, "_Snapshot").def("filename", &ext::Snapshot::filename, py::arg("trainer"));
    m.def(
        "snapshot",
        [](py::object savefun, py::object filename, py::object target, py::object condition, py::object writer,
           bool snapshot_on_error, int64_t n_retains, bool autoload) {
            ext::SnapshotOptions o =
                snapshot_options(savefun, filename, condition, writer, snapshot_on_error, n_retains, autoload);
            if (!target.is_none()) return std::make_shared<ext::Snapshot>(std::move(o), snapshot_target(target));
            return ext::snapshot(std::move(o));
        },
        py::arg("savefun") = py::none(), py::arg("filename") = "snapshot_iter_{.updater.iteration}", py::kw_only(),
        py::arg("target") = py::none(), py::arg("condition") = py::none(), py::arg("writer") = py::none(),
        py::arg("snapshot_on_error") = false, py::arg("n_retains") = -1, py::arg("autoload") = false);
    m.def(
        "snapshot_object",
        [](py::object target, py::object filename, py::object savefun, py::object condition, py::object writer,
           bool snapshot_on_error, int64_t n_retains, bool autoload) {
            ext::SnapshotOptions o =
                snapshot_options(savefun, filename, condition, writer, snapshot_on_error, n_retains, autoload);
            return std::make_shared<ext::Snapshot>(std::move(o), snapshot_target(target));
        },
        py::arg("target"), py::arg("filename"), py::arg("savefun") = py::none(), py::kw_only(),
        py::arg("condition") = py::none(), py::arg("writer") = py::none(), py::arg("snapshot_on_error") = false,
        py::arg("n_retains") = -1, py::arg("autoload") = false);

    // The LR shifts (Chainer's argument order and keywords).
    py::classh<ext::Shift, Extension>(m, "_Shift")
        .def_property_readonly("t", &ext::Shift::t)
        .def_property_readonly("last_value", &ext::Shift::last_value);
    py::classh<ext::ExponentialShift, ext::Shift>(
        m, "ExponentialShift", R"doc(Multiplies a hyperparameter by ``rate`` at each call: ``value = init * rate ** t``
(chainer.training.extensions.ExponentialShift).

Each call (default trigger ``(1, 'iteration')``) counts ``t`` and sets the hyperparameter ``attr``
(``'lr'``, ``'alpha'``, ...) of ``optimizer`` (the trainer's ``'main'`` optimizer when None); on a
resume it restores the value the snapshot recorded.

Args:
    attr (str): the name of the optimizer hyperparameter to set.
    rate (float): the factor (ValueError when negative).
    init (float): the starting value; None: the optimizer's value of ``attr`` when the extension is
        initialized.
    target (float): the shift stops once the value passes it (None: no limit).
    optimizer: the optimizer to set; None: the trainer's ``'main'`` optimizer.)doc")
        .def(py::init([](std::string attr, double rate, std::optional<double> init, std::optional<double> target,
                         py::object optimizer) {
                 return std::make_shared<ext::ExponentialShift>(std::move(attr), rate,
                                                                shift_options(init, target, std::move(optimizer)));
             }),
             py::arg("attr"), py::arg("rate"), py::arg("init") = py::none(), py::arg("target") = py::none(),
             py::arg("optimizer") = py::none());
    py::classh<ext::LinearShift, ext::Shift>(
        m, "LinearShift", R"doc(Moves a hyperparameter linearly (chainer.training.extensions.LinearShift): it keeps
``value_range[0]`` up to call ``time_range[0]``, reaches ``value_range[1]`` at call
``time_range[1]``, then keeps it.

Each call (default trigger ``(1, 'iteration')``) counts ``t`` and sets the hyperparameter ``attr``
(``'lr'``, ``'alpha'``, ...) of ``optimizer`` (the trainer's ``'main'`` optimizer when None); on a
resume it restores the value the snapshot recorded.

Args:
    attr (str): the name of the optimizer hyperparameter to set.
    value_range: a ``(first, last)`` pair of values.
    time_range: a ``(start, end)`` pair of call counts (ValueError unless ``end > start``).
    optimizer: the optimizer to set; None: the trainer's ``'main'`` optimizer.)doc")
        .def(py::init([](std::string attr, std::pair<double, double> value_range,
                         std::pair<int64_t, int64_t> time_range, py::object optimizer) {
                 return std::make_shared<ext::LinearShift>(std::move(attr), value_range, time_range,
                                                           optional_optimizer(std::move(optimizer)));
             }),
             py::arg("attr"), py::arg("value_range"), py::arg("time_range"), py::arg("optimizer") = py::none());
    py::classh<ext::MultistepShift, ext::Shift>(
        m, "MultistepShift",
        R"doc(Multiplies a hyperparameter by ``gamma`` at each of the given call counts: ``value = init * gamma **
k`` with ``k`` the number of step values reached (chainer.training.extensions.MultistepShift).

Each call (default trigger ``(1, 'iteration')``) counts ``t`` and sets the hyperparameter ``attr``
(``'lr'``, ``'alpha'``, ...) of ``optimizer`` (the trainer's ``'main'`` optimizer when None); on a
resume it restores the value the snapshot recorded.

Args:
    attr (str): the name of the optimizer hyperparameter to set.
    gamma (float): the factor.
    step_value: the increasing list of call counts at which it multiplies (ValueError otherwise).
    init (float): the starting value; None: the optimizer's value of ``attr`` when the extension is
        initialized.
    optimizer: the optimizer to set; None: the trainer's ``'main'`` optimizer.)doc")
        .def(py::init([](std::string attr, double gamma, std::vector<int64_t> step_value, std::optional<double> init,
                         py::object optimizer) {
                 return std::make_shared<ext::MultistepShift>(std::move(attr), init, gamma, std::move(step_value),
                                                              optional_optimizer(std::move(optimizer)));
             }),
             py::arg("attr"), py::arg("gamma"), py::arg("step_value"), py::arg("init"),
             py::arg("optimizer") = py::none());
    py::classh<ext::StepShift, ext::Shift>(
        m, "StepShift",
        R"doc(Multiplies a hyperparameter by ``gamma`` every ``step`` calls: ``value = init * gamma ** floor(t /
step)`` (chainer.training.extensions.StepShift).

Each call (default trigger ``(1, 'iteration')``) counts ``t`` and sets the hyperparameter ``attr``
(``'lr'``, ``'alpha'``, ...) of ``optimizer`` (the trainer's ``'main'`` optimizer when None); on a
resume it restores the value the snapshot recorded.

Args:
    attr (str): the name of the optimizer hyperparameter to set.
    gamma (float): the factor.
    step (int): the number of calls between two multiplications (ValueError when below 1).
    init (float): the starting value; None: the optimizer's value of ``attr`` when the extension is
        initialized.
    target (float): the shift stops once the value passes it (None: no limit).
    optimizer: the optimizer to set; None: the trainer's ``'main'`` optimizer.)doc")
        .def(py::init([](std::string attr, double gamma, int64_t step, std::optional<double> init,
                         std::optional<double> target, py::object optimizer) {
                 return std::make_shared<ext::StepShift>(std::move(attr), gamma, step,
                                                         shift_options(init, target, std::move(optimizer)));
             }),
             py::arg("attr"), py::arg("gamma"), py::arg("step"), py::arg("init") = py::none(),
             py::arg("target") = py::none(), py::arg("optimizer") = py::none());
    py::classh<ext::PolynomialShift, ext::Shift>(
        m, "PolynomialShift",
        R"doc(Decays a hyperparameter polynomially to zero: ``value = init * max(1 - t / max_count, 0) ** rate``
(chainer.training.extensions.PolynomialShift).

Each call (default trigger ``(1, 'iteration')``) counts ``t`` and sets the hyperparameter ``attr``
(``'lr'``, ``'alpha'``, ...) of ``optimizer`` (the trainer's ``'main'`` optimizer when None); on a
resume it restores the value the snapshot recorded.

Args:
    attr (str): the name of the optimizer hyperparameter to set.
    rate (float): the exponent.
    max_count (int): the call count at which the value reaches zero (ValueError when below 1).
    init (float): the starting value; None: the optimizer's value of ``attr`` when the extension is
        initialized.
    target (float): the shift stops once the value passes it (None: no limit).
    optimizer: the optimizer to set; None: the trainer's ``'main'`` optimizer.)doc")
        .def(py::init([](std::string attr, double rate, int64_t max_count, std::optional<double> init,
                         std::optional<double> target, py::object optimizer) {
                 return std::make_shared<ext::PolynomialShift>(std::move(attr), rate, max_count,
                                                               shift_options(init, target, std::move(optimizer)));
             }),
             py::arg("attr"), py::arg("rate"), py::arg("max_count"), py::arg("init") = py::none(),
             py::arg("target") = py::none(), py::arg("optimizer") = py::none());
    py::classh<ext::WarmupShift, ext::Shift>(
        m, "WarmupShift",
        R"doc(Moves a hyperparameter evenly from ``warmup_start`` to ``init`` during the first ``warmup_iter``
calls, then leaves it alone (chainer.training.extensions.WarmupShift).

Each call (default trigger ``(1, 'iteration')``) counts ``t`` and sets the hyperparameter ``attr``
(``'lr'``, ``'alpha'``, ...) of ``optimizer`` (the trainer's ``'main'`` optimizer when None); on a
resume it restores the value the snapshot recorded.

Args:
    attr (str): the name of the optimizer hyperparameter to set.
    warmup_start (float): the value at the first call; None: the optimizer's value.
    warmup_iter (int): the length of the warmup in calls (ValueError when below 1).
    init (float): the value reached at the end of the warmup.
    optimizer: the optimizer to set; None: the trainer's ``'main'`` optimizer.)doc")
        .def(py::init([](std::string attr, std::optional<double> warmup_start, int64_t warmup_iter, double init,
                         py::object optimizer) {
                 return std::make_shared<ext::WarmupShift>(std::move(attr), warmup_start, warmup_iter, init,
                                                           optional_optimizer(std::move(optimizer)));
             }),
             py::arg("attr"), py::arg("warmup_start"), py::arg("warmup_iter"), py::arg("init"),
             py::arg("optimizer") = py::none());
    py::classh<ext::InverseShift, ext::Shift>(
        m, "InverseShift", R"doc(Decays a hyperparameter as ``value = init * (1 + gamma * t) ** (-power)``
(chainer.training.extensions.InverseShift, Caffe's "inv" policy).

Each call (default trigger ``(1, 'iteration')``) counts ``t`` and sets the hyperparameter ``attr``
(``'lr'``, ``'alpha'``, ...) of ``optimizer`` (the trainer's ``'main'`` optimizer when None); on a
resume it restores the value the snapshot recorded.

Args:
    attr (str): the name of the optimizer hyperparameter to set.
    gamma (float): the rate (ValueError when negative).
    power (float): the exponent.
    init (float): the starting value; None: the optimizer's value of ``attr`` when the extension is
        initialized.
    target (float): the shift stops once the value passes it (None: no limit).
    optimizer: the optimizer to set; None: the trainer's ``'main'`` optimizer.)doc")
        .def(py::init([](std::string attr, double gamma, double power, std::optional<double> init,
                         std::optional<double> target, py::object optimizer) {
                 return std::make_shared<ext::InverseShift>(std::move(attr), gamma, power,
                                                            shift_options(init, target, std::move(optimizer)));
             }),
             py::arg("attr"), py::arg("gamma"), py::arg("power"), py::arg("init") = py::none(),
             py::arg("target") = py::none(), py::arg("optimizer") = py::none());

    m.def(
        "observe_value",
        [](std::string observation_key, py::object target_func, py::object trigger) {
            PyRef fn = make_py_ref(std::move(target_func));
            ext::ObserveValueOptions o;
            if (!trigger.is_none()) o.trigger = to_trigger_arg(trigger);
            return ext::observe_value(
                std::move(observation_key),
                [fn](Trainer& trainer) {
                    py::gil_scoped_acquire gil;
                    return py::float_((*fn)(trainer_to_python(trainer))).cast<double>();
                },
                std::move(o));
        },
        py::arg("observation_key"), py::arg("target_func"), py::arg("trigger") = py::make_tuple(1, "epoch"),
        R"doc(An extension that puts ``target_func(trainer)`` (a number) into the trainer's observation under
``observation_key`` (chainer.training.extensions.observe_value).

It has writer priority, so LogReport and PrintReport see the value in the same iteration.

Args:
    observation_key (str): the key of the value in the observation.
    target_func: ``target_func(trainer)`` returning a number.
    trigger: when it observes: a trigger or a ``(period, unit)`` tuple.)doc");
    m.def(
        "observe_lr",
        [](std::string optimizer_name, std::string observation_key, py::object trigger) {
            ext::ObserveValueOptions o;
            if (!trigger.is_none()) o.trigger = to_trigger_arg(trigger);
            return ext::observe_lr(std::move(optimizer_name), std::move(observation_key), std::move(o));
        },
        py::arg("optimizer_name") = "main", py::arg("observation_key") = "lr",
        py::arg("trigger") = py::make_tuple(1, "epoch"),
        R"doc(An extension that puts the learning rate of an optimizer of the trainer's updater into the
observation (chainer.training.extensions.observe_lr).

The learning rate is the optimizer's hyperparameter ``lr``, or for Adam and its variants Chainer's
``Adam.lr`` (``alpha * sqrt(1 - beta2 ** t) / (1 - beta1 ** t)``). KeyError when the optimizer has
no ``lr``.

Args:
    optimizer_name (str): the name of the optimizer in the updater.
    observation_key (str): the key of the value in the observation.
    trigger: when it observes: a trigger or a ``(period, unit)`` tuple.)doc");

    py::classh<ext::FailOnNonNumber, Extension>(
        m, "FailOnNonNumber",
        "Stops training with an error as soon as a parameter (or, with ``check_grad=True``, a gradient) of an "
        "optimizer's target holds NaN or Inf; the error names the optimizer and the parameter path "
        "(``main/predictor/l1/W``). (chainer.training.extensions.FailOnNonNumber)")
        .def(py::init([](bool check_grad) {
                 return std::make_shared<ext::FailOnNonNumber>(ext::FailOnNonNumberOptions{.check_grad = check_grad});
             }),
             py::kw_only(), py::arg("check_grad") = true);

    py::classh<ext::ParameterStatistics, Extension>(
        m, "ParameterStatistics",
        R"doc(Reports statistics of the parameters and gradients of some links
(chainer.training.extensions.ParameterStatistics).

The statistics are averaged over the calls between two firings of ``trigger`` and reported as
``<prefix>/<link name><param path>/<data|grad>/<statistic>`` (``predictor/l1/W/data/mean``), with
``/<i>`` appended for statistics that give several numbers (the percentiles). Uninitialized
parameters and absent gradients are skipped.

Args:
    links: a link or a list of links.
    statistics: ``'default'`` (mean, std, min, max, zeros and percentiles, Chainer's), None, or a
        dict of name to ``statistic(array)`` returning a number or an array of numbers.
    report_params (bool): report the statistics of the parameters.
    report_grads (bool): report the statistics of the gradients.
    prefix (str): a prefix of the keys.
    trigger: when the averages are reported: a trigger or a ``(period, unit)`` tuple.
    skip_nan_params (bool): a parameter holding NaN reports a single NaN per statistic instead of
        computing it.)doc")
        .def(py::init([](py::object links, py::object statistics, bool report_params, bool report_grads,
                         py::object prefix, py::object trigger, bool skip_nan_params) {
                 ext::ParameterStatisticsOptions o;
                 if (py::isinstance<py::dict>(statistics)) {
                     ext::Statistics stats;
                     for (const auto& [k, v] : py::reinterpret_borrow<py::dict>(statistics)) {
                         stats.emplace_back(k.cast<std::string>(),
                                            statistic_from_python(py::reinterpret_borrow<py::object>(v)));
                     }
                     o.statistics = std::move(stats);
                 } else if (!statistics.is_none() &&
                            !(py::isinstance<py::str>(statistics) && statistics.cast<std::string>() == "default")) {
                     throw py::type_error("ParameterStatistics: statistics must be 'default', None or a dict");
                 }
                 o.report_params = report_params;
                 o.report_grads = report_grads;
                 if (!prefix.is_none()) o.prefix = prefix.cast<std::string>();
                 o.trigger = to_trigger_arg(trigger);
                 if (o.trigger.empty()) o.trigger = training::TriggerArg{1, "epoch"};
                 o.skip_nan_params = skip_nan_params;
                 std::vector<LinkPtr> list;
                 if (py::isinstance<links::Link>(links)) {
                     list.push_back(links.cast<LinkPtr>());
                 } else {
                     for (py::handle l : links) list.push_back(l.cast<LinkPtr>());
                 }
                 return std::make_shared<ext::ParameterStatistics>(std::move(list), std::move(o));
             }),
             py::arg("links"), py::arg("statistics") = "default", py::arg("report_params") = true,
             py::arg("report_grads") = true, py::arg("prefix") = py::none(),
             py::arg("trigger") = py::make_tuple(1, "epoch"), py::kw_only(), py::arg("skip_nan_params") = false)
        .def(
            "register_statistics",
            [](ext::ParameterStatistics& self, const std::string& name, py::object fn) {
                self.register_statistics(name, statistic_from_python(std::move(fn)));
            },
            py::arg("name"), py::arg("statistic"),
            "Adds (or replaces) the statistic ``name``: ``statistic(array)`` returning a number or an array of "
            "numbers.");

    py::classh<ext::DumpGraph, Extension>(
        m, "DumpGraph",
        R"doc(Writes the computational graph behind an observed value (the loss) as Graphviz DOT to
``<out>/<filename>``, once, after the first iteration (chainer.training.extensions.DumpGraph).

rensa's observations hold arrays, so the observed array is matched back to the live Variable that
holds it: the Variable must still be alive when the extension runs (a Classifier keeps its last
loss), else ValueError. KeyError when nothing was reported as ``root_name``.
``variable_style`` and ``function_style`` are not supported (ValueError when given).

Args:
    root_name (str): the reported key of the graph's root (``main/loss``).
    filename (str): the output file name in the trainer's ``out`` folder.)doc")
        .def(py::init(
                 [](std::string root_name, std::string filename, py::object variable_style, py::object function_style) {
                     if (!variable_style.is_none() || !function_style.is_none()) {
                         throw py::value_error("DumpGraph: variable_style and function_style are not supported");
                     }
                     return std::make_shared<ext::DumpGraph>(std::move(root_name), std::move(filename));
                 }),
             py::arg("root_name"), py::arg("filename") = "cg.dot", py::arg("variable_style") = py::none(),
             py::arg("function_style") = py::none());
    m.attr("dump_graph") = m.attr("DumpGraph");

    py::classh<ext::MicroAverage, Extension>(
        m, "MicroAverage",
        R"doc(Reports a micro average (chainer.training.extensions.MicroAverage): sums a numerator and a
denominator reported in each iteration (``main/correct`` and ``main/total``, say) and, when
``trigger`` fires, reports ``sum(numerators) / sum(denominators)`` as ``result_key`` and restarts
the sums.

Args:
    numerator_key (str): the reported key of the numerator.
    denominator_key (str): the reported key of the denominator.
    result_key (str): the key the ratio is reported under.
    trigger: when the ratio is reported: a trigger or a ``(period, unit)`` tuple.)doc")
        .def(py::init([](std::string numerator_key, std::string denominator_key, std::string result_key,
                         py::object trigger) {
                 training::TriggerArg arg = to_trigger_arg(trigger);
                 if (arg.empty()) arg = training::TriggerArg{1, "epoch"};
                 return std::make_shared<ext::MicroAverage>(std::move(numerator_key), std::move(denominator_key),
                                                            std::move(result_key), std::move(arg));
             }),
             py::arg("numerator_key"), py::arg("denominator_key"), py::arg("result_key"),
             py::arg("trigger") = py::make_tuple(1, "epoch"));
}

}  // namespace rensa::python
